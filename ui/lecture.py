"""Lecture mode: links that embed one figure in slides, hidden controls, projector sizes.

URL parameters, on any page:
  embed=true            Streamlit's own: no navigation, no chrome (app.py hides the sidebar)
  controls=hidden       no widgets; the view is the state given in the URL
  figure=<id>           this figure alone, everything else on the page hidden
  presentation=true     a projector: type from the frame's size, the figure as tall as the frame
  frame=WxH             draw for this viewport (else the browser reports it: ui.appearance)
  height=<pixels>       the height of the iframe a figure-mode view fills (title, badge and chart together)
  sections=all          every section of the page open at once (printing, the figure export)
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

import streamlit as st

from explorer import content, i18n
from explorer.csv_upload import inline_code
from explorer.lecture_map import page

HEIGHT_RANGE = (200, 2000)

# Figure mode keeps only the branch of the page that holds the chart: at every level of nesting, a block's
# children without a Plotly chart (or the chart's own title and badge, written above it) are hidden. Fixed CSS,
# no user text.
_FIGURE_ONLY_CSS = """
<style>
[data-testid="stHeader"], [data-testid="stToolbar"], [data-testid="stDecoration"] { display: none !important; }
[data-testid="stMainBlockContainer"] { padding: 0.5rem 0.75rem !important; max-width: 100% !important; }
[data-testid="stVerticalBlock"]:not(.st-key-lecture-message)
  > *:not(:has([data-testid="stPlotlyChart"], .st-key-lecture-message, .figure-head)),
[data-testid="stHorizontalBlock"] > *:not(:has([data-testid="stPlotlyChart"], .st-key-lecture-message, .figure-head))
    { display: none !important; }
</style>
"""
# A projector or an embed is a slide: the page's side padding (5rem at 1920 px) would be taken from the figure.
_SLIDE_CSS = """
<style>
[data-testid="stMainBlockContainer"] { padding: 0.5rem 0.75rem !important; max-width: 100% !important; }
</style>
"""
_CONTROLS_HIDDEN_CSS = """
<style>
[data-testid="stButton"], [data-testid="stDownloadButton"], [data-testid="stFileUploader"],
[data-testid="stPopover"], [data-testid="stFormSubmitButton"] { display: none !important; }
</style>
"""


def figure_mode() -> str | None:
    """The id of the one figure to show, or None for the whole page."""
    return st.query_params.get("figure") or None


def all_sections() -> bool:
    """Every section open: what the figure export and a printout need (`sections=all`)."""
    return st.query_params.get("sections") == "all"


def controls_hidden() -> bool:
    return st.query_params.get("controls") == "hidden"


def presentation() -> bool:
    return st.query_params.get("presentation", "").lower() in ("true", "1", "yes", "on")


def figure_height() -> int | None:
    """The figure-mode height from the URL, clamped to HEIGHT_RANGE; None when absent or unusable."""
    raw = st.query_params.get("height")
    # ASCII digits only: "²" passes isdigit() but not int(), and int() refuses more than 4300 digits
    if not raw or not (raw.isascii() and raw.isdigit()) or len(raw) > 6:
        return None
    return min(max(int(raw), HEIGHT_RANGE[0]), HEIGHT_RANGE[1])


def apply_chrome() -> None:
    """Hide what the URL asks to hide; called once per page run by ui.frame.header."""
    if figure_mode():
        st.html(_FIGURE_ONLY_CSS)
    elif controls_hidden():
        st.html(_CONTROLS_HIDDEN_CSS)
        if presentation() or st.context.is_embedded:
            st.html(_SLIDE_CSS)


def set_current_page(slug: str) -> None:
    """Called first on every page run: which page this is, and a fresh record of its figures and controls."""
    st.session_state["_lecture_page"] = slug
    st.session_state["_lecture_figures"] = []
    st.session_state["_lecture_controls"] = []


def note_figure(figure_id: str) -> None:
    st.session_state.setdefault("_lecture_figures", []).append(figure_id)


def note_control(key: str) -> None:
    """A URL-bound control of this page: share links carry its value (and nothing else from the URL)."""
    st.session_state.setdefault("_lecture_controls", []).append(key)


def report_missing_figure() -> None:
    """After a page ran in figure mode: say so when it has no figure by that id (instead of a blank frame)."""
    wanted, drawn = figure_mode(), st.session_state.get("_lecture_figures", [])
    if wanted and wanted not in drawn:
        with st.container(key="lecture-message"):  # its class keeps it visible under the figure-only CSS
            shown = inline_code(wanted)
            st.info(
                content.text(
                    "common",
                    "no-such-figure",
                    wanted=shown,
                    drawn=", ".join(inline_code(f) for f in drawn) or content.text("common", "none"),
                )
            )


def current_page() -> str:
    return st.session_state.get("_lecture_page", "home")


def page_url(slug: str) -> str:
    """The absolute address of a page of this app as the browser sees it, under any path prefix a proxy
    adds (`https://host/course/depth`): read from the current page's own address."""
    here = urlsplit(st.context.url or "http://localhost:8501")
    current = current_page()
    prefix = here.path.rstrip("/")
    if current != "home" and prefix.endswith(f"/{page(current).slug}"):
        prefix = prefix[: -len(page(current).slug) - 1]
    return f"{here.scheme}://{here.netloc}{prefix}/" + ("" if slug == "home" else page(slug).slug)


def view_link(figure_id: str | None = None, **extra: str) -> str:
    """An absolute link to this page in its current state (every URL-bound control and the language), plus
    `extra`."""
    controls = set(st.session_state.get("_lecture_controls", []))
    state = [(k, v) for k in st.query_params if k in controls for v in st.query_params.get_all(k)]
    if figure_id:
        state.append(("figure", figure_id))
    state.append(("lang", i18n.current()))  # the receiver sees the language the link was made in
    state += list(extra.items())
    query = urlencode(state)
    return page_url(current_page()) + (f"?{query}" if query else "")
