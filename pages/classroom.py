"""Class mode: the lecturer asks, every student predicts on their own device, the reveal teaches: each phone
shows its own answer against the right one, the explanation and the figure; a read-only room view projects
the code, a QR code and the live answers. Who is the lecturer and who is a student comes from cookies
(`ui.class_routes`), never from the URL."""

from __future__ import annotations

import streamlit as st

from explorer import classroom
from explorer import learning_path as lp
from ui import layout
from ui.classroom import (
    CODE_KEY,
    VIEW_KEY,
    answers,
    as_markdown_text,
    button_html,
    device,
    explanation,
    is_lecturer,
    join_link,
    joined_here,
    my_answer_text,
    my_classes,
    plain,
    qr_png,
    refusal_from_url,
    refused,
    right_answer_text,
    room_from_url,
    start_action,
    step_figure,
    wording,
)
from ui.frame import header
from ui import lecture
from ui.lecture import page_url
from ui.text import say, t

LECTURER_POLL_S, ROOM_POLL_S, STUDENT_POLL_S = 1.0, 1.5, 3.0  # 200 students poll about 70 times a second in all


def landing() -> None:
    """No class in the URL: a lecturer starts one (a form that posts: the secret comes back as a cookie), a
    student types the code; a lecturer who left their class finds the way back."""
    say("lead")
    for room in my_classes():
        st.html(button_html(f"{page_url('class')}?{CODE_KEY}={room.code}", t("back-to-class", code=room.code)))
    start_col, join_col = st.columns(2, gap="large")
    with start_col:
        st.subheader(t("start-title"))
        say("start-help")
        st.html(button_html(start_action(), t("start-button"), post=True))
    with join_col:
        st.subheader(t("join-title"))
        with st.form("join"):
            code = st.text_input(t("join-code"), max_chars=classroom.CODE_LENGTH + 2, placeholder="ABC234")
            if st.form_submit_button(t("join-button")):
                st.query_params[CODE_KEY] = classroom.normalize_code(code)
                st.rerun()


def join_prompt(room: classroom.Room) -> None:
    """A browser that has not joined: one button to join (the route sets this device's cookie)."""
    if joined_here(room):
        st.warning(t("error-not-joined"))
    if not classroom.joining_open(room):
        st.info(t("error-joining-closed"))
        return
    plain(t("join-card", code=room.code), size_rem=1.6)
    st.html(button_html(join_link(room), t("join-this", code=room.code)))


def ask(room: classroom.Room) -> None:
    """The lecturer's question: one of the learning path's, or their own with its right answer (or a poll)."""
    own = st.toggle(t("ask-own"), key="ask-own")
    with st.form("ask", border=True):
        if own:
            prompt = st.text_input(t("ask-prompt"), max_chars=classroom.PROMPT_CHARS)
            choices = st.text_area(
                t("ask-choices"),
                help=t("ask-choices-help"),
                height=110,
                max_chars=(classroom.MAX_CHOICES + 1) * (classroom.CHOICE_CHARS + 1),
            )
            unit = st.text_input(t("ask-unit"), max_chars=classroom.UNIT_CHARS)
            right = st.text_input(t("ask-answer"), help=t("ask-answer-help"), max_chars=24)
            poll = st.checkbox(t("ask-poll"))
            why = st.text_area(t("ask-explanation"), height=80, max_chars=classroom.EXPLANATION_CHARS)
        else:
            number = st.selectbox(
                t("ask-step"), range(1, len(lp.STEPS) + 1), format_func=lambda n: f"{n}. {lp.prompt(n)}"
            )
        if st.form_submit_button(t("ask-button"), type="primary"):
            try:
                if own:
                    classroom.ask_own(
                        room,
                        prompt,
                        choices.splitlines()[: classroom.MAX_CHOICES + 1],
                        unit,
                        answer=right,
                        poll=poll,
                        explanation=why,
                    )
                else:
                    classroom.ask_step(room, number)
            except classroom.ClassError as err:
                refused(err)


@st.fragment(run_every=LECTURER_POLL_S)
def lecturer_live(room: classroom.Room) -> None:
    question = classroom.current(room)
    if question is None:
        st.info(t("no-question-host", n=classroom.joined(room)))
        return
    answers(room, question)
    if question.revealed:
        revealed_answer(question)


def joining_switch(room: classroom.Room) -> None:
    is_open = classroom.joining_open(room)
    wanted = st.toggle(t("joining-open"), value=is_open, key=f"joining-{room.id}", help=t("joining-help"))
    if wanted != is_open:
        classroom.set_joining(room, wanted)


def lecturer(room: classroom.Room) -> None:
    figure_col, controls_col = layout.stage()
    with controls_col:
        plain(t("join-card", code=room.code), size_rem=1.6)
        st.code(join_link(room), language=None, wrap_lines=True)
        st.link_button(t("room-view"), f"{page_url('class')}?{CODE_KEY}={room.code}&{VIEW_KEY}=room&embed=true")
        st.caption(t("host-note"))
        joining_switch(room)
        ask(room)
        question = classroom.current(room)
        if question is not None and not question.revealed:
            if st.button(t("reveal-button"), type="primary", key=f"reveal-{question.id}"):
                classroom.reveal(room, question)
                st.rerun()
        st.download_button(
            t("download"),
            classroom.answers_csv(room),
            file_name=f"class-{room.code}.csv",
            mime="text/csv",
            on_click="ignore",
        )
    with figure_col:
        lecturer_live(room)


def revealed_answer(question: classroom.Question, size_rem: float = 1.2) -> None:
    """The right answer (or "a poll") and the explanation, as the reveal shows them."""
    right = right_answer_text(question)
    plain(t("right-answer", answer=right) if right else t("poll-note"), size_rem=size_rem)
    why = explanation(question)
    if why:
        plain(why, size_rem=size_rem * 0.8, weight=400)


def join_panel(room: classroom.Room) -> None:
    """The room view's way in: the code in large type, the QR code of the join link, the link itself."""
    plain(room.code, size_rem=4.5, weight=800)
    st.image(qr_png(join_link(room)), width=320)
    plain(join_link(room), size_rem=0.95, weight=400)


@st.fragment(run_every=ROOM_POLL_S)
def room_bars(room: classroom.Room, shown: tuple | None) -> None:
    """The room view's live part: the bars while answers come in; a new question or the reveal reruns the
    whole view (so the QR code and the page's figure are drawn once, not at every poll)."""
    question = classroom.current(room)
    if _showing(question) != shown:
        st.rerun()
    if question is None:
        plain(t("room-waiting", n=classroom.joined(room)), size_rem=2.2)
    else:
        answers(room, question, height=640, large=True)


def room_view(room: classroom.Room) -> None:
    """What the projector shows: read-only, no secret: the code, the QR code of the join link, live answers;
    after a learning-path question's reveal, the answer on top and the page's own figure beside the class's
    bars, both at projector size on one 1920x1080 screen."""
    if not lecture.presentation():
        st.query_params["presentation"] = "true"  # projector type for every figure drawn here
    question = classroom.current(room)
    if question is not None and question.revealed and question.kind == "step":
        follow(room, _showing(question))
        revealed_answer(question, size_rem=1.6)
        bars_col, figure_col = st.columns(2, gap="large")
        with bars_col:
            answers(room, question, height=560, large=True)
        with figure_col:
            step_figure(question, height=640, projector=True)
        plain(t("join-card", code=room.code), size_rem=1.2)
        return
    live_col, join_col = st.columns([3, 1], gap="large")
    with join_col:
        join_panel(room)
    with live_col:
        if question is not None and question.revealed:
            follow(room, _showing(question))
            answers(room, question, height=640, large=True)
            revealed_answer(question, size_rem=1.8)
        else:
            room_bars(room, _showing(question))


def _showing(question: classroom.Question | None) -> tuple | None:
    return None if question is None else (question.id, question.revealed)


@st.fragment(run_every=STUDENT_POLL_S)
def follow(room: classroom.Room, shown: tuple | None) -> None:
    """A student's device polls here (one query, nothing drawn) and reruns the page only when the lecturer has
    asked or revealed: a poll never redraws the form a student is filling in."""
    if _showing(classroom.current(room)) != shown:
        st.rerun()


def verdict_card(question: classroom.Question, mine: classroom.Mine | None) -> None:
    """The reveal on a phone: this device's own answer, whether it matched, then the explanation."""
    result = classroom.verdict(question, mine)
    if mine is not None:
        plain(t("your-answer-was", answer=my_answer_text(question, mine)))
    right = as_markdown_text(right_answer_text(question))  # alerts read Markdown: a typed choice stays text
    if result == "right":
        st.success(t("verdict-right", answer=right))
    elif result == "wrong":
        st.error(t("verdict-wrong", answer=right))
    elif result == "none":
        st.info(t("verdict-none", answer=right))
    else:
        st.info(t("poll-note"))
    why = explanation(question)
    if why:
        plain(why, size_rem=1.0, weight=400)


def student(room: classroom.Room, me: str) -> None:
    question = classroom.current(room)
    follow(room, _showing(question))
    if question is None:
        st.info(t("no-question-student", code=room.code))
        return
    mine = classroom.mine(question, me)
    if question.revealed:
        verdict_card(question, mine)
        answers(room, question, mine=mine, phone=True)
        step_figure(question, height=520)
        return
    title, choices = wording(question)
    plain(title)
    if mine is not None:
        st.success(t("received"))
        plain(t("your-answer-was", answer=my_answer_text(question, mine)), size_rem=1.0, weight=400)
        return
    with st.form(f"answer-{question.id}"):
        if choices:
            labels = [as_markdown_text(label) for label in classroom.lettered(choices)]
            picked = st.radio(t("your-answer"), range(len(labels)), index=None, format_func=labels.__getitem__)
        else:
            picked = st.number_input(t("your-number", unit=question.unit), value=None, format="%g")
        if st.form_submit_button(t("submit"), type="primary"):
            try:
                if picked is None:
                    raise classroom.ClassError("no-answer")
                classroom.answer(room, question, me, picked)
            except classroom.ClassError as err:
                refused(err)
            else:
                st.rerun()


header("class")
refusal_from_url()
room = room_from_url()
if not st.query_params.get(CODE_KEY):
    landing()
elif room is None:
    st.error(t("unknown-code", code=classroom.normalize_code(st.query_params[CODE_KEY])))
    landing()
elif st.query_params.get(VIEW_KEY) == "room":
    room_view(room)
elif is_lecturer(room):
    lecturer(room)
elif (me := device(room)) is not None:
    student(room, me)
else:
    join_prompt(room)
