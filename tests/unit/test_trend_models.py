"""The rate fitted other ways: per series, with series fixed effects, with HAC intervals, and backtested."""

import json

import numpy as np
import pandas as pd
import pytest

from explorer import cli, trend, trend_models as tm


@pytest.fixture(scope="module")
def rows():
    return trend.fit_rows(trend.load(), trend.MAIN_SERIES, trend.FP32, 1950, 2025)


def _synthetic(
    levels: dict[str, float], slope: float, years: dict[str, np.ndarray], noise: float = 0.0, seed: int = 0
) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = [
        pd.DataFrame(
            {
                "series": s,
                "year": y,
                "name": [f"{s}-{i}" for i in range(len(y))],
                "value": 10 ** (levels[s] + slope * (y - 2000) + noise * rng.standard_normal(len(y))),
            }
        )
        for s, y in years.items()
    ]
    return pd.concat(parts, ignore_index=True)


def test_fixed_effects_recover_the_slope_within_series_that_pooling_mixes_with_the_jump():
    years = {"nordhaus2001": np.arange(1950, 2001, 2.0), "epoch_ml_hardware": np.arange(2008, 2024, 1.0)}
    data = _synthetic({"nordhaus2001": 0.0, "epoch_ml_hardware": 3.0}, 0.1, years)
    fixed = tm.fixed_effects(data)
    assert fixed["years_per_10x"] == pytest.approx(10.0, rel=1e-9)
    assert fixed["log10_at_2000"]["epoch_ml_hardware"] - fixed["log10_at_2000"]["nordhaus2001"] == pytest.approx(3.0)
    pooled = trend.ols(data["year"], data["value"])
    assert pooled.years_per_10x < 8  # the jump between series is read as growth


def test_on_the_shipped_data_the_modelling_choice_moves_the_rate_beyond_its_interval(rows):
    pooled = trend.ols(rows["year"], rows["value"])
    fixed = tm.fixed_effects(rows)
    alone = {r["series"]: r for r in tm.by_series(rows)}
    assert pooled.years_per_10x == pytest.approx(4.95, abs=0.01)
    assert fixed["years_per_10x"] == pytest.approx(5.67, abs=0.01)
    assert fixed["ci_low"] > pooled.years_per_10x_ci[1]  # the two intervals do not overlap
    assert alone["nordhaus2001"]["years_per_10x"] == pytest.approx(5.57, abs=0.01)
    assert alone["epoch_ml_hardware"]["years_per_10x"] == pytest.approx(10.33, abs=0.01)
    assert sum(r["n"] for r in alone.values()) == pooled.n


def test_the_robust_interval_is_wider_where_neighbouring_years_share_their_errors(rows):
    robust = tm.robust(rows)
    textbook = trend.ols(rows["year"], rows["value"]).years_per_10x_ci
    assert robust["residual_lag1_autocorrelation"] > 0.2
    assert robust["ci_low"] < textbook[0] and robust["ci_high"] > textbook[1]
    assert robust["lag"] == tm.newey_west_lag(len(rows)) == 4 and "Newey-West" in robust["method"]


def test_with_independent_errors_the_robust_interval_matches_the_textbook_one():
    data = _synthetic(
        {"nordhaus2001": 0.0},
        0.2,
        {"nordhaus2001": np.sort(np.random.default_rng(1).uniform(1950, 2020, 400))},
        noise=0.5,
        seed=2,
    )
    robust, textbook = tm.robust(data), trend.ols(data["year"], data["value"])
    assert robust["slope_se"] == pytest.approx(textbook.se_b, rel=0.25)


def test_a_backtest_fits_up_to_a_year_and_measures_the_miss_after_it(rows):
    result = tm.backtest(rows, 2000)
    assert (result["n_train"], result["n_forecast"]) == (75, 54) and result["n_train"] + result["n_forecast"] == len(
        rows
    )
    assert result["median_error_decades"] == pytest.approx(1.43, abs=0.01)  # the GPUs beat the CPU-era line
    assert all(e["year"] >= 2001 for e in result["errors"])
    with pytest.raises(ValueError, match="no machine after 2025"):
        tm.backtest(rows, 2025)


def test_the_cli_keys(capsys):
    assert cli.main(["trend", "fit", "--boot", "0", "--json"]) == 0
    fit = json.loads(capsys.readouterr().out)
    assert {r["series"] for r in fit["by_series"]} == set(trend.MAIN_SERIES)
    assert set(fit["by_series"][0]) >= {"series", "years_per_10x", "ci_low", "ci_high", "n"}
    assert set(fit["fixed_effects"]) == {"years_per_10x", "ci_low", "ci_high"}
    assert set(fit["robust"]) == {"ci_low", "ci_high", "method"}
    assert cli.main(["trend", "backtest", "--train-end", "2000", "--json"]) == 0
    back = json.loads(capsys.readouterr().out)
    assert set(back) == {"train_end", "years_per_10x", "median_error_decades", "n_forecast"}
    assert back["train_end"] == 2000 and back["n_forecast"] == 54


def test_published_rates_carry_their_sources():
    for p in tm.PUBLISHED:
        assert p.source and p.start < p.end and 3 < p.years_per_10x < 12
    assert tm.PUBLISHED[0].years_per_10x == pytest.approx(5.26, abs=0.01)  # 55% a year
