"""Layer-aligned reading (slide 63, step 3 of the four steps) measured twice: the numbers that reconcile the pages.

The four-steps page changes one thing at step 3 (decoder layer l reads what encoder layer l reads, instead of
the encoder's output) on top of steps 1-2, on sorting, at depth 2, and sees the held-out loss rise. The depth
page changes the same wiring alone, on two tasks and several depths, and sees a large gain on one task and a
tie on the other. Both pages read this one summary of the shipped results, so their paragraph on why the two
agree quotes the same numbers.
"""

from __future__ import annotations

from pathlib import Path

from explorer import content
from explorer.experiments import depth as dp
from explorer.experiments import four_steps as fs
from explorer.formatting import p_label

STEP_BEFORE, STEP_AT = "2", "3"  # the four-steps variants just before and just after layer-aligned reading


def _four_steps(record: dict | None) -> dict | None:
    """Step 3 against step 2: the paired loss change (positive: step 3 worse), exact p, Holm p, seeds."""
    if record is None:
        return None
    pairs = {(r["a"], r["b"]): r for r in fs.paired_analysis(record["runs"])["pairs"]}
    row = pairs.get((STEP_BEFORE, STEP_AT)) or pairs.get((STEP_AT, STEP_BEFORE))
    if row is None:
        return None
    change = row["mean_diff"] if row["a"] == STEP_AT else -row["mean_diff"]
    settings = record["settings"]
    return {
        "steps": settings["steps"],
        "depth": settings["depth"],
        "width": settings["width"],
        "length": settings["length"],
        "seeds": row["n"],
        "loss_change": change,
        "p": row["paired_p"],
        "holm_p": row["holm_p"],
    }


def _depth(swept: dict | None, depth: int) -> dict | None:
    """The depth page's paired accuracy gap (layer-aligned minus final-only) at `depth`, with its exact p."""
    if swept is None:
        return None
    analysis = dp.analyse(swept)
    row = next((r for r in dp.gaps(analysis) if r["depth"] == depth), None)
    if row is None:
        return None
    config = analysis["config"]
    return {
        "depth": depth,
        "steps": config["steps"],
        "width": config["d_model"],
        "seeds": row["seeds"],
        "accuracy_gap": row["accuracy_gap"],
        "p": row["p_accuracy"],
        "deepest": max(analysis["depths"]),
    }


def sources() -> tuple[Path, ...]:
    """The shipped files the summary reads."""
    return (fs.ABLATION_PATH, fs.shipped_path("long"), dp.shipped_path("main"), dp.shipped_path("control"))


def stamp() -> tuple[float, ...]:
    """The files' modification times: a page's cache key, so a new CLI run is picked up without a restart."""
    return tuple(p.stat().st_mtime if p.is_file() else 0.0 for p in sources())


def evidence() -> dict | None:
    """Both pages' shipped results on layer-aligned reading, at the four-steps depth; None if one is missing."""
    four = _four_steps(fs.load_shipped(fs.ABLATION_PATH))
    longer = _four_steps(fs.load_shipped(fs.shipped_path("long")))
    if four is None:
        return None
    main = _depth(dp.load_shipped(dp.shipped_path("main")), four["depth"])
    control = _depth(dp.load_shipped(dp.shipped_path("control")), four["depth"])
    if main is None or control is None:
        return None
    return {"four_steps": four, "four_steps_long": longer, "depth_main": main, "depth_control": control}


def placeholders(found: dict) -> dict[str, object]:
    """The values both pages' `reconcile` paragraphs fill in, formatted once."""
    four, longer = found["four_steps"], found["four_steps_long"]
    main, control = found["depth_main"], found["depth_control"]
    return {
        "fs_change": four["loss_change"],
        "fs_p": p_label(four["p"]),
        "fs_holm": p_label(four["holm_p"]),
        "fs_seeds": four["seeds"],
        "fs_steps": four["steps"],
        "fs_depth": four["depth"],
        "fs_width": four["width"],
        "fs_length": four["length"],
        "fs_later": content.text(
            "four-steps",
            "reconcile-later",
            steps=longer["steps"],
            change=longer["loss_change"],
            p=p_label(longer["p"]),
            seeds=longer["seeds"],
        )
        if longer
        else content.text("four-steps", "reconcile-no-later"),
        "dp_steps": main["steps"],
        "dp_width": main["width"],
        "dp_seeds": main["seeds"],
        "main_gap": round(100 * main["accuracy_gap"], 1) + 0.0,
        "main_p": p_label(main["p"]),
        "control_gap": round(100 * control["accuracy_gap"], 1) + 0.0,  # + 0.0: never "-0.0"
        "control_p": p_label(control["p"]),
        "deepest": main["deepest"],
    }
