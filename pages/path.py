"""The learning path: ten questions from the course notes, a prediction each, then the live figure that answers it."""

from __future__ import annotations

import streamlit as st

from explorer import learning_path as lp
from explorer import i18n, trend
from explorer.figures.home import path_progress
from explorer.lecture_map import page
from ui import params, render
from ui.frame import header, page_link
from ui.lecture import page_url
from ui.text import say, t

STEP_KEY = "q"  # URL: ?q=3 opens question 3; ?p1=1&p2=0... are the predictions made so far


def _prediction(number: int) -> int | None:
    """The choice recorded in the URL for question `number`, if any (an unusable value counts as none)."""
    raw = st.query_params.get(f"p{number}", "")
    return int(raw) if raw in {str(i) for i in range(lp.CHOICES)} else None


def _record(number: int) -> None:
    """Keep the prediction in the URL as its index (short, and the same in every language)."""
    st.query_params[f"p{number}"] = str(st.session_state[f"pick-{number}"])


@st.cache_data(show_spinner=False)
def _facts() -> dict:
    """Numbers the explanations quote, computed from the shipped data like the pages do."""
    _, fit, _ = trend.fit_window(trend.load(), trend.MAIN_SERIES, start=1950, end=2025, n_boot=0)
    return {"years": fit.years_per_10x}


header("path")
# on a phone the question and its choices come first, above the fold: the container is filled after the
# question slider (drawn below it) has said which question this is
say("lead")
question_box = st.container()
number = int(params.slider(t("question"), STEP_KEY, 1, len(lp.STEPS), 1))
current = lp.step(number)
outcomes = [lp.outcome(_prediction(s.number), s) for s in lp.STEPS]
render.figure(path_progress(outcomes, number), key="path-progress")

with question_box:
    st.markdown(f"#### {number}. {' '.join(t(f'q{number}').split())}")  # one heading, however the text wraps
    options = lp.choices(number)
    picked = st.radio(
        t("pick"),
        range(len(options)),
        index=_prediction(number),
        format_func=lambda i: options[i],
        key=f"pick-{number}",
        on_change=_record,
        args=(number,),
    )
    if picked is None:
        st.caption(t("waiting"))
    else:
        if picked == current.answer:
            say("right")
        else:
            say("wrong", answer=options[current.answer])
        st.iframe(f"{page_url(current.page)}?{lp.figure_query(current)}&lang={i18n.current()}", height=620)
        say(f"q{number}-why", **_facts())
        page_link(current.page, t("open-page", title=page(current.page).title))
        if number == len(lp.STEPS):
            say("done", right=outcomes.count("right"), total=len(lp.STEPS))
