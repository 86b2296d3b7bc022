"""The depth page's numbers (explorer.experiments.depth_view) on the shipped sweep and on small hand-made cells:
what the page's sentences quote must agree with the analysis it comes from."""

import math

import numpy as np
import pytest

from explorer.experiments import depth as dp
from explorer.experiments import depth_view as view
from explorer.formatting import plural
from explorer.stats import smallest_p

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
    cells = {
        "final": {"seeds": [0, 1, 2], "loss": {"per_seed": [1.0, 1.0, 1.0]}},
        "aligned": {"seeds": [1, 2, 3], "loss": {"per_seed": [0.5, 2.0, 0.1]}},
    }
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


def test_the_takeaway_quotes_the_gap_marks_the_shipped_run_and_adds_the_control_task(main, shipped):
    here = view.at_depth(main, 4)
    said = view.takeaway(here, None, meanwhile=False)
    assert said.startswith(
        f"Majority-shifted copy at depth 4: layer-aligned reading scores **{here['gap']:+.1f} points**"
    )
    assert f"lower loss in\n{here['wins']} of {here['seeds']}." in said
    assert view.takeaway(here, None, meanwhile=True).startswith("Majority-shifted copy at depth 4 (the shipped run):")
    if shipped["control"] is not None:  # shipped at some depths only: said there, left out elsewhere
        for depth in main["depths"]:
            here, control = view.at_depth(main, depth), view.control_at(shipped["control"], depth)
            plain = view.takeaway(here, None, meanwhile=False)
            assert view.takeaway(here, shipped["control"], meanwhile=False) == plain + (
                f" On the control task, sorting, the same wirings differ by **{control['gap']} points** "
                f"({control['p']}, {control['seeds']})."
                if depth in shipped["control"]["depths"]
                else ""
            )


def test_the_results_tiles_and_sentences_quote_the_numbers_at_the_depth(main):
    here = view.at_depth(main, 4)
    tiles = view.tiles(here)
    assert [value for _, value, _, _ in tiles] == [
        f"{here['final']:.1%}",
        f"{here['aligned']:.1%}",
        f"{here['loss_gap']:+.3f} nats",
        here["p_loss"],
    ]
    assert [help_text is None for *_, help_text in tiles] == [True, True, True, False]  # only the p tile's test
    assert f"With {here['pairs']} seeds it cannot go below {here['smallest']:.3g}." in tiles[3][3]
    assert view.wins_text(here).startswith(
        f"At depth 4, layer-aligned reading has the lower held-out loss in **{here['wins']} of {here['seeds']}**"
    )
    assert "an unpaired t-test" in view.wins_text(here)
    assert view.wins_text({**here, "has_test": False}).endswith("With one seed per wiring there is no test; add seeds.")


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
    assert late["said"] == "0.200 nats (final-only) and 0.010 nats (layer-aligned)"
    assert view.late_drops({"final": cell(0.01), "aligned": cell(0.0)})["wirings"] == ""  # no caveat


def test_a_wiring_still_improving_points_to_a_longer_run_only_when_one_is_measured(shipped):
    cfg = view.settings(view.RECIPE.steps, len(view.RECIPE.seeds), view.RECIPE.d_model)
    ready = view.longest_ready(cfg, 4, shipped["runs"])
    hint = view.more_training_hint(cfg, 4, shipped["runs"])
    if ready is None:
        assert hint == "More steps would show whether a gap closes (a real run, if it fits the time limit)."
    else:
        assert hint.startswith(f"Set the training steps to {ready[0]} with {plural(ready[1], 'seed')}:")
    assert view.more_training_hint(cfg, 4, []).startswith("More steps would show")  # nothing shipped or cached


def test_an_on_demand_run_has_one_depth_and_a_key_per_settings_and_a_refusal_suggests_what_fits(shipped):
    cfg = view.settings(view.RECIPE.steps, len(view.RECIPE.seeds), view.RECIPE.d_model)
    run, key = view.one_depth(cfg, 8)
    assert run.depths == (8,) and run.steps == cfg.steps and key.startswith("depth-")
    assert view.one_depth(cfg, 2)[1] != key and view.one_depth(cfg, 8)[1] == key
    swept = dp.available(cfg, shipped["runs"])[0]
    assert view.ready_keys(swept) == tuple((r["depth"], r["wiring"], r["seed"]) for r in swept["runs"])
    assert len(view.ready_keys(swept)) == len(view.DEPTHS) * 2 * len(cfg.seeds)  # the shipped sweep: all ready
    plan = {"models": 16, "depth": 8, "steps": 2400, "seconds": 4667.2, "limit": 90, "fits": None}
    assert view.refusal(plan) == (
        "Refused: training 16 models at depth 8 (2400 steps each) would take about 4667 s\n"
        "on this server; on-demand runs are limited to 90 s. Pick fewer steps and seeds, or "
        "a shallower depth."
    )
    fits = view.refusal({**plan, "fits": {"steps": 300, "seeds": "2 seeds"}})
    assert fits.endswith("limited to 90 s. 300 steps with 2 seeds fit.")


def test_the_learning_rate_numbers_pick_grid_rates_and_bracket_the_gap_by_its_seeds(shipped):
    if shipped["lr"] is None:
        pytest.skip("no shipped learning-rate check")
    lr = view.lr_numbers(shipped["lr"])
    grid = {f"{v:g}" for v in shipped["lr"]["lrs"]}
    assert lr["final_lr"] in grid and lr["aligned_lr"] in grid
    assert lr["low"] <= lr["gap"] <= lr["high"]
    check = shipped["lr"]
    other = {w: rate for w, rate in check["most_accurate"].items() if rate != check["best"][w]}
    assert lr["rates"] == ", ".join(
        f"{view.short(w)} at {rate:g} ({check['cells'][w][rate]['accuracy']['mean']:.1%})" for w, rate in other.items()
    )


def test_the_across_depths_notice_and_caption_quote_every_gap_and_the_seeds_floor(main):
    notice = view.outcome_notice(main)
    for item in view.outcome_items(main):
        assert f"depth {item['depth']}: {item['gap']:+.1f} points ({item['p']})" in notice
    n = len(main["seeds"])
    assert f"with\n{n} seeds it cannot go below {smallest_p(n):.3g}" in notice
    assert "no depth has both wirings yet" in view.outcome_notice({**main, "depths": []})
    caption = view.table_caption(main)
    flops = view.same_cost(main)
    assert caption.startswith("Both wirings have the same parameter count") == bool(flops)
    assert f"({smallest_p(n):.3g} here)" in caption
    for f in flops or []:
        assert f"{f['flops']:.3g} at depth {f['depth']}" in caption


def test_the_paired_gaps_read_as_one_list_in_running_text(main):
    assert view.gap_list(main) == "; ".join(
        f"depth {i['depth']}: {i['gap']} points, {i['p']}" for i in view.gap_items(main)
    )


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


def test_the_coverage_notes_say_meanwhile_or_what_these_settings_lack(main):
    cfg = view.settings(view.RECIPE.steps, len(view.RECIPE.seeds), view.RECIPE.d_model)
    assert view.coverage_notes(main, cfg, meanwhile=False) == []  # the shipped settings: nothing lacking
    assert view.coverage_notes(main, cfg, meanwhile=True) == [
        f"Meanwhile: the shipped run ({view.RECIPE.steps} steps, {len(view.RECIPE.seeds)} seeds, width "
        f"{view.RECIPE.d_model})."
    ]
    fewer = view.settings(view.RECIPE.steps, 2, view.RECIPE.d_model)
    notes = view.coverage_notes({**main, "depths": [2]}, fewer, meanwhile=False)
    assert len(notes) == 2 and notes[0].startswith("At these settings depth 4 and 8 have not been trained yet")
    assert notes[1].startswith(f"Showing the seeds measured at these settings ({', '.join(map(str, main['seeds']))})")


def test_probe_lines_read_the_best_level_of_the_majority_bit(main):
    cells = main["cells"][main["depths"][0]]
    for line, cell in zip(view.probe_lines(cells), cells.values()):
        bit = cell["probes"]["trained"]["majority"].mean(0)
        assert line["bit_best"] == bit.max() and line["level"] == int(np.argmax(bit))
    text = view.probe_text(cells).split("\n- ")
    assert len(text) == len(cells) and text[0].startswith("- **final layer only (standard)**: own symbol")


def test_the_task_examples_and_the_how_list_come_from_the_recipe_and_the_shipped_runs(main, shipped):
    examples = view.examples_text().split("\n")
    assert len(examples) == 3 and all(e.endswith(f" of {view.RECIPE.task.length} large)") for e in examples)
    assert view.examples_text() == view.examples_text()  # seeded: the same examples every time
    runs = shipped["by_preset"]
    how = view.how_text(main, 4, runs, None)
    assert how.startswith(
        f"- **Models**: the project's one Transformer as an encoder-decoder, {view.RECIPE.d_model} wide"
    )
    assert how.count("- **Shipped run**: `python -m explorer depth --preset") == len(runs)
    assert "**Trained longer**" not in how
    if "long" in runs:
        longer = view.how_text(main, 4, runs, (dp.analyse(runs["long"]), main))
        (depth,) = dp.PRESETS["long"].depths
        assert f"- **Trained longer**: at depth {depth} with {dp.PRESETS['long'].steps} steps" in longer
        assert longer.index("**Models**") < longer.index("**Trained longer**") < longer.index("**Shipped run**")


def test_the_chinese_edition_counts_joins_and_labels_in_chinese(main):
    from explorer import i18n

    here = view.at_depth(main, 4)
    with i18n.using("zh"):
        assert plural(3, "seed") == "3 个随机种子" and view.joined([2, 8]) == "2 和 8"
        assert [label for label, *_ in view.tiles(here)][1] == "准确率，逐层对齐"
        assert list(view.depth_table(main)[0])[:2] == ["深度", "接法"]
    assert plural(1, "seed") == "1 seed" and view.joined([2, 8]) == "2 and 8"  # English as before
    assert list(view.depth_table(main)[0])[:2] == ["depth", "wiring"]


def test_the_paired_answer_pairs_models_by_seed_only():
    from explorer.figures import depth as figs

    cells = {
        "final": {"seeds": [0, 1, 2], "accuracy": {"per_seed": [0.1, 0.2, 0.3]}},
        "aligned": {"seeds": [1, 2, 3], "accuracy": {"per_seed": [0.5, 0.1, 0.9]}},
    }
    assert figs.paired_pairs({"cells": {4: cells}}, 4) == [(1, 0.2, 0.5), (2, 0.3, 0.1)]


@pytest.mark.parametrize("depth", [2, 4, 8])
def test_the_first_screens_answer_is_the_shipped_paired_measurement(main, depth):
    """The figure beside the wiring says the measured answer: the mean paired gap, the seeds and the exact p, all
    read from the shipped runs; each seed is a line between its two models."""
    from explorer.figures import depth as figs
    from explorer.formatting import p_label

    cells = main["cells"][depth]
    final = dict(zip(cells["final"]["seeds"], cells["final"]["accuracy"]["per_seed"]))
    aligned = dict(zip(cells["aligned"]["seeds"], cells["aligned"]["accuracy"]["per_seed"]))
    gaps = [aligned[s] - final[s] for s in final]
    answer = figs.paired_answer(main, depth)
    assert answer["gap"] == pytest.approx(100 * np.mean(gaps)) and answer["n"] == len(gaps) == len(main["seeds"])
    assert answer["higher"] == sum(g > 0 for g in gaps)
    assert answer["p"] == p_label(main["tests"][depth]["accuracy"]["p"])
    fig = figs.paired_seeds(main, depth)
    title = fig.layout.title.text
    assert f"depth {depth}" in title and f"{answer['gap']:+.1f} points" in title and f"{answer['n']} seeds" in title
    assert answer["p"] in title
    seeds = [t for t in fig.data if t.mode == "lines+markers" and t.showlegend is False]
    assert len(seeds) == len(gaps) and all(len(t.y) == 2 for t in seeds)
    assert sorted(t.y[1] - t.y[0] for t in seeds) == pytest.approx(sorted(gaps))
    assert fig.layout.meta["evidence"] == "measured" and list(fig.layout.yaxis.range) == [0, 1.04]


def test_at_depth_4_the_shipped_answer_is_a_large_gain_in_every_seed(main):
    """What the first screen shows by default: layer-aligned ahead in every one of the shipped seeds."""
    from explorer.figures import depth as figs

    answer = figs.paired_answer(main, 4)
    assert answer["gap"] > 20 and answer["higher"] == answer["n"] == 8
