"""Compute per constant dollar, 1857-2025: the shipped data, uploads, and a least-squares rate with uncertainty.

Model (slide 7, as a regression): log10 C(year) = a + b * (year - 2000), fitted by ordinary least squares on
ops/s per 2024 US$. b is in orders of magnitude per year, so one factor of 10 takes 1/b years. Reported:
the analytic 95% t-interval of b and its reciprocal for years per 10x, a seeded row-bootstrap percentile
interval, and the confidence band (the mean line) and prediction band (a new machine) around the line.

The bootstrap draws its resamples with numpy's PCG64 (seed 0), vectorized in blocks of bounded memory; a test
refits every resample one by one and gets the same slopes. Other models of the same rate (per series, series fixed
effects, autocorrelation-robust intervals, a backtest) are in `explorer.trend_models`.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from explorer import content
from explorer.csv_upload import (
    UploadError,
    find_column,
    header_text,
    inline_code,
    line_list,
    lines_phrase,
    read_rows,
    require_rows,
)

ROOT = Path(__file__).resolve().parent.parent
BOOK = "compute"  # the words a student reads (lessons, upload and fit messages): the compute page's book
DATA_CSV = ROOT / "data" / "compute_per_dollar.csv"
REFERENCE_CSV = ROOT / "data" / "reference" / "compute_per_dollar_facts.csv"

CENTER = 2000.0  # year subtracted before fitting, so intercept and slope are nearly uncorrelated
N_BOOT = 5000
SEED = 0
BOOT_DRAWS = 2_000_000  # resamples x points per bootstrap; large uploads get fewer resamples (at least 500)
BLOCK_BYTES = 8_000_000  # memory for the resamples drawn at once (the rest of a bootstrap is a few KB)
BYTES_PER_DRAW = 24  # bytes per drawn point alive at once: its index, then its x and y (8 bytes each)
FP32, BEST = "fp32", "best"
PRECISIONS = {FP32: "FP32 (all eras comparable)", BEST: "best available (FP16 / tensor cores)"}


@dataclass(frozen=True)
class Series:
    key: str
    short: str  # the control's option and URL value
    label: str
    citation: str  # short form for hover text; the full citation is in each row
    licence: str


SERIES = (
    Series(
        "nordhaus2001",
        "Nordhaus 2001",
        "Nordhaus (2001) machines",
        "Nordhaus (2001), The Progress of Computing",
        "facts; no licence stated",
    ),
    Series(
        "epoch_ml_hardware",
        "Epoch AI",
        "Epoch AI ML hardware",
        "Epoch AI, Machine Learning Hardware (CC BY 4.0)",
        "CC BY 4.0",
    ),
    Series(
        "kurzweil2005",
        "Kurzweil 2005",
        "Kurzweil (2005) chart",
        "Kurzweil (2005), The Singularity Is Near, p. 67",
        "facts from a copyrighted chart",
    ),
    Series(
        "wikipedia_flops_table",
        "Wikipedia FLOPS",
        "Wikipedia FLOPS cost table",
        "Wikipedia, FLOPS: hardware costs (CC BY-SA)",
        "CC BY-SA",
    ),
    Series(
        "wikipedia_gpu_lists_frontier",
        "Wikipedia GPUs",
        "Wikipedia GPU lists (frontier)",
        "Wikipedia GPU lists via owensgroup/gpustats (CC BY-SA)",
        "CC BY-SA",
    ),
)
SERIES_BY_KEY = {s.key: s for s in SERIES}
MAIN_SERIES = ("nordhaus2001", "epoch_ml_hardware")  # with FP32 these are the fact sheet's main fit (157 rows)
NOT_FP32 = "not FP32"  # fit_note of the two Epoch rows that list no FP32 figure

# Project CSV column -> fact-sheet column ("" for columns the build adds).
COLUMNS = {
    "year": "year",
    "name": "name",
    "kind": "kind",
    "series": "series",
    "ops_per_second": "ops_per_second",
    "ops_unit": "ops_metric",
    "precision": "precision",
    "price_usd": "price_usd_as_reported",
    "price_year": "price_year",
    "price_basis": "price_basis",
    "ops_per_dollar_reported": "ops_per_second_per_dollar_reported_basis",
    "reported_dollars": "reported_basis_dollars",
    "ops_per_dollar_2024usd": "ops_per_second_per_dollar_2024usd_cpiu",
    "best_precision": "alt_precision",
    "best_ops_per_second": "alt_ops_per_second",
    "best_ops_per_dollar_2024usd": "alt_ops_per_second_per_dollar_2024usd_cpiu",
    "in_main_fit": "use_in_main_fit",
    "fit_note": "",
    "derived": "derived",
    "citation": "",
    "source": "source",
    "notes": "notes",
}
VALUE, BEST_VALUE = "ops_per_dollar_2024usd", "best_ops_per_dollar_2024usd"
_BEST_PREFIX = "best of FP32/FP16/tensor-FP16 (dense): "


# ----------------------------------------------------------------------------------------------- data


def _project_row(ref: dict[str, str]) -> dict[str, str]:
    row = {col: ref[src] for col, src in COLUMNS.items() if src}
    flag = ref["use_in_main_fit"].strip()
    row["in_main_fit"] = "yes" if flag == "yes" else "no"
    row["fit_note"] = flag[len("no (") : -1] if flag.startswith("no (") else ""
    row["best_precision"] = row["best_precision"].removeprefix(_BEST_PREFIX)
    row["citation"] = SERIES_BY_KEY[ref["series"]].citation
    return row


def build_data_text(reference_csv: Path = REFERENCE_CSV) -> str:
    """The project's CSV, built from the fact sheet: renamed columns, values kept as the sheet's exact strings."""
    with open(reference_csv, newline="", encoding="utf-8") as f:
        rows = [_project_row(r) for r in csv.DictReader(f)]
    unknown = sorted({r["series"] for r in rows} - set(SERIES_BY_KEY))
    if unknown:
        raise ValueError(f"fact sheet has series this module does not know: {', '.join(unknown)}")
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def build_data(reference_csv: Path = REFERENCE_CSV, out_csv: Path = DATA_CSV) -> dict:
    text = build_data_text(reference_csv)
    out_csv = Path(out_csv)
    out_csv.write_text(text, encoding="utf-8", newline="")
    df = pd.read_csv(io.StringIO(text))
    shown = out_csv.resolve().relative_to(ROOT) if out_csv.resolve().is_relative_to(ROOT) else out_csv
    return {"path": str(shown), "rows": len(df), "rows_per_series": row_counts(df)}


def load(path: Path = DATA_CSV) -> pd.DataFrame:
    """The shipped rows; numeric columns as float (NaN where the source gives no value), text as str."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    for col in ("year", "ops_per_second", "price_usd", VALUE, "best_ops_per_second", BEST_VALUE):
        df[col] = pd.to_numeric(df[col].replace("", np.nan))
    return df


def row_counts(df: pd.DataFrame) -> dict[str, int]:
    counts = df["series"].value_counts()
    return {s.key: int(counts.get(s.key, 0)) for s in SERIES}


def in_window(years: pd.Series, start: float, end: float) -> pd.Series:
    """Years in [start, end + 1): a window "1950-2025" keeps every machine released in 2025."""
    return (years >= start) & (years < end + 1)


def fit_rows(
    df: pd.DataFrame,
    series: tuple[str, ...] | list[str],
    precision: str = FP32,
    start: float = -math.inf,
    end: float = math.inf,
) -> pd.DataFrame:
    """Rows a fit uses, with their y value in column `value`.

    Picked series, the manual baseline dropped (a person, not a machine), years in [start, end + 1) so a
    window ending in 2025 keeps 2025.4. FP32 drops the two Epoch rows without an FP32 figure; "best" takes
    the best of FP32/FP16/tensor-FP16 where the row has it (Epoch only) and the main value elsewhere.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    unknown = [s for s in series if s not in SERIES_BY_KEY]
    if unknown:
        raise ValueError(f"unknown series {', '.join(map(str, unknown))}; known: {', '.join(SERIES_BY_KEY)}")
    rows = df[df["series"].isin(series) & (df["kind"] != "manual")].copy()
    if precision == FP32:
        rows = rows[rows["fit_note"] != NOT_FP32]
        rows["value"] = rows[VALUE]
    else:
        has_best = rows[BEST_VALUE].notna()
        epoch = rows["series"] == "epoch_ml_hardware"
        rows = rows[~epoch | has_best]
        rows["value"] = rows[BEST_VALUE].where(rows[BEST_VALUE].notna(), rows[VALUE])
    return rows[in_window(rows["year"], start, end) & (rows["value"] > 0)]


# ----------------------------------------------------------------------------------------------- fit


@dataclass(frozen=True)
class Fit:
    """OLS of log10(value) on (year - CENTER)."""

    n: int
    a: float  # log10 value at CENTER
    b: float  # orders of magnitude per year
    se_a: float
    se_b: float
    cov_ab: float
    resid_sd: float  # residual standard deviation, log10 units
    r2: float
    t: float  # t quantile 0.975 with n - 2 degrees of freedom
    x0: float  # first and last fitted year
    x1: float
    x_mean: float

    def line(self, years) -> np.ndarray:
        """log10 of the fitted value."""
        return self.a + self.b * (np.asarray(years, float) - CENTER)

    def _var_mean(self, years) -> np.ndarray:
        x = np.asarray(years, float) - CENTER
        return self.se_a**2 + x**2 * self.se_b**2 + 2 * x * self.cov_ab

    def confidence_band(self, years) -> tuple[np.ndarray, np.ndarray]:
        """95% band for the mean line, log10 units."""
        half = self.t * np.sqrt(self._var_mean(years))
        return self.line(years) - half, self.line(years) + half

    def prediction_band(self, years) -> tuple[np.ndarray, np.ndarray]:
        """95% band for one new machine's value, log10 units."""
        half = self.t * np.sqrt(self._var_mean(years) + self.resid_sd**2)
        return self.line(years) - half, self.line(years) + half

    @property
    def slope_ci(self) -> tuple[float, float]:
        return self.b - self.t * self.se_b, self.b + self.t * self.se_b

    @property
    def years_per_10x(self) -> float:
        return 1 / self.b if self.b > 0 else math.inf

    @property
    def years_per_10x_ci(self) -> tuple[float, float]:
        """Reciprocal of the slope interval; the upper end is infinite when the slope's interval reaches 0."""
        lo, hi = self.slope_ci
        return (1 / hi if hi > 0 else math.inf), (1 / lo if lo > 0 else math.inf)


def min_points_message(n: int, distinct: int) -> str | None:
    if n < 3 or distinct < 2:
        return content.text(
            BOOK,
            "min-points",
            n=n,
            distinct=distinct,
            s_points="s" if n != 1 else "",
            s_years="s" if distinct != 1 else "",
        )
    return None


def ols(years, values) -> Fit:
    """Least squares of log10(values) on years; raises ValueError when there is too little to fit."""
    x = np.asarray(years, float)
    y = np.log10(np.asarray(values, float))
    problem = min_points_message(len(x), len(np.unique(x)))
    if problem:
        raise ValueError(problem)
    n = len(x)
    xc = x - CENTER
    X = np.column_stack([np.ones(n), xc])
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ beta
    dof = n - 2
    s2 = float(resid @ resid) / dof
    cov = s2 * np.linalg.inv(X.T @ X)
    ss_tot = float((y - y.mean()) @ (y - y.mean()))
    r2 = 1 - float(resid @ resid) / ss_tot if ss_tot > 0 else 1.0
    return Fit(
        n=n,
        a=float(beta[0]),
        b=float(beta[1]),
        se_a=math.sqrt(cov[0, 0]),
        se_b=math.sqrt(cov[1, 1]),
        cov_ab=float(cov[0, 1]),
        resid_sd=math.sqrt(s2),
        r2=r2,
        t=float(stats.t.ppf(0.975, dof)),
        x0=float(x.min()),
        x1=float(x.max()),
        x_mean=float(x.mean()),
    )


@dataclass(frozen=True)
class Bootstrap:
    """Row bootstrap of the slope: resample the points with replacement, refit, take percentiles."""

    n_boot: int
    seed: int
    slope_lo: float
    slope_hi: float
    years_lo: float  # 2.5th and 97.5th percentile of years per 10x; hi is inf when some slopes are <= 0
    years_hi: float
    share_nonpositive: float  # resamples whose slope is <= 0 (no growth)


def block_rows(n_points: int, block_bytes: int = BLOCK_BYTES) -> int:
    """Resamples drawn at once: as many as keep the block's arrays within `block_bytes` (at least one)."""
    return max(1, block_bytes // (BYTES_PER_DRAW * max(n_points, 1)))


def bootstrap_slopes(
    years, values, n_boot: int = N_BOOT, seed: int = SEED, block_bytes: int = BLOCK_BYTES
) -> np.ndarray:
    """Slopes of n_boot resamples, drawn as rng.integers(0, n, n) per resample (the reference's order).

    Drawn in blocks of `block_rows` resamples, so a 10,000-row upload costs a few MB, not a hundred: the
    generator's stream and each row's sums do not depend on where the blocks end, so the slopes are the same,
    bit for bit, whatever the block size (a test compares them)."""
    x = np.asarray(years, float) - CENTER
    y = np.log10(np.asarray(values, float))
    n = len(x)
    rng = np.random.default_rng(seed)
    per_block = block_rows(n, block_bytes)
    slopes = np.empty(n_boot)
    for start in range(0, n_boot, per_block):
        stop = min(start + per_block, n_boot)
        idx = rng.integers(0, n, (stop - start, n))
        xd, yd = x[idx], y[idx]
        del idx
        xd -= xd.mean(axis=1, keepdims=True)  # in place: the same numbers as xs - mean, one array fewer
        yd -= yd.mean(axis=1, keepdims=True)
        sxx = (xd * xd).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            slopes[start:stop] = (xd * yd).sum(axis=1) / sxx
    return slopes[np.isfinite(slopes)]  # a resample with a single distinct year has no slope


def n_boot_for(n_points: int) -> int:
    """5000 resamples up to 400 points, fewer for large uploads so a bootstrap stays a fraction of a second."""
    return int(min(N_BOOT, max(500, BOOT_DRAWS // max(n_points, 1))))


def bootstrap(years, values, n_boot: int = N_BOOT, seed: int = SEED) -> Bootstrap:
    b = bootstrap_slopes(years, values, n_boot, seed)
    if len(b) == 0:
        raise ValueError(content.text(BOOK, "no-bootstrap"))
    lo, hi = np.percentile(b, [2.5, 97.5])
    if (b > 0).all():
        y_lo, y_hi = np.percentile(1.0 / b, [2.5, 97.5])
    else:  # percentiles commute with the monotone 1/b only on one side of zero
        y_lo = 1 / hi if hi > 0 else math.inf
        y_hi = math.inf
    return Bootstrap(
        n_boot=n_boot,
        seed=seed,
        slope_lo=float(lo),
        slope_hi=float(hi),
        years_lo=float(y_lo),
        years_hi=float(y_hi),
        share_nonpositive=float((b <= 0).mean()),
    )


def _finite(x: float) -> float | None:
    return None if not math.isfinite(x) else float(x)


def summary(fit: Fit, boot: Bootstrap | None = None) -> dict:
    """Plain numbers for the CLI and the page; infinite ends (no growth) become None."""
    lo, hi = fit.years_per_10x_ci
    out = {
        "years_per_10x": _finite(fit.years_per_10x),
        "ci_low": _finite(lo),
        "ci_high": _finite(hi),
        "n_points": fit.n,
        "slope_log10_per_year": fit.b,
        "slope_se": fit.se_b,
        "slope_ci": list(fit.slope_ci),
        "log10_at_2000": fit.a,
        "doubling_years": _finite(math.log10(2) / fit.b if fit.b > 0 else math.inf),
        "r2": fit.r2,
        "resid_sd_log10": fit.resid_sd,
        "first_year": fit.x0,
        "last_year": fit.x1,
    }
    if boot is not None:
        out.update(
            {
                "boot_low": _finite(boot.years_lo),
                "boot_high": _finite(boot.years_hi),
                "n_boot": boot.n_boot,
                "seed": boot.seed,
                "boot_share_nonpositive": boot.share_nonpositive,
            }
        )
    return out


def fit_window(
    df: pd.DataFrame,
    series,
    precision: str = FP32,
    start: float = -math.inf,
    end: float = math.inf,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> tuple[pd.DataFrame, Fit, Bootstrap | None]:
    """The rows, the OLS fit and (n_boot > 0) the bootstrap for one window, series set and precision."""
    rows = fit_rows(df, series, precision, start, end)
    fit = ols(rows["year"], rows["value"])
    boot = bootstrap(rows["year"], rows["value"], n_boot, seed) if n_boot > 0 else None
    return rows, fit, boot


def precision_gain(df: pd.DataFrame, start: float = 2006, end: float = 2025) -> dict:
    """GPU era, Epoch rows: FP32 vs best-precision fits, and the per-chip factor lower precision adds."""
    fp32 = fit_rows(df, ["epoch_ml_hardware"], FP32, start, end)
    best = fit_rows(df, ["epoch_ml_hardware"], BEST, start, end)
    f32, fbest = ols(fp32["year"], fp32["value"]), ols(best["year"], best["value"])
    both = df[
        (df["series"] == "epoch_ml_hardware")
        & df[VALUE].notna()
        & df[BEST_VALUE].notna()
        & (df["fit_note"] != NOT_FP32)
        & in_window(df["year"], start, end)
    ]
    ratio = both[BEST_VALUE] / both[VALUE]
    span = (min(f32.x0, fbest.x0), max(f32.x1, fbest.x1))
    gain32 = 10 ** (f32.b * (span[1] - span[0]))
    gain_best = 10 ** (fbest.b * (span[1] - span[0]))
    return {
        "rows": both,
        "fp32": f32,
        "best": fbest,
        "span": span,
        "fitted_gain_fp32": gain32,
        "fitted_gain_best": gain_best,
        "precision_share_of_log_gain": 1 - math.log10(gain32) / math.log10(gain_best),
        "chips": len(both),
        "chips_with_lower_precision": int((ratio > 1).sum()),
        "median_factor_where_lower": float(ratio[ratio > 1].median()) if (ratio > 1).any() else 1.0,
    }


def interval_text(lo: float, hi: float) -> str:
    return (
        f"{lo:.2f}–{hi:.2f}"
        if math.isfinite(hi)
        else f"{lo:.2f}–∞"
        if math.isfinite(lo)
        else content.text(BOOK, "unbounded")
    )


SLIDE_WINDOW = (1945, 1955, 2020)  # a window starting near 1950 and ending after 2020 is the slide's claim
GPU_ERA = 2006


def lessons(start: float, end: float, series, precision: str, fit: Fit | None, fixed: dict | None = None) -> list[str]:
    """What this window teaches, in words, once the student gets there (the page shows them as notes).
    `fixed` is the series fixed-effects fit of the same rows (`trend_models.fixed_effects`), when there is one."""
    if fit is None:
        return []
    rate = (
        content.text(BOOK, "lesson-rate", years=fit.years_per_10x)
        if fit.b > 0
        else content.text(BOOK, "lesson-no-rate")
    )
    ci = interval_text(*fit.years_per_10x_ci)
    notes = []
    if fit.b <= 0:
        notes.append(content.text(BOOK, "lesson-no-growth"))
    if "nordhaus2001" in series and SLIDE_WINDOW[0] <= start <= SLIDE_WINDOW[1] and end >= SLIDE_WINDOW[2]:
        text = content.text(BOOK, "lesson-slide-window", years=fit.years_per_10x, ci=ci)
        if fixed and fixed.get("years_per_10x") and fixed.get("ci_high"):
            text = content.text(
                BOOK,
                "lesson-slide-window-fixed",
                first=text,
                years=fixed["years_per_10x"],
                ci=interval_text(fixed["ci_low"], fixed["ci_high"]),
            )
        notes.append(text)
    if "nordhaus2001" in series and start < 1940 and fit.x0 < 1940:
        notes.append(content.text(BOOK, "lesson-before-1940", rate=rate))
    if fit.x0 >= GPU_ERA and precision == FP32 and "epoch_ml_hardware" in series:
        notes.append(content.text(BOOK, "lesson-gpu-fp32", since=GPU_ERA, rate=rate, ci=ci))
    if fit.x0 >= GPU_ERA and precision == BEST and "epoch_ml_hardware" in series:
        notes.append(content.text(BOOK, "lesson-gpu-best", since=GPU_ERA, rate=rate, ci=ci))
    if fit.n < 10:
        notes.append(content.text(BOOK, "lesson-few-points", n=fit.n))
    return notes


# ----------------------------------------------------------------------------------------------- uploads

MAX_ROWS = 10_000
YEAR_RANGE = (1800.0, 2100.0)
YEAR_NAMES = ("year", "date", "years")
VALUE_NAMES = (
    "value",
    VALUE,
    "ops_per_second_per_dollar_2024usd_cpiu",
    "ops_per_dollar",
    "ops_per_second_per_dollar",
    "flops_per_dollar",
    "y",
)
NAME_NAMES = ("name", "label", "machine")


def _number(cell: str) -> float:
    text = cell.strip()
    if "_" in text:  # Python's float() accepts "1_000"; a CSV reader should not
        return math.nan
    try:
        return float(text)
    except ValueError:
        return math.nan


def _numbers(cells: list[str], column: str, lines: list[int]) -> np.ndarray:
    values = np.array([_number(c) for c in cells], dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        example = cells[bad[0]].strip()
        shown = inline_code(example, 20) if example else content.text(BOOK, "upload-empty-cell")
        raise UploadError(
            content.text(
                BOOK,
                "upload-not-numbers",
                column=inline_code(column, 30),
                s="s" if len(bad) > 1 else "",
                lines=line_list([lines[i] for i in bad]),
                first=shown,
            )
        )
    return values


def _used_columns(header: list[str]) -> tuple[int | None, int | None, int | None]:
    """Where the year, value and (optional) name are in an upload's header; None for one it lacks."""
    return find_column(header, YEAR_NAMES), find_column(header, VALUE_NAMES), find_column(header, NAME_NAMES)


def validate_upload(raw: bytes) -> pd.DataFrame:
    """Parse an uploaded CSV into columns year, value, name; raise UploadError naming what is wrong.

    Accepts a header with `year` and `value` (or the project's full schema: `ops_per_dollar_2024usd`, or the
    fact sheet's column names), comma-separated, at most MAX_ROWS rows, positive values (the axis is log).
    """
    header, body = read_rows(raw, MAX_ROWS, keep=_used_columns)  # each row: its year, value and name cells
    year_col, value_col, name_col = _used_columns(header)
    if year_col is None or value_col is None:
        absent = [f"`{m}`" for m, c in (("year", year_col), ("value", value_col)) if c is None]
        missing = (
            content.text(BOOK, "upload-missing-one", name=absent[0])
            if len(absent) == 1
            else content.text(BOOK, "upload-missing-two", first=absent[0], second=absent[1])
        )
        separated = len(header) == 1 and any(s in header[0] for s in ";\t")
        if separated:
            raise UploadError(
                content.text(BOOK, "upload-missing-separators", missing=missing, value=VALUE, found=header_text(header))
            )
        raise UploadError(content.text(BOOK, "upload-missing", missing=missing, value=VALUE, found=header_text(header)))
    require_rows(body, [0, 1])
    line_numbers = [n for n, _ in body]
    years = _numbers([row[0] for _, row in body], header[year_col].strip(), line_numbers)
    values = _numbers([row[1] for _, row in body], header[value_col].strip(), line_numbers)
    outside = [line_numbers[i] for i in np.flatnonzero((years < YEAR_RANGE[0]) | (years > YEAR_RANGE[1]))]
    if outside:
        raise UploadError(
            content.text(
                BOOK,
                "upload-years",
                lo=YEAR_RANGE[0],
                hi=YEAR_RANGE[1],
                phrase=lines_phrase(outside, "is", "are"),
                lines=line_list(outside),
            )
        )
    nonpositive = [line_numbers[i] for i in np.flatnonzero(values <= 0)]
    if nonpositive:
        raise UploadError(
            content.text(
                BOOK,
                "upload-nonpositive",
                phrase=lines_phrase(nonpositive, "has", "have"),
                lines=line_list(nonpositive),
            )
        )
    names = [
        row[2].strip()[:60] if row[2] is not None else content.text(BOOK, "upload-line-name", n=n) for n, row in body
    ]
    return pd.DataFrame({"year": years, "value": values, "name": names})
