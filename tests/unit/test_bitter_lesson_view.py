"""The Bitter Lesson page's view: the takeaway and verdict sentences, the two tables and the method section,
from a synthetic result (no training), in English and in Chinese."""

from dataclasses import replace

import numpy as np

from explorer import i18n
from explorer.experiments import bitter_lesson as bl
from explorer.experiments import bitter_lesson_view as view

CFG = replace(bl.PRESETS["quick"], cases=bl.CASES, seeds=(0, 1, 2), steps=64, eval_size=64)


def _result(crossing: bool = True) -> dict:
    """Hand-built curves that fall fast and stop at 0.45; Transformer curves that start at chance and, when
    `crossing`, end at 0.1 (else at 0.6)."""
    steps = np.array(CFG.checkpoint_steps(), float)
    t = np.log(steps / steps[0]) / np.log(steps[-1] / steps[0])  # 0 .. 1 in log data
    runs = []
    for case in CFG.cases:
        for seed in CFG.seeds:
            for method in bl.METHODS:
                if method == "hand-built":
                    loss = 0.45 + 0.2 * np.exp(-8 * t)
                else:
                    loss = 0.69 - (0.59 if crossing else 0.09) * t**2
                loss = loss + 0.005 * seed
                data = steps * CFG.batch_size
                runs.append(
                    {
                        "case": case,
                        "method": method,
                        "seed": seed,
                        "data": data.tolist(),
                        "flops": (data * CFG.flops_per_example(method)).tolist(),
                        "loss": loss.tolist(),
                        "accuracy": (1 - loss).tolist(),
                        "stopped": "steps",
                    }
                )
    return {"config": CFG.to_dict(), "runs": runs, "stopped": "steps"}


def test_the_takeaway_names_the_lead_the_crossover_and_the_floor_in_either_language():
    a = bl.analyse(_result())["order"]
    english = view.takeaway(a)
    assert english.startswith("**The hand-built method leads with few examples**")
    assert "the Transformer overtakes at about" in english and f"{a['counts_floor']['loss']:.3f}" in english
    with i18n.using("zh"):
        chinese = view.takeaway(a)
    assert "Transformer 在约" in chinese and f"{a['counts_floor']['loss']:.3f}" in chinese
    flat = bl.analyse(_result(crossing=False))["order"]
    assert flat["crossover"] is None and view.takeaway(flat).startswith("In these runs the curves do not cross")


def test_the_tables_have_one_row_per_test_and_per_checkpoint_with_columns_in_the_run_language():
    analysis = bl.analyse(_result())
    tests = view.tests_table(analysis)
    assert list(tests.columns) == [
        "comparison",
        "seeds",
        "mean gap (nats)",
        "seed range",
        "hand-built ahead",
        "exact p",
        "Holm p",
    ]
    assert len(tests) == 2 * len(bl.CASES) and tests["seeds"].tolist() == [3] * 4
    assert tests["comparison"][0].startswith("Transformer − hand-built, order,")
    assert tests["hand-built ahead"][3].endswith("of 3")
    data = view.data_table(analysis["order"])
    assert len(data) == len(CFG.checkpoint_steps()) and data.columns[0] == "examples seen"
    with i18n.using("zh"):
        assert list(view.tests_table(analysis).columns)[:2] == ["比较", "随机种子数"]
        assert view.tests_table(analysis)["比较"][2].startswith("Transformer − 手工构造，计数，")
        assert view.data_table(analysis["order"]).columns[0] == "已见样本数"


def test_the_verdict_the_method_texts_and_the_labels():
    analysis = bl.analyse(_result())
    verdict = view.counts_verdict(analysis["counts"])
    assert "TOST sign-flip" in verdict and f"±{bl.EQUIVALENCE_MARGIN}" in verdict
    texts = view.method_texts(CFG.to_dict(), analysis)
    assert len(texts) == 5 and texts[0].startswith("**The task.**")
    assert texts[1].count("\n") == 2 and texts[1].endswith(("positive", "negative"))
    with i18n.using("zh"):
        zh = view.method_texts(CFG.to_dict(), analysis)
        assert zh[0].startswith("**任务。**") and zh[1].endswith(("正面", "负面"))
        assert view.stop_reason("time_budget") == "到达时限" and view.axis_label("compute") == "算力"
        assert view.section_labels()[0] == "怎样测量的"
    assert [view.stop_reason(s) for s in ("steps", "time_budget", "cancelled")] == ["steps", "time_budget", "cancelled"]
    assert view.flops_ratio(CFG.to_dict()) > 100  # a Transformer example costs far more
