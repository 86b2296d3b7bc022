"""The learning path's answer key: ten steps in the notes' order, each pointing at a figure that exists."""

from explorer import content
from explorer import learning_path as lp
from explorer.lecture_map import ROOT, page


def test_ten_steps_in_order_each_answered_by_a_figure_of_an_existing_page():
    assert [s.number for s in lp.STEPS] == list(range(1, 11))
    for s in lp.STEPS:
        assert page(s.page).exists and 0 <= s.answer < lp.CHOICES
        page_file = ROOT / page(s.page).file  # the figure's key (or its constant): in the page or its sections
        code = [f.read_text() for f in (page_file, ROOT / "ui" / "sections" / page_file.name) if f.is_file()]
        assert any(f'"{s.figure}"' in c for c in code), (s.number, s.figure)


def test_outcomes_and_links():
    first = lp.step(1)
    assert [lp.outcome(c, first) for c in (None, first.answer, first.answer + 1)] == ["open", "right", "wrong"]
    assert lp.step(0) is first and lp.step(99) is lp.STEPS[-1]
    assert lp.figure_query(lp.step(10)) == "figure=compute-backtest&embed=true&controls=hidden&train_end=2000"


def test_every_question_reads_the_same_in_both_languages():
    """Both editions ask each question with the same number of choices, so a prediction kept in the URL (its
    index) means the same answer in either language."""
    for lang in ("en", "zh"):
        written = content.sections("path", lang)
        for s in lp.STEPS:
            choices = [line for line in written[f"q{s.number}-choices"].splitlines() if line.startswith("- ")]
            assert len(choices) == lp.CHOICES and written[f"q{s.number}"] and written[f"q{s.number}-why"], (lang, s)
    assert set(content.sections("path", "zh")) == set(content.sections("path", "en"))
