"""`python -m explorer reproduce`: every shipped result reruns here, in the tier its environment allows.

`make test` runs the quick slices of every shipped result once (about a minute); the tier of each is decided
from the environment the result records, so on the machine family that made them the check is bit for bit,
and on any other CPU it is the tolerance tier. On an AVX-512 machine a second run forces torch, MKL and oneDNN
down to AVX2 kernels, the way an AVX2 laptop computes, and checks that the tolerance tier runs there and agrees.
A tolerance that cannot fail is a defect, so a shipped result is tampered with and must be rejected.
`make test-repro` retrains every result whole (marker `repro`, hours on 2 cores).
"""

import json
import math
import os
import subprocess
import sys
from dataclasses import replace

import pytest
import torch

from explorer import environment, reproduce, shipped
from explorer.cli import main
from explorer.reproduce import Check, Comparison, first_difference, judge
from explorer.reproduce_checks import CHECKS
from tests.conftest import ROOT

AVX512 = torch.backends.cpu.get_cpu_capability() == "AVX512"
AVX2_KERNELS = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
BY_NAME = {c.name: c for c in CHECKS}
LADDERS = [c.name for c in CHECKS if c.name.startswith("ladder/")]  # their quick slices: test_reproduce_ladders.py


@pytest.fixture(scope="module")
def quick() -> dict:
    return reproduce.reproduce(quick=True, names=[c.name for c in CHECKS if c.name not in LADDERS])


def test_every_shipped_result_has_a_check_and_records_its_environment():
    data = ROOT / "data"
    shipped_files = {p for p in data.rglob("*.json") if p.parent.name != "reference"} | {
        data / "cache" / "encoder_sort.safetensors"
    }
    assert {c.path for c in CHECKS} == shipped_files
    for check in CHECKS:
        record = check.record()
        env = shipped.environment_of(record)
        assert env is not None and set(environment.REPLAY_FIELDS) <= set(env), check.name


def test_quick_reproduction_agrees_on_every_shipped_result_in_the_tier_its_environment_allows(quick):
    now = environment.current(shipped.TRAINING_THREADS)
    assert quick["environment"] == now
    assert [r["name"] for r in quick["results"]] == [c.name for c in CHECKS if c.name not in LADDERS]
    for result in quick["results"]:
        assert_agrees_in_its_tier(result, now)


def assert_agrees_in_its_tier(result: dict, now: dict) -> None:
    """The tier follows from the environment the shipped file records, and the check agrees in it."""
    made = shipped.environment_of(BY_NAME[result["name"]].record())
    expected = "exact" if not environment.replay_difference(made, now) else "tolerance"
    assert result["tier"] == expected, result
    assert result["agrees"], result
    assert result["detail"].startswith("environment matches" if expected == "exact" else "environment differs")


@pytest.mark.skipif(not AVX512, reason="emulating an AVX2 CPU needs an AVX-512 machine")
def test_on_avx2_kernels_the_tolerance_tier_runs_and_still_agrees():
    names = ["four_steps/check", "crossover/main", "four_steps/ablation"]
    out = subprocess.run(
        [sys.executable, "-m", "explorer", "reproduce", "--quick", "--json", "--only", *names],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **AVX2_KERNELS},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["environment"]["cpu_capability"] == "AVX2"
    assert [r["tier"] for r in report["results"]] == ["tolerance"] * len(names)
    assert all(r["agrees"] for r in report["results"]), report["results"]
    assert all("cpu_capability: AVX512 -> AVX2" in r["detail"] for r in report["results"])
    # other kernels really computed other bits: training amplified them
    assert sum("not bit-identical" in r["detail"] for r in report["results"]) >= 2


def _tampered(check: Check, change) -> Check:
    record = json.loads(json.dumps(check.record()))
    change(record)
    return replace(check, read=lambda path: record)


def _another_cpu() -> dict:
    now = environment.current(shipped.TRAINING_THREADS)
    return {**now, "cpu_capability": "AVX2" if now["cpu_capability"] != "AVX2" else "NEON"}


def test_a_deliberately_wrong_result_is_rejected_at_the_tolerance_tier():
    def lift_scores(record: dict) -> None:  # w=2 held-out accuracy 3 points higher at every checkpoint
        rec = record["runs"]["w2-d16-lr0.01"]
        rec["per_lag_accuracy"] = [[[a + 0.03 for a in lags] for lags in seed] for seed in rec["per_lag_accuracy"]]

    def one_more_parameter(record: dict) -> None:
        record["steps"][2]["params"] += 1

    for name, change, wrong in (
        ("crossover/main", lift_scores, "w=2 score"),
        ("four_steps/check", one_more_parameter, "share encoder/decoder: parameters"),
    ):
        result = judge(_tampered(BY_NAME[name], change), quick=True, now=_another_cpu())
        assert result["tier"] == "tolerance" and not result["agrees"], result
        assert any(wrong in part and "OUTSIDE" in part for part in result["detail"].split("; ")), result


def _made_here() -> bool:
    record = BY_NAME["four_steps/check"].record()
    return not environment.replay_difference(shipped.environment_of(record), environment.current(1))


@pytest.mark.skipif(not _made_here(), reason="the exact tier applies only where the shipped results were made")
def test_the_exact_tier_rejects_a_change_in_the_last_bit():
    def nudge(record: dict) -> None:
        record["steps"][4]["max_abs_logit_diff"] = math.nextafter(record["steps"][4]["max_abs_logit_diff"], math.inf)

    record = BY_NAME["four_steps/check"].record()
    made = shipped.environment_of(record)
    result = judge(_tampered(BY_NAME["four_steps/check"], nudge), quick=True, now=made)
    assert result["tier"] == "exact" and not result["agrees"]
    assert "max_abs_logit_diff" in result["detail"]


def test_the_cli_prints_the_documented_keys_and_exits_1_when_a_result_disagrees(capsys, monkeypatch):
    assert main(["reproduce", "--quick", "--json", "--only", "four_steps/check"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) >= {"environment", "results"}
    (result,) = report["results"]
    assert set(result) == {"name", "tier", "agrees", "detail"} and result["tier"] in ("exact", "tolerance")
    broken = _tampered(BY_NAME["four_steps/check"], lambda r: r["steps"][0].update(params=1))
    monkeypatch.setattr("explorer.reproduce_checks.CHECKS", [broken])
    assert main(["reproduce", "--quick", "--json", "--only", "four_steps/check"]) == 1
    assert json.loads(capsys.readouterr().out)["results"][0]["agrees"] is False


def test_an_unknown_name_gets_one_clear_line(capsys):
    assert main(["reproduce", "--quick", "--only", "depth/mian"]) == 2
    err = capsys.readouterr().err
    assert "unknown result(s) depth/mian" in err and "depth/main" in err


def test_first_difference_names_the_path_of_the_first_differing_number():
    assert first_difference({"a": [1.0, 2.0]}, {"a": [1.0, 2.0]}) == ""
    assert first_difference({"a": [1.0, 2.0]}, {"a": [1.0, 2.0000001]}).startswith(".a[1]")
    assert "length 2 vs 1" in first_difference([1, 2], [1])
    assert "missing" in first_difference({"a": 1}, {"b": 1})


def test_a_comparison_outside_its_tolerance_or_not_a_number_does_not_hold():
    assert Comparison("x", 1.0, 1.05, 0.1).holds and not Comparison("x", 1.0, 1.2, 0.1).holds
    assert not Comparison("x", 1.0, float("nan"), 10.0).holds


@pytest.mark.repro
@pytest.mark.parametrize("name", [c.name for c in CHECKS])
def test_the_whole_shipped_result_retrains(name):
    result = judge(BY_NAME[name], quick=False)
    assert result["agrees"], result
