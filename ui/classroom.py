"""What the class page's lecturer and student views share: the class from the URL, a question's wording in
the viewer's language, the live answers figure and the reveal."""

from __future__ import annotations

import html

import streamlit as st

from explorer import classroom, content, i18n
from explorer import learning_path as lp
from explorer.figures.classroom import answers_figure
from ui import render
from ui.frame import page_link
from ui.lecture import page_url
BOOK = "class"  # content/<lang>/class.md: this helper serves the class page alone
CODE_KEY, HOST_KEY, STUDENT_KEY = "class", "host", "me"  # URL: ?class=ABC234 joins; &host=... runs it


def room_from_url() -> classroom.Room | None:
    code = st.query_params.get(CODE_KEY, "")
    return classroom.find(code) if code else None


def device_token(room: classroom.Room) -> str:
    """This device's student token: joined once per session (a reload keeps it through the URL's `me`)."""
    known = st.session_state.get("class-device")
    if known and known[0] == room.id:
        return known[1]
    me = classroom.join(room, st.query_params.get(STUDENT_KEY, ""))
    st.session_state["class-device"] = (room.id, me)
    st.query_params[STUDENT_KEY] = me
    return me


def join_link(room: classroom.Room) -> str:
    return f"{page_url('class')}?{CODE_KEY}={room.code}&lang={i18n.current()}"


def wording(question: classroom.Question) -> tuple[str, list[str]]:
    """(question, choices) in the viewer's language: a learning-path step is read from the path's content."""
    if question.kind == "step":
        return lp.prompt(question.step), lp.choices(question.step)
    return question.prompt, list(question.choices)


def refused(err: classroom.ClassError) -> None:
    st.error(content.text(BOOK, f"error-{err.reason}", **err.params))


def typed_text_html(text: str, size_rem: float = 1.3) -> str:
    """A line of typed text as HTML that shows it as text: everything escaped, never Markdown or markup."""
    return f'<div style="font-size:{float(size_rem):.2f}rem;font-weight:600;line-height:1.35">{html.escape(text)}</div>'


def plain(text: str, size_rem: float = 1.3) -> None:
    st.html(typed_text_html(text, size_rem))


def answers(room: classroom.Room, question: classroom.Question) -> None:
    """The live distribution; once revealed, with the supported answer, and for a path step the page's own
    figure that measured it."""
    title, choices = wording(question)
    tally = classroom.tally(question)
    fig = answers_figure(title, choices, tally, question.correct if question.revealed else None,
                         question.value if question.revealed else None, question.unit)
    render.live_figure(fig, key=f"class-answers-{question.id}")
    st.caption(content.text(BOOK, "answer-count", n=tally.answers, joined=classroom.joined(room)))
    if question.revealed and question.kind == "step":
        step = lp.step(question.step)
        st.iframe(f"{page_url(step.page)}?{lp.figure_query(step)}&lang={i18n.current()}", height=560)
        page_link(step.page)
