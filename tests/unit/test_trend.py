"""The compute-per-dollar fit against independent computations (scipy, closed forms, refitting each resample)
and against the numbers published with the fact table for three windows."""

import math

import numpy as np
import pytest
from scipy import stats

from explorer import trend

MAIN = trend.MAIN_SERIES
# the fits published with the fact table for three windows: n, years per 10x, OLS and bootstrap 95% intervals
PUBLISHED = {
    "full span": ((-math.inf, math.inf), 157, "6.38", ("6.03", "6.78"), ("5.55", "7.21")),
    "1950-2025": ((1950, 2025), 129, "4.95", ("4.83", "5.09"), ("4.81", "5.09")),
    "2006-2025": ((2006, 2025), 51, "10.3", ("7.7", "15.8"), ("7.6", "15.1")),
}


def _as_published(value: float, text: str) -> bool:
    """`value` rounds to `text` at the number of decimals `text` shows."""
    return abs(value - float(text)) <= 0.5 * 10 ** -len(text.split(".")[1]) + 1e-12


@pytest.fixture(scope="module")
def df():
    return trend.load()


@pytest.mark.parametrize("name", PUBLISHED)
def test_main_fit_matches_the_published_table(df, name):
    (start, end), n, years, ci, boot_ci = PUBLISHED[name]
    _, fit, boot = trend.fit_window(df, MAIN, trend.FP32, start, end)
    assert fit.n == n
    assert _as_published(fit.years_per_10x, years)
    assert all(map(_as_published, fit.years_per_10x_ci, ci))
    assert all(map(_as_published, (boot.years_lo, boot.years_hi), boot_ci))


def test_ols_agrees_with_scipy_linregress_and_polyfit(df):
    rows = trend.fit_rows(df, ["kurzweil2005", "nordhaus2001"], trend.FP32, 1900, 2001)
    x, y = rows["year"].to_numpy(), np.log10(rows["value"].to_numpy())
    fit = trend.ols(x, rows["value"])
    lr = stats.linregress(x - trend.CENTER, y)
    assert fit.b == pytest.approx(lr.slope, rel=1e-12)
    assert fit.a == pytest.approx(lr.intercept, rel=1e-12)
    assert fit.se_b == pytest.approx(lr.stderr, rel=1e-10)
    assert fit.se_a == pytest.approx(lr.intercept_stderr, rel=1e-10)
    assert fit.r2 == pytest.approx(lr.rvalue**2, rel=1e-12)
    assert np.polyfit(x, y, 1)[0] == pytest.approx(fit.b, rel=1e-10)
    assert fit.t == pytest.approx(stats.t.ppf(0.975, len(x) - 2))


def test_noise_free_exponential_is_recovered_exactly():
    years = np.arange(1960, 2021, 3.0)
    values = 42.0 * 10 ** ((years - 1960) / 5)  # exactly 10x every 5 years
    fit = trend.ols(years, values)
    assert fit.years_per_10x == pytest.approx(5.0, rel=1e-12)
    assert fit.resid_sd == pytest.approx(0, abs=1e-10)
    lo, hi = fit.prediction_band([1990, 2050])
    assert hi - lo == pytest.approx([0, 0], abs=1e-8)
    assert trend.bootstrap(years, values, n_boot=50).years_lo == pytest.approx(5.0, rel=1e-9)


def test_band_widths_follow_the_closed_forms(df):
    _, fit, _ = trend.fit_window(df, MAIN, trend.FP32, 1950, 2025, n_boot=0)
    years = np.linspace(1900, 2060, 81)
    c_lo, c_hi = fit.confidence_band(years)
    p_lo, p_hi = fit.prediction_band(years)
    assert np.all(p_hi - p_lo > c_hi - c_lo)  # a new machine is less certain than the mean line
    assert np.allclose((c_lo + c_hi) / 2, fit.line(years)) and np.allclose((p_lo + p_hi) / 2, fit.line(years))
    # at the mean year the mean line's variance is s²/n, a new point's s²(1 + 1/n)
    c_lo, c_hi = fit.confidence_band([fit.x_mean])
    p_lo, p_hi = fit.prediction_band([fit.x_mean])
    assert (c_hi - c_lo)[0] / 2 == pytest.approx(fit.t * fit.resid_sd / math.sqrt(fit.n), rel=1e-9)
    assert (p_hi - p_lo)[0] / 2 == pytest.approx(fit.t * fit.resid_sd * math.sqrt(1 + 1 / fit.n), rel=1e-9)
    widths = np.diff(np.column_stack(fit.confidence_band(years)), axis=1).ravel()
    assert np.argmin(widths) == np.argmin(np.abs(years - fit.x_mean))  # narrowest at the mean year
    assert widths[-1] > 2 * widths.min()  # and widening into the extrapolation


def test_vectorized_bootstrap_equals_refitting_each_resample(df):
    rows = trend.fit_rows(df, MAIN, trend.FP32, 2006, 2025)
    x, v = rows["year"].to_numpy(), rows["value"].to_numpy()
    slopes = trend.bootstrap_slopes(x, v, n_boot=200, seed=3, block_bytes=30_000)  # several blocks
    rng = np.random.default_rng(3)
    for b in slopes[:200]:
        i = rng.integers(0, len(x), len(x))
        assert b == pytest.approx(stats.linregress(x[i], np.log10(v[i])).slope, rel=1e-9)


def _slopes_in_one_call(years, values, n_boot: int, seed: int) -> np.ndarray:
    """The bootstrap as it was before its blocks had a memory budget: every resample drawn in one array."""
    x, y = np.asarray(years, float) - trend.CENTER, np.log10(np.asarray(values, float))
    idx = np.random.default_rng(seed).integers(0, len(x), (n_boot, len(x)))
    xs, ys = x[idx], y[idx]
    xd = xs - xs.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        b = (xd * (ys - ys.mean(axis=1, keepdims=True))).sum(axis=1) / (xd * xd).sum(axis=1)
    return b[np.isfinite(b)]


@pytest.mark.parametrize("n_points", [2, 3, 157, 4_001])
def test_blocked_bootstrap_is_bit_identical_to_one_call(n_points):
    rng = np.random.default_rng(n_points)
    years = rng.choice([1990.0, 2000.0, 2010.0], n_points) if n_points < 10 else rng.uniform(1950, 2025, n_points)
    values = 10 ** (0.1 * (years - 2000) + rng.normal(0, 0.5, n_points))
    n_boot = trend.n_boot_for(n_points)
    before = _slopes_in_one_call(years, values, n_boot, trend.SEED)
    for block_bytes in (1, 24 * n_points * 7, trend.BLOCK_BYTES):  # one resample a block, seven, the default
        assert np.array_equal(trend.bootstrap_slopes(years, values, n_boot, trend.SEED, block_bytes), before)
    boot = trend.bootstrap(years, values, n_boot)
    lo, hi = np.percentile(before, [2.5, 97.5])
    assert (boot.slope_lo, boot.slope_hi) == (lo, hi)


def test_a_bootstrap_block_stays_within_its_memory_budget():
    assert trend.block_rows(trend.MAX_ROWS) * trend.MAX_ROWS * trend.BYTES_PER_DRAW <= trend.BLOCK_BYTES
    assert trend.block_rows(10**9) == 1 and trend.block_rows(0) >= trend.N_BOOT


def test_no_growth_gives_unbounded_intervals_and_json_safe_summary():
    years = np.arange(2000, 2010.0)
    values = 10 ** (1 + 0.3 * np.sin(years))  # flat with wiggles
    fit = trend.ols(years, values)
    boot = trend.bootstrap(years, values, n_boot=500)
    assert fit.slope_ci[0] < 0 < fit.slope_ci[1]
    assert math.isinf(fit.years_per_10x_ci[1]) and math.isinf(boot.years_hi)
    assert 0 < boot.share_nonpositive < 1
    s = trend.summary(fit, boot)
    assert s["ci_high"] is None and s["boot_high"] is None
    falling = trend.ols(years, 10 ** (5 - 0.1 * (years - 2000)))
    assert math.isinf(falling.years_per_10x) and trend.summary(falling)["years_per_10x"] is None


@pytest.mark.parametrize(
    "years, message",
    [([], "0 points in 0 years"), ([2000, 2001], "2 points in 2 years"), ([2000, 2000, 2000], "3 points in 1 year")],
)
def test_too_little_to_fit_is_a_clear_value_error(years, message):
    with pytest.raises(ValueError, match=message):
        trend.ols(years, np.ones(len(years)))


def test_fit_rows_select_the_main_set_and_precisions(df):
    main = trend.fit_rows(df, MAIN, trend.FP32)
    assert len(main) == 157 and set(main.index) == set(df.index[df["in_main_fit"] == "yes"])
    assert "manual" not in set(trend.fit_rows(df, [s.key for s in trend.SERIES])["kind"])
    best = trend.fit_rows(df, ["epoch_ml_hardware"], trend.BEST)
    assert len(best) == 52 and (best["value"] >= best[trend.VALUE].where(best[trend.VALUE].notna(), 0)).all()
    assert trend.fit_rows(df, MAIN, trend.FP32, 2025, 2025)["year"].tolist() == []
    assert trend.fit_rows(df, ["wikipedia_gpu_lists_frontier"], trend.FP32, 2025, 2025)["year"].tolist() == [2025.42]
    with pytest.raises(ValueError, match="unknown series"):
        trend.fit_rows(df, ["moore1965"])
    with pytest.raises(ValueError, match="precision"):
        trend.fit_rows(df, MAIN, "fp8")


def test_precision_gain_compares_fp32_with_best_precision(df):
    gain = trend.precision_gain(df)
    assert gain["fp32"].years_per_10x == pytest.approx(10.33, abs=0.01)
    assert gain["best"].years_per_10x == pytest.approx(7.06, abs=0.01)
    span = gain["span"][1] - gain["span"][0]
    assert gain["fitted_gain_fp32"] == pytest.approx(10 ** (gain["fp32"].b * span))
    assert 0 < gain["precision_share_of_log_gain"] < 1
    assert 0 < gain["chips_with_lower_precision"] < gain["chips"] == 51
    assert gain["median_factor_where_lower"] > 1


def test_lessons_speak_when_the_student_reaches_the_lecture_windows(df):
    def notes(start, end, precision=trend.FP32, series=MAIN):
        _, fit, _ = trend.fit_window(df, series, precision, start, end, n_boot=0)
        return " ".join(trend.lessons(start, end, series, precision, fit))

    slide = trend.lessons(
        1950,
        2025,
        MAIN,
        trend.FP32,
        trend.fit_window(df, MAIN, trend.FP32, 1950, 2025, n_boot=0)[1],
        {"years_per_10x": 5.67, "ci_low": 5.40, "ci_high": 5.97},
    )
    assert "slide's window" in slide[0] and "4.95" in slide[0] and "5.67 years (5.40–5.97)" in slide[0]
    assert "about half" in notes(2006, 2025) and "best available" in notes(2006, 2025)
    assert "lower precision" in notes(2006, 2025, trend.BEST)
    assert "Before about 1940" in notes(1850, 2025)
    assert notes(1970, 2000) == ""
    assert trend.lessons(1950, 2025, MAIN, trend.FP32, None) == []
    assert trend.interval_text(4.826, math.inf) == "4.83–∞"


def test_large_uploads_get_fewer_resamples_but_never_under_500():
    assert trend.n_boot_for(157) == trend.N_BOOT == 5000
    assert trend.n_boot_for(1000) == 2000
    assert trend.n_boot_for(trend.MAX_ROWS) == 500
    assert trend.n_boot_for(0) == 5000
