"""Compute per dollar over time: cited points, the OLS fit with its bands, extrapolation drawn dashed.

Pure functions: data in, plotly Figure out. Points are historical data (one colour per source series, one
marker per technology); the line and shaded bands are a fit; beyond the last fitted year everything is
dashed or hatched and labelled "extrapolation". The badge names every kind the figure carries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.figures.theme import CONCEPT_COLORS, FOOT_LEGEND, OKABE_ITO, display_width, keep_width, styled, wrap_text
from explorer.trend import SERIES, VALUE, Fit, in_window

SERIES_COLORS = {s.key: OKABE_ITO[i] for s, i in zip(SERIES, (0, 1, 2, 4, 5))}
# and a fill per source, so that colour never tells the sources apart alone (the shape tells the technology)
SERIES_FILLS = {s.key: ("", "-open", "-dot", "-open-dot")[i % 4] for i, s in enumerate(SERIES)}
UPLOAD_COLOR = CONCEPT_COLORS["data"]
FIT_COLOR = CONCEPT_COLORS["fit"]
REFERENCE_COLOR = OKABE_ITO[3]
BOOK = "fig-trend"  # this module's words: content/<lang>/fig-trend.md
# technology -> (legend group, marker symbol); kinds not listed fall into the last group. The group's legend
# label is the section `kind-<group>` of the book.
KIND_GROUPS = {
    "mechanical": ("mechanical", "square"),
    "relay": ("relay", "diamond"),
    "vacuum tube": ("vacuum-tube", "triangle-up"),
    "transistor": ("transistor", "circle"),
    "microprocessor": ("microprocessor", "hexagon"),
    "GPU": ("accelerator", "x"),
    "GPU (consumer desktop)": ("accelerator", "x"),
    "GPU desktop": ("accelerator", "x"),
    "ASIC": ("accelerator", "x"),
}
OTHER_KIND = ("cluster", "pentagon")
LOG_TICKS = dict(type="log", exponentformat="power", showexponent="all")
# room for the y axis's powers of ten and its title, set: Plotly's automargin on both axes drew the chart three
# times in Chromium at every window move (0.15 s; 0.12 s with the y axis's margin set)
LEFT_PX = 112
BOTTOM_LEGEND = dict(FOOT_LEGEND, font=dict(size=13))  # whatever the plot's height: clear of the x-axis title
SIDE_LEGEND = dict(orientation="v", x=1.02, xanchor="left", font=dict(size=13), tracegroupgap=2)
LEGEND_CHARS = 26  # a legend entry's line: the column beside the plot stays narrow, the plot wide


def _legend_lines(name: str) -> list[str]:
    """A legend entry in lines of about LEGEND_CHARS columns; its closing parenthesis ("(106 rows)", "（拟合）")
    is never split: it ends the last line or takes one of its own."""
    if display_width(name) <= LEGEND_CHARS:
        return [name]
    last = max(name.rfind("("), name.rfind("（"))
    head, tail = (name[:last].rstrip(), name[last:]) if last > 0 else (name, "")
    lines = wrap_text(head, LEGEND_CHARS)
    if tail and display_width(f"{lines[-1]} {tail}") <= LEGEND_CHARS:
        lines[-1] += tail if tail.startswith("（") else f" {tail}"
    elif tail:
        lines.append(tail)
    return lines


def _narrow_legend(fig: go.Figure) -> None:
    """Break every legend entry into short lines: the legends sit beside the plot."""
    for trace in fig.data:
        if trace.name and trace.showlegend is not False:
            trace.name = "<br>".join(_legend_lines(trace.name))


def _kind(kind: str) -> tuple[str, str]:
    return KIND_GROUPS.get(kind, OTHER_KIND)


def series_label(key: str) -> str:
    """A series' name in the legend, in the run's language (`trend.Series.label` is the English one)."""
    return content.text(BOOK, f"series-{key.replace('_', '-')}")


def _mine(name: str, upload: bool) -> str:
    """A legend entry of the student's own data: "your data: ..." before the name."""
    return content.text(BOOK, "upload-prefixed", name=name) if upload else name


def _year(x: float) -> str:
    """A decimal year as the calendar year it falls in (2024.87 is in 2024)."""
    return f"{math.floor(x)}"


def _price_text(rows: pd.DataFrame) -> np.ndarray:
    priced = rows["price_usd"].notna().to_numpy()
    text = np.full(len(rows), content.text(BOOK, "price-unpublished"), dtype=object)
    text[priced] = [f"${p:,.0f} ({d})" for p, d in zip(rows["price_usd"][priced], rows["reported_dollars"][priced])]
    return text


POINT_COLUMNS = ["machine", "technology", "price", "precision", "source", "fit window"]  # customdata, in order
# (the column names are machine-read; the hover template says what each one is)


def _points(fig: go.Figure, rows: pd.DataFrame, window: tuple[float, float]) -> None:
    """One trace per series: colour = source, marker = technology, faded outside the fit window."""
    inside = in_window(rows["year"], *window).to_numpy()
    symbols = np.array([_kind(k)[1] for k in rows["kind"]], dtype=object)
    custom = np.column_stack(
        [
            rows["name"].to_numpy(object),
            rows["kind"].to_numpy(object),
            _price_text(rows),
            rows["precision"].to_numpy(object),
            rows["citation"].to_numpy(object),
            np.where(inside, content.text(BOOK, "in-window"), content.text(BOOK, "outside-window")),
        ]
    )
    for key in (s.key for s in SERIES):
        mine = (rows["series"] == key).to_numpy()
        if not mine.any():
            continue
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                legendgroup=key,
                hoverinfo="skip",
                name=content.text(BOOK, "series-rows", label=series_label(key), n=mine.sum()),
                marker=dict(color=SERIES_COLORS[key], symbol="circle" + SERIES_FILLS[key], size=10, line=_fill(key)),
            )
        )
        fig.add_trace(
            go.Scatter(
                x=rows["year"][mine],
                y=rows["value"][mine],
                mode="markers",
                name=series_label(key),
                legendgroup=key,
                showlegend=False,
                customdata=custom[mine],
                meta={"columns": POINT_COLUMNS},
                marker=dict(
                    color=SERIES_COLORS[key],
                    symbol=[symbol + SERIES_FILLS[key] for symbol in symbols[mine]],
                    size=9,
                    opacity=np.where(inside[mine], 0.9, 0.25),
                    line=_fill(key),
                ),
                hovertemplate=content.text(BOOK, "point-hover"),
            )
        )


def _fill(key: str) -> dict:
    """An open marker is its outline, drawn in the marker's colour; a filled one has a thin white edge."""
    return dict(width=2) if "open" in SERIES_FILLS[key] else dict(width=0.5, color="white")


def _kind_legend(fig: go.Figure, rows: pd.DataFrame) -> None:
    """A second legend that explains the marker shapes."""
    seen = dict.fromkeys(_kind(k) for k in rows.sort_values("year")["kind"])
    for group, symbol in seen:
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=content.text(BOOK, f"kind-{group}"),
                legend="legend2",
                marker=dict(color="#777777", symbol=symbol, size=9),
                hoverinfo="skip",
            )
        )


def _band(
    fig: go.Figure, years: np.ndarray, lo: np.ndarray, hi: np.ndarray, name: str, alpha: float, color: str, dashed: bool
) -> None:
    rgb = tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))
    fig.add_trace(
        go.Scatter(
            x=np.concatenate([years, years[::-1]]),
            y=np.concatenate([10**hi, 10 ** lo[::-1]]),
            fill="toself",
            fillcolor=f"rgba({rgb[0]},{rgb[1]},{rgb[2]},{alpha / 2 if dashed else alpha})",
            fillpattern=dict(shape="/", fgcolor=f"rgba({rgb[0]},{rgb[1]},{rgb[2]},0.35)", size=8) if dashed else None,
            line=dict(width=1 if dashed else 0, color=color, dash="dot"),
            name=name,
            hoverinfo="skip",
        )
    )


@dataclass(frozen=True)
class FitLayer:
    """A fit to draw: its colour, how far to extrapolate, and the words its legend entries start with."""

    fit: Fit
    color: str
    horizon: float  # extrapolate the line and bands from the last fitted year to here
    upload: bool = False  # the student's own data: its legend entries start "your data: "
    bands: tuple[str, ...] = ("prediction", "confidence")
    line_name: str | None = None
    label_below: bool = False  # label under the line's start, apart from the main fit's label (a second fit)


def _fit(fig: go.Figure, layer: FitLayer) -> None:
    fit, mine = layer.fit, layer.upload
    years = np.linspace(fit.x0, fit.x1, 120)
    if "prediction" in layer.bands:
        _band(
            fig,
            years,
            *fit.prediction_band(years),
            _mine(content.text(BOOK, "band-prediction"), mine),
            0.12,
            layer.color,
            dashed=False,
        )
    if "confidence" in layer.bands:
        _band(
            fig,
            years,
            *fit.confidence_band(years),
            _mine(content.text(BOOK, "band-confidence"), mine),
            0.35,
            layer.color,
            dashed=False,
        )
    fitted = content.text(BOOK, "fit-line", n=fit.n, first=_year(fit.x0), last=_year(fit.x1))
    fig.add_trace(
        go.Scatter(
            x=years,
            y=10 ** fit.line(years),
            mode="lines",
            name=layer.line_name or _mine(fitted, mine),
            line=dict(color=layer.color, width=3),
            hoverinfo="skip",
        )
    )
    if layer.horizon <= fit.x1:
        return
    ahead = np.linspace(fit.x1, layer.horizon, 60)
    if "prediction" in layer.bands:
        _band(
            fig,
            ahead,
            *fit.prediction_band(ahead),
            _mine(content.text(BOOK, "band-extrapolated"), mine),
            0.12,
            layer.color,
            dashed=True,
        )
    fig.add_trace(
        go.Scatter(
            x=ahead,
            y=10 ** fit.line(ahead),
            mode="lines",
            name=_mine(content.text(BOOK, "extrapolation-line", last=_year(fit.x1)), mine),
            line=dict(color=layer.color, width=3, dash="dash"),
            hovertemplate=content.text(BOOK, "extrapolation-hover"),
        )
    )
    # above-left of the line's end, or below-right of its start: a rising line never crosses either place
    at = fit.x1 if layer.label_below else layer.horizon
    fig.add_annotation(
        x=at,
        y=float(fit.line(at)),
        text=_mine(content.text(BOOK, "extrapolation-label"), mine),
        showarrow=False,
        xanchor="left" if layer.label_below else "right",
        yanchor="top" if layer.label_below else "bottom",
        yshift=-10 if layer.label_below else 6,
        font=dict(size=14, color=layer.color),
    )


def reference_line(fit: Fit, years: np.ndarray) -> tuple[np.ndarray, float]:
    """Slide 7's C(t) = C0 * 10^(t/5), anchored where the fit's line crosses the mean fitted year."""
    c0 = 10 ** float(fit.line(fit.x_mean))
    return c0 * 10 ** ((years - fit.x_mean) / 5), c0


def _ranges(
    rows: pd.DataFrame, window: tuple[float, float], fit: Fit | None, horizon: float, upload: pd.DataFrame | None
) -> tuple[tuple[float, float], tuple[float, float]]:
    """x over the whole record shown (the page's text cites its first machine, so the axis starts there; points
    outside the window stay in view, faded) to the horizon; y (log10) from the points and lines in that range,
    so a line far below the data never squeezes them."""
    frames = [f for f in (rows, upload) if f is not None and len(f)]
    years = pd.concat([f["year"] for f in frames]) if frames else pd.Series([window[0], window[1]], dtype=float)
    x_lo = min(float(years.min()), window[0]) - 3
    x_hi = max(horizon, float(years.max())) + 2
    logs = [np.log10(f.loc[(f["year"] >= x_lo) & (f["year"] <= x_hi), "value"]) for f in frames]
    if fit is not None:
        logs.append(fit.line([max(fit.x0, x_lo), max(fit.x1, horizon)]))
    logs = np.concatenate([np.asarray(v, float) for v in logs]) if logs else np.array([0.0, 1.0])
    return (x_lo, x_hi), (float(logs.min()) - 0.8, float(logs.max()) + 0.8)


def trend_chart(
    rows: pd.DataFrame,
    window: tuple[float, float],
    fit: Fit | None,
    horizon: float,
    show_reference: bool = True,
    upload: pd.DataFrame | None = None,
    upload_fit: Fit | None = None,
    precision: str = "fp32",
    height: int = 820,
) -> go.Figure:
    """Log-scale scatter of the selected rows (column `value`) with the window's fit and its extrapolation.
    `height`: 820 for a slide; the page draws it shorter, to fit a laptop's first screen."""
    fig = go.Figure()
    (x_lo, x_hi), y_range = _ranges(rows, window, fit, horizon, upload)
    fig.add_vrect(
        x0=max(window[0], x_lo),
        x1=min(window[1] + 1, x_hi),
        fillcolor="#F2F2F2",
        line_width=0,
        layer="below",
        annotation_text=content.text(BOOK, "fit-window", start=window[0], end=window[1]),
        annotation_position="bottom left",
        annotation_font=dict(size=13, color="#666666"),
    )
    _points(fig, rows, window)
    if fit is not None:
        _fit(fig, FitLayer(fit, FIT_COLOR, horizon))
        if show_reference:
            xs = np.linspace(x_lo, x_hi, 100)
            ys, c0 = reference_line(fit, xs)
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=ys,
                    mode="lines",
                    line=dict(color=REFERENCE_COLOR, width=2, dash="dot"),
                    name=content.text(BOOK, "reference-line", year=fit.x_mean),
                    hovertemplate=content.text(BOOK, "reference-hover", year=fit.x_mean),
                )
            )
    if upload is not None:
        fig.add_trace(
            go.Scatter(
                x=upload["year"],
                y=upload["value"],
                mode="markers",
                name=content.text(BOOK, "your-data"),
                marker=dict(color=UPLOAD_COLOR, symbol="circle-open", size=10, line=dict(width=2)),
                customdata=upload[["name"]],
                hovertemplate=content.text(BOOK, "upload-hover"),
            )
        )
        if upload_fit is not None:
            _fit(fig, FitLayer(upload_fit, UPLOAD_COLOR, horizon, upload=True, bands=("confidence",), label_below=True))
    visible = rows[rows["year"].between(x_lo, x_hi)]
    if len(visible):
        _kind_legend(fig, visible)  # only the shapes that are in view
    fig.update_xaxes(title=content.text(BOOK, "axis-year"), range=[x_lo, x_hi])
    fig.update_yaxes(
        title=dict(text=content.text(BOOK, "axis-ops"), standoff=8),
        range=y_range,
        # a student's own data may reach powers of ten that LEFT_PX was not sized for
        automargin=upload is not None,
        dtick=2,
        **LOG_TICKS,
    )
    # what the points and lines are in a column right of the plot: it takes width, which a wide screen has, not
    # the height the plot needs (under the plot it was as tall as the plot); the marker shapes in one row on top
    fig.update_layout(
        legend=dict(SIDE_LEGEND, y=1, yanchor="top", title=dict(text=content.text(BOOK, "legend-title"))),
        legend2=dict(
            orientation="h",
            x=0,
            y=1,
            xanchor="left",
            yanchor="bottom",
            font=dict(size=13),
            title=dict(text=content.text(BOOK, "legend-technology"), side="left"),
        ),
        hovermode="closest",
        margin=dict(b=60, l=LEFT_PX, r=10),
    )
    _narrow_legend(fig)
    rate = (
        content.text(BOOK, "rate-none")
        if fit is None
        else content.text(BOOK, "rate-years", years=fit.years_per_10x)
        if fit.b > 0
        else content.text(BOOK, "rate-no-growth")
    )
    fits = [f for f in (fit, upload_fit) if f is not None]
    kinds = (
        [Kind.HISTORICAL]
        + ([Kind.FIT] if fits else [])
        + ([Kind.EXTRAPOLATION] if any(horizon > f.x1 for f in fits) else [])
    )
    which = "fp32" if precision == "fp32" else "best"
    gpus = content.text(BOOK, f"precision-{which}")
    detail = (
        content.text(BOOK, "detail-fit", rows=len(rows), n=fit.n, precision=gpus)
        if fit is not None
        else content.text(BOOK, "detail-no-fit", rows=len(rows), precision=gpus)
    )
    fig = styled(
        fig,
        content.text(BOOK, "title", start=window[0], end=window[1], rate=rate),
        Evidence(kinds[0], detail, also=tuple(kinds[1:])),
        height=height,
    )
    return keep_width(fig)  # on a phone its two legends would squeeze the plot to a strip: scroll it instead


def precision_chart(rows: pd.DataFrame, fp32: Fit, best: Fit) -> go.Figure:
    """GPU era, one chip per column of markers: FP32 (hollow) and best available precision (filled), joined."""
    fig = go.Figure()
    xs = np.repeat(rows["year"].to_numpy(), 3)
    ys = np.column_stack([rows[VALUE], rows["best_ops_per_dollar_2024usd"], np.full(len(rows), np.nan)]).ravel()
    xs[2::3] = np.nan
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines",
            line=dict(color="#BBBBBB", width=1),
            hoverinfo="skip",
            name=content.text(BOOK, "precision-pair"),
        )
    )
    custom = np.column_stack([rows["name"], rows["best_precision"]])
    for col, which, color, symbol in (
        (VALUE, "fp32", OKABE_ITO[0], "circle-open"),
        ("best_ops_per_dollar_2024usd", "best", OKABE_ITO[3], "circle"),
    ):
        fig.add_trace(
            go.Scatter(
                x=rows["year"],
                y=rows[col],
                mode="markers",
                name=content.text(BOOK, "precision-points", label=content.text(BOOK, f"precision-points-{which}")),
                customdata=custom,
                marker=dict(color=color, symbol=symbol, size=9, line=dict(width=2 if symbol.endswith("open") else 0)),
                hovertemplate=content.text(BOOK, f"precision-hover-{which}"),
            )
        )
    for fit, which, color in ((fp32, "fp32", OKABE_ITO[0]), (best, "best", OKABE_ITO[3])):
        _fit(
            fig,
            FitLayer(
                fit,
                color,
                horizon=fit.x1,
                bands=(),
                line_name=content.text(
                    BOOK, "precision-fit", label=content.text(BOOK, f"precision-{which}"), years=fit.years_per_10x
                ),
            ),
        )
    fig.update_xaxes(title=content.text(BOOK, "axis-year"))
    fig.update_yaxes(title=dict(text=content.text(BOOK, "axis-ops"), standoff=8), automargin=True, dtick=1, **LOG_TICKS)
    fig.update_layout(legend=BOTTOM_LEGEND, margin=dict(b=170))
    return styled(
        fig,
        content.text(BOOK, "precision-title"),
        Evidence(Kind.HISTORICAL, content.text(BOOK, "precision-detail", chips=len(rows)), also=(Kind.FIT,)),
        height=600,
    )
