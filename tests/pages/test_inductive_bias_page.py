"""AppTest of the inductive-bias crossover page: slide 10's two frontiers by default, every window one click away,
the learning-rate view, the budget at its extremes, the quick run drawn while it trains (then cancelled), URL
restore and bad URL values."""

import time

import pytest

from explorer import results
from explorer.experiments import crossover as xo
from explorer.jobs import QUEUE
from tests.conftest import ROOT
from tests.pages.conftest import (
    assert_clean,
    evidence_kinds,
    figures,
    press_train,
    run_page,
    train_buttons,
    untranslated,
)

PAGE = "inductive_bias.py"
QUICK_KEY = "crossover-quick-" + results.result_key("crossover-quick", xo.PRESETS["quick"].to_dict())
BEST = "Best structure and crossings"  # the first section is words; this one holds the figures
pytestmark = pytest.mark.skipif(
    not (ROOT / "data" / "crossover" / "main.json").is_file(), reason="no shipped crossover results"
)


def _text(at) -> str:
    """The page's prose and captions, line breaks of the content file folded into spaces."""
    return " ".join(" ".join(m.value for m in [*at.markdown, *at.caption]).split())


def _frontier_names(at) -> list[str]:
    return [t["name"] for t in figures(at)[0]["data"] if t.get("showlegend", True) and t.get("name")]


def test_default_view_is_slide_10_two_frontiers_crossing_with_b_star_and_crossings_below():
    at = run_page(PAGE, section=BEST)
    assert_clean(at)
    assert at.title[0].value == "Inductive-bias crossover"
    figs = figures(at)
    assert [f["layout"]["meta"]["figure_id"] for f in figs] == [
        "crossover-curves",
        "crossover-bstar",
        "crossover-points",
    ]
    assert evidence_kinds(at) == ["measured", "measured", "measured"]
    assert figs[0]["layout"]["meta"]["evidence_kinds"] == ["measured", "formula"]  # the dashed ceilings
    assert _frontier_names(at) == ["w=2", "w=48 (full attention)", "crossover (seed range)"]
    detail = figs[0]["layout"]["meta"]["evidence_detail"]
    assert "widths d=16, 32, 64" in detail and "seeds 0-2" in detail and "best lr per size" in detail
    sizes = [t for t in figs[0]["data"] if t.get("line", {}).get("dash") == "dot"]
    assert len(sizes) == 2 * 3 * 2  # two windows x three widths x two learning rates, under the frontiers
    assert "training FLOPs, window 2 wins**" in _text(at) and "(its best size there: d=" in _text(at)
    assert not at.warning and len(at.dataframe) == 1
    lr_marks = {t["name"] for t in figs[2]["data"] if t.get("name", "").startswith("lr ")}
    assert lr_marks == {"lr 0.003 for every size", "lr 0.01 for every size"}  # the recipe view


@pytest.mark.parametrize(
    "section, text",
    [("The question and the task", "compute-optimal frontier"), ("How it was measured", "Designed, not discovered")],
)
def test_each_section_opens_from_the_url_and_draws_only_its_own_figures(section, text):
    at = run_page(PAGE, section=section)
    assert_clean(at)
    assert [f["layout"]["meta"]["figure_id"] for f in figures(at)] == ["crossover-curves"]  # the first screen's
    assert text in _text(at) and not at.dataframe
    if section == "How it was measured":
        assert "--preset main --save`" in _text(at) and "The crossing belongs to the recipe too" in _text(at)


def test_every_window_is_one_click_away():
    at = run_page(PAGE)
    at.radio(key="show").set_value("All five windows").run()
    assert_clean(at)
    assert _frontier_names(at) == ["w=2", "w=4", "w=8", "w=16", "w=48 (full attention)"]


@pytest.mark.parametrize(
    "query",
    [
        dict(budget="7.5"),
        dict(budget="11.5"),
        dict(lr="0.003"),
        dict(lr="0.01"),
        dict(show="All five windows", lr="0.003", budget="10.5"),
    ],
)
def test_controls_at_their_extremes_render_at_once(query):
    at = run_page(PAGE, section=BEST, **query)
    assert_clean(at)
    assert not at.warning and len(figures(at)) == 3
    if "lr" in query:
        assert f"lr {query['lr']}," in figures(at)[0]["layout"]["meta"]["evidence_detail"]


def test_a_budget_outside_the_measured_range_says_so():
    at = run_page(PAGE, section=BEST, budget="7.5")
    assert any("outside the measured range" in i.value for i in at.info)
    assert "wins**" not in _text(at) and not at.dataframe


def test_the_quick_run_draws_its_frontiers_while_it_trains_and_can_be_cancelled():
    at = run_page(PAGE, section="Watch it learn")
    assert_clean(at)
    assert train_buttons(at)[0].label.startswith("Train 12 models (about ")
    at = press_train(at)
    deadline = time.monotonic() + 120
    while len(figures(at)) < 2 and time.monotonic() < deadline:  # the progress panel polls: the first checkpoints
        time.sleep(0.5)
        at.run()
    assert_clean(at)
    live = figures(at)[1]
    assert "widths d=16, 32, 64" in live["layout"]["meta"]["evidence_detail"]
    assert {t.get("name") for t in live["data"]} >= {"w=2", "w=48 (full attention)"}
    (cancel,) = [b for b in at.button if b.label == "Cancel run"]
    at = cancel.click().run()
    QUEUE.wait_idle(60)
    assert_clean(at.run())


def test_the_chinese_page_says_everything_in_chinese_in_every_section():
    at = run_page(PAGE, lang="zh", sections="all")
    assert_clean(at)
    assert [f["layout"]["meta"]["figure_id"] for f in figures(at)] == [
        "crossover-curves",
        "crossover-bstar",
        "crossover-points",
        "ladder-crossover",  # the shipped ladder's
    ]
    assert untranslated(at) == []
    assert _frontier_names(at) == ["w=2", "w=48（全注意力）", "交叉点（随机种子范围）"]
    assert "训练 FLOPs 处，窗口 2 胜出**" in _text(at) and "交叉点也属于训练配方" in _text(at)
    assert [r.options for r in at.radio] == [["w=2 与全注意力", "全部五个窗口"], ["每个规模取最佳", "0.003", "0.01"]]
    assert list(at.dataframe[0].value.columns)[:2] == ["窗口", "当前前沿"]
    assert train_buttons(at)[0].label.startswith("训练 12 个模型（约 ")  # shown, never pressed here
    assert QUEUE.get(QUICK_KEY) is None  # nothing trains


def test_the_chinese_page_with_every_window_one_rate_and_a_budget_outside_the_range():
    at = run_page(PAGE, lang="zh", show="全部五个窗口", lr="0.003", budget="7.5", section="最佳结构与交叉点")
    assert_clean(at)
    assert untranslated(at) == []
    assert len(figures(at)) == 3 and len(_frontier_names(at)) == 5
    assert "学习率 0.003" in figures(at)[0]["layout"]["meta"]["evidence_detail"]
    assert any("不在测量范围内" in i.value for i in at.info)


def test_url_restores_the_view():
    at = run_page(PAGE, show="All five windows", lr="0.01", budget="10.2", section="How it was measured")
    assert_clean(at)
    assert at.radio(key="show").value == "All five windows" and at.radio(key="lr").value == "0.01"
    assert at.slider(key="budget").value == pytest.approx(10.2)
    assert len(_frontier_names(at)) == 5


def test_bad_url_values_get_notices_not_tracebacks():
    at = run_page(PAGE, section=BEST, show="abc", lr="5", budget="nan")
    assert_clean(at)
    notices = " ".join(c.value for c in at.caption)
    for key in ("`show`", "`lr`", "`budget`"):
        assert key in notices
    assert len(figures(at)) == 3  # the defaults
