"""Length asymmetry, the toy experiment: the task, the matched models, the statistics against closed forms,
the quick preset through the CLI, reuse of shipped and cached records, and a slice of the shipped run
reproduced by the CLI (20->4, seed 0, the first 100 steps of all three arms)."""

import contextlib
import io
import json
import math
from dataclasses import replace

import numpy as np
import pytest
import torch
from scipy import stats

from explorer import cli
from explorer.costs import parameter_count, sequence_forward_flops
from explorer.experiments import lengths as ln
from explorer.experiments.lengths import toy
from explorer.progress import Progress
from explorer.stats import holm, minimum_detectable, t_test_power, trend_permutation_p
from tests.conftest import ROOT

MAIN = ln.PRESETS["main"]
SHIPPED = ROOT / "data" / "lengths" / "main.json"


def _cli(*argv: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["lengths", *argv, "--json"]) == 0
    return json.loads(out.getvalue())


# --- the task ----------------------------------------------------------------------------------------------------


def test_rank_summary_reads_evenly_spaced_ranks():
    assert ln.RankSummary(20, 4).ranks == [2, 7, 12, 17]
    assert ln.RankSummary(12, 12).ranks == list(range(12))
    assert ln.RankSummary(4, 20).ranks == [0] * 5 + [1] * 5 + [2] * 5 + [3] * 5


def test_rank_summary_samples_are_sorted_quantiles_and_seeded():
    task = ln.RankSummary(20, 4, n_symbols=16)
    x, y = task.sample(64, torch.Generator().manual_seed(3))
    assert x.shape == (64, 20) and y.shape == (64, 4)
    assert int(x.min()) >= 2 and int(x.max()) < task.vocab_size
    for row_x, row_y in zip(x.tolist(), y.tolist()):
        assert row_y == [sorted(row_x)[r] for r in (2, 7, 12, 17)]
    x2, _ = task.sample(64, torch.Generator().manual_seed(3))
    assert torch.equal(x, x2)


def test_separate_target_symbols_spell_the_same_values_with_ids_of_their_own():
    shared, split = ln.RankSummary(4, 20, n_symbols=8), ln.RankSummary(4, 20, n_symbols=8, separate_target=True)
    assert (shared.vocab_size, split.vocab_size) == (10, 18)
    x, y = shared.sample(32, torch.Generator().manual_seed(5))
    x2, y2 = split.sample(32, torch.Generator().manual_seed(5))
    assert torch.equal(x, x2) and int(x2.max()) < 10  # the same inputs, from the input's 8 symbols
    assert int(y2.min()) >= 10 and torch.equal(y2 - 8, y)  # the same targets, spelled with the other 8


def test_variant_presets_set_symbols_per_ratio():
    matched, split = ln.PRESETS["matched"], ln.PRESETS["split-vocab"]
    assert [matched.task(*r).n_symbols for r in matched.ratios] == [8, 64]
    assert matched.task(12, 12).n_symbols == matched.n_symbols  # a ratio not listed keeps n_symbols
    assert not matched.task(4, 20).separate_target and split.task(4, 20).separate_target
    assert split.task(4, 20).vocab_size == 2 + 2 * 64
    assert ln.ToyConfig.from_dict(json.loads(json.dumps(split.to_dict()))) == split  # the JSON round trip
    with pytest.raises(ValueError, match="at least 2 symbols"):
        ln.ToyConfig(symbols_by_ratio=((20, 4, 1),))
    for cfg in (matched, split):
        for row in ln.arm_table(cfg):  # every arm is matched at its own vocabulary
            base = ln.arm_config(cfg, row["lx"], row["ly"], "decoder")
            if row["arm"] == "encdec_params":
                assert abs(row["parameters"] / parameter_count(base) - 1) <= ln.PARAM_TOLERANCE
            model = ln.arm_config(cfg, row["lx"], row["ly"], row["arm"])
            assert model.vocab_size == cfg.task(row["lx"], row["ly"]).vocab_size


# --- the matched models -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("lx, ly", MAIN.ratios + ((7, 1), (1, 24)))
def test_matched_arms_really_match(lx, ly):
    dec = ln.arm_config(MAIN, lx, ly, "decoder")
    same_p = ln.arm_config(MAIN, lx, ly, "encdec_params")
    same_f = ln.arm_config(MAIN, lx, ly, "encdec_flops")
    p = parameter_count(dec)
    assert abs(parameter_count(same_p) / p - 1) <= ln.PARAM_TOLERANCE
    f = sequence_forward_flops(dec, lx, ly)
    assert abs(sequence_forward_flops(same_f, lx, ly) / f - 1) <= ln.FLOP_TOLERANCE
    assert (dec.n_layers, same_p.n_layers, same_f.n_layers) == (2, 1, 2)
    assert 1.8 < parameter_count(same_f) / p < 2.1  # equal FLOPs buy about twice the parameters
    assert 50_000 < p < 70_000  # "60k-parameter models"


def test_an_unmatchable_request_is_refused():
    with pytest.raises(ValueError, match="within"):
        toy._solve_width(lambda w: toy._model(MAIN, "decoder", 2, w, 4, 4), parameter_count, 10.0, 0.01, "parameters")


# --- statistics ---------------------------------------------------------------------------------------------------


def test_minimum_detectable_effect_matches_the_normal_limit_and_has_the_stated_power():
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)  # 2.80 standard errors for a z-test
    assert minimum_detectable(1.0, 10**7) == pytest.approx(z, rel=1e-3)
    for df in (1, 5, 17):
        mde = minimum_detectable(0.3, df)
        assert t_test_power(mde / 0.3, df) == pytest.approx(0.8, abs=1e-6)
        assert mde > 0.3 * z  # fewer degrees of freedom need a larger effect
    assert t_test_power(0.0, 5) == pytest.approx(0.05)
    assert math.isnan(minimum_detectable(0.0, 5))


def test_paired_test_is_the_exact_sign_flip_test():
    dec = np.array([1.0, 2.0, 0.5, 0.8])
    gaps = np.array([-0.1, -0.1, -0.1, 0.1])
    out = ln.paired_test(dec * np.exp(gaps), dec)
    assert out["gap_mean"] == pytest.approx(-0.05) and out["encdec_lower"] == 3
    # 16 sign patterns of four equal magnitudes; |mean| >= 0.05 unless two are flipped each way (6 of 16)
    assert out["p"] == pytest.approx(10 / 16) and out["smallest_p"] == 2 / 16
    assert ln.paired_test(dec * np.exp(-0.1), dec)["p"] == pytest.approx(2 / 16)  # every seed agrees
    assert ln.percent(-0.1) == pytest.approx(100 * (math.exp(-0.1) - 1))
    assert math.isnan(ln.paired_test(dec[:1], dec[:1])["p"])  # one seed: no test


def test_trend_permutation_p_against_hand_counts():
    assert trend_permutation_p([0, 1, 2], [0, 1, 2]) == pytest.approx(2 / 6)  # the best three points can do
    # centred x (-1, 0, 1): the statistic is |y3 - y1|; for y = (0, 2, 1) it is 1, and no ordering of the
    # values 0, 1, 2 gives less, so every ordering counts
    assert trend_permutation_p([0, 1, 2], [0, 2, 1]) == 1.0
    # uneven x: only the sorted order reaches the largest |slope| (reversal gives less), so 1 / 4!
    assert trend_permutation_p([0, 1, 2, 10], [0, 1, 2, 10]) == pytest.approx(1 / 24)
    x = np.arange(10.0)
    assert trend_permutation_p(x, x) < 0.001  # ten points: Monte Carlo over orderings
    assert math.isnan(trend_permutation_p([1.0], [2.0]))


def _planted_run(seeds: int = 6) -> dict:
    """A run whose losses are planted: decoder-only loss 2, 1, 0.5 at 20->4, 12->12, 4->20 (a 4x span); the
    encoder-decoders gain exp(-0.1) per doubling of Lx/Ly, plus a small seed-specific wobble."""
    ratios, records = [(20, 4), (12, 12), (4, 20)], []
    for (lx, ly), base in zip(ratios, (2.0, 1.0, 0.5)):
        for seed in range(seeds):
            wobble = 0.01 * (seed - 2.5)
            for arm in ln.ARMS:
                gap = 0.0 if arm == "decoder" else -0.1 * ln.log_ratio(lx, ly) + wobble
                history = [{"step": 1, "eval_loss": base * math.exp(gap)}]
                records.append(
                    {
                        "lx": lx,
                        "ly": ly,
                        "arm": arm,
                        "seed": seed,
                        "parameters": 1,
                        "flops_per_example": 1,
                        "history": history,
                    }
                )
    return {"config": {"ratios": ratios, "seeds": list(range(seeds)), "n_symbols": 16}, "records": records}


def test_claims_on_planted_losses():
    claims = ln.claims(_planted_run())
    design = claims["design"]
    assert (design["n_seeds"], design["n_ratios"], design["ratio_tests"], design["trend_tests"]) == (6, 3, 12, 4)
    assert design["ratio_smallest_p"] == 2 / 64 and design["ratio_smallest_holm_p"] == pytest.approx(12 * 2 / 64)
    assert design["trend_seed_smallest_holm_p"] == pytest.approx(4 * 2 / 64)
    assert design["trend_ratio_smallest_p"] == pytest.approx(1 / 3)
    assert design["difficulty"]["curve"]["span"] == pytest.approx(4.0)
    rows = [r for a in claims["by_metric"].values() for r in a["rows"]]
    assert [r["holm_p"] for r in rows] == pytest.approx(holm([r["p"] for r in rows]))
    far = [r for r in rows if (r["lx"], r["ly"]) == (20, 4)]
    assert all(r["encdec_lower"] == 6 and r["p"] == 2 / 64 for r in far)  # -0.23 +- 0.025: every seed lower
    for trend in claims["trends"]:
        assert trend["slopes"] == pytest.approx([-0.1] * 6)  # the wobble is the same at every ratio of a seed
        assert trend["negative"] == 6 and trend["seed_p"] == 2 / 64
        assert trend["ratio_p"] == pytest.approx(1 / 3)  # perfectly ordered, and still no lower


def test_one_ratio_has_no_trend_and_one_seed_no_test():
    run = _planted_run(seeds=1)
    run["records"] = [r for r in run["records"] if (r["lx"], r["ly"]) == (20, 4)]
    claims = ln.claims(run)
    assert not claims["trends"] and math.isnan(claims["design"]["trend_ratio_smallest_p"])
    assert all(math.isnan(r["p"]) and math.isnan(r["holm_p"]) for r in claims["by_metric"]["curve"]["rows"])


# --- runs -------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quick() -> dict:
    return _cli("--preset", "quick")


def test_the_quick_preset_runs_and_prints_its_tests(quick):
    cfg = ln.PRESETS["quick"]
    assert quick["trained"] == len(cfg.ratios) * len(cfg.seeds) * len(ln.ARMS)
    assert {(r["lx"], r["ly"], r["matching"]) for r in quick["rows"]} == {
        (a, b, m) for a, b in cfg.ratios for m in ln.MATCHINGS
    }
    for row in quick["rows"]:
        assert len(row["decoder"]) == len(row["encdec"]) == len(cfg.seeds)
        assert 0 < row["decoder_mean"] < math.log(cfg.n_symbols) + 0.5  # nats per target token
        assert 0.5 <= row["p"] <= 1 and row["p"] <= row["holm_p"] <= 1  # two seeds: p is 0.5 or 1
    assert len(quick["per_ratio"]) == len(cfg.ratios) * len(ln.MATCHINGS) * len(ln.METRICS)
    assert {(t["metric"], t["matching"]) for t in quick["trends"]} == {(m, k) for m in ln.METRICS for k in ln.MATCHINGS}
    assert quick["design"]["ratio_smallest_p"] == 0.5  # two seeds: an exact test cannot go lower
    for rec in quick["records"]:
        assert [h["step"] for h in rec["history"]] == [10, 20] and rec["stopped"] == "steps"


def test_a_second_run_comes_from_the_cache_and_a_longer_shipped_run_serves_a_shorter_one():
    cfg = replace(ln.PRESETS["quick"], ratios=((3, 2),), seeds=(0,), steps=20)
    first = ln.run(cfg)
    assert first["trained"] == 3 and first["stopped"] == "steps"
    again = ln.run(cfg)
    assert again["trained"] == 0 and again["records"] == json.loads(json.dumps(first["records"]))
    # the first run, treated as a shipped run, serves a run of fewer steps with the same settings
    shipped = {**first, "config": cfg.to_dict()}
    planned = ln.plan(replace(cfg, steps=10), shipped, use_cache=False)
    ready = list(planned.ready.values())
    assert not planned.missing and set(planned.sources.values()) == {"shipped"}
    assert [[h["step"] for h in r["history"]] for r in ready] == [[10]] * 3
    assert ready[0]["history"][0] == first["records"][0]["history"][0]
    older = {
        **shipped,
        "config": {k: v for k, v in cfg.to_dict().items() if k not in ("symbols_by_ratio", "separate_target")},
    }
    assert not ln.plan(cfg, older, use_cache=False).missing  # a file from before the variants still serves
    assert len(ln.plan(replace(cfg, lr=1e-3), shipped, use_cache=False).missing) == 3  # other settings: not served
    assert len(ln.plan(replace(cfg, steps=30), shipped, use_cache=False).missing) == 3  # longer: not served


def test_a_cut_run_keeps_what_finished():
    cfg = replace(ln.PRESETS["quick"], ratios=((2, 2),), seeds=(0, 1), steps=20)

    class Budget(Progress):  # every stop check costs one unit: 21 per model, so it runs out inside the 4th
        left = 71

        def time_left(self) -> float:
            self.left -= 1
            return self.left

    out = ln.run(cfg, use_cache=False, progress=Budget())
    assert out["stopped"] == "cut" and len(out["records"]) == 3
    analysis = ln.analyse(out)
    assert {tuple(r["seeds"]) for r in analysis["rows"]} == {(0,)}  # only the complete seed


@pytest.mark.skipif(not SHIPPED.is_file(), reason="no shipped length results")
def test_the_shipped_analysis_from_the_cli_trains_nothing_and_states_its_limits():
    out = _cli("--preset", "main", "--from-shipped")
    assert out["trained"] == 0 and out["source"].endswith("main.json")
    assert len(out["per_ratio"]) == len(MAIN.ratios) * len(ln.MATCHINGS) * len(ln.METRICS)
    assert all(r["n_seeds"] == len(MAIN.seeds) for r in out["per_ratio"])
    lowest = 2 / 2 ** len(MAIN.seeds)
    assert all(r["p"] >= lowest and r["holm_p"] >= lowest * len(out["per_ratio"]) for r in out["per_ratio"])
    assert out["design"]["ratio_smallest_holm_p"] == pytest.approx(lowest * len(out["per_ratio"]))
    assert len(out["trends"]) == 4 and all(t["ratio_p"] >= 1 / 3 for t in out["trends"])
    assert out["design"]["difficulty"]["curve"]["span"] > 10  # the three tasks are not equally hard
    assert cli.main(["lengths", "--preset", "main", "--from-shipped", "--seeds", "2"]) == 2  # refused, no traceback


def test_a_run_reports_its_progress_in_the_language_of_the_session(monkeypatch):
    from explorer import i18n

    class Said(Progress):
        def __init__(self) -> None:
            self.said: list[str] = []

        def report(self, fraction: float, message: str) -> None:
            self.said.append(message)

    def stub(cfg, lx, ly, arm, seed, progress):  # no training: one message through the progress it was given
        progress.update(0.5, "inner")
        return {"lx": lx, "ly": ly, "arm": arm, "seed": seed, "stopped": "steps"}

    monkeypatch.setattr(ln.runs, "train_one", stub)
    cfg = replace(ln.PRESETS["quick"], ratios=((2, 2),), seeds=(0,), steps=20)
    english, chinese = Said(), Said()
    ln.run(cfg, use_cache=False, progress=english)
    with i18n.using("zh"):
        ln.run(cfg, use_cache=False, progress=chinese)
    assert english.said[:2] == [
        "model 1 of 3: decoder-only, 2->2, seed 0",
        "model 1 of 3: decoder-only, 2->2, seed 0: inner",
    ]
    assert english.said[2] == "model 2 of 3: encoder-decoder, same parameters, 2->2, seed 0"
    assert chinese.said[:3] == [
        "第 1/3 个模型：仅解码器，2->2，随机种子 0",
        "第 1/3 个模型：仅解码器，2->2，随机种子 0：inner",
        "第 2/3 个模型：编码器-解码器，参数相同，2->2，随机种子 0",
    ]
