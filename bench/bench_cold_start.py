"""Cold start per page: a fresh server process, the first visit to the page's URL in Chromium, and the time
from that navigation until a chart (`.js-plotly-plot`) is visible.

Every visit gets a new server (`python -m ui.launch`, empty result cache) and a new browser context; pages
are interleaved over `REPEATS` rounds so machine noise hits all alike, and medians are printed. The server's
own start (process launch until it answers its health check) is printed beside it.

`python -m bench.bench_cold_start [slug ...]` times only the pages named. Quick mode: the first page, once.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from explorer.lecture_map import available_pages
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.load.server import app_server

REPEATS = 3
CHART_TIMEOUT_MS = 180_000


def page_url(base: str, slug: str) -> str:
    return base if slug == "home" else f"{base}/{slug}"


def cold_start(browser, slug: str) -> tuple[float, float]:
    """(seconds until the fresh server is healthy, seconds from navigation to the first visible chart)."""
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as tmp:
        launched = time.perf_counter()
        with app_server(Path(tmp), Path(tmp) / "server.log") as url:
            server_s = time.perf_counter() - launched
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            try:
                page = context.new_page()
                start = time.perf_counter()
                page.goto(page_url(url, slug))
                page.wait_for_selector(".js-plotly-plot", state="visible", timeout=CHART_TIMEOUT_MS)
                return server_s, time.perf_counter() - start
            finally:
                context.close()


def main(slugs: list[str] | None = None, quick: bool = False) -> dict[str, dict]:
    """Print the table; return {slug: {"server_s", "first_chart_s"}} (medians; {"skipped": why} without
    Chromium)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        print(f"cold start: skipped, no Chromium at {CHROMIUM}")
        return {"skipped": f"no Chromium at {CHROMIUM}"}
    pages = [p.slug for p in available_pages() if p.slide_figure and (not slugs or p.slug in slugs)]
    pages, repeats = (pages[:1], 1) if quick else (pages, REPEATS)
    times: dict[str, list[tuple[float, float]]] = {slug: [] for slug in pages}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for _ in range(repeats):
                for slug in pages:
                    times[slug].append(cold_start(browser, slug))
        finally:
            browser.close()
    out = {
        slug: {"server_s": statistics.median(t[0] for t in ts), "first_chart_s": statistics.median(t[1] for t in ts)}
        for slug, ts in times.items()
    }
    print(f"cold start: fresh server, first visit in Chromium until a chart is visible (median of {repeats}):")
    print(f"  {'page':15s} {'server ready s':>14s} {'first chart s':>13s} {'spread s':>9s}")
    for slug, ts in times.items():
        firsts = [t[1] for t in ts]
        print(
            f"  {slug:15s} {out[slug]['server_s']:14.1f} {out[slug]['first_chart_s']:13.1f} "
            f"{max(firsts) - min(firsts):9.1f}"
        )
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
