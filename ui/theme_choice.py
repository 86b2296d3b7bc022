"""Light, dark or the system's theme, chosen in the sidebar and kept in the link.

Streamlit's page reads a theme from its own address on load (`embed_options=light_theme` or `dark_theme`) and
otherwise follows the browser. The server can neither set nor read that option (st.query_params leaves it out),
so each choice is a link that opens this same view (every URL parameter kept) with it; figures follow the theme
the browser then reports (ui.render)."""

from __future__ import annotations

from html import escape
from urllib.parse import urlencode

import streamlit as st

from ui import appearance
from ui.text import common

THEMES = {"system": None, "light": "light_theme", "dark": "dark_theme"}  # choice: Streamlit's embed option


def link(choice: str) -> str:
    """This view's address (relative: the same page) with `choice`'s theme."""
    state = [(k, v) for k in st.query_params for v in st.query_params.get_all(k)]
    option = THEMES[choice]
    return "?" + urlencode(state + ([("embed_options", option)] if option else []))


_PILL = (
    "display:inline-block;margin:0 0.3rem 0.3rem 0;padding:0.2rem 0.7rem;font-size:14px;border-radius:0.5rem;"
    "text-decoration:none"
)


def switch_html(shown: str | None) -> str:
    """Three links drawn like the language switch's buttons, every text and address escaped; the theme shown now
    (`shown`, as the browser reports it: a system choice shows as its light or dark) is outlined in the primary
    colour."""
    links = []
    for choice in THEMES:
        edge = "var(--primary-color, #0072B2)" if choice == shown else "rgba(128,128,128,0.4)"
        links.append(
            f'<a href="{escape(link(choice))}" style="{_PILL};border:1px solid {edge};color:inherit">'
            f"{escape(common(f'theme-{choice}'))}</a>"
        )
    return f'<div style="font-size:14px;margin-bottom:0.25rem">{escape(common("theme"))}</div>' + "".join(links)


def switch(where=st.sidebar) -> None:
    """Under the language switch (a link without a target opens in this tab)."""
    where.html(switch_html(appearance.browser_theme()))
