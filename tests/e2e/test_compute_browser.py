"""The compute-per-dollar page in a real Chromium: move the fit window with the keyboard, upload CSVs."""

import re

from playwright.sync_api import expect

from tests.e2e.conftest import TIMEOUT_MS, assert_no_exception, wait_for_app


def _slider(page, label: str):
    return page.locator('[data-testid="stSlider"]').filter(has_text=label).get_by_role("slider")


MORE = "More settings: precision, horizon, your data"  # the expander beside the chart


def _open(page, app_url: str) -> None:
    page.goto(f"{app_url}/compute")
    wait_for_app(page, "Years per 10×")


def open_more_settings(page) -> None:
    page.get_by_text(MORE).click()
    expect(page.locator('[data-testid="stFileUploader"]')).to_be_visible()


def test_moving_the_window_refits_and_redraws(page, app_url, tmp_path):
    _open(page, app_url)
    expect(page.get_by_text("4.95", exact=True)).to_be_visible()
    start = _slider(page, "first year")
    start.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    wait_for_app(page, "over 1953–2025")
    assert_no_exception(page)
    start.focus()
    page.keyboard.press("Home")  # 1850: the whole span, with the flat years before the war
    wait_for_app(page, "6.38")
    expect(page.get_by_text("Before about 1940")).to_be_visible()
    open_more_settings(page)
    horizon = _slider(page, "Extrapolate to")
    horizon.focus()
    page.keyboard.press("End")
    expect(page).to_have_url(re.compile(r"horizon=2060"), timeout=TIMEOUT_MS)
    wait_for_app(page, "6.38")
    assert_no_exception(page)
    expect(page.locator(".js-plotly-plot")).to_have_count(1)  # the trend; the open tab is numbers; retried: a
    # rerun may still be replacing charts
    page.get_by_role("tab", name="Roll it forward").click()
    wait_for_app(page, "Median miss of the later machines")
    expect(page.locator(".js-plotly-plot")).to_have_count(2)  # trend, backtest: the closed tabs draw nothing
    assert "section=Roll+it+forward" in page.url or "section=Roll%20it%20forward" in page.url
    fit_up_to = _slider(page, "Fit up to")  # its own section reruns alone (a fragment), the trend stays
    fit_up_to.focus()
    page.keyboard.press("ArrowRight")
    wait_for_app(page, "Years per 10× up to 2001")
    expect(page).to_have_url(re.compile(r"train_end=2001"), timeout=TIMEOUT_MS)
    expect(page.locator(".js-plotly-plot")).to_have_count(2)
    assert_no_exception(page)
    page.screenshot(path=str(tmp_path / "compute-window.png"), full_page=True)


def test_upload_a_good_and_a_bad_csv(page, app_url, tmp_path):
    good = tmp_path / "moore.csv"
    good.write_text(
        "year,value,name\n1971,2300,4004\n1982,134000,80286\n1993,3100000,Pentium\n"
        "2000,42000000,Pentium 4\n2010,1170000000,Core i7\n"
    )
    bad = tmp_path / "photo.csv"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
    _open(page, app_url)
    open_more_settings(page)
    chooser = page.locator('[data-testid="stFileUploader"] input[type="file"]')
    chooser.set_input_files(str(good))
    wait_for_app(page, "fitted on its own")  # not "Your data": the expander's label says "your data" too
    assert_no_exception(page)
    page.screenshot(path=str(tmp_path / "compute-upload-good.png"), full_page=True)
    chooser.set_input_files(str(bad))
    wait_for_app(page, "This is not a CSV file: it contains binary data")
    assert_no_exception(page)
    page.screenshot(path=str(tmp_path / "compute-upload-bad.png"), full_page=True)


def test_the_numbers_behind_the_figure_are_a_keyboard_away(page, app_url):
    """Tab from "Share / export" to "Data table", Enter: the figure's numbers as a table (the CSV's rows)."""
    _open(page, app_url)
    page.get_by_role("button", name="Share / export").first.focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.innerText").startswith("Data table")
    page.keyboard.press("Enter")
    table = page.locator('[data-testid="stPopoverBody"] [data-testid="stDataFrame"]')
    expect(table).to_be_visible()
    expect(page.get_by_text(re.compile(r"The numbers behind this figure, \d+ rows"))).to_be_visible()
    assert_no_exception(page)
