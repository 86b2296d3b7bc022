"""AppTest of the inductive-bias crossover page: default view, every control at its extremes, a real
on-demand run, a run refused as too large, URL restore and bad URL values."""

import pytest

from tests.conftest import ROOT
from tests.pages.conftest import (assert_clean, evidence_kinds, figures, press_train, run_page, train_buttons,
                                   wait_for_jobs)

PAGE = "inductive_bias.py"
BEST = "Best structure and crossings"  # the first section is words; this one holds the figures
pytestmark = pytest.mark.skipif(not (ROOT / "data" / "crossover" / "main.json").is_file(),
                                reason="no shipped crossover results")


def _text(at) -> str:
    """The page's prose and captions, line breaks of the content file folded into spaces."""
    return " ".join(" ".join(m.value for m in [*at.markdown, *at.caption]).split())


def _curve_names(at) -> list[str]:
    return [t["name"] for t in figures(at)[0]["data"] if t.get("showlegend", True) and t.get("name")]


def test_default_view_opens_on_the_curves_with_b_star_and_crossovers_in_the_first_section():
    at = run_page(PAGE, section=BEST)
    assert_clean(at)
    assert at.title[0].value == "Inductive-bias crossover"
    figs = figures(at)
    assert len(figs) == 3
    assert figs[0]["layout"]["meta"]["figure_id"] == "crossover-curves"  # the slide's figure comes first
    assert evidence_kinds(at) == ["measured", "measured", "measured"]
    assert figs[0]["layout"]["meta"]["evidence_kinds"] == ["measured", "formula"]  # the dashed ceilings
    assert _curve_names(at) == ["w=2", "w=4", "w=8", "w=16", "w=48 (full attention)"]
    assert "seeds 0-2" in figs[0]["layout"]["meta"]["evidence_detail"]
    assert "training FLOPs (about" in _text(at)  # the read-out at today's budget
    assert not at.warning
    assert len(at.dataframe) == 1


@pytest.mark.parametrize("section, text", [("The question and the task", "*multi-lag recall*"),
                                           ("How it was measured", "Designed, not discovered")])
def test_each_section_opens_from_the_url_and_draws_only_its_own_figures(section, text):
    at = run_page(PAGE, section=section)
    assert_clean(at)
    assert [f["layout"]["meta"]["figure_id"] for f in figures(at)] == ["crossover-curves"]  # the first screen's
    assert text in _text(at) and not at.dataframe
    if section == "How it was measured":
        assert "--preset main`" in _text(at) and "held-out accuracy on" in _text(at)


@pytest.mark.parametrize("query", [dict(long="0"), dict(long="1"), dict(budget="8"), dict(budget="12"),
                                   dict(seeds="1"), dict(steps="100"), dict(windows="48"), dict(init="0.02"),
                                   dict(windows=["2", "48"], steps="200", seeds="2", long="0.95", budget="10.5")])
def test_controls_at_their_extremes_within_the_shipped_run_render_at_once(query):
    at = run_page(PAGE, section=BEST, **query)
    assert_clean(at)
    assert not at.warning and len(figures(at)) >= 2


def test_a_budget_outside_the_measured_range_says_so():
    at = run_page(PAGE, section=BEST, budget="8")
    assert any("outside the measured range" in i.value for i in at.info)
    assert "training FLOPs (about" not in _text(at)


def test_one_window_has_nothing_to_cross():
    at = run_page(PAGE, section=BEST, windows="16")
    assert_clean(at)
    assert len(figures(at)) == 2 and any("nothing to cross" in i.value for i in at.info)


def test_no_window_at_all_asks_for_one():
    at = run_page(PAGE, section=BEST)
    at.multiselect(key="windows").set_value([]).run()
    assert_clean(at)
    assert any("at least one" in i.value for i in at.info)


@pytest.mark.parametrize("query", [dict(steps="3200"), dict(seeds="5"),
                                   dict(windows=["1", "2", "3", "4", "6", "8", "12", "16", "24", "32", "48"])])
def test_too_large_runs_are_refused_with_a_suggestion(query):
    at = run_page(PAGE, section=BEST, **query)
    assert_clean(at)
    refusals = [w.value for w in at.warning if w.value.startswith("Refused")]
    assert refusals and "90 s" in refusals[0] and "fit" in refusals[0]
    assert len(figures(at)) == 3  # the shipped run stays on screen meanwhile
    assert "Meanwhile" in _text(at)


def test_new_settings_train_for_real_and_come_back_from_the_cache():
    query = dict(windows=["3", "48"], seeds="1", steps="100", budget="10")
    at = run_page(PAGE, section=BEST, **query)
    assert_clean(at)
    assert not at.get("progress") and "Meanwhile" in _text(at)  # a link alone trains nothing
    assert train_buttons(at)[0].label.startswith("Train 1 model (about ")
    at = wait_for_jobs(press_train(at), timeout=240)
    assert_clean(at)
    assert _curve_names(at) == ["w=3", "w=48 (full attention)"]
    assert "seed 0" in figures(at)[0]["layout"]["meta"]["evidence_detail"]
    again = run_page(PAGE, section=BEST, **query)  # a new session: window 3 is in the result cache, 48 is shipped
    assert_clean(again)
    assert _curve_names(again) == ["w=3", "w=48 (full attention)"] and not again.get("progress")


def test_url_restores_the_view():
    at = run_page(PAGE, windows=["2", "16"], long="0.3", seeds="2", steps="400", budget="10.2", init="0.02",
                  section="How it was measured")
    assert_clean(at)
    assert at.get("button_group")[0].value == "0.02"
    assert at.multiselect(key="windows").value == [2, 16]
    assert at.slider(key="long").value == pytest.approx(0.3)
    assert at.slider(key="seeds").value == 2
    assert at.select_slider(key="steps").value == 400
    assert at.slider(key="budget").value == pytest.approx(10.2)
    assert _curve_names(at) == ["w=2", "w=16"]
    assert "seeds 0-1" in figures(at)[0]["layout"]["meta"]["evidence_detail"]
    assert "--preset main_default_init" in _text(at)  # the notes name the shipped run shown


def test_bad_url_values_get_notices_not_tracebacks():
    at = run_page(PAGE, section=BEST, windows=["abc", "5"], long="lots", seeds="99", steps="123", budget="nan", init="1e9")
    assert_clean(at)
    notices = " ".join(c.value for c in at.caption)
    for key in ("`windows`", "`long`", "`seeds`", "`steps`", "`budget`", "`init`"):
        assert key in notices
    assert len(figures(at)) == 3  # the defaults


def test_a_near_tie_at_the_budget_has_no_clear_winner():
    at = run_page(PAGE, section=BEST, budget="9")  # 1e9 FLOPs: every model still near chance
    assert_clean(at)
    assert "no clear winner**" in _text(at) and "wins**" not in _text(at)


def test_a_lead_the_seeds_do_not_agree_on_has_no_clear_winner():
    at = run_page(PAGE, section=BEST, budget="10.1")  # w=8 ahead of the mean by 0.018, on top in 74% of resamples
    assert_clean(at)
    text = _text(at)
    assert "no clear winner**: w=8" in text and "on top in 74% of 27 resamples of the 3 seeds" in text
    bstar = figures(at)[1]
    assert [t.get("name") for t in bstar["data"][:3]] == [None, "clear winner", "no clear winner (argmax shown)"]
    assert "paired bootstrap over 3 seeds: 27 resamples, 10 distinct" in bstar["layout"]["meta"]["evidence_detail"]
    assert "only 10 different resamples exist" in text  # the notice says the bootstrap is coarse


def test_a_clear_winner_says_how_sure_and_one_seed_says_it_cannot():
    at = run_page(PAGE, section=BEST)  # 6.3e9 FLOPs: w=2 wins in every seed
    assert "window 2 wins** with accuracy 0.474, on top in 100% of 27 resamples" in _text(at)
    one = run_page(PAGE, section=BEST, seeds="1")
    assert_clean(one)
    assert "from one seed, so nothing says how sure" in _text(one) and "nothing to resample" in _text(one)
    assert len(figures(one)[1]["data"]) == 3  # no share panel: one seed gives nothing to resample


def test_the_notes_say_what_the_axis_is_and_take_the_seed_counts_from_the_data():
    text = _text(run_page(PAGE, section="How it was measured"))
    assert "the axis is the step count times a constant" in text
    assert "w=16 -> w=48 in 2 of 3" in text  # the default initialisation, counted from main_default_init.json
    assert "all 10 in 3 of 3 seeds at std 0.3" in text
    assert "from 2.0e10 FLOPs (3 of 3 seeds) at std 0.3 to 1.2e10 FLOPs (2 of 3 seeds) at std 0.02" in text
    assert "w = 2, 4, 16, 48" in text and "w = 2, 48" in text
