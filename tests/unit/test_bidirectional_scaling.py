"""Slide 64, measured: prefix-LM against decoder-only over model sizes (explorer.experiments.bidirectional_scaling)."""

import json
from dataclasses import replace

import numpy as np
import pytest
import torch

from explorer.cli import main
from explorer.costs import stack_forward_flops
from explorer.experiments import bidirectional_scaling as bs
from explorer.figures import bidirectional_scaling as figs
from explorer.model import Transformer
from explorer.progress import Progress
from explorer.stats import smallest_p

TINY = bs.ScalingConfig(widths=(4, 8), budgets=(3, 6), seeds=(0,), n_layers=2, eval_size=16, warmup=2)


class Shared(Progress):
    """A progress that keeps every partial result the sweep shares."""

    def __init__(self) -> None:
        self.partials: list[dict] = []

    def share(self, partial: dict) -> None:
        self.partials.append(partial)


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))


def test_the_two_masks_share_config_parameters_flops_and_initial_weights():
    a, b = TINY.model_config(8, "decoder"), TINY.model_config(8, "prefix_lm")
    assert replace(a, arch="prefix_lm") == b
    torch.manual_seed(3)
    first = Transformer(a).state_dict()
    torch.manual_seed(3)
    second = Transformer(b).state_dict()
    assert first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)


def test_with_one_layer_the_masks_cannot_differ_on_the_targets():
    """Layer-1 keys and values come from each token's own embedding, and BOS already reads the whole input: the
    input's mask first matters for a target from layer 2 on (the cache page's layer-1 drift is zero too)."""
    one = replace(TINY, widths=(4,), n_layers=1)
    dec, pre = (bs.run_one(one, 4, mask, 0) for mask in bs.MASKS)
    assert [r["eval_loss"] for r in dec["history"]] == [r["eval_loss"] for r in pre["history"]]


def test_a_sweep_trains_paired_runs_and_shares_them_as_they_finish():
    progress = Shared()
    swept = bs.sweep(TINY, progress=progress)
    runs = {(r["width"], r["mask"]): r for r in swept["runs"]}
    assert len(runs) == 4 and swept["stopped"] == "steps"
    for width in TINY.widths:
        dec, pre = runs[(width, "decoder")], runs[(width, "prefix_lm")]
        assert dec["parameters"] == pre["parameters"] and dec["flops_per_step"] == pre["flops_per_step"]
        assert [row["step"] for row in dec["history"]] == [3, 6]
        assert [row["flops"] for row in dec["history"]] == [3 * dec["flops_per_step"], 6 * dec["flops_per_step"]]
        assert dec["history"][-1]["eval_loss"] != pre["history"][-1]["eval_loss"]  # the mask changes the model
    assert [len(p["runs"]) for p in progress.partials] == [1, 2, 3, 4]
    # the page's live figure draws every partial: nothing paired yet, then one width, then both
    drawn = [figs.gap_vs_compute(bs.points(p), p["config"]) for p in progress.partials]
    assert [len([t for t in f.data if t.name]) for f in drawn] == [0, 1, 1, 2]
    assert drawn[-1].layout.meta["evidence_kinds"] == ["measured"]
    assert bs.sweep(TINY)["runs"] == swept["runs"]  # the second sweep reads every run from the cache


def _swept(losses: dict[tuple[int, int, int], tuple[float, float]], cfg: bs.ScalingConfig) -> dict:
    """A sweep with given (decoder, prefix-LM) losses per (width, budget, seed)."""
    runs = []
    for width in cfg.widths:
        for seed in cfg.seeds:
            for i, mask in enumerate(bs.MASKS):
                history = [
                    {"step": b, "flops": 0.0, "eval_loss": losses[(width, b, seed)][i], "eval_accuracy": 0.5}
                    for b in cfg.budgets
                ]
                runs.append(
                    {
                        "width": width,
                        "mask": mask,
                        "seed": seed,
                        "parameters": width,
                        "flops_per_step": width,
                        "steps_done": cfg.steps,
                        "stopped": "steps",
                        "seconds": 0.0,
                        "history": history,
                    }
                )
    return {"config": cfg.to_dict(), "runs": runs}


def test_points_and_trend_read_the_paired_gaps():
    cfg = replace(TINY, widths=(4, 8, 16), budgets=(3, 6), seeds=(0, 1, 2, 3))
    # the gap halves with each doubling of width, plus a seed offset: every seed's slope is negative
    losses = {
        (w, b, s): (1.0 + 0.4 * 4 / w + 0.01 * s, 1.0) for w in cfg.widths for b in cfg.budgets for s in cfg.seeds
    }
    swept = _swept(losses, cfg)
    points = bs.points(swept)
    assert list(points[0])[:5] == list(bs.POINT_KEYS)
    first = points[0]
    assert (first["width"], first["steps"], first["flops"]) == (4, 3, 12.0)
    assert first["gap"] == pytest.approx(0.4 + 0.015)
    assert (first["gap_low"], first["gap_high"]) == pytest.approx((0.4, 0.43))
    trend = bs.trend(swept)
    width = trend["width"]
    assert width["negative"] == width["seeds"] == 4
    assert width["mean_slope"] == pytest.approx(np.polyfit(np.log2([4, 8, 16]), [0.4, 0.2, 0.1], 1)[0])
    assert width["p"] == pytest.approx(smallest_p(4))  # every seed the same sign: the floor of the exact test
    assert trend["budget"]["mean_slope"] == pytest.approx(0.0)  # no change with budget in these losses
    assert width["p_holm"] >= width["p"]


def test_a_cut_sweep_counts_only_complete_pairs():
    cfg = replace(TINY, seeds=(0, 1))
    swept = _swept({(w, b, s): (1.0, 0.9) for w in cfg.widths for b in cfg.budgets for s in cfg.seeds}, cfg)
    swept["runs"] = swept["runs"][:-1]  # the last prefix-LM run never finished
    gaps = bs.paired_gaps(swept)
    assert set(gaps[(8, 6)]) == {0} and set(gaps[(4, 6)]) == {0, 1}
    assert bs.trend(swept)["width"]["seeds"] == 1


def test_serving_re_encodes_the_whole_chat_while_the_cache_computes_the_new_turn():
    rows = bs.serving(TINY, 8, message=5, turns=4)
    cfg = replace(TINY.model_config(8, "decoder"), max_len=25)
    assert rows[0]["flops_reencode"] == rows[0]["flops_cached"]  # the opening turn: both compute everything once
    last = rows[-1]
    assert last["flops_reencode"] == stack_forward_flops(cfg, 20, 20)
    assert last["flops_cached"] == stack_forward_flops(cfg, 5, 20)
    assert last["ratio"] == pytest.approx(last["cum_reencode"] / last["cum_cached"]) and last["ratio"] > 1
    fig = figs.serving_cost(rows, 8, TINY.n_layers)
    assert fig.layout.meta["evidence_kinds"] == ["formula"]
    assert [t.y[-1] for t in fig.data] == [last["cum_reencode"], last["cum_cached"]]


@pytest.mark.parametrize(
    "bad",
    [dict(widths=(6,)), dict(widths=(1024,)), dict(budgets=(0, 5)), dict(seeds=(0, 0)), dict(task_name="shuffle")],
)
def test_bad_settings_are_refused_with_a_reason(bad):
    with pytest.raises(ValueError):
        replace(TINY, **bad)


def test_the_cli_prints_points_with_their_seed_interval(capsys):
    assert (
        main(
            [
                "bidirectional-scaling",
                "--preset",
                "quick",
                "--widths",
                "4,8",
                "--seeds",
                "1",
                "--budgets",
                "2,4",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert {p["width"] for p in out["points"]} == {4, 8}
    assert all(set(bs.POINT_KEYS) <= set(p) and p["gap_low"] <= p["gap"] <= p["gap_high"] for p in out["points"])
    assert "saved_to" not in out
