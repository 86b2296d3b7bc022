"""`python -m explorer cache ...`: the keys the issue names, the shipped encoder's producer, clear errors."""

import json
import subprocess
import sys

from explorer.cli import main
from explorer.experiments import cache as exp
from tests.conftest import ROOT

MEASURE_KEYS = {
    "flops_reencode",
    "flops_cached",
    "flop_ratio",
    "time_reencode_ms",
    "time_cached_ms",
    "speedup",
    "max_abs_logit_diff",
}


def _json(capsys, *argv) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_measure_as_a_subprocess_prints_one_json_object_with_the_named_keys():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "explorer",
            "cache",
            "measure",
            "--n",
            "1024",
            "--m",
            "8",
            "--depth",
            "2",
            "--repeats",
            "3",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert MEASURE_KEYS <= set(result)
    assert result["flop_ratio"] == (1024 + 8) / 8
    assert result["flops_reencode"] == 129 * result["flops_cached"]
    assert result["max_abs_logit_diff"] < 1e-5
    assert result["speedup"] == result["time_reencode_ms"] / result["time_cached_ms"]


def test_measure_turns_measures_the_later_turn(capsys):
    result = _json(
        capsys, "cache", "measure", "--n", "10", "--m", "4", "--depth", "1", "--turns", "3", "--repeats", "3"
    )
    assert result["n"] == 10 + 2 * 4 and result["m"] == 4 and result["flop_ratio"] == 22 / 4


def test_readable_output_names_speedup_and_ratio(capsys):
    assert main(["cache", "measure", "--n", "16", "--m", "4", "--depth", "1", "--repeats", "3"]) == 0
    text = capsys.readouterr().out
    assert "speedup" in text and "ratio 5.0x" in text


def test_drift_shows_zero_layer_one_and_causal_rounding(capsys):
    result = _json(capsys, "cache", "drift", "--n", "20", "--m", "6")
    rows = result["rows"]
    first_kv = [r for r in rows if r["quantity"] == "keys & values" and r["layer"] == "1"]
    assert first_kv and all(r["relative_change"] == 0.0 for r in first_kv)
    causal = [r["relative_change"] for r in rows if r["model"].startswith("causal")]
    assert causal and max(causal) < 1e-6


def test_train_encoder_writes_a_loadable_safetensors_file(capsys, tmp_path):
    out = tmp_path / "enc.safetensors"
    result = _json(capsys, "cache", "train-encoder", "--steps", "2", "--out", str(out))
    model, info = exp.load_encoder(out)
    assert result["path"] == str(out) and model.cfg == exp.DRIFT_MODEL
    assert info["summary"]["steps_done"] == 2 and info["config"]["task"]["name"] == "sort"


def test_too_big_a_measurement_gets_one_clear_line(capsys):
    assert main(["cache", "measure", "--n", "5000", "--m", "8", "--json"]) == 2
    err = capsys.readouterr().err
    assert "4,096 tokens" in err and "Traceback" not in err


def test_chat_prints_each_turn_with_its_reuse_and_drift(capsys):
    result = _json(capsys, "cache", "chat")
    assert result["tokens"][:3] == ["h", "o", "w"] and [t["text"] for t in result["turns"]] == ["how are you?", "bad"]
    assert {"turn", "old", "new", "causal_reused", "bidirectional_recomputed", "drift"} <= set(result["turns"][1])
    assert main(["cache", "chat", "--chat", "/"]) == 2  # an empty chat: a clear error, no traceback
    assert "the chat is empty" in capsys.readouterr().err
