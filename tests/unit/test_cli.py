import json
import subprocess
import sys

import pytest

from explorer.cli import main
from tests.conftest import ROOT


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_help_lists_the_subcommands(capsys):
    with pytest.raises(SystemExit) as done:  # in-process: the train test below runs `python -m explorer` itself
        main(["--help"])
    assert done.value.code == 0 and "train" in capsys.readouterr().out


def test_train_prints_a_real_history_as_one_json_object():
    out = _cli(
        "train", "--task", "sort", "--arch", "decoder", "--steps", "60", "--seed", "0", "--eval-every", "20", "--json"
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert [row["step"] for row in result["history"]] == [20, 40, 60]
    assert result["history"][-1]["eval_loss"] < result["history"][0]["eval_loss"]
    assert result["config"]["model"]["arch"] == "decoder"
    assert result["summary"]["tokens_per_second"] > 0


def test_bad_sizes_get_one_clear_line_not_a_traceback(capsys):
    assert main(["train", "--d-model", "30", "--heads", "4", "--json"]) == 2
    err = capsys.readouterr().err
    assert "divisible" in err and "Traceback" not in err
