"""The running app in a real headless Chromium."""

from explorer.lecture_map import available_pages
from tests.e2e.conftest import assert_no_exception, wait_for_app


def test_home_page_renders_in_chromium(page, app_url, tmp_path):
    page.goto(app_url)
    wait_for_app(page, "Dominant force")
    page.wait_for_selector(".js-plotly-plot")
    page.screenshot(path=str(tmp_path / "home.png"), full_page=True)
    assert_no_exception(page)
    # Streamlit shows the navigation once there is more than one page
    assert page.locator('[data-testid="stSidebarNav"]').count() == (1 if len(available_pages()) > 1 else 0)
    page.get_by_role("tab", name="How to read a figure").click()  # the badges, opened in place
    wait_for_app(page, "Every figure carries a badge")
    assert "section=How" in page.url
    assert_no_exception(page)


def test_embed_mode_hides_the_navigation(page, app_url, tmp_path):
    page.goto(f"{app_url}/?embed=true")
    wait_for_app(page, "Dominant force")
    assert_no_exception(page)
    assert page.locator('[data-testid="stSidebarNav"]').count() == 0
    page.screenshot(path=str(tmp_path / "home-embed.png"), full_page=True)
