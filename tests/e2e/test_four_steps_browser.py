"""The four-steps page in a real headless Chromium: step through with the keyboard, open the sections from the URL,
keep screenshots."""

from pathlib import Path

from playwright.sync_api import expect

from tests.e2e.conftest import assert_no_exception, wait_for_app

SHOTS = Path("/tmp/shots/four_steps")  # kept after the run for review


def _save(page, tmp_path: Path, name: str) -> None:
    """Streamlit scrolls inside its main block: make the window as tall as the content, then shoot."""
    before = page.viewport_size
    tall = page.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": before["width"], "height": min(int(tall) + 40, 14_000)})
    page.wait_for_timeout(600)  # let the charts relayout
    SHOTS.mkdir(parents=True, exist_ok=True)
    for where in (tmp_path / f"{name}.png", SHOTS / f"{name}.png"):
        page.screenshot(path=str(where))
    page.set_viewport_size(before)


def test_stepping_through_the_four_steps_redraws_and_keeps_the_url(page, app_url, tmp_path):
    page.goto(app_url)  # the router first, so /four-steps runs inside app.py's navigation
    wait_for_app(page, "Dominant force")
    page.goto(f"{app_url}/four-steps")
    wait_for_app(page, "Step 0: encoder-decoder")
    expect(page.locator(".js-plotly-plot")).to_have_count(2)  # the weights and the mask; the open section is words
    page.get_by_role("tab", name="The comparison at this step").click()
    wait_for_app(page, "updating a comparison table")
    page.wait_for_selector(".js-plotly-plot")
    expect(page.locator(".js-plotly-plot")).to_have_count(5)  # weights, mask, table, wiring, parameters
    assert_no_exception(page)
    _save(page, tmp_path, "step-0")

    thumb = page.locator('[data-testid="stSlider"]').filter(has_text="Step (0 = encoder-decoder").get_by_role("slider")
    thumb.focus()
    for step, title in enumerate(
        [
            "Step 1: share cross/self-attention",
            "Step 2: share encoder/decoder",
            "Step 3: layer l reads layer l",
            "Step 4: causal encoder",
        ],
        start=1,
    ):
        page.keyboard.press("ArrowRight")
        wait_for_app(page, title)
        assert_no_exception(page)
        assert f"step={step}" in page.url
    _save(page, tmp_path, "step-4")

    page.keyboard.press("End")
    wait_for_app(page, "Final change: one joint softmax")
    assert_no_exception(page)
    _save(page, tmp_path, "final-change")

    page.keyboard.press("Home")
    wait_for_app(page, "Step 0: encoder-decoder")
    assert_no_exception(page)

    page.goto(f"{app_url}/four-steps?section=Ablation%20and%20statistics")  # a section opens from a link
    wait_for_app(page, "What it found:")  # the plain finding first; the tests wait under "For the reviewer"
    page.get_by_text("For the reviewer").first.click()
    expect(page.get_by_text("Verdict.").first).to_be_visible()
    expect(page.locator(".js-plotly-plot")).to_have_count(5)  # weights, mask, agreement and KL, dots and curves
    assert_no_exception(page)
    _save(page, tmp_path, "ablation")

    page.goto(f"{app_url}/four-steps?step=3&depth=4&width=32&heads=2&section=Numeric%20check")  # a shared link
    wait_for_app(page, "Step 3: layer l reads layer l")  # restores the view
    wait_for_app(page, "Train decoder-only for these sizes")
    assert_no_exception(page)
    _save(page, tmp_path, "link-depth-4")
