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

from explorer.evidence import Evidence, Kind
from explorer.figures.theme import CONCEPT_COLORS, FOOT_LEGEND, OKABE_ITO, keep_width, styled
from explorer.trend import SERIES, SERIES_BY_KEY, VALUE, Fit, in_window

SERIES_COLORS = {s.key: OKABE_ITO[i] for s, i in zip(SERIES, (0, 1, 2, 4, 5))}
UPLOAD_COLOR = CONCEPT_COLORS["data"]
FIT_COLOR = CONCEPT_COLORS["fit"]
REFERENCE_COLOR = OKABE_ITO[3]
# technology -> (legend label, marker symbol); kinds not listed fall into the last group
KIND_GROUPS = {
    "mechanical": ("mechanical", "square"),
    "relay": ("relay", "diamond"),
    "vacuum tube": ("vacuum tube", "triangle-up"),
    "transistor": ("transistor", "circle"),
    "microprocessor": ("microprocessor", "hexagon"),
    "GPU": ("GPU / accelerator", "x"),
    "GPU (consumer desktop)": ("GPU / accelerator", "x"),
    "GPU desktop": ("GPU / accelerator", "x"),
    "ASIC": ("GPU / accelerator", "x"),
}
OTHER_KIND = ("cluster / supercomputer", "pentagon")
LOG_TICKS = dict(type="log", exponentformat="power", showexponent="all")
BOTTOM_LEGEND = dict(FOOT_LEGEND, font=dict(size=13))  # whatever the plot's height: clear of the x-axis title


def _kind(kind: str) -> tuple[str, str]:
    return KIND_GROUPS.get(kind, OTHER_KIND)


def _year(x: float) -> str:
    """A decimal year as the calendar year it falls in (2024.87 is in 2024)."""
    return f"{math.floor(x)}"


def _price_text(rows: pd.DataFrame) -> np.ndarray:
    priced = rows["price_usd"].notna().to_numpy()
    text = np.full(len(rows), "not published: the source gives ops per $ only", dtype=object)
    text[priced] = [f"${p:,.0f} ({d})" for p, d in zip(rows["price_usd"][priced], rows["reported_dollars"][priced])]
    return text


POINT_COLUMNS = ["machine", "technology", "price", "precision", "source", "fit window"]  # customdata, in order


def _points(fig: go.Figure, rows: pd.DataFrame, window: tuple[float, float]) -> None:
    """One trace per series: colour = source, marker = technology, faded outside the fit window."""
    inside = in_window(rows["year"], *window).to_numpy()
    symbols = np.array([_kind(k)[1] for k in rows["kind"]], dtype=object)
    custom = np.column_stack([rows["name"].to_numpy(object), rows["kind"].to_numpy(object), _price_text(rows),
                              rows["precision"].to_numpy(object), rows["citation"].to_numpy(object),
                              np.where(inside, "in the fit window", "outside the fit window")])
    for key in (s.key for s in SERIES):
        mine = (rows["series"] == key).to_numpy()
        if not mine.any():
            continue
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", legendgroup=key, hoverinfo="skip",
                                 name=f"{SERIES_BY_KEY[key].label} ({mine.sum()} rows)",
                                 marker=dict(color=SERIES_COLORS[key], symbol="circle", size=10)))
        fig.add_trace(go.Scatter(
            x=rows["year"][mine], y=rows["value"][mine], mode="markers", name=SERIES_BY_KEY[key].label,
            legendgroup=key, showlegend=False, customdata=custom[mine], meta={"columns": POINT_COLUMNS},
            marker=dict(color=SERIES_COLORS[key], symbol=symbols[mine], size=9,
                        opacity=np.where(inside[mine], 0.9, 0.25), line=dict(width=0.5, color="white")),
            hovertemplate="<b>%{customdata[0]}</b> (%{customdata[1]})<br>year %{x:.1f} · "
                          "%{y:.3g} ops/s per 2024 US$<br>price %{customdata[2]}<br>%{customdata[3]}<br>"
                          "source: %{customdata[4]}<br>%{customdata[5]}<extra></extra>"))


def _kind_legend(fig: go.Figure, rows: pd.DataFrame) -> None:
    """A second legend that explains the marker shapes."""
    seen = dict.fromkeys(_kind(k) for k in rows.sort_values("year")["kind"])
    for label, symbol in seen:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=label, legend="legend2",
                                 marker=dict(color="#777777", symbol=symbol, size=9), hoverinfo="skip"))


def _band(fig: go.Figure, years: np.ndarray, lo: np.ndarray, hi: np.ndarray, name: str, alpha: float,
          color: str, dashed: bool) -> None:
    rgb = tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))
    fig.add_trace(go.Scatter(
        x=np.concatenate([years, years[::-1]]), y=np.concatenate([10 ** hi, 10 ** lo[::-1]]), fill="toself",
        fillcolor=f"rgba({rgb[0]},{rgb[1]},{rgb[2]},{alpha / 2 if dashed else alpha})",
        fillpattern=dict(shape="/", fgcolor=f"rgba({rgb[0]},{rgb[1]},{rgb[2]},0.35)", size=8) if dashed else None,
        line=dict(width=1 if dashed else 0, color=color, dash="dot"), name=name, hoverinfo="skip"))


@dataclass(frozen=True)
class FitLayer:
    """A fit to draw: its colour, how far to extrapolate, and the words its legend entries start with."""

    fit: Fit
    color: str
    horizon: float  # extrapolate the line and bands from the last fitted year to here
    prefix: str = ""  # "your data: " for an upload
    bands: tuple[str, ...] = ("prediction", "confidence")
    line_name: str | None = None
    label_below: bool = False  # label under the line's start, apart from the main fit's label (a second fit)


def _fit(fig: go.Figure, layer: FitLayer) -> None:
    fit, pre = layer.fit, layer.prefix
    years = np.linspace(fit.x0, fit.x1, 120)
    if "prediction" in layer.bands:
        _band(fig, years, *fit.prediction_band(years), f"{pre}95% prediction band (fit)", 0.12, layer.color,
              dashed=False)
    if "confidence" in layer.bands:
        _band(fig, years, *fit.confidence_band(years), f"{pre}95% confidence band (fit)", 0.35, layer.color,
              dashed=False)
    fig.add_trace(go.Scatter(x=years, y=10 ** fit.line(years), mode="lines",
                             name=layer.line_name or f"{pre}OLS fit to {fit.n} points of {_year(fit.x0)}–{_year(fit.x1)}",
                             line=dict(color=layer.color, width=3), hoverinfo="skip"))
    if layer.horizon <= fit.x1:
        return
    ahead = np.linspace(fit.x1, layer.horizon, 60)
    if "prediction" in layer.bands:
        _band(fig, ahead, *fit.prediction_band(ahead), f"{pre}extrapolated prediction band", 0.12, layer.color,
              dashed=True)
    fig.add_trace(go.Scatter(x=ahead, y=10 ** fit.line(ahead), mode="lines",
                             name=f"{pre}extrapolation beyond {_year(fit.x1)} (not data)",
                             line=dict(color=layer.color, width=3, dash="dash"),
                             hovertemplate="extrapolation: %{y:.3g} in %{x:.0f}<extra></extra>"))
    # above-left of the line's end, or below-right of its start: a rising line never crosses either place
    at = fit.x1 if layer.label_below else layer.horizon
    fig.add_annotation(x=at, y=float(fit.line(at)), text=f"{pre}extrapolation", showarrow=False,
                       xanchor="left" if layer.label_below else "right",
                       yanchor="top" if layer.label_below else "bottom", yshift=-10 if layer.label_below else 6,
                       font=dict(size=14, color=layer.color))


def reference_line(fit: Fit, years: np.ndarray) -> tuple[np.ndarray, float]:
    """Slide 7's C(t) = C0 * 10^(t/5), anchored where the fit's line crosses the mean fitted year."""
    c0 = 10 ** float(fit.line(fit.x_mean))
    return c0 * 10 ** ((years - fit.x_mean) / 5), c0


def _ranges(rows: pd.DataFrame, window: tuple[float, float], fit: Fit | None, horizon: float,
            upload: pd.DataFrame | None) -> tuple[tuple[float, float], tuple[float, float]]:
    """x from a little before the window (older points stay in view, faded) to the horizon; y (log10) from
    the points and lines inside that x range, so a line far below the data never squeezes them."""
    frames = [f for f in (rows, upload) if f is not None and len(f)]
    years = pd.concat([f["year"] for f in frames]) if frames else pd.Series([window[0], window[1]], dtype=float)
    x_lo = max(float(years.min()) - 3, window[0] - 0.3 * (horizon - window[0]))
    x_hi = max(horizon, float(years.max())) + 2
    logs = [np.log10(f.loc[(f["year"] >= x_lo) & (f["year"] <= x_hi), "value"]) for f in frames]
    if fit is not None:
        logs.append(fit.line([max(fit.x0, x_lo), max(fit.x1, horizon)]))
    logs = np.concatenate([np.asarray(v, float) for v in logs]) if logs else np.array([0.0, 1.0])
    return (x_lo, x_hi), (float(logs.min()) - 0.8, float(logs.max()) + 0.8)


def trend_chart(rows: pd.DataFrame, window: tuple[float, float], fit: Fit | None, horizon: float,
                show_reference: bool = True, upload: pd.DataFrame | None = None,
                upload_fit: Fit | None = None, precision: str = "fp32", height: int = 820) -> go.Figure:
    """Log-scale scatter of the selected rows (column `value`) with the window's fit and its extrapolation.
    `height`: 820 for a slide; the page draws it shorter, to fit a laptop's first screen."""
    fig = go.Figure()
    (x_lo, x_hi), y_range = _ranges(rows, window, fit, horizon, upload)
    fig.add_vrect(x0=max(window[0], x_lo), x1=min(window[1] + 1, x_hi), fillcolor="#F2F2F2", line_width=0,
                  layer="below", annotation_text=f"fit window {window[0]:.0f}–{window[1]:.0f}",
                  annotation_position="bottom left", annotation_font=dict(size=13, color="#666666"))
    _points(fig, rows, window)
    if fit is not None:
        _fit(fig, FitLayer(fit, FIT_COLOR, horizon))
        if show_reference:
            xs = np.linspace(x_lo, x_hi, 100)
            ys, c0 = reference_line(fit, xs)
            fig.add_trace(go.Scatter(
                x=xs, y=ys, mode="lines", line=dict(color=REFERENCE_COLOR, width=2, dash="dot"),
                name=f"slide 7: 10× per 5 years from {fit.x_mean:.0f} (formula)",
                hovertemplate=(f"slide 7's rate, drawn through the fit's value at {fit.x_mean:.0f}: "
                               "%{y:.3g} in %{x:.0f}<extra></extra>")))
    if upload is not None:
        fig.add_trace(go.Scatter(x=upload["year"], y=upload["value"], mode="markers", name="your data",
                                 marker=dict(color=UPLOAD_COLOR, symbol="circle-open", size=10, line=dict(width=2)),
                                 customdata=upload[["name"]],
                                 hovertemplate="<b>%{customdata[0]}</b><br>year %{x:.1f} · %{y:.3g}<extra>"
                                               "your data</extra>"))
        if upload_fit is not None:
            _fit(fig, FitLayer(upload_fit, UPLOAD_COLOR, horizon, prefix="your data: ", bands=("confidence",),
                               label_below=True))
    visible = rows[rows["year"].between(x_lo, x_hi)]
    if len(visible):
        _kind_legend(fig, visible)  # only the shapes that are in view
    fig.update_xaxes(title="year", range=[x_lo, x_hi])
    fig.update_yaxes(title=dict(text="operations per second per 2024 US$", standoff=8), range=y_range,
                     automargin=True, dtick=2, **LOG_TICKS)
    fig.update_layout(legend=dict(BOTTOM_LEGEND, title=dict(
                          text="data · fit · extrapolation (dashed)", side="top")),
                      legend2=dict(orientation="h", x=0, y=1, xanchor="left", yanchor="bottom", font=dict(size=13),
                                   title=dict(text="technology:", side="left")),  # one row above the plot
                      hovermode="closest", margin=dict(b=60))  # the legend at the foot widens it as it needs
    rate = "no fit" if fit is None else f"{fit.years_per_10x:.3g} years per 10×" if fit.b > 0 else "no growth"
    fits = [f for f in (fit, upload_fit) if f is not None]
    kinds = [Kind.HISTORICAL] + ([Kind.FIT] if fits else []) + (
        [Kind.EXTRAPOLATION] if any(horizon > f.x1 for f in fits) else [])
    fitted = f", {fit.n} in the fit" if fit is not None else ""
    detail = f"{len(rows)} cited rows shown{fitted} · GPUs in {'FP32' if precision == 'fp32' else 'best precision'}"
    fig = styled(fig, f"Compute per 2024 dollar, fit window {window[0]:.0f}–{window[1]:.0f}: {rate}",
                 Evidence(kinds[0], detail, also=tuple(kinds[1:])), height=height)
    return keep_width(fig)  # on a phone its two legends would squeeze the plot to a strip: scroll it instead


def precision_chart(rows: pd.DataFrame, fp32: Fit, best: Fit) -> go.Figure:
    """GPU era, one chip per column of markers: FP32 (hollow) and best available precision (filled), joined."""
    fig = go.Figure()
    xs = np.repeat(rows["year"].to_numpy(), 3)
    ys = np.column_stack([rows[VALUE], rows["best_ops_per_dollar_2024usd"], np.full(len(rows), np.nan)]).ravel()
    xs[2::3] = np.nan
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color="#BBBBBB", width=1), hoverinfo="skip",
                             name="same chip: FP32 → best precision"))
    custom = np.column_stack([rows["name"], rows["best_precision"]])
    for col, label, color, symbol in ((VALUE, "FP32", OKABE_ITO[0], "circle-open"),
                                      ("best_ops_per_dollar_2024usd", "best available precision", OKABE_ITO[3],
                                       "circle")):
        fig.add_trace(go.Scatter(x=rows["year"], y=rows[col], mode="markers", name=f"{label} (Epoch AI data)",
                                 customdata=custom, marker=dict(color=color, symbol=symbol, size=9,
                                                                line=dict(width=2 if symbol.endswith("open") else 0)),
                                 hovertemplate="<b>%{customdata[0]}</b><br>year %{x:.1f} · %{y:.3g} ops/s per 2024 "
                                               f"US$<br>{label}" + (": %{customdata[1]}" if col != VALUE else "")
                                               + "<extra></extra>"))
    for fit, label, color in ((fp32, "FP32", OKABE_ITO[0]), (best, "best precision", OKABE_ITO[3])):
        _fit(fig, FitLayer(fit, color, horizon=fit.x1, bands=(),
                           line_name=f"{label} fit: {fit.years_per_10x:.1f} years per 10×"))
    fig.update_xaxes(title="year")
    fig.update_yaxes(title=dict(text="operations per second per 2024 US$", standoff=8), automargin=True, dtick=1,
                     **LOG_TICKS)
    fig.update_layout(legend=BOTTOM_LEGEND, margin=dict(b=170))
    return styled(fig, "GPU era: how much of the gain is lower precision?",
                  Evidence(Kind.HISTORICAL, f"Epoch AI ML hardware (CC BY 4.0), {len(rows)} chips",
                           also=(Kind.FIT,)), height=600)
