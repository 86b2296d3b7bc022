"""Class mode: the lecturer asks, every student predicts on their own device, the live figure reveals."""

from __future__ import annotations

import streamlit as st

from explorer import classroom
from explorer import learning_path as lp
from ui import layout
from ui.classroom import (CODE_KEY, HOST_KEY, answers, device_token, join_link, plain, refused, room_from_url,
                          wording)
from ui.frame import header
from ui.text import say, t

LECTURER_POLL_S, STUDENT_POLL_S = 1.0, 3.0  # 200 students poll about 70 times a second in all (bench.class_load)


def start_or_join() -> None:
    """No class in the URL: a lecturer starts one, a student types the code."""
    say("lead")
    start_col, join_col = st.columns(2, gap="large")
    with start_col:
        st.subheader(t("start-title"))
        say("start-help")
        if st.button(t("start-button"), type="primary"):
            try:
                room, token = classroom.start()
            except classroom.ClassError as err:
                refused(err)
            else:
                st.query_params.update({CODE_KEY: room.code, HOST_KEY: token})
                st.rerun()
    with join_col:
        st.subheader(t("join-title"))
        with st.form("join"):
            code = st.text_input(t("join-code"), max_chars=classroom.CODE_LENGTH + 2, placeholder="ABC234")
            if st.form_submit_button(t("join-button")):
                st.query_params[CODE_KEY] = classroom.normalize_code(code)
                st.rerun()


def ask(room: classroom.Room) -> None:
    """The lecturer's question: one of the learning path's, or their own."""
    own = st.toggle(t("ask-own"), key="ask-own")
    with st.form("ask", border=True):
        if own:
            prompt = st.text_input(t("ask-prompt"), max_chars=classroom.PROMPT_CHARS)
            choices = st.text_area(t("ask-choices"), help=t("ask-choices-help"), height=110,
                                   max_chars=(classroom.MAX_CHOICES + 1) * (classroom.CHOICE_CHARS + 1))
            unit = st.text_input(t("ask-unit"), max_chars=classroom.UNIT_CHARS)
        else:
            number = st.selectbox(t("ask-step"), range(1, len(lp.STEPS) + 1),
                                  format_func=lambda n: f"{n}. {lp.prompt(n)}")
        if st.form_submit_button(t("ask-button"), type="primary"):
            try:
                if own:
                    classroom.ask_own(room, prompt, choices.splitlines()[:classroom.MAX_CHOICES + 1], unit)
                else:
                    classroom.ask_step(room, number)
            except classroom.ClassError as err:
                refused(err)


def reveal(room: classroom.Room, question: classroom.Question) -> None:
    value = correct = None
    if question.kind == "number":
        value = st.number_input(t("reveal-value"), value=None, format="%g", key=f"value-{question.id}")
    elif question.kind == "choice":
        labels = classroom.lettered(question.choices)
        correct = st.selectbox(t("reveal-correct"), range(len(labels)), key=f"correct-{question.id}",
                               format_func=labels.__getitem__, index=None)
    if st.button(t("reveal-button"), type="primary", key=f"reveal-{question.id}"):
        try:
            classroom.reveal(room, question, value=value, correct=correct)
        except classroom.ClassError as err:
            refused(err)
        else:
            st.rerun()


@st.fragment(run_every=LECTURER_POLL_S)
def lecturer_live(room: classroom.Room) -> None:
    question = classroom.current(room)
    if question is None:
        st.info(t("no-question-host", n=classroom.joined(room)))
    else:
        answers(room, question)


def lecturer(room: classroom.Room) -> None:
    figure_col, controls_col = layout.stage()
    with controls_col:
        plain(t("join-card", code=room.code), size_rem=1.6)
        st.code(join_link(room), language=None, wrap_lines=True)
        st.caption(t("host-link-note"))
        ask(room)
        question = classroom.current(room)
        if question is not None and not question.revealed:
            reveal(room, question)
        st.download_button(t("download"), classroom.answers_csv(room), file_name=f"class-{room.code}.csv",
                           mime="text/csv", on_click="ignore")
    with figure_col:
        lecturer_live(room)


def _showing(question: classroom.Question | None) -> tuple | None:
    return None if question is None else (question.id, question.revealed)


@st.fragment(run_every=STUDENT_POLL_S)
def follow(room: classroom.Room, shown: tuple | None) -> None:
    """A student's device polls here (one query, nothing drawn) and reruns the page only when the lecturer has
    asked or revealed: a poll never redraws the form a student is filling in."""
    if _showing(classroom.current(room)) != shown:
        st.rerun()


def student(room: classroom.Room) -> None:
    try:
        me = device_token(room)
    except classroom.ClassError as err:
        refused(err)
        return
    question = classroom.current(room)
    follow(room, _showing(question))
    if question is None:
        st.info(t("no-question-student", code=room.code))
        return
    if question.revealed:  # the figure's title is the question
        answers(room, question)
        return
    title, choices = wording(question)
    plain(title)
    if classroom.answered(question, me):
        st.success(t("received"))
    else:
        with st.form(f"answer-{question.id}"):
            if choices:
                labels = classroom.lettered(choices)
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
room = room_from_url()
if not st.query_params.get(CODE_KEY):
    start_or_join()
elif room is None:
    st.error(t("unknown-code", code=classroom.normalize_code(st.query_params[CODE_KEY])))
    start_or_join()
elif classroom.is_host(room, st.query_params.get(HOST_KEY, "")):
    lecturer(room)
else:
    student(room)
