"""Class mode's store on SQLite and PostgreSQL: classes, one answer each, the right answer and the verdict,
isolation, the CSV, and the bounds no burst of concurrent requests can count past."""

import csv
import io
import threading

import pytest
import sqlalchemy as sa

from explorer import classroom as cls
from explorer import learning_path as lp
from explorer.store import db
from explorer.store.schema import CLASSES, STUDENTS

BURST = 100


def _room_with(students: int):
    room, token = cls.start()
    return room, token, [cls.join(room, f"10.1.{i // 200}.{i % 200}") for i in range(students)]


def _burst(task, n: int = BURST) -> tuple[int, dict[str, int]]:
    """Run `task(i)` in `n` threads released together: (how many succeeded, refusals counted by reason)."""
    gate = threading.Barrier(n)
    done, refusals, errors = [], {}, []
    guard = threading.Lock()

    def one(i):
        gate.wait()
        try:
            task(i)
        except cls.ClassError as err:
            with guard:
                refusals[err.reason] = refusals.get(err.reason, 0) + 1
            return
        except Exception as err:  # collected: the assertion names it
            errors.append(repr(err))
            return
        with guard:
            done.append(i)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    return len(done), refusals


@pytest.fixture
def no_live_classes_after():
    """The PostgreSQL store is shared by the session's tests: age every class out of the live window after a
    test that fills it, so later tests can start classes."""
    yield
    with db.engine().begin() as conn:
        conn.execute(sa.update(CLASSES).values(created_at=CLASSES.c.created_at - cls.CLASS_HOURS * 3600 - 1))


def test_a_class_is_found_by_its_code_and_run_only_with_its_secret(store):
    room, token = cls.start()
    assert len(room.code) == 6 and set(room.code) <= set(cls.CODE_ALPHABET)
    assert cls.find(f" {room.code.lower()[:3]}-{room.code[3:]} ") == room  # typed loosely, still found
    assert cls.is_host(room, token) and not cls.is_host(room, "") and not cls.is_host(room, token + "x")
    assert not cls.is_host(room, None) and cls.find("ZZZZZ") is None and cls.find("") is None


def test_a_class_closes_after_its_hours(store, monkeypatch):
    room, _ = cls.start()
    later = room.created_at + cls.CLASS_HOURS * 3600 + 1
    monkeypatch.setattr(cls, "_now", lambda: later)
    assert cls.find(room.code) is None


def test_each_device_answers_once_and_sees_its_verdict(store):
    room, _, (a, b, c) = _room_with(3)
    question = cls.ask_step(room, 9)
    assert cls.current(room) == question and question.correct == lp.step(9).answer
    cls.answer(room, question, a, lp.step(9).answer)
    cls.answer(room, question, b, 0)
    with pytest.raises(cls.ClassError, match="answered"):
        cls.answer(room, question, a, 0)
    assert cls.tally(question) == cls.Tally(2, (1, 1, 0), ())
    revealed = cls.reveal(room, question)
    assert revealed.revealed and revealed.correct == lp.step(9).answer
    with pytest.raises(cls.ClassError, match="closed"):
        cls.answer(room, revealed, c, 1)
    assert [cls.verdict(revealed, cls.mine(revealed, s)) for s in (a, b, c)] == ["right", "wrong", "none"]


def test_a_lecturer_question_carries_its_right_answer_or_is_a_poll(store):
    room, _, (a, b) = _room_with(2)
    with pytest.raises(cls.ClassError, match="no-right-answer"):
        cls.ask_own(room, "Which?", ["x", "y"])
    with pytest.raises(cls.ClassError) as bad:
        cls.ask_own(room, "Which?", ["x", "y"], answer="C")
    assert bad.value.params == {"last": "B"}
    choice = cls.ask_own(room, "Which?", ["x", "y"], answer="b", explanation="Because y.")
    assert (choice.correct, choice.explanation, choice.poll) == (1, "Because y.", False)
    poll = cls.ask_own(room, "Which do you prefer?", ["x", "y"], poll=True)
    cls.answer(room, poll, a, 0)
    assert cls.verdict(cls.reveal(room, poll), cls.mine(poll, a)) == "poll"
    number = cls.ask_own(room, "How many times faster?", unit="x", answer="11")
    cls.answer(room, number, a, 12.0)  # within 10 %
    cls.answer(room, number, b, 20)
    number = cls.reveal(room, number)
    assert [cls.verdict(number, cls.mine(number, s)) for s in (a, b)] == ["right", "wrong"]


def test_pressing_ask_twice_asks_once_while_the_question_is_open(store):
    room, _, (a,) = _room_with(1)
    first = cls.ask_own(room, "Which?", ["x", "y"], answer="b")
    assert cls.ask_own(room, "Which?", ["x", "y"], answer="b").id == first.id  # the form sent again
    cls.answer(room, first, a, 1)
    assert cls.ask_own(room, "Which?", ["x", "y"], answer="a").id != first.id  # another right answer: new
    step = cls.ask_step(room, 3)
    assert cls.ask_step(room, 3).id == step.id
    cls.reveal(room, step)
    assert cls.ask_step(room, 3).id != step.id  # asked again after its reveal: a new round


@pytest.mark.parametrize(
    "value, reason",
    [(float("nan"), "out-of-range"), (1e12, "out-of-range"), ("many", "not-a-number"), ("9" * 5000, "out-of-range")],
)
def test_a_number_answer_must_be_a_finite_number_in_range(store, value, reason):
    room, _, (a,) = _room_with(1)
    question = cls.ask_own(room, "How many times faster is the cached turn at n = 1024?", unit="x", poll=True)
    assert question.kind == "number"
    with pytest.raises(cls.ClassError, match=reason):
        cls.answer(room, question, a, value)
    cls.answer(room, question, a, "12.5")
    assert cls.tally(cls.reveal(room, question)).numbers == (12.5,)


def test_refusals_name_their_limit(store):
    room, _ = cls.start()
    for prompt, choices, reason in [
        ("", [], "empty-prompt"),
        ("x" * 201, [], "long-prompt"),
        ("Q", ["only one"], "choice-count"),
        ("Q", list("abcdefg"), "choice-count"),
        ("Q", ["a", "b" * 61], "long-choice"),
    ]:
        with pytest.raises(cls.ClassError, match=reason):
            cls.ask_own(room, prompt, choices, poll=True)
    with pytest.raises(cls.ClassError, match="no-such-step"):
        cls.ask_step(room, 11)
    question = cls.ask_own(room, "Which?", ["a", "b"], poll=True)
    with pytest.raises(cls.ClassError, match="not-joined"):
        cls.answer(room, question, "not-a-student", 0)


def test_a_closed_class_refuses_new_devices_and_keeps_the_joined(store):
    room, _, (a,) = _room_with(1)
    cls.set_joining(room, False)
    with pytest.raises(cls.ClassError, match="joining-closed"):
        cls.join(room, "10.9.9.9")
    assert cls.join(room, "10.9.9.9", a) == a and not cls.joining_open(room)  # a joined device stays in
    cls.set_joining(room, True)
    assert cls.is_student(room, cls.join(room, "10.9.9.9"))


def test_classes_are_isolated(store):
    room_a, _, (a,) = _room_with(1)
    room_b, _, (b,) = _room_with(1)
    question_a = cls.ask_own(room_a, "Which?", ["x", "y"], poll=True)
    with pytest.raises(cls.ClassError, match="no-question"):
        cls.question(room_b, question_a.id)
    with pytest.raises(cls.ClassError, match="not-joined"):
        cls.answer(room_b, question_a, a, 0)  # a's token means nothing in room b
    assert cls.current(room_b) is None and cls.joined(room_b) == 1


def test_the_csv_has_the_question_text_and_the_letters_on_screen(store):
    room, _, (a, b) = _room_with(2)
    step = cls.ask_step(room, 9)
    cls.answer(room, step, a, 1)
    own = cls.ask_own(room, '=HYPERLINK("x") <script>alert(1)</script>', ["<b>A</b>", "-1+1"], answer="B")
    assert "<" not in own.prompt + "".join(own.choices) and ">" not in own.prompt
    cls.answer(room, own, b, 1)
    rows = list(csv.DictReader(io.StringIO(cls.answers_csv(room))))
    assert [
        (
            r["question"],
            r["question_text"],
            r["student"],
            r["answer"],
            r["answer_text"],
            r["right_answer"],
            r["matched"],
        )
        for r in rows
    ] == [
        ("1", lp.prompt(9), "1", "B", lp.choices(9)[1], "B", "yes"),
        ("2", "'" + own.prompt, "2", "B", "'-1+1", "B", "yes"),
    ]
    assert a not in cls.answers_csv(room)  # students appear as numbers, not device tokens


def test_fifty_devices_answering_at_once_are_all_counted(store):
    room, _, students = _room_with(50)
    question = cls.ask_own(room, "Which?", ["a", "b", "c"], poll=True)
    ok, refusals = _burst(lambda i: cls.answer(room, question, students[i], i % 3), n=50)
    assert (ok, refusals) == (50, {}) and cls.tally(question).counts == (17, 17, 16)


def test_a_burst_of_joins_stops_at_the_device_bound(store):
    room, _ = cls.start()
    near = cls.MAX_STUDENTS - 50
    with db.engine().begin() as conn:  # a class already nearly full
        conn.execute(
            sa.insert(STUDENTS), [{"class_id": room.id, "token": f"{i:024x}", "joined_at": 0.0} for i in range(near)]
        )
    ok, refusals = _burst(lambda i: cls.join(room, f"10.2.{i}.1"))
    assert (ok, refusals) == (50, {"class-full": 50}) and cls.joined(room) == cls.MAX_STUDENTS


def test_a_burst_of_joins_from_one_address_stops_at_the_rate(store):
    room, _ = cls.start()
    ok, refusals = _burst(lambda i: cls.join(room, "10.3.0.1"))
    assert (ok, refusals) == (cls.JOINS_PER_MINUTE, {"join-rate": BURST - cls.JOINS_PER_MINUTE})
    assert cls.joined(room) == cls.JOINS_PER_MINUTE


def test_a_burst_of_questions_stops_at_the_question_bound(store):
    room, _ = cls.start()
    for i in range(cls.MAX_QUESTIONS - 40):
        cls.ask_step(room, 1 + i % 2)  # alternating: the same open question asked again is not a new one
    ok, refusals = _burst(lambda i: cls.ask_own(room, f"Question {i}?", ["a", "b"], poll=True))
    assert (ok, refusals) == (40, {"too-many-questions": BURST - 40})


def test_a_burst_of_starts_stops_at_the_live_class_bound(store, no_live_classes_after):
    now = cls._now()
    with db.engine().begin() as conn:
        live = conn.execute(
            sa.select(sa.func.count()).select_from(CLASSES).where(CLASSES.c.created_at > now - cls.CLASS_HOURS * 3600)
        ).scalar_one()
        conn.execute(
            sa.insert(CLASSES),
            [
                {"code": f"T{i:05d}", "host_hash": "x", "created_at": now, "joining": True}
                for i in range(cls.MAX_LIVE_CLASSES - 50 - live)
            ],
        )
    ok, refusals = _burst(lambda i: cls.start(f"10.4.{i}.1"))
    assert (ok, refusals) == (50, {"too-many-classes": 50})


def test_a_burst_of_starts_from_one_address_stops_at_the_rate(store, no_live_classes_after):
    ok, refusals = _burst(lambda i: cls.start("10.5.0.1"))
    assert (ok, refusals) == (cls.STARTS_PER_HOUR, {"start-rate": BURST - cls.STARTS_PER_HOUR})
