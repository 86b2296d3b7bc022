"""The README's picture, `docs/path-1440-light.png`: the learning path at 1440x900 with question 5 answered and
the measured figure that answers it, drawn by a fresh server in headless Chromium.

`python -m bench.readme_picture [OUT]` (default docs/path-1440-light.png).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.conftest import ROOT
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.load.server import app_server

VIEW = "path?q=5&p5=1"  # question 5, answered as the figure supports
SIZE = {"width": 1440, "height": 900}
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
EMBED_SETTLE_MS = 25_000  # the embedded four-steps page runs every section in figure mode before it draws


def main() -> None:
    from playwright.sync_api import sync_playwright

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "path-1440-light.png"
    with (
        tempfile.TemporaryDirectory(prefix="picture-") as tmp,
        app_server(Path(tmp), Path(tmp) / "server.log") as url,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport=SIZE, color_scheme="light")
            context.set_default_timeout(180_000)
            page = context.new_page()
            page.goto(f"{url}/{VIEW}")
            page.wait_for_selector(IDLE)
            page.frame_locator("iframe").first.locator(".js-plotly-plot .main-svg").first.wait_for(state="visible")
            page.wait_for_timeout(2_000)
            page.screenshot(path=str(out))
            print(out)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
