"""One figure, four frames: the page, a phone, an embed in a slide, a projector.

A figure function draws for the page (about 1100 px wide beside its controls). Where it is seen elsewhere the
browser reports its viewport (ui.appearance) and `for_frame` restyles a copy for that frame, without knowing
which figure it is:
- type sized from the frame (a projector's smallest tick 24 px at 1080 lines, a phone's 12 px);
- the legend in wrapping rows above the plot, never over the data nor cut at the foot;
- the title and evidence badge out of the figure (the page writes them as text above it, where they wrap);
- tight margins (Plotly's automargin still makes room for tick labels and axis titles);
- a projector's or an embed's figure as tall as the frame leaves under its header;
- on a phone, side-by-side panels stacked into one column, fewer ticks and long notes wrapped.
Exports keep the original (a slide has its own size).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from explorer.figures.theme import _WIDE, display_width, wrap_text

PAGE, PHONE, EMBED, PROJECTOR = "page", "phone", "embed", "projector"
PHONE_MAX_PX = 640  # narrower than this is a phone (a 640x360 embed is not)
PROJECTOR_TICK_PX = 24  # at 1080 lines: what the back of a lecture hall reads
CHAR_EM = 0.56  # mean width of a Latin character in em (a CJK one is two columns of `display_width`)


@dataclass(frozen=True)
class Frame:
    """Where a figure is seen: its kind and the viewport's size in CSS pixels."""

    kind: str = PAGE
    width: int = 1440
    height: int = 900

    @property
    def tick_px(self) -> int:
        """The smallest type in the figure (ticks, legend, in-cell labels)."""
        if self.kind == PROJECTOR:
            return max(12, round(PROJECTOR_TICK_PX * self.height / 1080))
        if self.kind == EMBED:
            return max(12, round(15 * min(self.width / 960, self.height / 600)))
        return 12 if self.kind == PHONE else 16

    @property
    def title_px(self) -> int:
        """The figure title's size when written above it as text."""
        return {PROJECTOR: round(self.tick_px * 1.5), EMBED: round(self.tick_px * 1.3), PHONE: 17}.get(self.kind, 19)

    @property
    def badge_px(self) -> int:
        return {PROJECTOR: self.tick_px, EMBED: max(11, round(self.tick_px * 0.85)), PHONE: 12}.get(self.kind, 13)

    @property
    def fills_height(self) -> bool:
        """A projector's and an embed's figure is the frame's picture: as tall as the frame allows."""
        return self.kind in (PROJECTOR, EMBED)


def frame_of(width: int | None, height: int | None, embedded: bool, presentation: bool) -> Frame:
    """The frame of a viewport: a presentation link is a projector whatever its size; a narrow one a phone."""
    if not width or not height:
        return Frame(PROJECTOR, 1920, 1080) if presentation else Frame(EMBED, 960, 600) if embedded else Frame()
    if presentation:
        return Frame(PROJECTOR, width, height)
    if width < PHONE_MAX_PX:
        return Frame(PHONE, width, height)
    return Frame(EMBED, width, height) if embedded else Frame(PAGE, width, height)


def parse_frame(text: str | None) -> tuple[int, int] | None:
    """`"390x844"` -> (390, 844); None for anything else (a URL parameter is untrusted)."""
    if not text or len(text) > 11 or "x" not in text:
        return None
    w, _, h = text.partition("x")
    if not (w.isascii() and w.isdigit() and h.isascii() and h.isdigit()):
        return None
    w, h = int(w), int(h)
    return (w, h) if 200 <= w <= 8000 and 150 <= h <= 8000 else None


def text_px(text: str, size: float) -> float:
    """Rough rendered width of a line of text (Plotly's own tags dropped)."""
    plain = text.replace("<b>", "").replace("</b>", "").replace("<i>", "").replace("</i>", "")
    return display_width(plain) * size * CHAR_EM


def header_px(title: str, badge: str, frame: Frame, width: int) -> int:
    """Height of the title and badge written above a figure (ui.render.header_html) at `width` px."""
    title_lines = sum(_lines(part, frame.title_px, width) for part in title.replace("<sup>", "<br>").split("<br>"))
    badge_lines = _lines(badge, frame.badge_px, width - 16) if badge else 0
    return round(title_lines * frame.title_px * 1.3 + badge_lines * frame.badge_px * 1.45 + (10 if badge else 0))


def _lines(text: str, size: float, width: float) -> int:
    return max(1, math.ceil(text_px(text, size) / max(width, 50))) if text.strip() else 0


# --- the restyling ---------------------------------------------------------------------------------------------

PANEL_GAP_PX = {PHONE: 96, EMBED: 70, PROJECTOR: 90}  # between stacked panels: a title, tick labels, axis title


def for_frame(fig: go.Figure, frame: Frame, height: int | None = None) -> go.Figure:
    """A copy of `fig` (title and badge already taken out: theme.split_header) styled for `frame`; `height` is the
    figure's height in pixels where the frame decides it (an embed or projector: what its header leaves)."""
    if frame.kind == PAGE:
        return go.Figure(fig).update_layout(height=height) if height else fig
    out = go.Figure(fig)
    width = frame.width - (24 if frame.kind == PHONE else 28)
    _undo_below_badge(out)
    stacked = frame.kind == PHONE and _stack_panels(out, frame)
    _size_type(out, frame)
    if frame.kind == PHONE:
        _fewer_ticks(out)
        _wrap_notes(out, frame, width)
        _wrap_labels(out, frame, width)
    _wrap_x_titles(out, width)
    _keep_notes_inside(out, width)
    _fit_table_columns(out, width, height)
    _wrap_panel_titles(out, width)
    top = _room_above(out, frame)
    _wrap_legend_names(out, frame, width)
    _drop_long_legend_titles(out, frame, width)
    legends = _legend_rows(out, frame, width)
    legend_px = sum(legends.values())
    if height:
        total = height
    elif stacked:
        total = stacked + top + legend_px + 70
    else:  # a phone: the plot keeps its height (at least 260 px) and the legend rows are added above it
        margin = fig.layout.margin
        plot = (fig.layout.height or 480) - (margin.t or 0) - (margin.b or 0)
        total = max(plot, 260) + top + legend_px + 70
    out.update_layout(height=max(total, 220))
    if legends:
        _legends_on_top(out, frame, legends)
    if frame.kind == PROJECTOR:
        _unsquare(out)
    if frame.fills_height and not stacked:
        _tighten_rows(out, frame, (out.layout.height or 480) - legend_px - top - 80)
        _tighten_columns(out, frame, width)
    elif frame.kind == PHONE and not stacked:
        _tighten_rows(out, frame, (out.layout.height or 480) - legend_px - top - 80, exact=True)
    _hide_crowded_cell_text(out, width)
    if frame.fills_height:
        _thin_crowded_labels(out, (out.layout.height or 480) - legend_px - top - 80, width)
    out.update_layout(
        margin=dict(l=6, r=10, t=max(8, legend_px + top + 8), b=8, pad=2),
        width=None,
        autosize=True,
        meta={**(out.layout.meta or {}), "frame": frame.kind},
    )
    return out


def _undo_below_badge(fig: go.Figure) -> None:
    """Panels squeezed under the badge's row (theme.below_badge) get the paper's top back: the badge is text
    above the chart now, and the empty band would sit between the legend and the panel titles."""
    tops = [axis.domain[1] for axis in fig.select_yaxes() if axis.domain and not axis.overlaying]
    top = max(tops, default=1.0)
    if not 0.5 < top < 0.97:
        return
    for axis in fig.select_yaxes():
        if axis.domain:
            axis.domain = [min(1.0, axis.domain[0] / top), min(1.0, axis.domain[1] / top)]
    for note in fig.layout.annotations:
        if note.yref == "paper" and note.y is not None:
            note.y = note.y / top
    for shape in fig.layout.shapes:
        if shape.yref == "paper" and shape.y0 is not None and shape.y1 is not None:
            shape.y0, shape.y1 = shape.y0 / top, shape.y1 / top


def _size_type(fig: go.Figure, frame: Frame) -> None:
    """Every text from the frame's tick size: ticks at it, axis titles a little above, notes and in-cell labels
    scaled with it (a figure's own small labels stay relatively small, never under the tick size's 80%)."""
    tick = frame.tick_px
    factor = tick / 16  # the template's tick size
    floor = tick if frame.kind == PROJECTOR else round(tick * 0.8)
    fig.update_layout(
        font=dict(size=tick), legend=dict(font=dict(size=tick)), hoverlabel=dict(font=dict(size=max(tick, 13)))
    )
    for axis in (*fig.select_xaxes(), *fig.select_yaxes()):
        own = axis.tickfont.size or 16
        axis.update(
            tickfont=dict(size=max(floor, round(own * factor))),
            automargin=True,
            title=dict(font=dict(size=round(tick * 1.08)), standoff=4),
        )
    for letter, axes in (("x", fig.select_xaxes()), ("y", fig.select_yaxes())):
        for axis in axes:
            if axis.type == "log" and not axis.tickvals and axis.dtick in (None, "D1", "D2"):
                _log_labels(fig, axis, letter, floor)
    for note in fig.layout.annotations:
        note.font.size = max(floor, round((note.font.size or 16) * factor))
    for trace in fig.data:
        font = getattr(trace, "textfont", None)
        if font is not None and (
            font.size or getattr(trace, "text", None) is not None or getattr(trace, "texttemplate", None)
        ):
            size = font.size if isinstance(font.size, (int, float)) else 14
            font.size = max(floor, round(size * factor))
        if trace.type == "table":
            for part in (trace.header, trace.cells):
                part.font.size = max(floor, round((part.font.size or 14) * factor))
                part.height = round(part.font.size * 2.0)
        bar = getattr(trace, "colorbar", None)
        if bar is not None and trace.type in ("heatmap", "contour") and trace.showscale is not False:
            bar.update(
                tickfont=dict(size=floor),
                thickness=10 if frame.kind == PHONE else round(tick * 0.9),
                title=dict(font=dict(size=floor)),
            )
        marker_bar = getattr(getattr(trace, "marker", None), "colorbar", None)
        if marker_bar is not None and getattr(trace.marker, "showscale", None):
            marker_bar.update(tickfont=dict(size=floor), title=dict(font=dict(size=floor)))


def _axis_id(axis, letter: str) -> str:
    """ "x", "x2", ... of a layout axis (its Plotly name is "xaxis", "xaxis2", ...)."""
    return letter + axis.plotly_name[5:]


def _decades(fig: go.Figure, axis, letter: str) -> float | None:
    """How many powers of ten a log axis spans: its fixed range, else its traces' positive values."""
    if axis.range and None not in axis.range:
        return abs(axis.range[1] - axis.range[0])
    values = []
    for trace in fig.data:
        if (getattr(trace, f"{letter}axis", None) or letter) == _axis_id(axis, letter):
            data = getattr(trace, letter, None)
            values += [
                float(v)
                for v in (() if data is None else data)
                if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) and v > 0
            ]
    return math.log10(max(values) / min(values)) if values else None


def _log_labels(fig: go.Figure, axis, letter: str, floor: int) -> None:
    """A log axis over two decades or more labels only its powers of ten (Plotly writes the digits between them
    at three quarters of the tick size, under the frame's smallest readable type); a shorter one keeps its
    digits, made large enough."""
    span = _decades(fig, axis, letter)
    if span is not None and span >= 2:
        axis.dtick = max(1, math.ceil(span / 9))  # powers of ten, every other one past nine decades
    else:
        axis.tickfont.size = max(axis.tickfont.size, math.ceil(floor / 0.75))


def _fewer_ticks(fig: go.Figure) -> None:
    """A phone's numeric axes get at most five ticks (their labels would collide at 12 px in 360 px)."""
    for axis in fig.select_xaxes():
        if axis.type not in ("category", "multicategory") and axis.tickmode != "array" and not axis.tickvals:
            axis.nticks = 5
    for axis in fig.select_yaxes():
        if axis.type not in ("category", "multicategory") and axis.tickmode != "array" and not axis.tickvals:
            axis.nticks = 6


def _wrap_notes(fig: go.Figure, frame: Frame, width: int) -> None:
    """A note longer than half the phone's width wraps into lines (a one-line note ran past the figure's edge)."""
    for note in fig.layout.annotations:
        text = note.text or ""
        if "<br>" in text and all(text_px(part, note.font.size or 12) < width * 0.9 for part in text.split("<br>")):
            continue
        size = note.font.size or 12
        if text_px(text.replace("<br>", " "), size) <= width * 0.5:
            continue
        chars = max(8, int(width * 0.5 / (size * CHAR_EM)))
        note.text = "<br>".join(line for part in text.split("<br>") for line in wrap_text(part, chars))


def _categories(fig: go.Figure, letter: str, axis_id: str) -> list[str]:
    """The text categories a trace puts on an axis (`letter` "x" or "y", `axis_id` "x", "x2", ...)."""
    seen: dict[str, None] = {}
    for trace in fig.data:
        if (getattr(trace, f"{letter}axis", None) or letter) != axis_id:
            continue
        values = getattr(trace, letter, None)
        if values is not None and len(values) and all(isinstance(v, str) for v in values):
            seen.update(dict.fromkeys(values))
    return list(seen)


def _wrap_labels(fig: go.Figure, frame: Frame, width: int) -> None:
    """On a phone: long category labels in lines (a y axis's may take a third of the width, an x axis's its slot),
    so they neither squeeze the plot to a strip nor run past the edge."""
    for letter, axes in (("x", fig.select_xaxes()), ("y", fig.select_yaxes())):
        for axis in axes:
            size = axis.tickfont.size or frame.tick_px
            axis_id = _axis_id(axis, letter)
            cats = _categories(fig, letter, axis_id)
            if cats and not axis.tickvals and (axis.type in (None, "category", "-")):
                room = width * 0.33 if letter == "y" else max(width * 0.9 / len(cats), 60)
                chars = max(6, int(room / (size * CHAR_EM)))
                if any(display_width(c) > chars for c in cats):
                    axis.update(
                        tickmode="array",
                        tickvals=cats,
                        ticktext=["<br>".join(wrap_text(c.replace("<br>", " "), chars)) for c in cats],
                    )


def _wrap_x_titles(fig: go.Figure, width: int) -> None:
    """An x axis title longer than its panel is wide goes onto lines (a 640 px embed cut one at both ends)."""
    for axis in fig.select_xaxes():
        title, size = axis.title.text or "", axis.title.font.size or 14
        room = width * (axis.domain[1] - axis.domain[0] if axis.domain else 1) * 0.85
        if title and any(text_px(part, size) > room for part in title.split("<br>")):
            chars = max(10, int(room / (size * CHAR_EM)))
            axis.title.text = "<br>".join(wrap_text(title.replace("<br>", " "), chars))


def _keep_notes_inside(fig: go.Figure, width: int) -> None:
    """A note anchored at a data position near the plot's edge turns its anchor inwards when its text would run
    past the figure's edge (a phone's plot is a third as wide as the page's: "extrapolation" beside a 50 px band)."""
    axes = {_axis_id(a, "x"): a for a in fig.select_xaxes()}
    for note in fig.layout.annotations:
        axis = axes.get(note.xref or "x")
        if axis is None or note.x is None or not axis.range or None in axis.range or axis.type == "category":
            continue
        if not isinstance(note.x, (int, float)) or axis.type == "date":
            continue
        lo, hi = axis.range
        plot = width * ((axis.domain[1] - axis.domain[0]) if axis.domain else 1) - 60
        at = (note.x - lo) / ((hi - lo) or 1) * plot + (note.xshift or 0)
        wide = max(text_px(part, note.font.size or 14) for part in (note.text or "").split("<br>")) + 8
        anchor = note.xanchor or "center"
        left = at - {"left": 0, "right": wide, "center": wide / 2}.get(anchor, wide / 2)
        if left < -40:
            note.xanchor, note.xshift = "left", abs(note.xshift or 0)
        elif left + wide > plot + 30:
            note.xanchor, note.xshift = "right", -abs(note.xshift or 0)


_TAGS = re.compile(r"<[^>]+>")


def _longest_word_px(values, size: float) -> float:
    """The widest piece a line cannot break inside: a Latin word or number, or one Chinese character."""
    words = [w for v in values for w in wrap_text(_TAGS.sub(" ", str(v)), 1)]
    return max((text_px(w, size) for w in words), default=0.0)


def _wrap_cells(values, px: float, size: float) -> list:
    """Chinese cell text in lines that fit `px` (Plotly breaks a table cell only at spaces, and Chinese has none);
    bold cells stay bold, Latin text is left to Plotly."""
    chars = max(2, int((px - 14) / (size * CHAR_EM)))
    out = []
    for value in values:
        text = str(value)
        bold = text.startswith("<b>") and text.endswith("</b>") and text.count("<") == 2
        plain = text[3:-4] if bold else text
        if _TAGS.search(plain) or not _WIDE.search(plain) or display_width(plain) <= chars:
            out.append(value)
            continue
        lines = wrap_text(plain, chars)
        out.append("<br>".join(f"<b>{line}</b>" if bold else line for line in lines))
    return out


def _table_px(trace, widths: list[float], cell: float, head: float) -> float:
    """Rough height of a table whose columns are `widths` px: each row as tall as its most wrapped cell."""

    def lines(text, size: float, px: float) -> int:
        return sum(
            max(1, math.ceil(text_px(part, size) / max(px - 12, 20)))
            for part in _TAGS.sub(lambda m: "\n" if m.group(0) == "<br>" else "", str(text)).split("\n")
        )

    rows = len(trace.cells.values[0]) if trace.cells.values else 0
    header = max(lines(h, head, w) for h, w in zip(trace.header.values or [""], widths)) * head * 1.35 + 10
    body = sum(
        max(lines(col[r], cell, w) for col, w in zip(trace.cells.values, widths)) * cell * 1.35 + 10
        for r in range(rows)
    )
    return header + body


def _fit_table_columns(fig: go.Figure, width: int, height: int | None = None) -> None:
    """A table's columns at least as wide as their longest word (Plotly wraps cells at spaces and cuts a word
    wider than its column: "matches" in a phone's 40 px column), the room taken from columns with some to spare;
    where all of it is not enough, the table's type is made smaller (down to 75%)."""
    for trace in fig.data:
        if trace.type != "table" or trace.cells.values is None:
            continue
        columns = list(zip(trace.header.values or [""] * len(trace.cells.values), trace.cells.values))
        n = len(columns)
        weights = list(trace.columnwidth) if isinstance(trace.columnwidth, (list, tuple)) else [1.0] * n
        weights = (weights + [1.0] * n)[:n]
        room = width * ((trace.domain.x[1] - trace.domain.x[0]) if trace.domain and trace.domain.x else 1) - 8
        cell, head = trace.cells.font.size or 14, trace.header.font.size or 14
        for shrink in (1.0, 0.9, 0.8, 0.75):
            need = [
                max(_longest_word_px(vals, cell * shrink), _longest_word_px([h], head * shrink)) + 18
                for h, vals in columns
            ]
            if sum(need) <= room:
                break
        if shrink < 1.0:
            trace.cells.font.size, trace.header.font.size = round(cell * shrink), round(head * shrink)
        have = [room * w / sum(weights) for w in weights]
        short = sum(max(0.0, nd - hv) for nd, hv in zip(need, have))
        if short > 0:
            spare = [max(0.0, hv - nd) for nd, hv in zip(need, have)]
            take = min(1.0, short / max(sum(spare), 1e-9))
            have = [max(nd, hv - sp * take) for nd, hv, sp in zip(need, have, spare)]
            trace.columnwidth = have
        trace.cells.values = [
            _wrap_cells(col, px, trace.cells.font.size or 14) for col, px in zip(trace.cells.values, have)
        ]
        trace.header.values = [
            _wrap_cells([h], px, trace.header.font.size or 14)[0] for h, px in zip(trace.header.values or [], have)
        ] or trace.header.values
        if height:  # a frame's fixed height: smaller type until the rows fit it (Plotly scrolls a taller table)
            cell, head = trace.cells.font.size or 14, trace.header.font.size or 14
            for _ in range(6):
                if _table_px(trace, have, cell, head) <= height - 16 or cell <= 9:
                    break
                cell, head = cell - 1, head - 1
            trace.cells.update(font=dict(size=cell), height=round(cell * 1.35 + 10))
            trace.header.update(font=dict(size=head), height=round(head * 1.35 + 10))


def _wrap_panel_titles(fig: go.Figure, width: int) -> None:
    """A title over a panel wider than the panel goes onto lines (the last of three panels ran past the edge)."""
    domains = [tuple(a.domain) for a in fig.select_xaxes() if a.domain and not a.overlaying]
    for note in fig.layout.annotations:
        if note.xref != "paper" or note.yref != "paper" or note.y is None or note.y < 0.97 or note.x is None:
            continue
        inside = [d for d in domains if d[0] - 0.01 <= note.x <= d[1] + 0.01]
        room = width * min((d[1] - d[0] for d in inside), default=1.0) * 0.95
        size = note.font.size or 14
        if any(text_px(part, size) > room for part in (note.text or "").split("<br>")):
            chars = max(8, int(room / (size * CHAR_EM)))
            note.text = "<br>".join(line for part in note.text.split("<br>") for line in wrap_text(part, chars))


def _room_above(fig: go.Figure, frame: Frame) -> int:
    """Pixels above the plot that paper-anchored texts at its top (panel titles, notes over the plot) need."""
    need = 0
    for note in fig.layout.annotations:
        if note.yref != "paper" or note.y is None or note.y < 0.97:
            continue
        lines = (note.text or "").count("<br>") + 1
        need = max(need, round(lines * (note.font.size or 16) * 1.3 + (note.yshift or 0) + 4))
    return need


def _legend_names(fig: go.Figure) -> list[str]:
    """The figure's legends ("legend", "legend2", ...), in the order they are defined."""
    names = {"legend"} | {t.legend for t in fig.data if getattr(t, "legend", None)}
    return sorted(names, key=lambda n: int(n[6:] or 1))


NO_LEGEND_BY_DEFAULT = {"heatmap", "histogram2d", "histogram2dcontour", "contour", "table", "image", "indicator"}


def _in_legend(trace) -> bool:
    """Whether Plotly lists `trace` in a legend: heatmaps and their kin only when asked to (a projector reserved
    100 px of rows above four heatmaps for legend entries Plotly never draws)."""
    if trace.type in NO_LEGEND_BY_DEFAULT:
        return getattr(trace, "showlegend", None) is True
    return getattr(trace, "showlegend", False) is not False


def _legend_entries(fig: go.Figure, legend: str = "legend") -> list[str]:
    """The entry names a legend shows (one per legend group), as Plotly decides whether to show them."""
    shown, groups = [], set()
    visible = [t for t in fig.data if _in_legend(t) and getattr(t, "name", None) and t.visible is not False]
    if fig.layout.showlegend is False or (
        len(fig.data) == 1 and fig.layout.showlegend is not True and visible and visible[0].showlegend is not True
    ):
        return []
    for trace in visible:
        if (getattr(trace, "legend", None) or "legend") != legend:
            continue
        if trace.legendgroup and trace.legendgroup in groups:
            continue
        groups.add(trace.legendgroup)
        shown.append(trace.name)
    return shown


def _wrap_legend_names(fig: go.Figure, frame: Frame, width: int) -> None:
    """A legend entry wider than the figure goes onto lines (Plotly cuts it at the edge)."""
    room = width - 60
    for trace in fig.data:
        name = getattr(trace, "name", None)
        if not name or not _in_legend(trace):
            continue
        name = trace.name = name.replace("<br>", " ")  # lines made for a side legend: the rows above wrap anew
        if text_px(name, frame.tick_px) > room:
            chars = max(12, int(room / (frame.tick_px * CHAR_EM)))
            trace.name = "<br>".join(wrap_text(name, chars))


def _legend_rows(fig: go.Figure, frame: Frame, width: int) -> dict[str, int]:
    """Each shown legend's height in px when laid out in wrapping rows across `width` px."""
    size = frame.tick_px
    heights = {}
    for name in _legend_names(fig):
        entries = _legend_entries(fig, name)
        if not entries:
            continue
        legend = fig.layout.to_plotly_json().get(name) or {}  # a "legend2" Plotly has not met yet is no attribute
        title = (legend.get("title") or {}).get("text") or ""
        side = (legend.get("title") or {}).get("side") or ""
        rows = 0 if not title or side.startswith("left") else 1  # a title on top is a row of its own
        used = text_px(title, size) + 10 if title and side.startswith("left") else 0.0
        row_lines = 1  # a row is as tall as its tallest entry
        for entry in entries:
            lines = entry.split("<br>")
            item = 48 + 1.05 * max(text_px(line, size) for line in lines)  # symbol, gap and Plotly's wider type
            if used and used + item > width * 0.8:  # Plotly wraps at about the plot's width, not the figure's
                rows, used, row_lines = rows + row_lines, 0.0, 1
            used += item
            row_lines = max(row_lines, len(lines))
        heights[name] = round((rows + row_lines) * legend_row_px(size) + 4)
    return heights


def legend_row_px(size: float) -> float:
    """A horizontal legend row's height as Plotly draws it (measured: 27 px at 12 px type, 44 px at 24 px; a
    line-and-marker entry a little more), with a few pixels of air."""
    return size * 1.45 + 12


def _drop_long_legend_titles(fig: go.Figure, frame: Frame, width: int) -> None:
    """A legend title wider than an eighth of the figure goes: in rows across the top, Plotly starts every row
    of entries after the title's width, so a long one pushes entries past the edge (a phone cut them). The
    entries name themselves; a short title such as "width" stays."""
    for name in _legend_names(fig):
        title = ((fig.layout.to_plotly_json().get(name) or {}).get("title") or {}).get("text") or ""
        if title and text_px(title, frame.tick_px) > width / 8:
            fig.update_layout({name: dict(title=dict(text=""))})


def _title_side(fig: go.Figure, name: str) -> str:
    """A legend title keeps the side its figure gave it ("left" for a one-row key such as "technology:"); any
    other title goes on a row of its own above the entries (as `_legend_rows` counts it), never beside entries
    that would then be squeezed into the rest of the width and cut."""
    side = ((fig.layout.to_plotly_json().get(name) or {}).get("title") or {}).get("side") or ""
    return side if side.startswith("left") else "top left"


def _legends_on_top(fig: go.Figure, frame: Frame, heights: dict[str, int]) -> None:
    """The legends in rows at the top of the figure, the first legend first, across its whole width: Plotly
    reserves the top margin they take (container-anchored), so none is cut or lies on the data; the caller's top
    margin adds the room that panel titles and notes over the plot need below them (Plotly takes the larger of the
    two, it does not add them)."""
    total = fig.layout.height or 480
    offset = 0
    for name, px in heights.items():
        fig.update_layout(
            {
                name: dict(
                    orientation="h",
                    x=0,
                    xanchor="left",
                    y=1 - offset / total,
                    yanchor="top",
                    yref="container",
                    xref="container",
                    bgcolor="rgba(0,0,0,0)",
                    borderwidth=0,
                    font=dict(size=frame.tick_px),
                    title=dict(font=dict(size=frame.tick_px), side=_title_side(fig, name)),
                )
            }
        )
        offset += px


def _stack_panels(fig: go.Figure, frame: Frame) -> int:
    """Side-by-side panels stacked in one column, in reading order (rows, then columns); the plot height they
    need in px, or 0 where there is one column already. Panel titles and paper notes move with their panel."""
    panels = []
    for xaxis in fig.select_xaxes():
        if xaxis.overlaying or not xaxis.domain or not xaxis.anchor or xaxis.anchor == "free":
            continue
        yname = "yaxis" + xaxis.anchor[1:]
        yaxis = fig.layout[yname] if yname in fig.layout else None
        if yaxis is None or not yaxis.domain:
            continue
        panels.append((tuple(xaxis.domain), tuple(yaxis.domain), xaxis, yaxis))
    if len({round(p[0][0], 3) for p in panels}) < 2:
        return 0
    panels.sort(key=lambda p: (-round(p[1][1], 3), p[0][0]))
    n = len(panels)
    square = any(p[3].scaleanchor for p in panels)
    panel_px = min(frame.width - 40, 330) if square else 240
    gap = PANEL_GAP_PX[frame.kind]
    total = n * panel_px + (n - 1) * gap
    boxes = []
    for k, (xd, yd, xaxis, yaxis) in enumerate(panels):
        top = 1 - k * (panel_px + gap) / total
        bottom = top - panel_px / total
        boxes.append((xd, yd, (round(bottom, 5), round(top, 5))))
        xaxis.domain = [0, 1]
        yaxis.domain = [max(0.0, round(bottom, 5)), min(1.0, round(top, 5))]
        if yaxis.scaleanchor:
            yaxis.constrain = "domain"
    for note in fig.layout.annotations:
        if note.xref == "paper" and note.yref == "paper" and note.x is not None and note.y is not None:
            _move(note, boxes)
    for shape in fig.layout.shapes:
        if shape.xref == "paper" and shape.yref == "paper" and None not in (shape.x0, shape.y0):
            _move_shape(shape, boxes)
    for trace in fig.data:  # each colour bar beside its own panel
        bar = getattr(trace, "colorbar", None)
        if bar is not None and trace.type in ("heatmap", "contour") and trace.showscale is not False:
            yname = "yaxis" + (trace.yaxis or "y")[1:]
            domain = fig.layout[yname].domain if yname in fig.layout else None
            if domain:
                bar.update(
                    y=(domain[0] + domain[1]) / 2,
                    yanchor="middle",
                    len=domain[1] - domain[0],
                    lenmode="fraction",
                    x=1.01,
                    xanchor="left",
                )
    return total


def _unsquare(fig: go.Figure) -> None:
    """A projector's heatmaps let go of square cells: three square panels in a row fill about a third of a 16:9
    screen, and a grid of masks or attention weights reads the same with cells taller than wide."""
    for axis in fig.select_yaxes():
        if axis.scaleanchor:
            axis.scaleanchor = None


def _tighten_rows(fig: go.Figure, frame: Frame, plot_px: int, exact: bool = False) -> None:
    """Rows of panels keep gaps of at most a panel title, tick labels and an axis title between them: a grid's
    gaps are fractions of its height, which a projector's frame makes 150 px tall; the rows get the rest.
    `exact` (a phone): every gap becomes that size, larger where the panel titles wrapped onto more lines."""
    rows = sorted(
        {tuple(round(v, 5) for v in axis.domain) for axis in fig.select_yaxes() if axis.domain and not axis.overlaying},
        key=lambda d: -d[1],
    )
    if len(rows) < 2 or any(a[0] < b[1] for a, b in zip(rows, rows[1:])):  # one row, or rows that overlap
        return
    title_lines = max(
        (
            (n.text or "").count("<br>") + 1
            for n in fig.layout.annotations
            if n.yref == "paper" and n.yanchor == "bottom"
        ),
        default=1,
    )
    cap = (frame.tick_px * (3.0 + 1.3 * title_lines) + 16) / max(plot_px, 100)
    gaps = [a[0] - b[1] for a, b in zip(rows, rows[1:])]
    if all(g <= cap for g in gaps) and not exact:
        return
    new_gaps = [cap if exact else min(g, cap) for g in gaps]
    spare = sum(gaps) - sum(new_gaps)
    heights = [d[1] - d[0] for d in rows]
    grow = max(0.3, 1 + spare / sum(heights))
    top, new = rows[0][1], {}
    for k, row in enumerate(rows):
        bottom = top - heights[k] * grow
        new[row] = (round(bottom, 5), round(top, 5))
        top = bottom - (new_gaps[k] if k < len(new_gaps) else 0)
    boxes = []
    for xaxis in fig.select_xaxes():
        yname = "yaxis" + (xaxis.anchor or "y")[1:]
        yaxis = fig.layout[yname] if yname in fig.layout else None
        if yaxis is not None and yaxis.domain and xaxis.domain:
            old = tuple(round(v, 5) for v in yaxis.domain)
            if old in new:
                boxes.append((tuple(xaxis.domain), old, new[old]))
    for axis in fig.select_yaxes():
        old = tuple(round(v, 5) for v in axis.domain) if axis.domain else None
        if old in new:
            axis.domain = list(new[old])
    for note in fig.layout.annotations:
        if note.xref == "paper" and note.yref == "paper" and note.x is not None and note.y is not None:
            box = _box_of(note.x, note.y, boxes)
            if box is not None:
                note.y = _mapped(note.x, note.y, box)[1]


def _tighten_columns(fig: go.Figure, frame: Frame, width: int) -> None:
    """Side-by-side panels keep gaps of at most their neighbour's tick labels and a little air: a grid's gaps are
    fractions of its width, 200 px on a projector, which squares (heatmaps) take from their size."""
    columns = sorted(
        {tuple(round(v, 5) for v in axis.domain) for axis in fig.select_xaxes() if axis.domain and not axis.overlaying}
    )
    if len(columns) < 2 or any(a[1] > b[0] for a, b in zip(columns, columns[1:])):
        return
    cap = (frame.tick_px * 4.5 + 24) / max(width, 200)
    gaps = [b[0] - a[1] for a, b in zip(columns, columns[1:])]
    if all(g <= cap for g in gaps):
        return
    new_gaps = [min(g, cap) for g in gaps]
    widths = [c[1] - c[0] for c in columns]
    grow = 1 + (sum(gaps) - sum(new_gaps)) / sum(widths)
    left, new = columns[0][0], {}
    for k, col in enumerate(columns):
        right = left + widths[k] * grow
        new[col] = (round(left, 5), round(min(right, 1.0), 5))
        left = right + (new_gaps[k] if k < len(new_gaps) else 0)
    boxes = []
    for xaxis in fig.select_xaxes():
        old = tuple(round(v, 5) for v in xaxis.domain) if xaxis.domain else None
        yname = "yaxis" + (xaxis.anchor or "y")[1:]
        yaxis = fig.layout[yname] if yname in fig.layout else None
        if old in new and yaxis is not None and yaxis.domain:
            boxes.append((old, tuple(yaxis.domain), new[old]))
            xaxis.domain = list(new[old])
    for note in fig.layout.annotations:
        if note.xref == "paper" and note.yref == "paper" and note.x is not None and note.y is not None:
            box = _box_of(note.x, note.y, [(xd, yd, yd) for xd, yd, _ in boxes])
            if box is not None:
                (x0, x1), (n0, n1) = box[0], next(b[2] for b in boxes if b[0] == box[0])
                note.x = n0 + (note.x - x0) / max(x1 - x0, 1e-9) * (n1 - n0)


def _columns_of(z) -> int:
    """Columns of a heatmap's z: a list of rows, an array, or Plotly's packed form ({"bdata", "shape": "r, c"})."""
    if z is None:
        return 0
    if isinstance(z, dict):
        shape = str(z.get("shape") or "")
        return int(shape.split(",")[-1]) if shape.replace(",", "").replace(" ", "").isdigit() else 0
    rows = list(z)
    return len(rows[0]) if rows and hasattr(rows[0], "__len__") and not isinstance(rows[0], str) else len(rows)


def _thin_crowded_labels(fig: go.Figure, plot_px: int, width: int) -> None:
    """An axis that names every row or column (a sentence's characters) keeps every k-th name where they are
    closer than the frame's type: 16 characters at 24 px in a 330 px panel overlap into one black column.
    A heatmap held square gets the smaller of its two cell sizes on both axes."""
    rooms = {"y": plot_px, "x": width - 60}

    def cell(axis, letter: str) -> float:
        domain = axis.domain or (0, 1)
        return rooms[letter] * (domain[1] - domain[0]) / max(len(axis.tickvals), 1)

    named = {
        (letter, _axis_id(axis, letter)): axis
        for letter in "yx"
        for axis in (fig.select_yaxes() if letter == "y" else fig.select_xaxes())
        if axis.tickvals is not None and axis.ticktext is not None and len(axis.tickvals) > 1
    }
    cells = {key: cell(axis, key[0]) for key, axis in named.items()}
    for (letter, name), axis in named.items():
        if letter == "y" and axis.scaleanchor and ("x", axis.scaleanchor) in cells:
            both = min(cells[("y", name)], cells[("x", axis.scaleanchor)])
            cells[("y", name)] = cells[("x", axis.scaleanchor)] = both
    for (letter, name), axis in named.items():
        size = axis.tickfont.size or 12
        need = size * 1.15 if letter == "y" else max(text_px(str(n), size) for n in axis.ticktext) + size * 0.4
        step = math.ceil(need / max(cells[(letter, name)], 1))
        if step > 1:
            axis.tickvals, axis.ticktext = list(axis.tickvals)[::step], list(axis.ticktext)[::step]


def _hide_crowded_cell_text(fig: go.Figure, width: int) -> None:
    """A heatmap's in-cell numbers are dropped where a cell is narrower than its number (16 cells on a phone:
    "151%" over three cells); hovering still shows them."""
    for trace in fig.data:
        columns = _columns_of(trace.z) if trace.type == "heatmap" else 0
        if not columns:
            continue
        xname = "xaxis" + (trace.xaxis or "x")[1:]
        domain = fig.layout[xname].domain if xname in fig.layout and fig.layout[xname].domain else (0, 1)
        cell = (width - 60) * (domain[1] - domain[0]) / columns
        texts = [str(v) for row in (trace.text if trace.text is not None else []) for v in row]
        size = trace.textfont.size or 12
        longest = max((text_px(t, size) for t in texts), default=text_px("100%", size))
        if (trace.texttemplate or trace.text is not None) and longest + 4 > cell:
            trace.texttemplate = ""
            trace.text = None


def _box_of(x: float, y: float, boxes) -> tuple | None:
    """The old panel a paper point belongs to: inside it, or just above it (its title)."""
    best = None
    for xd, yd, new in boxes:
        if xd[0] - 0.02 <= x <= xd[1] + 0.02 and yd[0] - 0.02 <= y <= yd[1] + 0.12:
            if best is None or abs(y - yd[1]) < abs(y - best[1][1]):
                best = (xd, yd, new)
    return best


def _mapped(x: float, y: float, box) -> tuple[float, float]:
    xd, yd, (bottom, top) = box
    nx = (x - xd[0]) / max(xd[1] - xd[0], 1e-9)
    ny = bottom + (y - yd[0]) / max(yd[1] - yd[0], 1e-9) * (top - bottom)
    return nx, ny


def _move(note, boxes) -> None:
    box = _box_of(note.x, note.y, boxes)
    if box is not None:
        note.x, note.y = _mapped(note.x, note.y, box)


def _move_shape(shape, boxes) -> None:
    box = _box_of((shape.x0 + shape.x1) / 2, (shape.y0 + shape.y1) / 2, boxes)
    if box is not None:
        (shape.x0, shape.y0), (shape.x1, shape.y1) = _mapped(shape.x0, shape.y0, box), _mapped(shape.x1, shape.y1, box)
