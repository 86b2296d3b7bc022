"""Where speed is felt: in Chromium against one warm server, per page, the time a new visitor waits for the
first chart, and the time from a slider key press to the redrawn figure with the app idle again.

One server (`python -m ui.launch`, its own result cache) is warmed by a first visit to every page; then, in
rounds that interleave the pages, a fresh browser context opens each page (navigation to the first visible
chart) and presses ArrowRight / ArrowLeft on the page's main slider `PRESSES` times. A press counts until the
server's "script finished" for the rerun it caused has arrived, the app is idle and two animation frames
have passed (the browser has drawn the figure). Medians and p95 are printed; targets: first chart within 3 s,
a slider redraw within 0.5 s at p95.

A reference row times the same first visit to `bench/reference_app.py` (Streamlit, one small Plotly chart, nothing
else), in the same rounds: most of a first visit is Streamlit's page and its Plotly bundle (4.7 MB of script the
browser must run before any chart), which no page can undercut.

`python -m bench.bench_browser [slug ...]` times only the pages named. Quick mode: one page with a slider, one
round of `QUICK_PRESSES` presses, no reference row.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
import time
from pathlib import Path

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.stats import percentiles
from explorer.lecture_map import available_pages
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.load.server import app_server
from tests.load.test_classroom import FINISHED, SLIDERS

REFERENCE_APP = Path(__file__).with_name("reference_app.py")
ROUNDS = 3
PRESSES = 6  # per page and round
QUICK_PRESSES = 2
TIMEOUT_MS = 120_000
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
DRAWN = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"
TARGET_FIRST_S, TARGET_REDRAW_S = 3.0, 0.5
REFERENCE = "reference"  # the row of bench/reference_app.py


def _finished_times(page) -> list[float]:
    """perf_counter() of every successful script end (the page's, or a section's own) the page receives."""
    times: list[float] = []

    def received(payload) -> None:
        if isinstance(payload, bytes):
            msg = ForwardMsg.FromString(payload)
            if msg.WhichOneof("type") == "script_finished" and msg.script_finished in FINISHED:
                times.append(time.perf_counter())

    page.on("websocket", lambda ws: ws.on("framereceived", received))
    return times


def visit(browser, url: str, slug: str, presses: int = PRESSES) -> tuple[float, list[float]]:
    """(seconds to the first visible chart, seconds per slider press until the figure is redrawn); `url` is the
    page's own address."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        finished = _finished_times(page)
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(".js-plotly-plot .main-svg", state="visible")
        page.evaluate(DRAWN)
        first = time.perf_counter() - start
        page.wait_for_selector(IDLE)
        if slug not in SLIDERS:
            return first, []
        slider = page.locator('[data-testid="stSlider"]').filter(has_text=SLIDERS[slug]).first.get_by_role("slider")
        times = []
        for i in range(presses):
            slider.focus()
            pressed = time.perf_counter()
            page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            while not any(t > pressed for t in finished):
                page.wait_for_timeout(5)
            page.wait_for_selector(IDLE)
            page.wait_for_selector(".js-plotly-plot .main-svg", state="visible")
            page.evaluate(DRAWN)
            times.append(time.perf_counter() - pressed)
        return first, times
    finally:
        context.close()


@contextlib.contextmanager
def _reference_server(tmp: Path, wanted: bool):
    """The reference app's server when its row is wanted (not in quick mode), else nothing."""
    if not wanted:
        yield None
        return
    with app_server(tmp, tmp / "reference.log", script=REFERENCE_APP) as url:
        yield url


def main(slugs: list[str] | None = None, quick: bool = False) -> dict[str, dict]:
    """Print the table; return {slug: {"first_chart_s", "redraw_p50_s", "redraw_p95_s"}} ({"skipped": why}
    without Chromium)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        print(f"browser timings: skipped, no Chromium at {CHROMIUM}")
        return {"skipped": f"no Chromium at {CHROMIUM}"}
    pages = [p.slug for p in available_pages() if p.slide_figure and (not slugs or p.slug in slugs)]
    pages = [next(s for s in pages if s in SLIDERS)] if quick else pages + [REFERENCE]
    rounds, presses = (1, QUICK_PRESSES) if quick else (ROUNDS, PRESSES)
    firsts: dict[str, list[float]] = {s: [] for s in pages}
    redraws: dict[str, list[float]] = {s: [] for s in pages}
    with (
        tempfile.TemporaryDirectory(prefix="bench-browser-") as tmp,
        app_server(Path(tmp), Path(tmp) / "server.log") as url,
        _reference_server(Path(tmp), REFERENCE in pages) as reference,
        sync_playwright() as pw,
    ):
        urls = {s: reference if s == REFERENCE else url if s == "home" else f"{url}/{s}" for s in pages}
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for slug in pages:  # warm-up: models load, caches fill
                visit(browser, urls[slug], slug, presses)
            for _ in range(rounds):
                for slug in pages:
                    first, times = visit(browser, urls[slug], slug, presses)
                    firsts[slug].append(first)
                    redraws[slug] += times
        finally:
            browser.close()
    out = {}
    print(
        f"browser: warm server, Chromium at 1440x900; first chart (median of {rounds} visits) and slider key press "
        f"to figure redrawn ({rounds * presses} presses); targets {TARGET_FIRST_S:g} s and {TARGET_REDRAW_S:g} s p95"
    )
    print(f"  {'page':15s} {'first chart s':>13s} {'redraw p50 s':>12s} {'redraw p95 s':>12s}  slider")
    for slug in pages:
        first = percentiles(firsts[slug], 50)[0]
        row = {"first_chart_s": first}
        if redraws[slug]:
            p50, p95 = percentiles(redraws[slug], 50, 95)
            row.update(redraw_p50_s=p50, redraw_p95_s=p95)
        out[slug] = row
        shown = (
            f"{row['redraw_p50_s']:12.2f} {row['redraw_p95_s']:12.2f}" if redraws[slug] else f"{'-':>12s} {'-':>12s}"
        )
        what = (
            "Streamlit + one small Plotly chart: the floor" if slug == REFERENCE else SLIDERS.get(slug, "(no slider)")
        )
        print(f"  {slug:15s} {first:13.2f} {shown}  {what}")
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
