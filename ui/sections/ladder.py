""" "Does it hold at scale?": a claim's shipped ladder (explorer.ladder) with its verdict in one plain sentence,
and the quick ladder trained here on request. Its words: content/<lang>/ladder.md."""

from __future__ import annotations

import streamlit as st

from explorer import content
from explorer.figures.ladder import ladder_chart
from explorer.ladder import registry, verdict
from explorer.ladder import run as ladder
from ui import lecture, render
from ui.jobs import run_in_background

BOOK = "ladder"
QUICK_LIMIT_S = 120


@st.cache_data(show_spinner=False)
def _shipped(claim: str) -> dict | None:
    return ladder.load_shipped(claim)


def _show(found: dict, key: str, shipped: bool = False) -> None:
    """The verdict in words, for a shipped ladder what its sizes show beyond the rule, then the figure."""
    top = found["rungs"][-1]
    st.markdown(
        content.text(
            BOOK,
            f"verdict-{found['verdict']}",
            claim=content.text(BOOK, f"claim-{found['claim']}"),
            unit=content.text(BOOK, f"unit-{found['claim']}"),
            k=top["same_sign"],
            n=top["seeds"],
            effect=f"{top['effect']:+.3f}",
            params=f"{top['params']:,}",
        )
    )
    reading = verdict.lecture_reading(found["rungs"], registry.get(found["claim"]).lecture_sign)
    st.markdown(content.text(BOOK, f"lecture-{reading}", prediction=content.text(BOOK, f"prediction-{found['claim']}")))
    if shipped:
        st.markdown(content.text(BOOK, f"reading-{found['claim']}"))
    render.figure(
        render.built_once(("ladder", key, len(found["rungs"])), lambda: ladder_chart(found)),
        f"ladder-{key}",
        content.text(BOOK, "notice", prediction=content.text(BOOK, f"prediction-{found['claim']}")),
    )
    with st.expander(content.text(BOOK, "how")):
        st.markdown(content.text(BOOK, "how-body", growth=content.text(BOOK, f"growth-{found['claim']}"), vanish=25))


def hold_at_scale(claim: str) -> None:
    """The section: the shipped ladder if there is one, then the quick ladder on a press."""
    found = _shipped(claim)
    if found:
        _show(found, claim, shipped=True)
    else:
        st.info(content.text(BOOK, "none-shipped", command=f"python -m explorer ladder {claim} --preset main --save"))
    if lecture.all_sections() or lecture.figure_mode():
        return  # a printout or a figure link shows what is shipped; a run button has no place there
    st.markdown(content.text(BOOK, "quick-lead"))
    done = run_in_background(
        f"ladder-quick-{claim}",
        lambda progress: ladder.run(claim, "quick", progress=progress),
        content.text(BOOK, "quick-label"),
        time_limit_s=QUICK_LIMIT_S,
        button=content.text(BOOK, "quick-button"),
    )
    if done is not None and done.get("rungs"):
        _show(done, f"{claim}-quick")
