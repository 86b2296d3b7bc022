"""`python -m explorer crossover`: train the inductive-bias sweep (every window at several widths and learning
rates) and print each window's compute-optimal frontier, the crossovers between frontiers and b*(r), each b*
entry with its `confidence` (the share of paired seed resamples, frontiers rebuilt, that keep it on top).

`--preset main` is the full recipe behind the page's default view and writes `data/crossover/main.json`
(with `--save`); `--preset quick` is the small sweep the page trains live. `--windows`, `--widths`,
`--seeds`, `--steps` and `--long-share` override the preset, e.g. `--preset main --windows 8 --steps 20`
reruns a slice (and writes nothing).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from explorer import shipped
from explorer.experiments.crossover import MIN_LEAD, PRESETS, analyse, shipped_path, sweep
from explorer.formatting import sci
from explorer.recall import WEIGHTS, mix
from explorer.lab import device as lab_device
from explorer.lab import options


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(t) for t in text.split(",") if t.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser(
        "crossover",
        help="inductive-bias crossover: frontiers of local-attention windows over model sizes vs training FLOPs",
    )
    p.add_argument("--preset", choices=sorted(PRESETS), default="quick")
    p.add_argument("--windows", type=_ints, default=None, help="comma-separated attention windows, e.g. 2,4,48")
    p.add_argument("--widths", type=_ints, default=None, help="comma-separated model widths, e.g. 16,32,64")
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (seeds 0 .. n-1)")
    p.add_argument("--steps", type=int, default=None, help="optimizer steps per model")
    p.add_argument(
        "--long-share",
        type=float,
        default=None,
        help="share of the score on the longer lags (default: the recipe's 0.6)",
    )
    p.add_argument("--sequential", action="store_true", help="train the seeds one by one (the CPU's default)")
    p.add_argument(
        "--batched",
        action="store_true",
        help="train the seeds as one vmapped model (the default only where measured faster: cuda)",
    )
    options.add(p, "data/crossover/main.json (--preset main)")
    p.set_defaults(handler=run)
    return [p]


def _text(result: dict) -> str:
    lines = [
        f"windows {result['windows']}, widths {result['widths']}, lrs {result['lrs']}, seeds {result['seeds']}, "
        f"{result['seconds']:.1f} s" + (f", saved to {result['saved_to']}" if result.get("saved_to") else "")
    ]
    lines.append(f"{'flops':>9} " + " ".join(f"{'w=' + str(w):>10}" for w in result["windows"]) + "   b*")
    for i, row in enumerate(result["b_star"]):
        points = [result["accuracy"][str(w)][i] for w in result["windows"]]
        cells = " ".join(f"{p['accuracy']:>6.3f} d{p['width']:<2}" for p in points)
        best = (
            ("" if row["clear"] else "none: ")
            + f"w={row['window']}"
            + ("" if row["confidence"] is None else f" {row['confidence']:.0%}")
        )
        lines.append(f"{row['flops']:>9.3g} {cells}   {best}")
    boot = result["bootstrap"]
    lines.append(
        f"accuracy: the frontier (best seed mean over sizes and lrs, dN = its width); b*: the window on top, "
        f"with the share of {boot['resamples']} paired resamples of the {boot['seeds']} seeds "
        f"({boot['distinct']} distinct) that keep it there; 'none' = no clear winner (lead < {MIN_LEAD} "
        f"or share < {boot['threshold']:.0%})"
    )
    lines.append("crossovers of the frontiers (less structure overtakes more), seed range; per learning rate:")
    for c in result["crossovers"]:
        where = (
            f"{sci(c['flops_mean'])} FLOPs ({sci(c['flops_min'])}-{sci(c['flops_max'])})" if c["flops_mean"] else "none"
        )
        per_lr = ", ".join(
            f"lr {lr}: " + (sci(x["flops_of_mean_curves"]) if x["flops_of_mean_curves"] else "none")
            for lr, x in c.get("by_lr", {}).items()
        )
        lines.append(
            f"  w={c['more_structure']:>2} -> w={c['less_structure']:>2}: {where} "
            f"({c['seeds_with_crossover']}/{c['seeds']} seeds){'; ' + per_lr if per_lr else ''}"
        )
    return "\n".join(lines)


def _points(flops, values, widths, key: str) -> list[dict]:
    return [{"flops": float(f), key: float(v), "width": d} for f, v, d in zip(flops, values, widths)]


def report(sweep_result: dict, weights: tuple) -> dict:
    """The CLI's JSON: per window its held-out-loss frontier (`frontier`) and its accuracy frontier
    (`accuracy`, what crossovers and b* read), crossovers, b*(r) with its confidence, and the bootstrap
    behind it (per window, the share of seed resamples on top at each point of the FLOP grid)."""
    a = analyse(sweep_result, weights)
    flops = a["flops"]
    return {
        "windows": a["windows"],
        "widths": a["widths"],
        "lrs": a["lrs"],
        "seeds": a["seeds"],
        "weights": list(weights),
        "lags": a["lags"],
        "ceilings": {str(w): c for w, c in a["ceilings"].items()},
        "frontier": {str(w): _points(flops, f["loss"], f["width"], "loss") for w, f in a["loss_frontier"].items()},
        "accuracy": {str(w): _points(flops, c["mean"], c["width"], "accuracy") for w, c in a["curves"].items()},
        "crossovers": a["crossovers"],
        "b_star": a["b_star"],
        "bootstrap": {
            **a["bootstrap"],
            "top_share": None
            if a["top_share"] is None
            else {str(w): [float(v) for v in share] for w, share in a["top_share"].items()},
        },
        "stopped": sweep_result["stopped"],
        "seconds": sweep_result["seconds"],
        "config": sweep_result["config"],
        "runs": sweep_result["runs"],
    }


def run(args: argparse.Namespace) -> dict:
    options.needs_old(args, "crossover")
    cfg = PRESETS[args.preset]
    overrides = {
        "windows": args.windows,
        "widths": args.widths,
        "steps": args.steps,
        "seeds": tuple(range(args.seeds)) if args.seeds is not None else None,
    }
    # seeds batched with vmap only where measured faster on this device (`explorer.lab.device.BATCH_SEEDS`)
    batched = args.batched or (not args.sequential and lab_device.batch_seeds())
    cfg = replace(cfg, **{k: v for k, v in overrides.items() if v is not None}, batched=batched)
    weights = WEIGHTS if args.long_share is None else mix(args.long_share, len(cfg.lags))
    swept = shipped.timed(lambda: sweep(cfg, use_cache=False))  # the CLI always trains: it makes shipped data
    out = report(swept, weights)
    out["wall_seconds"] = swept["wall_seconds"]
    main = PRESETS["main"]
    if args.preset == "main" and replace(cfg, batched=main.batched) == main and args.save:  # the shipped data
        out["saved_to"] = str(shipped.write(shipped_path(args.preset), swept))
    out["_text"] = _text
    return out
