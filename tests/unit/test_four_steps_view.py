"""The four-steps page's numbers (explorer.experiments.four_steps_view) on the shipped check, ablation and
shared-parameters runs: what the page's tiles, tables and sentences quote agrees with the records, and each
rerun decision (shipped, refused, trained here) follows from its settings."""

from dataclasses import replace

import pytest

from explorer import i18n, shipped
from explorer.formatting import p_label
from explorer.experiments import four_steps as fs
from explorer.experiments import four_steps_view as view
from explorer.experiments import shared_params as sp
from explorer.steps import FINAL_STEP


@pytest.fixture(scope="module")
def ablation() -> dict:
    if not fs.ABLATION_PATH.is_file():
        pytest.skip("no shipped ablation")
    return shipped.load(fs.ABLATION_PATH)


def test_the_masks_show_the_step_beside_decoder_only_and_the_takeaway_names_its_slides():
    panels = view.masks(3)
    assert [name for name, _ in panels] == ["step 3", "decoder-only"]
    assert view.takeaway(0) == {"title": "Step 0: encoder-decoder", "slides": "slide 40"}


def test_the_step_sliders_help_names_every_step_in_order():
    titles = view.step_help().split(" · ")
    assert titles[0] == "step 0: encoder-decoder" and titles[-1] == "final change: one joint softmax"
    assert len(titles) == FINAL_STEP + 1


def test_a_logit_difference_is_said_relative_to_the_largest_logit():
    assert view.relative(2.04) == "2.0× the largest logit"
    assert view.relative(0.25) == "25% of the largest logit"


@pytest.mark.skipif(not fs.CHECK_PATH.is_file(), reason="no shipped numeric check")
def test_the_check_numbers_come_from_the_shipped_check_at_its_sizes():
    check = shipped.load(fs.CHECK_PATH)
    base = fs.base_config(**fs.DEFAULT_SIZES)
    assert view.stored_check(base, check) is check
    for step in (0, 4):
        numbers = view.check_numbers(check, step)
        assert numbers["tiles"][0][1] == f"{check['steps'][step]['max_abs_logit_diff']:.3g}"
        assert numbers["result"]["final64"] == check["steps"][-1]["max_abs_logit_diff_f64"]
        assert [help_text for _, _, help_text in numbers["tiles"]] == [
            None,
            None,
            f"largest |decoder-only logit| on this batch: {check['max_abs_logit']:.1f}",
        ]
    assert view.check_numbers(check, 0)["sharing"]  # copied weights: steps 0-2 compute the same function
    assert not view.check_numbers(check, 4)["sharing"]  # said only at steps 0-2
    assert view.check_key(base).startswith("four-steps-check-")


def test_the_check_is_refused_only_when_nothing_is_stored_and_step_0_is_over_the_live_limit():
    over, under = {"0": fs.LIVE_PARAM_LIMIT + 1}, {"0": fs.LIVE_PARAM_LIMIT}
    refusal = view.check_refusal(None, over)
    assert f"up to {fs.LIVE_PARAM_LIMIT:,} parameters" in refusal and f"{fs.LIVE_PARAM_LIMIT + 1:,}. Lower" in refusal
    assert view.check_refusal(None, under) is None
    assert view.check_refusal({"steps": []}, over) is None  # a stored check is shown whatever its size


def test_the_tables_hold_every_pair_and_every_variant_of_the_shipped_ablation(ablation):
    analysis = view.analysis(ablation)
    pairs = view.pairs_table(analysis["paired"])
    assert len(pairs) == len(analysis["paired"]["pairs"]) and {"a", "b", "Holm p"} <= set(pairs[0])
    variants = view.variants_table(ablation["summary"], analysis["parameters"])
    assert [r["variant"] for r in variants] == [v["name"] for v in ablation["summary"]["variants"]]
    assert (
        view.run_caption({"runs": [1, 2], "wall_seconds": 61.2, "threads": 1})
        == "Measured: 2 runs in 61 s wall time, 1 thread."
    )
    assert view.run_caption({"runs": [1]}) == "Measured: 1 runs."


def test_a_cut_record_is_flagged_and_the_final_change_is_compared_with_decoder_only_seed_by_seed(ablation):
    assert view.stopped_note(ablation) is None
    cut = view.stopped_note({**ablation, "complete": False, "runs": ablation["runs"][:3]})
    assert cut == "This run stopped early (incomplete): 3 runs finished; they are shown but not cached."
    assert view.stopped_note({"complete": False, "stopped": "the 600 s limit", "runs": []}).startswith(
        "This run stopped early (the 600 s limit): 0 runs"
    )
    gap = ablation["summary"]["final_vs_decoder"]["max_same_seed_gap"]
    assert f"differ by at most {gap:.1e} per seed" in view.same_function_note(ablation)
    assert view.same_function_note({"summary": {"final_vs_decoder": {"seeds": 0}}}) is None
    assert view.same_function_note({"summary": {}}) is None
    assert (view.ablation_key("main"), view.ablation_key("long")) == ("four-steps-ablation", "four-steps-ablation-long")


def test_the_why_table_heads_its_columns_and_quotes_the_measured_pair(ablation):
    assert view.why_header() == [
        "**Structure**",
        "**Where it helped**",
        "**What changed**",
        "**The test**",
        "**Removed at**",
    ]
    row = next(r for r in view.WHY if r["step"] == 3)
    cells = view.why_cells(row, ablation)
    assert cells[0] == "**Decoder reads only the encoder's final layer**" and len(cells) == 4
    found = view.measured(ablation, ("3", "2"))
    assert cells[3].endswith(
        f"*Measured here:* step 3 vs step 2: {found['diff']:+.3f} held-out loss (exact paired "
        f"{p_label(found['p'])}, {found['n']} seeds)."
    )
    assert view.why_cells(row, None)[3].endswith("*Measured here:* no shipped results.")


def test_a_structure_is_measured_by_its_pair_either_way_round(ablation):
    there = view.measured(ablation, ("3", "2"))
    back = view.measured(ablation, ("2", "3"))
    assert there["diff"] == pytest.approx(-back["diff"]) and there["p"] == back["p"] and there["n"] == back["n"]
    assert (there["a"], there["b"]) == ("step 3", "step 2")
    assert view.measured(None, ("3", "2")) == "no shipped results"
    assert view.measured({"runs": []}, ("3", "2")) == "not in the shipped results"


def test_a_rerun_is_the_shipped_one_refused_when_too_big_or_too_long_or_trained_here(ablation):
    settings = fs.AblationSettings.from_dict(ablation["settings"])
    assert view.rerun_plan(settings, ablation, 1000)["kind"] == "shipped"
    small = fs.AblationSettings(task="copy", length=4, depth=1, width=16, heads=2, steps=50, seeds=(0, 1, 2))
    big = view.rerun_plan(small, ablation, fs.LIVE_PARAM_LIMIT + 1)
    assert big["kind"] == "too-big" and big["n"] == f"{fs.LIVE_PARAM_LIMIT + 1:,}"
    run = view.rerun_plan(small, ablation, 1000)
    assert (
        run["kind"] == "run"
        and run["runs"] == 3 * len(small.variants)
        and run["key"].startswith("four-steps-ablation-")
    )
    long = replace(small, steps=fs.MAX_ABLATION_STEPS, seeds=tuple(range(fs.MAX_SEEDS)), width=256, depth=4)
    too_long = view.rerun_plan(long, ablation, 1000)
    assert too_long["kind"] == "too-long" and too_long["seconds"] > too_long["limit"]


def test_a_rerun_says_why_it_does_not_train_only_when_it_is_shipped_or_refused():
    assert view.rerun_notice({"kind": "shipped"}) == "These are the shipped settings: their results are shown above."
    big = view.rerun_notice({"kind": "too-big", "limit": "2,000,000", "n": "3,100,000"})
    assert big.startswith("Reruns train models up to 2,000,000 parameters at step 0; the sizes chosen give 3,100,000.")
    long = view.rerun_notice({"kind": "too-long", "runs": 36, "steps": 600, "seconds": 901.4, "limit": 600.0})
    assert long.startswith("36 runs of 600 steps would take about 901 s here; the limit is 600 s.")
    assert view.rerun_notice({"kind": "stored", "record": {}}) is None and view.rerun_notice({"kind": "run"}) is None


@pytest.mark.skipif(sp.load() is None, reason="no shipped shared-parameters runs")
def test_the_shared_parameters_table_has_one_row_per_test_with_its_verdict():
    record = sp.load()
    rows = view.shared_params_tests(record)
    tests = sp.analyse(record)["tests"]
    assert [r["test"] for r in rows] == [r["test"] for r in tests]
    assert [r["verdict"] for r in rows] == [sp.verdict(r) for r in tests]


def test_the_names_tables_and_sentences_speak_the_run_language(ablation):
    with i18n.using("zh"):
        assert [name for name, _ in view.masks(3)] == ["第 3 步", "仅解码器"]
        assert view.takeaway(5)["title"].startswith("最后一处改动") and view.relative(0.25) == "最大 logit 的 25%"
        assert view.measured(None, ("3", "2")) == "没有随应用提供的结果"
        paired = fs.paired_analysis(ablation["runs"])
        rows = view.pairs_table(paired)
        assert list(rows[0]) == ["a", "b", "随机种子数", "留出集损失，a − b", "精确配对 p", "Holm 校正 p"]
        assert rows[0]["a"].startswith("第") and fs.paired_text(paired).startswith("按随机种子逐一比较")
        assert view.run_caption(ablation).startswith("实测：")
    assert view.run_caption(ablation).startswith("Measured:")  # the block left, English again


def test_the_first_screen_mask_marks_where_decoder_only_differs():
    """× on every cell a step lets a token read that decoder-only does not: the input's future until step 4."""
    from explorer.figures import four_steps as figs

    marked = []
    for step in range(FINAL_STEP + 1):
        fig = figs.mask_against_decoder(*view.mask_first_screen(step))
        extra = [t for t in fig.data if t.type == "scatter" and t.x is not None and t.marker.symbol == "x-thin"]
        marked.append(sum(len(t.x) for t in extra))
        assert not [t for t in fig.data if t.type == "scatter" and t.marker.symbol == "square-open"]  # never fewer
    n = view.FIRST_SCREEN_MASK[0]
    assert marked == [n * (n - 1) // 2] * 4 + [0, 0]  # the input's upper triangle, gone at step 4


def test_the_weights_figure_draws_shared_blocks_pale_and_dashed_and_merges_the_final_attentions():
    from explorer.figures import four_steps as figs

    def tiles(step: int) -> list:
        fig = figs.weights(**view.weights(step, 2))
        return [s for s in fig.layout.shapes if s.type == "rect" and s.fillcolor != "#EEEEEE"]

    assert [len(tiles(k)) for k in range(FINAL_STEP + 1)] == [10, 10, 10, 10, 10, 8]  # 2 x (2 + 3); merged: 2 x 4
    assert [sum(s.line.dash == "dash" for s in tiles(k)) for k in range(FINAL_STEP + 1)] == [0, 2, 6, 6, 6, 4]
    assert view.weights(0, 2)["same"] == "none" and view.weights(2, 2)["same"] == "weights"
    assert view.weights(3, 2)["same"] == "wiring" and view.weights(FINAL_STEP, 2)["same"] == "all"
