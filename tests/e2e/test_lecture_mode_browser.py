"""Lecture mode in a real Chromium: an embed link shows one figure alone; a figure downloads as SVG.

Which figure a page draws in figure mode is checked for every page in AppTest (tests/pages/test_lecture_mode.py);
here, what only a browser shows: the navigation, title, controls and share tools hidden around that figure, on
three pages that differ in layout (a single chart, a chart beside its controls, a page of several sections)."""

import xml.etree.ElementTree as ET

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import TIMEOUT_MS, assert_no_exception
from tests.pages.test_lecture_mode import EMBED_FIGURES


@pytest.mark.parametrize("slug", ["compute", "cache", "four-steps"])
def test_an_embed_link_shows_one_figure_alone(page, app_url, tmp_path, slug):
    path = "" if slug == "home" else slug
    page.set_viewport_size({"width": 1000, "height": 650})  # an iframe on a slide
    page.goto(f"{app_url}/{path}?figure={EMBED_FIGURES[slug]}&controls=hidden&embed=true")
    expect(page.locator(".js-plotly-plot")).to_have_count(1, timeout=TIMEOUT_MS)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=TIMEOUT_MS)
    assert_no_exception(page)
    assert page.locator('[data-testid="stSidebarNav"]').count() == 0
    assert page.locator('[data-testid="stSlider"]:visible, [data-testid="stPopover"]:visible').count() == 0
    assert page.locator("h1:visible").count() == 0  # the page title is hidden too: only the figure shows
    page.screenshot(path=str(tmp_path / f"embed-{slug}.png"))


def test_a_figure_downloads_as_svg_through_the_page(page, app_url, tmp_path):
    page.goto(f"{app_url}/compute")
    page.wait_for_selector(".js-plotly-plot", timeout=TIMEOUT_MS)
    page.get_by_text("Share / export").first.click()
    expect(page.get_by_text("This figure alone").first).to_be_visible()
    page.screenshot(path=str(tmp_path / "share-popover.png"))
    with page.expect_download(timeout=TIMEOUT_MS) as download:
        page.locator('[data-testid="stPopoverBody"] button', has_text="SVG").first.click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == "compute-compute-trend.svg"
    root = ET.parse(saved).getroot()
    assert root.tag.endswith("svg") and root.get("width") == "1600"
    assert "HISTORICAL DATA" in saved.read_text()  # the evidence badge travels with the file


def test_an_unknown_figure_id_shows_a_message_not_a_blank_frame(page, app_url):
    page.goto(f"{app_url}/compute?figure=nope&controls=hidden&embed=true")
    expect(page.get_by_text("This page has no figure").first).to_be_visible(timeout=TIMEOUT_MS)
    expect(page.locator(".js-plotly-plot")).to_have_count(0)  # retried: a rerun may still be replacing charts
