"""The cache page's numbers: every value its sentences and tiles quote, and the decisions behind them (which
takeaway a chat turn gets, whether a timing runs inline, in the background or not at all, what the measured
speedup is compared with, which verdict a trend test supports), computed from `explorer.experiments.cache`,
`chat_cache`, `stale_cache` and `bidirectional_scaling`. The page lays them out with its content file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer import content, results
from explorer.experiments import bidirectional_scaling as scaling
from explorer.experiments import cache as exp
from explorer.experiments import chat_cache as chat
from explorer.formatting import p_text, plural, si
from explorer.progress import SILENT, Progress
from explorer.stats import smallest_p

if TYPE_CHECKING:  # pandas loads only when a table is shown
    import pandas as pd

N_OPTIONS = list(range(1, 17)) + [24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096]
M_OPTIONS = list(range(1, 17)) + [24, 32, 48, 64, 96, 128, 192, 256]
MAX_TURNS, MAX_DEPTH = 12, 8
MAX_HISTORY = max(N_OPTIONS) + MAX_TURNS * max(M_OPTIONS)  # the longest conversation the sliders reach
CHAT_STATES = chat.quantities(chat.DEMO_LAYERS)  # what the chat figure can show moving
SWEEP = dict(histories=(16, 128, 1024), messages=(1, 8), depths=(1, 2, 4), repeats=5, seed=0)
SIGNIFICANT = 0.05  # a Holm-corrected p below this supports a direction
BOOK = "cache"  # the page's book: content/<lang>/cache.md
CHAT_VIEW, SIZES_VIEW = "Chat (slide 66)", "Any size (n, m, T)"  # the first screen's two views (the URL's values)


def state_label(state: str) -> str:
    """One of CHAT_STATES ('layer 2 keys & values', 'output state': the URL's values) as the page shows it."""
    i = CHAT_STATES.index(state) if state in CHAT_STATES else -1
    if i < 0:
        return state
    return (
        content.text(BOOK, "state-output")
        if i == len(CHAT_STATES) - 1
        else content.text(BOOK, "state-layer", layer=i + 1)
    )


def view_label(view: str) -> str:
    """One of the views (CHAT_VIEW, SIZES_VIEW: the URL's values) as the page shows it."""
    return content.text(BOOK, "view-chat") if view == CHAT_VIEW else content.text(BOOK, "view-sizes")


# --- the first screen ----------------------------------------------------------------------------------------


def takeaway(n: int, m: int, turns: int, counts: dict) -> dict:
    """The sizes view's sentence: the current turn's history and the entries each model computes per layer."""
    history = exp.history_at(n, m, turns)
    return {
        "turns": turns,
        "m": m,
        "history": history,
        "total": history + m,
        "causal": si(counts["causal_computed"]),
        "bidirectional": si(counts["bidirectional_recomputed"]),
        "ratio": counts["bidirectional_recomputed"] / counts["causal_computed"],
    }


def chat_takeaway(data: dict, shown: int) -> tuple[str, dict]:
    """(kind, values) of the sentence under the chat: `one-turn` (nothing reused yet), `unmeasured` (past the
    demo models' length), `layer1` (old layer-1 states never move) or `moved` (how far the old tokens moved)."""
    last = data["turns"][-1]
    if len(data["turns"]) == 1:
        return "one-turn", {"tokens": last["end"], "separator": chat.TURN_SEPARATOR}
    # the tokens are the tokenizer's alphabet (letters, digits, space, . , ! ? ' -): inert in Markdown
    values = {
        "turn": last["turn"],
        "text": f"“{last['text']}”",
        "old": last["old"],
        "new": last["new"],
        "total": last["end"],
        "quantity": _quantity(data["quantities"], shown),
        "limit": data["limit"],
    }
    moved = chat.drift_summary(last, shown)
    if moved is None:
        return "unmeasured", values
    if shown == 0:
        return "layer1", values
    return "moved", {
        **values,
        "mean": moved["mean"],
        "max": moved["max"],
        "token": f"“{data['tokens'][moved['argmax']]}”",
    }


def _quantity(quantities: list[str], shown: int) -> str:
    """The chat's drift quantity `shown` (`chat_cache.quantities`) in the run's language."""
    if shown == len(quantities) - 1 and quantities[shown] == "output state":
        return content.text(BOOK, "state-output")
    if quantities[shown] == f"layer {shown + 1} keys & values":
        return content.text(BOOK, "state-layer", layer=shown + 1)
    return quantities[shown]


def measured_turns(data: dict) -> str | None:
    """How many turns (`2 turns`) of a chat longer than the demo models read have a measured drift; None when
    all do (or there are no models, so none could)."""
    if data["models"] is None or data["turns"][-1]["end"] <= data["limit"]:
        return None
    return plural(sum(turn["drift"] is not None for turn in data["turns"]), "turn")


def chat_help() -> dict:
    """The chat box's limits, for its help text."""
    return {"turns": chat.MAX_TURNS, "chars": chat.MAX_TURN_CHARS, "limit": chat.MEASURED_LIMIT}


# --- timing on this server -----------------------------------------------------------------------------------


def timing_plan(history: int, m: int, depth: int) -> dict:
    """How one turn at these sizes is timed: `problem` (why it is refused, else None), `planned` seconds and
    whether that is quick enough to time `inline` while the student waits (else in the background)."""
    try:
        exp.check_measurable(history, m, depth)
    except ValueError as err:
        return {"problem": str(err), "planned": None, "inline": False}
    planned = exp.planned_seconds(history, m, depth)
    return {"problem": None, "planned": planned, "inline": planned <= exp.INLINE_SECONDS}


def stored_sweep() -> dict | None:
    """The overhead sweep if this server has timed it (the result cache), without timing anything."""
    return results.load("cache-overhead-sweep", SWEEP, exp.SWEEP_SHAPE)


def overhead_sweep(progress: Progress = SILENT) -> dict:
    """The SWEEP timings and their overhead fit, timed once per server (kept in the result cache)."""
    return results.cached(
        "cache-overhead-sweep", SWEEP, lambda: exp.overhead_sweep(**SWEEP, progress=progress), exp.SWEEP_SHAPE
    )


def measured_tiles(measured: dict) -> list[tuple[str, str]]:
    """(label, value) of the five timing tiles; the last one's help quotes `measured['max_abs_logit']`."""
    return [
        (content.text(BOOK, "tile-reencode"), f"{measured['time_reencode_ms']:.3g} ms"),
        (content.text(BOOK, "tile-cached"), f"{measured['time_cached_ms']:.3g} ms"),
        (content.text(BOOK, "tile-speedup"), f"{measured['speedup']:.1f}x"),
        (content.text(BOOK, "tile-ratio"), f"{measured['flop_ratio']:.1f}x"),
        (content.text(BOOK, "tile-logit"), f"{measured['max_abs_logit_diff']:.1e}"),
    ]


def why_speedup(measured: dict, sweep: dict, history: int, m: int, depth: int) -> dict:
    """Why the measured speedup is not the FLOP ratio: the overhead fit's per-layer cost and matrix rate, the
    cached step's matrix time and fixed cost, the speedup the fit predicts, and `extra`: `thin` when the
    measurement falls well short of the prediction, `fast` when it beats it, None otherwise."""
    fit = sweep["fit"]
    predicted = exp.predicted_speedup(fit, history, m, depth)
    extra = (
        "thin" if measured["speedup"] < 0.8 * predicted else "fast" if measured["speedup"] > 1.25 * predicted else None
    )
    return {
        "speedup": measured["speedup"],
        "ratio": measured["flop_ratio"],
        "timings": len(sweep["rows"]),
        "per_layer": fit["b_s_per_layer"] * 1e3,
        "gflops": fit["gflops_per_s"],
        "matrix_ms": measured["flops_cached"] / fit["gflops_per_s"] / 1e6,
        "fixed_ms": (depth * fit["b_s_per_layer"] + fit["c_s"]) * 1e3,
        "predicted": predicted,
        "extra": extra,
        "rows": plural(m, "row"),
        "history": history,
    }


def why_paragraph(measured: dict, sweep: dict, history: int, m: int, depth: int) -> str:
    """`why_speedup` as the paragraph under the timing tiles: the overhead fit's account, the sentence its
    `extra` asks for (none when the measurement is near the prediction) and what a wider model changes."""
    why = why_speedup(measured, sweep, history, m, depth)
    extra = [content.text(BOOK, f"why-{why['extra']}", **why)] if why["extra"] else []
    return " ".join([content.text(BOOK, "why", **why), *extra, content.text(BOOK, "why-wider")])


# --- drift and the stale cache -------------------------------------------------------------------------------


def drift_numbers(n: int, m: int) -> dict:
    """The sizes drift is measured at (the encoder reads at most DRIFT_TASK.length tokens), and whether they
    differ from the sizes asked for (`scaled`)."""
    n_d, m_d = exp.drift_sizes(n, m)
    return {"n_d": n_d, "m_d": m_d, "n": n, "m": m, "length": exp.DRIFT_TASK.length, "scaled": (n_d, m_d) != (n, m)}


def trained_numbers(info: dict) -> dict:
    """The shipped drift encoder's shape, task and training, for its caption."""
    return {
        "layers": exp.DRIFT_MODEL.n_layers,
        "d": exp.DRIFT_MODEL.d_model,
        "shortest": exp.DRIFT_TASK.min_length,
        "longest": exp.DRIFT_TASK.length,
        "steps": info["summary"]["steps_done"],
        "accuracy": info["summary"]["final"]["eval_accuracy"],
    }


def stale_findings(head: dict) -> dict | None:
    """The stale-cache findings' numbers (`stale_cache.headline`); None unless both default tasks (sort and
    copy) are in the record, since the findings quote both."""
    if not {"sort", "copy"} <= set(head):
        return None
    sort, copy = head["sort"], head["copy"]
    return {
        "seeds": sort["seeds"],
        "sort_n": sort["n"],
        "sort_m": sort["m"],
        "sort_re": sort["accuracy_reencode"],
        "sort_stale": sort["accuracy_stale"],
        "sort_kl": sort["kl"],
        "sort_low": sort["kl_low"],
        "sort_high": sort["kl_high"],
        "sort_gap": sort["mean_gap"],
        "gap_low": sort["gap_low"],
        "gap_high": sort["gap_high"],
        "copy_gap": copy["mean_gap"],
        "copy_kl": copy["kl"],
        "causal_kl": head["causal_max_kl"],
        "causal_logit": head["causal_max_logit_diff"],
        "every": content.text(BOOK, "stale-every") if sort["every_seed_worse"] else content.text(BOOK, "stale-most"),
        "apart": content.text(BOOK, "stale-apart") if sort["ranges_apart"] else content.text(BOOK, "stale-overlap"),
        "p_floor": smallest_p(sort["seeds"]),
        "steps": sort["steps"],
        "trained_low": sort["trained_low"],
        "trained_high": sort["trained_high"],
        "copy_steps": copy["steps"],
        "copy_trained": copy["trained_low"],
    }


# --- slide 64: bidirectional input at scale ------------------------------------------------------------------


def scaling_sizes(data: dict) -> dict:
    """What the intro and the limits quote of the shipped recipe: widths, layers, budgets, parameter counts."""
    cfg, parameters = data["config"], [p["parameters"] for p in data["points"]]
    return {
        "widths": ", ".join(map(str, cfg["widths"])),
        "layers": cfg["n_layers"],
        "budgets": ", ".join(map(str, cfg["budgets"])),
        "smallest": f"{min(parameters):,}",
        "largest": f"{max(parameters):,}",
    }


def verdict(test: dict) -> str:
    """Which verdict a trend test supports: `shrinks` or `grows` (Holm-corrected p below SIGNIFICANT), else
    `unclear`."""
    return ("shrinks" if test["mean_slope"] < 0 else "grows") if test["p_holm"] < SIGNIFICANT else "unclear"


def scaling_findings(data: dict) -> dict:
    """The slide-64 findings (`scaling.analyse`), one dict of values per paragraph: `findings` (the gaps at the
    longest budget and both trend tests), `width_verdict` and `budget_verdict` (`verdict`), `verdict` (its
    values), `caveat` (the gaps against the losses) and `weigh` (the best gap against the serving cost)."""
    cfg, width, budget = data["config"], data["trend"]["width"], data["trend"]["budget"]
    last = [p for p in data["points"] if p["steps"] == cfg["budgets"][-1]]
    small, large, best = last[0], last[-1], max(last, key=lambda p: p["gap"])
    serve = data["serving"][-1]
    return {
        "findings": {
            "seeds": width["seeds"],
            "steps": cfg["budgets"][-1],
            "small": small["width"],
            "large": large["width"],
            "small_gap": small["gap"],
            "small_low": small["gap_low"],
            "small_high": small["gap_high"],
            "large_gap": large["gap"],
            "large_low": large["gap_low"],
            "large_high": large["gap_high"],
            "slope": width["mean_slope"],
            "negative": width["negative"],
            "p": p_text(width["p"]),
            "p_holm": p_text(width["p_holm"]),
            "floor": p_text(width["smallest_p"]),
            "budget_slope": budget["mean_slope"],
            "budget_negative": budget["negative"],
            "budget_p": p_text(budget["p_holm"]),
        },
        "width_verdict": verdict(width),
        "budget_verdict": verdict(budget),
        "verdict": {
            "small": small["width"],
            "large": large["width"],
            "seeds": width["seeds"],
            "negative": width["negative"],
        },
        "caveat": {
            "small": small["width"],
            "large": large["width"],
            "small_loss": small["decoder_loss"],
            "large_loss": large["decoder_loss"],
            "relative": ", ".join(f"{p['gap'] / p['decoder_loss']:+.0%}" for p in last),
            "tests": len(data["points"]),
            "best_holm": p_text(min(p["p_holm"] for p in data["points"])),
        },
        "weigh": {
            "best": best["width"],
            "best_gap": best["gap"],
            "share": best["gap"] / best["decoder_loss"],
            "large": large["width"],
            "large_gap": large["gap"],
            "turns": serve["turn"],
            "m": serve["m"],
            "ratio": serve["ratio"],
            "reencode": si(serve["cum_reencode"]),
            "cached": si(serve["cum_cached"]),
            "serve_width": cfg["widths"][-1],
        },
    }


def scaling_paragraphs(data: dict) -> list[str]:
    """The slide-64 findings (`scaling_findings`) as the page's paragraphs, in order: what the toy shows, the
    verdict over widths, the verdict over budgets, the caveat and the weighing against the serving cost."""
    found = scaling_findings(data)
    return [
        content.text(BOOK, "scaling-findings", **found["findings"]),
        content.text(BOOK, f"scaling-{found['width_verdict']}", **found["verdict"]),
        content.text(BOOK, f"scaling-budget-{found['budget_verdict']}"),
        content.text(BOOK, "scaling-caveat", **found["caveat"]),
        content.text(BOOK, "scaling-weigh", **found["weigh"]),
    ]


def scaling_watch(quick: scaling.ScalingConfig, shipped_record: dict | None) -> dict:
    """The quick preset a student can train here: its models (as words), widths, seeds, steps, the seconds
    it should take (from the shipped run's rates, when there is one) and its job's key."""
    return {
        "key": "bidirectional-scaling-quick-" + results.result_key("bidirectional-scaling-quick", quick.to_dict()),
        "models": plural(len(quick.runs()), "model"),
        "widths": ", ".join(map(str, quick.widths)),
        "seeds": len(quick.seeds),
        "steps": quick.steps,
        "seconds": scaling.estimate_seconds(quick, shipped_record),
    }


def limits() -> dict:
    """Every limit the page enforces, for the limits section."""
    return {
        "cells": exp.MAX_CELLS,
        "tokens": f"{exp.MAX_MEASURE_TOKENS:,}",
        "seconds": exp.MAX_MEASURE_SECONDS,
        "inline": exp.INLINE_SECONDS,
        "length": exp.DRIFT_TASK.length,
        "chat_turns": chat.MAX_TURNS,
        "chat_chars": chat.MAX_TURN_CHARS,
        "chat_limit": chat.MEASURED_LIMIT,
    }


# --- the data tables under the figures -------------------------------------------------------------------------

TABLE_COLUMNS = (
    "task",
    "arch",
    "accuracy_reencode",
    "accuracy_stale",
    "kl",
    "accuracy_reencode_low",
    "accuracy_stale_low",
    "kl_low",
    "accuracy_reencode_high",
    "accuracy_stale_high",
    "kl_high",
    "gap",
    "max_abs_logit_diff",
    "seeds",
    "width",
    "flops",
    "gap_low",
    "gap_high",
    "steps",
    "smallest_p",
    "decoder_loss",
    "prefix_lm_loss",
    "parameters",
    "p_holm",
)
TABLE_VALUES = ("sort", "copy", "bidirectional", "causal")


def shown_table(table) -> "pd.DataFrame":
    """A data table (`stale_cache.summary`, `bidirectional_scaling.points`) with its headings and its task and
    arch names in the run's language (in English the data's own names); the numbers as they are."""
    import pandas as pd

    out = pd.DataFrame(table).copy()
    for col in ("task", "arch"):
        if col in out:
            out[col] = [content.text(BOOK, f"value-{v}") if v in TABLE_VALUES else v for v in out[col]]
    return out.rename(
        columns={c: content.text(BOOK, f"col-{c.replace('_', '-')}") for c in out.columns if c in TABLE_COLUMNS}
    )
