"""AppTest of the learning path: ten questions, a prediction each kept in the URL, the answering figure after it."""

from urllib.parse import parse_qsl

import pytest

from explorer import learning_path as lp
from explorer.figures.home import PATH_COLORS, PATH_SYMBOLS
from explorer.lecture_map import page
from tests.pages.conftest import assert_clean, evidence_kinds, figures, run_page, untranslated

PAGE = "path.py"


def _iframes(at) -> list[str]:
    return [e.proto.src for e in at.get("iframe")]


def test_it_opens_on_the_progress_row_and_shows_no_answer_before_a_prediction():
    at = run_page(PAGE)
    assert_clean(at)
    assert evidence_kinds(at) == ["schematic"]
    assert figures(at)[0]["layout"]["meta"]["title"].startswith("Question 1 of 10 · 0 answered")
    assert at.radio(key="pick-1").value is None and not _iframes(at)
    assert "Pick one" in " ".join(c.value for c in at.caption)


def test_a_prediction_goes_into_the_url_and_brings_the_figure_that_answers_it():
    at = run_page(PAGE)
    at.radio(key="pick-1").set_value(lp.step(1).answer).run()
    assert_clean(at)
    assert at.query_params["p1"] == str(lp.step(1).answer)
    assert _iframes(at) == ["http://localhost:8501/method?figure=method-error&embed=true&controls=hidden&lang=en"]
    assert any("agrees with you" in m.value for m in at.markdown)


@pytest.mark.parametrize("number", range(1, len(lp.STEPS) + 1))
def test_every_question_has_three_choices_and_a_wrong_one_names_the_supported_answer(number):
    step = lp.step(number)
    wrong = (step.answer + 1) % lp.CHOICES
    at = run_page(PAGE, q=str(number), **{f"p{number}": str(wrong)})
    assert_clean(at)
    assert len(at.radio(key=f"pick-{number}").options) == lp.CHOICES
    assert any("The figure says otherwise" in m.value for m in at.markdown)
    assert (
        _iframes(at) == [f"http://localhost:8501/{step.page}?{lp.figure_query(step)}&lang=en"]
        and page(step.page).exists
    )


def test_a_shared_link_restores_the_progress_and_unusable_predictions_count_as_none():
    right = {f"p{s.number}": str(s.answer) for s in lp.STEPS[:3]}
    at = run_page(PAGE, q="4", p4="7", p5="x", **right)
    assert_clean(at)
    marker = figures(at)[0]["data"][0]["marker"]
    assert marker["color"] == [PATH_COLORS["right"]] * 3 + [PATH_COLORS["open"]] * 7
    assert marker["symbol"] == [PATH_SYMBOLS["right"]] * 3 + [PATH_SYMBOLS["open"]] * 7
    assert at.radio(key="pick-4").value is None


def test_the_last_question_counts_the_predictions_the_figures_matched():
    at = run_page(PAGE, q="10", p10=str(lp.step(10).answer), p1=str(lp.step(1).answer))
    assert_clean(at)
    assert any("2 of 10 predictions matched" in m.value for m in at.markdown)


def test_question_two_quotes_the_rate_fitted_from_the_shipped_data():
    at = run_page(PAGE, q="2", p2="1")
    assert_clean(at)
    assert any("10× every 4.95 years" in m.value for m in at.markdown)


def test_the_chinese_path_speaks_chinese_before_and_after_a_prediction():
    at = run_page(PAGE, lang="zh")
    assert_clean(at)
    assert untranslated(at) == [] and figures(at)[0]["layout"]["meta"]["title"].startswith("第 1 题，共 10 题")
    at = run_page(PAGE, lang="zh", q="2", p2="1", p1=str(lp.step(1).answer))  # a wrong prediction: the answer named
    assert_clean(at)
    assert untranslated(at) == []
    shown = " ".join(m.value for m in at.markdown)
    assert "它支持的答案是“约 5 年，看 1950 年以来的记录。”" in shown and "每 4.95 年增长 10×" in shown
    assert _iframes(at) == [f"http://localhost:8501/compute?{lp.figure_query(lp.step(2))}&lang=zh"]  # its figure too


def test_the_last_chinese_question_counts_the_matches():
    at = run_page(PAGE, lang="zh", q="10", p10=str(lp.step(10).answer))
    assert_clean(at)
    assert untranslated(at) == [] and any("10 个预测中有 1 个与图一致" in m.value for m in at.markdown)


@pytest.mark.parametrize("number", range(1, len(lp.STEPS) + 1))
def test_every_chinese_question_its_choices_and_its_explanation_are_in_chinese(number):
    wrong = (lp.step(number).answer + 1) % lp.CHOICES
    at = run_page(PAGE, lang="zh", q=str(number), **{f"p{number}": str(wrong)})
    assert_clean(at)
    assert untranslated(at) == [] and len(at.radio(key=f"pick-{number}").options) == lp.CHOICES


@pytest.mark.parametrize("number", range(1, len(lp.STEPS) + 1))
def test_every_revealed_figure_is_drawn_by_its_page_with_the_settings_the_question_names(number):
    """The link the path embeds, run as its page: the figure is there (question 5's is the result after step 4,
    question 7's a measured test of the length ratio, question 8's the curves at depth 8)."""
    step = lp.step(number)
    at = run_page(page(step.page).file.removeprefix("pages/"), **dict(parse_qsl(lp.figure_query(step))))
    assert_clean(at)
    shown = [f for f in figures(at) if f["layout"]["meta"].get("figure_id") == step.figure]
    assert shown and step.figure in at.session_state["_lecture_figures"], (number, step.figure)
    if number in (5, 7, 8):  # the answers to a what-is-left or cause-and-effect question are measured
        assert shown[0]["layout"]["meta"]["evidence"] == "measured"
