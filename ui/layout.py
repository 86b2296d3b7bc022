"""Picture first: every page opens on the slide's live figure with its few controls beside it, and keeps
everything else (how it was measured, more figures, data and sources, caveats) in sections below it that
run only when opened."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import streamlit as st

from explorer import content, i18n
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
    asked = st.query_params.get(SECTIONS_KEY)
    if asked and asked not in labels and SECTIONS_KEY not in st.session_state:
        translated = _in_this_language(asked)
        if translated in labels:  # a link made in the other language names its tab in that language
            st.session_state[SECTIONS_KEY] = translated
    tabs = st.tabs(list(labels), key=SECTIONS_KEY, on_change="rerun", bind="query-params")
    return [tab if tab.open else None for tab in tabs]


def show_sections(bodies: Mapping[str, Callable[[], None]]) -> None:
    """`sections` for pages whose sections stand alone: one tab per label, and only the open tab's body runs."""
    for tab, body in zip(sections(list(bodies)), bodies.values()):
        if tab:
            with tab:
                body()


def _in_this_language(label: str) -> str | None:
    """The shown language's text of the page's section whose text, in any language, is `label`."""
    book = lecture.current_page()
    for lang in i18n.LANGUAGES:
        if content.path(book, lang).is_file():
            name = next((n for n, text in content.sections(book, lang).items() if text == label), None)
            if name:
                return content.text(book, name)
    return None


def finding(text: str) -> None:
    """The plain sentence a measured tab opens with: what was found, in words and a number, before any
    figure or test."""
    st.markdown(f"**{content.text('common', 'found')}** {text}")


def for_reviewer(nested: bool = False):
    """The statistics behind a tab's plain finding (paired tests, p-values, Holm, equivalence), collapsed by
    default so the story reads first; nothing is left out. Inside another expander, which Streamlit cannot
    nest, a bordered box under the same heading; open, as a plain box, when a figure link or a printout
    (`figure=`, `sections=all`) needs what it holds on screen."""
    label = content.text("common", "for-reviewer")
    if lecture.figure_mode() or lecture.all_sections():
        return st.container()
    if not nested:
        return st.expander(label, expanded=False)
    box = st.container(border=True)
    box.markdown(f"**{label}**")
    return box
