"""Frontiers over model sizes, crossings, b*(r), checkpoints and reuse of stored records, on synthetic curves
(no training)."""

import math

import numpy as np
import pytest

from explorer.costs import stack_forward_flops
from explorer.experiments import crossover_frontier as fr
from explorer.experiments.crossover import (
    PRESETS,
    Run,
    SweepConfig,
    analyse,
    at_budget,
    best_structure,
    changes,
    checkpoint_steps,
    estimate_seconds,
    from_shipped,
    recipe_shift,
    window_kernel_flops,
)
from explorer.recall import WEIGHTS, ceiling

FLOPS = np.logspace(9, 11, 9)  # one point every quarter decade
MIN_LEAD = 0.01


def test_crossing_is_interpolated_in_log_flops():
    more = np.full(9, 0.5)
    less = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9, 0.9])
    # less - more goes from -0.1 at 10^9.75 to +0.1 at 10^10: halfway in log FLOPs
    assert fr.crossing(FLOPS, more, less, MIN_LEAD) == pytest.approx(10**9.875)


def test_the_last_overtaking_counts_and_ties_are_not_leads():
    more = np.full(9, 0.5)
    wobbly = np.array([0.1, 0.52, 0.3, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8])  # briefly ahead, then behind, then for good
    assert fr.crossing(FLOPS, more, wobbly, MIN_LEAD) == pytest.approx(FLOPS[4])  # tied exactly there
    assert fr.crossing(FLOPS, more, np.full(9, 0.505), MIN_LEAD) is None  # never more than a tie apart
    assert fr.crossing(FLOPS, more, np.linspace(0.6, 0.9, 9), MIN_LEAD) is None  # less structure never behind
    assert fr.crossing(FLOPS, more, np.linspace(0.1, 0.45, 9), MIN_LEAD) is None  # never overtakes
    assert fr.crossing(FLOPS, more, np.linspace(0.496, 0.6, 9), MIN_LEAD) is None  # more never clearly led


def test_a_curve_is_read_on_the_grid_in_log_flops_and_never_extrapolated():
    grid = np.array([1e8, 1e9, 10**9.5, 1e10, 1e11])
    curve = fr.on_grid(np.array([1e9, 1e10]), np.array([[0.2, 0.6]]), grid)
    assert np.isnan(curve[0, 0]) and np.isnan(curve[0, -1])  # before its first and after its last checkpoint
    assert curve[0, 1:4] == pytest.approx([0.2, 0.4, 0.6])
    assert len(fr.log_grid(1e8, 1e11)) == 3 * fr.GRID_PER_DECADE + 1


def test_the_frontier_is_the_best_size_spent_so_far_and_never_falls():
    small = np.array([0.3, 0.5, 0.4, np.nan, np.nan])  # stops early (and dips before it stops)
    big = np.array([np.nan, 0.2, 0.45, 0.7, 0.9])
    best, index = fr.best_of(np.stack([small, big]))
    assert best.tolist() == [0.3, 0.5, 0.5, 0.7, 0.9]  # a budget may stop at the small size's best checkpoint
    assert index.tolist() == [0, 0, 0, 1, 1]
    loss, which = fr.best_of(np.stack([[2.0, 1.0, np.nan], [np.nan, 1.5, 0.5]]), higher_is_better=False)
    assert loss.tolist() == [2.0, 1.0, 0.5] and which.tolist() == [0, 0, 1]
    none, missing = fr.best_of(np.full((2, 1), np.nan))
    assert np.isnan(none[0]) and missing[0] == -1


def test_b_star_is_the_argmax_of_the_frontiers():
    means = {2: np.array([0.4, 0.5, 0.5, 0.5]), 8: np.array([0.2, 0.45, 0.7, 0.7]), 48: np.array([0.1, 0.3, 0.6, 0.9])}
    rows = best_structure(np.array([1e9, 1e10, 1e11, 1e12]), means, None)
    assert [r["window"] for r in rows] == [2, 2, 8, 48]
    assert rows[2]["lead"] == pytest.approx(0.1)
    assert [r["clear"] for r in rows] == [True] * 4 and [r["confidence"] for r in rows] == [None] * 4


def test_b_star_near_a_tie_is_not_clear_and_makes_no_step():
    means = {2: np.array([0.125, 0.5, 0.5]), 48: np.array([0.126, 0.3, 0.9])}
    rows = best_structure(np.array([1e9, 1e10, 1e11]), means, None)
    assert [r["window"] for r in rows] == [48, 2, 48] and [r["clear"] for r in rows] == [False, True, True]
    assert [r["window"] for r in changes(rows)] == [2, 48]


def test_checkpoints_are_log_spaced_and_shorter_runs_evaluate_at_a_prefix():
    long, short = checkpoint_steps(800), checkpoint_steps(200)
    assert long[0] == 4 and long[-1] == 800 and short[-1] == 200
    assert short == [s for s in long if s <= 200]  # budgets 100 * 2^m lie on the grid
    assert np.allclose(np.diff(np.log2(long[8:-1])), 1 / 3, atol=0.05)
    assert checkpoint_steps(21)[-1] == 21 and checkpoint_steps(3) == [3]


def test_training_flops_are_the_cost_formula_grow_with_width_and_ignore_the_window():
    cfg = SweepConfig()
    t = 48
    for d in cfg.widths:
        per_seq = stack_forward_flops(cfg.model_config(2, d), t, t)
        assert cfg.flops_per_step(d) == 3 * 16 * per_seq
        # by hand: q,k,v,o + MLP + dense 48x48 scores and weighted sum + a 40-way head, for 48 tokens
        assert per_seq == 2 * t * d * d * 4 + 2 * t * d * 4 * d * 2 + 2 * t * t * d * 2 + 2 * t * d * 40
        assert stack_forward_flops(cfg.model_config(48, d), t, t) == per_seq
        causal = stack_forward_flops(cfg.model_config(48, d), t, t, causal_only=True)
        assert window_kernel_flops(cfg, 48, d) == 3 * 16 * causal
    assert cfg.flops_per_step(16) < cfg.flops_per_step(32) < cfg.flops_per_step(64)


def test_widths_must_suit_the_heads_and_learning_rates_must_be_positive():
    with pytest.raises(ValueError, match="multiples of the 4 heads"):
        SweepConfig(widths=(18,))
    with pytest.raises(ValueError, match="learning rates"):
        SweepConfig(lrs=(0.0,))
    assert SweepConfig(widths=(64, 16, 16)).widths == (16, 64)


def _synthetic_sweep(cfg: SweepConfig) -> dict:
    """Per-lag accuracies on a saturating curve: lags in reach rise to 1, slower for a wider window, faster per
    step for a wider model and a larger learning rate (so bigger models win at large compute)."""
    steps = cfg.checkpoints()
    runs = {}
    for run in cfg.runs:
        rows = []
        for seed in cfg.seeds:
            rate = (1 + 0.1 * seed) * (run.width / 16) * (run.lr / 1e-2) / (10 * run.window)
            learnt = [1 - math.exp(-s * rate) for s in steps]
            rows.append([[1 / 8 + 7 / 8 * x if lag <= run.window - 1 else 1 / 8 for lag in cfg.lags] for x in learnt])
        runs[run.key] = {
            "window": run.window,
            "width": run.width,
            "lr": run.lr,
            "seeds": list(cfg.seeds),
            "steps": steps,
            "per_lag_accuracy": rows,
            "eval_loss": [[2.0 - float(np.mean(r)) for r in seed_rows] for seed_rows in rows],
        }
    return {"config": cfg.to_dict(), "runs": runs, "stopped": "steps", "steps_done": cfg.steps, "seconds": 1.0}


def test_a_synthetic_sweep_gives_frontiers_crossovers_and_a_moving_b_star():
    cfg = SweepConfig(windows=(2, 4, 8, 16, 48), widths=(16, 32, 64), lrs=(1e-2,), seeds=(0, 1, 2), steps=800)
    a = analyse(_synthetic_sweep(cfg))
    assert len(a["crossovers"]) == 10
    for c in a["crossovers"]:
        assert c["seeds_with_crossover"] == 3, c
        assert c["flops_min"] <= c["flops_mean"] <= c["flops_max"]
    assert [r["window"] for r in a["b_star_changes"]] == [2, 4, 8, 16, 48]
    for w in cfg.windows:
        curve = a["curves"][w]
        assert a["ceilings"][w] == ceiling(cfg.task, WEIGHTS, w)
        assert curve["mean"][-1] <= a["ceilings"][w] + 1e-12
        assert np.all(np.diff(curve["mean"]) >= -1e-12)  # a frontier never falls
        assert curve["width"][0] == 16  # only the small size has spent so little
    assert a["curves"][48]["width"][-1] == 64  # and the slowest learner needs the big one at the end
    assert a["flops"][0] == pytest.approx(4 * cfg.flops_per_step(16))
    assert a["flops"][-1] == pytest.approx(800 * cfg.flops_per_step(64))
    loss = a["loss_frontier"][48]["loss"]
    assert np.all(np.diff(loss) <= 1e-12)  # the lowest held-out loss so far never rises


def test_the_learning_rate_view_moves_the_crossing_and_the_best_rate_is_never_worse():
    cfg = SweepConfig(windows=(2, 48), widths=(16, 32), lrs=(3e-3, 1e-2), seeds=(0, 1), steps=800)
    swept = _synthetic_sweep(cfg)
    best, slow, fast = analyse(swept), analyse(swept, lr=3e-3), analyse(swept, lr=1e-2)
    by_lr = best["crossovers"][0]["by_lr"]
    assert set(by_lr) == {"0.003", "0.01"}
    assert by_lr["0.003"]["flops_of_mean_curves"] == pytest.approx(slow["crossovers"][0]["flops_of_mean_curves"])
    assert by_lr["0.01"]["flops_of_mean_curves"] < by_lr["0.003"]["flops_of_mean_curves"]  # learns sooner
    for w in cfg.windows:
        assert np.all(best["curves"][w]["mean"] >= fast["curves"][w]["mean"] - 1e-12)
    shift = recipe_shift(best)
    assert (shift["more"], shift["less"], shift["both"], shift["pairs"]) == (2, 48, 1, 1)
    assert shift["lo"] == pytest.approx(by_lr["0.003"]["flops_of_mean_curves"] / by_lr["0.01"]["flops_of_mean_curves"])
    assert shift["by_lr"] == {lr: x["flops_of_mean_curves"] for lr, x in by_lr.items()}  # numbers; the view words them
    assert shift["best"] == best["crossovers"][0]["flops_of_mean_curves"]
    assert recipe_shift(fast) is None  # one rate: no view of the recipe
    with pytest.raises(ValueError, match="not one of this sweep's"):
        analyse(swept, lr=0.5)


def test_at_budget_reads_the_frontiers_and_when_to_remove_the_structure():
    cfg = SweepConfig(windows=(2, 4, 48), widths=(16, 32), lrs=(1e-2,), seeds=(0,), steps=800)
    a = analyse(_synthetic_sweep(cfg))
    early = at_budget(a, a["flops"][1])
    assert early["winner"] == 2 and early["confidence"] is None and early["width"][2] == 16
    assert early["remove_at"]["more_structure"] == 2 and early["remove_at"]["flops_of_mean_curves"] > a["flops"][1]
    on_grid = at_budget(a, a["flops"][12])
    assert on_grid["accuracy"] == {w: pytest.approx(a["curves"][w]["mean"][12]) for w in cfg.windows}
    late = at_budget(a, a["flops"][-1])
    assert late["winner"] == 48 and late["remove_at"] is None
    assert at_budget(a, a["flops"][0] / 2) is None and at_budget(a, a["flops"][-1] * 2) is None


def test_the_score_mix_changes_the_analysis_without_training():
    cfg = SweepConfig(windows=(2, 48), widths=(16, 32), lrs=(1e-2,), seeds=(0,), steps=800)
    swept = _synthetic_sweep(cfg)
    local_only = analyse(swept, (1, 0, 0, 0, 0))
    assert local_only["ceilings"] == {2: 1.0, 48: 1.0}
    assert local_only["crossovers"][0]["seeds_with_crossover"] == 0  # nothing to gain from long range
    assert analyse(swept)["crossovers"][0]["seeds_with_crossover"] == 1


def test_a_smaller_run_is_a_slice_of_a_shipped_one():
    big = SweepConfig(windows=(2, 48), widths=(16, 32), lrs=(1e-2,), seeds=(0, 1, 2), steps=800)
    shipped = _synthetic_sweep(big)
    small = SweepConfig(windows=(48,), widths=(32,), lrs=(1e-2,), seeds=(2,), steps=200)
    rec = from_shipped(small, Run(48, 32, 1e-2), shipped)
    assert rec["seeds"] == [2] and rec["steps"] == small.checkpoints()
    assert rec["per_lag_accuracy"][0] == shipped["runs"]["w48-d32-lr0.01"]["per_lag_accuracy"][2][: len(rec["steps"])]
    assert (
        from_shipped(SweepConfig(windows=(48,), widths=(32,), lrs=(3e-3,), steps=200), Run(48, 32, 3e-3), shipped)
        is None
    )  # a rate the shipped run never trained
    assert (
        from_shipped(SweepConfig(windows=(48,), widths=(32,), lrs=(1e-2,), steps=1600), Run(48, 32, 1e-2), shipped)
        is None
    )  # longer than shipped


def test_the_quick_preset_is_small_and_its_estimate_grows_with_the_rate():
    quick = PRESETS["quick"]
    assert len(quick.widths) >= 3 and len(quick.windows) == 2 and len(quick.seeds) == 2
    assert estimate_seconds(quick, seconds_per_model_step=0.02) == pytest.approx(
        2 * estimate_seconds(quick, seconds_per_model_step=0.01)
    )
