"""Measured cells of the bias-audit workbook against the shipped results they come from (float64 oracles)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from explorer import audit
from explorer.costs import parameter_count
from explorer.experiments import four_steps as fs
from explorer.experiments.crossover import at_budget
from explorer.formatting import p_label, seed_list

BUDGET = 10**audit.DEFAULT_BUDGET_LOG  # the page's default budget, inside the shipped crossover run


@pytest.fixture(scope="module")
def ablation():
    record, parameters = audit.shipped_ablation()
    assert record is not None, "data/four_steps/ablation.json is shipped"
    return record, parameters


@pytest.fixture(scope="module")
def crossover():
    analysis = audit.shipped_crossover()
    assert analysis is not None, "data/crossover/main.json is shipped"
    return analysis


@pytest.fixture(scope="module")
def measured(ablation, crossover):
    return audit.measurements(48, 8, BUDGET, "2-48", *ablation, crossover)


def _losses(record: dict, variant: str) -> np.ndarray:
    runs = sorted((r for r in record["runs"] if r["variant"] == variant), key=lambda r: r["seed"])
    return np.array([r["eval_loss"] for r in runs], dtype=np.float64)


def test_the_verdict_cell_quotes_the_four_steps_paired_and_equivalence_tests(ablation, measured):
    paired = fs.paired_analysis(fs.load_shipped()["runs"])
    row = next(r for r in paired["pairs"] if (r["a"], r["b"]) == ("4", "decoder"))
    cell = measured["four_steps.verdict"]
    assert cell.values["p"] == row["paired_p"] and cell.values["mean_diff"] == row["mean_diff"]
    assert f"exact paired {p_label(row['paired_p'])}" in cell.text and f"{row['mean_diff']:+.4f}" in cell.text
    assert "Equivalence within the declared margin" in cell.text and "only that no difference" in cell.text
    assert cell.config.startswith("four-steps ablation, data/four_steps/ablation.json: task sort")
    assert seed_list(sorted({r["seed"] for r in fs.load_shipped()["runs"]})) in cell.config


@pytest.mark.parametrize(
    "ref, without, with_",
    [("four_steps.separate", "2", "0m"), ("four_steps.final_layer", "3", "2"), ("four_steps.bidirectional", "4", "3")],
)
def test_each_removal_cell_is_an_exact_paired_test_of_the_shipped_losses(ablation, measured, ref, without, with_):
    from explorer.stats import sign_flip_p

    record, _ = ablation
    a, b = _losses(record, without), _losses(record, with_)  # in seed order: the seeds pair the variants
    cell = measured[ref]
    assert cell.values["mean_diff"] == pytest.approx(a.mean() - b.mean(), abs=1e-12)
    assert (
        cell.values["paired_p"] == pytest.approx(sign_flip_p(a - b))
        and cell.values["holm_p"] >= cell.values["paired_p"]
    )
    assert f"{a.mean() - b.mean():+.3f} ({a.mean():.3f} against {b.mean():.3f}" in cell.text


def test_the_parameter_cell_matches_the_closed_form_counts(ablation, measured):
    record, parameters = ablation
    base = fs.AblationSettings.from_dict(record["settings"]).base
    separate, shared = (parameter_count(fs.variant_config(base, v)) for v in ("0", "2"))
    assert parameters == {"0": separate, "2": shared}
    assert measured["four_steps.parameters"].values == {"separate": separate, "shared": shared}
    text = measured["four_steps.parameters"].text
    assert f"{separate:,} parameters with separate stacks against {shared:,} shared" in text


def test_the_crossover_cell_is_the_inductive_bias_pages_crossing_with_its_seed_spread(crossover, measured):
    found = next(c for c in crossover["crossovers"] if (c["more_structure"], c["less_structure"]) == (2, 48))
    per_seed = np.array(found["flops_per_seed"], dtype=np.float64)
    cell = measured["crossover.pair"]
    assert cell.values["flops_mean"] == pytest.approx(10 ** np.log10(per_seed).mean(), rel=1e-12)
    assert (cell.values["flops_min"], cell.values["flops_max"]) == (per_seed.min(), per_seed.max())
    assert crossover["flops"][0] < per_seed.min() and per_seed.max() < crossover["flops"][-1]  # inside the run
    assert f"at {audit.sci(cell.values['flops_mean'])} training FLOPs" in cell.text and "3 of 3 seeds" in cell.text
    assert "data/crossover/main.json" in cell.config and "seeds 0-2" in cell.config


def test_the_gain_cell_reads_both_curves_at_the_budget_and_only_inside_the_run(ablation, crossover, measured):
    read = at_budget(crossover, BUDGET)
    cell = measured["crossover.gain"]
    assert (cell.values["more"], cell.values["less"]) == (read["accuracy"][2], read["accuracy"][48])
    assert cell.values["more"] > cell.values["less"]  # below the crossover the narrow window is ahead
    beyond = audit.measurements(48, 8, 1e13, "2-48", *ablation, crossover)
    assert beyond["crossover.pair"].source == "measured" and beyond["crossover.gain"].source == "pending"
    gain = audit.cells(audit.Row("locality"), beyond)["gain"]
    assert gain.label == "not measured yet" and "1.00e13 FLOPs lies outside this run" in gain.text
    assert "would be an extrapolation" in gain.text


@pytest.mark.parametrize("n, m", [(48, 8), (1, 1), (4096, 256)])
def test_the_cache_cell_counts_one_turn_exactly(n, m):
    cell = audit.cache_cell(n, m)["cache.turn"]
    assert cell.values["flop_ratio"] == pytest.approx((n + m) / m, rel=1e-12)  # GUIDE.md section 3
    assert cell.values["kv_cache_bytes"] == 2 * audit.CACHE_DEPTH * (n + m) * 64 * 4
    assert f"{(n + m) / m:.1f}x" in cell.text and f"n={n}" in cell.text and "d=64" in cell.config
    timed = audit.cache_cell(
        n, m, timing={"time_reencode_ms": 2.0, "time_cached_ms": 0.5, "speedup": 4.0, "repeats": 9, "seed": 0}
    )["cache.turn"]
    assert "a 4.0x speedup" in timed.text and "median of 9 repeats" in timed.config


def test_the_depth_cell_matches_the_shipped_depth_sweep_when_there_is_one():
    from explorer.experiments import depth

    analysis = audit.shipped_depth()
    if analysis is None:
        assert "depth.final_layer" not in audit.measurements(48, 8, BUDGET, None)
        pytest.skip("no data/depth/main.json yet: the depth cell stays 'not measured yet'")
    cell = audit.depth_cells(analysis)["depth.final_layer"]
    runs = depth.load_shipped()["runs"]
    for d in analysis["tests"]:
        loss = {
            w: np.array([r["eval_loss"] for r in runs if r["depth"] == d and r["wiring"] == w])
            for w in ("final", "aligned")
        }
        assert cell.values["per_depth"][str(d)]["mean_diff"] == pytest.approx(
            loss["final"].mean() - loss["aligned"].mean(), abs=1e-12
        )


def test_the_cache_key_watches_the_files_the_cells_read():
    from explorer.experiments import crossover as xo
    from explorer.experiments import depth

    assert audit.SHIPPED_FILES == (fs.ABLATION_PATH, xo.shipped_path("main"), depth.SHIPPED_PATH)
    assert audit.shipped_stamp()[0] == fs.ABLATION_PATH.stat().st_mtime


def test_without_results_every_measured_cell_is_not_measured_yet():
    measured = audit.measurements(48, 8, BUDGET, None)
    assert set(measured) == {"cache.turn"}
    for row in audit.default_workbook():
        for col, cell in audit.cells(row, measured).items():
            if col == "cost" and row.id == "bidirectional":
                assert cell.label == "measured"
            else:
                assert cell.label != "measured"
    assert math.isclose(measured["cache.turn"].values["flop_ratio"], 7.0)
