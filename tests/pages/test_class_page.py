"""AppTest of class mode's page without cookies: the landing page, the join prompt, the read-only room view,
refusals sent back by the routes, and links that try the old URL secrets (`host=`, `me=`), which grant
nothing. The lecturer's and the students' views need the cookies a browser keeps: tests/e2e/test_class_browser.py
runs them in Chromium."""

import pytest

from explorer import classroom
from explorer import learning_path as lp
from tests.pages.conftest import assert_clean, evidence_kinds, figure_heads, figures, run_page, untranslated
from tests.pages.test_hostile_input import HOSTILE, MARKUP

PAGE = "classroom.py"


def _htmls(at) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def _room(students: int = 0):
    room, token = classroom.start()
    return room, token, [classroom.join(room) for _ in range(students)]


def test_the_first_screen_starts_a_class_by_a_form_post_and_joins_by_code():
    at = run_page(PAGE)
    assert_clean(at)
    start = [h for h in _htmls(at) if "<form" in h]
    assert len(start) == 1 and 'method="post"' in start[0] and "/class/start?lang=en" in start[0]
    assert [b.label for b in at.button] == ["Join"]
    at.text_input[0].set_value("abc-234")
    at.button[0].click().run()
    assert at.query_params["class"] == "ABC234"


def test_an_unknown_code_is_explained():
    at = run_page(PAGE, **{"class": "NOPE99"})
    assert [e.value for e in at.error] == [
        "There is no running class with the code “NOPE99”. Check the code on the "
        "lecturer's screen (classes close 12 hours after they start)."
    ]
    assert not at.exception


def test_a_browser_that_has_not_joined_gets_a_join_button_and_no_seat():
    room, _, _ = _room()
    classroom.ask_own(room, "Which?", ["a", "b"], poll=True)
    at = run_page(PAGE, **{"class": room.code.lower()})
    assert_clean(at)
    assert not at.radio and any(f"/class/join?class={room.code}&amp;lang=en" in h for h in _htmls(at))
    assert classroom.joined(room) == 0  # opening the page joins nobody: only the join route does


@pytest.mark.parametrize(
    "reason, message",
    [
        (
            "join-rate",
            f"Too many devices joined from this address in the last minute (at most {classroom.JOINS_PER_MINUTE}).",
        ),
        ("joining-closed", "The lecturer has closed joining for this class."),
        ("start-rate", f"This address has started {classroom.STARTS_PER_HOUR} classes in the last hour."),
    ],
)
def test_a_refusal_from_the_routes_is_shown_in_the_page(reason, message):
    at = run_page(PAGE, refused=reason)
    assert not at.exception and at.error[0].value.startswith(message)


def test_the_room_view_projects_the_code_a_qr_code_and_live_counts():
    room, _, (a, b, c) = _room(3)
    question = classroom.ask_step(room, 9)
    for student, choice in ((a, 1), (b, 1), (c, 0)):
        classroom.answer(room, question, student, choice)
    at = run_page(PAGE, **{"class": room.code, "view": "room", "embed": "true"})
    assert_clean(at)
    assert len(at.get("image")) == 1 and any(room.code in h for h in _htmls(at))  # the QR code and the code
    assert not at.button and not at.get("download_button")  # read-only: nothing to ask, reveal or download
    (figure,) = figures(at)
    assert evidence_kinds(at) == ["class answers"] and figure_heads(at)[0].startswith(lp.prompt(9)[:40])
    assert figure["data"][0]["x"] == [1, 2, 0] and figure["layout"]["xaxis"]["dtick"] == 1  # whole counts
    assert any("3 answers from 3 joined." in h for h in _htmls(at))  # in large type


def test_the_room_view_after_the_reveal_shows_the_answer_and_the_figure_that_settles_it():
    room, _, (a,) = _room(1)
    question = classroom.ask_step(room, 9)
    classroom.answer(room, question, a, 1)
    classroom.reveal(room, question)
    at = run_page(PAGE, **{"class": room.code, "view": "room", "embed": "true"})
    assert_clean(at)
    right = classroom.lettered(lp.choices(9))[lp.step(9).answer]
    shown = " ".join(_htmls(at))
    assert f"Answer: {right}" in shown.replace("&#x27;", "'")
    assert figures(at)[0]["data"][0]["marker"]["color"][lp.step(9).answer] == "#009E73"  # the right one green
    assert [e.proto.src.split("?")[0] for e in at.get("iframe")] == ["http://localhost:8501/cache"]


@pytest.mark.parametrize("view", ["landing", "join", "room"])
def test_class_mode_speaks_chinese(view):
    room, _, _ = _room()
    classroom.ask_step(room, 2)
    query = {"landing": {}, "join": {"class": room.code}, "room": {"class": room.code, "view": "room"}}[view]
    at = run_page(PAGE, lang="zh", **query)
    assert_clean(at)
    assert untranslated(at) == []


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_class_links_get_a_message_never_a_traceback_markup_or_a_seat(name):
    room, token, (student,) = _room(1)
    classroom.ask_own(room, "Which?", ["a", "b"], poll=True)
    value = HOSTILE[name]
    for query in (
        {"class": value},
        {"class": room.code, "host": value},
        {"class": room.code, "me": value},
        {"class": room.code, "refused": value},
        {"class": room.code, "view": value},
    ):
        at = run_page(PAGE, **query)
        assert not at.exception, (query, [e.value for e in at.exception])
        shown = " ".join(e.value for kind in ("markdown", "error", "caption", "info") for e in at.get(kind))
        assert not any(bad in shown for bad in MARKUP), query
    assert classroom.joined(room) == 1


def test_the_old_url_secrets_grant_nothing():
    """A link with the lecturer's real token or a student's real device token, as the old URLs carried them:
    neither the lecturer's controls nor the student's form appear."""
    room, token, (student,) = _room(1)
    classroom.ask_own(room, "Which?", ["a", "b"], poll=True)
    host = run_page(PAGE, **{"class": room.code, "host": token})
    assert "Reveal the answer" not in [b.label for b in host.button] and not host.get("download_button")
    me = run_page(PAGE, **{"class": room.code, "me": student})
    assert not me.radio and classroom.joined(room) == 1
