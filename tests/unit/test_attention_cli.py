"""`python -m explorer demo-models`: the recipe's arguments, clear refusals, and what it writes.

Whether the shipped models are what this command trains is `explorer reproduce`'s job (tests/unit/test_reproduce.py).
"""

import json

import pytest

from explorer import checkpoints
from explorer.cli import main


def _cli(capsys, *args: str) -> dict:
    assert main(["demo-models", "--quiet", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_short_run_writes_a_checkpoint_that_records_its_machine(capsys, tmp_path):
    result = _cli(capsys, "--archs", "decoder", "--steps", "3", "--out", str(tmp_path))
    (made,) = result["models"]
    assert made["steps"] == 3 and result["total_bytes"] == made["bytes"] > 0
    model, sidecar = checkpoints.load(made["path"])
    env = sidecar["meta"]["environment"]
    assert env["threads"] == 1 and env["torch"].startswith("2.13") and env["cpu_capability"]
    assert [row["step"] for row in sidecar["meta"]["history"]] == [3]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--archs", "gpt"], "--archs takes names"),
        (["--archs", ","], "--archs takes names"),
        (["--steps", "0"], "steps must be >= 1"),
    ],
)
def test_bad_arguments_get_one_clear_line(capsys, tmp_path, args, message):
    assert main(["demo-models", "--out", str(tmp_path), *args]) == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # refused before any training


def test_the_readable_summary_names_every_model(capsys, tmp_path):
    assert main(["demo-models", "--quiet", "--archs", "encoder", "--steps", "2", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "encoder" in out and "char acc" in out and "wrote 1 model (" in out
