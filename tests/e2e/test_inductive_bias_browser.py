"""The inductive-bias page in a real headless Chromium: slide 10's two frontiers, a budget-slider move, every
window one click away, a section from the URL, screenshots.

Set SHOTS_DIR to also keep the screenshots for review (e.g. SHOTS_DIR=/tmp/shots/crossover).
"""

from playwright.sync_api import expect

from tests.e2e.conftest import assert_no_exception, shoot, wait_for_app


def test_default_view_a_budget_move_and_all_windows(page, app_url, tmp_path):
    page.goto(f"{app_url}/inductive-bias?section=Best%20structure%20and%20crossings")  # the figures' section
    wait_for_app(page, "At 2.5e9 training FLOPs")
    expect(page.locator(".js-plotly-plot")).to_have_count(3)  # retried: a rerun may still be replacing charts
    assert_no_exception(page)
    shoot(page, tmp_path / "inductive-bias-default.png")

    budget = page.locator('[data-testid="stSlider"]').filter(has_text="Today's budget").get_by_role("slider")
    budget.focus()
    for _ in range(5):  # 9.4 -> 9.9: 7.9e9 FLOPs
        page.keyboard.press("ArrowRight")
    wait_for_app(page, "At 7.9e9 training FLOPs")
    assert_no_exception(page)
    assert "budget=9.9" in page.url
    shoot(page, tmp_path / "inductive-bias-budget-8e9.png")

    page.get_by_text("All five windows").click()  # the other structure levels, one click away
    wait_for_app(page, "w=16")
    assert "show=All" in page.url
    assert_no_exception(page)
    shoot(page, tmp_path / "inductive-bias-all-windows.png")

    budget.focus()
    page.keyboard.press("End")  # 11.5: beyond the measured range
    wait_for_app(page, "outside the measured range")
    assert_no_exception(page)

    page.goto(f"{app_url}/inductive-bias?section=How%20it%20was%20measured")  # a section opens from a link
    wait_for_app(page, "Designed, not discovered")
    expect(page.locator(".js-plotly-plot")).to_have_count(1)  # the curves alone: the closed sections draw nothing
    assert_no_exception(page)
    shoot(page, tmp_path / "inductive-bias-how-measured.png")
