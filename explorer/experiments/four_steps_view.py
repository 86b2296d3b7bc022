"""The four-steps page's numbers: every value its sentences, tiles and tables quote, and the decisions behind
them (whether a check or a rerun is stored, shipped, refused or runs here; which pair of variants measures a
structure), computed from `explorer.experiments.four_steps` and `shared_params`. The page lays them out with
its content file."""

from __future__ import annotations

import json
from typing import Callable

from explorer import results
from explorer.experiments import four_steps as fs
from explorer.experiments import shared_params as sp
from explorer.formatting import p_text
from explorer.progress import Progress
from explorer.steps import FINAL_STEP

MASK_SIZE = (6, 6)  # input and target tokens drawn in the mask figure
TASKS = ("sort", "reverse", "copy")
LENGTHS = (4, 6, 8, 10, 12)
STEP_BUDGETS = (50, 100, 150, 200, 250, 300, 400, 600)
SHIPPED_BUDGETS = {"250 steps": "main", "500 steps": "long"}  # label -> shipped preset
STEP_SLIDES = {0: "slide 40", 1: "slides 41-42", 2: "slides 44-45", 3: "slides 47-48", 4: "slides 50-51",
               5: "beyond the slides"}

# slides 52-55 (and 59-66): the three extra structures of encoder-decoder; `step` removes it, `compare` is the
# pair of shipped variants whose difference measures removing it here; their texts are `why-<step>-*` sections
WHY = (  # separate parameters: against step 0 at the matched width, so the model does not also shrink
    {"structure": "Separate parameters for input and target", "step": 2, "compare": ("2", "0m"), "related": "lengths"},
    {"structure": "Decoder reads only the encoder's final layer", "step": 3, "compare": ("3", "2"), "related": "depth"},
    {"structure": "Bidirectional input", "step": 4, "compare": ("4", "3"), "related": "cache"},
)


def masks(step: int) -> list[tuple[str, dict]]:
    """Who reads whom at `step` and in decoder-only, MASK_SIZE tokens each: from the flags, which no size
    changes."""
    base = fs.base_config(**fs.DEFAULT_SIZES)
    return [(f"step {step}", fs.combined_mask(fs.step_config(base, step), *MASK_SIZE)),
            ("decoder-only", fs.combined_mask(fs.decoder_only_config(base), *MASK_SIZE))]


def takeaway(step: int) -> dict:
    """The step's title and slides, for the sentence under the masks."""
    return {"title": fs.STEP_TITLES[step].capitalize(), "slides": STEP_SLIDES[step]}


# --- the numeric check ---------------------------------------------------------------------------------------

def _roundtrip(d: dict) -> dict:
    """`d` as it reads back from JSON, to compare with a stored record's settings."""
    return json.loads(json.dumps(d, default=str))


def stored_check(base, shipped_check: dict | None) -> dict | None:
    """The check at these sizes: the shipped one (default sizes) when its settings match, else the cached one."""
    settings = fs.check_settings(base)
    if shipped_check and shipped_check.get("settings") == _roundtrip(settings):
        return shipped_check
    return results.load(fs.CHECK_KIND, settings, fs.CHECK_SHAPE)


def check_key(base) -> str:
    """The job key of the check at these sizes (one job per settings, whoever asks)."""
    return f"four-steps-check-{results.result_key(fs.CHECK_KIND, fs.check_settings(base))}"


def check_work(base) -> Callable[[Progress], dict]:
    """The background work of a check at these sizes: run, cache the result, or say it timed out."""
    settings = fs.check_settings(base)

    def work(progress: Progress) -> dict:
        out = fs.numeric_check(base, progress=progress)
        if out.get("stopped"):
            return {"timed_out": True}
        results.save(fs.CHECK_KIND, settings, out)
        return out
    return work


def relative(r: float) -> str:
    """A logit difference relative to the largest logit, in words."""
    return f"{r:.1f}× the largest logit" if r >= 1 else f"{r:.0%} of the largest logit"


def check_numbers(check: dict, step: int) -> dict:
    """The check at `step`: the three tiles (label, value), whether steps 0-2 leave the difference exactly in
    place (`sharing`, said only at steps 0-2), and the values of the sentence on step 4 and the final change."""
    row = check["steps"][step]
    diffs = [r["max_abs_logit_diff_f64"] for r in check["steps"]]
    four, final = check["steps"][4], check["steps"][FINAL_STEP]
    return {"tiles": [(f"max |logit difference| at step {step}, float32", f"{row['max_abs_logit_diff']:.3g}"),
                      ("float64", f"{row['max_abs_logit_diff_f64']:.3g}"),
                      ("relative to the largest logit", f"{row['relative_diff']:.2g}")],
            "largest": check["max_abs_logit"],
            "sharing": step <= 2 and max(diffs[:3]) - min(diffs[:3]) <= 1e-9 * max(diffs[:3]),
            "result": {"four": four["max_abs_logit_diff"], "relative": relative(four["relative_diff"]),
                       "final": final["max_abs_logit_diff"], "final64": final["max_abs_logit_diff_f64"]}}


# --- the ablation --------------------------------------------------------------------------------------------

def ablation_work(settings: fs.AblationSettings) -> Callable[[Progress], dict]:
    """The background work of an ablation rerun: a complete record is cached, a cut one says why it stopped."""
    def work(progress: Progress) -> dict:
        record = fs.run_ablation(settings, progress)
        if record["complete"]:
            results.save(fs.ABLATION_KIND, settings.to_dict(), record)
        else:
            record["stopped"] = f"the {fs.ABLATION_TIME_LIMIT_S:.0f} s limit"
        return record
    return work


def analysis(record: dict) -> dict:
    """The paired tests, the function comparison and the parameter table of one ablation record."""
    settings = fs.AblationSettings.from_dict(record["settings"])
    return {"paired": fs.paired_analysis(record["runs"]), "functions": fs.function_summary(record),
            "parameters": fs.parameter_table(settings.base, settings.variants)}


def pairs_table(paired: dict) -> list[dict]:
    """Every pair of variants: seeds, mean difference in held-out loss, exact and Holm-corrected p."""
    return [{"a": fs.VARIANT_SHORT[r["a"]], "b": fs.VARIANT_SHORT[r["b"]], "seeds": r["n"],
             "held-out loss, a − b": round(r["mean_diff"], 4), "exact paired p": p_text(r["paired_p"]),
             "Holm p": p_text(r["holm_p"])} for r in paired["pairs"]]


def variants_table(summary: dict, parameters: list[dict]) -> list[dict]:
    """Per variant: width, parameters (and against decoder-only), seeds and the held-out loss's spread."""
    by_variant = {r["variant"]: r for r in parameters}
    return [{"variant": v["name"], "width": by_variant[v["variant"]]["width"],
             "parameters": f"{by_variant[v['variant']]['params']:,}",
             "vs decoder-only": f"{by_variant[v['variant']]['vs_decoder']:+.1%}", "seeds": v["n"],
             "held-out loss (mean)": round(v["mean"], 4), "sd": round(v["sd"], 4), "min": round(v["min"], 4),
             "max": round(v["max"], 4)} for v in summary["variants"]]


def run_caption(record: dict) -> str:
    """How many runs a record holds, with its wall time, threads and date where recorded."""
    wall = record.get("wall_seconds")
    return (f"Measured: {len(record['runs'])} runs"
            + (f" in {wall:.0f} s wall time, {record.get('threads', 1)} thread" if wall else "")
            + (f", {record['date']}" if record.get("date") else "") + ".")


def rerun_plan(settings: fs.AblationSettings, shipped: dict | None, step0_parameters: int) -> dict:
    """What a rerun with `settings` does: `kind` is `shipped` (these are the shipped settings), `stored` (a
    cached record, in `record`), `too-big` or `too-long` (refused, with the numbers the refusal quotes) or
    `run` (trained here on a button press: `runs`, `seconds`, the job `key`)."""
    if shipped and shipped["settings"] == settings.to_dict():
        return {"kind": "shipped"}
    stored = results.load(fs.ABLATION_KIND, settings.to_dict(), fs.ABLATION_SHAPE)
    if stored is not None:
        return {"kind": "stored", "record": stored}
    estimate, runs = fs.estimate_seconds(settings, shipped), len(settings.seeds) * len(settings.variants)
    if step0_parameters > fs.LIVE_PARAM_LIMIT:
        return {"kind": "too-big", "limit": f"{fs.LIVE_PARAM_LIMIT:,}", "n": f"{step0_parameters:,}"}
    if estimate > fs.ABLATION_TIME_LIMIT_S:
        return {"kind": "too-long", "runs": runs, "steps": settings.steps, "seconds": estimate,
                "limit": fs.ABLATION_TIME_LIMIT_S}
    return {"kind": "run", "runs": runs, "seconds": estimate,
            "key": f"four-steps-ablation-{results.result_key(fs.ABLATION_KIND, settings.to_dict())}"}


def measured(shipped: dict | None, pair: tuple[str, str]) -> dict | str:
    """The shipped ablation's paired difference in held-out loss for `pair` (a, b, diff, p, n), or why there
    is none."""
    if shipped is None:
        return "no shipped results"
    losses = {v: [r["eval_loss"] for r in shipped["runs"] if r["variant"] == v] for v in pair}
    if not all(losses.values()):
        return "not in the shipped results"
    rows = {(r["a"], r["b"]): r for r in fs.paired_analysis(shipped["runs"])["pairs"]}
    row = rows.get(pair) or {**rows[pair[::-1]], "mean_diff": -rows[pair[::-1]]["mean_diff"]}
    return {"a": fs.VARIANT_SHORT[pair[0]], "b": fs.VARIANT_SHORT[pair[1]], "diff": row["mean_diff"],
            "p": row["paired_p"], "n": row["n"]}


# --- separate or shared parameters (slides 53-55) ------------------------------------------------------------

def shared_params_tests(record: dict) -> list[dict]:
    """The shared-parameters tests as a table: seeds, mean difference, exact, Holm and equivalence p, verdict."""
    return [{"test": r["test"], "seeds": r["n"], "mean difference": round(r["mean_diff"], 4),
             "exact paired p": p_text(r["p"]), "Holm p": p_text(r["holm_p"]),
             f"equivalence p (±{sp.EQUIVALENCE_MARGIN})": p_text(r["tost_p"]), "verdict": sp.verdict(r)}
            for r in sp.analyse(record)["tests"]]
