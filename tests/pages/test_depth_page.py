"""AppTest of the depth page: the shipped view, every control at its extremes, a real on-demand run, a run
refused as too large, URL restore and bad URL values."""

import pytest

from explorer.experiments import depth as dp
from explorer.jobs import QUEUE
from tests.pages.conftest import (
    untranslated,
    assert_clean,
    evidence_kinds,
    figures,
    press_train,
    run_page,
    train_buttons,
    wait_for_jobs,
)

PAGE = "depth.py"
FIRST = ["schematic", "measured"]  # the first screen: the wiring, and beside it the measured answer seed by seed
ACROSS = "Across depths"
pytestmark = pytest.mark.skipif(not dp.SHIPPED_PATH.is_file(), reason="no shipped depth results")


def _text(at) -> str:
    return " ".join(m.value for m in at.markdown) + " " + " ".join(c.value for c in at.caption)


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _refusals(at) -> list[str]:
    return [w.value for w in at.warning if w.value.startswith("Refused")]


def test_default_view_opens_on_the_wirings_with_the_results_at_these_settings_below():
    at = run_page(PAGE)
    assert_clean(at)
    assert at.title[0].value == "Depth and cross-attention"
    assert evidence_kinds(at) == FIRST  # the open section is words and tiles; closed ones draw nothing
    assert "Exact p on loss (8 paired seeds)" in _metrics(at) and "Accuracy, final only (depth 4)" in _metrics(at)
    assert "copy at depth 4: layer-aligned reading scores **+" in _text(at)  # the takeaway under the figure
    assert "On the control task, sorting," not in _text(at)  # the control has no depth 4
    assert not at.warning
    across = run_page(PAGE, section=ACROSS)
    figs = figures(across)
    del figs[1]  # the first screen's measured answer
    assert evidence_kinds(across) == [*FIRST, "measured"]
    assert "same parameters, compute and steps" in figs[1]["layout"]["meta"]["title"]
    assert "seeds 0, 1, 2, 3, 4, 5, 6, 7" in figs[1]["layout"]["meta"]["evidence_detail"]
    assert len(across.dataframe) == 1  # the depth table
    assert "Four steps to decoder-only" in _text(at)  # the link back (as text: no router in AppTest)


@pytest.mark.parametrize(
    "section, kinds",
    [
        ("Control task", [*FIRST, "measured"]),
        ("Learning rate", [*FIRST, "measured"]),
        ("Training curves", [*FIRST, "measured"]),
        ("Probes", [*FIRST, "measured"]),
        ("Which kind of error", FIRST),
        ("The question and the task", FIRST),
        ("How it was measured", FIRST),
    ],
)
def test_each_section_opens_from_the_url_and_draws_only_its_own_figures(section, kinds):
    at = run_page(PAGE, section=section)
    assert_clean(at)
    assert evidence_kinds(at) == kinds
    assert not at.metric and not at.warning
    assert figures(at)[0]["layout"]["meta"]["figure_id"] == "depth-wiring"
    if section == "Control task":
        assert figures(at)[2]["layout"]["meta"]["figure_id"] == "depth-control"
        table = at.dataframe[0].value
        assert len(table) == len(dp.PRESETS["main"].depths) + len(dp.PRESETS["control"].depths)
        assert set(table["seeds"]) == {8} and "Holm p, accuracy" in table.columns
        assert "sorted" in _text(at) and "none can go below 0.00781" in _text(at)
    if section == "Learning rate":
        assert figures(at)[2]["layout"]["meta"]["figure_id"] == "depth-lr"
        assert "At its own best rate, final-only" in _text(at) and "3 seeds" in _text(at)
    if section == "Training curves":
        assert figures(at)[2]["layout"]["meta"]["figure_id"] == "depth-curves"
        assert "the last sixth of training by" in " ".join(c.value for c in at.caption)
    if section == "Probes":
        assert figures(at)[2]["layout"]["meta"]["figure_id"] == "depth-probes"
        assert "linear probe" in _text(at) and "majority bit" in _text(at)
    if section == "Which kind of error":
        assert len(at.dataframe) == 1 and len(at.dataframe[0].value) == 2  # the error anatomy, one row per wiring
        assert "teacher-forced like training" in _text(at)
    if section == "The question and the task":
        assert "majority-shifted copy" in _text(at) and "concern, not an observation" in _text(at)
    if section == "How it was measured":
        assert "Same parameters, same compute" in _text(at) and "Shipped run" in _text(at)


@pytest.mark.parametrize("depth", ["2", "8"])
def test_depth_slider_extremes_redraw_from_the_shipped_run(depth):
    at = run_page(PAGE, sections="all")
    at.select_slider(key="depth").set_value(int(depth)).run()
    assert_clean(at)
    assert f"Accuracy, final only (depth {depth})" in _metrics(at)
    shown = figures(at)
    probes = next(f for f in shown if f["layout"]["meta"]["title"].startswith("What each encoder level"))
    wiring = shown[0]
    assert f"at depth {depth}" in wiring["layout"]["meta"]["title"]
    levels = next(t for t in probes["data"] if t.get("x") and t["x"][0] is not None)["x"]
    assert levels == list(range(int(depth) + 1))  # one probe per encoder level, embeddings included
    assert not at.warning


def test_one_seed_shows_numbers_without_a_test():
    at = run_page(PAGE, seeds="1")
    assert_clean(at)
    assert _metrics(at)["Exact p on loss (1 paired seed)"] == "n/a" and "no test" in _text(at)
    assert not at.warning


@pytest.mark.parametrize(
    "query", [dict(depth="8", steps="2400", seeds="5", width="64"), dict(steps="2400"), dict(depth="8", width="64")]
)
def test_too_large_runs_are_refused_with_a_suggestion_and_the_shipped_run_stays(query):
    at = run_page(PAGE, **query, section=ACROSS)
    assert_clean(at)
    refusals = _refusals(at)
    assert refusals and "90 s" in refusals[0] and ("fit" in refusals[0] or "Pick fewer" in refusals[0])
    assert len(figures(at)) >= 2


def test_new_settings_train_for_real_and_come_back_from_the_cache():
    query = dict(depth="2", steps="150", seeds="1", width="16")
    at = run_page(PAGE, **query)
    assert_clean(at)
    assert not at.get("progress") and not QUEUE.active()  # a link alone trains nothing
    assert [b.label for b in train_buttons(at)] and train_buttons(at)[0].label.startswith("Train 2 models (about ")
    at = wait_for_jobs(press_train(at), timeout=240)
    assert_clean(at)
    assert "Accuracy, final only (depth 2)" in _metrics(at) and not train_buttons(at)
    across = run_page(PAGE, **query, section=ACROSS)
    assert "150 steps" in figures(across)[1]["layout"]["meta"]["evidence_detail"]
    assert "d=16" in figures(across)[1]["layout"]["meta"]["evidence_detail"]
    again = run_page(PAGE, **query)  # a new session: the runs come from the on-disk cache, no job
    assert_clean(again)
    assert "Accuracy, final only (depth 2)" in _metrics(again) and not again.get("progress")


def test_url_restores_a_view():
    at = run_page(PAGE, depth="8", seeds="2")
    assert_clean(at)
    assert at.select_slider(key="depth").value == 8 and at.slider(key="seeds").value == 2
    assert "Exact p on loss (2 paired seeds)" in _metrics(at)
    assert not any("URL parameter" in c.value for c in at.caption)


def test_embedded_view_draws_no_controls():
    at = run_page(PAGE, controls="hidden", depth="2", sections="all")
    assert_clean(at)
    assert not at.slider and not at.select_slider and len(figures(at)) == 8  # with the ladder
    assert "Accuracy, final only (depth 2)" in _metrics(at)


def test_bad_url_values_get_notices_not_tracebacks():
    at = run_page(PAGE, depth="5", steps="abc", seeds="99", width="<script>")
    assert_clean(at)
    notices = " ".join(c.value for c in at.caption)
    for key in ("`depth`", "`steps`", "`seeds`", "`width`"):
        assert key in notices
    assert any("`width`" in toast.value for toast in at.toast)  # said on top too: its caption is in "More settings"
    assert at.slider(key="seeds").value == dp.MAX_SEEDS  # clamped to the maximum
    assert at.select_slider(key="depth").value == 4  # unusable: the default


def test_the_long_run_at_depth_8_shows_at_once():
    if not dp.shipped_path("long").is_file():
        pytest.skip("no shipped long run")
    at = run_page(PAGE, depth="8", steps="2400", seeds="3")  # the long run has 3 seeds
    assert_clean(at)
    assert not _refusals(at) and not at.get("progress")
    assert "Accuracy, final only (depth 8)" in _metrics(at)
    assert (
        "2400 steps"
        in figures(run_page(PAGE, depth="8", steps="2400", seeds="3", section=ACROSS))[1]["layout"]["meta"][
            "evidence_detail"
        ]
    )
    at = run_page(PAGE, depth="8", section="Training curves")  # at 600 steps the caveat points to the longer run
    assert any("Set the training steps to 2400 with 3 seeds" in i.value for i in at.info)


def _shipped_run(wiring: str) -> dict:
    shipped = dp.load_shipped()
    run = next(r for r in shipped["runs"] if (r["depth"], r["wiring"], r["seed"]) == (2, wiring, 0))
    return {k: v for k, v in run.items() if k != "source"}


TAMPERED = {  # what a hand-edited cache file can hold instead of a run
    "a list for a result": lambda run: [1, 2],
    "a string history": lambda run: {**run, "history": "many"},
    "a missing key": lambda run: {k: v for k, v in run.items() if k != "eval_loss"},
    # past the 10,000 items of a list a record may hold (a 300,000-entry one is over the 4,000,000 characters a
    # record may have, so it is not even stored: tests/unit/test_results.py)
    "a 10,001-entry history": lambda run: {**run, "history": run["history"][:1] * 10_001},
}


@pytest.mark.parametrize("name", TAMPERED)
def test_a_tampered_cache_record_counts_as_missing_with_a_message_and_the_page_renders(name):
    from dataclasses import replace

    from explorer import results

    cfg = replace(dp.PRESETS["main"], steps=300, seeds=(0,), d_model=32)
    good = {**_shipped_run("final"), "steps_done": 300}
    results.save(dp.CACHE_KIND, dp.run_key(cfg, 2, "final", 0), good)  # the control: a usable record
    results.save(dp.CACHE_KIND, dp.run_key(cfg, 2, "aligned", 0), TAMPERED[name](_shipped_run("aligned")))
    at = run_page(PAGE, depth="2", steps="300", seeds="1", width="32", sections="all")
    assert_clean(at)
    warning = next(w.value for w in at.warning if "could not be used" in w.value)
    assert warning.startswith("1 cached result for these settings could not be used and was removed")
    assert results.load(dp.CACHE_KIND, dp.run_key(cfg, 2, "aligned", 0)) is None  # removed: the next run replaces it
    assert [m for m in dp.available(cfg)[1] if m[0] == 2] == [(2, "aligned", 0)]  # the good one is used
    assert train_buttons(at)[0].label.startswith("Train 1 model (about ") and len(figures(at)) >= 3


def test_a_record_that_passes_every_check_yet_breaks_the_analysis_gets_a_named_warning_in_its_section():
    from dataclasses import replace

    from explorer import results

    cfg = replace(dp.PRESETS["main"], steps=150, seeds=(0,), d_model=64)
    for wiring in dp.WIRINGS:  # well-shaped, but an empty history leaves nothing to read the final loss from
        results.save(
            dp.CACHE_KIND, dp.run_key(cfg, 2, wiring, 0), {**_shipped_run(wiring), "steps_done": 150, "history": []}
        )
    at = run_page(PAGE, depth="2", steps="150", seeds="1", width="64", sections="all")
    assert_clean(at)
    assert any(w.value.startswith("The analysis of the runs at these settings could not be drawn") for w in at.warning)
    assert "Meanwhile: the shipped run" in _text(at) and len(figures(at)) >= 3


def test_the_control_section_reconciles_the_wiring_with_the_four_steps_page():
    at = run_page(PAGE, section="Control task")
    assert_clean(at)
    text = " ".join(m.value for m in at.markdown)
    assert "Why the four-steps page finds the opposite" in text and "after 250 steps" in text


# --- the Chinese edition -----------------------------------------------------------------------------------------


def test_the_chinese_page_opens_every_section_in_chinese_and_the_schematic_fits_a_phone():
    at = run_page(PAGE, lang="zh", sections="all")
    assert_clean(at)
    assert not at.warning and not train_buttons(at)  # the shipped settings: nothing to train, nothing pressed
    assert untranslated(at) == []
    assert [m.label for m in at.metric][0] == "准确率，只读最后一层（深度 4）"
    wiring = figures(at)[0]
    assert wiring["layout"]["meta"]["title"].startswith("深度 4 时谁读什么")
    assert not wiring["layout"]["meta"].get("keep_width")  # no sideways frame: both diagrams fit a phone
    assert {a["text"] for a in wiring["layout"]["annotations"]} >= {"<b>只读最后一层<br>（标准做法）</b>", "编码 1"}


def test_the_first_screen_shows_the_measured_answer_beside_the_wiring():
    """Not only a diagram: the paired per-seed result at the chosen depth, its numbers read from the shipped runs."""
    from explorer.experiments import depth_view as view
    from explorer.figures import depth as figs

    analysis = dp.analyse(view.load_shipped()["main"])
    for depth in ("4", "8"):
        at = run_page(PAGE, depth=depth)
        assert_clean(at)
        shown = figures(at)
        assert [f["layout"]["meta"]["figure_id"] for f in shown] == ["depth-wiring", "depth-answer"]
        answer = figs.paired_answer(analysis, int(depth))
        title = shown[1]["layout"]["meta"]["title"]
        assert f"{answer['gap']:+.1f} points" in title and f"{answer['n']} seeds" in title and answer["p"] in title
        assert sum(1 for t in shown[1]["data"] if t.get("showlegend") is False) == answer["n"]  # a line per seed
