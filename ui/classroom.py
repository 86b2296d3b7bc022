"""What the class page's views share: the class from the URL, who this browser is in it (from the cookies
`ui.class_routes` set, never from the URL), a question's wording in the viewer's language, typed text shown
as plain text, the live answers figure, the join link and its QR code."""

from __future__ import annotations

import html
import io
import re

import segno
import streamlit as st

from explorer import classroom, content, i18n
from explorer import learning_path as lp
from explorer.figures.classroom import answers_figure
from ui import render
from ui.class_routes import DEVICE_COOKIE, HOST_COOKIE, device_cookie, host_cookie
from ui.lecture import page_url

BOOK = "class"  # content/<lang>/class.md: this helper serves the class page alone
CODE_KEY, VIEW_KEY, REFUSED_KEY = "class", "view", "refused"  # URL: ?class=ABC234[&view=room][&refused=...]
REFUSALS = ("too-many-classes", "start-rate", "join-rate", "joining-closed", "class-full")  # from the routes
_MARKDOWN_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation mark
_AUTOLINK = re.compile(r"(?i)(?:https?|ftp|mailto|xmpp):|www\.|@")  # where an autolink starts
WORD_JOINER = "\u2060"


def room_from_url() -> classroom.Room | None:
    code = st.query_params.get(CODE_KEY, "")
    return classroom.find(code) if code else None


def _cookie(name: str) -> str | None:
    try:
        return st.context.cookies.get(name)
    except Exception:  # no browser request behind this run (a test of one page): no cookies
        return None


def is_lecturer(room: classroom.Room) -> bool:
    """Whether this browser holds the lecturer's cookie of `room` (set by `POST class/start`)."""
    return classroom.is_host(room, _cookie(host_cookie(room.code)))


def device(room: classroom.Room) -> str | None:
    """This browser's device token in `room` (set by `GET class/join`), if it joined."""
    token = _cookie(device_cookie(room.code))
    return token if classroom.is_student(room, token) else None


def my_classes() -> list[classroom.Room]:
    """The live classes this browser runs: a lecturer who went to another page finds the way back."""
    rooms = []
    for name in list(_cookies())[:20]:
        if name.startswith(HOST_COOKIE):
            room = classroom.find(name[len(HOST_COOKIE) :])
            if room is not None and is_lecturer(room):
                rooms.append(room)
    return rooms


def _cookies() -> dict:
    try:
        return dict(st.context.cookies)
    except Exception:
        return {}


def joined_here(room: classroom.Room) -> bool:
    return any(name == DEVICE_COOKIE + room.code for name in _cookies())


def join_link(room: classroom.Room) -> str:
    """The link (and QR code) that joins a device: `GET class/join`, which sets its cookie."""
    return f"{page_url('class')}/join?{CODE_KEY}={room.code}&lang={i18n.current()}"


def start_action() -> str:
    return f"{page_url('class')}/start?lang={i18n.current()}"


def wording(question: classroom.Question) -> tuple[str, list[str]]:
    """(question, choices) in the viewer's language: a learning-path step is read from the path's content."""
    if question.kind == "step":
        return lp.prompt(question.step), lp.choices(question.step)
    return question.prompt, list(question.choices)


def explanation(question: classroom.Question) -> str:
    """The paragraph the reveal shows: the path's own for a step, else the lecturer's (maybe empty)."""
    if question.kind == "step":
        return content.text("path", f"q{question.step}-why")
    return question.explanation


def refused(err: classroom.ClassError) -> None:
    st.error(content.text(BOOK, f"error-{err.reason}", **err.params))


def refusal_from_url() -> None:
    """A refusal the routes sent back (`refused=<reason>`), shown in the page's language."""
    reason = st.query_params.get(REFUSED_KEY, "")
    if reason in REFUSALS:
        limits = {
            "too-many-classes": {"limit": classroom.MAX_LIVE_CLASSES, "hours": classroom.CLASS_HOURS},
            "start-rate": {"limit": classroom.STARTS_PER_HOUR},
            "join-rate": {"limit": classroom.JOINS_PER_MINUTE},
            "class-full": {"limit": classroom.MAX_STUDENTS},
        }.get(reason, {})
        refused(classroom.ClassError(reason, **limits))


def as_markdown_text(text: str) -> str:
    """Typed text for a widget label that Streamlit reads as Markdown (a radio's options): every punctuation
    mark escaped, so bold, links, colours, maths and emoji codes all show as the characters typed. A bare
    address would still become a live link (GitHub-style autolinks are found in the text after escapes are
    read), so an invisible word joiner breaks "http://", "www." and "@" apart."""
    text = _AUTOLINK.sub(lambda m: m.group(0)[:-1] + WORD_JOINER + m.group(0)[-1], text)
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def typed_text_html(text: str, size_rem: float = 1.3, weight: int = 600) -> str:
    """A line of typed text as HTML that shows it as text: everything escaped, never Markdown or markup."""
    return (
        f'<div style="font-size:{float(size_rem):.2f}rem;font-weight:{int(weight)};line-height:1.35;'
        f'overflow-wrap:anywhere">{html.escape(text)}</div>'
    )


def plain(text: str, size_rem: float = 1.3, weight: int = 600) -> None:
    st.html(typed_text_html(text, size_rem, weight))


def button_html(href_or_action: str, label: str, post: bool = False) -> str:
    """A link (or a one-button form that posts) styled as the app's primary button."""
    style = (
        "display:inline-block;padding:0.55rem 1.1rem;border-radius:0.5rem;border:none;font-size:1.05rem;"
        "font-weight:600;background:#0072B2;color:#fff;text-decoration:none;cursor:pointer"
    )
    label = html.escape(label)
    if post:
        return (
            f'<form method="post" action="{html.escape(href_or_action)}">'
            f'<button type="submit" style="{style}">{label}</button></form>'
        )
    return f'<a href="{html.escape(href_or_action)}" style="{style}">{label}</a>'


def qr_png(link: str) -> bytes:
    """The join link as a QR code (segno: pure Python, offline, its own PNG writer), dark on white in any
    theme: an image, so nothing of the link is written into the page as markup (st.html drops inline SVG)."""
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="png", scale=10, border=3, dark="#000000", light="#ffffff")
    return out.getvalue()


def answers(
    room: classroom.Room,
    question: classroom.Question,
    mine: classroom.Mine | None = None,
    height: int | None = None,
    phone: bool = False,
    large: bool = False,
) -> None:
    """The class's answers (live until the reveal; then the right answer green and, on a phone, this device's
    own bar outlined) with the count of answers."""
    title, choices = wording(question)
    tally = classroom.tally(question)
    fig = answers_figure(
        title,
        choices,
        tally,
        question.correct if question.revealed else None,
        question.value if question.revealed else None,
        question.unit,
        mine=None if mine is None else mine.choice,
        revealed=question.revealed,
        height=height,
        letters_only=phone,
        large=large,
    )
    render.live_figure(fig, key=f"class-answers-{question.id}")
    count = content.text(BOOK, "answer-count", n=tally.answers, joined=classroom.joined(room))
    if large:  # the room view: read from the back of the hall
        plain(count, size_rem=1.6, weight=600)
    else:
        st.caption(count)


def right_answer_text(question: classroom.Question) -> str:
    """The right answer as the screen names it ("B. ..." or "17.5 ×"); empty for a poll."""
    if classroom.verdict(question, None) == "poll":
        return ""
    _, choices = wording(question)
    if question.correct is not None:
        return classroom.lettered(choices)[question.correct]
    return f"{question.value:g} {question.unit}".strip()


def my_answer_text(question: classroom.Question, mine: classroom.Mine) -> str:
    _, choices = wording(question)
    if mine.choice is not None and 0 <= mine.choice < len(choices):
        return classroom.lettered(choices)[mine.choice]
    return f"{mine.number:g} {question.unit}".strip()


def step_figure(question: classroom.Question, height: int, projector: bool = False) -> None:
    """For a learning-path step, the page's own figure that answers it (in projector type for the room)."""
    if question.kind != "step":
        return
    step = lp.step(question.step)
    extra = "&presentation=true" if projector else ""
    st.iframe(f"{page_url(step.page)}?{lp.figure_query(step)}&lang={i18n.current()}{extra}", height=height)
