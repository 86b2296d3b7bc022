"""Picture first, in a real Chromium: every page opens on its slide's figure, whole on the first screen of a
1440x900 laptop; narrowed to a 390 px phone, nothing is wider than the screen; and offline in a classroom, no
page asks another host for anything (no font, icon or script: the Material icons once came from a font host).
Every other page is opened in Chinese (`lang=zh`): its longer or shorter strings must fit the same way."""

import re

import pytest

from explorer.lecture_map import available_pages
from tests.e2e.conftest import TIMEOUT_MS, assert_no_exception, shoot

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
SLUGS = [p.slug for p in available_pages() if p.slide_figure]  # class mode: tests/e2e/test_class_browser.py
LANGS = {slug: "zh" if i % 2 else "en" for i, slug in enumerate(SLUGS)}
# At 390 px every figure's title and badge (text above it) lie inside the screen, and every chart either fits
# the screen or sits in a frame that scrolls it sideways (a multi-panel figure kept at a readable width).
NARROW_OVERFLOWS = """() => {
    const out = [];
    for (const el of document.querySelectorAll('.figure-head, .js-plotly-plot')) {
        const box = el.getBoundingClientRect();
        const framed = el.closest("[class*='st-key-scroll-']");
        if (box.right > window.innerWidth + 1 && !framed) out.push(el.className + ': ' + Math.round(box.right));
    }
    return out;
}"""
CUT_LINKS = """() => [...document.querySelectorAll('[data-testid="stPageLink"] a span')]
    .filter(el => el.scrollWidth > el.clientWidth + 1).map(el => el.innerText)"""
# the first figure's text (titles, tick labels, legend, colour bar) lies inside the figure: its margins are set,
# not found by Plotly's automargin, on figures where that would redraw them three times at each slider move
CUT_TEXT = """(el) => {
    const box = el.querySelector('.svg-container').getBoundingClientRect();
    return [...el.querySelectorAll('.main-svg text')].filter(t => t.textContent.trim())
        .map(t => [t.textContent, t.getBoundingClientRect()])
        .filter(([, r]) => r.width && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1
                                       || r.bottom > box.bottom + 1))
        .map(([text, r]) => `${text} at ${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)} x ` +
                            `${Math.round(r.top - box.top)}..${Math.round(r.bottom - box.top)}`);
}"""
WIDTH = """() => {
    const main = document.querySelector('[data-testid="stMain"]');
    return Math.max(document.documentElement.scrollWidth, main ? main.scrollWidth : 0);
}"""


def _settled(pg) -> None:
    pg.wait_for_selector(".js-plotly-plot .main-svg", state="visible")
    pg.wait_for_selector(IDLE)
    pg.wait_for_timeout(300)  # the last layout pass after the script ends


@pytest.mark.parametrize("slug", SLUGS)
def test_first_screen_phone_width_and_no_outside_request(browser, app_url, slug, tmp_path):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    outside = []
    context.on(
        "request", lambda r: outside.append(r.url) if not r.url.startswith((app_url, "data:", "blob:")) else None
    )
    try:
        pg = context.new_page()
        pg.goto(f"{app_url}/{'' if slug == 'home' else slug}?lang={LANGS[slug]}")
        _settled(pg)
        assert_no_exception(pg)
        box = pg.locator(".js-plotly-plot").first.bounding_box()
        head = pg.locator(".figure-head").first.bounding_box()
        assert head is not None and 0 <= head["y"] < box["y"], f"{slug}: the first figure's title is off screen"
        if LANGS[slug] == "zh":
            assert re.search(r"[\u4e00-\u9fff]", pg.locator("h1").first.inner_text()), f"{slug}: title not in Chinese"
        pg.screenshot(path=str(tmp_path / f"{slug}-first-screen.png"))
        assert pg.locator(".js-plotly-plot").first.evaluate(CUT_TEXT) == [], f"{slug}: the first figure cuts its text"
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 900, (
            f"{slug}: the first figure spans {box['y']:.0f}-{box['y'] + box['height']:.0f} px of a 900 px screen"
        )
        pg.set_viewport_size({"width": 390, "height": 844})
        pg.wait_for_timeout(800)  # Streamlit and Plotly re-lay the page out for the narrow screen
        wide = pg.evaluate(WIDTH)
        shoot(pg, tmp_path / f"{slug}-390.png")
        assert wide <= 390, f"{slug}: the page is {wide} px wide on a 390 px screen"
        assert pg.evaluate(NARROW_OVERFLOWS) == [], f"{slug}: cut at the right edge of a 390 px screen"
        assert pg.evaluate(CUT_LINKS) == [], f"{slug}: links to other pages cut on a 390 px screen"
        assert outside == [], f"{slug} asked other hosts: {outside[:5]}"
    finally:
        context.close()
