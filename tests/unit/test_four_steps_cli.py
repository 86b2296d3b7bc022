"""`python -m explorer four-steps`: the check's JSON keys, the shipped ablation and its reproduction."""

import json

import pytest
import torch

from explorer.cli import main
from explorer.experiments import four_steps as fs
from explorer.progress import Progress
from explorer.steps import FINAL_STEP


@pytest.fixture
def cli(capsys):
    """`python -m explorer four-steps ...` in this process (the command sets one thread; put it back after)."""
    before = torch.get_num_threads()

    def run(*args: str) -> dict:
        assert main(["four-steps", *args, "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    yield run
    torch.set_num_threads(before)


def test_check_prints_the_keys_other_tools_read(cli):
    result = cli("check", "--depth", "1", "--width", "16", "--heads", "2", "--train-steps", "30")
    assert [row["step"] for row in result["steps"]] == list(range(FINAL_STEP + 1))
    counts = fs.parameter_counts(fs.base_config(1, 16, 2))
    assert [row["params"] for row in result["steps"]] == [counts[str(k)] for k in range(FINAL_STEP + 1)]
    assert result["decoder_only_params"] == counts["decoder"]
    diffs = [row["max_abs_logit_diff"] for row in result["steps"]]
    assert all(isinstance(d, float) for d in diffs) and diffs[FINAL_STEP] < 1e-3 * diffs[4]


@pytest.fixture(scope="module")
def shipped():
    records = {preset: fs.load_shipped(fs.shipped_path(preset)) for preset in fs.PRESETS}
    assert all(records.values()), (
        "run `python -m explorer four-steps ablation --preset main --save` (and `--preset long --save`)"
    )
    return records


@pytest.mark.parametrize("preset", sorted(fs.PRESETS))
def test_each_shipped_budget_is_its_preset_with_both_paths_and_eight_or_more_seeds(shipped, preset):
    record = shipped[preset]
    settings = fs.AblationSettings.from_dict(record["settings"])
    assert settings == fs.PRESETS[preset] and len(settings.seeds) >= 8
    assert {"0", "0m", "1m", "2", "3", "4", fs.DECODER} <= set(settings.variants)
    assert record["complete"] and {(r["variant"], r["seed"]) for r in record["runs"]} == {
        (v, s) for v in settings.variants for s in settings.seeds
    }
    assert {r["steps_done"] for r in record["runs"]} == {settings.steps}
    assert len(record["seed_baseline"]) == len(settings.seeds)


def test_the_final_change_trains_into_decoder_only(shipped):
    runs = shipped["main"]["runs"]
    assert fs.summarize(runs)["final_vs_decoder"]["max_same_seed_gap"] < 1e-3  # the same function trains alike
    assert all(r["agreement"] > 0.99 for r in runs if r["variant"] == str(FINAL_STEP))  # and predicts alike


def test_the_long_budget_continues_the_main_runs_exactly(shipped):
    """Constant learning rate after warm-up: the 500-step runs pass through the 250-step runs' numbers."""
    main, long = shipped["main"], shipped["long"]
    at = {(r["variant"], r["seed"]): r["eval_loss"] for r in fs.runs_at(long["runs"], main["settings"]["steps"])}
    assert len(at) == len(long["runs"]) and at == {
        (r["variant"], r["seed"]): r["eval_loss"] for r in main["runs"] if (r["variant"], r["seed"]) in at
    }


def test_an_ablation_stopped_early_returns_its_finished_runs():
    settings = fs.AblationSettings(steps=5, seeds=(0,), depth=1, width=16, variants=("decoder", "4"))

    class OutOfTimeAfterOneRun(Progress):
        finished = 0

        def report(self, fraction: float, message: str) -> None:
            self.finished += "held-out loss" in message and ": step" not in message

        def time_left(self) -> float:
            return -1.0 if self.finished else 60.0

    partial = fs.run_ablation(settings, OutOfTimeAfterOneRun())
    assert partial["complete"] is False and partial["stopped"] == "stopped early"
    assert [r["variant"] for r in partial["runs"]] == ["decoder"]


def test_ablation_from_shipped_prints_paired_tests_with_holm_and_the_equivalence_test(capsys):
    from explorer import cli

    assert cli.main(["four-steps", "ablation", "--from-shipped", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["pairs"]) == 36 and set(out["pairs"][0]) >= {"a", "b", "mean_diff", "paired_p", "holm_p"}
    assert all(r["holm_p"] >= r["paired_p"] for r in out["pairs"])
    assert all(r["paired_p"] >= 2 / 2 ** r["n"] - 1e-12 for r in out["pairs"])  # exact: never below its floor
    eq = out["equivalence"]
    assert set(eq) >= {"a", "b", "margin", "p"} and (eq["a"], eq["b"]) == ("4", "decoder") and eq["margin"] > 0
    assert {f["variant"] for f in out["functions"]["variants"]} == set(fs.ALL_VARIANTS) - {fs.DECODER}
    assert {p["variant"]: p["width"] for p in out["parameters"]}["0m"] == 40


def test_the_long_budget_read_at_250_steps_gives_the_main_budgets_tests(capsys):
    from explorer import cli

    assert cli.main(["four-steps", "ablation", "--from-shipped", "--preset", "long", "--at-step", "250", "--json"]) == 0
    early = json.loads(capsys.readouterr().out)
    record = fs.load_shipped()
    seeds = set(fs.PRESETS["long"].seeds)
    same = fs.paired_analysis(
        [r for r in record["runs"] if r["seed"] in seeds and r["variant"] in fs.PRESETS["long"].variants]
    )
    assert early["pairs"] == same["pairs"] and early["equivalence"] == same["equivalence"]
    assert "functions" not in early  # the 500-step models say nothing about step 250
    assert cli.main(["four-steps", "ablation", "--from-shipped", "--preset", "long", "--at-step", "260"]) == 2
    assert "recorded no step 260" in capsys.readouterr().err
