"""explorer.stats against closed forms, scipy and textbook tables; the reproduction tolerance's arithmetic."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats as sp

from explorer import stats


def test_the_sign_flip_test_is_exact_and_cannot_go_below_its_floor():
    # all 8 sign patterns of (1, 2, 3): only +-(1+2+3) reach |mean| 2, so p = 2/8
    assert stats.sign_flip_p([1.0, 2.0, 3.0]) == pytest.approx(0.25)
    assert stats.sign_flip_p([1.0, -1.0]) == 1.0
    assert stats.smallest_p(3) == 0.25 and stats.smallest_p(8) == pytest.approx(0.0078125)
    d = np.array([0.3, 0.1, 0.4, 0.2, 0.5])
    brute = np.mean([abs(np.dot(s, d)) >= abs(d.sum()) - 1e-12 for s in itertools.product((1, -1), repeat=5)])
    assert stats.sign_flip_p(d) == pytest.approx(brute) == pytest.approx(stats.smallest_p(5))


def test_the_permutation_test_enumerates_every_split():
    assert stats.permutation_p([1, 2, 3], [4, 5, 6]) == pytest.approx(0.1)  # 2 of C(6, 3) = 20 splits
    assert stats.smallest_p(3, 3) == pytest.approx(0.1)
    assert stats.permutation_p([1, 2], [1, 2]) == 1.0
    many = stats.permutation_p(list(range(10)), list(range(5, 15)))  # C(20, 10) splits: Monte Carlo, seeded
    assert many == stats.permutation_p(list(range(10)), list(range(5, 15))) and 0 < many < 0.05


def test_paired_and_welch_tests_agree_with_scipy():
    a, b = [0.31, 0.28, 0.35, 0.30, 0.33], [0.29, 0.27, 0.30, 0.31, 0.30]
    assert stats.paired_t(a, b)["p"] == pytest.approx(sp.ttest_rel(a, b).pvalue)
    assert stats.welch(a, b)["p"] == pytest.approx(sp.ttest_ind(a, b, equal_var=False).pvalue)
    assert stats.welch([1, 1], [1, 1])["p"] == 1.0 and stats.welch([2, 2], [1, 1])["p"] == 0.0
    assert math.isnan(stats.welch([1], [2, 3])["p"])


def test_tost_supports_equivalence_only_inside_the_declared_margin():
    rng = np.random.default_rng(0)
    base = rng.normal(size=12)
    close = base + rng.normal(scale=0.01, size=12)
    assert stats.tost_paired(close, base, margin=0.05)["p"] < 0.05
    assert stats.tost_paired(base + 0.2, base + rng.normal(scale=0.01, size=12), margin=0.05)["p"] > 0.5
    out = stats.tost_paired(close, base, margin=0.05)
    assert -0.05 < out["ci90"][0] < out["ci90"][1] < 0.05
    assert math.isnan(stats.tost_paired([1.0], [1.0], margin=0.1)["p"])


def test_holm_matches_the_step_down_rule_and_keeps_the_order():
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    adjusted = stats.holm([0.5, float("nan"), 0.01])
    assert adjusted[0] == pytest.approx(0.5) and math.isnan(adjusted[1]) and adjusted[2] == pytest.approx(0.02)


def test_bootstrap_intervals_are_seeded_and_cover_the_mean():
    values = np.arange(20.0)
    low, high = stats.bootstrap_ci(values)
    assert (low, high) == stats.bootstrap_ci(values) and low < values.mean() < high
    assert all(math.isnan(x) for x in stats.bootstrap_ci([1.0]))


def test_minimum_detectable_effects_match_power_tables():
    assert stats.minimum_detectable_effect(64, 64) == pytest.approx(0.50, abs=0.01)  # Cohen: d = 0.5 needs 64
    assert stats.minimum_detectable(1.0, 10**7) == pytest.approx(sp.norm.ppf(0.975) + sp.norm.ppf(0.8), rel=1e-3)
    assert stats.t_test_power(0.0, 5) == pytest.approx(0.05)


def test_compare_unpaired_reports_the_detectable_difference_in_loss_units():
    c = stats.compare_unpaired([1.0, 1.2, 1.1], [0.9, 1.0, 0.8])
    assert c["n"] == [3, 3] and c["mean_diff"] == pytest.approx(0.2)
    assert c["mde"] == pytest.approx(c["mde_sd"] * c["pooled_sd"]) and c["pooled_sd"] == pytest.approx(0.1)


def test_the_rerun_tolerance_is_z_standard_errors_of_a_difference_of_means_with_a_floor():
    assert stats.rerun_tolerance(0.1, 2) == pytest.approx(3 * 0.1 * math.sqrt(2 / 2))
    assert stats.rerun_tolerance(0.1, 8) == pytest.approx(0.15)
    assert stats.rerun_tolerance(0.0, 3, resolution=1 / 256) == pytest.approx(1 / 256)
    assert stats.rerun_tolerance(float("nan"), 1, resolution=0.01) == 0.01
