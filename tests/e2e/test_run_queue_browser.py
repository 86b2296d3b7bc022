"""The run queue against real Chromium tabs on a server of its own: a class cannot jam it.

Tabs open depth-page links outside the shipped results, each presses Train (a link alone trains nothing),
and all close again: the per-address cap refuses all but the first few, and those are cancelled once nobody
watches them, so the next visitor's run starts at once and waits behind nothing. This server's cap is 2 per
address (the default is 4; the code is the same at any size); twelve tabs (two minutes on two cores) show it at
a class's size. Then Cancel on a depth-8 run stops it, and the same link
offers the run again instead of a permanent "cut" answer. Seconds are printed, never asserted. A class jamming
the queue is class-scale: `make test-load` runs this file (CI runs it after `make test`); the queue's rules are
unit-tested in tests/unit/test_jobs.py and a page's Cancel in tests/pages.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import assert_no_exception
from tests.load.server import app_server

LINKS = [
    f"/depth?depth={d}&steps={s}&seeds={n}&width={w}"  # the longest runs first: the first press stays running
    for d in (4, 2)
    for s in (300, 150)
    for n, w in ((3, 32), (3, 16), (2, 16))
]
TRAIN = re.compile(r"^Train \d+ models? \(about \d+ s\)$")
PROGRESS = '[data-testid="stProgress"]'
PER_ADDRESS = 2  # this server's cap per client address (EXPLORER_RUNS_PER_ADDRESS)
pytestmark = pytest.mark.load


@pytest.fixture(scope="module")
def queue_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("queue_server")
    log = folder / "server.log"
    with app_server(folder / "results", log, extra_env={"EXPLORER_RUNS_PER_ADDRESS": str(PER_ADDRESS)}) as url:
        yield url
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]


def _tab(browser, url: str):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto(url)
    return context, page


def _press(page) -> str:
    """Press Train; "started" once the progress bar shows, "refused" once a cap's message does."""
    page.get_by_role("button", name=TRAIN).click()
    started, refused = page.locator(PROGRESS).first, page.get_by_text("not started.")
    expect(started.or_(refused).first).to_be_visible()
    return "refused" if refused.count() else "started"


def test_tabs_that_asked_for_runs_and_closed_leave_nothing_queued(browser, queue_server):
    n_tabs = len(LINKS)  # twelve: a class's worth of tabs from one address
    tabs = [_tab(browser, queue_server + link) for link in LINKS]
    for _, page in tabs:
        expect(page.get_by_role("button", name=TRAIN)).to_be_visible()
        assert page.locator(PROGRESS).count() == 0  # opened, not pressed: nothing runs
    outcomes = [_press(page) for _, page in tabs]
    assert outcomes.count("started") == PER_ADDRESS, outcomes
    expect(tabs[-1][1].get_by_text(f"the limit is {PER_ADDRESS} per address")).to_be_visible()
    assert re.search(r"Try again in about \d+ s", tabs[-1][1].get_by_text("not started.").inner_text())
    for context, _ in tabs:
        context.close()
    closed = time.perf_counter()

    context, page = _tab(browser, queue_server + "/depth?depth=2&steps=150&seeds=1&width=16")
    while _press(page) == "refused":  # the cap frees once the abandoned runs are cancelled
        assert time.perf_counter() - closed < 60, "the closed tabs' runs still hold the per-address cap"
        page.wait_for_timeout(2000)
    waited = time.perf_counter() - closed
    expect(page.locator(PROGRESS).first).not_to_contain_text("ahead")  # nothing left queued before it
    expect(page.get_by_text("Accuracy, final only (depth 2)")).to_be_visible(timeout=120_000)
    assert_no_exception(page)
    context.close()
    print(
        f"\n{n_tabs} tabs pressed Train and closed: {outcomes.count('refused')} refused by the per-address cap; "
        f"the next visitor's run was accepted {waited:.1f} s after they closed and queued behind nothing"
    )


def test_cancel_stops_a_depth_8_run_and_the_link_can_train_again(browser, queue_server):
    link = queue_server + "/depth?depth=8&steps=300&seeds=1&width=16"
    context, page = _tab(browser, link)
    assert _press(page) == "started"
    expect(page.locator(PROGRESS).first).to_contain_text("depth 8, final, seed 0")  # inside the first model
    page.wait_for_timeout(3000)
    start = time.perf_counter()
    page.get_by_role("button", name="Cancel run").click()
    expect(page.get_by_text("cancelled.", exact=False).first).to_be_visible()
    stopped = time.perf_counter() - start
    expect(page.get_by_role("button", name="Start it again")).to_be_visible()
    assert page.locator(PROGRESS).count() == 0
    context.close()

    again, later = _tab(browser, link)  # the next visitor of the same link: offered the run, not a dead end
    expect(later.get_by_role("button", name=TRAIN)).to_be_visible()
    assert later.locator(PROGRESS).count() == 0 and later.get_by_text("reached the").count() == 0
    assert_no_exception(later)
    again.close()
    print(f"\nCancel on a depth-8 run: {stopped:.1f} s from the click to the page saying it was cancelled")
