"""Depth page library: the task's rule, equal parameters and FLOPs for both wirings, the probes on cases with a
known answer, the analysis against hand-computed statistics, and reuse of shipped and cached runs."""

import itertools
import math
import time
from dataclasses import replace

import numpy as np
import pytest
import torch
from scipy import stats

from explorer.costs import parameter_count
from explorer.experiments import depth as dp
from explorer.layouts import loss_and_accuracy, make_batch
from explorer.model import Transformer
from explorer.progress import Progress
from explorer.tasks import FIRST_SYMBOL

MAIN = dp.PRESETS["main"]


# --- the task -------------------------------------------------------------------------------------------


def test_every_input_of_a_small_task_follows_the_rule():
    task = dp.MajorityShiftedCopy(length=3, n_symbols=4)  # symbols 0, 1 small; 2, 3 large
    xs = torch.tensor(list(itertools.product(range(4), repeat=3))) + FIRST_SYMBOL  # all 64 inputs
    y = task.target(xs)
    for x_row, y_row in zip(xs.tolist(), y.tolist()):
        large = sum(t - FIRST_SYMBOL >= 2 for t in x_row)
        shift = 4 if large >= 2 else 0  # a strict majority of 3
        assert y_row == [t + shift for t in x_row]
    assert task.vocab_size == FIRST_SYMBOL + 8 and int(y.max()) == task.vocab_size - 1


def test_samples_use_the_input_symbols_and_are_seeded():
    task = MAIN.task
    x, y = task.sample(500, torch.Generator().manual_seed(1))
    assert x.shape == y.shape == (500, 9)
    assert int(x.min()) >= FIRST_SYMBOL and int(x.max()) < FIRST_SYMBOL + task.n_symbols
    assert torch.equal(y, task.target(x))
    assert 0.4 < task.majority(x).float().mean() < 0.6  # half the symbols are large: the bit is balanced
    x2, _ = task.sample(500, torch.Generator().manual_seed(1))
    assert torch.equal(x, x2)


def test_the_control_task_sorts_with_the_main_tasks_vocabulary_and_models():
    control = dp.PRESETS["control"]
    x, y = control.task.sample(200, torch.Generator().manual_seed(0))
    assert torch.equal(y, torch.sort(x, dim=1).values) and bool((y[:, 1:] >= y[:, :-1]).all())
    assert control.task.vocab_size == MAIN.task.vocab_size  # the shifted set stays in the vocabulary, unused
    assert parameter_count(control.model_config(8, "final")) == parameter_count(MAIN.model_config(8, "final"))
    assert control.flops_per_step(8, "aligned") == MAIN.flops_per_step(8, "aligned")


def test_the_main_tasks_recipe_reads_as_before_and_the_control_names_its_task():
    assert "task_name" not in MAIN.to_dict() and dp.DepthConfig.from_dict(MAIN.to_dict()) == MAIN
    control = dp.PRESETS["control"]
    assert control.to_dict()["task_name"] == "sort" and dp.DepthConfig.from_dict(control.to_dict()) == control
    assert not control.same_settings(MAIN.to_dict())  # a main-task record never serves the control
    with pytest.raises(ValueError, match="task_name"):
        replace(MAIN, task_name="parity")


@pytest.mark.parametrize("length, n_symbols", [(8, 16), (0, 16), (9, 3), (9, 0)])
def test_tasks_without_a_strict_majority_or_a_half_of_large_symbols_are_refused(length, n_symbols):
    with pytest.raises(ValueError):
        dp.MajorityShiftedCopy(length=length, n_symbols=n_symbols)


@pytest.mark.parametrize("length", [1, 3, 5, 9])
def test_single_token_ceiling_matches_enumeration(length):
    """Bayes accuracy of guessing the bit from one symbol's size, by enumerating all size patterns."""
    correct = 0
    for sizes in itertools.product((0, 1), repeat=length):  # 1 = large; each pattern equally likely
        bit = sum(sizes) > length // 2
        correct += (sizes[0] == 1) == bit  # the best guess from one token: its own size
    expected = correct / 2**length
    assert dp.MajorityShiftedCopy(length=length, n_symbols=2).single_token_ceiling() == pytest.approx(expected)
    if length == 9:
        assert expected == 163 / 256


def test_symbol_names_and_examples():
    task = MAIN.task
    assert [dp.symbol_text(task, FIRST_SYMBOL + s) for s in (0, 7, 8, 15)] == ["a", "h", "A", "H"]
    assert dp.symbol_text(task, FIRST_SYMBOL + 16 + 8) == "A\u2032"
    for ex in dp.examples(task, 5, seed=3):
        assert ex["shifted"] == (ex["large"] > 4)
        assert ("\u2032" in ex["target"]) == ex["shifted"]


# --- same parameters and compute ----------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [1, 2, 4, 8])
def test_both_wirings_have_equal_parameters_and_accounted_flops(depth):
    final, aligned = MAIN.model_config(depth, "final"), MAIN.model_config(depth, "aligned")
    n_final, n_aligned = Transformer(final).num_parameters(), Transformer(aligned).num_parameters()
    assert n_final == n_aligned == parameter_count(final) == parameter_count(aligned)
    assert MAIN.flops_per_step(depth, "final") == MAIN.flops_per_step(depth, "aligned")


def test_counted_flops_equal_forward_and_the_aligned_backward_skips_one_layer():
    """torch's FlopCounterMode on the real models (depth 2; the counter is slow on a loaded server)."""
    counted = {w: dp.counted_flops(MAIN, 2, w) for w in dp.WIRINGS}
    assert (
        counted["final"]["forward"]
        == counted["aligned"]["forward"]
        == MAIN.flops_per_step(2, "final") // (3 * MAIN.batch_size)
    )
    assert counted["final"]["train"] == 3 * counted["final"]["forward"]  # the accounting's 3x forward, exactly
    # layer-aligned spends less: no gradient flows back through its unread top encoder layer
    assert counted["final"]["train"] - counted["aligned"]["train"] == dp.unread_layer_backward_flops(MAIN, 2)


def test_the_aligned_models_top_encoder_layer_gets_no_gradient():
    x, y = MAIN.task.sample(4, torch.Generator().manual_seed(0))
    batch = make_batch("encoder_decoder", x, y)
    grads = {}
    for wiring in dp.WIRINGS:
        torch.manual_seed(0)
        model = Transformer(MAIN.model_config(3, wiring))
        loss_and_accuracy(batch.run(model).logits, batch.labels)[0].backward()
        top = model.encoder_blocks[-1]
        grads[wiring] = [
            p.grad for p in (*top.attn.parameters(), *top.mlp.parameters(), *model.encoder_ln_f.parameters())
        ]
    assert all(g is not None and g.abs().sum() > 0 for g in grads["final"])
    assert all(g is None for g in grads["aligned"])


# --- probes -------------------------------------------------------------------------------------------------


def test_ridge_recovers_an_exact_linear_map():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 6)) * rng.uniform(0.1, 10, size=6) + rng.normal(size=6)
    w, b = rng.normal(size=(6, 3)), rng.normal(size=3)
    model = dp.ridge_fit(x, x @ w + b, ridge=1e-12)
    test = rng.normal(size=(50, 6))
    np.testing.assert_allclose(dp.ridge_predict(model, test), test @ w + b, atol=1e-6)


def test_probes_read_linear_structure_and_not_noise():
    """Known answers: Gaussian features, a binary rule sign(x . w) (least squares on Gaussian features recovers
    w's direction), well-separated clusters (fully readable), and labels independent of the features (chance)."""
    rng = np.random.default_rng(1)
    n, d = 3000, 12
    x = rng.normal(size=(n, d))
    rule = (x @ rng.normal(size=d) > 0).astype(int)
    cluster = rng.integers(0, 5, size=n)
    clustered = x + 8 * np.eye(d)[cluster]  # cluster means 8 sd apart along different axes
    noise = rng.integers(0, 5, size=n)
    fit, test = slice(0, 2000), slice(2000, None)
    acc = dp.probe_accuracies(
        x[fit],
        {"rule": rule[fit], "noise": noise[fit]},
        x[test],
        {"rule": rule[test], "noise": noise[test]},
        {"rule": 2, "noise": 5},
    )
    assert acc["rule"] > 0.97
    assert abs(acc["noise"] - 0.2) < 4 * math.sqrt(0.2 * 0.8 / 1000)  # chance, within sampling noise
    acc = dp.probe_accuracies(
        clustered[fit], {"cluster": cluster[fit]}, clustered[test], {"cluster": cluster[test]}, {"cluster": 5}
    )
    assert acc["cluster"] == 1.0


def test_probes_at_the_embeddings_know_the_token_and_only_what_one_token_tells():
    """Level 0 holds each token's embedding plus its position: its symbol is fully readable, the majority bit only
    as well as one symbol predicts it (163/256), whatever the weights."""
    cfg = replace(MAIN, probe_train=1024, probe_test=1024)
    torch.manual_seed(5)
    probes = dp.probe_model(Transformer(cfg.model_config(2, "final")).eval(), cfg, seed=5)
    assert len(probes["token"]) == len(probes["majority"]) == 3  # levels 0, 1, 2
    assert probes["token"][0] == 1.0
    sd = math.sqrt(0.637 * 0.363 / 1024)  # sequences are the independent unit
    assert abs(probes["majority"][0] - cfg.task.single_token_ceiling()) < 4 * sd


# --- analysis ---------------------------------------------------------------------------------------------


def _record(depth, wiring, seed, loss, acc, steps=600, levels=None):
    history = [
        {"step": s, "flops": s * 10.0, "train_loss": loss, "eval_loss": loss + (steps - s) / 1000, "eval_accuracy": acc}
        for s in range(100, steps + 1, 100)
    ]
    probes = {t: [0.5] * ((levels or depth) + 1) for t in dp.TARGETS}
    return {
        "depth": depth,
        "wiring": wiring,
        "seed": seed,
        "parameters": 1,
        "flops_per_step": 10.0,
        "steps_done": steps,
        "stopped": "steps",
        "seconds": steps * (0.01 + 0.02 * depth),
        "eval_loss": loss,
        "eval_accuracy": acc,
        "history": history,
        "probes": {"trained": probes, "untrained": probes},
        "anatomy": {"symbol_first": acc, "symbol_rest": acc, "set_first": 1.0, "set_rest": 1.0},
    }


def _welch_p(a, b):
    a, b = np.asarray(a), np.asarray(b)
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    t = (a.mean() - b.mean()) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    return 2 * stats.t.sf(abs(t), df)


def test_analysis_spreads_and_exact_paired_p_values_match_hand_computation():
    cfg = replace(MAIN, depths=(2, 4))
    final_loss, aligned_loss = [1.0, 1.2, 1.1], [0.5, 0.55, 0.7]
    runs = [_record(2, w, s, 1.0 + 0.2 * s, 0.5 + 0.1 * s) for s in range(3) for w in dp.WIRINGS]
    runs += [_record(4, "final", s, final_loss[s], 0.3 + 0.01 * s) for s in range(3)]
    runs += [_record(4, "aligned", s, aligned_loss[s], 0.8 - 0.02 * s) for s in range(3)]
    runs.append({**_record(4, "final", 9, 9.0, 0.0), "steps_done": 50})  # cut by a time limit: left out
    a = dp.analyse({"config": cfg.to_dict(), "runs": runs})
    assert a["depths"] == [2, 4] and a["incomplete"] == [{"depth": 4, "wiring": "final", "seed": 9, "steps_done": 50}]
    cell = a["cells"][4]["final"]
    assert cell["loss"]["mean"] == pytest.approx(1.1) and cell["loss"]["sd"] == pytest.approx(0.1)
    test = a["tests"][4]["loss"]
    assert test["welch_p"] == pytest.approx(_welch_p(final_loss, aligned_loss), rel=1e-9)  # kept for planning
    # every seed has final-only worse, so the exact sign-flip p is its floor: 2 of the 8 sign patterns, 0.25
    assert test["p"] == pytest.approx(0.25) and test["smallest_p"] == pytest.approx(0.25) and test["pairs"] == 3
    assert a["tests"][2]["loss"]["p"] == pytest.approx(1.0)  # identical samples per wiring
    assert cell["late_drop"]["mean"] == pytest.approx(0.1)  # the loss at step 500 minus the loss at step 600
    assert cell["curves"]["eval_loss"].shape == (3, 6)
    rows = dp.table(a)
    assert [(r["depth"], r["wiring"]) for r in rows] == [(2, "final"), (2, "aligned"), (4, "final"), (4, "aligned")]
    assert a["chance"]["token"] == 1 / 16 and a["single_token_ceiling"] == 163 / 256


def test_gaps_give_paired_differences_with_their_seed_range():
    runs = [_record(2, "final", s, 1.0 + 0.1 * s, 0.5) for s in range(4)]
    runs += [_record(2, "aligned", s, 0.8, 0.5 + 0.1 * s) for s in range(4)]
    (row,) = dp.gaps(dp.analyse({"config": replace(MAIN, depths=(2,)).to_dict(), "runs": runs}))
    assert row["depth"] == 2 and row["seeds"] == 4 and row["smallest_p"] == pytest.approx(2 / 16)
    assert row["accuracy_gap"] == pytest.approx(0.15) and row["accuracy_range"] == pytest.approx([0.0, 0.3])
    assert row["loss_gap"] == pytest.approx(0.35) and row["loss_range"] == pytest.approx([0.2, 0.5])
    # the loss differences 0.2 .. 0.5 all favour layer-aligned: the exact p is its floor, 2 of 16 patterns
    assert row["p_loss"] == pytest.approx(2 / 16)


def test_each_wiring_is_judged_at_its_own_best_learning_rate():
    cfg = replace(MAIN, depths=(8,), seeds=(0, 1, 2))
    losses = {
        ("final", 1e-3): 2.0,
        ("final", 3e-3): 1.5,
        ("final", 1e-2): 1.8,
        ("aligned", 1e-3): 0.4,
        ("aligned", 3e-3): 0.3,
        ("aligned", 1e-2): 0.2,
    }
    runs = [
        {**_record(8, w, s, loss + 0.01 * s, 0.9 - loss / 4 + 0.001 * s), "lr": lr}
        for (w, lr), loss in losses.items()
        for s in range(3)
    ]
    a = dp.analyse_lr({"config": cfg.to_dict(), "lrs": list(dp.LR_GRID), "runs": runs})
    assert a["depth"] == 8 and a["best"] == {"final": 3e-3, "aligned": 1e-2}
    assert a["at_edge"] == {"final": False, "aligned": True}
    test = a["tests"]["loss"]  # final at 3e-3 minus aligned at 1e-2, seed by seed: 1.3 each
    assert test["diffs"] == pytest.approx([1.3] * 3) and test["p"] == pytest.approx(0.25) and test["pairs"] == 3
    assert a["tests"]["accuracy"]["mean_diff"] == pytest.approx((1.5 - 0.2) / 4)


def test_shipped_runs_serve_matching_settings_only(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))  # runs other tests trained would count as found
    runs = [_record(d, w, s, 1.0, 0.5) for d in (2, 4) for s in range(3) for w in dp.WIRINGS]
    shipped = {"config": replace(MAIN, depths=(2, 4)).to_dict(), "runs": runs}
    swept, missing = dp.available(replace(MAIN, depths=(2, 4, 8), seeds=(0, 1)), shipped)
    assert {r["source"] for r in swept["runs"]} == {"shipped"} and len(swept["runs"]) == 8
    assert missing == [(8, w, s) for s in (0, 1) for w in dp.WIRINGS]
    _, missing = dp.available(replace(MAIN, depths=(2,), steps=300), shipped)  # other steps: nothing reused
    assert len(missing) == 2 * len(MAIN.seeds)


def test_a_second_sweep_comes_from_the_cache():
    cfg = replace(
        MAIN,
        depths=(1,),
        wirings=("aligned",),
        seeds=(0,),
        steps=3,
        eval_every=3,
        eval_size=8,
        probe_train=32,
        probe_test=16,
    )
    first = dp.sweep(cfg)
    second = dp.sweep(cfg)
    assert first["trained"] == 1 and second["trained"] == 0 and second["runs"][0]["source"] == "cache"
    assert second["runs"][0]["history"] == first["runs"][0]["history"]


def test_step_time_model_recovers_a_linear_rate_and_estimates_scale():
    shipped = {"runs": [_record(d, "final", 0, 1.0, 0.5) for d in (2, 4, 8)]}  # seconds = steps * (0.01 + 0.02 d)
    loaded = {"runs": [{**r, "seconds": 3 * r["seconds"]} for r in shipped["runs"]]}  # a busy machine: slower
    a, b = dp.step_time_model([loaded, shipped])  # the quickest run of each depth sets the rate
    assert a == pytest.approx(0.01) and b == pytest.approx(0.02)
    cfg = replace(MAIN, steps=100, eval_size=MAIN.batch_size * 3 * MAIN.eval_every)  # evaluation doubles the work
    assert dp.estimate_seconds(cfg, [(2, "final", 0)], (a, b)) == pytest.approx(100 * 0.05 * 2)
    assert dp.step_time_model([]) == dp.SECONDS_PER_STEP_FALLBACK


@pytest.mark.parametrize(
    "change",
    [
        dict(depths=(0,)),
        dict(depths=(17,)),
        dict(seeds=()),
        dict(seeds=(0, 0)),
        dict(steps=0),
        dict(wirings=("sideways",)),
        dict(d_model=30),
    ],
)
def test_bad_settings_are_refused(change):
    with pytest.raises(ValueError):
        replace(MAIN, **change)


def test_a_cancel_reaches_the_training_loop_of_the_model_in_progress():
    """Cancel used to wait for the end of the model in training (a depth-8 run went on to its time limit)."""

    class CancelSoon(Progress):
        def __init__(self) -> None:
            self.at = time.monotonic() + 0.5

        @property
        def cancelled(self) -> bool:
            return time.monotonic() >= self.at

    cfg = dp.DepthConfig(depths=(8,), wirings=("final", "aligned"), seeds=(0,), steps=300)
    out = dp.sweep(cfg, use_cache=False, progress=CancelSoon())
    assert out["stopped"] == "cancelled"
    (run,) = out["runs"]  # the second model never started
    assert run["stopped"] == "cancelled" and 0 < run["steps_done"] < cfg.steps


class _Said(Progress):
    """A progress that keeps every message it is given."""

    def __init__(self) -> None:
        self.said: list[str] = []

    def report(self, fraction: float, message: str) -> None:
        self.said.append(message)


def _stub_run(cfg, depth, wiring, seed, progress):
    """No training: says one thing through the progress it is given, as `explorer.train` would."""
    progress.update(0.5, "inner")
    return {"depth": depth, "wiring": wiring, "seed": seed, "stopped": "steps"}


def test_a_run_reports_its_progress_in_the_language_of_the_session(monkeypatch):
    from explorer import i18n

    monkeypatch.setattr(dp, "run_one", _stub_run)
    cfg = dp.DepthConfig(depths=(2,), seeds=(0,), steps=10)
    english = _Said()
    dp.lr_sweep(cfg, lrs=(1e-3,), progress=english)
    assert english.said[:2] == [
        "lr 0.001: depth 2, final, seed 0 (1 of 2)",
        "lr 0.001: depth 2, final, seed 0 (1 of 2): inner",
    ]
    assert english.said[-1] == "lr 0.001: done"
    chinese = _Said()
    with i18n.using("zh"):
        dp.lr_sweep(cfg, lrs=(1e-3,), progress=chinese)
    assert chinese.said[:2] == [
        "学习率 0.001：深度 2，只读最后一层，随机种子 0（第 1 个，共 2 个）",
        "学习率 0.001：深度 2，只读最后一层，随机种子 0（第 1 个，共 2 个）：inner",
    ]
    assert "逐层对齐" in chinese.said[2] and chinese.said[-1] == "学习率 0.001：完成"
