"""The Bitter Lesson page's numbers and tables: the takeaway under the curves, the second case's verdict, the
method section's sentences, the paired-test table and the checkpoint table, computed from
`explorer.experiments.bitter_lesson`'s analysis and worded from the page's content book in the run's language.
The page lays them out; nothing here knows about widgets."""

from __future__ import annotations

import pandas as pd

from explorer import content
from explorer.experiments import bitter_lesson as bl
from explorer.formatting import p_label, p_text, sci

BOOK = "bitter-lesson"
AXES = ("data", "compute")  # the page's axis options (URL values) -> the figure's axis
FIGURE_AXIS = {"data": "data", "compute": "flops"}


def axis_label(option: str) -> str:
    """An axis option as the control shows it (the URL keeps the option itself)."""
    return content.text(BOOK, f"axis-{option}")


def section_labels() -> list[str]:
    """The four sections under the first screen, in order."""
    return [
        content.text(BOOK, "tab-method"),
        content.text(BOOK, "tab-counts"),
        content.text(BOOK, "tab-limits"),
        content.text(BOOK, "tab-data"),
    ]


def case_name(case: str) -> str:
    return content.text(BOOK, f"case-{case}")


def stop_reason(stopped: str) -> str:
    """How a run ended ("steps", "time_budget" or "cancelled"), in words."""
    return content.text(BOOK, f"stopped-{stopped.replace('_', '-')}")


def flops_ratio(config: dict) -> float:
    """How many times more training FLOPs an example costs the Transformer than the hand-built method."""
    cfg = bl.BitterConfig.from_dict(config)
    return cfg.flops_per_example("transformer") / cfg.flops_per_example("hand-built")


def takeaway(a: dict) -> str:
    """The sentence under the curves of one case: who leads with few examples, where the Transformer overtakes
    (with its seed range) and where it ends against the floor; or that the curves do not cross."""
    small, large, c = a["tests"]["small"], a["tests"]["large"], a["crossover"]
    hand, general = a["methods"]["hand-built"]["mean"], a["methods"]["transformer"]["mean"]
    if c is None:
        return content.text(
            BOOK,
            "takeaway-none",
            large=large["data"],
            hand_large=hand[-1],
            general_large=general[-1],
            seeds=len(a["seeds"]),
        )
    i = small["at"]
    low, high = c["data_range"] or (c["data"], c["data"])
    return content.text(
        BOOK,
        "takeaway",
        small=small["data"],
        hand_small=hand[i],
        general_small=general[i],
        hand_leads=small["hand_leads"],
        seeds=len(a["seeds"]),
        data=c["data"],
        flops=sci(c["flops"], 2),
        data_low=low,
        data_high=high,
        crossed=c["seeds_crossed"],
        general_large=general[-1],
        floor=a["counts_floor"]["loss"],
    )


def counts_verdict(a: dict) -> str:
    """The second case's verdict at the largest budget: the paired gap, its test and the equivalence test."""
    large, tost = a["tests"]["large"], a["tests"]["equivalence"]
    return content.text(
        BOOK,
        "counts-verdict",
        large=large["data"],
        diff=large["mean_diff"],
        low=large["low"],
        high=large["high"],
        hand_leads=large["hand_leads"],
        seeds=large["pairs"],
        p=p_label(large["p"]),
        holm=p_label(large["holm_p"]),
        margin=bl.EQUIVALENCE_MARGIN,
        tost=p_label(tost["p"]),
        floor_p=1 / 2 ** large["pairs"],
    )


def tests_table(analysis: dict[str, dict]) -> pd.DataFrame:
    """One row per paired test (each case at its small and its largest budget), columns in the run's language."""
    col = {k: content.text(BOOK, f"col-{k}") for k in ("comparison", "seeds", "gap", "range", "ahead", "p", "holm")}
    return pd.DataFrame(
        [
            {
                col["comparison"]: content.text(BOOK, "test-row", case=case_name(case), data=test["data"]),
                col["seeds"]: test["pairs"],
                col["gap"]: f"{test['mean_diff']:+.3f}",
                col["range"]: content.text(BOOK, "cell-range", low=test["low"], high=test["high"]),
                col["ahead"]: content.text(BOOK, "cell-of", k=test["hand_leads"], n=test["pairs"]),
                col["p"]: p_text(test["p"]),
                col["holm"]: p_text(test["holm_p"]),
            }
            for case, a in analysis.items()
            for test in (a["tests"]["small"], a["tests"]["large"])
        ]
    )


def data_table(a: dict) -> pd.DataFrame:
    """The seed-mean held-out loss and the FLOPs spent at each checkpoint of one case, for both methods."""
    hand, general = a["methods"]["hand-built"], a["methods"]["transformer"]
    return pd.DataFrame(
        {
            content.text(BOOK, "col-examples"): a["data"].astype(int),
            content.text(BOOK, "col-hand-loss"): hand["mean"],
            content.text(BOOK, "col-hand-flops"): [sci(f, 2) for f in hand["flops"]],
            content.text(BOOK, "col-general-loss"): general["mean"],
            content.text(BOOK, "col-general-flops"): [sci(f, 2) for f in general["flops"]],
        }
    ).round(3)


def method_texts(config: dict, analysis: dict[str, dict]) -> list[str]:
    """The method section's paragraphs in order: the task, three example reviews, the two methods, the floor
    and the statistics (the test table follows them)."""
    cfg = bl.BitterConfig.from_dict(config)
    floor = bl.counts_floor(cfg)
    examples = "\n".join(
        content.text(BOOK, "example", review=e["review"], label=content.text(BOOK, f"label-{e['label']}"))
        for e in bl.examples(cfg, "order")
    )
    return [
        content.text(
            BOOK,
            "task",
            length=cfg.length,
            positive=", ".join(bl.POSITIVE),
            negative=", ".join(bl.NEGATIVE),
            neutral=", ".join(bl.NEUTRAL),
            not_rate=cfg.not_rate,
        ),
        examples,
        content.text(
            BOOK,
            "methods",
            hand_width=cfg.hand_width,
            hand_lr=cfg.hand_lr,
            hand_flops=cfg.flops_per_example("hand-built"),
            layers=cfg.n_layers,
            d_model=cfg.d_model,
            heads=cfg.n_heads,
            lr=cfg.lr,
            general_flops=cfg.flops_per_example("transformer"),
            batch=cfg.batch_size,
            steps=cfg.steps,
            eval_size=cfg.eval_size,
            checkpoints=len(cfg.checkpoint_steps()),
        ),
        content.text(BOOK, "floor", length=cfg.length, floor=floor["loss"], accuracy=floor["accuracy"]),
        content.text(
            BOOK,
            "statistics",
            seeds=len(cfg.seeds),
            floor_p=2 / 2 ** len(cfg.seeds),
            small_budget=bl.SMALL_BUDGET,
            tests=2 * len(analysis),
        ),
    ]
