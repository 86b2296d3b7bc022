"""The language a page is shown in: `lang=` in the URL wins, then the student's last choice in this session,
then the browser's language (`st.context.locale`); a switch in the sidebar changes it and writes it to the URL,
so share links, embeds and projector links carry it."""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from explorer import i18n

_CHOSEN = "_language"
_SWITCH = "_language_switch"


def resolve() -> str:
    """Decide this run's language and make it the ambient one (`explorer.i18n`); called first on every run."""
    lang = (
        i18n.parse(st.query_params.get("lang"))
        or st.session_state.get(_CHOSEN)
        or i18n.from_locale(getattr(st.context, "locale", None))
    )
    st.session_state[_CHOSEN] = lang
    i18n.set_current(lang)
    return lang


def _session_language() -> str | None:
    """The session's language for code that runs before `resolve` in a rerun (a widget's callback); None
    outside a session's script thread (a background run, the command line)."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    return st.session_state.get(_CHOSEN)


i18n.set_fallback(_session_language)


def _switched() -> None:
    lang = st.session_state[_SWITCH] or i18n.current()
    st.session_state[_CHOSEN] = lang
    st.query_params["lang"] = lang


def switch(where=st.sidebar) -> None:
    """English / 简体中文, in both languages' own words (a student who reads only one still finds it)."""
    st.session_state[_SWITCH] = i18n.current()
    where.segmented_control(
        "Language · 语言",
        list(i18n.LANGUAGES),
        format_func=i18n.LANGUAGES.get,
        key=_SWITCH,
        on_change=_switched,
        required=True,
    )
