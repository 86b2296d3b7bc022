"""Can everyone read a figure? Two checks that every figure of every page passes (the page tests run them over
all of them, light and dark), and the colour arithmetic they and the dark theme share.

- Text contrast: every piece of text against what it sits on reaches WCAG 2.2's 4.5:1 (3:1 for large text).
- Not colour alone: wherever colour tells things apart, something else does too. Two legend entries never differ
  in colour only (a marker symbol, a dash or a bar pattern differs as well), and every category of a category
  heatmap is named on the plot itself, unless the entry is labelled there directly.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
import plotly.graph_objects as go
from scipy import ndimage

TEXT_CONTRAST = 4.5  # WCAG's minimum for normal text against its background
LARGE_TEXT_CONTRAST = 3.0  # and for large text
LARGE_TEXT_PX = 24  # WCAG's "large": 18 pt
MID_GREY = 0.179  # the luminance where black and white text contrast equally: above it a ground is light

_RGB_FUNCTION = re.compile(r"rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+)\s*)?\)")
_NAMED = {"white": (255, 255, 255), "black": (0, 0, 0)}


def rgba_of(color: object) -> tuple[tuple[int, int, int], float] | None:
    """(r, g, b) and alpha of a CSS colour as figures write them (#RRGGBB, rgb(), rgba(), white, black);
    None for anything else (a list of colours, a colour-scale position, "transparent")."""
    if not isinstance(color, str):
        return None
    text = color.strip().lower()
    if text in _NAMED:
        return _NAMED[text], 1.0
    if re.fullmatch(r"#[0-9a-f]{6}", text):
        return tuple(int(text[i : i + 2], 16) for i in (1, 3, 5)), 1.0
    found = _RGB_FUNCTION.fullmatch(text)
    if found:
        r, g, b, a = found.groups()
        return (round(float(r)), round(float(g)), round(float(b))), 1.0 if a is None else float(a)
    return None


def rgb_of(color: object) -> tuple[int, int, int] | None:
    """The colour as (r, g, b), its alpha ignored; None where `rgba_of` reads nothing."""
    found = rgba_of(color)
    return found[0] if found else None


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{c:02X}" for c in rgb)


def luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG relative luminance of an sRGB colour."""
    linear = [c / 255 / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG contrast ratio of two colours, 1 to 21."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _over(color: object, ground: tuple[int, int, int]) -> tuple[int, int, int] | None:
    """What a possibly translucent colour looks like over `ground`."""
    found = rgba_of(color)
    if found is None:
        return None
    rgb, alpha = found
    return tuple(round(c * alpha + g * (1 - alpha)) for c, g in zip(rgb, ground))


def _texts(fig: go.Figure) -> Iterator[tuple[str, object, object, float]]:
    """(what, text colour, background, size in px) for each kind of text the figure writes."""
    lay = fig.layout
    paper = lay.paper_bgcolor or "white"
    base = lay.font.color or "#444444"
    size = lay.font.size or 12
    yield "text", base, paper, size
    if lay.title.text:
        yield "title", lay.title.font.color or base, paper, lay.title.font.size or size
    for axis in [*fig.select_xaxes(), *fig.select_yaxes()]:
        if axis.visible is not False and axis.showticklabels is not False:
            yield "tick labels", axis.tickfont.color or base, paper, axis.tickfont.size or size
        if axis.title.text:
            yield f"axis title {axis.title.text[:30]!r}", axis.title.font.color or base, paper, size
    ground = rgb_of(paper) or (255, 255, 255)
    if lay.showlegend is not False and _legend_entries(fig):
        legend_bg = _over(lay.legend.bgcolor or paper, ground)
        yield "legend", lay.legend.font.color or base, legend_bg, lay.legend.font.size or size
    for note in lay.annotations:
        if note.text and note.visible is not False:
            bg = _over(note.bgcolor, ground) if note.bgcolor else paper
            yield f"note {note.text[:30]!r}", note.font.color or base, bg, note.font.size or size
    for trace in fig.data:
        if trace.type == "scatter" and "text" in (trace.mode or ""):
            fonts = np.atleast_1d(np.asarray(trace.textfont.color or base, dtype=object))
            grounds = np.atleast_1d(np.asarray(trace.marker.color, dtype=object)) if on_markers(trace) else [paper]
            for font in set(map(str, fonts)):
                for ground in set(map(str, grounds)):
                    yield f"labels of {trace.name or trace.type!r}", font, ground, trace.textfont.size or size
        if trace.type == "bar" and trace.text is not None and (trace.textposition or "auto") in ("inside", "auto"):
            fills = np.atleast_1d(np.asarray(trace.marker.color, dtype=object))
            fonts = np.atleast_1d(np.asarray(trace.textfont.color or "white", dtype=object))
            for font in set(map(str, fonts)):
                for fill in set(map(str, fills)):
                    yield f"text in the bars of {trace.name or 'bar'!r}", font, fill, trace.textfont.size or size
        if trace.type == "table":
            fills, fonts = trace.cells.fill.color, trace.cells.font.color
            for fill in fills if isinstance(fills, (list, tuple)) else [fills or "white"]:
                for font in fonts if isinstance(fonts, (list, tuple)) else [fonts or base]:
                    yield "table cell", font, fill, trace.cells.font.size or size


def low_contrast(fig: go.Figure) -> list[str]:
    """Each text below WCAG's contrast against what it sits on, as "what: ratio"."""
    found = []
    for what, color, ground, size in _texts(fig):
        fg, bg = rgb_of(color), rgb_of(ground) if not isinstance(ground, tuple) else ground
        if fg is None or bg is None:
            continue
        need = LARGE_TEXT_CONTRAST if size >= LARGE_TEXT_PX else TEXT_CONTRAST
        ratio = contrast(fg, bg)
        if ratio < need:
            found.append(f"{what}: {color} on {ground} is {ratio:.2f}:1 (needs {need:g}:1)")
    return found


def _entry_color(trace) -> str | None:
    line = trace.line.color if trace.type == "scatter" else None
    for color in (line, trace.marker.color):
        if isinstance(color, str):
            return color.upper()
    return None


def _symbol(trace) -> object:
    symbol = trace.marker.symbol if trace.marker else None
    return tuple(symbol) if isinstance(symbol, (list, tuple)) else symbol or "circle"


def _signature(trace) -> tuple:
    """Everything but colour that a legend entry shows of its trace."""
    if trace.type == "bar":
        pattern = trace.marker.pattern.shape if trace.marker else None
        return "bar", tuple(pattern) if isinstance(pattern, (list, tuple)) else pattern or ""
    mode = trace.mode or "lines+markers"
    return (
        trace.type,
        "lines" in mode and (trace.line.dash or "solid"),
        "markers" in mode and _symbol(trace),
        trace.fill or "none",
    )


def _written(fig: go.Figure) -> str:
    """All the words written on the plot itself (notes and trace labels), where a name there labels its data."""
    words = [note.text or "" for note in fig.layout.annotations if note.name != "evidence"]
    for trace in fig.data:
        if trace.type == "scatter" and "text" in (trace.mode or "") and trace.text is not None:
            words += [str(t) for t in np.atleast_1d(np.asarray(trace.text, dtype=object)).ravel()]
    return "\n".join(words)


def _legend_entries(fig: go.Figure) -> dict[str, object]:
    """Legend entry name -> its trace (the first trace of that name that the legend shows)."""
    entries = {}
    for trace in fig.data:
        if trace.type in ("scatter", "bar") and trace.name and trace.showlegend is not False:
            entries.setdefault(trace.name, trace)
    return entries


def _category_cells(trace) -> dict[str, tuple[np.ndarray, bool]]:
    """A category heatmap's categories (ui: heatmaps.category_heatmap, whose customdata names each cell's):
    name -> (its cells, whether each of them carries text of its own). Empty for any other trace."""
    stops = [position for position, _ in trace.colorscale or ()] if trace.type == "heatmap" else []
    stepped = len(stops) != len(set(stops))  # each colour held over a band: categories, not magnitudes
    custom = np.asarray(trace.customdata, dtype=object) if trace.customdata is not None else None
    if not stepped or custom is None or custom.ndim != 3 or custom.shape[-1] < 3:
        return {}
    names = custom[..., 2].astype(str)
    texts = np.asarray(trace.text, dtype=object) if trace.text is not None else np.full(names.shape, "")
    return {str(name): (names == name, all(texts[names == name])) for name in sorted(set(names.ravel()) - {""})}


LABELLED = {"labelled": True}  # a legend key's `meta` where its data carries the entry's short name on the plot


def _labels_itself(trace) -> bool:
    """Whether the trace writes its own labels, or its figure says its data does (`meta=LABELLED`: the four-steps
    tiles read "E2", "C1", "D1" for the entries "... (E)", "... (C)", "... (D)")."""
    meta = trace.meta if isinstance(trace.meta, dict) else {}
    return bool(meta.get("labelled")) or (trace.type == "scatter" and "text" in (trace.mode or ""))


def _holds_data(trace) -> bool:
    """False for a legend key alone (x=[None]): a mark on it would show on no data."""
    return trace.x is None or any(x is not None for x in np.atleast_1d(np.asarray(trace.x, dtype=object)))


def _look_alikes(fig: go.Figure) -> list[dict[str, list[str]]]:
    """Legend entries that look alike but for colour, each group as colour -> names; entries labelled where
    their data is are left out."""
    written = _written(fig)
    by_look: dict[tuple, dict[str, list[str]]] = {}
    for name, trace in _legend_entries(fig).items():
        color = _entry_color(trace)
        labelled = name in written or _labels_itself(trace)
        if color is not None and not labelled:
            look = (trace.legend or "legend", *_signature(trace))
            by_look.setdefault(look, {}).setdefault(color, []).append(name)
    return [colors for colors in by_look.values() if len(colors) > 1]


def colour_only(fig: go.Figure) -> list[str]:
    """Each thing told apart by colour alone: legend entries that differ from another only in colour, and
    categories of a category heatmap whose name the plot does not write."""
    found = [
        "colour alone tells apart: " + " | ".join(n for names in colors.values() for n in names)
        for colors in _look_alikes(fig)
    ]
    written = _written(fig)
    for trace in fig.data:
        for name, (_, marked) in _category_cells(trace).items():
            if name not in written and not marked:
                found.append(f"category {name!r} only by its colour")
    return found


def readable_colour(color: str, ground: str) -> str:
    """`color` mixed towards black (on a light ground) or white (on a dark one), in tenths, until text in it
    reaches TEXT_CONTRAST on `ground`: the palette's orange or green label stays orange or green, a shade deeper
    on white and a shade paler on the dark panel. Colours it cannot read are returned as they are."""
    rgb, bg = rgb_of(color), rgb_of(ground)
    if rgb is None or bg is None or (rgba_of(color) or ((), 1.0))[1] < 1:
        return color
    target = 0 if luminance(bg) > MID_GREY else 255
    mixed = rgb
    for step in range(11):
        mixed = tuple(round(c + (target - c) * step / 10) for c in rgb)
        if contrast(mixed, bg) >= TEXT_CONTRAST:
            break
    return color if mixed == rgb else _hex(mixed)


def on_markers(trace) -> bool:
    """Whether a trace's labels sit on its own markers (Plotly's default text position) rather than beside them."""
    position = trace.textposition or "middle center"
    return "markers" in (trace.mode or "") and position == "middle center"


def readable_text(fig: go.Figure) -> go.Figure:
    """Deepen each coloured note and label just enough to read on what it sits on (see `readable_colour`)."""
    paper = fig.layout.paper_bgcolor or "white"
    ground = rgb_of(paper) or (255, 255, 255)
    for note in fig.layout.annotations:
        if note.name != "evidence" and isinstance(note.font.color, str):
            under = _over(note.bgcolor, ground) if note.bgcolor else ground
            note.font.color = readable_colour(note.font.color, _hex(under))
    for trace in fig.data:
        if trace.type == "bar" and isinstance(trace.marker.color, str) and isinstance(trace.textfont.color, str):
            trace.textfont.color = _clearer(trace.textfont.color, trace.marker.color)
        color = trace.textfont.color if trace.type == "scatter" and not on_markers(trace) else None
        if isinstance(color, str):
            trace.textfont.color = readable_colour(color, paper)
        elif color is not None:  # one colour per label
            trace.textfont.color = [readable_colour(c, paper) for c in color]
    return fig


def _clearer(color: str, ground: str) -> str:
    """Text on a coloured box (a bar): `color` where it reads there, else whichever of near-black and white
    reads better."""
    fg, bg = rgb_of(color), rgb_of(ground)
    if fg is None or bg is None or contrast(fg, bg) >= TEXT_CONTRAST:
        return color
    return max(("#222222", "#FFFFFF"), key=lambda c: contrast(rgb_of(c), bg))


SYMBOLS = ("square", "diamond", "triangle-up", "x", "star", "triangle-down", "cross", "hexagon")
PATTERNS = ("/", ".", "x", "\\", "+", "-", "|")
MARKS_ON_A_LINE = 12  # a symbol added to a plain line marks this many of its points, not every one


def second_channel(fig: go.Figure) -> go.Figure:
    """Where legend entries of one legend differ in colour only, give each colour after the first its own marker
    symbol (a plain line gets a few markers) or bar pattern, one the figure does not use yet, on every trace of
    that name: colour then never works alone. Keys that stand alone for shapes or cells (no trace of the name
    holds data) are left as they are, since their mark would show on nothing; the check then asks their figure to
    label the data."""
    scatter = [t for t in fig.data if t.type == "scatter"]
    bars = [t for t in fig.data if t.type == "bar"]
    symbols = [s for s in SYMBOLS if s not in {str(s) for t in scatter for s in np.atleast_1d(t.marker.symbol)}]
    patterns = [p for p in PATTERNS if p not in {str(p) for t in bars for p in np.atleast_1d(t.marker.pattern.shape)}]
    used = {"scatter": 0, "bar": 0}
    for colors in _look_alikes(fig):
        for names in list(colors.values())[1:]:
            kind = next(t.type for t in fig.data if t.name in names)
            looks = symbols if kind == "scatter" else patterns
            named = [t for t in fig.data if t.name in names and t.type == kind]
            for trace in named if any(map(_holds_data, named)) else []:
                _mark(trace, looks[used[kind] % len(looks)])  # past the last one they repeat, never fail a page
            used[kind] += 1
    return fig


def _mark(trace, look: str) -> None:
    """Give a bar the pattern `look`, or a scatter trace the marker symbol `look`."""
    if trace.type == "bar":
        trace.marker.pattern = dict(shape=look, fillmode="overlay", solidity=0.3, fgopacity=0.45)
        return
    mode = trace.mode or "lines+markers"
    if "markers" not in mode:
        trace.mode = mode + "+markers"
        trace.marker.maxdisplayed = MARKS_ON_A_LINE
        trace.marker.size = trace.marker.size or 8
    trace.marker.symbol = look


CATEGORY_LABEL = dict(size=13, color="#222222")
CATEGORY_LABEL_BOX = "rgba(255,255,255,0.85)"  # the dark theme veils it (theme.for_dark)


def label_categories(fig: go.Figure) -> go.Figure:
    """Write each category's name on a category heatmap, once, in the middle of its largest patch of cells (the
    cell farthest from the patch's edge): a triangle reads "causal", a square "bidirectional", in any colours."""
    for trace in fig.data:
        cells = _category_cells(trace)
        if not cells:
            continue
        shape = next(iter(cells.values()))[0].shape
        xs = list(trace.x) if trace.x is not None else list(range(shape[1]))
        ys = list(trace.y) if trace.y is not None else list(range(shape[0]))
        for name, (where, marked) in cells.items():
            if marked:
                continue  # every cell of it carries its own text (a number): that marks it already
            row, col = _deepest_cell(where)
            fig.add_annotation(
                x=xs[col],
                y=ys[row],
                xref=trace.xaxis or "x",
                yref=trace.yaxis or "y",
                text=name,
                showarrow=False,
                font=CATEGORY_LABEL,
                bgcolor=CATEGORY_LABEL_BOX,
                borderpad=2,
                name="category",
            )
    return fig


def _deepest_cell(cells: np.ndarray) -> tuple[int, int]:
    """The cell of the largest connected patch of `cells` farthest from the patch's edge (ties: nearest its
    centre)."""
    patches, count = ndimage.label(cells)
    sizes = ndimage.sum(cells, patches, index=range(1, count + 1))
    patch = patches == 1 + int(np.argmax(sizes))
    depth = ndimage.distance_transform_cdt(np.pad(patch, 1), metric="chessboard")[1:-1, 1:-1]
    rows, cols = np.nonzero(depth == depth.max())
    centre = np.mean(np.nonzero(patch), axis=1)
    best = int(np.argmin((rows - centre[0]) ** 2 + (cols - centre[1]) ** 2))
    return int(rows[best]), int(cols[best])


def make_readable(fig: go.Figure) -> go.Figure:
    """All three mends at once (what `theme.styled` applies to every figure)."""
    return second_channel(label_categories(readable_text(fig)))  # a category named on the plot needs no mark
