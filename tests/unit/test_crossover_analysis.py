"""Crossover detection, b*(r), checkpoints and reuse of stored records, on synthetic curves (no training)."""

import math

import numpy as np
import pytest

from explorer.costs import stack_forward_flops
from explorer.experiments.crossover import (PRESETS, SweepConfig, analyse, at_budget, best_structure, changes,
                                            checkpoint_steps, crossing, estimate_seconds, from_shipped, slice_record,
                                            window_kernel_flops)
from explorer.recall import WEIGHTS, ceiling

FLOPS = np.logspace(9, 11, 9)  # one checkpoint every quarter decade


def test_crossing_is_interpolated_in_log_flops():
    more = np.array([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    less = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9, 0.9])
    # less - more goes from -0.1 at 10^9.75 to +0.1 at 10^10: halfway in log FLOPs
    assert crossing(FLOPS, more, less) == pytest.approx(10 ** 9.875)


def test_the_last_overtaking_counts_and_ties_are_not_leads():
    more = np.full(9, 0.5)
    wobbly = np.array([0.1, 0.52, 0.3, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8])  # briefly ahead, then behind, then for good
    assert crossing(FLOPS, more, wobbly) == pytest.approx(FLOPS[4])  # last point not ahead: exactly tied there
    assert crossing(FLOPS, more, np.full(9, 0.505)) is None  # never more than a tie apart
    assert crossing(FLOPS, more, np.linspace(0.6, 0.9, 9)) is None  # less structure was never behind
    assert crossing(FLOPS, more, np.linspace(0.1, 0.45, 9)) is None  # never overtakes within the budget
    assert crossing(FLOPS, more, np.linspace(0.496, 0.6, 9)) is None  # more structure never clearly led


def test_b_star_is_the_argmax_of_the_mean_curves():
    one_seed = {2: np.array([[0.4, 0.5, 0.5, 0.5]]), 8: np.array([[0.2, 0.45, 0.7, 0.7]]),
                48: np.array([[0.1, 0.3, 0.6, 0.9]])}  # [seeds, checkpoints]
    rows = best_structure(np.array([1e9, 1e10, 1e11, 1e12]), one_seed)
    assert [r["window"] for r in rows] == [2, 2, 8, 48]
    assert rows[2]["lead"] == pytest.approx(0.1)
    assert [r["clear"] for r in rows] == [True, True, True, True]  # one seed: the lead alone decides
    assert [r["confidence"] for r in rows] == [None] * 4  # and nothing says how sure


def test_b_star_near_a_tie_is_not_clear_and_makes_no_step():
    one_seed = {2: np.array([[0.125, 0.5, 0.5]]), 48: np.array([[0.126, 0.3, 0.9]])}
    rows = best_structure(np.array([1e9, 1e10, 1e11]), one_seed)
    assert [r["window"] for r in rows] == [48, 2, 48] and [r["clear"] for r in rows] == [False, True, True]
    assert [r["window"] for r in changes(rows)] == [2, 48]


def test_checkpoints_are_log_spaced_and_shorter_runs_evaluate_at_a_prefix():
    long, short = checkpoint_steps(800), checkpoint_steps(200)
    assert long[0] == 4 and long[-1] == 800 and short[-1] == 200
    assert short == [s for s in long if s <= 200]  # budgets 100 * 2^m lie on the grid
    ratios = np.diff(np.log2(long[8:-1]))
    assert np.allclose(ratios, 1 / 3, atol=0.05)
    assert checkpoint_steps(21)[-1] == 21 and checkpoint_steps(3) == [3]


def test_training_flops_are_the_cost_formula_and_the_same_for_every_window():
    cfg = SweepConfig()
    per_seq = stack_forward_flops(cfg.model_config(2), 48, 48)
    assert cfg.flops_per_step == 3 * 16 * per_seq
    # by hand: q,k,v,o + MLP + dense 48x48 scores and weighted sum + a 40-way head, for 48 tokens
    d, t = 40, 48
    assert per_seq == 2 * t * d * d * 4 + 2 * t * d * 160 * 2 + 2 * t * t * d * 2 + 2 * t * d * 40
    assert stack_forward_flops(cfg.model_config(48), 48, 48) == per_seq
    # a kernel that skips masked entries: full attention keeps the causal triangle, w=2 a band of two
    causal = stack_forward_flops(cfg.model_config(48), 48, 48, causal_only=True)
    assert window_kernel_flops(cfg, 48) == 3 * 16 * causal
    assert window_kernel_flops(cfg, 1) == 3 * 16 * (per_seq - 2 * (t * t - t) * d * 2)
    assert 0.85 < window_kernel_flops(cfg, 2) / window_kernel_flops(cfg, 48) < 0.95


def _synthetic_sweep(cfg: SweepConfig) -> dict:
    """Per-lag accuracies that follow a saturating curve: lags in reach rise to 1 at a rate that falls with w."""
    steps = cfg.checkpoints()
    records = {}
    for w in cfg.windows:
        rows = []
        for seed in cfg.seeds:
            per_ckpt = []
            for s in steps:
                learnt = 1 - math.exp(-s * (1 + 0.1 * seed) / (10 * w))
                per_ckpt.append([1 / 8 + (7 / 8) * learnt if lag <= w - 1 else 1 / 8 for lag in cfg.lags])
            rows.append(per_ckpt)
        records[str(w)] = {"window": w, "seeds": list(cfg.seeds), "steps": steps, "per_lag_accuracy": rows,
                           "eval_loss": [[0.0] * len(steps) for _ in cfg.seeds]}
    return {"config": cfg.to_dict(), "windows": records, "stopped": "steps", "steps_done": cfg.steps, "seconds": 1.0}


def test_analysis_of_a_synthetic_sweep_finds_every_crossover_and_a_moving_b_star():
    cfg = SweepConfig(windows=(2, 4, 8, 16, 48), seeds=(0, 1, 2), steps=3200)
    a = analyse(_synthetic_sweep(cfg))
    assert len(a["crossovers"]) == 10
    for c in a["crossovers"]:
        assert c["seeds_with_crossover"] == 3, c
        assert c["flops_min"] <= c["flops_mean"] <= c["flops_max"]
    adjacent = [c for c in a["crossovers"] if (c["more_structure"], c["less_structure"])
                in {(2, 4), (4, 8), (8, 16), (16, 48)}]
    assert [c["flops_mean"] for c in adjacent] == sorted(c["flops_mean"] for c in adjacent)
    assert [r["window"] for r in a["b_star_changes"]] == [2, 4, 8, 16, 48]
    for w in cfg.windows:
        assert a["ceilings"][w] == ceiling(cfg.task, WEIGHTS, w)
        assert a["curves"][w]["mean"][-1] <= a["ceilings"][w] + 1e-12


def test_at_budget_reads_the_winner_and_when_to_remove_its_structure():
    cfg = SweepConfig(windows=(2, 4, 48), seeds=(0,), steps=3200)
    a = analyse(_synthetic_sweep(cfg))
    early = at_budget(a, a["flops"][1])
    assert early["winner"] == 2
    assert early["remove_at"]["more_structure"] == 2 and early["remove_at"]["flops_of_mean_curves"] > a["flops"][1]
    late = at_budget(a, a["flops"][-1])
    assert late["winner"] == 48 and late["remove_at"] is None
    assert at_budget(a, a["flops"][0] / 2) is None and at_budget(a, a["flops"][-1] * 2) is None


def test_the_score_mix_changes_the_analysis_without_training():
    cfg = SweepConfig(windows=(2, 48), seeds=(0,), steps=3200)
    swept = _synthetic_sweep(cfg)
    local_only = analyse(swept, (1, 0, 0, 0, 0))
    assert local_only["ceilings"] == {2: 1.0, 48: 1.0}
    assert local_only["crossovers"][0]["seeds_with_crossover"] == 0  # nothing to gain from long range
    assert analyse(swept)["crossovers"][0]["seeds_with_crossover"] == 1


def test_a_narrower_run_is_a_slice_of_a_shipped_one():
    big = SweepConfig(windows=(2, 48), seeds=(0, 1, 2), steps=800)
    shipped = _synthetic_sweep(big)
    small = SweepConfig(windows=(48,), seeds=(0, 2), steps=200)
    record = from_shipped(small, 48, shipped)
    assert record["seeds"] == [0, 2] and record["steps"] == checkpoint_steps(200)
    assert record["per_lag_accuracy"][1] == shipped["windows"]["48"]["per_lag_accuracy"][2][:len(record["steps"])]
    assert from_shipped(SweepConfig(windows=(8,), seeds=(0,), steps=200), 8, shipped) is None  # window not shipped
    assert from_shipped(SweepConfig(windows=(48,), seeds=(3,), steps=200), 48, shipped) is None  # seed not shipped
    assert from_shipped(SweepConfig(windows=(48,), steps=1600), 48, shipped) is None  # longer than shipped
    assert from_shipped(SweepConfig(windows=(48,), steps=300), 48, shipped) is None  # 300 is no checkpoint there
    assert from_shipped(SweepConfig(windows=(48,), steps=200, lr=1e-3), 48, shipped) is None  # other settings
    assert slice_record(shipped["windows"]["2"], [0, 1, 2], (0, 1, 2), 800) == shipped["windows"]["2"]


def test_estimates_count_training_steps_and_evaluation_as_forward_work():
    cfg = PRESETS["main"]
    n_checkpoints = len(cfg.checkpoints())  # 24 up to 800 steps
    # per model: 800 steps + 24 evaluations of 256 sequences, a forward pass being a third of a step of 16
    assert n_checkpoints == 24
    assert estimate_seconds(cfg, 1, 0.01) == pytest.approx(3 * (800 + 24 * 256 / 48) * 0.01)
    assert estimate_seconds(cfg, 5, 0.01) == pytest.approx(5 * estimate_seconds(cfg, 1, 0.01))


@pytest.mark.parametrize("kwargs", [dict(windows=()), dict(windows=(0, 4)), dict(windows=(49,)), dict(seeds=()),
                                    dict(seeds=(1, 1)), dict(steps=0), dict(steps=10 ** 6), dict(lr=float("nan")),
                                    dict(d_model=41)])
def test_bad_sweep_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        SweepConfig(**kwargs)


def test_a_time_cut_window_is_analysed_on_the_checkpoints_all_windows_share():
    cfg = SweepConfig(windows=(2, 48), seeds=(0,), steps=800)
    swept = _synthetic_sweep(cfg)
    cut = swept["windows"]["48"]
    keep = [i for i, s in enumerate(cut["steps"]) if s <= 79]
    cut["steps"] = [cut["steps"][i] for i in keep] + [87]  # stopped by the time limit at step 87
    cut["per_lag_accuracy"] = [[seed[i] for i in keep] + [seed[-1]] for seed in cut["per_lag_accuracy"]]
    a = analyse(swept)
    assert a["steps"] == [s for s in checkpoint_steps(800) if s <= 79]
    assert len(a["curves"][2]["mean"]) == len(a["curves"][48]["mean"]) == len(a["steps"])
