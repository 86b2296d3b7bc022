"""The summary both pages quote on layer-aligned reading is the shipped results' own paired tests, and both
pages show it."""

import pytest

from explorer import content
from explorer.experiments import depth as dp
from explorer.experiments import four_steps as fs
from explorer.experiments import layer_aligned as la
from explorer.stats import sign_flip_p


@pytest.fixture(scope="module")
def found() -> dict:
    summary = la.evidence()
    assert summary is not None, "the four-steps and depth results are shipped"
    return summary


def test_step_3_is_the_paired_loss_change_from_step_2_on_the_shipped_ablation(found):
    runs = fs.load_shipped()["runs"]
    loss = {(r["variant"], r["seed"]): r["eval_loss"] for r in runs}
    seeds = sorted(s for v, s in loss if v == "3")
    diffs = [loss[("3", s)] - loss[("2", s)] for s in seeds]
    four = found["four_steps"]
    assert four["seeds"] == len(seeds) and four["loss_change"] == pytest.approx(sum(diffs) / len(diffs))
    assert four["p"] == pytest.approx(sign_flip_p(diffs)) and four["holm_p"] >= four["p"]
    assert found["four_steps_long"]["steps"] > four["steps"]


def test_the_depth_gaps_are_read_at_the_four_steps_depth_from_both_tasks(found):
    depth = found["four_steps"]["depth"]
    for key, preset in (("depth_main", "main"), ("depth_control", "control")):
        row = next(r for r in dp.gaps(dp.analyse(dp.load_shipped(dp.shipped_path(preset)))) if r["depth"] == depth)
        assert found[key]["accuracy_gap"] == row["accuracy_gap"] and found[key]["p"] == row["p_accuracy"]
    assert found["depth_main"]["accuracy_gap"] > 0.1 > abs(found["depth_control"]["accuracy_gap"])


def test_both_pages_paragraphs_fill_from_one_set_of_values(found):
    values = la.placeholders(found)
    for page in ("depth", "four-steps"):
        text = content.text(page, "reconcile", **values)
        assert f"{found['four_steps']['loss_change']:+.3f}" in text and "-0.0 " not in text
        assert f"{values['main_gap']:+.1f} points" in text and values["control_p"] in text
