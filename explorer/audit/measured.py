"""Measured cells from the app's own results: the four-steps ablation, the inductive-bias crossover, the cache
cost of one chat turn and the depth sweep.

The only audit module that reads experiments; it imports them (and torch) only when a result is read.
"""

from __future__ import annotations

import math
from pathlib import Path

from explorer import content
from explorer.audit.decision import sci
from explorer.audit.workbook import PENDING, Measured
from explorer.formatting import p_label, p_text, seed_list

BOOK = "audit"  # the measured cells' sentences and configs: content/<lang>/audit.md


def _join(parts: list[str]) -> str:
    """Parts of a list in one sentence: '; ' in English, '；' in Chinese (`list-separator`)."""
    sep = content.text(BOOK, "list-separator")
    return (sep + " " if sep.isascii() else sep).join(parts)


def ablation_config(record: dict) -> str:
    s = record["settings"]
    return content.text(
        BOOK,
        "config-ablation",
        task=s["task"],
        length=s["length"],
        symbols=s["n_symbols"],
        depth=s["depth"],
        width=s["width"],
        heads=s["heads"],
        steps=s["steps"],
        batch=s["batch_size"],
        lr=s["lr"],
        seeds=seed_list(s["seeds"]),
        eval=s["eval_size"],
    ) + (content.text(BOOK, "config-run-date", date=record["date"]) if record.get("date") else "")


def _removal_text(row: dict, what: str, means: tuple[float, float]) -> str:
    word = content.text(BOOK, "beyond-noise") if row["holm_p"] < 0.05 else content.text(BOOK, "not-beyond-noise")
    return content.text(
        BOOK,
        "removal",
        what=what,
        diff=row["mean_diff"],
        without=means[0],
        with_=means[1],
        p=p_label(row["paired_p"]),
        holm=p_text(row["holm_p"]),
        seeds=row["n"],
        floor=2 / 2 ** row["n"],
        word=word,
    )


STRUCTURE_REMOVED = {  # ref -> (variant without the structure, variant with it, how it is removed: `removed-<key>`)
    # against separate stacks narrowed to the same parameter count: sharing, not a smaller model
    "four_steps.separate": ("2", "0m", "separate"),
    "four_steps.final_layer": ("3", "2", "final-layer"),
    "four_steps.bidirectional": ("4", "3", "bidirectional"),
}


def four_steps_cells(record: dict, parameters: dict[str, int] | None = None) -> dict[str, Measured]:
    """Gain-now cells from the shipped ablation, the verdict of step 4 against decoder-only, parameter counts."""
    from explorer.experiments import four_steps as fs  # torch: imported only when the ablation is read

    config = ablation_config(record)
    runs = record["runs"]
    losses = {}
    for run in runs:
        losses.setdefault(run["variant"], []).append(run["eval_loss"])
    out = {}
    paired = fs.paired_analysis(runs)
    rows = {(r["a"], r["b"]): r for r in paired["pairs"]}
    for ref, (without, with_, what) in STRUCTURE_REMOVED.items():
        if losses.get(without) and losses.get(with_):
            row = rows.get((without, with_)) or rows.get((with_, without))
            row = row if row["a"] == without else {**row, "mean_diff": -row["mean_diff"]}
            means = (sum(losses[without]) / len(losses[without]), sum(losses[with_]) / len(losses[with_]))
            out[ref] = Measured(
                _removal_text(row, content.text(BOOK, f"removed-{what}"), means),
                config,
                {k: row[k] for k in ("mean_diff", "paired_p", "holm_p")},
            )
    eq = paired["equivalence"]
    if eq and eq["n"] >= 2:
        row = rows[(eq["a"], eq["b"])]
        out["four_steps.verdict"] = Measured(
            fs.paired_text(paired),
            config,
            {
                "mean_diff": row["mean_diff"],
                "p": row["paired_p"],
                "holm_p": row["holm_p"],
                "equivalence_p": eq["p"],
                "margin": eq["margin"],
            },
        )
    if parameters:
        before, after = parameters["0"], parameters["2"]
        out["four_steps.parameters"] = Measured(
            content.text(BOOK, "parameters", before=f"{before:,}", after=f"{after:,}", ratio=before / after),
            config + content.text(BOOK, "config-parameters"),
            {"separate": before, "shared": after},
        )
    return out


def crossover_pairs(analysis: dict) -> list[str]:
    """'more-less' window pairs whose crossover was observed in at least one seed."""
    return [f"{c['more_structure']}-{c['less_structure']}" for c in analysis["crossovers"] if c["flops_mean"]]


def crossover_config(analysis: dict) -> str:
    cfg = analysis["config"]
    weights = analysis["weights"]
    return content.text(
        BOOK,
        "config-crossover",
        layers=cfg["n_layers"],
        widths=", ".join(map(str, cfg["widths"])),
        lrs=", ".join(f"{lr:g}" for lr in cfg["lrs"]),
        heads=cfg["n_heads"],
        windows=", ".join(map(str, analysis["windows"])),
        steps=max(analysis["steps"]),
        seeds=seed_list(analysis["seeds"]),
        weights=", ".join(f"{w:.2f}" for w in weights),
        lags=", ".join(map(str, analysis["lags"])),
    )


def window_name(window: int, length: int) -> str:
    return content.text(BOOK, "window-full", w=window) if window >= length else f"w={window}"


def crossover_input(analysis: dict, pair: str) -> dict:
    """The decision rule's inputs for one window pair of the inductive-bias run."""
    more, less = (int(w) for w in pair.split("-"))
    found = next(
        (c for c in analysis["crossovers"] if (c["more_structure"], c["less_structure"]) == (more, less)), None
    )
    if found is None:
        raise ValueError(f"no window pair {pair} in this run")
    length = analysis["config"]["length"]
    complete = found["seeds_with_crossover"] == found["seeds"]
    return {
        "crossover": found["flops_mean"],
        "lo": found["flops_min"],
        "hi": found["flops_max"] if complete else (math.inf if found["flops_mean"] else None),
        "per_seed": [x for x in found["flops_per_seed"] if x is not None],
        "seeds_with_crossover": found["seeds_with_crossover"],
        "seeds": found["seeds"],
        "range": (float(analysis["flops"][0]), float(analysis["flops"][-1])),
        "more": window_name(more, length),
        "less": window_name(less, length),
        "windows": (more, less),
        "config": crossover_config(analysis),
    }


def crossover_cells(analysis: dict, pair: str, budget: float) -> dict[str, Measured]:
    """The worked example's crossover and its gain at the budget (only inside the measured range)."""
    from explorer.experiments.crossover import at_budget  # torch: imported only when a run is read

    x = crossover_input(analysis, pair)
    config = x["config"]
    more, less = x["windows"]
    out = {}
    if x["crossover"]:
        seeds = content.text(BOOK, "seeds-cross", crossed=x["seeds_with_crossover"], seeds=x["seeds"])
        spread = (
            content.text(BOOK, "spread", lo=sci(x["lo"]), hi=sci(x["hi"]))
            if x["hi"] < math.inf
            else content.text(BOOK, "spread-open", lo=sci(x["lo"]), hi=sci(x["range"][1]))
        )
        out["crossover.pair"] = Measured(
            content.text(
                BOOK,
                "crossover-pair",
                less=x["less"],
                more=x["more"],
                crossover=sci(x["crossover"]),
                spread=spread,
                seeds=seeds,
            ),
            config,
            {"flops_mean": x["crossover"], "flops_min": x["lo"], "flops_max": x["hi"], "pair": pair},
        )
    read = at_budget(analysis, budget)
    if read is None:
        out["crossover.gain"] = Measured(
            content.text(BOOK, "gain-outside", budget=sci(budget), lo=sci(x["range"][0]), hi=sci(x["range"][1])),
            config,
            {"budget": budget},
            PENDING,
        )
    else:
        acc = read["accuracy"]
        lead = acc[more] - acc[less]
        out["crossover.gain"] = Measured(
            content.text(
                BOOK,
                "gain",
                budget=sci(budget),
                more=x["more"],
                less=x["less"],
                more_acc=acc[more],
                less_acc=acc[less],
                lead=lead,
            ),
            config,
            {"budget": budget, "more": acc[more], "less": acc[less]},
        )
    return out


def cache_cell(n: int, m: int, depth: int = 2, timing: dict | None = None) -> dict[str, Measured]:
    """One chat turn of n old + m new tokens: FLOPs both ways (exact counts), KV-cache bytes, timing if given."""
    from explorer.costs import kv_cache_bytes
    from explorer.experiments.cache import model_config, turn_flops

    cfg = model_config(depth, n + m)
    f = turn_flops(cfg, n, m)
    ratio = f["flops_reencode"] / f["flops_cached"]
    kib = kv_cache_bytes(cfg, n + m) / 1024
    text = content.text(
        BOOK,
        "cache-turn",
        m=m,
        n=n,
        reencode=sci(f["flops_reencode"]),
        cached=sci(f["flops_cached"]),
        ratio=ratio,
        kib=f"{kib:,.1f}",
    )
    config = content.text(BOOK, "config-cache", depth=depth, d=cfg.d_model, heads=cfg.n_heads, vocab=cfg.vocab_size)
    values = {
        "n": n,
        "m": m,
        "flops_reencode": f["flops_reencode"],
        "flops_cached": f["flops_cached"],
        "flop_ratio": ratio,
        "kv_cache_bytes": kv_cache_bytes(cfg, n + m),
    }
    if timing:
        text += " " + content.text(
            BOOK,
            "cache-timed",
            reencode=timing["time_reencode_ms"],
            cached=timing["time_cached_ms"],
            speedup=timing["speedup"],
        )
        config += content.text(BOOK, "config-timed", repeats=timing["repeats"], seed=timing["seed"])
        values.update(speedup=timing["speedup"])
    return {"cache.turn": Measured(text, config, values)}


def depth_cells(analysis: dict) -> dict[str, Measured]:
    """Final-layer-only against layer-aligned, per depth, from `explorer.experiments.depth.analyse`."""
    gaps = {d: analysis["tests"][d]["loss"] for d in analysis["depths"] if analysis["tests"].get(d)}
    if not gaps:
        return {}
    depths = sorted(gaps)
    parts = [
        content.text(BOOK, "depth-part", depth=d, diff=gaps[d]["mean_diff"], p=p_label(gaps[d]["p"])) for d in depths
    ]
    aligned_ahead = [d for d in depths if gaps[d]["mean_diff"] > 0]
    clear = [str(d) for d in aligned_ahead if gaps[d]["p"] < gaps[d]["alpha"]]
    if len(aligned_ahead) == len(depths):
        verdict = content.text(BOOK, "depth-aligned-ahead", first=depths[0], last=depths[-1])
    elif not aligned_ahead:
        verdict = content.text(BOOK, "depth-final-ahead", first=depths[0], last=depths[-1])
    else:
        verdict = content.text(BOOK, "depth-sign-changes")
    if clear:
        verdict += (
            content.text(BOOK, "depth-clear-many", depths=", ".join(clear))
            if len(clear) > 1
            else content.text(BOOK, "depth-clear-one", depths=", ".join(clear))
        )
    elif aligned_ahead and all(gaps[d]["smallest_p"] >= gaps[d]["alpha"] for d in aligned_ahead):
        smallest = min(gaps[d]["smallest_p"] for d in aligned_ahead)
        verdict += content.text(BOOK, "depth-floor", smallest=smallest)
    cfg = analysis["config"]
    seeds = analysis["seeds"]
    config = content.text(
        BOOK,
        "config-depth",
        length=cfg.get("length", "?"),
        symbols=cfg.get("n_symbols", "?"),
        d=cfg.get("d_model", "?"),
        heads=cfg.get("n_heads", "?"),
        steps=cfg.get("steps", "?"),
        batch=cfg.get("batch_size", "?"),
        seeds=seed_list(seeds) if seeds else content.text(BOOK, "seeds-none"),
    )
    text = content.text(BOOK, "depth-text", parts=_join(parts), verdict=verdict)
    out = {
        "depth.final_layer": Measured(
            text,
            config,
            {"per_depth": {str(d): {"mean_diff": gaps[d]["mean_diff"], "p": gaps[d]["p"]} for d in depths}},
        )
    }
    sizes = {d: {w: (c["parameters"], c["flops_per_step"]) for w, c in analysis["cells"][d].items()} for d in depths}
    if all(len(set(by_wiring.values())) == 1 for by_wiring in sizes.values()):
        per_depth = _join(
            [
                content.text(
                    BOOK,
                    "depth-size",
                    depth=d,
                    parameters=f"{next(iter(sizes[d].values()))[0]:,}",
                    flops=sci(next(iter(sizes[d].values()))[1]),
                )
                for d in depths
            ]
        )
        out["depth.cost"] = Measured(content.text(BOOK, "depth-cost", sizes=per_depth), config)
    return out


DATA = Path(__file__).resolve().parents[2] / "data"
SHIPPED_FILES = (DATA / "four_steps" / "ablation.json", DATA / "crossover" / "main.json", DATA / "depth" / "main.json")
CACHE_DEPTH = 2  # the cache page's default depth
DEFAULT_BUDGET_LOG = 9.4  # log10 training FLOPs: left of the shipped w=2 -> w=48 crossing, as on slide 13
LONG_SHARE = 0.6  # the inductive-bias page's default score mix: its crossover is the one quoted here


def shipped_stamp() -> tuple[float | None, ...]:
    """Modification times of the shipped results the measured cells read: a cache key that notices new runs."""
    return tuple(p.stat().st_mtime if p.is_file() else None for p in SHIPPED_FILES)


def shipped_ablation() -> tuple[dict | None, dict[str, int] | None]:
    """The shipped four-steps ablation and the parameter counts of its models without and with sharing."""
    from explorer.experiments import four_steps as fs

    record = fs.load_shipped()
    if not record or not record.get("runs"):
        return None, None
    try:
        base = fs.AblationSettings.from_dict(record["settings"]).base
        return record, {v: fs.instantiated_parameters(fs.variant_config(base, v)) for v in ("0", "2")}
    except (KeyError, TypeError, ValueError):
        return record, None


def shipped_crossover(long_share: float = LONG_SHARE) -> dict | None:
    """The inductive-bias page's shipped run, analysed with that page's default score mix."""
    from explorer import shipped as shipped_results
    from explorer.experiments import crossover as xo
    from explorer.recall import LAGS, mix

    try:
        record = shipped_results.load(xo.shipped_path("main"))
        return xo.analyse(xo.sweep(xo.PRESETS["main"], record, train=False), mix(long_share, len(LAGS)))
    except (OSError, KeyError, TypeError, ValueError):
        return None


def shipped_depth() -> dict | None:
    """The depth page's shipped sweep, analysed; None while it is missing or cannot be read."""
    try:
        from explorer.experiments import depth

        shipped = depth.load_shipped()
        if not shipped:
            return None
        swept, _ = depth.available(depth.DepthConfig.from_dict(shipped["config"]), shipped)
        return depth.analyse(swept)
    except Exception:  # noqa: BLE001 - a sweep that another page is still building must not break the workbook
        return None


def measurements(
    n: int,
    m: int,
    budget: float,
    pair: str | None,
    ablation: dict | None = None,
    parameters: dict[str, int] | None = None,
    crossover: dict | None = None,
    depth: dict | None = None,
    timing: dict | None = None,
) -> dict[str, Measured]:
    """Every measured cell the given results support; a cell without results stays 'not measured yet'."""
    out = dict(four_steps_cells(ablation, parameters)) if ablation else {}
    if crossover is not None and pair:
        out.update(crossover_cells(crossover, pair, budget))
    out.update(cache_cell(n, m, CACHE_DEPTH, timing))
    if depth is not None:
        out.update(depth_cells(depth))
    return out
