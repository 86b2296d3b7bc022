"""The frame every page shares: its title, the slides it covers, and its place in the argument."""

from __future__ import annotations

import streamlit as st

from explorer.lecture_map import page


def header(slug: str) -> None:
    info = page(slug)
    st.title(info.title)
    st.caption(f"Slides {info.slides} · {info.question}")
