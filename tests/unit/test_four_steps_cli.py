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
    record = fs.load_shipped()
    assert record is not None, "data/four_steps/ablation.json is missing: run `python -m explorer four-steps ablation`"
    return record


def test_shipped_ablation_covers_every_variant_with_three_or_more_seeds_at_one_budget(shipped):
    settings = fs.AblationSettings.from_dict(shipped["settings"])
    assert shipped["complete"] and set(settings.variants) == set(fs.VARIANTS) and len(settings.seeds) >= 3
    assert {(r["variant"], r["seed"]) for r in shipped["runs"]} == {(v, s) for v in fs.VARIANTS for s in settings.seeds}
    assert {r["steps_done"] for r in shipped["runs"]} == {settings.steps}
    summary = fs.summarize(shipped["runs"])
    assert 0 <= summary["verdict"]["p"] <= 1 and summary["verdict"]["mde"] > 0
    assert summary["final_vs_decoder"]["max_same_seed_gap"] < 1e-3  # the same function trains alike


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
    assert len(out["pairs"]) == 21 and set(out["pairs"][0]) >= {"a", "b", "mean_diff", "paired_p", "holm_p"}
    assert all(r["holm_p"] >= r["paired_p"] for r in out["pairs"])
    assert all(r["paired_p"] >= 2 / 2 ** r["n"] - 1e-12 for r in out["pairs"])  # exact: never below its floor
    eq = out["equivalence"]
    assert set(eq) >= {"a", "b", "margin", "p"} and (eq["a"], eq["b"]) == ("4", "decoder") and eq["margin"] > 0
