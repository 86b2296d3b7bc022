"""The cache page's numbers (explorer.experiments.cache_view): closed-form counts, the chat's takeaway choice, the
timing decisions and the shipped slide-64 and stale-cache findings agree with what they are computed from."""

import pytest

from explorer.experiments import bidirectional_scaling as scaling
from explorer.experiments import cache as exp
from explorer.experiments import cache_view as view
from explorer.experiments import chat_cache as chat
from explorer.experiments import stale_cache
from explorer.formatting import plural
from explorer.stats import smallest_p


def test_the_takeaway_counts_every_entry_of_the_current_turn():
    n, m, turns = 4, 2, 3  # history n + (T-1)m = 8 tokens, 10 in all
    numbers = view.takeaway(n, m, turns, exp.reuse_pattern(n, m, turns, 1)["counts"])
    assert (numbers["history"], numbers["total"]) == (8, 10)
    # bidirectional: all 10 x 10 entries; causal: the 2 new rows read 9 and 10 keys
    assert (numbers["bidirectional"], numbers["causal"]) == ("100", "19")
    assert numbers["ratio"] == pytest.approx(100 / 19)


def test_the_view_choice_shows_its_url_values_in_the_run_language():
    from explorer import i18n

    views = (view.CHAT_VIEW, view.SIZES_VIEW)
    assert [view.view_label(v) for v in views] == ["Chat (slide 66)", "Any size (n, m, T)"]
    with i18n.using("zh"):
        assert [view.view_label(v) for v in views] == ["对话（幻灯片 66）", "任意规模（n, m, T）"]


def _turn(text: str, end: int, old: int, drift: dict | None) -> dict:
    return {"turn": 2, "text": text, "old": old, "new": end - old, "end": end, "drift": drift}


def test_the_chat_takeaway_names_what_was_measured_and_which_token_moved_most():
    data = chat.chat_reuse(chat.parse_chat("How are you? / Bad"), None)  # no models: nothing measured
    assert view.chat_takeaway(data, 1)[0] == "unmeasured"
    one = chat.chat_reuse(chat.parse_chat("Hi"), None)
    assert view.chat_takeaway(one, 1) == ("one-turn", {"tokens": 2, "separator": chat.TURN_SEPARATOR})
    moved = {"bidirectional": [[0.0, 0.0], [0.2, 0.6]], "causal": [[0.0, 0.0], [0.0, 1e-7]]}
    data = {
        "turns": [_turn("hi", 2, 0, None), _turn("ok", 5, 2, moved)],
        "tokens": list("hi ok"),
        "quantities": ["layer 1", "layer 2"],
        "limit": 40,
        "models": "demo",
    }
    assert view.chat_takeaway(data, 0)[0] == "layer1"
    kind, values = view.chat_takeaway(data, 1)
    assert kind == "moved" and values["mean"] == pytest.approx(0.4) and values["max"] == 0.6
    assert values["token"] == "“i”" and values["text"] == "“ok”" and (values["old"], values["new"]) == (2, 3)
    assert view.measured_turns(data) is None  # within the limit: every turn is measured
    data["limit"] = 4
    assert view.measured_turns(data) == "1 turn"


def test_timing_is_refused_past_its_limits_inline_when_quick_and_in_the_background_otherwise():
    refused = view.timing_plan(exp.MAX_MEASURE_TOKENS, 8, 2)
    assert refused["problem"] and not refused["inline"]
    quick = view.timing_plan(16, 1, 1)
    assert quick["problem"] is None and quick["inline"] and quick["planned"] <= exp.INLINE_SECONDS
    slow = view.timing_plan(2048, 256, 8)
    assert slow["problem"] is None and not slow["inline"]


FIT = {"b_s_per_layer": 1e-3, "c_s": 0.5e-3, "gflops_per_s": 10.0, "a_s_per_flop": 1e-10}  # an overhead fit
SWEEP = {"fit": FIT, "rows": [{}] * 12}  # its 12 timings


def test_the_speedup_is_explained_by_the_overhead_fit_and_flagged_when_far_from_its_prediction():
    predicted = exp.predicted_speedup(FIT, 512, 8, 2)
    base = {"flop_ratio": 65.0, "flops_cached": 2e6}
    near = view.why_speedup({**base, "speedup": predicted}, SWEEP, 512, 8, 2)
    assert near["extra"] is None and near["predicted"] == pytest.approx(predicted) and near["timings"] == 12
    assert near["fixed_ms"] == pytest.approx(2.5) and near["matrix_ms"] == pytest.approx(0.2)
    assert view.why_speedup({**base, "speedup": 0.5 * predicted}, SWEEP, 512, 8, 2)["extra"] == "thin"
    assert view.why_speedup({**base, "speedup": 2 * predicted}, SWEEP, 512, 8, 2)["extra"] == "fast"
    assert (
        near["rows"] == "8 rows"
        and view.why_speedup({**base, "speedup": predicted}, SWEEP, 512, 1, 2)["rows"] == "1 row"
    )


def test_the_why_paragraph_adds_the_sentence_its_distance_from_the_prediction_asks_for():
    predicted = exp.predicted_speedup(FIT, 512, 8, 2)
    base = {"flop_ratio": 65.0, "flops_cached": 2e6}
    near, thin, fast = (
        view.why_paragraph({**base, "speedup": factor * predicted}, SWEEP, 512, 8, 2) for factor in (1.0, 0.5, 2.0)
    )
    assert near.startswith(f"**Why {predicted:.1f}x and not 65.0x:** fitted over 12 timings")
    assert all(text.endswith("read of the weights serves all.") for text in (near, thin, fast))
    assert "thin products" not in near and "faster than the model expects" not in near
    assert "(8 rows against every weight matrix and all 512" in thin and "faster" not in thin
    assert "This size runs faster than the model expects" in fast and "thin products" not in fast


def test_a_trend_verdict_needs_a_holm_corrected_p_below_the_threshold():
    assert view.verdict({"mean_slope": -0.1, "p_holm": 0.01}) == "shrinks"
    assert view.verdict({"mean_slope": 0.1, "p_holm": 0.01}) == "grows"
    assert view.verdict({"mean_slope": -0.1, "p_holm": 0.2}) == "unclear"


@pytest.mark.skipif(scaling.load_shipped() is None, reason="no shipped slide-64 sweep")
def test_the_slide_64_findings_quote_the_shipped_points_at_the_longest_budget():
    data = scaling.analyse(scaling.load_shipped())
    found = view.scaling_findings(data)
    last = [p for p in data["points"] if p["steps"] == data["config"]["budgets"][-1]]
    assert found["findings"]["small_gap"] == last[0]["gap"] and found["findings"]["large_gap"] == last[-1]["gap"]
    assert found["weigh"]["best_gap"] == max(p["gap"] for p in last)
    assert found["width_verdict"] == view.verdict(data["trend"]["width"])
    assert found["caveat"]["tests"] == len(data["points"])
    sizes = view.scaling_sizes(data)
    assert sizes["widths"] == ", ".join(map(str, data["config"]["widths"]))
    watch = view.scaling_watch(scaling.PRESETS["quick"], None)
    assert watch["models"].endswith("models") and watch["seconds"] > 0


@pytest.mark.skipif(scaling.load_shipped() is None, reason="no shipped slide-64 sweep")
def test_the_slide_64_paragraphs_follow_the_findings_and_their_verdicts_in_order():
    data = scaling.analyse(scaling.load_shipped())
    found = view.scaling_findings(data)
    findings, width, budget, caveat, weigh = view.scaling_paragraphs(data)
    assert findings.startswith(
        f"**What this toy shows.** After {data['config']['budgets'][-1]} steps the gap is "
        f"{found['findings']['small_gap']:+.3f} nats"
    )
    verdicts = {
        "shrinks": "benefit of bidirectional input shrinks",
        "grows": "Here the gap does not shrink",
        "unclear": "These seeds cannot say",
    }
    assert width.startswith("**The verdict.**") and verdicts[found["width_verdict"]] in width
    assert budget.startswith(
        {
            "grows": "Training longer does the opposite",
            "shrinks": "Training longer works the same",
            "unclear": "Over training budgets",
        }[found["budget_verdict"]]
    )
    assert caveat.startswith("Two things temper the width trend.") and f"once its {len(data['points'])}" in caveat
    assert weigh.startswith("**Quality gained against cost paid.**") and f"{found['weigh']['ratio']:.1f}×" in weigh


@pytest.mark.skipif(stale_cache.load() is None, reason="no shipped stale-cache runs")
def test_the_stale_findings_need_both_tasks_and_quote_the_test_floor_of_their_seeds():
    head = stale_cache.headline(stale_cache.load())
    found = view.stale_findings(head)
    assert found["p_floor"] == smallest_p(head["sort"]["seeds"]) and found["copy_gap"] == head["copy"]["mean_gap"]
    assert view.stale_findings({"sort": head["sort"]}) is None


def test_drift_sizes_and_limits_quote_the_experiment_constants():
    numbers = view.drift_numbers(4096, 8)
    assert numbers["scaled"] and numbers["n_d"] + numbers["m_d"] <= exp.DRIFT_TASK.length
    assert not view.drift_numbers(8, 4)["scaled"]
    assert view.limits()["cells"] == exp.MAX_CELLS and view.limits()["chat_limit"] == chat.MEASURED_LIMIT


# --- the Chinese edition -------------------------------------------------------------------------------------------


def test_chat_states_and_tiles_speak_the_run_language_while_the_url_values_stay_english():
    from explorer import i18n

    assert view.state_label("layer 2 keys & values") == "layer 2 keys & values"
    with i18n.using("zh"):
        assert [view.state_label(s) for s in view.CHAT_STATES][-2:] == ["第 2 层的键和值", "输出状态"]
        assert plural(3, "turn") == "3 轮" and view.measured_tiles(
            {
                "time_reencode_ms": 2.0,
                "time_cached_ms": 1.0,
                "speedup": 2.0,
                "flop_ratio": 9.0,
                "max_abs_logit_diff": 0.0,
            }
        )[0] == ("重新编码", "2 ms")
    assert view.CHAT_STATES[-1] == "output state" and plural(1, "turn") == "1 turn"


def test_a_data_table_keeps_its_numbers_and_english_names_and_translates_for_chinese():
    from explorer import i18n

    table = [{"task": "sort", "n": 4, "arch": "causal", "gap": 0.5}]
    assert list(view.shown_table(table).columns) == ["task", "n", "arch", "gap"]
    with i18n.using("zh"):
        shown = view.shown_table(table)
    assert list(shown.columns) == ["任务", "n", "架构", "差距"] and shown.iloc[0].tolist() == ["排序", 4, "因果", 0.5]
