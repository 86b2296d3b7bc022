"""How the fitted rate depends on the model, and how a fit forecasts what came after it.

Pure functions: data from `explorer.trend_models` in, plotly Figure out. The rates figure sets the app's
own fits (one dot and interval each) beside rates published for comparable windows (hollow diamonds, their
sources in the hover), against slide 7's "10x every 5 years". The backtest figure shows, for every machine
after the last year the fit saw, how many decades it lies above or below the forecast.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.figures.theme import OKABE_ITO, styled
from explorer.figures.trend import REFERENCE_COLOR, SERIES_COLORS
from explorer.trend import SERIES_BY_KEY
from explorer.trend_models import PUBLISHED

BOOK = "fig-trend-models"  # this module's words: content/<lang>/fig-trend-models.md
FIT_DOT = "#333333"
OPEN_END = 100.0  # years per 10x drawn for an interval without a finite upper end (the axis stops at 25)
PUBLISHED_COLOR = OKABE_ITO[4]


def _row(fig: go.Figure, label: str, value, lo, hi, color: str, symbol: str, group: str, hover: str) -> None:
    if value is None:
        return
    top = OPEN_END if hi is None else hi  # no finite upper end: the bar runs off the axis
    error = (
        None
        if lo is None
        else dict(
            type="data",
            symmetric=False,
            array=[top - value],
            arrayminus=[value - lo],
            color=color,
            thickness=2,
            width=6,
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[value],
            y=[label],
            mode="markers",
            error_x=error,
            legendgroup=group,
            name=group,
            showlegend=False,
            marker=dict(color=color, symbol=symbol, size=13, line=dict(width=2, color=color)),
            hovertemplate=hover + "<extra></extra>",
        )
    )


def _rate(value: float, lo, hi) -> str:
    """Years per 10x with its 95% interval, when there is one (an open upper end is ∞)."""
    if lo is None:
        return content.text(BOOK, "rate", value=value)
    return content.text(BOOK, "rate-interval", value=value, lo=lo, hi="∞" if hi is None else f"{hi:.2f}")


def published_text(index: int) -> tuple[str, str]:
    """(label, measure) of `PUBLISHED[index]` in the run's language; its source stays as its authors cite it."""
    return content.text(BOOK, f"published-{index}-label"), content.text(BOOK, f"published-{index}-measure")


def rates_chart(pooled: dict, models: dict, window: tuple[float, float]) -> go.Figure:
    """Years per 10x: pooled (textbook and autocorrelation-robust interval), fixed effects, each series alone,
    and the published rates. `pooled` is `trend.summary(fit)`; `models` is `trend_models.compare(rows)`."""
    fig = go.Figure()
    robust, fixed = models["robust"], models["fixed_effects"]
    fits = [
        (
            content.text(BOOK, "row-pooled"),
            pooled["years_per_10x"],
            pooled["ci_low"],
            pooled["ci_high"],
            content.text(BOOK, "how-pooled"),
            FIT_DOT,
        ),
        (
            content.text(BOOK, "row-robust"),
            pooled["years_per_10x"],
            robust["ci_low"],
            robust["ci_high"],
            content.text(BOOK, "how-robust", lag=robust["lag"]),
            FIT_DOT,
        ),
        (
            content.text(BOOK, "row-fixed"),
            fixed["years_per_10x"],
            fixed["ci_low"],
            fixed["ci_high"],
            content.text(BOOK, "how-fixed"),
            FIT_DOT,
        ),
    ]
    fits += [
        (
            content.text(BOOK, "row-series", series=SERIES_BY_KEY[r["series"]].short, n=r["n"]),
            r["years_per_10x"],
            r["ci_low"],
            r["ci_high"],
            f"{r['first_year']:.0f}–{r['last_year']:.0f}",
            SERIES_COLORS[r["series"]],
        )
        for r in models["by_series"]
    ]
    for label, value, lo, hi, how, color in fits:
        _row(
            fig,
            label,
            value,
            lo,
            hi,
            color,
            "circle",
            "fit",
            content.text(BOOK, "fit-hover", label=label, rate=_rate(value, lo, hi), how=how) if value else label,
        )
    for i, p in enumerate(PUBLISHED):
        name, measure = published_text(i)
        label = content.text(BOOK, "row-published", label=name, start=p.start, end=p.end)
        _row(
            fig,
            label,
            p.years_per_10x,
            p.ci_low,
            p.ci_high,
            PUBLISHED_COLOR,
            "diamond-open",
            "published",
            content.text(
                BOOK,
                "published-hover",
                label=name,
                rate=_rate(p.years_per_10x, p.ci_low, p.ci_high),
                measure=measure,
                source=p.source,
            ),
        )
    fig.add_vline(x=5, line=dict(color=REFERENCE_COLOR, dash="dot", width=2))
    fig.add_annotation(
        x=5,
        y=1.0,
        yref="paper",
        yanchor="bottom",
        text=content.text(BOOK, "slide-7"),
        showarrow=False,
        font=dict(color=REFERENCE_COLOR, size=14),
    )
    fig.update_xaxes(
        title=content.text(BOOK, "axis-rate"),
        type="log",
        range=[np.log10(3), np.log10(25)],
        tickvals=[3, 4, 5, 6, 8, 10, 15, 20],
        ticktext=["3", "4", "5", "6", "8", "10", "15", "20"],
    )
    fig.update_yaxes(autorange="reversed", automargin=True)
    fig.update_layout(showlegend=False, margin=dict(l=20))
    detail = content.text(BOOK, "rates-detail", start=window[0], end=window[1])
    return styled(
        fig,
        content.text(BOOK, "rates-title"),
        Evidence(Kind.FIT, detail, also=(Kind.HISTORICAL,)),
        height=460 + 24 * len(fits),
    )


def backtest_chart(result: dict) -> go.Figure:
    """Observed minus forecast, in decades, for every machine after the fit's last year."""
    errors = result["errors"]
    years = np.array([e["year"] for e in errors])
    misses = np.array([e["error_decades"] for e in errors])
    names = [e["name"] for e in errors]
    fig = go.Figure()
    fig.add_hline(y=0, line=dict(color="#888888", width=2))
    fig.add_trace(
        go.Scatter(
            x=years,
            y=misses,
            mode="markers",
            customdata=names,
            name=content.text(BOOK, "machines-after"),
            marker=dict(color=OKABE_ITO[0], size=9),
            hovertemplate=content.text(BOOK, "miss-hover"),
        )
    )
    median = result["median_error_decades"]
    fig.add_hline(
        y=median,
        line=dict(color=OKABE_ITO[3], dash="dash", width=2),
        annotation_text=content.text(BOOK, "median", median=median),
        annotation_position="top left",
    )
    fig.update_xaxes(title=content.text(BOOK, "axis-year"))
    fig.update_yaxes(title=content.text(BOOK, "axis-miss"), zeroline=False)
    fig.update_layout(showlegend=False)
    rate = (
        content.text(BOOK, "no-growth")
        if result["years_per_10x"] is None
        else content.text(BOOK, "rate", value=result["years_per_10x"])
    )
    detail = content.text(
        BOOK,
        "backtest-detail",
        n_train=result["n_train"],
        train_end=result["train_end"],
        rate=rate,
        n_forecast=result["n_forecast"],
    )
    return styled(
        fig,
        content.text(BOOK, "backtest-title", train_end=result["train_end"]),
        Evidence(Kind.EXTRAPOLATION, detail, also=(Kind.HISTORICAL,)),
        height=440,
    )
