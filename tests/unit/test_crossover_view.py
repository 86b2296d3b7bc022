"""The inductive-bias page's view: the option labels, the sentence under the curves, the cost table, the b*
notice and the learning-rate note, from a synthetic sweep (no training), in English and in Chinese."""

import pytest

from explorer import content, i18n
from explorer.experiments import crossover_view as view
from explorer.experiments.crossover import SweepConfig, analyse
from tests.unit.test_crossover_analysis import _synthetic_sweep

CFG = SweepConfig(windows=(2, 48), widths=(16, 32), lrs=(3e-3, 1e-2), seeds=(0, 1), steps=800)


@pytest.fixture(scope="module")
def analysis() -> dict:
    return analyse(_synthetic_sweep(CFG))


def test_option_labels_keep_their_values_and_speak_the_run_language():
    assert [view.show_label(o) for o in (view.TWO, view.ALL)] == [view.TWO, view.ALL]  # English: unchanged
    assert [view.recipe_label(o) for o in (view.BEST, "0.01")] == [view.BEST, "0.01"]
    with i18n.using("zh"):
        assert [view.show_label(o) for o in (view.TWO, view.ALL)] == ["w=2 与全注意力", "全部五个窗口"]
        assert view.recipe_label(view.BEST) == "每个规模取最佳" and view.recipe_label("0.003") == "0.003"
        assert view.section_labels()[2] == "看它学习"


def test_the_reading_names_the_winner_and_when_to_take_the_structure_out(analysis):
    read, text = view.reading(analysis, analysis["flops"][1])
    assert read["winner"] == 2 and text.startswith("**At ") and "window 2 wins**" in text
    assert "w=48\novertakes w=2 at about" in text  # the content file's line break
    with i18n.using("zh"):
        _, chinese = view.reading(analysis, analysis["flops"][1])
    assert "窗口 2 胜出**" in chinese and "w=48 在约" in chinese
    outside, notice = view.reading(analysis, analysis["flops"][0] / 10)
    assert outside is None and "outside the measured range" in notice


def test_the_cost_table_and_the_notes(analysis):
    read, _ = view.reading(analysis, analysis["flops"][-1])
    table, numbers = view.cost_table(read, analysis, CFG.length)
    assert list(table.columns) == [
        "window",
        "frontier now",
        "best width now",
        "ceiling (closed form)",
        "room left to its ceiling",
    ]
    assert numbers == ["frontier now", "ceiling (closed form)", "room left to its ceiling"]
    assert table["window"].tolist() == ["w=2", "w=48 (full attention)"]
    assert (table["room left to its ceiling"] >= -1e-12).all()
    with i18n.using("zh"):
        zh, zh_numbers = view.cost_table(read, analysis, CFG.length)
        assert zh.columns[0] == "窗口" and zh_numbers[0] == "当前前沿" and zh["窗口"][1] == "w=48（全注意力）"
        assert "自助法（bootstrap）" in view.bstar_notice(analysis)
        assert "学习率 0.003 时为" in view.lr_shift(analysis)
    shift = view.lr_shift(analysis)
    assert shift.startswith("- **The crossing belongs to the recipe too**") and "with lr 0.003" in shift
    assert view.lr_shift(analyse(_synthetic_sweep(CFG), lr=1e-2)) is None
    assert view.quick_crossing({"flops_of_mean_curves": None}) == "nowhere"


def test_the_progress_messages_of_both_experiments_exist_in_both_languages():
    for lang in ("en", "zh"):
        with i18n.using(lang):
            assert "12" in content.text("inductive-bias", "progress", step=12, steps=128, runs=6, seeds=2, seconds=3.0)
            assert "0.512" in content.text("bitter-lesson", "progress", method="x", seed=0, seen=64, loss=0.512)
