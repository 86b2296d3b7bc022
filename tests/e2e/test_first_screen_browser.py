"""Picture first, in a real Chromium: every page opens on its slide's figure, whole on the first screen of a
1440x900 laptop, and nothing is wider than a 390 px phone."""

import pytest

from explorer.lecture_map import available_pages
from tests.e2e.conftest import TIMEOUT_MS, assert_no_exception, shoot

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
SLUGS = [p.slug for p in available_pages()]


def _open(browser, app_url: str, slug: str, width: int, height: int):
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    pg.goto(f"{app_url}/{'' if slug == 'home' else slug}")
    pg.wait_for_selector(".js-plotly-plot .main-svg", state="visible")
    pg.wait_for_selector(IDLE)
    pg.wait_for_timeout(300)  # the last layout pass after the script ends
    assert_no_exception(pg)
    return context, pg


@pytest.mark.parametrize("slug", SLUGS)
def test_the_first_figure_is_whole_on_the_first_laptop_screen(browser, app_url, slug, tmp_path):
    context, pg = _open(browser, app_url, slug, 1440, 900)
    try:
        box = pg.locator(".js-plotly-plot").first.bounding_box()
        pg.screenshot(path=str(tmp_path / f"{slug}-first-screen.png"))
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 900, (
            f"{slug}: the first figure spans {box['y']:.0f}-{box['y'] + box['height']:.0f} px of a 900 px screen")
    finally:
        context.close()


@pytest.mark.parametrize("slug", SLUGS)
def test_a_phone_never_scrolls_sideways(browser, app_url, slug, tmp_path):
    context, pg = _open(browser, app_url, slug, 390, 844)
    try:
        wide = pg.evaluate("""() => {
            const main = document.querySelector('[data-testid="stMain"]');
            return Math.max(document.documentElement.scrollWidth, main ? main.scrollWidth : 0);
        }""")
        shoot(pg, tmp_path / f"{slug}-390.png")
        assert wide <= 390, f"{slug}: the page is {wide} px wide on a 390 px screen"
    finally:
        context.close()
