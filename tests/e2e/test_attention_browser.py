"""The attention page in a real headless Chromium: it loads, switches architecture, and redraws a slider move."""

from playwright.sync_api import expect

from explorer.experiments.attention import ARCH_NAMES
from tests.e2e.conftest import assert_no_exception, wait_for_app


def test_attention_page_switches_architecture_and_moves_a_slider(page, app_url, tmp_path):
    page.goto(f"{app_url}/attention?text=hello%20world")
    wait_for_app(page, "Encoder-decoder: who may read whom")  # the masks: the first screen's figure
    page.wait_for_selector(".js-plotly-plot")
    assert_no_exception(page)
    expect(page.get_by_text("Encoder-decoder: attention weights, layer 2, head 1")).to_have_count(1)  # the weights
    # figure comes after the masks: waited for, not counted mid-draw
    expect(page.get_by_text("308 of the 484 query-key pairs")).to_be_visible()  # the takeaway under the masks
    page.screenshot(path=str(tmp_path / "attention-encoder-decoder.png"), full_page=True)

    weights = page.locator(".js-plotly-plot").last  # hover a cross-attention cell: query, key and weight
    weights.scroll_into_view_if_needed()
    box = weights.locator(".nsewdrag").nth(2).bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.97, box["y"] + box["height"] * 0.03)
    hover = page.locator(".hoverlayer .hovertext").first
    hover.wait_for(state="attached")
    assert all(word in hover.text_content() for word in ("query", "key", "weight"))

    page.locator('[data-testid="stRadio"] label').filter(has_text=ARCH_NAMES["decoder"]).click()
    wait_for_app(page, "Decoder-only: attention weights, layer 2, head 1")
    assert_no_exception(page)
    assert "arch=Decoder-only" in page.url

    head = page.get_by_role("slider").nth(1)  # layer, then head
    head.focus()
    head.press("End")
    wait_for_app(page, "Decoder-only: attention weights, layer 2, head 4")
    assert_no_exception(page)
    page.screenshot(path=str(tmp_path / "attention-decoder.png"), full_page=True)

    # the other sections open in place: the whole sequence, then the tokens and their vectors
    page.get_by_role("tab", name="One sequence, one matrix").click()
    wait_for_app(page, "Decoder-only over [input ; target]")
    assert "section=One" in page.url
    page.get_by_role("tab", name="Text, tokens and vectors").click()
    wait_for_app(page, "One character is one token")
    expect(page.locator(".js-plotly-plot")).to_have_count(2)  # the masks and the embeddings
    assert_no_exception(page)
    page.screenshot(path=str(tmp_path / "attention-tokens.png"), full_page=True)
