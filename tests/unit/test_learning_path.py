"""The learning path's answer key: ten steps in the notes' order, each pointing at a page that exists, with
answers a student cannot guess from the shape of the choices."""

from collections import Counter

import pytest

from explorer import content
from explorer import learning_path as lp
from explorer.lecture_map import page

MOST_LONGEST = 2  # of ten questions, at most this many may have the supported answer as their longest choice


def _choices(lang: str, number: int) -> list[str]:
    written = content.sections("path", lang)[f"q{number}-choices"]
    return [line[2:].strip() for line in written.splitlines() if line.startswith("- ")]


def test_ten_steps_in_order_each_answered_on_an_existing_page():
    """That each page really draws its step's figure is checked by running it (tests/pages/test_path_page.py)."""
    assert [s.number for s in lp.STEPS] == list(range(1, 11))
    for s in lp.STEPS:
        assert page(s.page).exists and 0 <= s.answer < lp.CHOICES and s.figure, (s.number, s.figure)


def test_outcomes_and_links():
    first = lp.step(1)
    assert [lp.outcome(c, first) for c in (None, first.answer, (first.answer + 1) % lp.CHOICES)] == [
        "open",
        "right",
        "wrong",
    ]
    assert lp.step(0) is first and lp.step(99) is lp.STEPS[-1]
    assert lp.figure_query(lp.step(10)) == "figure=compute-backtest&embed=true&controls=hidden&train_end=2000"


def test_the_supported_answer_moves_between_positions():
    """A student who always picks the same letter gets at most four of ten right."""
    positions = Counter(s.answer for s in lp.STEPS)
    assert set(positions) == set(range(lp.CHOICES)) and max(positions.values()) <= 4, positions


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_supported_answer_is_rarely_the_longest_choice(lang):
    """'Pick the longest, most careful option' once passed the whole path; the distractors now carry as much
    text, each built on a misconception the notes warn about."""
    longest = [
        s.number
        for s in lp.STEPS
        if len(_choices(lang, s.number)[s.answer]) >= max(len(c) for c in _choices(lang, s.number))
    ]
    assert len(longest) <= MOST_LONGEST, (lang, longest)


def test_every_question_reads_the_same_in_both_languages():
    """Both editions ask each question with the same number of choices, so a prediction kept in the URL (its
    index) means the same answer in either language."""
    for lang in ("en", "zh"):
        written = content.sections("path", lang)
        for s in lp.STEPS:
            assert len(_choices(lang, s.number)) == lp.CHOICES, (lang, s)
            assert written[f"q{s.number}"] and written[f"q{s.number}-why"], (lang, s)
    assert set(content.sections("path", "zh")) == set(content.sections("path", "en"))
