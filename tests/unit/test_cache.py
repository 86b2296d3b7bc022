"""Cache-reuse experiment: exact counts, FLOPs against torch's counter, cached == recomputed, drift oracles."""

from dataclasses import replace

import numpy as np
import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from explorer.experiments import cache as exp
from explorer.model import KVCache, Transformer
from explorer.tasks import RULES


def _counted(fn) -> int:
    # FlopCounterMode cannot see the fused CPU attention kernel: callers use need_weights=True (the
    # explicit-softmax path, shown equal to the fused one in test_model.py)
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        fn()
    return counter.get_total_flops()


# --- counts -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n, m, turns", [(5, 3, 1), (4, 2, 3), (1, 1, 1), (7, 1, 4)])
def test_heatmap_cells_add_up_to_the_exact_entry_counts(n, m, turns):
    for layer in (1, 2):
        p = exp.reuse_pattern(n, m, turns, layer)
        h, total = p["history"], p["total"]
        assert p["block"] == 1 and p["causal"].shape == (total, total) and len(p["labels"]) == total
        causal, bidir = p["causal"], p["bidirectional"]
        counts = p["counts"]
        assert (causal == exp.REUSED).sum() == counts["causal_reused"] == h * (h + 1) // 2
        assert (causal == exp.RECOMPUTED).sum() == counts["causal_computed"] == m * h + m * (m + 1) // 2
        assert (causal == exp.BLOCKED).sum() == counts["causal_masked"] == total * (total - 1) // 2
        unchanged = (bidir == exp.UNCHANGED).sum()
        assert unchanged == (h * h if layer == 1 else 0)
        assert (bidir == exp.RECOMPUTED).sum() + unchanged == counts["bidirectional_recomputed"] == total**2


def test_a_long_chat_is_drawn_in_blocks_but_counted_exactly():
    p = exp.reuse_pattern(4096, 256, 12, layer=3)
    total = 4096 + 12 * 256
    assert p["total"] == total and p["block"] == int(np.ceil(total / exp.MAX_CELLS))
    assert p["causal"].shape[0] <= exp.MAX_CELLS and len(p["labels"]) == p["causal"].shape[0]
    assert p["counts"]["bidirectional_recomputed"] == total**2
    # the new rows are the bottom ones; blocks on the diagonal are drawn by their centre (allowed)
    assert (p["causal"][-1] != exp.BLOCKED).all() and p["causal"][0, -1] == exp.BLOCKED


def test_turn_table_rows_and_running_totals():
    t = exp.turn_table(10, 4, 3, depth=2)
    assert list(t["turn"]) == [0, 1, 2, 3] and list(t["history"]) == [0, 10, 14, 18]
    assert t["flops_reencode"].iloc[0] == t["flops_cached"].iloc[0]  # the opening: same work both ways
    assert t["cum_flops_reencode"].iloc[-1] == t["flops_reencode"].sum()
    assert t["kv_cache_bytes"].iloc[-1] == 2 * 2 * 22 * 64 * 4


@pytest.mark.parametrize("n, m, depth", [(1, 1, 1), (1024, 8, 2), (100, 7, 4), (3, 50, 3)])
def test_dense_flop_ratio_is_exactly_n_plus_m_over_m(n, m, depth):
    f = exp.turn_flops(exp.model_config(depth, n + m), n, m)
    assert f["flops_reencode"] * m == f["flops_cached"] * (n + m)
    assert f["lecture_reencode"] * (n * m + m * m) == f["lecture_cached"] * (n + m) ** 2
    assert f["flops_cached_causal_only"] < f["flops_cached"] or m == 1


def test_turn_flops_match_torch_flop_counter_over_several_turns():
    n, m, turns, depth = 12, 3, 3, 2
    causal, bidirectional = exp.build_models(depth, n + turns * m)
    tokens = torch.randint(0, 64, (1, n + turns * m), generator=torch.Generator().manual_seed(0))
    cache = KVCache(causal.cfg, 1)
    with torch.no_grad():
        causal(tokens[:, :n], cache=cache)
    for t in range(1, turns + 1):
        h = exp.history_at(n, m, t)
        f = exp.turn_flops(causal.cfg, h, m)
        assert _counted(lambda: bidirectional(tokens[:, : h + m], need_weights=True)) == f["flops_reencode"]
        assert _counted(lambda: causal(tokens[:, h : h + m], cache=cache, need_weights=True)) == f["flops_cached"]
        assert cache.length == h + m


# --- cached == recomputed --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, tol", [(torch.float32, 2e-6), (torch.float64, 1e-14)])
def test_cached_steps_equal_full_recomputation_over_several_turns(dtype, tol):
    """Relative to the largest logit: float32 rounding is about 1e-7 per operation."""
    causal, _ = exp.build_models(3, 64, seed=1)
    causal = causal.to(dtype)
    # scale the head so logits are not tiny, making the check meaningful
    with torch.no_grad():
        causal.head.weight.mul_(50)
    lengths = [9, 1, 5, 8, 3]
    tokens = torch.randint(0, 64, (2, sum(lengths)), generator=torch.Generator().manual_seed(2))
    cache = KVCache(causal.cfg, 2, dtype=dtype)
    start, worst = 0, 0.0
    with torch.no_grad():
        for length in lengths:
            step = causal(tokens[:, start : start + length], cache=cache).logits
            full = causal(tokens[:, : start + length]).logits[:, start:]
            worst = max(worst, (step - full).abs().max().item())
            start += length
        scale = causal(tokens).logits.abs().max().item()
    assert scale > 1.0 and worst / scale <= tol


def test_time_turn_reports_rounding_level_logit_difference():
    causal, bidirectional = exp.build_models(2, 40)
    timed = exp.time_turn(causal, bidirectional, 32, 8, repeats=3)
    assert timed["repeats"] == 3 and timed["max_abs_logit_diff"] <= 1e-5
    for mode in ("reencode", "cached"):
        s = timed[mode]
        assert 0 < s["min"] <= s["q1"] <= s["median"] <= s["q3"] <= s["max"]


def test_measure_refuses_sizes_beyond_the_named_limit():
    with pytest.raises(ValueError, match=f"{exp.MAX_MEASURE_TOKENS:,} tokens"):
        exp.measure(exp.MAX_MEASURE_TOKENS, 8, 2)
    with pytest.raises(ValueError, match="must be >= 1"):
        exp.reuse_pattern(0, 1, 1, 1)
    assert exp.planned_seconds(1024, 8, 8) > exp.planned_seconds(1024, 8, 2) > exp.planned_seconds(16, 8, 2)


# --- the overhead model ---------------------------------------------------------------------------------


def test_overhead_fit_recovers_known_coefficients():
    a, b, c = 1 / 40e9, 0.3e-3, 0.05e-3
    rows = [
        {"flops": f, "depth": d, "median_ms": 1e3 * (a * f + b * d + c)} for f in (1e5, 1e7, 1e9) for d in (1, 2, 4)
    ]
    fit = exp.fit_overhead(rows)
    assert fit["a_s_per_flop"] == pytest.approx(a, rel=1e-6)
    assert fit["b_s_per_layer"] == pytest.approx(b, rel=1e-6)
    assert fit["c_s"] == pytest.approx(c, rel=1e-4)
    assert fit["max_rel_error"] < 1e-6
    # with a fixed cost per layer the speedup stays below the FLOP ratio, and approaches it for big n
    ratio = (1024 + 8) / 8
    assert 1 < exp.predicted_speedup(fit, 1024, 8, 2) < ratio
    assert (
        exp.predicted_speedup(fit, 4096, 8, 2)
        > exp.predicted_speedup(fit, 1024, 8, 2)
        > exp.predicted_speedup(fit, 64, 8, 2)
    )


def test_a_small_sweep_yields_rows_and_a_fit():
    sweep = exp.overhead_sweep(histories=(8, 64), messages=(2,), depths=(1, 2), repeats=3)
    assert len(sweep["rows"]) == 2 * 2 * 2
    assert {r["mode"] for r in sweep["rows"]} == {"reencode", "cached"}
    assert sweep["fit"]["a_s_per_flop"] >= 0 and sweep["fit"]["b_s_per_layer"] >= 0


# --- drift ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def models():
    loaded = exp.load_encoder()
    return exp.drift_models(loaded[0] if loaded else None)


def test_the_trained_encoder_is_shipped_and_loads():
    loaded = exp.load_encoder()
    assert loaded is not None, f"missing {exp.ENCODER_PATH}: run `python -m explorer cache train-encoder`"
    model, info = loaded
    assert model.cfg == exp.DRIFT_MODEL
    assert info["summary"]["final"]["eval_accuracy"] > 0.5  # it learned to sort, so it reads the whole input


def test_old_tokens_layer_one_keys_values_never_drift_and_deeper_layers_do(models):
    for name in ("bidirectional, trained", "bidirectional, untrained"):
        d = exp.drift(models[name], 24, 8)
        assert d["state"][0] == 0.0 and d["kv"][0] == 0.0  # embeddings only: untouched by new tokens
        assert all(v > 1e-3 for v in d["kv"][1:] + d["state"][1:])
    # one token appended to 31: the trained encoder's layer-2 keys/values move by about a tenth, more than
    # the untrained one's, because sorting makes every old token depend on the new one
    trained = exp.drift(models["bidirectional, trained"], 31, 1)
    untrained = exp.drift(models["bidirectional, untrained"], 31, 1)
    assert 0.03 < trained["kv"][1] < 0.5 and trained["kv"][1] > untrained["kv"][1]
    assert trained["kv"][-1] > trained["kv"][1]  # deeper layers drift more


@pytest.mark.parametrize("name", ["causal, trained", "causal, untrained"])
def test_causal_old_tokens_never_drift(name, models):
    exact = exp.drift(models[name], 24, 8, dtype=torch.float64)
    assert exact["state"] == [0.0] * len(exact["state"]) and exact["kv"] == [0.0] * len(exact["kv"])
    rounding = exp.drift(models[name], 24, 8)
    assert max(rounding["state"] + rounding["kv"]) < 1e-6


def test_drift_grows_with_the_share_appended(models):
    df = exp.drift_vs_fraction({"b": models["bidirectional, untrained"]}, appended=(1, 8, 24))
    assert df["kv_last_layer"].is_monotonic_increasing


def test_drift_sizes_keep_the_share_appended():
    assert exp.drift_sizes(20, 4) == (20, 4)
    assert exp.drift_sizes(1024, 8) == (31, 1)
    assert exp.drift_sizes(48, 48) == (16, 16)
    assert exp.drift_sizes(1, 256) == (1, 31)


def test_variable_length_task_samples_sorted_targets_of_every_length():
    task = exp.VariableLengthTask(name="sort", length=12, n_symbols=8, min_length=3)
    gen = torch.Generator().manual_seed(0)
    lengths = set()
    for _ in range(60):
        x, y = task.sample(4, gen)
        lengths.add(x.shape[1])
        assert torch.equal(y, RULES["sort"](x))
    assert min(lengths) >= 3 and max(lengths) <= 12 and len(lengths) > 5


def test_encoder_round_trips_through_safetensors(tmp_path):
    model = Transformer(replace(exp.DRIFT_MODEL, n_layers=1)).eval()
    path = exp.save_encoder(model, tmp_path / "enc.safetensors", {"note": "test"})
    loaded, info = exp.load_encoder(path)
    x = torch.randint(2, 18, (2, 10))
    with torch.no_grad():
        assert torch.equal(model(x).logits, loaded(x).logits)
    assert info == {"note": "test"} and exp.load_encoder(tmp_path / "missing.safetensors") is None
