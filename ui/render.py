"""Render explorer figures the same way on every page, with lecture mode's share and export tools."""

from __future__ import annotations

import contextlib
import html
import re
import traceback
from typing import Any, Callable, Iterator

import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from explorer import export, i18n
from explorer.figures.frames import Frame, for_frame, header_px
from explorer.figures.theme import SLIDE_SIZE, Header, for_dark, needs_width, split_header
from explorer.lecture_map import page, slides_label
from ui import appearance, lecture
from ui.text import common


@contextlib.contextmanager
def section(name: str) -> Iterator[None]:
    """One part of a page: if it still fails (data no check foresaw), a warning naming the part takes its
    place, the server log gets the traceback, and the rest of the page renders. Streamlit's own stop and
    rerun signals are BaseExceptions and pass through."""
    try:
        yield
    except Exception as err:  # noqa: BLE001 - shown as a named warning instead of a broken page
        traceback.print_exc()
        st.warning(common("section-failed", name=name, error=f"{type(err).__name__}: {str(err)[:200]}"))


MEMO_MAX_CHARS = 200_000  # a figure with a longer spec (the cache page's n = 1024 heatmaps) is themed afresh:
# the memo holds at most 128 themed figures of up to this size


class _FigureData(dict):
    """A built figure as plain data, the way the cache holds it: Plotly re-validates a whole Figure when one is
    unpickled (30 ms for the depth schematic), while this copies out in a fraction of a millisecond."""


def _packed(value: Any) -> Any:
    """Figures inside a built value (plain tuples, lists and dicts are looked into) as `_FigureData`."""
    if isinstance(value, go.Figure):
        return _FigureData(value.__reduce__()[1][0])  # its properties and its subplot grid, as pickling keeps them
    if type(value) in (tuple, list):
        return type(value)(_packed(v) for v in value)
    if type(value) is dict:
        return {k: _packed(v) for k, v in value.items()}
    return value


def _unpacked(value: Any) -> Any:
    if isinstance(value, _FigureData):
        return _trusted(value)
    if type(value) in (tuple, list):
        return type(value)(_unpacked(v) for v in value)
    if type(value) is dict:
        return {k: _unpacked(v) for k, v in value.items()}
    return value


def _trusted(data: dict) -> go.Figure:
    """A Figure of data that Plotly validated when the figure was first built (its check is not run again)."""
    return go.Figure(dict(data), _validate=False)


@st.cache_data(show_spinner=False, max_entries=2048)
def _built(page_slug: str, lang: str, key: tuple, _build: Callable[[], Any]) -> Any:
    return _packed(_build())


def built_once(key: tuple, build: Callable[[], Any]) -> Any:
    """`build()` once per `key` on this page (a figure's id and everything it is drawn from, or a table's): a
    Plotly figure costs more to build than to copy out of the cache, and a slider move rebuilds only what moved."""
    return _unpacked(_built(lecture.current_page(), i18n.current(), key, build))


def _as_shown(
    fig: go.Figure,
    dark: bool,
    frame: Frame = Frame(),
    fill: int | None = None,
) -> tuple[go.Figure, Header]:
    """The figure as the page draws it: in the dark theme's colours, its title and badge taken out to be written
    as text, styled for the frame it is seen in (`fill`: the height of the frame to fill, see `_fill_height`).
    Theming a figure is slower than drawing it (for_dark: 0.1 s for the depth schematic), so each distinct figure
    is themed once per server and frame: a slider moved back, another student, a tab reopened reuse it."""
    spec = pio.to_json(fig, validate=False)
    if len(spec) > MEMO_MAX_CHARS:
        return _themed(fig, dark, frame, fill)
    data, header = _themed_spec(spec, dark, frame, fill, fig)
    return _trusted(data), header


@st.cache_data(show_spinner=False, max_entries=128)
def _themed_spec(spec: str, dark: bool, frame: Frame, fill: int | None, _fig: go.Figure) -> tuple[dict, Header]:
    """Keyed by the figure's spec and the frame; `_fig` is that figure (not hashed)."""
    chart, header = _themed(_fig, dark, frame, fill)
    return chart.to_dict(), header


def _themed(
    fig: go.Figure,
    dark: bool,
    frame: Frame = Frame(),
    fill: int | None = None,
) -> tuple[go.Figure, Header]:
    chart, header = split_header(for_dark(fig) if dark else fig)
    height = _fill_height(header, frame, fill) if fill or frame.fills_height else None
    try:
        return for_frame(chart, frame, height), header
    except Exception:  # noqa: BLE001 - a figure its frame's restyling did not foresee is shown as drawn
        traceback.print_exc()
        return chart, header


FILL_CHROME_PX = 44  # what a filled frame keeps besides the header and the chart: padding and the gap between


def _fill_height(header: Header, frame: Frame, fill: int | None = None) -> int:
    """The chart's height in an embed or on a projector: the frame's height (or `fill`, an iframe's height from the
    URL) less its header's rows."""
    return (fill or frame.height) - header_px(header.title, header.badge, frame, frame.width - 24) - FILL_CHROME_PX


def _filename(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60] or "figure"


def figure(fig: go.Figure, key: str, notice: str = "", slides: str | None = None) -> None:
    """Show a figure with the app's own template (theme=None) and an SVG download in the modebar.

    `key` is the figure's stable id (`figure=<id>` links show it alone); `notice` is the short "what to
    notice" text under it, labelled with `slides` (default: the page's slides). The title and evidence
    badge are written above the chart as text (they wrap on a phone, and an embed's never covers its legend);
    downloads keep them inside the figure. The chart is styled for the frame it is seen in (ui.appearance).
    """
    lecture.note_figure(key)
    alone = lecture.figure_mode()
    if alone and alone != key:
        return  # another figure was asked for: skip this one's drawing entirely
    slug = lecture.current_page()
    fig.update_layout(meta={**(fig.layout.meta or {}), "figure_id": key, "page": slug})
    shown_in = appearance.current_frame()
    fill = lecture.figure_height() if alone else None
    name = f"{slug}-{key}"
    width, height = SLIDE_SIZE
    config = {
        "displaylogo": False,
        "responsive": True,
        "toImageButtonOptions": {"format": "svg", "filename": name, "width": width, "height": height},
    }
    # the export below keeps the light original with its title and badge inside; on screen they are text above
    # the chart (text wraps, a figure's title does not), and the chart is styled for the frame it is seen in
    chart, header = _as_shown(fig, _dark(), shown_in, fill)
    st.html(header_html(header, shown_in))
    with _scroll_frame(key) if needs_width(chart) and appearance.is_page(shown_in) else contextlib.nullcontext():
        st.plotly_chart(chart, theme=None, key=key, config=config)
    if alone or lecture.controls_hidden():
        return
    if notice:
        _notice(notice, slides or page(slug).slides)
    with st.container(horizontal=True):
        _share_and_export(fig, key, name, slug)
        _data_table(fig, key)


def live_figure(fig: go.Figure, key: str) -> None:
    """A run's figure while it trains (redrawn at every poll): themed like `figure`, without the share tools, so
    the student watches the curves grow in the place where the finished run's figure will stand."""
    shown_in = appearance.current_frame()
    chart, header = _themed(fig, _dark(), shown_in)  # each poll's figure is new: nothing to reuse
    st.html(header_html(header, shown_in))
    with _scroll_frame(key) if needs_width(chart) and appearance.is_page(shown_in) else contextlib.nullcontext():
        st.plotly_chart(chart, theme=None, key=key, config={"displaylogo": False, "staticPlot": True})


@contextlib.contextmanager
def _scroll_frame(key: str) -> Iterator[None]:
    """A frame that keeps a multi-panel figure at a readable width (app.APP_CSS: at least 640 px) and scrolls it
    sideways inside itself where the column is narrower (a phone); the page itself never gets wider."""
    with st.container(key=f"scroll-{key}"), st.container(key=f"wide-{key}"):
        yield


_PLOTLY_TAGS = re.compile(r"&lt;(/?)(b|i|sup|sub|br)&gt;")  # the few tags a Plotly title may carry
_COLOR = re.compile(r"#[0-9A-Fa-f]{3,8}")


def _plotly_text(text: str) -> str:
    """A figure title or badge as HTML: everything escaped (a title may quote a student's text), then Plotly's
    own formatting tags let through."""
    return _PLOTLY_TAGS.sub(r"<\1\2>", html.escape(text, quote=True))


def header_html(header: Header, frame: Frame | None = None) -> str:
    """The figure's title and evidence badge as text above it: text wraps on a phone, a figure's title does
    not. A subtitle (`<sup>` in Plotly's title) becomes a smaller line. Sizes follow the frame (readable from a
    lecture hall's back row on a projector). Safe for st.html: all text is escaped (`_plotly_text`) and the colour
    must be a hex colour."""
    frame = frame if isinstance(frame, Frame) else Frame()
    title = (
        _plotly_text(header.title)
        .replace("<sup>", '<span style="font-size:0.75em;font-weight:400;opacity:0.8">')
        .replace("</sup>", "</span>")
    )
    color = header.color if _COLOR.fullmatch(header.color or "") else "#666666"
    badge = (
        f'<span class="figure-badge" style="display:inline-block;margin-top:0.3rem;padding:0.1rem 0.5rem;'
        f'border-radius:0.25rem;background:{color};color:white;font-size:{frame.badge_px}px;line-height:1.35">'
        f"{_plotly_text(header.badge)}</span>"
        if header.badge
        else ""
    )
    return (
        f'<div class="figure-head"><div class="figure-title" style="font-size:{frame.title_px}px;'
        f'font-weight:600;line-height:1.3">{title}</div>{badge}</div>'
    )


def _dark() -> bool:
    """Whether the app is shown in the dark theme (the browser reports it; a projector link asks for light)."""
    return appearance.browser_theme() == "dark" and not lecture.presentation()


def _notice(text: str, slides: str) -> None:
    text = re.sub(r"^(what to notice|where to look|看点)\s*[:：]\s*", "", text.strip(), flags=re.IGNORECASE)
    st.caption(common("what-to-notice", slides=slides_label(slides), text=text))


def _data_table(fig: go.Figure, key: str) -> None:
    """The numbers behind the figure as a table a keyboard can walk (the figure itself is a picture to a screen
    reader and to a student who cannot tell its colours apart); built only while its popover is open."""
    data = st.popover(common("data-table"), key=f"data-{key}", on_change="rerun")
    if not data.open:
        return
    with data:
        table = export.data_table(fig)
        st.caption(common("data-table-note", rows=len(table)))
        st.dataframe(table, hide_index=True, width="stretch")


def _share_and_export(fig: go.Figure, key: str, name: str, slug: str) -> None:
    """A popover with an embed link, an iframe snippet and downloads. Its content is built only while it is
    open: a closed popover costs a slider move one element instead of a dozen."""
    share = st.popover(common("share"), key=f"share-{key}", on_change="rerun")
    if not share.open:
        return
    with share:
        link = lecture.view_link(key, embed="true", controls="hidden")
        st.markdown(common("share-alone"))
        st.code(link, language=None, wrap_lines=True)
        st.code(
            f'<iframe src="{link}" width="960" height="600" style="border:0"></iframe>',
            language="html",
            wrap_lines=True,
        )
        st.markdown(common("share-projector"))
        st.code(
            lecture.view_link(key, embed="true", controls="hidden", presentation="true", embed_options="light_theme"),
            language=None,
            wrap_lines=True,
        )
        st.caption(common("share-downloads"))
        cols = st.columns(3)
        for col, fmt, mime in (
            (cols[0], "svg", "image/svg+xml"),
            (cols[1], "png", "image/png"),
            (cols[2], "csv", "text/csv"),
        ):
            col.download_button(
                fmt.upper(),
                data=lambda fmt=fmt: export.render(fig, fmt, slug, key),  # built on click:
                # outside this run, so the page is passed in, not read from the session
                file_name=f"{name}.{fmt}",
                mime=mime,
                key=f"download-{fmt}-{key}",
                on_click="ignore",
            )
