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
from explorer.progress import Progress
from explorer.stats import minimum_detectable, t_test_power
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
        ln._solve_width(lambda w: ln._model(MAIN, "decoder", 2, w, 4, 4), parameter_count, 10.0, 0.01, "parameters")


# --- statistics ---------------------------------------------------------------------------------------------------

def test_minimum_detectable_effect_matches_the_normal_limit_and_has_the_stated_power():
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)  # 2.80 standard errors for a z-test
    assert minimum_detectable(1.0, 10 ** 7) == pytest.approx(z, rel=1e-3)
    for df in (1, 5, 17):
        mde = minimum_detectable(0.3, df)
        assert t_test_power(mde / 0.3, df) == pytest.approx(0.8, abs=1e-6)
        assert mde > 0.3 * z  # fewer degrees of freedom need a larger effect
    assert t_test_power(0.0, 5) == pytest.approx(0.05)
    assert math.isnan(minimum_detectable(0.0, 5))


def test_paired_test_by_hand():
    dec = np.array([1.0, 2.0, 0.5, 0.8])
    ed = dec * np.exp([-0.1, 0.05, -0.2, 0.0])
    out = ln.paired_test(ed, dec)
    gaps = np.array([-0.1, 0.05, -0.2, 0.0])
    t = gaps.mean() / (gaps.std(ddof=1) / 2)
    assert out["gap_mean"] == pytest.approx(gaps.mean())
    assert out["p"] == pytest.approx(2 * stats.t.sf(abs(t), 3))
    half = stats.t.ppf(0.975, 3) * gaps.std(ddof=1) / 2
    assert out["ci95"] == pytest.approx([gaps.mean() - half, gaps.mean() + half])
    assert ln.percent(-0.1) == pytest.approx(100 * (math.exp(-0.1) - 1))
    assert math.isnan(ln.paired_test(ed[:1], dec[:1])["p"])


def test_ratio_trend_recovers_a_planted_slope():
    x = np.repeat([2.32, 0.0, -2.32], 50)
    gap = -0.05 * x + np.random.default_rng(0).normal(0, 0.01, x.size)
    t = ln.ratio_trend(x, gap)
    assert t["slope"] == pytest.approx(-0.05, abs=0.003) and t["p"] < 1e-10 and t["mde"] < 0.01
    assert math.isnan(ln.ratio_trend(np.zeros(4), np.ones(4))["slope"])  # one ratio: no slope


# --- runs -------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def quick() -> dict:
    return _cli("--preset", "quick")


def test_the_quick_preset_runs_and_prints_its_tests(quick):
    cfg = ln.PRESETS["quick"]
    assert quick["trained"] == len(cfg.ratios) * len(cfg.seeds) * len(ln.ARMS)
    assert {(r["lx"], r["ly"], r["matching"]) for r in quick["rows"]} == {
        (a, b, m) for a, b in cfg.ratios for m in ln.MATCHINGS}
    for row in quick["rows"]:
        assert len(row["decoder"]) == len(row["encdec"]) == len(cfg.seeds)
        assert 0 < row["decoder_mean"] < math.log(cfg.n_symbols) + 0.5  # nats per target token
        assert 0 <= row["p"] <= 1 and row["mde"] > 0
    assert set(quick["trend"]) == set(ln.MATCHINGS)
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
def test_the_shipped_analysis_has_every_row_and_both_trends():
    analysis = ln.analyse(json.loads(SHIPPED.read_text()))
    assert len(analysis["rows"]) == len(MAIN.ratios) * len(ln.MATCHINGS)
    assert all(len(r["seeds"]) == len(MAIN.seeds) for r in analysis["rows"])
    assert all(t["n"] == len(MAIN.ratios) * len(MAIN.seeds) for t in analysis["trend"].values())
