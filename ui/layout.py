"""Picture first: every page opens on the slide's live figure with its few controls beside it, and keeps
everything else (how it was measured, more figures, data and sources, caveats) in sections below it that
run only when opened."""

from __future__ import annotations

from typing import Sequence

import streamlit as st

from ui import lecture

SECTIONS_KEY = "section"  # the URL parameter naming the open section, so a link can open it
FIGURE_SHARE = 3  # the figure's share of the first screen's width; the controls get 1


def stage(with_controls: bool = True, figure_share: int = FIGURE_SHARE):
    """(figure column, controls column) for the first screen; stacked on a phone, controls last. A figure
    with a wide legend asks for a larger `figure_share` of the width."""
    if not with_controls or lecture.figure_mode() or lecture.controls_hidden():
        here = st.container()
        return here, here
    figure_col, controls_col = st.columns([figure_share, 1], gap="medium")
    return figure_col, controls_col


def sections(labels: Sequence[str]) -> list:
    """One tab per label under the first screen; the open one as a container, the closed ones as None, so
    their work is skipped. A figure-mode link (`figure=<id>`) may point into any of them, and `sections=all`
    asks for the whole page: all run then, one after the other."""
    if lecture.figure_mode() or lecture.all_sections():
        return [st.container() for _ in labels]
    tabs = st.tabs(list(labels), key=SECTIONS_KEY, on_change="rerun", bind="query-params")
    return [tab if tab.open else None for tab in tabs]
