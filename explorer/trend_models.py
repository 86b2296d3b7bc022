"""The same rate fitted other ways, so a student sees which modelling choices move it.

`explorer.trend` pools every point into one least-squares line, as slide 7's chart does: the jump from the
Nordhaus CPUs (to 2001) to the Epoch GPUs (from 2008), measured in different units, then counts as part of
the trend. Here:
- per series: each source alone;
- series fixed effects: one intercept per series and a common slope, so the jump between series is a level
  difference, not growth;
- autocorrelation-robust intervals: machines of neighbouring years share their errors (lag-1 correlation of
  the residuals in year order), so the textbook interval is too narrow; Newey-West (HAC) widens it;
- a backtest: fit up to a year, forecast what came after, and measure the miss (the lecture's "roll forward",
  with its failure shown);
- published rates for comparable windows, with their sources: what the literature found, beside the fits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from explorer import content, trend

LN10 = math.log(10)


@dataclass(frozen=True)
class Published:
    """A rate from the literature, as its authors state it, converted to years per 10x."""

    label: str
    years_per_10x: float
    ci_low: float | None
    ci_high: float | None
    start: int
    end: int
    measure: str
    source: str


PUBLISHED = (
    Published(
        "Nordhaus (2001)",
        LN10 / math.log(1.55),
        None,
        None,
        1940,
        2001,
        "computer power per constant dollar, 55% a year on average",
        "W. D. Nordhaus, The Progress of Computing, Cowles Foundation Discussion Paper 1324 (2001)",
    ),
    Published(
        "Epoch AI (2022), all GPUs",
        8.17,
        7.45,
        9.04,
        2006,
        2021,
        "FLOP/s per dollar of 470 GPUs, doubling every 2.46 years",
        "M. Hobbhahn and T. Besiroglu, Trends in GPU Price-Performance, Epoch AI (2022)",
    ),
    Published(
        "Epoch AI (2022), ML GPUs",
        6.86,
        5.12,
        10.39,
        2006,
        2021,
        "FLOP/s per dollar of 26 GPUs used in ML research, doubling every 2.07 years",
        "M. Hobbhahn and T. Besiroglu, Trends in GPU Price-Performance, Epoch AI (2022)",
    ),
)


def _years(slope: float, lo: float, hi: float) -> dict:
    """Years per 10x and its interval from a slope in orders of magnitude per year (None: no growth)."""

    def inv(b: float) -> float | None:
        return 1 / float(b) if b > 0 else None

    return {"years_per_10x": inv(slope), "ci_low": inv(hi), "ci_high": inv(lo)}


def by_series(rows: pd.DataFrame) -> list[dict]:
    """Each series of the fit's rows alone (series with too few points for a line are left out)."""
    out = []
    for key in (s.key for s in trend.SERIES):
        part = rows[rows["series"] == key]
        if trend.min_points_message(len(part), part["year"].nunique()):
            continue
        fit = trend.ols(part["year"], part["value"])
        out.append(
            {"series": key, **_years(fit.b, *fit.slope_ci), "n": fit.n, "first_year": fit.x0, "last_year": fit.x1}
        )
    return out


def fixed_effects(rows: pd.DataFrame) -> dict:
    """One intercept per series, one common slope: the rate within series, the jump between them a level."""
    series = sorted(rows["series"].unique())
    x = rows["year"].to_numpy(float) - trend.CENTER
    y = np.log10(rows["value"].to_numpy(float))
    dummies = np.column_stack([(rows["series"] == s).to_numpy(float) for s in series])
    design = np.column_stack([x, dummies])
    dof = len(y) - design.shape[1]
    if dof < 1 or np.linalg.matrix_rank(design) < design.shape[1]:
        raise ValueError(content.text("compute", "no-fixed-effects"))
    beta, *_ = np.linalg.lstsq(design, y, rcond=None)
    resid = y - design @ beta
    cov = float(resid @ resid) / dof * np.linalg.inv(design.T @ design)
    half = float(stats.t.ppf(0.975, dof)) * math.sqrt(cov[0, 0])
    levels = {s: float(beta[1 + i]) for i, s in enumerate(series)}
    return {
        **_years(float(beta[0]), beta[0] - half, beta[0] + half),
        "n": len(y),
        "series": series,
        "log10_at_2000": levels,
    }


def newey_west_lag(n: int) -> int:
    """The usual automatic lag, floor(4 (n/100)^(2/9))."""
    return int(4 * (n / 100) ** (2 / 9))


def robust(rows: pd.DataFrame) -> dict:
    """The pooled fit's slope interval with Newey-West (HAC) standard errors, rows in year order."""
    ordered = rows.sort_values(["year", "name"], kind="stable")
    x = ordered["year"].to_numpy(float) - trend.CENTER
    y = np.log10(ordered["value"].to_numpy(float))
    n = len(y)
    design = np.column_stack([np.ones(n), x])
    beta, *_ = np.linalg.lstsq(design, y, rcond=None)
    resid = y - design @ beta
    lag = newey_west_lag(n)
    scores = design * resid[:, None]
    meat = scores.T @ scores
    for k in range(1, lag + 1):
        weight = 1 - k / (lag + 1)
        cross = scores[k:].T @ scores[:-k]
        meat += weight * (cross + cross.T)
    bread = np.linalg.inv(design.T @ design)
    se = math.sqrt((bread @ meat @ bread)[1, 1])
    half = float(stats.t.ppf(0.975, n - 2)) * se
    autocorrelation = float(np.corrcoef(resid[:-1], resid[1:])[0, 1]) if n > 2 else math.nan
    years = _years(float(beta[1]), beta[1] - half, beta[1] + half)
    return {
        "ci_low": years["ci_low"],
        "ci_high": years["ci_high"],
        "method": f"Newey-West HAC, lag {lag}, rows in year order",
        "lag": lag,
        "slope_se": se,
        "residual_lag1_autocorrelation": autocorrelation,
    }


def backtest(rows: pd.DataFrame, train_end: float) -> dict:
    """Fit the pooled line on machines up to `train_end`, forecast every later one; the signed misses in
    decades (observed minus forecast: positive means the fit under-predicted)."""
    before = rows[rows["year"] < train_end + 1]
    after = rows[rows["year"] >= train_end + 1]
    fit = trend.ols(before["year"], before["value"])
    if after.empty:
        raise ValueError(content.text("compute", "no-later-machines", year=f"{train_end:g}"))
    errors = np.log10(after["value"].to_numpy(float)) - fit.line(after["year"])
    return {
        "train_end": train_end,
        "years_per_10x": trend._finite(fit.years_per_10x),
        "median_error_decades": float(np.median(errors)),
        "n_forecast": len(after),
        "n_train": fit.n,
        "errors": [
            {"year": float(yr), "name": str(nm), "error_decades": float(e)}
            for yr, nm, e in zip(after["year"], after["name"], errors)
        ],
    }


def compare(rows: pd.DataFrame) -> dict:
    """Every alternative for one selection of rows: per series, fixed effects (None with one series), robust."""
    several = rows["series"].nunique() > 1
    return {
        "by_series": by_series(rows),
        "fixed_effects": fixed_effects(rows)
        if several
        else {
            "years_per_10x": None,
            "ci_low": None,
            "ci_high": None,
            "n": len(rows),
            "series": [],
            "log10_at_2000": {},
        },
        "robust": robust(rows),
    }
