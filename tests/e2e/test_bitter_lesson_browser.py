"""The Bitter Lesson page in a real headless Chromium: the shipped learning curves and their takeaway on the first
1440x900 screen, the compute axis one click away, the second case from a link, screenshots.

Set SHOTS_DIR to also keep the screenshots for review (e.g. SHOTS_DIR=/tmp/shots/bitter-lesson).
"""

import pytest
from playwright.sync_api import expect

from explorer.experiments import bitter_lesson as bl
from tests.e2e.conftest import assert_no_exception, shoot, wait_for_app

pytestmark = pytest.mark.skipif(not bl.shipped_path().is_file(), reason="no shipped Bitter Lesson results")


def test_the_curves_fill_the_first_screen_and_the_axis_and_second_case_follow(page, app_url, tmp_path):
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{app_url}/bitter-lesson")
    wait_for_app(page, "The hand-built method leads with few examples")
    expect(page.locator(".js-plotly-plot")).to_have_count(1)
    assert_no_exception(page)
    box = page.locator(".js-plotly-plot").first.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 900, box
    expect(page.get_by_text("training examples seen")).to_be_visible()
    expect(page.get_by_role("button", name="Watch it learn: train here (about 25 s)")).to_be_visible()
    shoot(page, tmp_path / "bitter-lesson-default.png")

    page.get_by_text("compute", exact=True).click()  # the axis control
    wait_for_app(page, "training FLOPs")
    assert "axis=compute" in page.url
    assert_no_exception(page)
    shoot(page, tmp_path / "bitter-lesson-compute.png")

    page.goto(f"{app_url}/bitter-lesson?section=Second%20case%3A%20only%20counts%20matter")
    wait_for_app(page, "TOST sign-flip")
    expect(page.locator(".js-plotly-plot")).to_have_count(2)
    assert_no_exception(page)
    shoot(page, tmp_path / "bitter-lesson-second-case.png")
