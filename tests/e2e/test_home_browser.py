"""The running app in a real headless Chromium."""

import re

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


def test_the_sidebar_theme_switch_turns_the_page_and_its_figures_dark_and_back(page, app_url):
    """The browser here asks for light; the switch's link reloads the same view in Streamlit's dark theme."""
    app_background = "getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor"
    figure_background = "document.querySelector('.js-plotly-plot')._fullLayout.paper_bgcolor"
    page.goto(f"{app_url}/compute?lang=en")
    wait_for_app(page, "Compute per dollar")
    page.wait_for_selector(".js-plotly-plot .main-svg")
    assert page.evaluate(figure_background) == "white"
    page.get_by_role("link", name="Dark", exact=True).click()
    page.wait_for_url("**embed_options=dark_theme**")
    wait_for_app(page, "Compute per dollar")
    page.wait_for_selector(".js-plotly-plot .main-svg")
    assert "lang=en" in page.url and _brightness(page.evaluate(app_background)) < 40
    page.wait_for_function(f"{figure_background} === '#0E1117'")  # the figure follows the theme
    assert_no_exception(page)
    page.get_by_role("link", name="System", exact=True).click()
    page.wait_for_url(lambda url: "embed_options" not in url)
    wait_for_app(page, "Compute per dollar")
    assert _brightness(page.evaluate(app_background)) > 240


def _brightness(rgb: str) -> float:
    """The mean channel of a computed colour, "rgb(23, 22, 20)": under 40 is a dark page, over 240 a light one."""
    return sum(int(v) for v in re.findall(r"\d+", rgb)[:3]) / 3
