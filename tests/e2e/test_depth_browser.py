"""The depth page in a real headless Chromium: the shipped view, depth-slider moves, screenshots.

Screenshots go under the test's tmp_path, and also to SHOTS_DIR (default /tmp/shots/depth) for review.
"""

import os

import pytest
from playwright.sync_api import expect

from explorer.experiments import depth as dp
from tests.e2e.conftest import assert_no_exception, shoot, wait_for_app

pytestmark = pytest.mark.skipif(not dp.SHIPPED_PATH.is_file(), reason="no shipped depth results")


@pytest.fixture(autouse=True)
def _review_shots(monkeypatch):
    monkeypatch.setenv("SHOTS_DIR", os.environ.get("SHOTS_DIR", "/tmp/shots/depth"))


def test_default_view_and_depth_slider_moves(page, app_url, tmp_path):
    page.goto(f"{app_url}/depth")
    wait_for_app(page, "Accuracy, final only (depth 4)")
    page.wait_for_selector(".js-plotly-plot")
    expect(page.locator(".js-plotly-plot")).to_have_count(4)  # retried: a rerun may still be replacing charts
    assert_no_exception(page)
    shoot(page, tmp_path / "depth-default.png")

    slider = page.locator('[data-testid="stSlider"]').filter(has_text="Layers per stack").get_by_role("slider")
    slider.focus()
    page.keyboard.press("ArrowRight")  # 4 -> 8
    wait_for_app(page, "Accuracy, final only (depth 8)")
    assert_no_exception(page)
    assert "depth=8" in page.url
    shoot(page, tmp_path / "depth-8.png")

    slider.focus()
    page.keyboard.press("Home")  # 8 -> 2
    wait_for_app(page, "Accuracy, final only (depth 2)")
    assert_no_exception(page)
    slider.focus()
    page.keyboard.press("End")  # 2 -> 8
    wait_for_app(page, "Accuracy, final only (depth 8)")
    assert_no_exception(page)
    long = dp.load_shipped(dp.shipped_path("long"))
    if long is not None:  # the shipped long run: 2400 steps at depth 8 show at once
        final = dp.analyse(long)["cells"][8]["final"]["accuracy"]["mean"]
        steps = page.locator('[data-testid="stSlider"]').filter(has_text="Training steps").get_by_role("slider")
        steps.focus()
        page.keyboard.press("End")
        page.wait_for_url("**steps=2400**")
        wait_for_app(page, f"{final:.1%}")  # the long run's final-only accuracy, as the metric shows it
        assert_no_exception(page)
        assert page.locator('[data-testid="stAlertContentWarning"]').count() == 0  # not refused: shipped
        shoot(page, tmp_path / "depth-8-long.png")
    page.get_by_text("Which kind of error does each wiring make?").click()
    wait_for_app(page, "teacher-forced like training")
    page.get_by_text("How this was measured").click()
    wait_for_app(page, "Same parameters, same compute")
    page.wait_for_timeout(500)  # let the expanders finish opening before measuring the page's height
    shoot(page, tmp_path / "depth-end-notes.png")
