"""How sure b*(r) is: the paired seed bootstrap that rebuilds every frontier, on constructed cases with known
answers, and on the shipped run."""

import numpy as np
import pytest

from explorer import shipped, stats
from explorer.experiments import crossover_frontier as fr
from explorer.experiments.crossover import CLEAR_CONFIDENCE, analyse, at_budget, shipped_path


def test_with_one_size_per_window_the_share_is_the_plain_paired_bootstrap():
    rng = np.random.default_rng(3)
    curves = np.cumsum(rng.random((4, 3, 7)), axis=-1)  # [windows, seeds, grid], rising: a frontier of one size
    assert np.allclose(fr.top_share(curves[:, None]), stats.top_share(curves))


def test_each_resample_rebuilds_the_frontier_from_its_means():
    # window A has two sizes, each good in one seed only; window B one steady size. The frontier of the means is
    # max(1/3, 1/3) < 1/2, so B leads, although A's per-seed frontiers (1, 1, 0) would average 2/3. A resample
    # puts A on top only when it draws seed 0 or seed 1 at least twice: 14 of the 27 draws.
    a = np.array([[[1.0], [0.0], [0.0]], [[0.0], [1.0], [0.0]]])  # [sizes, seeds, grid]
    b = np.full((2, 3, 1), 0.5)
    share = fr.top_share(np.stack([a, b]))
    assert share[:, 0] == pytest.approx([14 / 27, 13 / 27])
    assert fr.top_share(np.stack([a[:, :1], b[:, :1]])) is None  # one seed: nothing to resample


def test_a_size_that_stopped_early_still_counts_at_larger_budgets():
    early = np.array([[[0.9, np.nan]], [[0.8, np.nan]]])  # [seeds, ...] of a small size that stopped
    late = np.array([[[0.1, 0.5]], [[0.1, 0.5]]])
    shares = fr.top_share(np.stack([early.transpose(1, 0, 2), late.transpose(1, 0, 2)]))  # [W, K=1, S=2, G=2]
    assert shares[:, 1].tolist() == [1.0, 0.0]  # its 0.85 is reachable at the larger budget too


def test_shares_sum_to_one_at_every_grid_point():
    rng = np.random.default_rng(1)
    shares = fr.top_share(rng.random((4, 3, 5, 6)))  # [windows, sizes, seeds, grid]
    assert shares.shape == (4, 6) and np.allclose(shares.sum(axis=0), 1.0)


MAIN = shipped_path("main")
needs_shipped = pytest.mark.skipif(not MAIN.is_file(), reason="no shipped results")


@pytest.fixture(scope="module")
def main_analysis() -> dict:
    return analyse(shipped.load(MAIN))


@needs_shipped
def test_shipped_b_star_confidence_is_the_share_of_its_window(main_analysis):
    a = main_analysis
    assert a["bootstrap"] == {
        "seeds": 3,
        "resamples": 27,
        "distinct": 10,
        "paired": True,
        "threshold": CLEAR_CONFIDENCE,
    }
    for g, row in enumerate(a["b_star"]):
        assert row["confidence"] == a["top_share"][row["window"]][g]
        assert row["clear"] == (row["lead"] >= 0.01 and row["confidence"] >= CLEAR_CONFIDENCE)


@needs_shipped
def test_the_budget_read_out_on_a_grid_point_is_that_b_star_row(main_analysis):
    a = main_analysis
    for g in (3, len(a["flops"]) // 2, len(a["flops"]) - 1):
        read, row = at_budget(a, a["flops"][g]), a["b_star"][g]
        assert read["winner"] == row["window"] and read["confidence"] == pytest.approx(row["confidence"])
