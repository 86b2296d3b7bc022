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
    expect(page.locator(".js-plotly-plot")).to_have_count(2)  # wirings, answer; the open section is numbers; retried
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
        page.goto(f"{app_url}/depth?depth=8&steps=2400&seeds={len(dp.PRESETS['long'].seeds)}")  # its seeds
        wait_for_app(page, f"{final:.1%}")  # the long run's final-only accuracy, as the metric shows it
        assert_no_exception(page)
        assert page.locator('[data-testid="stAlertContentWarning"]').count() == 0  # not refused: shipped
        shoot(page, tmp_path / "depth-8-long.png")
    page.goto(f"{app_url}/depth?section=Which%20kind%20of%20error")
    wait_for_app(page, "teacher-forced like training")
    assert_no_exception(page)
    page.get_by_role("tab", name="How it was measured").click()  # a tab opens in place and joins the URL
    wait_for_app(page, "Same parameters, same compute")
    assert "section=How" in page.url
    assert_no_exception(page)
    shoot(page, tmp_path / "depth-end-notes.png")
