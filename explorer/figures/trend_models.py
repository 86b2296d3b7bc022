"""How the fitted rate depends on the model, and how a fit forecasts what came after it.

Pure functions: data from `explorer.trend_models` in, plotly Figure out. The rates figure sets the app's
own fits (one dot and interval each) beside rates published for comparable windows (hollow diamonds, their
sources in the hover), against slide 7's "10x every 5 years". The backtest figure shows, for every machine
after the last year the fit saw, how many decades it lies above or below the forecast.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer.evidence import Evidence, Kind
from explorer.figures.theme import OKABE_ITO, styled
from explorer.figures.trend import REFERENCE_COLOR, SERIES_COLORS
from explorer.trend import SERIES_BY_KEY
from explorer.trend_models import PUBLISHED

FIT_DOT = "#333333"
OPEN_END = 100.0  # years per 10x drawn for an interval without a finite upper end (the axis stops at 25)
PUBLISHED_COLOR = OKABE_ITO[4]


def _row(fig: go.Figure, label: str, value, lo, hi, color: str, symbol: str, group: str, hover: str) -> None:
    if value is None:
        return
    top = OPEN_END if hi is None else hi  # no finite upper end: the bar runs off the axis
    error = None if lo is None else dict(type="data", symmetric=False, array=[top - value], arrayminus=[value - lo],
                                         color=color, thickness=2, width=6)
    fig.add_trace(go.Scatter(x=[value], y=[label], mode="markers", error_x=error, legendgroup=group, name=group,
                             showlegend=False, marker=dict(color=color, symbol=symbol, size=13,
                                                           line=dict(width=2, color=color)),
                             hovertemplate=hover + "<extra></extra>"))


def _interval(lo, hi) -> str:
    return "" if lo is None else f" (95% interval {lo:.2f}–{'∞' if hi is None else f'{hi:.2f}'})"


def rates_chart(pooled: dict, models: dict, window: tuple[float, float]) -> go.Figure:
    """Years per 10x: pooled (textbook and autocorrelation-robust interval), fixed effects, each series alone,
    and the published rates. `pooled` is `trend.summary(fit)`; `models` is `trend_models.compare(rows)`."""
    fig = go.Figure()
    robust, fixed = models["robust"], models["fixed_effects"]
    fits = [("pooled, as slide 7's chart", pooled["years_per_10x"], pooled["ci_low"], pooled["ci_high"],
             "one line through every point: the jump between series counts as growth", FIT_DOT),
            ("pooled, robust interval", pooled["years_per_10x"], robust["ci_low"], robust["ci_high"],
             robust["method"], FIT_DOT),
            ("a level per series", fixed["years_per_10x"], fixed["ci_low"], fixed["ci_high"],
             "series fixed effects: the jump between series is a level, not growth", FIT_DOT)]
    fits += [(f"{SERIES_BY_KEY[r['series']].short} alone ({r['n']} points)", r["years_per_10x"], r["ci_low"],
              r["ci_high"], f"{r['first_year']:.0f}–{r['last_year']:.0f}", SERIES_COLORS[r["series"]])
             for r in models["by_series"]]
    for label, value, lo, hi, how, color in fits:
        _row(fig, label, value, lo, hi, color, "circle", "fit",
             f"<b>{label}</b><br>{value:.2f} years per 10×{_interval(lo, hi)}<br>{how}" if value else label)
    for p in PUBLISHED:
        label = f"published: {p.label}, {p.start}–{p.end}"
        _row(fig, label, p.years_per_10x, p.ci_low, p.ci_high, PUBLISHED_COLOR, "diamond-open", "published",
             f"<b>{p.label}</b><br>{p.years_per_10x:.2f} years per 10×{_interval(p.ci_low, p.ci_high)}<br>"
             f"{p.measure}<br>source: {p.source}")
    fig.add_vline(x=5, line=dict(color=REFERENCE_COLOR, dash="dot", width=2))
    fig.add_annotation(x=5, y=1.0, yref="paper", yanchor="bottom", text="slide 7: 5", showarrow=False,
                       font=dict(color=REFERENCE_COLOR, size=14))
    fig.update_xaxes(title="years per 10× (shorter is faster)", type="log", range=[np.log10(3), np.log10(25)],
                     tickvals=[3, 4, 5, 6, 8, 10, 15, 20],
                     ticktext=["3", "4", "5", "6", "8", "10", "15", "20"])
    fig.update_yaxes(autorange="reversed", automargin=True)
    fig.update_layout(showlegend=False, margin=dict(l=20))
    detail = (f"fits: the rows in {window[0]:.0f}–{window[1]:.0f} · hollow diamonds: published, as their "
              "authors state them (hover for the source)")
    return styled(fig, "One rate, several models: how the answer depends on how the series are joined",
                  Evidence(Kind.FIT, detail, also=(Kind.HISTORICAL,)), height=460 + 24 * len(fits))


def backtest_chart(result: dict) -> go.Figure:
    """Observed minus forecast, in decades, for every machine after the fit's last year."""
    errors = result["errors"]
    years = np.array([e["year"] for e in errors])
    misses = np.array([e["error_decades"] for e in errors])
    names = [e["name"] for e in errors]
    fig = go.Figure()
    fig.add_hline(y=0, line=dict(color="#888888", width=2))
    fig.add_trace(go.Scatter(x=years, y=misses, mode="markers", customdata=names, name="machines after the fit",
                             marker=dict(color=OKABE_ITO[0], size=9),
                             hovertemplate="<b>%{customdata}</b><br>%{x:.1f}: %{y:+.2f} decades from the forecast"
                                           "<extra></extra>"))
    median = result["median_error_decades"]
    fig.add_hline(y=median, line=dict(color=OKABE_ITO[3], dash="dash", width=2),
                  annotation_text=f"median {median:+.2f} decades", annotation_position="top left")
    fig.update_xaxes(title="year")
    fig.update_yaxes(title="observed − forecast (decades)", zeroline=False)
    fig.update_layout(showlegend=False)
    rate = "no growth" if result["years_per_10x"] is None else f"{result['years_per_10x']:.2f} years per 10×"
    detail = (f"line fitted to {result['n_train']} machines up to {result['train_end']:.0f} ({rate}), carried "
              f"forward to {result['n_forecast']} later ones")
    return styled(fig, f"Rolled forward from {result['train_end']:.0f}: how far later machines land from the line",
                  Evidence(Kind.EXTRAPOLATION, detail, also=(Kind.HISTORICAL,)), height=440)
