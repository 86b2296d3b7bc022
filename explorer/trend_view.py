"""The compute page's numbers: one view (a fit window, its series and precision) fitted every way the page
shows it, the tiles and sentences it quotes, the backtest and an upload, computed from `explorer.trend` and
`explorer.trend_models`. The page lays them out with its content file; tests check them directly."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from explorer import content, trend, trend_models
from explorer.figures.trend import series_label
from explorer.tiles import Tile

BOOK = "compute"  # the page's book: tiles, sentences and messages in the run's language
BY_SHORT = {s.short: s.key for s in trend.SERIES}  # the control's options, shown and put in the URL by short name
MAIN_SHORTS = [trend.SERIES_BY_KEY[k].short for k in trend.MAIN_SERIES]
TABLE_COLUMNS = ["year", "name", "kind", "series", "value", "price_usd", "reported_dollars", "citation"]


@dataclass(frozen=True)
class Window:
    """Everything the page shows for one fit window: the points drawn, those fitted and every fit of them.
    `problem` says why there is no fit (too few points); the fits are None then."""

    shown: pd.DataFrame  # every row of the picked series, all years (drawn faded outside the window)
    rows: pd.DataFrame  # the rows inside the window
    fit: trend.Fit | None
    boot: trend.Bootstrap | None
    models: dict | None  # `trend_models.compare` of the rows: per series, fixed effects, robust
    problem: str | None


def series_keys(picked: list[str]) -> tuple[str, ...]:
    """The picked short names as series keys, in the module's order (one cache entry per set)."""
    return tuple(s.key for s in trend.SERIES if s.short in picked)


def window(df: pd.DataFrame, start: int, end: int, series: tuple[str, ...], precision: str) -> Window:
    """The fit of one view; an empty or too thin window gives a problem instead of an error."""
    shown = trend.fit_rows(df, series, precision)
    rows = shown[trend.in_window(shown["year"], start, end)]
    problem = trend.min_points_message(len(rows), rows["year"].nunique())
    if problem:
        return Window(shown, rows, None, None, None, problem)
    return Window(
        shown,
        rows,
        trend.ols(rows["year"], rows["value"]),
        trend.bootstrap(rows["year"], rows["value"]),
        trend_models.compare(rows),
        None,
    )


def years_text(fit: trend.Fit, no_growth: str | None = None) -> str:
    if fit.b > 0:
        return f"{fit.years_per_10x:.2f}"
    return content.text(BOOK, "no-growth") if no_growth is None else no_growth


def _joined(items: list[str]) -> str:
    """Items of one sentence joined by the language's separator ("; " in English, "；" in Chinese)."""
    separator = content.text(BOOK, "list-separator")
    return (separator + " " if separator.isascii() else separator).join(items)


def rates_by_window(df: pd.DataFrame, windows: tuple[tuple[int, int], ...]) -> list[dict]:
    """Years per 10x of the main series in FP32 for each fit window, with its analytic interval: how much the
    rate moves with the window (the method page quotes them)."""
    rates = []
    for start, end in windows:
        _, fit, _ = trend.fit_window(df, trend.MAIN_SERIES, trend.FP32, start, end, n_boot=0)
        rates.append(
            {"start": start, "end": end, "years": fit.years_per_10x, "ci": trend.interval_text(*fit.years_per_10x_ci)}
        )
    return rates


def first_rate_and_others(rates: list[dict]) -> dict:
    """The first window's rate in full and the others in short, for one sentence."""
    others = _joined(
        [content.text(BOOK, "rate-other", start=r["start"], end=r["end"], years=r["years"]) for r in rates[1:]]
    )
    return {**rates[0], "others": others}


def _interval(summary: dict) -> str:
    """A `trend_models` interval (None ends: unbounded) as text."""
    return trend.interval_text(summary["ci_low"] or 0, summary["ci_high"] or math.inf)


def takeaway(view: Window, start: int, end: int) -> list[tuple[str, dict]]:
    """The sentences under the figure as (kind, values): the pooled rate, and the rate within series when the
    pooled line counts a jump between series as growth; or why there is no fit."""
    if view.fit is None:
        return [("none", {"problem": view.problem})]
    said = [
        (
            "pooled",
            {
                "start": start,
                "end": end,
                "years": years_text(view.fit, content.text(BOOK, "no-growth-infinite")),
                "interval": _interval(view.models["robust"]),
            },
        )
    ]
    fixed = view.models["fixed_effects"]
    if len(fixed["series"]) > 1 and fixed["years_per_10x"] is not None:
        said.append(("fixed", {"years": f"{fixed['years_per_10x']:.2f}", "interval": _interval(fixed)}))
    return said


def tiles(fit: trend.Fit, boot: trend.Bootstrap, robust: dict | None = None) -> list[Tile]:
    """The fit in numbers: rate, its intervals (robust one only for the window) and the points fitted."""
    out = [
        Tile(content.text(BOOK, "tile-years"), years_text(fit), "years"),
        Tile(content.text(BOOK, "tile-analytic"), trend.interval_text(*fit.years_per_10x_ci), "analytic"),
        Tile(
            content.text(BOOK, "tile-bootstrap"),
            trend.interval_text(boot.years_lo, boot.years_hi),
            "bootstrap",
            {"n_boot": boot.n_boot, "seed": boot.seed},
        ),
    ]
    if robust:
        out.append(
            Tile(
                content.text(BOOK, "tile-robust"),
                _interval(robust),
                "robust",
                {"lag": robust["lag"], "lag1": robust["residual_lag1_autocorrelation"]},
            )
        )
    return out + [
        Tile(content.text(BOOK, "tile-points"), f"{fit.n}", "points", {"first": fit.x0, "last": fit.x1, "r2": fit.r2})
    ]


def backtest(
    df: pd.DataFrame, series: tuple[str, ...], precision: str, start: int, train_end: int
) -> tuple[dict | None, str | None]:
    """(backtest, None) or (None, why not) for a line fitted from `start` up to `train_end`."""
    try:
        return trend_models.backtest(trend.fit_rows(df, series, precision, start=start), train_end), None
    except ValueError as err:
        return None, str(err)


def backtest_tiles(result: dict) -> list[Tile]:
    years = result["years_per_10x"]
    return [
        Tile(
            content.text(BOOK, "tile-backtest-years", year=result["train_end"]),
            content.text(BOOK, "no-growth") if years is None else f"{years:.2f}",
        ),
        Tile(
            content.text(BOOK, "tile-miss"), content.text(BOOK, "decades", value=result["median_error_decades"]), "miss"
        ),
        Tile(content.text(BOOK, "tile-forecast"), f"{result['n_forecast']}"),
    ]


@dataclass(frozen=True)
class Upload:
    """A student's CSV: its rows (None when unreadable), its fit and bootstrap, and what is wrong, if anything."""

    rows: pd.DataFrame | None
    fit: trend.Fit | None
    boot: trend.Bootstrap | None
    problem: str | None


def upload(raw: bytes) -> Upload:
    try:
        rows = trend.validate_upload(raw)
    except trend.UploadError as err:
        return Upload(None, None, None, str(err))
    try:
        fit = trend.ols(rows["year"], rows["value"])
        return Upload(rows, fit, trend.bootstrap(rows["year"], rows["value"], trend.n_boot_for(len(rows))), None)
    except ValueError as err:
        return Upload(rows, None, None, content.text(BOOK, "upload-not-fitted", n=len(rows), error=err))


def precision_values(gain: dict) -> dict:
    """The numbers the GPU-era precision notice quotes, from `trend.precision_gain`."""
    return {
        "first": int(gain["span"][0]),
        "last": int(gain["span"][1]),
        "gain_fp32": gain["fitted_gain_fp32"],
        "gain_best": gain["fitted_gain_best"],
        "share": gain["precision_share_of_log_gain"],
        "lower": gain["chips_with_lower_precision"],
        "chips": gain["chips"],
        "factor": gain["median_factor_where_lower"],
    }


def sources_markdown(df: pd.DataFrame) -> str:
    """One line per series: its label, rows shipped, citation and licence."""
    counts = trend.row_counts(df)
    return "\n".join(
        content.text(
            BOOK,
            "source-line",
            label=series_label(s.key),
            n=counts[s.key],
            citation=s.citation,
            licence=content.text(BOOK, f"licence-{s.key.replace('_', '-')}"),
        )
        for s in trend.SERIES
    )
