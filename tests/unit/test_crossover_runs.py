"""Real training runs of the crossover sweep: the quick preset crosses, the CLI keys, the shipped data
reproduces, batched and one-by-one training agree, and the result cache serves a second call."""

import json
from dataclasses import replace

import pytest
import torch

from explorer import cli, results
from explorer.experiments.crossover import (CACHE_KIND, PRESETS, SweepConfig, WindowModels, plan, sweep,
                                            train_windows, window_key)
from explorer.progress import Deadline, Progress
from explorer.recall import WEIGHTS, ceiling
from tests.conftest import ROOT

SHIPPED = ROOT / "data" / "crossover" / "main.json"


def _cli_json(capsys, *argv: str) -> dict:
    assert cli.main(["crossover", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def quick() -> dict:
    """`python -m explorer crossover --preset quick --json`, run once for this module."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["crossover", "--preset", "quick", "--json"]) == 0
    return json.loads(out.getvalue())


def test_the_quick_preset_prints_the_documented_keys(quick):
    for key in ("windows", "checkpoints", "crossovers", "b_star"):
        assert key in quick
    assert quick["windows"] == [2, 48]
    row = quick["checkpoints"][-1]
    assert set(row) >= {"flops", "accuracy"} and set(row["accuracy"]) == {"2", "48"}
    assert set(quick["crossovers"][0]) >= {"more_structure", "less_structure", "flops_mean", "seeds_with_crossover"}
    assert set(quick["b_star"][0]) >= {"flops", "window", "lead", "clear", "confidence"}
    assert all(0 <= r["confidence"] <= 1 for r in quick["b_star"])
    assert quick["bootstrap"]["seeds"] == 2 and quick["bootstrap"]["resamples"] == 4  # all 2**2 draws
    assert set(quick["bootstrap"]["top_share"]) == {"2", "48"}
    flops = [r["flops"] for r in quick["checkpoints"]]
    assert flops == sorted(flops) and flops[-1] == PRESETS["quick"].steps * PRESETS["quick"].flops_per_step


def test_the_quick_preset_shows_a_crossover_and_a_moving_b_star(quick):
    c = quick["crossovers"][0]
    assert (c["more_structure"], c["less_structure"]) == (2, 48)
    assert c["seeds_with_crossover"] == 2, c  # both seeds: full attention overtakes the window of 2
    first, last = quick["checkpoints"][0]["flops"], quick["checkpoints"][-1]["flops"]
    assert first < c["flops_mean"] < last
    clear = [r["window"] for r in quick["b_star"] if r["clear"]]
    assert clear[0] == 2 and clear[-1] == 48
    # measured accuracies never beat the closed-form ceilings (beyond held-out sampling noise)
    for w in (2, 48):
        assert quick["checkpoints"][-1]["accuracy"][str(w)] <= ceiling(PRESETS["quick"].task, WEIGHTS, w) + 0.02
    assert quick["checkpoints"][-1]["accuracy"]["2"] > 0.45  # w=2 reached its ceiling of 0.475


@pytest.mark.skipif(not SHIPPED.is_file(), reason="no shipped results")
def test_the_shipped_main_results_are_complete():
    shipped = json.loads(SHIPPED.read_text())
    cfg = PRESETS["main"]
    assert shipped["stopped"] == "steps" and shipped["steps_done"] == cfg.steps and shipped["seconds"] > 0
    for w in cfg.windows:
        rec = shipped["windows"][str(w)]
        assert rec["steps"] == cfg.checkpoints() and rec["seeds"] == list(cfg.seeds)
        assert all(len(seed) == len(rec["steps"]) for seed in rec["per_lag_accuracy"])


def test_batched_and_one_by_one_training_agree():
    cfg = SweepConfig(windows=(4,), seeds=(0, 1), steps=12, eval_size=32)
    batched = train_windows(cfg)["windows"]["4"]
    single = train_windows(replace(cfg, batched=False))["windows"]["4"]
    a = torch.tensor(batched["eval_loss"])
    b = torch.tensor(single["eval_loss"])
    assert torch.allclose(a, b, atol=1e-4), (a - b).abs().max()


def test_all_windows_of_a_seed_start_from_the_same_weights_and_data():
    cfg = SweepConfig(windows=(2, 48), seeds=(3,), steps=1)
    narrow, wide = WindowModels(cfg, 2), WindowModels(cfg, 48)
    assert all(torch.equal(p, q) for p, q in zip(narrow._params, wide._params))
    assert torch.equal(narrow.eval_x, wide.eval_x)
    assert torch.equal(narrow.task.sample(4, narrow.data[0]), wide.task.sample(4, wide.data[0]))


def test_a_finished_window_is_cached_and_a_time_cut_run_is_not(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    cfg = SweepConfig(windows=(3,), seeds=(0,), steps=8, eval_size=8)
    first = sweep(cfg)
    assert first["sources"] == {"3": "trained"} and first["stopped"] == "steps"
    assert results.load(CACHE_KIND, window_key(cfg, 3)) == json.loads(json.dumps(first["windows"]["3"]))
    again = sweep(cfg, train=False)
    assert again["sources"] == {"3": "cache"} and again["windows"] == json.loads(json.dumps(first["windows"]))
    cut = replace(cfg, windows=(5,), steps=400)
    partial = sweep(cut, progress=Deadline(0.0))
    assert partial["stopped"] == "time_budget" and partial["steps_done"] == 1
    assert partial["windows"]["5"]["steps"] == [1]
    assert plan(cut).missing == [5]  # still missing: a partial run is never cached
    with pytest.raises(ValueError, match="no stored results for window"):
        sweep(cut, train=False)


def test_progress_reports_and_can_cancel():
    seen = []

    class Stop(Exception):
        pass

    class StopHalfWay(Progress):
        def report(self, fraction: float, message: str) -> None:
            seen.append(fraction)
            if fraction >= 0.5:
                raise Stop

    with pytest.raises(Stop):
        train_windows(SweepConfig(windows=(2,), seeds=(0,), steps=20, eval_size=8), progress=StopHalfWay())
    assert seen == [0.25, 0.5]
