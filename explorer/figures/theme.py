"""One Plotly template and one colour per concept for the whole app, its tests and its slide export.

Colours are Okabe-Ito (safe for the common colour-vision deficiencies); a concept keeps its colour on
every page. Sizes read on a projector: a 1600x900 export keeps titles and ticks legible.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

import plotly.graph_objects as go
import plotly.io as pio

from explorer.content import unbreak
from explorer.evidence import Evidence, Kind
from explorer.figures.readability import make_readable, on_markers, readable_text, rgb_of

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

CONCEPT_COLORS = {
    "causal": "#0072B2",
    "bidirectional": "#E69F00",
    "cross": "#009E73",
    "joint": "#CC79A7",
    "reused": "#56B4E9",
    "recomputed": "#D55E00",
    "blocked": "#EEEEEE",
    "data": "#000000",
    "fit": "#555555",
}

# a badge is white text on its kind's colour: each colour reaches WCAG's 4.5:1 against white (measured green,
# fit orange, formula pink and schematic grey are the palette's, a shade deeper)
EVIDENCE_COLORS = {
    Kind.MEASURED: "#007E5C",
    Kind.SIMULATION: "#8C510A",
    Kind.BY_CONSTRUCTION: "#332288",
    Kind.HISTORICAL: "#0072B2",
    Kind.FIT: "#C05500",
    Kind.EXTRAPOLATION: "#B2182B",
    Kind.FORMULA: "#A36186",
    Kind.SCHEMATIC: "#6B6B6B",
    Kind.CLASS_ANSWERS: "#6A3D9A",
}

SLIDE_SIZE = (1600, 900)  # 16:9 export size in pixels
SEQUENTIAL = "Viridis"  # attention weights and other magnitudes: perceptually uniform, colour-blind safe

# Latin text from the first three; Chinese text falls through to a CJK font (Debian's Noto CJK, which the PNG and
# SVG export finds offline; a student's own system font on macOS or Windows)
FONT_FAMILY = (
    "Inter, Helvetica, Arial, 'Noto Sans CJK SC', 'Noto Sans SC', 'PingFang SC', 'Microsoft YaHei', sans-serif"
)
TEMPLATE_NAME = "explorer"
pio.templates[TEMPLATE_NAME] = go.layout.Template(
    layout=go.Layout(
        font=dict(family=FONT_FAMILY, size=16, color="#222222"),
        title=dict(font=dict(size=22), x=0.0, xanchor="left"),
        colorway=OKABE_ITO,
        paper_bgcolor="white",
        plot_bgcolor="white",
        # automargin: an axis's tick labels and title push the margin out instead of being cut at the edge
        xaxis=dict(
            showgrid=True,
            gridcolor="#E5E5E5",
            zeroline=False,
            linecolor="#888888",
            ticks="outside",
            automargin=True,
            title=dict(font=dict(size=18), standoff=10),
        ),
        yaxis=dict(
            showgrid=True,
            gridcolor="#E5E5E5",
            zeroline=False,
            linecolor="#888888",
            ticks="outside",
            automargin=True,
            title=dict(font=dict(size=18), standoff=8),
        ),
        legend=dict(bgcolor="rgba(255,255,255,0.8)", font=dict(size=15)),
        hoverlabel=dict(font=dict(size=15)),
        margin=dict(l=70, r=30, t=90, b=70),
    )
)


# a legend at the figure's foot, in one wrapping row: clear of the data and of slanted tick labels however long
FOOT_LEGEND = dict(orientation="h", x=0, y=0, xanchor="left", yanchor="bottom", yref="container")
TOP_MARGIN = 110  # the title's row, then the evidence badge's row, then the plot
BADGE_CHARS = 84  # characters per badge line: fits the plot of a full-width figure with a legend beside it
BADGE_LINE_PX = 19  # each further badge line moves the plot down this far


def styled(
    fig: go.Figure, title: str, evidence: Evidence, height: int = 480, badge_chars: int = BADGE_CHARS
) -> go.Figure:
    """Apply the template, a title and the evidence badge; every figure function ends with this.

    The title sits on the top row and the badge on its own row just above the plot, so a long title
    never runs into the badge. A figure drawn in half a page's width passes a smaller `badge_chars`.
    """
    margin_top = max(TOP_MARGIN, fig.layout.margin.t or 0)
    fig.update_layout(
        template=TEMPLATE_NAME,
        height=height,
        margin=dict(t=margin_top),
        title=dict(text=title, yref="container", y=1.0, yanchor="top", pad=dict(t=14, l=12)),
    )
    for axis in fig.select_yaxes():
        if axis.title.text:
            axis.title.text = wrap_axis_title(axis.title.text)
    return stamp_evidence(make_readable(fig), evidence, badge_chars)


AXIS_TITLE_CHARS = 24  # a longer y-axis title is cut above and below a short plot (a phone, a panel of a grid)


_WIDE = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")  # CJK characters and full-width punctuation
_PIECES = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+|\s+")


_NO_LINE_START = set("，。、；：？！）》」』】·")  # Chinese typography: these close a line, never open one


def display_width(text: str) -> int:
    """Columns the text takes: a Chinese character is as wide as two Latin ones."""
    return len(text) + len(_WIDE.findall(text))


def wrap_text(text: str, width: int) -> list[str]:
    """Lines of at most about `width` columns. English breaks at spaces (textwrap, words never split); Chinese,
    which has no spaces, may break after any of its characters, never inside a Latin word or number."""
    if not _WIDE.search(text):
        return textwrap.wrap(text, width=width, break_long_words=False, break_on_hyphens=False) or [""]
    lines, line = [], ""
    for piece in _PIECES.findall(text):
        if piece.isspace():
            line += " " if line else ""
            continue
        if line and display_width(line + piece) > width and piece not in _NO_LINE_START:
            lines.append(line.rstrip())
            line = ""
        line += piece
    return [*lines, line.rstrip()] if line.strip() else lines or [""]


def wrap_axis_title(text: str, chars: int = AXIS_TITLE_CHARS) -> str:
    """A long axis title on two lines, split at the space nearest its middle (in Chinese, the character
    boundary nearest it); short or already broken ones as they are. A y-axis title runs along the plot's
    height, which a legend under it or a phone shrinks."""
    if display_width(text) <= chars or "<br>" in text:
        return text
    if _WIDE.search(text):
        lines = wrap_text(text, (display_width(text) + 1) // 2 + 1)
        return "<br>".join(lines[:1] + ["".join(lines[1:])]) if len(lines) > 1 else text
    if " " not in text:
        return text
    spaces = [i for i, c in enumerate(text) if c == " "]
    cut = min(spaces, key=lambda i: abs(i - len(text) / 2))
    return f"{text[:cut]}<br>{text[cut + 1 :]}"


def badge_lines(evidence: Evidence, chars: int = BADGE_CHARS) -> list[str]:
    """The badge's text in lines of about `chars` characters, the kind in bold on the first.

    The badge is anchored at the plot's right edge; one long line would run past the figure's left edge
    and be cut off (seen on narrow and legend-heavy figures), so it wraps at spaces instead.
    """
    kind = evidence.title.upper()
    text = kind + (f" · {evidence.detail}" if evidence.detail else "")
    lines = wrap_text(text, max(chars, display_width(kind) + 2))
    lines[0] = lines[0].replace(kind, f"<b>{kind}</b>", 1)
    return lines


def stamp_evidence(fig: go.Figure, evidence: Evidence, badge_chars: int = BADGE_CHARS) -> go.Figure:
    """Write the evidence kinds into the figure itself, so exported slides keep them."""
    lines = badge_lines(evidence, badge_chars)
    fig.add_annotation(
        text="<br>".join(lines),
        align="left",
        xref="paper",
        yref="paper",
        x=1.0,
        y=1.0,
        yshift=6,
        xanchor="right",
        yanchor="bottom",
        showarrow=False,
        font=dict(size=13, color="white"),
        bgcolor=EVIDENCE_COLORS[evidence.kind],
        borderpad=4,
        name="evidence",
    )
    fig.update_layout(
        margin=dict(t=(fig.layout.margin.t or TOP_MARGIN) + BADGE_LINE_PX * (len(lines) - 1)),
        meta={
            **(fig.layout.meta or {}),
            "evidence": evidence.kind.value,
            "evidence_kinds": [k.value for k in evidence.kinds],
            "evidence_detail": evidence.detail,
        },
    )
    return fig


@dataclass(frozen=True)
class Header:
    """A figure's title and evidence badge, for a page that writes them as text above the chart."""

    title: str
    badge: str  # the badge's text, Plotly's small HTML subset (the kind in bold)
    color: str  # the badge's colour: the evidence kind's


HEADER_KEEP_PX = 28  # the top margin a chart keeps once its title and badge sit above it as text


def split_header(fig: go.Figure) -> tuple[go.Figure, Header]:
    """A copy of `fig` without its title and evidence badge, and the two as text.

    In a browser, text wraps: on a 390 px phone a figure's one-line title and right-anchored badge run past
    its edges and are cut. Exports keep the figure whole (a slide has no page around it). The title stays in
    the copy's `meta` so a page's figure still says what it shows. The copy is shorter by the rows it gives up,
    so its plot keeps the size it has in the export.
    """
    out = go.Figure(fig)
    badge = next((a for a in out.layout.annotations if a.name == "evidence"), None)
    lines = badge.text.count("<br>") + 1 if badge else 1
    freed = TOP_MARGIN - HEADER_KEEP_PX + BADGE_LINE_PX * (lines - 1)
    title = out.layout.title.text or ""
    out.layout.annotations = [a for a in out.layout.annotations if a.name != "evidence"]
    top = out.layout.margin.t or TOP_MARGIN
    freed = min(freed, top - HEADER_KEEP_PX)
    out.update_layout(
        title_text="",
        margin=dict(t=top - freed),
        height=(out.layout.height or 480) - freed,
        meta={**(out.layout.meta or {}), "title": title},
    )  # the plot keeps its size; the text takes
    # the rows the figure gives up
    header = Header(title, unbreak(badge.text) if badge else "", badge.bgcolor if badge else "")
    return out, header


def keep_width(fig: go.Figure) -> go.Figure:
    """Mark a figure whose panel titles or axis titles need more than a phone's width (see `needs_width`)."""
    fig.update_layout(meta={**(fig.layout.meta or {}), "keep_width": True})
    return fig


def needs_width(fig: go.Figure) -> bool:
    """Whether a phone should scroll the figure sideways rather than squeeze it: two or more panels side by side
    (distinct x domains) overlap their titles and tick labels in a 358 px column, as do figures marked with
    `keep_width`."""
    columns = {round(axis.domain[0], 3) for axis in fig.select_xaxes() if axis.domain}
    return len(columns) >= 2 or bool((fig.layout.meta or {}).get("keep_width"))


def below_badge(fig: go.Figure, top: float = 0.88) -> None:
    """Squeeze a subplot grid under `top` (paper) so its panel titles sit below the evidence badge, not under it.

    Call it before adding other paper-anchored annotations: every one present is moved with the panels.
    """
    for axis in fig.select_yaxes():
        lo, hi = axis.domain
        axis.domain = [lo * top, hi * top]
    for a in fig.layout.annotations:
        if a.yref == "paper":
            a.y = a.y * top


DARK = {"paper": "#0E1117", "text": "#FAFAFA", "grid": "#2E3440", "line": "#8A8F98"}  # Streamlit's dark theme


def for_dark(fig: go.Figure) -> go.Figure:
    """A copy for the app's dark theme: dark panels, light type and grid. Exports keep the light original
    (a slide is printed on white), so this is applied only where the figure is shown."""
    out = go.Figure(fig)
    out.update_layout(
        paper_bgcolor=DARK["paper"],
        plot_bgcolor=DARK["paper"],
        font=dict(color=DARK["text"]),
        legend=dict(bgcolor="rgba(14,17,23,0.8)"),
    )
    out.update_xaxes(gridcolor=DARK["grid"], linecolor=DARK["line"])
    out.update_yaxes(gridcolor=DARK["grid"], linecolor=DARK["line"])
    for shape in out.layout.shapes:  # light panels (a fit window, a highlighted band) become faint veils
        if _is_light(shape.fillcolor):
            shape.fillcolor = "rgba(255,255,255,0.07)"
        shape.line.color = _lifted(shape.line.color)
    for trace in out.data:  # black "data" and "mean" marks, dark grey fits: light greys on the dark panel
        for path in _TRACE_COLORS:
            if path == ("textfont", "color") and trace.type == "scatter" and on_markers(trace):
                continue  # a label on its marker was chosen for the marker's colour, which stays
            part = trace
            for name in path[:-1]:
                part = getattr(part, name, None)
                if part is None:
                    break
            else:
                if getattr(part, path[-1], None) is not None:
                    setattr(part, path[-1], _lifted(getattr(part, path[-1])))
    for note in out.layout.annotations:
        note.font.color = _lifted(note.font.color)
        if _is_light(note.bgcolor):  # a white label box would hide its now light text: the panel shows through
            note.bgcolor = "rgba(14,17,23,0.8)"
        if note.showarrow is not False:  # Plotly's default arrow is dark grey
            note.arrowcolor = _lifted(note.arrowcolor or "#444444")
    return readable_text(out)  # coloured notes and labels a shade paler, where the dark panel needs it


_TRACE_COLORS = (
    ("marker", "color"),
    ("marker", "line", "color"),
    ("line", "color"),
    ("error_y", "color"),
    ("error_x", "color"),
    ("textfont", "color"),
)


def _rgb(color: object) -> tuple[int, int, int] | None:
    """A colour written as #RRGGBB, as the palette writes them (rgb() and names are left alone)."""
    return rgb_of(color) if isinstance(color, str) and color.startswith("#") else None


def _is_light(color: str | None) -> bool:
    """A colour close to white: #F2F2F2, "white", or rgb()/rgba() such as a label box's rgba(255,255,255,0.85)."""
    rgb = rgb_of(color)
    return rgb is not None and min(rgb) >= 0xD8


def _lifted(color):
    """A near-black grey (the template's data and mean marks, #000000 to #666666) mirrored to its light
    counterpart, so it reads on the dark panel; colours, light greys and lists of them otherwise kept."""
    if isinstance(color, (list, tuple)):
        return [_lifted(c) for c in color]
    rgb = _rgb(color)
    if rgb is None or max(rgb) > 0x66 or max(rgb) - min(rgb) > 0x10:
        return color
    return "#" + "".join(f"{0xFA - c * 0xFA // 0xFF:02X}" for c in rgb)
