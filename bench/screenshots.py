"""Screenshots of every page, as a student sees them: 1440x900 (the first screen, and the whole page) and
390 px wide (a phone, the whole page), each in the light and the dark theme, against one fresh server.

`python -m bench.screenshots OUT [slug ...]` writes OUT/<slug>-<width>-<theme>[-full].png; the compute
picture `docs/compute-1440-light.png` comes from `python -m bench.screenshots docs compute` (first screens only
are kept there: `--first-only`).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from explorer.lecture_map import available_pages, page as lecture_page
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.load.server import app_server

SIZES = ((1440, 900), (390, 844))
THEMES = ("light", "dark")
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
TIMEOUT_MS = 180_000


def shoot(browser, url: str, slug: str, out: Path, first_only: bool, lang: str = "en") -> list[Path]:
    written = []
    for width, height in SIZES:
        for theme in THEMES:
            context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=theme)
            context.set_default_timeout(TIMEOUT_MS)
            try:
                page = context.new_page()
                page.goto(f"{url}/{'' if slug == 'home' else slug}?lang={lang}")
                if lecture_page(slug).slide_figure:  # class mode opens on its start and join forms
                    page.wait_for_selector(".js-plotly-plot .main-svg", state="visible")
                page.wait_for_selector(IDLE)
                page.wait_for_timeout(500)
                name = f"{slug}-{width}-{theme}" + ("" if lang == "en" else f"-{lang}")
                if width > 400:
                    page.screenshot(path=str(out / f"{name}.png"))
                    written.append(out / f"{name}.png")
                if first_only:
                    continue
                full = page.evaluate("document.querySelector('[data-testid=\"stMain\"]')?.scrollHeight || 1000")
                page.set_viewport_size({"width": width, "height": min(int(full), 12000)})
                page.wait_for_timeout(300)
                page.screenshot(path=str(out / f"{name}-full.png"))
                written.append(out / f"{name}-full.png")
            finally:
                context.close()
    return written


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("slugs", nargs="*")
    parser.add_argument("--first-only", action="store_true", help="only the 1440x900 first screens")
    parser.add_argument("--lang", default="en", choices=["en", "zh"], help="the language the pages are shown in")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    slugs = [p.slug for p in available_pages() if not args.slugs or p.slug in args.slugs]
    with (
        tempfile.TemporaryDirectory(prefix="shots-") as tmp,
        app_server(Path(tmp), Path(tmp) / "server.log") as url,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for slug in slugs:
                for path in shoot(browser, url, slug, args.out, args.first_only, args.lang):
                    print(path)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
