"""The stale-cache experiment: the model's opt-in, its oracles (causal and one-layer stacks are exact), the CLI keys."""

import json
from dataclasses import replace

import pytest
import torch

from explorer.cli import main
from explorer.experiments import stale_cache as stale
from explorer.experiments.cache import DRIFT_MODEL, causal_twin
from explorer.model import KVCache, Transformer

ROW_KEYS = {"task", "n", "m", "arch", "accuracy_reencode", "accuracy_stale", "kl"}  # as the issue names them
TINY = stale.StaleConfig(task_steps=(3, 3), seeds=(0,), sizes=((8, 2),), test_chats=16)


def _model(arch: str, layers: int, seed: int = 0) -> Transformer:
    torch.manual_seed(seed)
    return Transformer(replace(DRIFT_MODEL, arch=arch, n_layers=layers)).double().eval()


def _tokens(n: int, seed: int = 0) -> torch.Tensor:
    return torch.randint(2, DRIFT_MODEL.vocab_size, (4, n), generator=torch.Generator().manual_seed(seed))


def test_an_encoder_is_refused_a_cache_unless_it_opts_in():
    model = _model("encoder", 2).float()
    with pytest.raises(ValueError, match="stale_cache_ok"):
        model(_tokens(6), cache=KVCache(model.cfg, 4, 8))
    cache = KVCache(model.cfg, 4, 8)
    model(_tokens(6), cache=cache, stale_cache_ok=True)
    assert cache.length == 6


def test_with_the_opt_in_a_causal_model_equals_re_encoding_exactly():
    model, x = _model("decoder", 3), _tokens(12)
    full = model(x).logits[:, 9:]
    stale_path = stale.stale_logits(model, x, 9)
    assert (full - stale_path).abs().max().item() < 1e-12  # float64: rounding only


def test_a_one_layer_encoder_is_exact_too_and_a_deeper_one_is_not():
    """Layer 1's old keys and values come from the embeddings alone, so they cannot go stale; from layer 2 on,
    old tokens have read each other only and the new tokens read stale keys."""
    x = _tokens(12)
    one, two = _model("encoder", 1), _model("encoder", 2)
    assert (one(x).logits[:, 9:] - stale.stale_logits(one, x, 9)).abs().max().item() < 1e-12
    assert (two(x).logits[:, 9:] - stale.stale_logits(two, x, 9)).abs().max().item() > 1e-6


def test_compare_scores_only_the_new_positions_and_kl_vanishes_when_exact():
    model = _model("encoder", 1).float()
    x, y = stale.test_chats("sort", 10, 3, 32)
    r = stale.compare(model, x, y, 10)
    assert r["accuracy_reencode"] == r["accuracy_stale"]
    assert abs(r["kl"]) < 1e-6 and r["max_abs_logit_diff"] < 1e-5
    deeper = _model("encoder", 3, seed=1).float()
    assert stale.compare(deeper, x, y, 10)["kl"] > 0
    scored = r["accuracy_reencode"] * 32 * 3  # over the m new positions only: 32 chats x 3 tokens
    assert abs(scored - round(scored)) < 1e-6


def test_the_test_chats_are_the_same_for_every_model_and_labelled_by_the_rule():
    x, y = stale.test_chats("sort", 8, 4, 5)
    x2, _ = stale.test_chats("sort", 8, 4, 5)
    assert torch.equal(x, x2) and torch.equal(y, x.sort(dim=1).values) and x.shape == (5, 12)


def test_a_tiny_run_gives_seed_means_with_exactly_the_named_keys_and_a_zero_causal_kl():
    record = stale.run(replace(TINY, seeds=(0, 1)))
    assert [set(r) for r in record["rows"]] == [ROW_KEYS] * 4  # 2 tasks x 1 size x 2 archs
    assert {r["arch"] for r in record["rows"]} == {"bidirectional", "causal"}
    assert len(record["runs"]) == 8 and len(record["models"]) == 4
    causal = [r for r in record["runs"] if r["arch"] == "causal"]
    assert all(abs(r["kl"]) < 1e-6 and r["accuracy_reencode"] == r["accuracy_stale"] for r in causal)
    summary = stale.summary(record["runs"])
    row = summary.iloc[0]
    assert row["accuracy_stale_low"] <= row["accuracy_stale"] <= row["accuracy_stale_high"] and row["seeds"] == 2


def test_the_causal_twin_carries_the_same_weights():
    model = _model("encoder", 2)
    twin = causal_twin(model)
    assert twin.cfg.arch == "decoder"
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), twin.state_dict().values()))


@pytest.mark.parametrize(
    "bad",
    [
        dict(sizes=((2, 1),)),
        dict(sizes=((30, 4),)),
        dict(task_steps=(5,)),
        dict(seeds=(0, 0)),
        dict(tasks=("sort", "shuffle")),
    ],
)
def test_bad_settings_name_the_rule(bad):
    with pytest.raises(ValueError):
        replace(TINY, **bad)


def test_the_cli_writes_then_reads_back_rows_with_the_named_keys(capsys, tmp_path):
    out = tmp_path / "stale.json"
    argv = [
        "cache",
        "stale",
        "--task-steps",
        "2",
        "2",
        "--seeds",
        "0",
        "--sizes",
        "8x2",
        "--test-chats",
        "8",
        "--out",
        str(out),
        "--json",
    ]
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [set(r) for r in printed["rows"]] == [ROW_KEYS] * 4 and out.is_file()
    assert main(["cache", "stale", "--from-shipped", "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == printed["rows"]


def test_the_cli_names_a_bad_size_and_a_missing_file(capsys, tmp_path):
    with pytest.raises(SystemExit):
        main(["cache", "stale", "--sizes", "24by4"])
    assert "NxM" in capsys.readouterr().err
    assert main(["cache", "stale", "--from-shipped", "--out", str(tmp_path / "none.json")]) == 2
    assert "no stale-cache results" in capsys.readouterr().err


def test_the_shipped_result_has_the_named_keys_and_the_page_s_findings():
    record = stale.load()
    assert record is not None, "data/cache/stale.json is shipped (python -m explorer cache stale)"
    assert all(set(r) == ROW_KEYS for r in record["rows"])
    head = stale.headline(record)
    assert (
        head["sort"]["every_seed_worse"] and head["sort"]["ranges_apart"] and head["sort"]["mean_gap"] > 0.1
    )  # sort: a large, consistent loss
    assert head["copy"]["mean_gap"] < 0.01  # copy: next to none
    assert head["causal_max_kl"] < 1e-6  # by construction
