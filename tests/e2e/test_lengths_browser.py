"""The length-asymmetry page in a real headless Chromium: default view, Lx moves by keyboard, a profile switch in
its section, screenshots. Set SHOTS_DIR to also keep the screenshots for review (e.g. SHOTS_DIR=/tmp/shots/lengths)."""

from tests.e2e.conftest import assert_no_exception, shoot, wait_for_app


def _press(page, slider_label: str, key: str, expect: str, url_part: str) -> None:
    """Focus a slider, press `key`, wait until `expect` shows, and check the URL kept the new value."""
    page.locator('[data-testid="stSlider"]').filter(has_text=slider_label).get_by_role("slider").focus()
    page.keyboard.press(key)
    wait_for_app(page, expect)
    assert_no_exception(page)
    assert url_part in page.url


def test_default_view_then_lx_moves_and_a_profile_switch(page, app_url, tmp_path):
    page.goto(f"{app_url}/lengths?section=The%20toy%20test")  # the section with the toy test's figures
    wait_for_app(page, "every layer parameter reads all 272 tokens")
    # the allocation, and the toy test's two in the open section (charts below the first screen draw a moment later)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 3")
    assert_no_exception(page)
    shoot(page, tmp_path / "lengths-default.png")

    _press(page, "Input length Lx (tokens)", "ArrowRight", "every layer parameter reads all 400 tokens", "lx=384")
    _press(page, "Input length Lx (tokens)", "End", "every layer parameter reads all 2,064 tokens", "lx=2048")
    wait_for_app(page, "At Lx = 2,048, Ly = 16")  # the takeaway follows the slider
    shoot(page, tmp_path / "lengths-lx-end.png")

    page.get_by_text("Train another setting").first.scroll_into_view_if_needed()  # the page is taller than one shot
    shoot(page, tmp_path / "lengths-bottom.png")

    page.goto(f"{app_url}/lengths?section=Your%20own%20lengths")
    wait_for_app(page, "Input and target lengths: academic benchmark")
    page.get_by_text("long-form writing", exact=True).first.click()
    wait_for_app(page, "Input and target lengths: long-form writing")
    assert_no_exception(page)
    assert "profile=long-form" in page.url
    assert "section=Your" in page.url
    shoot(page, tmp_path / "lengths-long-form.png")
