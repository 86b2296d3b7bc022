"""The scale ladder (issue 37): the verdict rule, a real two-rung ladder, the merge of devices, the CLI's JSON and
its figure."""

from __future__ import annotations

import json
import math

import pytest

from explorer.cli import main
from explorer.evidence import Kind
from explorer.figures.ladder import ladder_chart
from explorer.ladder import registry, verdict
from explorer.ladder import run as ladder
from explorer.costs import parameter_count

RUNG_KEYS = {"params", "flops", "effect", "low", "high", "seeds", "same_sign", "device"}


def _rung(effects: list[float], reference: int) -> dict:
    return verdict.rung_summary(effects, reference)


@pytest.mark.parametrize(
    "top, expected",
    [
        ([0.2, 0.1, 0.3, 0.05], "holds"),  # every seed keeps the small model's (positive) sign
        ([-0.2, -0.1, -0.3, -0.05], "flips"),  # every seed has the other sign
        ([0.02, -0.01, 0.01, -0.015], "vanishes"),  # mixed signs, mean 0.00125 <= a quarter of 0.4
        ([0.5, -0.1, 0.6, -0.2], "unclear"),  # mixed signs, mean 0.2 is half the small model's
    ],
)
def test_the_verdict_follows_the_declared_rule(top: list[float], expected: str) -> None:
    first = _rung([0.4, 0.3, 0.5, 0.4], +1)
    assert verdict.verdict([first, _rung(top, +1)]) == expected


@pytest.mark.parametrize(
    "top, lecture_sign, expected",
    [
        ([0.2, 0.1, 0.3, 0.05], +1, "agrees"),  # every top seed has the sign the lecture expects
        ([0.2, 0.1, 0.3, 0.05], -1, "against"),  # every top seed has the other sign
        ([0.2, -0.1, 0.3, 0.05], +1, "mixed"),  # the seeds split
        ([0.02, -0.01, 0.01, -0.015], 0, "agrees"),  # expected to fade, and it vanishes
        ([0.5, 0.4, 0.6, 0.45], 0, "against"),  # expected to fade, yet one sign and no smaller than at the bottom
        ([0.2, 0.1, 0.3, 0.05], 0, "mixed"),  # one sign but shrunk to about a third: neither
    ],
)
def test_whether_the_top_rung_goes_the_lectures_way_follows_the_declared_rule(
    top: list[float], lecture_sign: int, expected: str
) -> None:
    rungs = [{**_rung(v, +1), "per_seed": dict(enumerate(v))} for v in ([0.4, 0.3, 0.5, 0.4], top)]
    assert verdict.lecture_reading(rungs, lecture_sign) == expected
    assert registry.get("bitter-lesson").lecture_sign == -1 and registry.get("four-steps").lecture_sign == 0


def test_a_rung_summary_is_the_seed_mean_and_range_with_a_same_sign_count() -> None:
    r = _rung([0.1, -0.2, 0.3, float("nan")], +1)
    assert r["seeds"] == 3 and r["same_sign"] == 2
    assert (r["low"], r["high"]) == (-0.2, 0.3) and math.isclose(r["effect"], 0.2 / 3)
    assert verdict.verdict([r]) == "unclear"  # one rung says nothing about scale


def test_every_named_claim_is_known_and_one_without_a_ladder_says_so() -> None:
    assert set(registry.NAMES) == {
        "bitter-lesson",
        "crossover",
        "bidirectional",
        "shared-params",
        "depth",
        "four-steps",
    }
    with pytest.raises(ValueError, match="claim must be one of"):
        registry.get("nonsense")
    for name in set(registry.NAMES) - set(registry.CLAIMS):
        with pytest.raises(ValueError, match="no ladder yet"):
            registry.get(name)


def test_the_quick_preset_ends_at_the_toys_size_and_main_goes_16x_above_it() -> None:
    claim = registry.get("bidirectional")
    for preset, lowest, highest in (("quick", 16, 64), ("main", 64, 264)):
        rungs = claim.rungs(preset)
        assert rungs[0].settings["width"] == lowest and rungs[-1].settings["width"] == highest
        steps = [r.settings["steps"] for r in rungs]
        assert steps == sorted(steps) and steps[-1] == 4 * steps[0]  # compute grows with size, by the stated rule


@pytest.fixture(scope="module")
def two_rungs() -> dict:
    """The quick ladder's two smallest rungs, trained for real (seconds)."""
    return ladder.run("bidirectional", "quick", device="cpu", use_cache=False, rungs=slice(0, 2))


def test_a_real_ladder_gives_each_rung_paired_seeds_and_a_verdict(two_rungs: dict) -> None:
    assert two_rungs["claim"] == "bidirectional" and two_rungs["verdict"] in verdict.VERDICTS
    first, second = two_rungs["rungs"]
    assert RUNG_KEYS <= set(first) and first["device"] == "cpu"
    assert first["seeds"] == second["seeds"] == len(registry.get("bidirectional").seeds("quick"))
    assert second["params"] > 3 * first["params"] and second["flops"] > first["flops"]
    for r in (first, second):
        seeds = list(r["per_seed"].values())
        assert r["low"] == min(seeds) <= r["effect"] <= max(seeds) == r["high"]
        assert all(math.isfinite(v) and abs(v) < 5 for v in seeds)  # a loss gap in nats, not a blown-up run


def test_an_accelerators_top_rungs_join_the_shipped_ones_each_with_its_device(two_rungs: dict) -> None:
    cpu_only = {**two_rungs, "rungs": two_rungs["rungs"][:1]}
    gpu_top = {**two_rungs, "rungs": [{**two_rungs["rungs"][1], "device": "cuda"}]}
    merged = ladder.merge(ladder.merge(None, cpu_only), gpu_top)
    assert [r["device"] for r in merged["rungs"]] == ["cpu", "cuda"]
    assert [r["params"] for r in merged["rungs"]] == [r["params"] for r in two_rungs["rungs"]]
    assert merged["verdict"] == two_rungs["verdict"]


def test_the_figure_is_measured_and_draws_every_rung_on_a_log_axis(two_rungs: dict) -> None:
    fig = ladder_chart(two_rungs)
    assert fig.layout.xaxis.type == "log"
    assert Kind.MEASURED.value in json.dumps(fig.to_plotly_json()["layout"]).lower()
    means = [t for t in fig.data if t.error_y and t.error_y.array is not None]
    assert sorted(x for t in means for x in t.x) == [r["params"] for r in two_rungs["rungs"]]


def test_a_saved_ladder_prints_the_issues_json_from_shipped(
    two_rungs: dict, tmp_path, monkeypatch, capsys: pytest.CaptureFixture
) -> None:
    """What `--save` writes, `--from-shipped` prints with the issue's keys and types (here into a scratch data/)."""
    monkeypatch.setattr(ladder, "DATA_DIR", tmp_path)
    assert main(["ladder", "bidirectional", "--from-shipped", "--json"]) == 2  # nothing shipped there yet
    assert "no shipped ladder" in capsys.readouterr().err
    ladder.save(ladder.merge(None, two_rungs))
    assert main(["ladder", "bidirectional", "--from-shipped", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["claim"] == "bidirectional" and out["verdict"] == two_rungs["verdict"]
    assert [r["params"] for r in out["rungs"]] == [r["params"] for r in two_rungs["rungs"]]
    for r in out["rungs"]:
        assert RUNG_KEYS <= set(r)
        assert isinstance(r["params"], int) and isinstance(r["seeds"], int) and isinstance(r["same_sign"], int)
        assert all(isinstance(r[k], float) for k in ("flops", "effect", "low", "high"))
        assert isinstance(r["device"], str)
    grid = list(registry.get("bidirectional").grids["quick"])
    assert out["recipe"]["name"] == "reviewed" and out["recipe"]["lr_grid"] == grid  # not the CLI's default "old"
    stale = {**json.loads(ladder.shipped_path("bidirectional").read_text()), "recipe": {"name": "old"}}
    ladder.shipped_path("bidirectional").write_text(json.dumps(stale))
    assert main(["ladder", "bidirectional", "--from-shipped", "--save", "--json"]) == 0  # rewritten, not retrained
    again = json.loads(ladder.shipped_path("bidirectional").read_text())
    assert again["recipe"]["name"] == "reviewed" and again["rungs"] == out["rungs"]


def test_the_cli_refuses_bad_requests_in_one_line(capsys: pytest.CaptureFixture) -> None:
    missing = sorted(set(registry.NAMES) - set(registry.CLAIMS))
    if missing:
        assert main(["ladder", missing[0], "--json"]) == 2
        assert "no ladder yet" in capsys.readouterr().err
    assert main(["ladder", "bidirectional", "--preset", "quick", "--save"]) == 2
    assert "main preset only" in capsys.readouterr().err


PAIRED = ("shared-params", "depth", "four-steps", "crossover")  # the claims trained through explorer.ladder.paired


@pytest.mark.parametrize("name", PAIRED)
def test_a_paired_claims_main_ladder_spans_16x_with_compute_growing_by_its_rule(name: str) -> None:
    claim = registry.get(name)
    for preset in registry.PRESETS:
        pairs = [claim.pair(r) for r in claim.rungs(preset)]
        params = [min(p.params(arm) for arm in p.arms) for p in pairs]
        steps = [p.steps for p in pairs]
        flops = [p.steps * p.flops_per_step(list(p.arms)[-1]) for p in pairs]
        assert params == sorted(params) and steps == sorted(steps) and flops == sorted(flops)
        assert steps[-1] in (steps[0], 4 * steps[0])  # the stated rule: fixed steps, or steps as sqrt(params)
        assert all(p.recipe.lr_grid[-1] / p.recipe.lr_grid[0] >= 10 for p in pairs)  # the reviewed grid
    main_params = [min(p.params(a) for a in p.arms) for p in map(claim.pair, claim.rungs("main"))]
    assert main_params[-1] >= 16 * main_params[0] and len(claim.seeds("main")) >= 4
    assert claim.effect and claim.prediction and claim.growth


def test_shared_params_arms_match_in_parameters_and_the_flop_matched_step_is_earlier() -> None:
    claim = registry.get("shared-params")
    for rung in claim.rungs("main"):
        pair = claim.pair(rung)
        assert abs(pair.params("separate") / pair.params("shared") - 1) < 0.005
        assert pair.arm_budgets("shared")[0] < pair.steps  # the narrower separate model spends fewer FLOPs


@pytest.mark.parametrize("name", PAIRED)
def test_a_paired_claims_two_quick_rungs_train_for_real(name: str) -> None:
    out = ladder.run(name, "quick", device="cpu", use_cache=False, rungs=slice(0, 2))
    assert out["claim"] == name and out["verdict"] in verdict.VERDICTS
    first, second = out["rungs"]
    assert second["params"] > 3 * first["params"] and second["flops"] > first["flops"]
    for r in (first, second):
        assert RUNG_KEYS <= set(r) and r["seeds"] == len(registry.get(name).seeds("quick"))
        seeds = list(r["per_seed"].values())
        assert r["low"] == min(seeds) <= r["effect"] <= max(seeds) == r["high"]
        assert all(math.isfinite(v) and abs(v) < 5 for v in seeds)
        assert set(r["lr"].values()) <= set(registry.get(name).rungs("quick")[0].settings["grid"])
    if name == "shared-params":
        assert set(first["flop_matched"]) == set(first["per_seed"])


def test_the_bitter_lessons_two_quick_rungs_train_for_real_and_only_the_transformer_grows() -> None:
    claim = registry.get("bitter-lesson")
    main_rungs = claim.rungs("main")
    configs = [claim.config(r, claim.seeds("main")) for r in main_rungs]
    assert len({c.hand_width for c in configs}) == 1 and len(claim.seeds("main")) >= 4
    assert parameter_count(configs[-1].transformer()) >= 16 * parameter_count(configs[0].transformer())
    assert all(c.lab_recipe().lr_grid[-1] / c.lab_recipe().lr_grid[0] >= 10 for c in configs)
    out = ladder.run("bitter-lesson", "quick", device="cpu", use_cache=False, rungs=slice(0, 2))
    first, second = out["rungs"]
    assert second["params"] > 3 * first["params"] and second["flops"] > first["flops"]
    for r in (first, second):
        assert RUNG_KEYS <= set(r) and r["seeds"] == len(claim.seeds("quick"))
        assert all(math.isfinite(v) and abs(v) < 5 for v in r["per_seed"].values())
        assert set(r["lr"]) == {"hand-built", "transformer"}
