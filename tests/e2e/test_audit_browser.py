"""The bias-audit workbook in a real headless Chromium: edit a cell, add a row, download the JSON through the
page, upload it back (and a broken file), with screenshots kept for review."""

import json
from pathlib import Path

from playwright.sync_api import expect

from tests.e2e.conftest import TIMEOUT_MS, assert_no_exception, wait_for_app

REVIEW = Path("/tmp/shots/audit")  # kept after the run for a person to look at
ROW_HEIGHT = 35  # the data editor's default row (and header) height in pixels
STRUCTURE_X = 200  # pixels from the editor's left edge into the "Structure" column
SECTIONS = ("Your workbook", "The decision rule", "Export, import and share", "How it works and its limits")


def _save(page, tmp_path, name: str) -> None:
    """The first screen, the workbook's cards scrolled into view, and the chart (Streamlit scrolls inside its main
    area); the open section stays open."""
    REVIEW.mkdir(parents=True, exist_ok=True)
    for folder in (tmp_path, REVIEW):
        page.screenshot(path=str(folder / f"{name}-0-top.png"))
    cards = page.get_by_role("heading", name="Where each cell comes from")
    if cards.count():
        cards.first.scroll_into_view_if_needed()
        for folder in (tmp_path, REVIEW):
            page.screenshot(path=str(folder / f"{name}-1-cards.png"))
    chart = page.locator(".js-plotly-plot").first
    chart.scroll_into_view_if_needed()
    for folder in (tmp_path, REVIEW):
        chart.screenshot(path=str(folder / f"{name}-chart.png"))


def _type_into_structure(page, row: int, text: str) -> None:
    """Open the editor on one Structure cell of the data editor (a canvas), replace its text, commit."""
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.scroll_into_view_if_needed()
    page.wait_for_timeout(500)  # let the scroll settle before clicking into the canvas
    box = grid.bounding_box()
    page.mouse.dblclick(box["x"] + STRUCTURE_X, box["y"] + ROW_HEIGHT * (row + 1) + ROW_HEIGHT / 2)
    editor = page.locator("textarea.gdg-input")
    expect(editor).to_be_visible()
    editor.fill(text)  # one input event: typed key by key, a loaded machine once dropped a letter ("Mixture-of-exerts")
    expect(editor).to_have_value(text)
    page.wait_for_timeout(400)  # the grid reads the overlay's text a frame later; an earlier Enter commits the old one
    page.keyboard.press("Enter")


def _open(page, app_url: str, query: str, text: str) -> None:
    """The router first (so the page runs inside app.py's navigation), then the page, until `text` shows."""
    page.goto(app_url)
    wait_for_app(page, "Dominant force")
    page.goto(f"{app_url}/audit{query}")
    wait_for_app(page, text)


def _idle(page) -> None:
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=TIMEOUT_MS)


def _section(page, label: str) -> None:
    """Open one section below the first screen (a tab: only the open one runs)."""
    page.get_by_role("tab", name=label).click()
    _idle(page)


def _card_text(page, text: str):
    """Text in the cards below the editor (the editor's own cells are a canvas with a hidden twin table)."""
    return page.locator('[data-testid="stMarkdownContainer"]').filter(has_text=text)


def test_edit_add_download_and_upload_a_workbook(page, app_url, tmp_path):
    _open(page, app_url, "", "Where each cell comes from")
    expect(page.get_by_text("Ship now:").first).to_be_visible()
    # the load test moves this slider on a first load: it stays beside the figure, outside any expander
    expect(page.locator('[data-testid="stSlider"]').filter(has_text="Chat history n")).to_be_in_viewport()
    assert_no_exception(page)
    _save(page, tmp_path, "default")
    for label in SECTIONS[1:]:
        _section(page, label)
        assert_no_exception(page)
        for folder in (tmp_path, REVIEW):
            page.screenshot(path=str(folder / f"default-{label.split()[0].lower()}.png"), full_page=True)
    _section(page, SECTIONS[0])

    # edit: the first row's structure becomes the student's text, labelled as typed
    _type_into_structure(page, 0, "Encoder and decoder as two stacks")
    expect(_card_text(page, "Encoder and decoder as two stacks").first).to_be_visible(timeout=TIMEOUT_MS)
    _idle(page)
    assert "wb=" in page.url

    # add a row: the editor's empty last line, then its structure cell
    grid = page.locator('[data-testid="stDataFrame"]').first
    box = grid.bounding_box()
    page.mouse.click(box["x"] + STRUCTURE_X, box["y"] + ROW_HEIGHT * 6 + ROW_HEIGHT / 2)
    expect(_card_text(page, "(a row without a structure yet)").first).to_be_visible(timeout=TIMEOUT_MS)
    _type_into_structure(page, 5, "Mixture-of-experts routing")
    expect(_card_text(page, "Mixture-of-experts routing").first).to_be_visible(timeout=TIMEOUT_MS)
    _idle(page)
    assert_no_exception(page)
    _save(page, tmp_path, "edited")

    # download the JSON through the page
    _section(page, "Export, import and share")
    with page.expect_download() as download:
        page.get_by_role("button", name="JSON (can be imported again)").click()
    exported = tmp_path / "bias-audit.json"
    download.value.save_as(exported)
    doc = json.loads(exported.read_text())
    assert doc["format"] == "bias-audit-workbook" and len(doc["rows"]) == 6
    assert doc["rows"][0]["cells"]["structure"] == {"text": "Encoder and decoder as two stacks", "source": "typed"}
    assert doc["rows"][5]["cells"]["structure"]["text"] == "Mixture-of-experts routing"
    assert doc["rows"][0]["cells"]["gain"]["source"] == "measured" and doc["rows"][0]["cells"]["gain"]["config"]

    # back to the pre-filled workbook, then upload the download: the student's rows come back
    _section(page, "Your workbook")
    page.get_by_role("button", name="Restore the pre-filled workbook").click()
    expect(_card_text(page, "Mixture-of-experts routing")).to_have_count(0, timeout=TIMEOUT_MS)
    _idle(page)
    _section(page, "Export, import and share")
    uploader = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    uploader.set_input_files(str(exported))
    wait_for_app(page, "Imported 6 rows")
    _section(page, "Your workbook")
    expect(_card_text(page, "Mixture-of-experts routing").first).to_be_visible()
    expect(_card_text(page, "Encoder and decoder as two stacks").first).to_be_visible()
    assert_no_exception(page)

    # a broken file is refused with a message that names the problem, and the workbook stays
    broken = tmp_path / "broken.json"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    _section(page, "Export, import and share")
    uploader.set_input_files(str(broken))
    wait_for_app(page, "binary file")
    _section(page, "Your workbook")
    expect(_card_text(page, "Mixture-of-experts routing").first).to_be_visible()
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0
    _save(page, tmp_path, "imported")

    # the link holds the workbook: a fresh tab opened on it shows the student's rows
    shared = page.context.new_page()
    shared.goto(page.url)
    wait_for_app(shared, "Workbook restored from the link.")
    expect(_card_text(shared, "Mixture-of-experts routing").first).to_be_visible()
    assert_no_exception(shared)
    shared.close()


def test_own_numbers_beyond_the_measured_range_are_labelled_extrapolation(page, app_url, tmp_path):
    _open(
        page, app_url, "?xsrc=my+own+numbers&more=CNN&less=ViT&deploy=23.5", "Your budget is outside the measured range"
    )
    expect(page.get_by_text("This answer rests on an extrapolation").first).to_be_visible()
    assert_no_exception(page)
    _save(page, tmp_path, "own-numbers")
