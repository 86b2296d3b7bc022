"""The frame every page shares: its title, the slides it covers, and links to other pages."""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from explorer.lecture_map import page


def header(slug: str) -> None:
    info = page(slug)
    st.title(info.title)
    slides = "Slides" if any(sep in info.slides for sep in ",-") else "Slide"
    st.caption(f"{slides} {info.slides} · {info.question}")


def page_link(slug: str, label: str | None = None) -> None:
    """A link to another page when that page exists; plain text when it does not or the router is absent.

    A page run on its own (AppTest of one file) has no navigation, so Streamlit cannot resolve the link.
    """
    info = page(slug)
    if not info.exists:
        return
    text = label or f"{info.title} (slides {info.slides}): {info.question}"
    try:
        st.page_link(info.file, label=text, icon=info.icon)
    except StreamlitPageNotFoundError:
        st.caption(f"→ {text} (see the navigation)")
