"""The method page in a real headless Chromium: it loads, a slider move redraws, screenshots are kept."""

from pathlib import Path

from playwright.sync_api import expect

from tests.e2e.conftest import assert_no_exception, wait_for_app

REVIEW_SHOTS = Path("/tmp/shots/method")  # kept after the run, for a person to look at


def _open(page, app_url: str) -> None:
    page.goto(f"{app_url}/method?section=When%20gravity%20alone%20is%20enough")  # the section with the numbers


def _shoot(page, tmp_path, name: str) -> None:
    """The whole page: Streamlit scrolls inside its main area, so grow the viewport to the content first."""
    size = page.viewport_size
    height = page.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": min(int(height) + 50, 12_000)})
    page.wait_for_timeout(500)  # plotly charts resize to the new viewport
    REVIEW_SHOTS.mkdir(parents=True, exist_ok=True)
    for folder in (tmp_path, REVIEW_SHOTS):
        page.screenshot(path=str(folder / f"{name}.png"))
    page.set_viewport_size(size)


def _metric(page, label: str) -> str:
    box = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    return box.locator('[data-testid="stMetricValue"]').inner_text()


def test_method_page_loads_redraws_on_slider_moves_and_restores_a_link(page, app_url, tmp_path):
    _open(page, app_url)
    wait_for_app(page, "Formula off by 1 cm after")
    page.wait_for_selector(".js-plotly-plot")
    assert_no_exception(page)
    expect(page.locator(".js-plotly-plot")).to_have_count(3)  # the fall, then the open section's error and heights;
    # retried: a rerun may still be replacing charts
    assert _metric(page, "Formula off by 1 cm after") == "59.6 cm"  # the pen's textbook numbers
    _shoot(page, tmp_path, "method-default")

    # the section on more forces opens in place and joins the URL
    page.get_by_role("tab", name="More forces, less predictability").click()
    wait_for_app(page, "Horizon with 4 forces")
    assert "section=More" in page.url
    expect(page.locator(".js-plotly-plot")).to_have_count(4)  # the fall, the horizons, the path, the errors
    # fewer forces: focus the slider's thumb, then press Home (1 force: gravity alone, the fit is exact)
    thumb = page.locator('[data-testid="stSlider"]').filter(has_text="Number of forces").get_by_role("slider")
    thumb.focus()
    page.keyboard.press("Home")
    wait_for_app(page, "Horizon with 1 force")
    assert _metric(page, "Horizon with 1 force").startswith("≥")
    page.keyboard.press("ArrowRight")
    wait_for_app(page, "Horizon with 2 forces")
    assert_no_exception(page)
    assert "forces=2" in page.url

    # a much taller drop: End on the drop-height slider beside the figure; the takeaway under it follows
    thumb = page.locator('[data-testid="stSlider"]').filter(has_text="Drop height").get_by_role("slider")
    thumb.focus()
    page.keyboard.press("End")
    wait_for_app(page, "Dropped from 1 km")
    assert_no_exception(page)
    _shoot(page, tmp_path, "method-moved")

    # a link restores a view: the feather, a short drop, a tighter tolerance
    page.goto(f"{app_url}/method?object=feather&height=0.5&tol_cm=0.5&section=When%20gravity%20alone%20is%20enough")
    wait_for_app(page, "Formula off by 5 mm after")
    page.wait_for_selector(".js-plotly-plot")
    assert_no_exception(page)
    assert _metric(page, "Terminal speed") == "0.434 m/s"
    _shoot(page, tmp_path, "method-feather")

    # the method in the lecture's argument, opened by a link
    page.goto(f"{app_url}/method?section=The%20method%20in%20the%20lecture")
    wait_for_app(page, "Roll forward, with failure conditions")
    assert_no_exception(page)
    _shoot(page, tmp_path, "method-argument")
