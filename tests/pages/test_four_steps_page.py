"""AppTest of the four-steps page: the masks first, every section from the URL, every step, every control at its
extremes, URL views, bad URL values and the on-demand runs inside their sections."""

import json
import time

import pytest

from explorer.experiments import four_steps as fs
from explorer.jobs import QUEUE
from explorer.steps import FINAL_STEP
from tests.pages.conftest import (
    assert_clean,
    evidence_kinds,
    figures,
    press_train,
    run_page,
    train_buttons,
    untranslated,
    wait_for_jobs,
)

PAGE = "four_steps.py"
FIRST = ["four-steps-weights", "four-steps-mask"]  # what steps 1-3 change (weights, wiring) beside the mask
CHECK, ABLATION, WHY = "Numeric check", "Ablation and statistics", "Why each structure existed"
COMPARISON = "The comparison at this step"


def _figure(at, key_word: str) -> dict:
    return next(f for f in figures(at) if key_word in f["layout"]["meta"]["title"])


def _table_cells(at) -> dict[str, str]:
    table = next(f for f in figures(at) if f["data"][0]["type"] == "table")["data"][0]
    aspects, _, value, _, _ = table["cells"]["values"]
    fills = table["cells"]["fill"]["color"][0]
    return {a.replace("<b>", "").replace("</b>", ""): (v, fill) for a, v, fill in zip(aspects, value, fills)}


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def _ids(at) -> list[str]:
    return [f["layout"]["meta"]["figure_id"] for f in figures(at)]


def test_default_view_opens_on_the_masks_with_why_each_structure_existed_below():
    at = run_page(PAGE)
    assert_clean(at)
    assert _ids(at) == FIRST  # the open first section is words: a step move redraws the first screen alone
    assert "**Step 0: encoder-decoder** (slide 40). The standard encoder-decoder." in _markdown(at)  # the takeaway
    assert any(h.value.startswith("Why each structure existed") for h in at.subheader)
    assert not at.metric and not at.dataframe  # the check and the ablation wait in their closed sections
    at = run_page(PAGE, section=COMPARISON)
    assert _ids(at) == [*FIRST, "four-steps-table", "four-steps-wiring", "four-steps-params"]
    assert evidence_kinds(at) == ["schematic"] * 4 + ["measured"]  # weights, mask, table, wiring; counts


@pytest.mark.parametrize(
    "section, ids",
    [
        (CHECK, ["four-steps-check", "four-steps-causes"]),
        (ABLATION, ["four-steps-ablation-dots", "four-steps-ablation-curves", "four-steps-ablation-functions"]),
        (WHY, []),
    ],
)
def test_each_section_opens_from_the_url_and_draws_only_its_own_figures(section, ids):
    at = run_page(PAGE, section=section)
    assert_clean(at)
    assert _ids(at) == [*FIRST, *ids]
    kinds = evidence_kinds(at)
    assert kinds[:2] == ["schematic"] * 2 and kinds[2:] == ["measured"] * len(ids)
    text = _markdown(at)
    if section == CHECK:
        assert at.metric[0].label == "max |logit difference| at step 0, float32"
        assert "step 4 is not yet decoder-only" in text
    if section == ABLATION:
        assert "Verdict." in text and "exact paired p = " in text and "Equivalence within the declared margin" in text
        assert "How different are the trained models?" in text and "decoder-only models of neighbouring seeds" in text
        assert "The path is" in text and "The matched path gives steps 0 and 1 widths 40 and 44" in text
        pairs = len(fs.ALL_VARIANTS) * (len(fs.ALL_VARIANTS) - 1) // 2
        assert len(at.dataframe[0].value) == pairs and len(at.dataframe[1].value) == len(fs.ALL_VARIANTS)
    if section == WHY:
        assert text.count("*Measured here:*") == 3 and "exact paired p = " in text


def test_the_longer_budget_shows_its_own_shipped_runs_and_their_functions():
    at = run_page(PAGE, section=ABLATION, ab_budget="500 steps")
    assert_clean(at)
    assert _ids(at) == [*FIRST, *(f"four-steps-ablation-long-{k}" for k in ("dots", "curves", "functions"))]
    assert all("500 steps" in f["layout"]["meta"]["evidence_detail"] for f in figures(at)[2:])
    assert "After 500 training steps" in _markdown(at)
    assert len(at.dataframe[0].value) == 21  # the pairs of the 7 variants trained this long


def test_walking_all_steps_highlights_exactly_the_rows_each_step_changes():
    at = run_page(PAGE, section=COMPARISON)
    check = run_page(PAGE, section=CHECK)
    for step in range(1, FINAL_STEP + 1):
        at.slider(key="step").set_value(step).run()
        assert_clean(at)
        shaded = {a for a, (_, fill) in _table_cells(at).items() if fill != "white"}
        rows = fs.diff_table(fs.base_config(2, 64, 4), step, fs.parameter_counts(fs.base_config(2, 64, 4)))
        assert shaded == {r["aspect"] for r in rows if r["changed"]}, step
        assert _figure(at, "Who reads whom")["layout"]["meta"]["figure_id"] == "four-steps-mask"
        check.slider(key="step").set_value(step).run()
        assert_clean(check)
        assert f"max |logit difference| at step {step}" in check.metric[0].label
    assert _table_cells(at)[fs.SOFTMAXES][0].startswith("1")
    assert "One detail is left" in _markdown(at)  # the takeaway at the final change
    assert float(check.metric[1].value) < 1e-10  # float64 after the final change: rounding


@pytest.mark.parametrize(
    "query",
    [
        {"depth": "1", "width": "16", "heads": "16"},
        {"depth": "12", "width": "256", "heads": "1", "step": "3"},
    ],
)
def test_extreme_sizes_that_fit_draw_the_model_figures_and_offer_the_check(query):
    at = run_page(PAGE, **query, section=COMPARISON)
    assert_clean(at)
    assert len(_figure(at, "Wiring")["layout"]["shapes"]) >= 2 * (int(query["depth"]) + 1)
    at = run_page(PAGE, **query, section=CHECK)
    assert_clean(at)
    assert any("run the check" in b.label for b in at.button) or at.info  # trainable, or the limit named
    if int(query["depth"]) == 12:
        assert any(f"{fs.LIVE_PARAM_LIMIT:,}" in i.value for i in at.info)


def test_sizes_beyond_the_model_limit_are_refused_with_the_limit_named():
    at = run_page(PAGE, depth="12", width="512")
    assert_clean(at)
    assert "the limit here is 50,000,000" in at.warning[0].value
    assert _ids(at) == FIRST  # the first screen draws at any size
    at = run_page(PAGE, depth="12", width="512", section=WHY)
    assert_clean(at)
    assert at.subheader[-1].value.startswith("Why each structure existed")  # the rest of the page still works


def test_a_url_restores_the_view():
    at = run_page(PAGE, step="3", depth="4", width="32", heads="2", section=COMPARISON)
    assert_clean(at)
    assert at.slider(key="step").value == 3 and at.slider(key="depth").value == 4
    assert at.select_slider(key="width").value == 32 and at.select_slider(key="heads").value == 2
    assert _table_cells(at)[fs.READS][0].startswith("at layer l")
    assert "d=32, L=4, 2 heads" in _figure(at, "Parameters")["layout"]["meta"]["evidence_detail"]


def test_bad_url_values_get_notices_not_tracebacks():
    at = run_page(
        PAGE, step="9", depth="abc", width="100", heads="-3", ab_task="<script>", ab_seeds="1e9", section=ABLATION
    )
    assert_clean(at)
    notices = " ".join(c.value for c in at.caption)
    for key in ("`step`", "`depth`", "`width`", "`heads`", "`ab_task`", "`ab_seeds`"):
        assert key in notices
    assert at.slider(key="step").value == FINAL_STEP and at.slider(key="depth").value == 2  # clamped; default


def test_why_table_buttons_jump_to_the_step_that_removes_the_structure():
    at = run_page(PAGE, section=WHY)
    at.button(key="why-3").click().run()
    assert_clean(at)
    assert at.slider(key="step").value == 3
    assert "Measured here:" in _markdown(at)


def test_on_demand_runs_for_new_sizes_show_progress_then_their_results():
    """The check and an ablation rerun at sizes nothing has been computed for: background jobs, then figures."""
    query = dict(depth="1", width="16", heads="2", step="4", ab_steps="50", ab_len="4", ab_task="reverse")
    at = run_page(PAGE, **query, section=CHECK)
    assert_clean(at)
    next(b for b in at.button if "run the check" in b.label).click().run()
    at = wait_for_jobs(at, timeout=180)
    assert_clean(at)
    assert _figure(at, "how far the logits move")["layout"]["meta"]["evidence"] == "measured"
    assert "step 4 is not yet decoder-only" in _markdown(at)

    at = run_page(PAGE, **query, section=ABLATION)
    assert_clean(at)
    next(b for b in at.button if b.label.startswith("Run 27 trainings")).click().run()
    at = wait_for_jobs(at, timeout=300)
    assert_clean(at)
    reruns = [f for f in figures(at) if "reverse-4" in f["layout"]["meta"]["evidence_detail"]]
    assert len(reruns) == 3  # agreement, dots and curves of the rerun, next to the shipped ones
    assert _markdown(at).count("Verdict.") == 2


def test_the_ablation_section_reconciles_step_3_with_the_depth_page():
    at = run_page(PAGE, section=ABLATION)
    assert_clean(at)
    text = " ".join(m.value for m in at.markdown)
    assert "Step 3 here, layer-aligned reading on the depth page" in text
    assert "points of held-out accuracy at depth 2" in text


SHARED = "Separate or shared parameters? (slides 53-55)"


def test_the_shared_parameters_section_shows_the_shipped_result_its_finding_and_a_run_button():
    at = run_page(PAGE, section=SHARED)
    assert_clean(at)
    assert _ids(at) == [*FIRST, "shared-params-losses", "shared-params-curves"]
    assert evidence_kinds(at)[2:] == ["measured", "measured"]
    text = _markdown(at)
    assert "**Translation** (two vocabularies): separate" in text and "What the toy can and cannot test" in text
    assert SHARED in [h.value for h in at.subheader]
    assert [b.label for b in train_buttons(at)] == ["Train the quick preset (12 short runs)"]


def test_the_quick_preset_draws_its_curves_while_it_trains_and_can_be_cancelled():
    at = press_train(run_page(PAGE, section=SHARED))
    deadline = time.monotonic() + 120
    while QUEUE.get("shared-params-quick").partial is None and time.monotonic() < deadline:
        time.sleep(0.2)  # the first of its 12 runs finishes and is shared
    at.run()  # the progress panel's poll draws it
    (live,) = [f for f in figures(at) if "figure_id" not in f["layout"]["meta"]]  # the panel's, not the shipped one
    assert "while training" in live["layout"]["meta"]["title"] and live["layout"]["meta"]["evidence"] == "measured"
    assert len(live["data"]) >= 1  # a line per finished run
    next(b for b in at.button if b.label == "Cancel run").click().run()
    at = wait_for_jobs(at, timeout=120)
    assert not at.exception
    assert any("cancelled" in i.value for i in at.info)


def test_the_chinese_page_leaves_no_english_in_any_section():
    """?lang=zh with every section open: prose, widgets, tiles, tables' figures, notices and every figure speak
    Chinese (the budget is read from a label of either language)."""
    at = run_page(PAGE, lang="zh", step="3", ab_budget="250 步", sections="all")
    assert_clean(at)
    assert untranslated(at) == []
    assert any("第" in m.label for m in at.metric) and "结论" in _markdown(at)


def test_the_first_screen_shows_what_each_step_changes_and_the_final_step_in_decoder_onlys_colour():
    """Steps 1-3 leave the mask alone: the weights beside it change at each of them; the final change's mask is
    drawn in decoder-only's colour, as the text says they match."""
    weights, masks = [], []
    for step in range(FINAL_STEP + 1):
        at = run_page(PAGE, step=str(step))
        assert_clean(at)
        shown = {f["layout"]["meta"]["figure_id"]: f for f in figures(at)}
        weights.append(shown["four-steps-weights"])
        masks.append(shown["four-steps-mask"])

    def picture(fig: dict) -> tuple:
        """What a glance takes in: the tiles and their colours, the labels, and where each arrow starts."""
        return (
            json.dumps(fig["layout"].get("shapes"), sort_keys=True),
            json.dumps([(a.get("text"), a.get("ay")) for a in fig["layout"].get("annotations", [])]),
        )

    heatmap = [json.dumps(m["data"][0]["z"]) for m in masks]
    assert heatmap[0] == heatmap[1] == heatmap[2] == heatmap[3]  # the mask is the same at steps 0-3 ...
    assert len({picture(w) for w in weights[:4]}) == 4  # ... while the weights picture changes at every step
    assert (
        "10 distinct" in weights[0]["layout"]["meta"]["title"] and "4 distinct" in weights[2]["layout"]["meta"]["title"]
    )
    final = masks[FINAL_STEP]["data"][0]
    kinds = {c[2] for row in final["customdata"] for c in row if c[2]}
    assert kinds == {"causal"}  # one kind: decoder-only's, in its colour
    assert "decoder-only's attention" in masks[FINAL_STEP]["layout"]["meta"]["title"]
