"""Separate or shared parameters (slides 53-55): the matched sizes, the tasks' rules, the statistics, the figures and
the CLI, on real (tiny) models."""

import json
from dataclasses import replace

import pytest
import torch

from explorer import cli
from explorer.costs import parameter_count
from explorer.experiments import shared_params as sp
from explorer.figures import shared_params as figs
from explorer.progress import Progress
from explorer.tasks import FIRST_SYMBOL


def test_the_separate_model_is_narrowed_to_the_shared_models_parameter_count():
    shared = sp.shared_config()
    separate = sp.separate_config(shared)
    assert shared.share_encoder_decoder and not separate.share_encoder_decoder
    assert shared.share_cross_self and separate.share_cross_self  # step 1 on in both: one flag apart
    assert separate.d_model % separate.n_heads == 0 and separate.d_model < shared.d_model
    assert abs(parameter_count(separate) / parameter_count(shared) - 1) < 0.005  # closed form (trained: below)
    # the widest width below the count: one more head's worth of width would overshoot it
    width = separate.d_model + separate.n_heads
    wider = replace(separate, d_model=width, d_ff=4 * width)
    assert parameter_count(wider) > parameter_count(shared)


def test_translation_reverses_and_looks_up_into_another_vocabulary_one_vocabulary_stays_in_its_own():
    gen = torch.Generator().manual_seed(0)
    for name, offset in (("translation", sp.HALF), ("one-vocabulary", 0)):
        x, y = sp.TASKS[name].sample(64, gen)
        assert x.min() >= FIRST_SYMBOL and x.max() < FIRST_SYMBOL + sp.HALF  # language A
        assert torch.equal(y - FIRST_SYMBOL - offset, sp.DICTIONARY[(x - FIRST_SYMBOL).flip(1)])
        assert y.min() >= FIRST_SYMBOL + offset and y.max() < FIRST_SYMBOL + offset + sp.HALF


def test_the_fact_table_is_two_cycles_of_16_and_test_chains_never_repeat_a_symbol():
    succ = sp.SUCCESSOR
    assert set(succ[: sp.HALF].tolist()) == set(range(sp.HALF))  # cycle A maps into itself
    power = torch.arange(sp.SYMBOLS)
    for k in range(1, sp.HALF + 1):
        power = succ[power]
        assert (power == torch.arange(sp.SYMBOLS)).all() == (k == sp.HALF)  # period exactly 16
    x, y, first = sp.TASKS["transfer"].test_set()
    chain = torch.cat([x[:, 1:], y], dim=1) - FIRST_SYMBOL  # [B, 14]
    assert first == 1 and (x[:, 0] == sp.CHAIN_MARK).all()
    assert (chain >= sp.HALF).all()  # the test is cycle B
    assert torch.equal(succ[chain[:, :-1]], chain[:, 1:])
    assert all(len(set(row.tolist())) == chain.shape[1] for row in chain)  # nothing to copy from the input


def test_training_shows_cycle_b_facts_only_with_their_argument_in_the_input():
    x, y = sp.TASKS["transfer"].sample(2000, torch.Generator().manual_seed(1))
    chains, maps = x[:, 0] == sp.CHAIN_MARK, x[:, 0] == sp.MAP_MARK
    assert (chains | maps).all() and 800 < chains.sum() < 1200
    assert (x[chains, 1:] < FIRST_SYMBOL + sp.HALF).all() and (y[chains] < FIRST_SYMBOL + sp.HALF).all()
    assert (x[maps, 1:] >= FIRST_SYMBOL + sp.HALF).any()  # maps cover cycle B ...
    assert torch.equal(y[maps] - FIRST_SYMBOL, sp.SUCCESSOR[x[maps, 1:] - FIRST_SYMBOL])  # ... with f applied


def _runs(losses: dict[tuple[str, str], list[float]]) -> list[dict]:
    return [
        {
            "task": t,
            "variant": v,
            "seed": s,
            "loss": loss,
            "accuracy": 0.5,
            "params": 100,
            "width": 64,
            "d_ff": 256,
            "flops": 1.0,
            **({"control_loss": 0.1} if t == "transfer" else {}),
        }
        for (t, v), values in losses.items()
        for s, loss in enumerate(values)
    ]


def test_rows_give_the_seed_mean_and_range_and_tests_are_exact_paired_with_holm():
    separate = [1.0, 1.1, 0.9, 1.2, 1.0, 1.05, 0.95, 1.1]
    runs = _runs(
        {
            ("translation", "separate"): separate,
            ("translation", "shared"): [v - 0.5 for v in separate],
            ("one-vocabulary", "separate"): separate,
            ("one-vocabulary", "shared"): separate,
        }
    )
    rows = {(r["task"], r["variant"]): r for r in sp.rows(runs)}
    row = rows[("translation", "separate")]
    assert (row["loss"], row["loss_low"], row["loss_high"]) == (pytest.approx(sum(separate) / 8), 0.9, 1.2)
    tests = {t["test"]: t for t in sp.tests(runs)}
    assert tests["translation"]["mean_diff"] == pytest.approx(0.5)
    assert tests["translation"]["p"] == pytest.approx(2 / 2**8)  # every seed the same sign: the smallest p
    assert tests["translation"]["holm_p"] == pytest.approx(3 * 2 / 2**8)  # three tests: two tasks, the contrast
    assert sp.verdict(tests["translation"]) == "shared lower"
    assert tests["one-vocabulary"]["mean_diff"] == 0 and sp.verdict(tests["one-vocabulary"]) == "equivalent"
    assert tests["contrast"]["mean_diff"] == pytest.approx(0.5)


class _Collect(Progress):
    """A progress that keeps what the run shares (what a page's live figure draws)."""

    def __init__(self) -> None:
        self.shared: list[dict] = []

    def share(self, partial: dict) -> None:
        self.shared.append(partial)


def test_a_tiny_run_shares_each_finished_run_and_draws_live_and_final_figures():
    cfg = sp.SharedParamsConfig(tasks=("transfer",), seeds=(0, 1), steps=3, eval_every=2, eval_size=16)
    progress = _Collect()
    record = sp.run(cfg, progress)
    assert record["complete"] and [len(p["runs"]) for p in progress.shared] == [1, 2, 3, 4]
    run = record["runs"][0]
    assert [row[0] for row in run["curve"]] == [2, 3] and run["steps_done"] == 3 and "control_loss" in run
    rows = {r["variant"]: r for r in record["rows"]}
    assert abs(rows["separate"]["params"] / rows["shared"]["params"] - 1) < 0.005  # the trained models' own counts
    assert rows["separate"]["flops"] < rows["shared"]["flops"]  # narrower: fewer FLOPs per step
    empty = figs.curves({"config": cfg.to_dict(), "runs": []})  # the live figure before any run finished
    live = figs.curves(progress.shared[1])
    assert empty.layout.meta["evidence"] == live.layout.meta["evidence"] == "measured"
    assert len(live.data) == 2
    final = figs.losses(record)
    assert final.layout.meta["evidence"] == "measured" and "seeds 0-1" in final.layout.meta["evidence_detail"]
    values = sp.placeholders(record)
    assert values["tf_verdict"] in ("separate lower", "shared lower", "equivalent", "no difference shown")


def test_the_cli_prints_rows_with_the_issues_keys(capsys):
    assert cli.main(["shared-params", "--preset", "quick", "--seeds", "1", "--steps", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {(r["task"], r["variant"]) for r in out["rows"]} == {(t, v) for t in sp.TASKS for v in sp.VARIANTS}
    for row in out["rows"]:
        assert {"task", "variant", "params", "loss", "loss_low", "loss_high"} <= set(row)
        assert row["loss_low"] <= row["loss"] <= row["loss_high"]
    assert "saved_to" not in out  # an overridden preset writes nothing


def test_bad_settings_are_refused_with_the_rule():
    with pytest.raises(ValueError, match="tasks must be among"):
        sp.SharedParamsConfig(tasks=("poetry",))
    with pytest.raises(ValueError, match="distinct non-negative seeds"):
        sp.SharedParamsConfig(seeds=(0, 0))
    with pytest.raises(ValueError, match="axis must be one of"):
        figs.curves({"config": sp.SharedParamsConfig().to_dict(), "runs": []}, axis="time")


def test_a_run_reports_its_progress_in_the_language_of_the_session(monkeypatch):
    from explorer import i18n

    class Said(Progress):
        def __init__(self) -> None:
            self.said: list[str] = []

        def report(self, fraction: float, message: str) -> None:
            self.said.append(message)

    def stub(cfg, task, variant, seed, progress):  # no training: one message; the second run is cut
        progress.update(0.5, "inner")
        return {
            "task": task,
            "variant": variant,
            "seed": seed,
            "loss": 1.23456,
            "stopped": "steps" if variant == "separate" else "cancelled",
        }

    monkeypatch.setattr(sp, "run_one", stub)
    monkeypatch.setattr(sp, "analyse", lambda record: {})
    cfg = sp.SharedParamsConfig(tasks=("one-vocabulary",), seeds=(2,), steps=3, eval_every=2, eval_size=16)
    english, chinese = Said(), Said()
    sp.run(cfg, english)
    with i18n.using("zh"):
        sp.run(cfg, chinese)
    # the lab's runner names each run as it starts, then the run reports inside it
    assert english.said == [
        "run 1/2: one-vocabulary, separate, seed 2",
        "run 1/2: one-vocabulary, separate, seed 2: inner",
        "run 1/2 done: one-vocabulary, separate, seed 2, held-out loss 1.235",
        "run 2/2: one-vocabulary, shared, seed 2",
        "run 2/2: one-vocabulary, shared, seed 2: inner",
    ]
    assert chinese.said == [
        "第 1/2 次运行：同一套词表，分开，随机种子 2",
        "第 1/2 次运行：同一套词表，分开，随机种子 2：inner",
        "第 1/2 次运行完成：同一套词表，分开，随机种子 2，留出集损失 1.235",
        "第 2/2 次运行：同一套词表，共享，随机种子 2",
        "第 2/2 次运行：同一套词表，共享，随机种子 2：inner",
    ]
