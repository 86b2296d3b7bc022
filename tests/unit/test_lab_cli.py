"""The lab's command line: `lab list`, and --device, --recipe, --save on experiment commands (real tiny runs)."""

from __future__ import annotations

import json

import pytest

from explorer.cli import main
from explorer.commands.lab import shipped_results
from explorer.experiments import bidirectional_scaling as bs


def _json(capsys, *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_lab_list_names_every_experiment_with_its_units(capsys):
    out = _json(capsys, "lab", "list")
    names = [e["name"] for e in out["experiments"]]
    assert len(names) == 8 and "bidirectional-scaling" in names and "bitter-lesson" in names
    for e in out["experiments"]:
        assert set(e) >= {"name", "units", "estimated_seconds", "shipped", "cached", "missing"}
        assert e["units"] == e["shipped"] + e["cached"] + e["missing"] and e["units"] > 0


def test_every_shipped_result_records_its_recipe_and_device(capsys):
    for path in shipped_results():
        record = json.loads(path.read_text())
        assert record["device"] in ("cpu", "cuda", "mps"), path
        assert set(record["recipe"]) >= {"lr_grid", "lr_by_size", "schedule", "readout"}, path
    assert _json(capsys, "lab", "label-shipped")["files"] == []


def test_reviewed_recipe_through_the_cli_records_recipe_and_device_and_writes_nothing(capsys):
    before = bs.shipped_path("main").read_bytes()
    out = _json(
        capsys,
        "bidirectional-scaling",
        "--widths",
        "8",
        "--budgets",
        "5,10",
        "--seeds",
        "1",
        "--recipe",
        "reviewed",
        "--device",
        "cpu",
    )
    assert out["device"] == "cpu" and out["recipe"]["name"] == "reviewed"
    assert set(out["recipe"]["lr_by_size"]) == {"8"} and "saved_to" not in out
    assert bs.shipped_path("main").read_bytes() == before


def test_the_old_recipe_is_recorded_truthfully(capsys):
    out = _json(capsys, "bitter-lesson", "--cases", "order", "--seeds", "1", "--steps", "8")
    assert out["recipe"]["name"] == "old" and out["device"] == "cpu"


@pytest.mark.parametrize("argv", [["crossover", "--recipe", "reviewed"], ["bitter-lesson", "--device", "tpu"]])
def test_what_an_experiment_cannot_do_gets_one_clear_line(argv, capsys):
    with pytest.raises(SystemExit) if "tpu" in argv else _nothing():
        assert main(argv) == 2
    assert "Traceback" not in capsys.readouterr().err


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_an_experiment_read_at_the_end_runs_the_reviewed_recipe_and_records_each_models_rate(capsys):
    out = _json(capsys, "shared-params", "--preset", "quick", "--seeds", "1", "--steps", "10", "--recipe", "reviewed")
    assert out["recipe"]["name"] == "reviewed" and out["recipe"]["lr_by_size"]
    assert set(out["recipe"]["lr_by_size"].values()) <= set(out["recipe"]["lr_grid"])
    assert all(run["lr"] in out["recipe"]["lr_grid"] for run in out["runs"]) and "saved_to" not in out
