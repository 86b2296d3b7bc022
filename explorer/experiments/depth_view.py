"""The depth page's numbers: every value its sentences, tiles and tables quote, and the decisions behind them
(what fits the time limit, which run to suggest, whether a wiring still improves), computed from the analyses
of `explorer.experiments.depth`. The page lays them out with its content file; tests check them directly."""

from __future__ import annotations

import math
from dataclasses import replace

from explorer import content, environment, results, shipped
from explorer.experiments import depth as dp
from explorer.formatting import p_label, p_text, plural, seed_list
from explorer.stats import holm, smallest_p
from explorer.tasks import FIRST_SYMBOL

DEPTHS = (2, 4, 8)  # the depth slider's stops
STEP_OPTIONS = (150, 300, 600, 1200, 2400)  # the steps slider's stops
RECIPE = dp.PRESETS["main"]
SHORT = {"final": "final-only", "aligned": "layer-aligned"}  # English; `short(w)` in the page's language
BOOK = "depth"  # the page's content book: the names, counts, tiles and table headings below are the page's text
STILL_IMPROVING = 0.05  # nats the held-out loss still fell over the last sixth of training: not converged


def short(wiring: str) -> str:
    """A wiring's short name (`SHORT`) in the page's language."""
    return content.text(BOOK, f"short-{wiring}")


def wiring_name(wiring: str) -> str:
    """A wiring's full name (`dp.WIRING_NAMES`) in the page's language."""
    return content.text(BOOK, f"wiring-{wiring}")


def task_name(task: str) -> str:
    """A task's name (`dp.TASK_NAMES`) in the page's language."""
    return content.text(BOOK, f"task-{task}")


def joined(items) -> str:
    """`2 and 4 and 8`: items joined by the page's language's 'and'."""
    return f" {content.text(BOOK, 'and')} ".join(map(str, items))


def signed(x: float, digits: int = 1) -> str:
    """`+1.5`, and `+0.0` rather than `-0.0` for a gap that rounds to zero."""
    return f"{round(x, digits) + 0.0:+.{digits}f}"


def pm(spread: dict, digits: int = 3) -> str:
    """`0.912 ± 0.031`: a seed mean with its sd (the sd left out when there is one seed)."""
    sd = spread["sd"]
    return f"{spread['mean']:.{digits}f}" + (f" ± {sd:.{digits}f}" if math.isfinite(sd) else "")


# --- which runs exist, and what an on-demand run would cost ---------------------------------------------------


def settings(steps: int, n_seeds: int, width: int, depths: tuple[int, ...] = DEPTHS) -> dp.DepthConfig:
    """The main recipe at the page's steps, seeds and width."""
    return replace(RECIPE, depths=depths, steps=steps, seeds=tuple(range(n_seeds)), d_model=width)


def preset_key(name: str) -> tuple:
    """A shipped preset's (steps, seeds, width, runs): what keys the page's analysis of its sweep."""
    preset = dp.PRESETS[name]
    return preset.steps, len(preset.seeds), preset.d_model, tuple(preset.runs())


def main_run(runs: list[dict]) -> dict | None:
    """The main preset's shipped sweep among `runs` (`dp.load_all_shipped()`), or None."""
    return next((s for s in runs if s["config"] == RECIPE.to_dict()), None)


def by_preset(runs: list[dict]) -> dict[str, dict]:
    """The shipped sweeps by preset name (those the CLI wrote with its run's wall time and load)."""
    return {
        name: run
        for name in dp.SHIPPED_PRESETS
        for run in runs
        if run["config"] == dp.PRESETS[name].to_dict() and "wall_seconds" in run and "load_average" in run
    }


def shipped_stamp() -> tuple[float, ...]:
    """Modification times of the shipped files (0 when missing): a page's cache key, so a new CLI run shows."""
    paths = [dp.shipped_path(p) for p in (*dp.SHIPPED_PRESETS, dp.LR_PRESET)]
    return tuple(p.stat().st_mtime if p.is_file() else 0.0 for p in paths)


def load_shipped() -> dict:
    """Every shipped sweep (`runs`), the main one, those by preset, the control and learning-rate analyses (None
    when not shipped) and the step-time model the on-demand estimates use."""
    runs = dp.load_all_shipped()
    presets = by_preset(runs)
    lr = dp.load_shipped(dp.shipped_path(dp.LR_PRESET))
    return {
        "runs": runs,
        "main": main_run(runs),
        "by_preset": presets,
        "control": dp.analyse(presets["control"]) if "control" in presets else None,
        "lr": dp.analyse_lr(lr) if lr is not None and lr.get("lrs") else None,
        "rate": dp.step_time_model(runs),
    }


def rejected_numbers(rejected: list[str]) -> dict:
    """How many cached records could not be used (they were removed), and the first reason."""
    return {
        "records": plural(len(rejected), "cached result"),
        "verb": "was" if len(rejected) == 1 else "were",
        "first": rejected[0],
    }


def to_train(
    cfg: dp.DepthConfig, depth: int, runs: list[dict], rate: tuple[float, float], missing: list[tuple] | None = None
) -> tuple[list[tuple], float]:
    """The runs at `depth` that neither `runs` nor the cache hold (`missing`, if the caller has already
    looked), and the seconds to train them at `rate` (`dp.step_time_model`)."""
    missing = [m for m in (dp.available(cfg, runs)[1] if missing is None else missing) if m[0] == depth]
    return missing, dp.estimate_seconds(cfg, missing, rate) if missing else 0.0


def what_fits(
    cfg: dp.DepthConfig, depth: int, runs: list[dict], rate: tuple[float, float], limit_s: float
) -> tuple[int, int] | None:
    """(steps, seeds) that would train within `limit_s` at `depth`: fewer steps first, then fewer seeds."""
    n = len(cfg.seeds)
    fewer_steps = [(s, n) for s in sorted(STEP_OPTIONS, reverse=True) if s < cfg.steps]
    fewer_seeds = [(cfg.steps, k) for k in range(n - 1, 0, -1)]
    for steps, seeds in fewer_steps + fewer_seeds:
        if to_train(replace(cfg, steps=steps, seeds=tuple(range(seeds))), depth, runs, rate)[1] <= limit_s:
            return steps, seeds
    return None


def ready_keys(swept: dict) -> tuple[tuple, ...]:
    """(depth, wiring, seed) of every run ready at these settings (`dp.available`): with the settings, what keys
    their analysis, so a run finished in the background shows at once."""
    return tuple((r["depth"], r["wiring"], r["seed"]) for r in swept["runs"])


def one_depth(cfg: dp.DepthConfig, depth: int) -> tuple[dp.DepthConfig, str]:
    """The settings of an on-demand run at `depth` alone, and its job key (one job per settings, whoever asks)."""
    run = replace(cfg, depths=(depth,))
    return run, "depth-" + results.result_key("depth-run", run.to_dict())


def on_demand(cfg: dp.DepthConfig, depth: int, missing: list[tuple], shipped_state: dict, limit_s: float) -> dict:
    """What an on-demand run at `depth` would train (`models`, `seconds`), whether it is refused as too slow,
    and the (steps, seeds) that would fit instead (`fits`: None when nothing does)."""
    here, seconds = to_train(cfg, depth, shipped_state["runs"], shipped_state["rate"], missing)
    too_slow = seconds > limit_s
    fits = what_fits(cfg, depth, shipped_state["runs"], shipped_state["rate"], limit_s) if too_slow else None
    return {
        "models": len(here),
        "seconds": seconds,
        "too_slow": too_slow,
        "depth": depth,
        "steps": cfg.steps,
        "limit": limit_s,
        "fits": None if fits is None else {"steps": fits[0], "seeds": plural(fits[1], "seed")},
    }


def refusal(plan: dict) -> str:
    """Why an on-demand run (`on_demand`) is refused as too slow, with the smaller run that would fit, if any."""
    suggestion = (
        content.text(BOOK, "suggestion", **plan["fits"]) if plan["fits"] else content.text(BOOK, "suggestion-none")
    )
    return content.text(BOOK, "refused", **plan, suggestion=suggestion)


def settings_numbers() -> dict:
    """The shipped presets' steps, seeds and width, for the settings' caption."""
    long = dp.PRESETS["long"]
    return {
        "steps": RECIPE.steps,
        "long_steps": long.steps,
        "seeds": len(RECIPE.seeds),
        "long_seeds": plural(len(long.seeds), "seed"),
        "width": RECIPE.d_model,
    }


def more_training_hint(cfg: dp.DepthConfig, depth: int, runs: list[dict]) -> str:
    """What to do when a wiring is still improving: set the longest run already measured at `depth`, or train
    longer."""
    ready = longest_ready(cfg, depth, runs)
    return (
        content.text(BOOK, "hint-ready", steps=ready[0], seeds=plural(ready[1], "seed"))
        if ready
        else content.text(BOOK, "hint-more")
    )


def longest_ready(cfg: dp.DepthConfig, depth: int, runs: list[dict]) -> tuple[int, int] | None:
    """(steps, seeds) of the longest run at `depth` that is shipped or cached (more seeds first), or None."""
    for steps in sorted((s for s in STEP_OPTIONS if s > cfg.steps), reverse=True):
        for n in range(len(cfg.seeds), 0, -1):
            if not [
                m for m in dp.available(replace(cfg, steps=steps, seeds=tuple(range(n))), runs)[1] if m[0] == depth
            ]:
                return steps, n
    return None


# --- the numbers each part of the page quotes ---------------------------------------------------------------


def paired_wins(cells: dict) -> tuple[int, int]:
    """(seeds where layer-aligned has the lower held-out loss, seeds both wirings share)."""
    loss = {w: dict(zip(c["seeds"], c["loss"]["per_seed"])) for w, c in cells.items()}
    paired = sorted(set(loss["final"]) & set(loss["aligned"]))
    return sum(loss["aligned"][s] < loss["final"][s] for s in paired), len(paired)


def gap_items(analysis: dict) -> list[dict]:
    """Per depth: the mean paired accuracy gap (points, signed) and its exact p, for a list in running text."""
    return [
        {"depth": r["depth"], "gap": signed(r["accuracy_gap"] * 100), "p": p_label(r["p_accuracy"])}
        for r in dp.gaps(analysis)
    ]


def gap_list(analysis: dict) -> str:
    """`gap_items` as running text ("depth 2: +1.0 points, p = ...; depth 4: ..."), for the control section."""
    return "; ".join(content.text(BOOK, "gap-item", **i) for i in gap_items(analysis))


def outcome_items(analysis: dict) -> list[dict]:
    """Per depth with both wirings: layer-aligned minus final-only mean accuracy (points) and the loss test's p."""
    items = []
    for d in analysis["depths"]:
        cells = analysis["cells"][d]
        if len(cells) == 2:
            items.append(
                {
                    "depth": d,
                    "gap": (cells["aligned"]["accuracy"]["mean"] - cells["final"]["accuracy"]["mean"]) * 100,
                    "p": p_label(analysis["tests"][d]["loss"]["p"]),
                }
            )
    return items


def outcome_notice(analysis: dict) -> str:
    """The across-depths figure's notice: the gap at every depth with both wirings, and how low the seeds' p
    can go."""
    gaps = "; ".join(content.text(BOOK, "outcome-item", **i) for i in outcome_items(analysis)) or content.text(
        BOOK, "outcome-none"
    )
    n = len(analysis["seeds"])
    return content.text(BOOK, "outcome-notice", gaps=gaps, seeds=plural(n, "seed"), smallest=smallest_p(n))


def control_at(control: dict | None, depth: int) -> dict | None:
    """The control task's paired accuracy gap at `depth` (signed points, p, seeds), or None where not shipped."""
    row = next((r for r in dp.gaps(control) if r["depth"] == depth), None) if control else None
    return (
        None
        if row is None
        else {
            "gap": signed(row["accuracy_gap"] * 100),
            "p": p_label(row["p_accuracy"]),
            "seeds": plural(row["seeds"], "seed"),
        }
    )


def at_depth(analysis: dict, depth: int) -> dict | None:
    """The numbers at `depth` when both wirings were measured there (tiles, takeaway, wins, power, anatomy)."""
    cells = analysis["cells"].get(depth, {})
    if len(cells) != 2:
        return None
    final, aligned, test = cells["final"], cells["aligned"], analysis["tests"][depth]
    wins, n = paired_wins(cells)
    worse = min(cells, key=lambda w: cells[w]["accuracy"]["mean"])
    anatomy = cells[worse]["anatomy"]
    return {
        "depth": depth,
        "final": final["accuracy"]["mean"],
        "aligned": aligned["accuracy"]["mean"],
        "gap": (aligned["accuracy"]["mean"] - final["accuracy"]["mean"]) * 100,
        "loss_gap": final["loss"]["mean"] - aligned["loss"]["mean"],
        "p_loss": p_text(test["loss"]["p"]),
        "pairs": test["loss"]["pairs"],
        "smallest": test["loss"]["smallest_p"],
        "mde": test["loss"]["mde"],
        "n_final": len(final["seeds"]),
        "has_test": math.isfinite(test["loss"]["mde"]),
        "p": p_label(test["accuracy"]["p"]),
        "wins": wins,
        "seeds": plural(n, "seed"),
        "n_seeds": n,
        "wiring": short(worse),
        **{k: anatomy[k]["mean"] for k in ("set_first", "symbol_first", "symbol_rest")},
    }


def takeaway(here: dict, control: dict | None, meanwhile: bool) -> str:
    """The sentence under the schematic: the gap at `here`'s depth (in the shipped run while the student's
    settings lack it: `meanwhile`), then the `control` task's gap at that depth where it was shipped."""
    depth = content.text(BOOK, "depth-shipped", depth=here["depth"]) if meanwhile else here["depth"]
    said = content.text(BOOK, "takeaway", **{**here, "depth": depth})
    on_control = control_at(control, here["depth"])
    return said + (" " + content.text(BOOK, "takeaway-control", **on_control) if on_control else "")


def coverage_notes(analysis: dict, cfg: dp.DepthConfig, meanwhile: bool) -> list[str]:
    """The captions over the results: the shipped run standing in `meanwhile`, or the depths and seeds these
    settings have not trained (`coverage`)."""
    if meanwhile:
        return [content.text(BOOK, "meanwhile", **settings_numbers())]
    shown = coverage(analysis, cfg)
    untrained = [content.text(BOOK, "untrained", **shown)] if shown["untrained"] else []
    return untrained + ([content.text(BOOK, "seeds-shown", **shown)] if shown["seeds"] else [])


def wins_text(here: dict) -> str:
    """In how many seeds layer-aligned has the lower loss at this depth, and what these seeds could detect (one
    seed per wiring: no test)."""
    power = content.text(BOOK, "detectable", **here) if here["has_test"] else content.text(BOOK, "no-test")
    return content.text(BOOK, "wins", **here) + " " + power


def coverage(analysis: dict, cfg: dp.DepthConfig) -> dict:
    """The slider's depths not trained at these settings, and the seeds shown when not all asked for are there
    (empty strings when nothing is missing)."""
    untrained = [d for d in DEPTHS if d not in analysis["depths"]]
    return {
        "untrained": joined(untrained),
        "depths": joined(untrained),
        "verb": "has" if len(untrained) == 1 else "have",
        "seeds": "" if analysis["seeds"] == list(cfg.seeds) else ", ".join(map(str, analysis["seeds"])),
    }


def tiles(here: dict) -> list[tuple[str, str, str | None, str | None]]:
    """(label, value, change, help) of the four tiles at one depth, from `at_depth`'s numbers; the p tile's help
    names its test."""
    return [
        (content.text(BOOK, "tile-final", depth=here["depth"]), f"{here['final']:.1%}", None, None),
        (
            content.text(BOOK, "tile-aligned"),
            f"{here['aligned']:.1%}",
            content.text(BOOK, "points", gap=here["gap"]),
            None,
        ),
        (content.text(BOOK, "tile-loss"), f"{here['loss_gap']:+.3f} nats", None, None),
        (
            content.text(BOOK, "tile-p", pairs=plural(here["pairs"], "paired seed")),
            here["p_loss"],
            None,
            content.text(BOOK, "help-p", **here),
        ),
    ]


def depth_table(analysis: dict) -> list[dict]:
    """The across-depths table, one row per depth and wiring, formatted for reading."""
    col = {
        name: content.text(BOOK, f"col-{name}")
        for name in ("depth", "wiring", "seeds", "accuracy", "loss", "p-loss", "p-accuracy", "late-drop", "parameters")
    }
    return [
        {
            col["depth"]: r["depth"],
            col["wiring"]: short(r["wiring"]),
            col["seeds"]: r["seeds"],
            col["accuracy"]: pm(analysis["cells"][r["depth"]][r["wiring"]]["accuracy"]),
            col["loss"]: pm(analysis["cells"][r["depth"]][r["wiring"]]["loss"]),
            col["p-loss"]: p_text(r["p_loss"]),
            col["p-accuracy"]: p_text(r["p_accuracy"]),
            col["late-drop"]: f"{r['late_drop_mean']:+.3f}",
            col["parameters"]: f"{r['parameters']:,}",
        }
        for r in dp.table(analysis)
    ]


def table_caption(analysis: dict) -> str:
    """The across-depths table's caption: the exact tests' floor, after the shared cost when both wirings have it."""
    n = len(analysis["seeds"])
    caption = content.text(BOOK, "table-caption", seeds=n, smallest=smallest_p(n))
    if flops := same_cost(analysis):
        per_depth = ", ".join(content.text(BOOK, "flops-item", **f) for f in flops)
        caption = content.text(BOOK, "same-cost", flops=per_depth) + " " + caption
    return caption


def same_cost(analysis: dict) -> list[dict] | None:
    """Training FLOPs per step by depth when both wirings cost the same at every depth, else None."""
    rows = dp.table(analysis)
    same = all(
        len({(r["parameters"], r["flops_per_step"]) for r in rows if r["depth"] == d}) == 1 for d in analysis["depths"]
    )
    return (
        [{"depth": r["depth"], "flops": r["flops_per_step"]} for r in rows if r["wiring"] == "final"]
        if same and rows
        else None
    )


def late_drops(cells: dict) -> dict:
    """How much each wiring's held-out loss still fell over the last sixth of training (`said`, for the curves'
    notice), and which still improve with their drops (for the caveat; empty when none does)."""
    drops = {w: c["late_drop"]["mean"] for w, c in cells.items()}
    still = [w for w, v in drops.items() if v > STILL_IMPROVING]
    return {
        "said": joined(content.text(BOOK, "drop-item", drop=v, wiring=short(w)) for w, v in drops.items()),
        "wirings": joined(short(w) for w in still),
        "drops": joined(f"{drops[w]:.2f}" for w in still),
    }


def probe_lines(cells: dict) -> list[dict]:
    """Per wiring: probe accuracies at the embeddings, the top level and the best level (trained and untrained)."""
    lines = []
    for wiring, cell in cells.items():
        token = cell["probes"]["trained"]["token"].mean(0)
        bit = cell["probes"]["trained"]["majority"].mean(0)
        untrained = cell["probes"]["untrained"]["majority"].mean(0)
        best = int(bit.argmax())
        lines.append(
            {
                "name": wiring_name(wiring),
                "token_first": token[0],
                "token_top": token[-1],
                "token_min": token.min(),
                "bit_first": bit[0],
                "bit_best": bit[best],
                "level": best,
                "bit_top": bit[-1],
                "untrained": untrained[-1],
            }
        )
    return lines


def probe_text(cells: dict) -> str:
    """`probe_lines` as the probes section's Markdown list, one line per wiring."""
    return "\n".join(content.text(BOOK, "probe-line", **line) for line in probe_lines(cells))


def anatomy_table(cells: dict) -> list[dict]:
    """Which kind of error: right symbol and right set, first and later outputs, per wiring."""
    col = {
        name: content.text(BOOK, f"col-{name}")
        for name in ("wiring", "symbol-first", "symbol-rest", "set-first", "set-rest")
    }
    return [
        {
            col["wiring"]: wiring_name(w),
            col["symbol-first"]: pm(c["anatomy"]["symbol_first"]),
            col["symbol-rest"]: pm(c["anatomy"]["symbol_rest"]),
            col["set-first"]: pm(c["anatomy"]["set_first"]),
            col["set-rest"]: pm(c["anatomy"]["set_rest"]),
        }
        for w, c in cells.items()
    ]


def gap_table(analyses: dict[str, dict]) -> list[dict]:
    """Per task and depth: the paired gaps with their seed range, n, the exact and Holm-corrected p-values."""

    def span(row: dict, name: str, scale: float, digits: int) -> str:
        low, high = (signed(scale * v, digits) for v in row[f"{name}_range"])
        return f"{signed(scale * row[f'{name}_gap'], digits)} [{low}, {high}]"

    rows = [(task, r) for task, analysis in analyses.items() for r in dp.gaps(analysis)]
    corrected = holm([r["p_accuracy"] for _, r in rows])
    col = {
        name: content.text(BOOK, f"col-{name}")
        for name in ("task", "depth", "seeds", "accuracy-gap", "p-accuracy", "holm-accuracy", "loss-gap", "p-loss")
    }
    return [
        {
            col["task"]: task_name(task),
            col["depth"]: r["depth"],
            col["seeds"]: r["seeds"],
            col["accuracy-gap"]: span(r, "accuracy", 100, 1),
            col["p-accuracy"]: p_text(r["p_accuracy"]),
            col["holm-accuracy"]: p_text(adjusted),
            col["loss-gap"]: span(r, "loss", 1, 3),
            col["p-loss"]: p_text(r["p_loss"]),
        }
        for (task, r), adjusted in zip(rows, corrected)
    ]


def control_numbers(main: dict, control: dict) -> dict:
    """The control section's values: the control's design, its test floor and its widest single-seed gap."""
    seeds = len(control["seeds"])
    return {
        "length": RECIPE.length,
        "depths": joined(control["depths"]),
        "seeds": seeds,
        "smallest": smallest_p(seeds),
        "main_seeds": len(main["seeds"]),
        "widest": max(abs(v) for r in dp.gaps(control) for v in r["accuracy_range"]) * 100,
    }


def lr_numbers(lr: dict) -> dict:
    """The learning-rate check's values: the grid, each wiring's best rate, the paired test at those rates, the
    wirings whose best rate is at the grid's edge, and the best rates by accuracy where those differ (`rates`,
    running text; empty when none does)."""
    best, test = lr["best"], lr["tests"]["accuracy"]
    other = {w: rate for w, rate in lr["most_accurate"].items() if rate != best[w]}
    accuracy = {w: lr["cells"][w][rate]["accuracy"]["mean"] for w, rate in {**best, **other}.items()}
    rates = [
        content.text(BOOK, "rate-item", wiring=short(w), rate=f"{rate:g}", accuracy=accuracy[w])
        for w, rate in other.items()
    ]
    return {
        "depth": lr["depth"],
        "lrs": ", ".join(f"{v:g}" for v in lr["lrs"]),
        "n_seeds": len(lr["seeds"]),
        "main": RECIPE.lr,
        "final_lr": f"{best['final']:g}",
        "aligned_lr": f"{best['aligned']:g}",
        "final": lr["cells"]["final"][best["final"]]["accuracy"]["mean"],
        "aligned": lr["cells"]["aligned"][best["aligned"]]["accuracy"]["mean"],
        "gap": test["mean_diff"] * 100,
        "low": min(test["diffs"]) * 100,
        "high": max(test["diffs"]) * 100,
        "seeds": plural(test["pairs"], "seed"),
        "p": p_label(test["p"]),
        "smallest": test["smallest_p"],
        "edge": joined(short(w) for w, at_edge in lr["at_edge"].items() if at_edge),
        "rates": ", ".join(rates),
        "other_gap": (accuracy["aligned"] - accuracy["final"]) * 100,
    }


def task_numbers() -> dict:
    """The task's size and its symbols' names, for the task section."""
    task = RECIPE.task
    return {
        "length": task.length,
        "symbols": task.n_symbols,
        "last_small": dp.symbol_text(task, FIRST_SYMBOL + task.n_symbols // 2 - 1),
        "last_large": dp.symbol_text(task, FIRST_SYMBOL + task.n_symbols - 1),
    }


def examples_text(n: int = 3, seed: int = 3) -> str:
    """`n` examples of the task (input, target, how many large symbols) as a Markdown list."""
    return "\n".join(
        content.text(BOOK, "example", **e, length=RECIPE.task.length) for e in dp.examples(RECIPE.task, n, seed)
    )


def how_text(analysis: dict, depth: int, runs: dict[str, dict], long_vs_main: tuple[dict, dict] | None) -> str:
    """The how-it-was-measured list: the recipe behind `analysis`, the long run against the main one (their
    analyses, where the long run is shipped), and how each shipped run (`runs`, by preset) was made."""
    parts = [content.text(BOOK, "how-measured", **how_numbers(analysis, depth))]
    if long_vs_main:
        parts.append(content.text(BOOK, "long-run", **long_run_numbers(*long_vs_main)))
    parts += [content.text(BOOK, "shipped-run", **shipped_run_numbers(name, run)) for name, run in runs.items()]
    return "\n".join(parts)


def how_numbers(analysis: dict, depth: int) -> dict:
    """The recipe behind `analysis`, and the training FLOPs layer-aligned reading saves at `depth`."""
    c = analysis["config"]
    used = dp.DepthConfig.from_dict(c)
    saving = dp.unread_layer_backward_flops(used, depth) / (used.flops_per_step(depth, "final") / used.batch_size)
    return {
        "d_model": c["d_model"],
        "heads": c["n_heads"],
        "lr": c["lr"],
        "warmup": c["warmup"],
        "batch": c["batch_size"],
        "steps": c["steps"],
        "seeds": ", ".join(map(str, c["seeds"])),
        "eval_size": c["eval_size"],
        "saving": saving,
        "depth": depth,
        "ridge": f"{dp.RIDGE:g}",
        "probe_train": c["probe_train"],
        "probe_test": c["probe_test"],
    }


def long_run_numbers(long_analysis: dict, main_analysis: dict) -> dict:
    """The long run at its depth against the same seeds of the main run: how far final-only catches up."""
    long = dp.PRESETS["long"]
    (depth,) = long.depths
    cells = long_analysis["cells"][depth]
    main = main_analysis["cells"][depth]["final"]
    before = sum(a for s, a in zip(main["seeds"], main["accuracy"]["per_seed"]) if s in long.seeds) / len(long.seeds)
    return {
        "depth": depth,
        "long_steps": long.steps,
        "steps": RECIPE.steps,
        "seeds": seed_list(long.seeds),
        "first_seed": min(long.seeds),
        "last_seed": max(long.seeds),
        "n_seeds": len(long.seeds),
        "final": cells["final"]["accuracy"]["mean"],
        "before": before,
        "aligned": cells["aligned"]["accuracy"]["mean"],
    }


def shipped_run_numbers(name: str, run: dict) -> dict:
    """How a shipped preset was made: its command's preset, wall time, cores, load, environment and date."""
    return {
        "name": name,
        "wall": run["wall_seconds"],
        "cpus": run.get("cpus", "?"),
        "load": run["load_average"][0],
        "created": run.get("created", "?"),
        "environment": environment.describe(shipped.environment_of(run) or {}),
    }
