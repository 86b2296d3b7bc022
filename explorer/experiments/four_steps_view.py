"""The four-steps page's numbers: every value its sentences, tiles and tables quote, and the decisions behind
them (whether a check or a rerun is stored, shipped, refused or runs here; which pair of variants measures a
structure), computed from `explorer.experiments.four_steps` and `shared_params`. The page lays them out with
its content file."""

from __future__ import annotations

import json
from typing import Callable

from explorer import content, results
from explorer.experiments import four_steps as fs
from explorer.experiments import shared_params as sp
from explorer.formatting import p_label, p_text
from explorer.progress import Progress
from explorer.steps import FINAL_STEP

MASK_SIZE = (6, 6)  # input and target tokens drawn in the mask figure
FIRST_SCREEN_MASK = (4, 3)  # on the first screen, beside the weights
TASKS = ("sort", "reverse", "copy")
LENGTHS = (4, 6, 8, 10, 12)
STEP_BUDGETS = (50, 100, 150, 200, 250, 300, 400, 600)
SHIPPED_BUDGETS = {"250 steps": "main", "500 steps": "long"}  # English label -> shipped preset
REFUSALS = ("shipped", "too-big", "too-long")  # rerun plans that say why nothing trains: `rerun-<kind>` texts
BOOK = "four-steps"  # the page's content file holds every phrase this module puts into a table or a sentence


def budget_label(preset: str) -> str:
    """A shipped preset's budget as the page shows it ("250 steps"), in the run's language."""
    return content.text(BOOK, f"budget-{preset}")


def task_label(task: str) -> str:
    """A rerun task's name (sort, reverse, copy) in the run's language."""
    return content.text(BOOK, f"task-{task}")


# slides 52-55 (and 59-66): the three extra structures of encoder-decoder; `step` removes it, `compare` is the
# pair of shipped variants whose difference measures removing it here; their texts are `why-<step>-*` sections
WHY = (  # separate parameters: against step 0 at the matched width, so the model does not also shrink
    {"structure": "Separate parameters for input and target", "step": 2, "compare": ("2", "0m"), "related": "lengths"},
    {"structure": "Decoder reads only the encoder's final layer", "step": 3, "compare": ("3", "2"), "related": "depth"},
    {"structure": "Bidirectional input", "step": 4, "compare": ("4", "3"), "related": "cache"},
)
WHY_COLUMNS = ("structure", "helped", "changed", "test", "removed")  # `why-col-<name>` headings


def step_help() -> str:
    """Every step's title, for the step slider's help: the slider shows plain numbers (a select_slider with
    names would bind to the URL by its label)."""
    return " · ".join(fs.step_title(k) for k in range(FINAL_STEP + 1))


def masks(step: int, size: tuple[int, int] = MASK_SIZE) -> list[tuple[str, dict]]:
    """Who reads whom at `step` and in decoder-only, `size` (input, target) tokens each: from the flags, which no
    size changes."""
    base = fs.base_config(**fs.DEFAULT_SIZES)
    return [
        (content.text(BOOK, "mask-panel-step", step=step), fs.combined_mask(fs.step_config(base, step), *size)),
        (fs.variant_short(fs.DECODER), fs.combined_mask(fs.decoder_only_config(base), *size)),
    ]


def mask_first_screen(step: int) -> tuple[str, dict, dict]:
    """(the step's name, its mask, decoder-only's mask) with fewer tokens than `masks`: the first screen draws the
    step in one panel beside the weights and marks where decoder-only differs."""
    (_, mask), (_, decoder) = masks(step, FIRST_SCREEN_MASK)
    return fs.variant_short(str(step)), mask, decoder


def weights(step: int, depth: int) -> dict:
    """What steps 1-3 change, which no mask shows: whose weights every block runs and which encoder level each
    decoder layer reads at `step`, and how much of it is already decoder-only's (`same`: all, wiring (and weights),
    weights, none): the arguments of `explorer.figures.four_steps.weights`."""
    base = fs.base_config(depth, fs.DEFAULT_SIZES["width"], fs.DEFAULT_SIZES["heads"])
    cfg, decoder = fs.step_config(base, step), fs.decoder_only_config(base)
    tiles, reference = fs.weight_tiles(cfg), fs.weight_tiles(decoder)
    wiring = fs.wiring(cfg)

    def owners(found: list[fs.WeightTile]) -> list[tuple]:
        return [(t.stack, t.layer, t.role, t.owner, t.owner_layer) for t in found]

    same = (
        "all"
        if tiles == reference and wiring.reads == fs.wiring(decoder).reads
        else "wiring"
        if owners(tiles) == owners(reference) and wiring.reads == fs.wiring(decoder).reads
        else "weights"
        if owners(tiles) == owners(reference)
        else "none"
    )
    return {
        "tiles": tiles,
        "w": wiring,
        "step": fs.variant_short(str(step)),
        "decoder_blocks": fs.weight_blocks(reference),
        "same": same,
    }


def takeaway(step: int) -> dict:
    """The step's title and slides, for the sentence under the masks."""
    title = fs.step_title(step)
    return {"title": title[:1].upper() + title[1:], "slides": content.text(BOOK, f"step-slides-{step}")}


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


def check_refusal(check: dict | None, counts: dict[str, int]) -> str | None:
    """Why the check does not run here: nothing is stored and step 0 is over the live limit; None when it may."""
    if check is not None or counts["0"] <= fs.LIVE_PARAM_LIMIT:
        return None
    return content.text(BOOK, "check-too-big", limit=f"{fs.LIVE_PARAM_LIMIT:,}", n=f"{counts['0']:,}")


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
    return content.text(BOOK, f"relative-{'times' if r >= 1 else 'share'}", r=r)


def check_numbers(check: dict, step: int) -> dict:
    """The check at `step`: the three tiles (label, value, help), whether steps 0-2 leave the difference exactly in
    place (`sharing`, said only at steps 0-2), and the values of the sentence on step 4 and the final change."""
    row = check["steps"][step]
    diffs = [r["max_abs_logit_diff_f64"] for r in check["steps"]]
    four, final = check["steps"][4], check["steps"][FINAL_STEP]
    return {
        "tiles": [
            (content.text(BOOK, "tile-f32", step=step), f"{row['max_abs_logit_diff']:.3g}", None),
            ("float64", f"{row['max_abs_logit_diff_f64']:.3g}", None),
            (
                content.text(BOOK, "tile-relative"),
                f"{row['relative_diff']:.2g}",
                content.text(BOOK, "help-largest", largest=check["max_abs_logit"]),
            ),
        ],
        "sharing": step <= 2 and max(diffs[:3]) - min(diffs[:3]) <= 1e-9 * max(diffs[:3]),
        "result": {
            "four": four["max_abs_logit_diff"],
            "relative": relative(four["relative_diff"]),
            "final": final["max_abs_logit_diff"],
            "final64": final["max_abs_logit_diff_f64"],
        },
    }


# --- the ablation --------------------------------------------------------------------------------------------


def ablation_work(settings: fs.AblationSettings) -> Callable[[Progress], dict]:
    """The background work of an ablation rerun: a complete record is cached, a cut one says why it stopped."""

    def work(progress: Progress) -> dict:
        record = fs.run_ablation(settings, progress)
        if record["complete"]:
            results.save(fs.ABLATION_KIND, settings.to_dict(), record)
        else:
            record["stopped"] = content.text(BOOK, "stopped-limit", limit=fs.ABLATION_TIME_LIMIT_S)
        return record

    return work


def analysis(record: dict) -> dict:
    """The paired tests, the function comparison and the parameter table of one ablation record."""
    settings = fs.AblationSettings.from_dict(record["settings"])
    return {
        "paired": fs.paired_analysis(record["runs"]),
        "functions": fs.function_summary(record),
        "parameters": fs.parameter_table(settings.base, settings.variants),
    }


def ablation_key(preset: str) -> str:
    """The figure keys' prefix of a shipped preset's ablation: the main one keeps its original keys."""
    return "four-steps-ablation" if preset == "main" else f"four-steps-ablation-{preset}"


def stopped_note(record: dict) -> str | None:
    """The warning over a record whose runs were cut short (why, and how many finished); None when complete."""
    if record.get("complete", True):
        return None
    return content.text(
        BOOK,
        "ablation-stopped",
        why=record.get("stopped") or content.text(BOOK, "incomplete"),
        runs=len(record["runs"]),
    )


def same_function_note(record: dict) -> str | None:
    """How close the final change and decoder-only trained, seed by seed; None when the record has no such seeds."""
    exact = record["summary"].get("final_vs_decoder")
    return content.text(BOOK, "same-function", gap=exact["max_same_seed_gap"]) if exact and exact["seeds"] else None


def pairs_table(paired: dict) -> list[dict]:
    """Every pair of variants: seeds, mean difference in held-out loss, exact and Holm-corrected p."""
    col = {name: content.text(BOOK, f"col-{name}") for name in ("seeds", "loss-diff", "exact-p", "holm-p")}
    return [
        {
            "a": fs.variant_short(r["a"]),
            "b": fs.variant_short(r["b"]),
            col["seeds"]: r["n"],
            col["loss-diff"]: round(r["mean_diff"], 4),
            col["exact-p"]: p_text(r["paired_p"]),
            col["holm-p"]: p_text(r["holm_p"]),
        }
        for r in paired["pairs"]
    ]


def variants_table(summary: dict, parameters: list[dict]) -> list[dict]:
    """Per variant: width, parameters (and against decoder-only), seeds and the held-out loss's spread."""
    by_variant = {r["variant"]: r for r in parameters}
    col = {
        name: content.text(BOOK, f"col-{name}")
        for name in ("variant", "width", "parameters", "vs-decoder", "seeds", "loss-mean", "sd", "min", "max")
    }
    return [
        {
            col["variant"]: fs.variant_name(v["variant"]),
            col["width"]: by_variant[v["variant"]]["width"],
            col["parameters"]: f"{by_variant[v['variant']]['params']:,}",
            col["vs-decoder"]: f"{by_variant[v['variant']]['vs_decoder']:+.1%}",
            col["seeds"]: v["n"],
            col["loss-mean"]: round(v["mean"], 4),
            col["sd"]: round(v["sd"], 4),
            col["min"]: round(v["min"], 4),
            col["max"]: round(v["max"], 4),
        }
        for v in summary["variants"]
    ]


def run_caption(record: dict) -> str:
    """How many runs a record holds, with its wall time, threads and date where recorded."""
    wall, runs = record.get("wall_seconds"), len(record["runs"])
    date = record.get("date")
    if wall:
        return content.text(
            BOOK,
            f"run-caption-wall-{'date' if date else 'nodate'}",
            runs=runs,
            wall=wall,
            threads=record.get("threads", 1),
            date=date,
        )
    return content.text(BOOK, f"run-caption-{'date' if date else 'plain'}", runs=runs, date=date)


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
        return {
            "kind": "too-long",
            "runs": runs,
            "steps": settings.steps,
            "seconds": estimate,
            "limit": fs.ABLATION_TIME_LIMIT_S,
        }
    return {
        "kind": "run",
        "runs": runs,
        "seconds": estimate,
        "key": f"four-steps-ablation-{results.result_key(fs.ABLATION_KIND, settings.to_dict())}",
    }


def rerun_notice(plan: dict) -> str | None:
    """What the rerun part says instead of training (the shipped settings, or a refusal with its numbers); None
    when the plan shows a stored record or trains."""
    return content.text(BOOK, f"rerun-{plan['kind']}", **plan) if plan["kind"] in REFUSALS else None


def measured(shipped: dict | None, pair: tuple[str, str]) -> dict | str:
    """The shipped ablation's paired difference in held-out loss for `pair` (a, b, diff, p, n), or why there
    is none."""
    if shipped is None:
        return content.text(BOOK, "measured-none")
    losses = {v: [r["eval_loss"] for r in shipped["runs"] if r["variant"] == v] for v in pair}
    if not all(losses.values()):
        return content.text(BOOK, "measured-missing")
    rows = {(r["a"], r["b"]): r for r in fs.paired_analysis(shipped["runs"])["pairs"]}
    row = rows.get(pair) or {**rows[pair[::-1]], "mean_diff": -rows[pair[::-1]]["mean_diff"]}
    return {
        "a": fs.variant_short(pair[0]),
        "b": fs.variant_short(pair[1]),
        "diff": row["mean_diff"],
        "p": row["paired_p"],
        "n": row["n"],
    }


def why_header() -> list[str]:
    """The headings of the why table's columns, bold."""
    return [f"**{content.text(BOOK, f'why-col-{label}')}**" for label in WHY_COLUMNS]


def why_cells(row: dict, shipped: dict | None) -> list[str]:
    """The why table's text cells for one structure (`WHY` row): name, what it helped, what changed, and the
    test that would show it with what the shipped ablation measured."""
    step, found = row["step"], measured(shipped, row["compare"])
    found = content.text(BOOK, "measured", **{**found, "p": p_label(found["p"])}) if isinstance(found, dict) else found
    return [
        f"**{content.text(BOOK, f'why-{step}-structure')}**",
        content.text(BOOK, f"why-{step}-helped"),
        content.text(BOOK, f"why-{step}-changed"),
        content.text(BOOK, "why-test", test=content.text(BOOK, f"why-{step}-test"), measured=found),
    ]


# --- separate or shared parameters (slides 53-55) ------------------------------------------------------------


def shared_params_tests(record: dict) -> list[dict]:
    """The shared-parameters tests as a table: seeds, mean difference, exact, Holm and equivalence p, verdict."""
    col = {
        name: content.text(BOOK, f"col-{name}", margin=sp.EQUIVALENCE_MARGIN)
        for name in ("test", "seeds", "mean-diff", "exact-p", "holm-p", "equivalence-p", "verdict")
    }
    return [
        {
            col["test"]: content.text(BOOK, f"sp-test-{r['test']}"),
            col["seeds"]: r["n"],
            col["mean-diff"]: round(r["mean_diff"], 4),
            col["exact-p"]: p_text(r["p"]),
            col["holm-p"]: p_text(r["holm_p"]),
            col["equivalence-p"]: p_text(r["tost_p"]),
            col["verdict"]: sp.verdict_text(sp.verdict(r)),
        }
        for r in sp.analyse(record)["tests"]
    ]
