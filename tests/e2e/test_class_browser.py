"""Class mode in real Chromium: a lecturer on a laptop and three students on phones run one poll end to end:
start, join by link, ask, answer, watch the answers arrive live, reveal."""

from playwright.sync_api import expect

from explorer import learning_path as lp
from tests.e2e.conftest import TIMEOUT_MS, assert_no_exception, shoot

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
PHONE = {"width": 390, "height": 844}
WIDTH = "() => document.documentElement.scrollWidth"


def test_a_lecturer_and_three_students_run_one_poll(browser, app_url, tmp_path):
    host_context = browser.new_context(viewport={"width": 1440, "height": 900})
    host_context.set_default_timeout(TIMEOUT_MS)
    host = host_context.new_page()
    host.goto(f"{app_url}/class")
    host.get_by_role("button", name="Start a class").click()
    expect(host.get_by_text("Join with code").first).to_be_visible()
    join_link = host.locator('[data-testid="stCode"] code').first.inner_text().strip()
    assert "/class?class=" in join_link and "host=" not in join_link
    host.get_by_role("button", name="Ask the class").click()  # the path's first question, the default
    expect(host.get_by_text("0 answers from 0 joined.").first).to_be_visible()

    students, themes = [], ["light", "dark", "light"]
    for i, theme in enumerate(themes):
        context = browser.new_context(viewport=PHONE, color_scheme=theme)
        context.set_default_timeout(TIMEOUT_MS)
        student = context.new_page()
        student.goto(join_link.replace("http://localhost:8501", app_url))
        expect(student.get_by_text(lp.prompt(1)[:30]).first).to_be_visible()
        student.wait_for_selector(IDLE)
        student.locator('[data-testid="stRadioOption"]').nth(i % lp.CHOICES).click()
        expect(student.locator('[data-testid="stRadio"]').get_by_role("radio").nth(i % lp.CHOICES)).to_be_checked()
        student.get_by_role("button", name="Send my answer").click()
        expect(student.get_by_text("Answer received").first).to_be_visible()
        assert_no_exception(student)
        assert student.evaluate(WIDTH) <= PHONE["width"]  # no sideways scroll on a phone
        students.append((context, student))

    expect(host.get_by_text("3 answers from 3 joined.").first).to_be_visible()  # live: the view polls by itself
    shoot(host, tmp_path / "class-lecturer.png")
    host.get_by_role("button", name="Reveal the answer").click()
    host.wait_for_selector(IDLE)
    assert_no_exception(host)
    for context, student in students:  # each phone polls and shows the class's answers with the supported one
        expect(student.locator(".js-plotly-plot")).to_have_count(1, timeout=TIMEOUT_MS)
        expect(student.locator("iframe")).to_have_count(1)  # the page's own figure that answers it
        assert student.evaluate(WIDTH) <= PHONE["width"]
        shoot(student, tmp_path / "class-student.png")
        context.close()
    host_context.close()
