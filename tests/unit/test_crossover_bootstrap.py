"""How sure b*(r) is: the paired seed bootstrap on constructed seed lists with known answers, and on the
shipped runs, whose crossing counts and b* steps the README quotes."""

from itertools import product

import numpy as np
import pytest

from explorer import shipped
from explorer.experiments.crossover import CLEAR_CONFIDENCE, analyse, at_budget, best_structure, changes, shipped_path
from explorer.formatting import sci
from explorer.stats import MONTE_CARLO, distinct_resamples, seed_resamples, top_share
from tests.conftest import ROOT


def test_the_bootstrap_of_few_seeds_is_exact_and_of_many_seeds_is_seeded():
    draws = seed_resamples(3)
    assert sorted(map(tuple, draws)) == sorted(product(range(3), repeat=3))  # all 27 draws, once each
    assert len({tuple(sorted(d)) for d in draws}) == distinct_resamples(3) == 10
    many = seed_resamples(8)
    assert many.shape == (MONTE_CARLO, 8) and np.array_equal(many, seed_resamples(8))  # fixed rng
    with pytest.raises(ValueError):
        seed_resamples(0)


def test_a_window_on_top_in_every_seed_gets_confidence_one():
    values = np.array([[0.9, 0.6, 0.7], [0.5, 0.55, 0.69]])  # [windows, seeds]: the first wins in each seed
    assert top_share(values).tolist() == [1.0, 0.0]


def test_two_identical_windows_share_the_top_evenly():
    same = [0.2, 0.5, 0.9]
    assert top_share(np.array([same, same, [0.1, 0.1, 0.1]])).tolist() == [0.5, 0.5, 0.0]


def test_winning_two_seeds_of_three_is_not_a_clear_win():
    # A - B is +1, +1, -1 per seed: A's resample mean is ahead unless seed 2 is drawn twice or more, which
    # happens in 7 of the 27 equally likely draws (6 with it twice, 1 with it three times)
    values = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    share = top_share(values)
    assert share[0] == pytest.approx(20 / 27) and share[1] == pytest.approx(7 / 27)
    assert share[0] < CLEAR_CONFIDENCE
    rows = best_structure(np.array([1e9]), {4: values[0][:, None], 8: values[1][:, None]})  # [seeds, 1]
    assert rows[0]["window"] == 4 and rows[0]["confidence"] == pytest.approx(20 / 27) and not rows[0]["clear"]


def test_shares_follow_the_trailing_axes_and_sum_to_one():
    rng = np.random.default_rng(1)
    values = rng.random((4, 5, 6))  # [windows, seeds, checkpoints]
    shares = top_share(values)
    assert shares.shape == (4, 6) and np.allclose(shares.sum(axis=0), 1.0)
    for c in range(6):
        assert np.allclose(shares[:, c], top_share(values[:, :, c]))


MAIN, DEFAULT_INIT = shipped_path("main"), shipped_path("main_default_init")
needs_shipped = pytest.mark.skipif(not (MAIN.is_file() and DEFAULT_INIT.is_file()), reason="no shipped results")


@pytest.fixture(scope="module")
def shipped_analyses() -> dict:
    return {name: analyse(shipped.load(path)) for name, path in (("main", MAIN), ("default", DEFAULT_INIT))}


@needs_shipped
def test_shipped_b_star_confidence_is_the_share_of_its_window_and_one_where_every_seed_agrees(shipped_analyses):
    for a in shipped_analyses.values():
        assert a["bootstrap"] == {"seeds": 3, "resamples": 27, "distinct": 10, "paired": True,
                                  "threshold": CLEAR_CONFIDENCE}
        per_seed = np.stack([a["curves"][w]["per_seed"] for w in a["windows"]])  # [W, S, C]
        for c, row in enumerate(a["b_star"]):
            assert row["confidence"] == a["top_share"][row["window"]][c]
            seed_winners = {a["windows"][i] for i in per_seed[:, :, c].argmax(axis=0)}
            if seed_winners == {row["window"]}:
                assert row["confidence"] == 1.0
            assert row["clear"] == (row["lead"] >= 0.01 and row["confidence"] >= CLEAR_CONFIDENCE)


@needs_shipped
def test_the_budget_read_out_bootstraps_the_interpolated_seeds(shipped_analyses):
    a = shipped_analyses["main"]
    on_grid = at_budget(a, a["flops"][10])
    assert on_grid["winner"] == a["b_star"][10]["window"]
    assert on_grid["confidence"] == pytest.approx(a["b_star"][10]["confidence"])
    between = at_budget(a, 10 ** 10.1)  # w=8 leads by more than 0.01, but not in enough resamples
    assert between["lead"] >= 0.01 and between["confidence"] < CLEAR_CONFIDENCE and not between["clear"]


@needs_shipped
def test_the_readme_quotes_the_shipped_crossings_and_b_star(shipped_analyses):
    readme = " ".join((ROOT / "README.md").read_text().split())
    main, default = shipped_analyses["main"], shipped_analyses["default"]
    seeds = len(main["seeds"])
    assert all(c["seeds_with_crossover"] == seeds for c in main["crossovers"])
    assert f"all {len(main['crossovers'])} pairs cross in {seeds} of {seeds} seeds" in readme
    short = [c for c in default["crossovers"] if c["seeds_with_crossover"] < seeds]
    assert f"{len(default['crossovers']) - len(short)} of {len(default['crossovers'])} do" in readme
    for c in short:
        assert f"w={c['more_structure']} -> w={c['less_structure']} crosses in {c['seeds_with_crossover']} of " \
               f"{seeds}" in readme
    steps = changes(main["b_star"])
    assert [r["window"] for r in steps] == [2, 4, 16, 48]
    assert f"w=2 (from {sci(steps[0]['flops'], 2)} FLOPs)" in readme
    assert f"attention (from {sci(steps[-1]['flops'], 2)})" in readme
    assert f"w=16 (one checkpoint, {steps[2]['confidence']:.0%})" in readme
    assert sum(r["clear"] and r["window"] == 16 for r in main["b_star"]) == 1
    boot = main["bootstrap"]
    assert f"over the {boot['seeds']} seeds (only {boot['distinct']} distinct" in readme
    assert f"at least {CLEAR_CONFIDENCE:.0%} of resamples" in readme
