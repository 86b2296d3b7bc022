"""AppTest of the Bitter Lesson page: the shipped curves and their takeaway first, the compute axis, each section,
a bad URL value, and the quick run: nothing trains before the button, its curves grow while it trains, Cancel."""

import time
from dataclasses import replace

import pytest

from explorer import results
from explorer.experiments import bitter_lesson as bl
from explorer.jobs import QUEUE
from explorer.figures.bitter_lesson import method_name
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

PAGE = "bitter_lesson.py"
RUN_KEY = "bitter-" + results.result_key("bitter-run", replace(bl.PRESETS["quick"], cases=("order",)).to_dict())
pytestmark = pytest.mark.skipif(not bl.shipped_path().is_file(), reason="no shipped Bitter Lesson results")


def _text(at) -> str:
    return " ".join(" ".join(m.value for m in [*at.markdown, *at.caption, *at.info]).split())


def _ids(at) -> list[str]:
    return [f["layout"]["meta"]["figure_id"] for f in figures(at)]


def test_default_view_shows_the_shipped_curves_and_a_takeaway_and_trains_nothing():
    at = run_page(PAGE)
    assert_clean(at)
    assert at.title[0].value == "The Bitter Lesson"
    assert _ids(at) == ["bitter-curves"] and evidence_kinds(at) == ["measured"]
    fig = figures(at)[0]
    assert fig["layout"]["meta"]["evidence_kinds"] == ["measured", "formula"]
    assert fig["layout"]["xaxis"]["title"]["text"] == "training examples seen"
    names = [t.get("name") for t in fig["data"] if t.get("showlegend", True) and t.get("name")]
    assert (
        names[:2]
        == [method_name("hand-built"), method_name("transformer")]
        == ["hand-built (2 features)", "Transformer (raw words)"]
    )
    assert "The hand-built method leads with few examples" in _text(at) and not at.warning
    assert [b.label for b in train_buttons(at)] == ["Watch it learn: train here (about 25 s)"]
    assert QUEUE.get(RUN_KEY) is None


def test_the_compute_axis_carries_the_hand_built_methods_last_loss_on_dashed():
    at = run_page(PAGE, axis="compute")
    assert_clean(at)
    fig = figures(at)[0]
    assert fig["layout"]["xaxis"]["title"]["text"] == "training FLOPs"
    assert any(t.get("line", {}).get("dash") == "dash" for t in fig["data"])


@pytest.mark.parametrize(
    "section, ids, text",
    [
        ("How it was measured", ["bitter-curves"], "exact sign-flip test"),
        ("Second case: only counts matter", ["bitter-curves", "bitter-counts"], "TOST sign-flip"),
        ("What the toy can and cannot test", ["bitter-curves"], "Where it disagrees with the lecture"),
        ("Data and sources", ["bitter-curves"], "python -m explorer bitter-lesson --preset main"),
    ],
)
def test_each_section_opens_from_the_url_with_its_own_content(section, ids, text):
    at = run_page(PAGE, section=section)
    assert_clean(at)
    assert _ids(at) == ids and text in _text(at)
    if section == "How it was measured":
        assert len(at.dataframe[0].value) == 2 * len(bl.CASES)  # two budgets per case


def test_a_bad_axis_in_the_url_falls_back_with_a_notice():
    at = run_page(PAGE, axis="<script>")
    assert_clean(at)
    assert figures(at)[0]["layout"]["xaxis"]["title"]["text"] == "training examples seen"
    assert any("`axis`" in c.value for c in at.caption)


def test_the_chinese_page_says_everything_in_chinese_on_both_axes_and_in_every_section():
    at = run_page(PAGE, lang="zh", sections="all")
    assert_clean(at)
    assert _ids(at) == ["bitter-curves", "bitter-counts", "ladder-bitter-lesson"]  # the shipped ladder's too
    assert untranslated(at) == []
    assert "样本少时，手工构造的方法领先" in _text(at) and "TOST" in _text(at)
    fig = figures(at)[0]
    assert fig["layout"]["xaxis"]["title"]["text"] == "已见训练样本数"
    assert [b.label for b in train_buttons(at)] == ["看它学习：在这里训练（约 25 秒）"]
    table = at.dataframe[0].value  # the paired tests, columns in Chinese
    assert list(table.columns)[:2] == ["比较", "随机种子数"] and len(table) == 2 * len(bl.CASES)
    assert QUEUE.get(RUN_KEY) is None  # nothing trains
    at = run_page(PAGE, lang="zh", axis="算力")  # the compute axis, as a Chinese link names it
    assert_clean(at)
    assert untranslated(at) == [] and figures(at)[0]["layout"]["xaxis"]["title"]["text"] == "训练 FLOPs"


def test_the_quick_run_draws_its_curves_while_it_trains_and_can_be_cancelled():
    at = press_train(run_page(PAGE))
    deadline = time.monotonic() + 120
    while QUEUE.get(RUN_KEY).partial is None and time.monotonic() < deadline:
        time.sleep(0.2)  # the hand-built method's first checkpoint comes within its first steps
    at.run()
    (live,) = figures(at)  # while it trains, the growing curves stand where the finished ones will
    meta = live["layout"]["meta"]
    assert meta["title"].startswith("Training now") and meta["evidence"] == "measured"
    assert len(live["data"]) >= 1
    next(b for b in at.button if b.label == "Cancel run").click().run()
    at = wait_for_jobs(at, timeout=120)
    assert not at.exception
    assert any("cancelled" in i.value for i in at.info)
