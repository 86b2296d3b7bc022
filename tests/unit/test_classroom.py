"""Class mode's store on SQLite and PostgreSQL: classes, one answer each, bounds, isolation, the CSV."""

import csv
import io
import threading

import pytest

from explorer import classroom as cls
from explorer import learning_path as lp
from tests.store import postgres_url, store  # noqa: F401 (fixtures)


def _room_with(students: int):
    room, token = cls.start()
    return room, token, [cls.join(room) for _ in range(students)]


def test_a_class_is_found_by_its_code_and_run_only_with_its_secret(store):
    room, token = cls.start()
    assert len(room.code) == 6 and set(room.code) <= set(cls.CODE_ALPHABET)
    assert cls.find(f" {room.code.lower()[:3]}-{room.code[3:]} ") == room  # typed loosely, still found
    assert cls.is_host(room, token) and not cls.is_host(room, "") and not cls.is_host(room, token + "x")
    assert cls.find("ZZZZZ") is None and cls.find("") is None


def test_a_class_closes_after_its_hours(store, monkeypatch):
    room, _ = cls.start()
    later = room.created_at + cls.CLASS_HOURS * 3600 + 1
    monkeypatch.setattr(cls, "_now", lambda: later)
    assert cls.find(room.code) is None


def test_each_device_answers_once_and_not_after_the_reveal(store):
    room, _, (a, b, c) = _room_with(3)
    question = cls.ask_step(room, 9)
    assert cls.current(room) == question and question.correct == lp.step(9).answer
    cls.answer(room, question, a, 1)
    cls.answer(room, question, b, 1)
    with pytest.raises(cls.ClassError, match="answered"):
        cls.answer(room, question, a, 0)
    assert cls.tally(question) == cls.Tally(2, (0, 2, 0), ())
    revealed = cls.reveal(room, question)
    assert revealed.revealed and revealed.correct == lp.step(9).answer
    with pytest.raises(cls.ClassError, match="closed"):
        cls.answer(room, revealed, c, 1)
    assert cls.answered(question, a) and not cls.answered(question, c)


@pytest.mark.parametrize("value, reason", [(float("nan"), "out-of-range"), (1e12, "out-of-range"),
                                           ("many", "not-a-number")])
def test_a_number_answer_must_be_a_finite_number_in_range(store, value, reason):
    room, _, (a,) = _room_with(1)
    question = cls.ask_own(room, "How many times faster is the cached turn at n = 1024?", unit="x")
    assert question.kind == "number"
    with pytest.raises(cls.ClassError, match=reason):
        cls.answer(room, question, a, value)
    cls.answer(room, question, a, "12.5")
    revealed = cls.reveal(room, question, value=11.0)
    assert (revealed.value, cls.tally(revealed).numbers) == (11.0, (12.5,))


def test_refusals_name_their_limit(store, monkeypatch):
    room, _ = cls.start()
    for prompt, choices, reason in [("", [], "empty-prompt"), ("x" * 201, [], "long-prompt"),
                                    ("Q", ["only one"], "choice-count"), ("Q", list("abcdefg"), "choice-count"),
                                    ("Q", ["a", "b" * 61], "long-choice")]:
        with pytest.raises(cls.ClassError, match=reason):
            cls.ask_own(room, prompt, choices)
    with pytest.raises(cls.ClassError, match="no-such-step"):
        cls.ask_step(room, 11)
    monkeypatch.setattr(cls, "MAX_STUDENTS", 2)
    cls.join(room), cls.join(room)
    with pytest.raises(cls.ClassError) as refused:
        cls.join(room)
    assert refused.value.reason == "class-full" and refused.value.params == {"limit": 2}
    question = cls.ask_own(room, "Which?", ["a", "b"])
    with pytest.raises(cls.ClassError, match="not-joined"):
        cls.answer(room, question, "not-a-student", 0)


def test_classes_are_isolated(store):
    room_a, _, (a,) = _room_with(1)
    room_b, _, (b,) = _room_with(1)
    question_a = cls.ask_own(room_a, "Which?", ["x", "y"])
    with pytest.raises(cls.ClassError, match="no-question"):
        cls.question(room_b, question_a.id)
    with pytest.raises(cls.ClassError, match="not-joined"):
        cls.answer(room_b, question_a, a, 0)  # a's token means nothing in room b
    assert cls.current(room_b) is None and cls.joined(room_b) == 1


def test_typed_text_cannot_become_markup_or_a_spreadsheet_formula(store):
    room, _, (a,) = _room_with(1)
    question = cls.ask_own(room, "=HYPERLINK(\"x\") <script>alert(1)</script>", ["<b>A</b>", "-1+1"])
    assert "<" not in question.prompt + "".join(question.choices) and ">" not in question.prompt
    cls.answer(room, question, a, 1)
    rows = list(csv.DictReader(io.StringIO(cls.answers_csv(room))))
    assert rows == [{"question": "1", "kind": "choice", "step": "", "prompt": "'" + question.prompt, "student": "1",
                     "choice": "1", "choice_text": "'-1+1", "number": "", "seconds_after_asked": rows[0][
                         "seconds_after_asked"]}]
    assert a not in cls.answers_csv(room)  # students appear as numbers, not device tokens


def test_fifty_devices_answering_at_once_are_all_counted(store):
    room, _, students = _room_with(50)
    question = cls.ask_own(room, "Which?", ["a", "b", "c"])
    errors = []

    def send(i, token):
        try:
            cls.answer(room, question, token, i % 3)
        except Exception as err:  # collected: the assertion below names it
            errors.append(repr(err))

    threads = [threading.Thread(target=send, args=(i, s)) for i, s in enumerate(students)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and cls.tally(question).counts == (17, 17, 16)
