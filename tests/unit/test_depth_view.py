"""The depth page's numbers (explorer.experiments.depth_view) on the shipped sweep and on small hand-made cells:
what the page's sentences quote must agree with the analysis it comes from."""

import math

import numpy as np
import pytest

from explorer.experiments import depth as dp
from explorer.experiments import depth_view as view
from explorer.formatting import plural

pytestmark = pytest.mark.skipif(not dp.SHIPPED_PATH.is_file(), reason="no shipped depth results")


@pytest.fixture(scope="module")
def shipped() -> dict:
    return view.load_shipped()


@pytest.fixture(scope="module")
def main(shipped) -> dict:
    return dp.analyse(shipped["main"])


def test_signed_and_pm_never_print_minus_zero_and_drop_an_undefined_sd():
    assert view.signed(-0.04) == "+0.0" and view.signed(-1.26) == "-1.3" and view.signed(2.5, 0) == "+2"
    assert view.pm({"mean": 0.5, "sd": float("nan")}) == "0.500"
    assert view.pm({"mean": 0.5, "sd": 0.25}, 2) == "0.50 ± 0.25"


def test_paired_wins_counts_only_the_seeds_both_wirings_share():
    cells = {"final": {"seeds": [0, 1, 2], "loss": {"per_seed": [1.0, 1.0, 1.0]}},
             "aligned": {"seeds": [1, 2, 3], "loss": {"per_seed": [0.5, 2.0, 0.1]}}}
    assert view.paired_wins(cells) == (1, 2)  # seed 1 lower, seed 2 higher; seeds 0 and 3 unpaired


def test_the_numbers_at_a_depth_are_the_analysis_numbers(main):
    depth = main["depths"][0]
    here = view.at_depth(main, depth)
    cells = main["cells"][depth]
    assert here["final"] == cells["final"]["accuracy"]["mean"]
    assert here["aligned"] == cells["aligned"]["accuracy"]["mean"]
    assert here["gap"] == pytest.approx((here["aligned"] - here["final"]) * 100)
    assert here["wiring"] == view.SHORT[min(cells, key=lambda w: cells[w]["accuracy"]["mean"])]
    assert here["has_test"] == math.isfinite(main["tests"][depth]["loss"]["mde"])
    assert view.at_depth(main, 16) is None  # never trained at 16 layers


def test_the_outcome_list_and_the_paired_gap_list_agree_when_every_seed_is_paired(main):
    outcome = {i["depth"]: i["gap"] for i in view.outcome_items(main)}
    paired = {i["depth"]: float(i["gap"]) for i in view.gap_items(main)}
    assert outcome.keys() == paired.keys() == set(main["depths"])
    for depth, gap in outcome.items():  # the mean of the differences is the difference of the means
        assert round(gap, 1) == pytest.approx(paired[depth], abs=0.051)


def test_the_shipped_settings_need_no_training_and_a_zero_limit_fits_nothing(shipped):
    cfg = view.settings(view.RECIPE.steps, len(view.RECIPE.seeds), view.RECIPE.d_model)
    assert view.to_train(cfg, 4, shipped["runs"], shipped["rate"]) == ([], 0.0)
    big = view.settings(2400, dp.MAX_SEEDS, 64)
    plan = view.on_demand(big, 8, dp.available(big, shipped["runs"])[1], shipped, 90)
    assert plan["too_slow"] and plan["models"] > 0
    assert view.what_fits(big, 8, shipped["runs"], shipped["rate"], 0.0) is None


def test_late_drops_name_the_wirings_still_improving():
    def cell(drop: float) -> dict:
        return {"late_drop": {"mean": drop}}
    late = view.late_drops({"final": cell(0.2), "aligned": cell(0.01)})
    assert late["wirings"] == "final-only" and late["drops"] == "0.20"
    assert [i["wiring"] for i in late["items"]] == ["final-only", "layer-aligned"]


def test_the_learning_rate_numbers_pick_grid_rates_and_bracket_the_gap_by_its_seeds(shipped):
    if shipped["lr"] is None:
        pytest.skip("no shipped learning-rate check")
    lr = view.lr_numbers(shipped["lr"])
    grid = {f"{v:g}" for v in shipped["lr"]["lrs"]}
    assert lr["final_lr"] in grid and lr["aligned_lr"] in grid
    assert lr["low"] <= lr["gap"] <= lr["high"]


def test_the_gap_table_holm_corrects_over_every_task_and_depth(main, shipped):
    if shipped["control"] is None:
        pytest.skip("no shipped control")
    rows = view.gap_table({"majority-copy": main, "sort": shipped["control"]})
    assert len(rows) == len(main["tests"]) + len(shipped["control"]["tests"])
    for row in rows:  # Holm never lowers a p-value
        exact, holm = row["exact p, accuracy"], row["Holm p, accuracy"]
        if exact[0].isdigit() and holm[0].isdigit():
            assert float(holm) >= float(exact)


def test_coverage_lists_untrained_depths_and_the_seeds_shown(main):
    cfg = view.settings(view.RECIPE.steps, len(view.RECIPE.seeds), view.RECIPE.d_model)
    assert view.coverage(main, cfg) == {"untrained": "", "depths": "", "verb": "have", "seeds": ""}
    fewer = view.settings(view.RECIPE.steps, 2, view.RECIPE.d_model)
    assert view.coverage({**main, "depths": [2]}, fewer)["untrained"] == "4 and 8"
    assert view.coverage(main, fewer)["seeds"] == ", ".join(map(str, main["seeds"]))


def test_probe_lines_read_the_best_level_of_the_majority_bit(main):
    cells = main["cells"][main["depths"][0]]
    for line, cell in zip(view.probe_lines(cells), cells.values()):
        bit = cell["probes"]["trained"]["majority"].mean(0)
        assert line["bit_best"] == bit.max() and line["level"] == int(np.argmax(bit))


def test_the_chinese_edition_counts_joins_and_labels_in_chinese(main):
    from explorer import i18n
    here = view.at_depth(main, 4)
    with i18n.using("zh"):
        assert plural(3, "seed") == "3 个随机种子" and view.joined([2, 8]) == "2 和 8"
        assert [label for label, _, _ in view.tiles(here)][1] == "准确率，逐层对齐"
        assert list(view.depth_table(main)[0])[:2] == ["深度", "接法"]
    assert plural(1, "seed") == "1 seed" and view.joined([2, 8]) == "2 and 8"  # English as before
    assert list(view.depth_table(main)[0])[:2] == ["depth", "wiring"]
