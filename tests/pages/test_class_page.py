"""AppTest of class mode: a lecturer's page and students' pages, each its own session, sharing one store."""

import pytest

from explorer import classroom
from explorer import learning_path as lp
from tests.pages.conftest import assert_clean, evidence_kinds, figure_heads, figures, run_page, untranslated
from tests.pages.test_hostile_input import HOSTILE, MARKUP

PAGE = "classroom.py"


def _lecturer():
    at = run_page(PAGE)
    at.button[0].click().run()  # "Start a class"
    assert_clean(at)
    return at, classroom.find(at.query_params["class"])


def _student(room, **extra):
    at = run_page(PAGE, **{"class": room.code.lower(), **extra})  # a code typed in lower case still joins
    assert_clean(at)
    return at


def _press(at, label):
    return next(b for b in at.button if b.label == label).click().run()


def _ask_own(host, prompt, choices="", unit=""):
    """The lecturer's own question, typed into the ask form."""
    host.toggle[0].set_value(True).run()
    host.text_input[0].set_value(prompt)
    host.text_area[0].set_value(choices)
    host.text_input[1].set_value(unit)
    return _press(host, "Ask the class")


def test_the_first_screen_offers_to_start_or_join_and_a_bad_code_is_explained():
    at = run_page(PAGE)
    assert_clean(at)
    assert [b.label for b in at.button] == ["Start a class", "Join"]
    at = run_page(PAGE, **{"class": "NOPE99"})
    assert [e.value for e in at.error] == ["There is no running class with the code “NOPE99”. Check the code on the "
                                           "lecturer's screen (classes close 12 hours after they start)."]
    assert not at.exception


def test_a_poll_from_question_to_reveal():
    host, room = _lecturer()
    assert room is not None and "&host=" not in host.code[0].value and room.code in host.code[0].value
    host.selectbox[0].set_value(9)
    _press(host, "Ask the class")
    assert_clean(host)
    assert evidence_kinds(host) == ["measured"] and figure_heads(host)[0].startswith(lp.prompt(9)[:40])

    students = [_student(room) for _ in range(3)]
    for i, at in enumerate(students):
        assert at.radio[0].options == [f"{chr(65 + j)}. {c}" for j, c in enumerate(lp.choices(9))]
        at.radio[0].set_value(i % 2)
        _press(at, "Send my answer")
        assert_clean(at)
        assert [s.value for s in at.success] == [
            "Answer received. Wait for the reveal: the lecturer's screen shows how the class answered."]

    host.run()
    bars = figures(host)[0]["data"][0]
    assert bars["x"] == [2, 1, 0] and "3 answers from 3 joined." in [c.value for c in host.caption]
    _press(host, "Reveal the answer")
    assert_clean(host)
    assert figures(host)[0]["data"][0]["marker"]["color"][lp.step(9).answer] == "#009E73"  # supported: green

    reloaded = _student(room, me=students[0].query_params["me"])  # the same device after a reload
    assert not reloaded.radio and [e.proto.src.split("?")[0] for e in reloaded.get("iframe")] == [
        "http://localhost:8501/cache"]  # the page whose figure answers question 9
    csv_rows = classroom.answers_csv(room).splitlines()
    assert len(csv_rows) == 4 and csv_rows[1].startswith("1,step,9,")


def test_a_number_question_reveals_the_value_against_the_guesses():
    host, room = _lecturer()
    _ask_own(host, "How many times more compute does re-encoding take at n = 1024?", unit="×")
    student = _student(room)
    student.number_input[0].set_value(20)
    _press(student, "Send my answer")
    host.run()
    host.number_input[0].set_value(17.5)
    _press(host, "Reveal the answer")
    assert_clean(host)
    figure = figures(host)[0]
    assert figure["data"][0]["x"] == [20] and figure["layout"]["shapes"][0]["x0"] == 17.5


def test_a_refused_question_says_why_in_the_page():
    host, _ = _lecturer()
    _ask_own(host, "Which?", choices="only one choice")
    assert not host.exception
    assert [e.value for e in host.error] == ["Give two to 6 choices, or none for a number question."]


@pytest.mark.parametrize("who", ["landing", "lecturer", "student"])
def test_class_mode_speaks_chinese(who):
    room, token = classroom.start()
    classroom.ask_step(room, 2)
    query = {"landing": {}, "lecturer": {"class": room.code, "host": token}, "student": {"class": room.code}}[who]
    at = run_page(PAGE, lang="zh", **query)
    assert_clean(at)
    assert untranslated(at) == []


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_class_links_get_a_message_never_a_traceback_or_markup(name):
    room, token = classroom.start()
    classroom.ask_own(room, "Which?", ["a", "b"])
    value = HOSTILE[name]
    for query in ({"class": value}, {"class": room.code, "host": value}, {"class": room.code, "me": value}):
        at = run_page(PAGE, **query)
        assert not at.exception, (query, [e.value for e in at.exception])
        shown = " ".join(e.value for kind in ("markdown", "error", "caption", "info") for e in at.get(kind))
        assert not any(bad in shown for bad in MARKUP), query
    assert classroom.joined(room) == 2  # a wrong `host` and an unusable `me`: each a new student with a fresh token
