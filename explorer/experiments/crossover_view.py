"""The inductive-bias page's words around the numbers: the option labels of its controls, the sentence under
the curves (who wins at today's budget, how sure, when to take the structure out), the cost table, the b*
notice and the learning-rate note, from `explorer.experiments.crossover`'s analysis, worded from the page's
content book in the run's language. Option values stay English: they are what the URL carries."""

from __future__ import annotations

import pandas as pd

from explorer import content
from explorer.experiments import crossover as xo
from explorer.figures.crossover import window_name
from explorer.formatting import sci

BOOK = "inductive-bias"
TWO, ALL, BEST = "w=2 and full attention", "All five windows", "Best per size"  # URL values, kept as they were
SHOW = {TWO: "two", ALL: "all"}
TABLE_NUMBERS = ("frontier", "ceiling", "room")  # the cost table's columns shown with three decimals


def show_label(option: str) -> str:
    """A "Curves" option as the control shows it."""
    return content.text(BOOK, f"show-{SHOW[option]}")


def recipe_label(option: str) -> str:
    """A "Learning rate" option as the control shows it: the best rate per size, or one rate (a number)."""
    return content.text(BOOK, "recipe-best") if option == BEST else option


def section_labels() -> list[str]:
    return [
        content.text(BOOK, "tab-question"),
        content.text(BOOK, "tab-best"),
        content.text(BOOK, "tab-watch"),
        content.text(BOOK, "tab-how"),
    ]


def _sure(confidence: float | None, analysis: dict) -> str:
    if confidence is None:
        return content.text(BOOK, "sure-one-seed")
    boot = analysis["bootstrap"]
    return content.text(BOOK, "sure-share", share=confidence, resamples=boot["resamples"], seeds=boot["seeds"])


def reading(analysis: dict, budget: float) -> tuple[dict | None, str]:
    """(the frontiers read at `budget`, the sentence under the curves): who wins there and how sure, then when
    a less-structured window overtakes it (slide 13). Outside the measured range: (None, a notice saying so)."""
    read = xo.at_budget(analysis, budget)
    if read is None:
        return None, content.text(
            BOOK,
            "outside-range",
            budget=sci(budget, 2),
            first=sci(analysis["flops"][0], 2),
            last=sci(analysis["flops"][-1], 2),
        )
    winner, runner_up, acc = read["winner"], read["runner_up"], read["accuracy"]
    at = dict(
        budget=sci(budget, 2), winner=winner, width=read["width"][winner], sure=_sure(read["confidence"], analysis)
    )
    if read["clear"]:
        text = (
            content.text(BOOK, "read-wins", **at, acc=acc[winner])
            + " "
            + content.text(BOOK, "read-next", runner=runner_up, acc=acc[runner_up])
        )
    else:
        text = content.text(
            BOOK,
            "read-unclear",
            **at,
            runner=runner_up,
            acc=acc[winner],
            acc_runner=acc[runner_up],
            lead=read["lead"],
            min_lead=xo.MIN_LEAD,
            threshold=xo.CLEAR_CONFIDENCE,
        )
    c = read["remove_at"]
    advice = (
        content.text(
            BOOK,
            "read-remove",
            less=c["less_structure"],
            winner=winner,
            flops=sci(c["flops_of_mean_curves"], 2),
            lo=sci(c["flops_min"], 2),
            hi=sci(c["flops_max"], 2),
            crossed=c["seeds_with_crossover"],
            seeds=c["seeds"],
        )
        if c and c["flops_min"]
        else content.text(BOOK, "read-keep")
    )
    return read, content.text(BOOK, "read-join", read=text, advice=advice)


def cost_table(read: dict, analysis: dict, length: int) -> tuple[pd.DataFrame, list[str]]:
    """What each window reaches at the budget, its best width there, its closed-form ceiling and the room left;
    and the names of the columns to show with three decimals."""
    col = {k: content.text(BOOK, f"col-{k}") for k in ("window", "frontier", "width", "ceiling", "room")}
    windows = analysis["windows"]
    table = pd.DataFrame(
        {
            col["window"]: [window_name(w, length) for w in windows],
            col["frontier"]: [read["accuracy"][w] for w in windows],
            col["width"]: [read["width"][w] for w in windows],
            col["ceiling"]: [analysis["ceilings"][w] for w in windows],
        }
    )
    table[col["room"]] = table[col["ceiling"]] - table[col["frontier"]]
    return table, [col[k] for k in TABLE_NUMBERS]


def bstar_notice(analysis: dict) -> str:
    boot = analysis["bootstrap"]
    how_sure = (
        content.text(BOOK, "bstar-bootstrap", **boot)
        if analysis["top_share"]
        else content.text(BOOK, "bstar-one-seed", min_lead=xo.MIN_LEAD)
    )
    return content.text(BOOK, "bstar-notice", min_lead=xo.MIN_LEAD) + " " + how_sure


def _at(flops: float | None) -> str:
    return content.text(BOOK, "at-flops", flops=sci(flops, 2)) if flops else content.text(BOOK, "no-crossing")


def lr_shift(analysis: dict) -> str | None:
    """How far the learning rate moves the crossing (`crossover.recipe_shift`), as a sentence; None without a
    learning-rate view."""
    shift = xo.recipe_shift(analysis)
    if shift is None:
        return None
    by_lr = ""
    for lr, x in shift["by_lr"].items():
        item = content.text(BOOK, "with-lr", at=_at(x), lr=lr)
        by_lr = content.text(BOOK, "list-more", list=by_lr, item=item) if by_lr else item
    return content.text(BOOK, "lr-shift", **{**shift, "best": _at(shift["best"]), "by_lr": by_lr})


def quick_crossing(c: dict) -> str:
    """Where the quick run's mean frontiers cross, for its notice."""
    return sci(c["flops_of_mean_curves"], 2) if c["flops_of_mean_curves"] else content.text(BOOK, "nowhere")
