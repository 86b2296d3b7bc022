"""AppTest of the cache-reuse page: the lecture's chat first, the sizes view, every slider at its extremes, URL
state, bad URL values."""

import pytest

from explorer.experiments import cache as exp
from explorer.experiments import chat_cache as chat_exp
from explorer.jobs import QUEUE
from tests.pages.conftest import (
    assert_clean,
    evidence_kinds,
    figures,
    run_page,
    train_buttons,
    untranslated,
    wait_for_jobs,
)

PAGE = "cache_reuse.py"


def _titles(at) -> list[str]:
    return [f["layout"]["meta"]["title"] for f in figures(at)]


HEATMAP = "cache-reuse-heatmaps"
CHAT = "cache-chat"
SIZES = {"view": "Any size (n, m, T)"}  # the n, m, turns heatmaps on top
MEASURED = "Measured on this server"


def _ids(at) -> list[str]:
    return [f["layout"]["meta"]["figure_id"] for f in figures(at)]


def _text(at) -> str:
    return " ".join(md.value for md in at.markdown)


def _time_it(at):
    """Press the measured tab's buttons (this turn, then the overhead sweep unless the server has it), and show
    the timings once the background runs are done."""
    for key in [b.key for b in train_buttons(at)]:
        at = at.button(key=key).click().run()
    return wait_for_jobs(at)


def test_the_page_opens_on_the_lecture_chat_through_the_demo_models():
    at = run_page(PAGE)
    assert_clean(at)
    chat = figures(at)[0]
    assert chat["layout"]["meta"]["figure_id"] == CHAT
    assert chat["layout"]["meta"]["evidence_kinds"] == ["measured", "by construction"]
    assert chat["layout"]["meta"]["title"].startswith("Turn 2: the causal model computes 4 new tokens")
    assert chat["layout"]["height"] <= 560  # whole on a 1440x900 screen under the title and the lead
    assert evidence_kinds(at) == ["measured"]  # one figure: the open first section is words
    assert at.text_input(key="chat").value == chat_exp.DEFAULT_CHAT
    assert at.select_slider(key="chat_state").value == "layer 2 keys & values"
    assert "When “bad” arrived, the causal model kept 12 old tokens and computed 4" in _text(at)
    assert "moved 94% on average (“r”: 151%)" in " ".join(_text(at).split())


def test_a_typed_chat_from_the_url_and_each_state_shown():
    at = run_page(PAGE, chat="Hi / ok? / no", chat_state="output state")
    assert_clean(at)
    assert "old tokens' output state moved" in _text(at)
    at.select_slider(key="chat_state").set_value("layer 1 keys & values").run()
    assert_clean(at)
    assert figures(at)[0]["layout"]["meta"]["title"].startswith("Turn 3: the causal model computes 3 new tokens")
    assert "did not move" in _text(at) and "When “no” arrived" in _text(at)


def test_a_chat_over_the_models_length_names_the_limit_and_a_chat_over_the_page_limits_is_refused():
    at = run_page(PAGE, chat="How are you? / Bad / Why?")
    assert_clean(at)
    assert figures(at)[0]["layout"]["meta"]["evidence_kinds"] == ["measured", "by construction"]  # turn 2 is
    assert f"only up to {chat_exp.MEASURED_LIMIT} tokens" in " ".join(_text(at).split())
    assert any(f"at most {chat_exp.MEASURED_LIMIT} characters" in c.value for c in at.caption)
    at = run_page(PAGE, chat=" / ".join(["hi"] * (chat_exp.MAX_TURNS + 1)))
    assert_clean(at)
    assert any(f"at most {chat_exp.MAX_TURNS}" in w.value for w in at.warning) and not figures(at)


def test_markup_typed_into_the_chat_is_shown_as_plain_tokens():
    at = run_page(PAGE, chat="<script>alert(1)</script> / **bold** [x](javascript:alert(1))")
    assert_clean(at)
    shown = _text(at) + " ".join(c.value for c in at.caption) + str(figures(at)[0])
    assert "<script" not in shown and "**bold**" not in shown and "javascript:" not in shown


def test_a_heatmap_link_opens_the_sizes_view_and_the_view_switch_is_one_click():
    at = run_page(PAGE, figure=HEATMAP, controls="hidden", embed="true")
    assert_clean(at)
    assert _ids(at) == [HEATMAP]
    at = run_page(PAGE)
    at.radio(key="view").set_value(SIZES["view"]).run()
    assert_clean(at)
    assert _ids(at)[0] == HEATMAP


def test_the_sizes_view_shows_the_reuse_heatmap_with_three_controls_and_a_takeaway():
    at = run_page(PAGE, **SIZES)
    assert_clean(at)
    heat = figures(at)[0]
    assert heat["layout"]["meta"]["figure_id"] == HEATMAP and heat["layout"]["meta"]["evidence"] == "schematic"
    assert heat["layout"]["meta"]["title"].startswith("Turn 3: 64 old tokens + 8 new, layer 2")
    assert heat["layout"]["height"] <= 620  # whole on a 1440x900 screen under the title and the lead
    assert evidence_kinds(at) == ["schematic"]  # the open first section is words: a slider move redraws one figure
    text = " ".join(md.value for md in at.markdown)
    assert "history of n + (T-1)·m = 64 tokens" in text and "72 in all" in text


@pytest.mark.parametrize(
    "section, ids",
    [
        ("What it costs", ["cache-recompute-turns", "cache-cost-per-turn", "cache-cost-cumulative", "cache-kv-memory"]),
        (MEASURED, ["cache-measured-times", "cache-overhead-fit", "cache-speedup-vs-ratio"]),
        ("How far old tokens move", ["cache-drift-layers", "cache-drift-fraction"]),
        ("Reusing a stale cache", ["cache-stale-accuracy", "cache-stale-kl"]),
        ("What the toy cannot test", []),
    ],
)
def test_each_section_opens_from_the_url_and_draws_only_its_own_figures(section, ids):
    at = run_page(PAGE, section=section)
    if section == MEASURED:
        at = _time_it(at)
    assert_clean(at)
    assert _ids(at) == [CHAT, *ids]
    if section == "What the toy cannot test":
        assert f"{exp.MAX_MEASURE_TOKENS:,} tokens" in " ".join(m.value for m in at.markdown)


def test_the_measured_section_shows_timings_with_their_evidence():
    at = _time_it(run_page(PAGE, section=MEASURED))
    assert_clean(at)
    kinds = evidence_kinds(at)
    assert {"measured", "fit"} <= set(kinds)
    titles = _titles(at)
    assert titles[0].startswith("Turn 2: the causal model computes 4 new tokens")
    assert any(t.startswith("Measured speedup") for t in titles)
    assert any(t.startswith("time ≈ FLOPs") for t in titles)
    assert any("Why" in md.value and "each layer costs about" in md.value for md in at.markdown)
    assert [m.label for m in at.metric][:4] == ["Re-encode", "Cached step", "Measured speedup", "FLOP ratio"]


@pytest.mark.parametrize(
    "query",
    [
        {"section": MEASURED},
        {"sections": "all"},
        {"section": MEASURED, "n": "1024", "m": "1", "turns": "1", "depth": "8"},
    ],
    ids=["tab", "all sections", "a background size"],
)
def test_opening_the_measured_tab_times_nothing_until_a_person_presses(monkeypatch, query):
    """Issue 36: four links to this tab from one address used to fill its cap with timing runs nobody asked for.
    The real timing functions are counted (and still run) to show the page calls neither before a press."""
    calls = []
    for name in ("measure", "overhead_sweep"):
        real = getattr(exp, name)
        monkeypatch.setattr(exp, name, lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k))
    at = run_page(PAGE, **query)
    assert_clean(at)
    assert calls == [] and not QUEUE.active() and not at.get("progress") and not at.metric
    labels = [b.label for b in train_buttons(at)]
    assert labels[0].startswith("Time this turn on this server")
    assert any("Nothing is timed until you press" in c.value for c in at.caption)
    if "n" not in query:  # the quick turn, pressed: timed at once, and only it
        at = train_buttons(at)[0].click().run()
        assert_clean(at)
        assert calls == ["measure"] and [m.label for m in at.metric][:2] == ["Re-encode", "Cached step"]


def test_a_lecture_embed_of_the_measured_tab_times_nothing():
    at = run_page(PAGE, section=MEASURED, controls="hidden")
    assert_clean(at)
    assert not train_buttons(at) and not QUEUE.active() and not at.metric


def test_each_size_alone_at_its_extreme_renders_cleanly():
    for params in ({"n": "4096"}, {"m": "256"}, {"turns": "12"}, {"depth": "8"}, {"n": "1", "m": "256"}):
        assert_clean(run_page(PAGE, **SIZES, **params))


def test_all_sliders_at_their_minimum():
    at = run_page(PAGE, n="1", m="1", turns="1", depth="1", **SIZES)
    assert_clean(at)
    assert figures(at)[0]["layout"]["meta"]["title"].startswith("Turn 1: 1 old tokens + 1 new, layer 1")
    assert "Layer shown: 1" in " ".join(c.value for c in at.caption)
    assert not at.warning


def test_all_sliders_at_their_maximum_refuse_timing_and_name_the_limit():
    at = run_page(PAGE, n="4096", m="256", turns="12", depth="8", layer="8", section=MEASURED, **SIZES)
    assert_clean(at)
    assert any(f"{exp.MAX_MEASURE_TOKENS:,} tokens" in w.value for w in at.warning)
    heat = figures(at)[0]["layout"]["meta"]
    assert heat["evidence"] == "schematic" and "coloured by its centre" in heat["evidence_detail"]
    at = run_page(PAGE, n="4096", m="256", turns="12", depth="8", layer="8", section="How far old tokens move")
    assert_clean(at)
    assert any("drift is measured with" in c.value for c in at.caption)  # drift keeps the share appended


def test_a_large_size_is_timed_in_the_background():
    at = run_page(PAGE, n="1024", m="1", turns="1", depth="8", section=MEASURED)
    assert_clean(at)
    assert any("runs in the background" in i.value for i in at.info)
    assert not QUEUE.active() and any(
        b.label.startswith("Time this turn on this server (up to about") for b in train_buttons(at)
    )
    at = _time_it(at)
    assert_clean(at)
    assert any(t.startswith("Measured speedup") and "n=1024, message m=1, 8 layers" in t for t in _titles(at))


def test_moving_the_sliders_redraws_and_depth_clamps_the_layer():
    at = run_page(PAGE, depth="4", layer="4", **SIZES)
    at.select_slider(key="n").set_value(1).run()
    at.select_slider(key="m").set_value(256).run()
    at.slider(key="depth").set_value(2).run()
    assert_clean(at)
    assert at.slider(key="layer").value == 2
    assert figures(at)[0]["layout"]["meta"]["title"].startswith("Turn 3: 513 old tokens + 256 new, layer 2")
    at.slider(key="turns").set_value(12).run()
    assert_clean(at)


def test_url_restores_the_view():
    at = run_page(PAGE, n="12", m="3", turns="2", depth="3", layer="1", **SIZES)
    assert_clean(at)
    assert at.select_slider(key="n").value == 12 and at.select_slider(key="m").value == 3
    assert at.slider(key="turns").value == 2 and at.slider(key="depth").value == 3
    assert at.slider(key="layer").value == 1
    assert figures(at)[0]["layout"]["meta"]["title"].startswith("Turn 2: 15 old tokens + 3 new, layer 1")
    assert not at.caption[0].value.startswith(":orange")


def test_bad_url_values_get_notices_not_errors():
    at = run_page(PAGE, n="abc", m="99999", turns="-5", depth="nan", layer="99")
    assert_clean(at)
    notices = " ".join(c.value for c in at.caption)
    for key in ("`n`", "`m`", "`turns`", "`depth`", "`layer`"):
        assert key in notices
    assert at.select_slider(key="n").value == 48 and at.slider(key="turns").value == 1
    assert at.slider(key="layer").value == 2  # clamped to the default depth


STALE = "Reusing a stale cache"


def test_the_stale_cache_section_shows_the_measured_error_and_the_causal_zero_by_construction():
    at = run_page(PAGE, section=STALE)
    assert_clean(at)
    accuracy, kl = figures(at)[1:]
    assert accuracy["layout"]["meta"]["evidence_kinds"] == ["measured"]
    assert kl["layout"]["meta"]["evidence_kinds"] == ["measured", "by construction"]
    assert "24 old tokens" in accuracy["layout"]["meta"]["title"]  # the longest history by default
    text = " ".join(md.value for md in at.markdown)
    assert "What this toy shows" in text and "What it cannot show" in text and "p = 0.25" in text


def test_the_stale_cache_history_at_its_extremes_and_a_bad_url_value():
    for n, shown in (("4", "4 old tokens"), ("24", "24 old tokens")):
        at = run_page(PAGE, section=STALE, stale_n=n)
        assert_clean(at)
        assert shown in figures(at)[1]["layout"]["meta"]["title"]
    at = run_page(PAGE, section=STALE, stale_n="5")
    assert_clean(at)
    assert "`stale_n`" in " ".join(c.value for c in at.caption)
    assert at.select_slider(key="stale_n").value == 24


# --- slide 64, measured: does bidirectional input pay at scale? (its own imports, kept with its tests) ----------
from dataclasses import replace  # noqa: E402

from explorer.experiments import bidirectional_scaling as scaling  # noqa: E402
from tests.pages.conftest import press_train  # noqa: E402

SCALING = "Bidirectional at scale (slide 64)"


def test_the_slide_64_section_weighs_the_measured_gap_against_the_serving_cost():
    at = run_page(PAGE, section=SCALING)
    assert_clean(at)
    assert _ids(at) == [CHAT, "cache-bidirectional-gap", "cache-bidirectional-serving"]
    gap, serving = figures(at)[1:]
    assert gap["layout"]["meta"]["evidence_kinds"] == ["measured"]
    assert serving["layout"]["meta"]["evidence_kinds"] == ["formula"]
    assert {t["name"] for t in gap["data"] if t.get("name")} == {"d = 8", "d = 16", "d = 32", "d = 64"}
    text = " ".join(_text(at).split())
    for part in ("What this toy shows", "The verdict", "Quality gained against cost paid", "can and cannot test"):
        assert part in text
    assert "p = 0.008" in text  # the floor of the exact test with the 8 shipped seeds
    assert len(train_buttons(at)) == 1  # the quick run waits for a press


def test_the_slide_64_quick_run_trains_on_demand_and_shows_its_gaps(monkeypatch):
    tiny = replace(scaling.PRESETS["quick"], widths=(4, 8), budgets=(2, 4), seeds=(0,), eval_size=16)
    monkeypatch.setitem(scaling.PRESETS, "quick", tiny)  # the page's own run, at a test's size
    at = wait_for_jobs(press_train(run_page(PAGE, section=SCALING)))
    assert_clean(at)
    assert _ids(at)[-1] == "cache-bidirectional-quick"
    assert {t["name"] for t in figures(at)[-1]["data"] if t.get("name")} == {"d = 4", "d = 8"}


def test_the_slide_64_section_without_its_shipped_result_says_how_to_make_it(monkeypatch, tmp_path):
    monkeypatch.setattr(scaling, "SHIPPED_DIR", tmp_path)
    at = run_page(PAGE, section=SCALING)
    assert_clean(at)
    assert any("bidirectional-scaling --preset main" in i.value for i in at.info)
    assert _ids(at) == [CHAT] and len(train_buttons(at)) == 1


# --- the Chinese edition -------------------------------------------------------------------------------------------


def test_the_chinese_page_speaks_chinese_on_the_chat_and_in_every_section():
    at = run_page(PAGE, lang="zh", sections="all")
    assert_clean(at)
    assert untranslated(at) == []
    chat = figures(at)[0]
    assert chat["layout"]["meta"]["figure_id"] == CHAT and chat["layout"]["meta"]["title"].startswith("第 2 轮")
    assert at.select_slider(key="chat_state").value == "layer 2 keys & values"  # the URL's value stays English
    assert "第 2 层的键和值" in " ".join(_text(at).split())


def test_the_chinese_sizes_view_and_a_refused_chat():
    at = run_page(PAGE, lang="zh", view="任意规模（n, m, T）")  # a Chinese link carries the Chinese label
    assert_clean(at)
    assert untranslated(at) == []
    assert _ids(at)[0] == HEATMAP and at.radio(key="view").value == SIZES["view"]
    at = run_page(PAGE, lang="zh", chat=" / ".join(["hi"] * (chat_exp.MAX_TURNS + 1)))
    assert any("至多接受" in w.value for w in at.warning) and untranslated(at) == []
