"""The learning path on a 390x844 phone, in a real Chromium: a student who opens it sees the question and all
its choices without scrolling (they once sat below the progress chart, under the fold)."""

import pytest

from explorer import content
from explorer import learning_path as lp
from tests.e2e.conftest import TIMEOUT_MS, assert_no_exception, shoot

PHONE = {"width": 390, "height": 844}
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


@pytest.mark.parametrize("lang,number", [("en", 1), ("zh", 7)])
def test_the_question_and_its_choices_sit_above_the_fold_on_a_phone(browser, app_url, lang, number, tmp_path):
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        pg = context.new_page()
        pg.goto(f"{app_url}/path?q={number}&lang={lang}")
        pg.wait_for_selector(".js-plotly-plot .main-svg", state="visible")
        pg.wait_for_selector(IDLE)
        pg.wait_for_timeout(500)  # the last layout pass after the script ends
        assert_no_exception(pg)
        shoot(pg, tmp_path / f"path-{lang}-{number}-390.png")
        question = content.sections("path", lang)[f"q{number}"].split("\n")[0]
        boxes = [pg.get_by_text(question, exact=False).first.bounding_box()]
        options = pg.locator('[data-testid="stRadio"] [role="radiogroup"] label')
        assert options.count() == lp.CHOICES
        boxes += [options.nth(i).bounding_box() for i in range(lp.CHOICES)]
        for box in boxes:
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (
                f"{lang} q{number}: {box} is not on the first screen of a {PHONE['height']} px phone"
            )
    finally:
        context.close()
