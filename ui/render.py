"""Render explorer figures the same way on every page."""

from __future__ import annotations

import re

import plotly.graph_objects as go
import streamlit as st

from explorer.figures.theme import SLIDE_SIZE


def _filename(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60] or "figure"


def figure(fig: go.Figure, key: str, notice: str = "") -> None:
    """Show a figure with the app's own template (theme=None) and an SVG download in the modebar.

    `notice` is the short "what to notice" text printed under the figure; the evidence badge is
    already inside the figure (see explorer.figures.theme.stamp_evidence).
    """
    title = fig.layout.title.text or key
    width, height = SLIDE_SIZE
    config = {"displaylogo": False,
              "toImageButtonOptions": {"format": "svg", "filename": _filename(title), "width": width,
                                       "height": height}}
    st.plotly_chart(fig, theme=None, key=key, config=config)
    if notice:
        st.caption(notice)
