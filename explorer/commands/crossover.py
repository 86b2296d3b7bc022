"""`python -m explorer crossover`: train the inductive-bias sweep and print its crossovers and b*(r), each b*
entry with its `confidence` (the share of paired seed resamples that keep it on top).

`--preset main` is the full recipe behind the page's default view and writes `data/crossover/main.json`
(`--no-save` to skip); `--preset main_default_init` is the same sweep with the model's default
initialisation and writes `data/crossover/main_default_init.json`; `--preset quick` is a small sweep for
tests. `--windows`, `--seeds`, `--steps` and `--long-share` override the preset, e.g.
`--preset main --windows 8 --steps 20` reruns a slice (and writes nothing).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from explorer import shipped
from explorer.experiments.crossover import MIN_LEAD, PRESETS, analyse, shipped_path, sweep
from explorer.recall import WEIGHTS, mix


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(t) for t in text.split(",") if t.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser("crossover", help="inductive-bias crossover: local-attention windows vs training FLOPs")
    p.add_argument("--preset", choices=sorted(PRESETS), default="quick")
    p.add_argument("--windows", type=_ints, default=None, help="comma-separated attention windows, e.g. 2,4,48")
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (seeds 0 .. n-1)")
    p.add_argument("--steps", type=int, default=None, help="optimizer steps per model")
    p.add_argument("--long-share", type=float, default=None,
                   help="share of the score on the longer lags (default: the recipe's 0.6)")
    p.add_argument("--sequential", action="store_true", help="train the seeds one by one instead of batched")
    p.add_argument("--no-save", action="store_true", help="main presets: do not write data/crossover/<preset>.json")
    p.set_defaults(handler=run)
    return [p]


def _text(result: dict) -> str:
    lines = [f"windows {result['windows']}, seeds {result['seeds']}, {result['seconds']:.1f} s"
             + (f", saved to {result['saved_to']}" if result.get("saved_to") else "")]
    lines.append(f"{'flops':>9} " + " ".join(f"{'w=' + str(w):>7}" for w in result["windows"]) + "   b*")
    best = {row["flops"]: ("" if row["clear"] else "none: ") + f"w={row['window']}"
            + ("" if row["confidence"] is None else f" {row['confidence']:.0%}") for row in result["b_star"]}
    for row in result["checkpoints"]:
        accs = " ".join(f"{row['accuracy'][str(w)]:>7.3f}" for w in result["windows"])
        lines.append(f"{row['flops']:>9.3g} {accs}   {best[row['flops']]}")
    boot = result["bootstrap"]
    lines.append(f"b*: best seed mean, with the share of {boot['resamples']} paired resamples of the {boot['seeds']} "
                 f"seeds ({boot['distinct']} distinct) that keep it on top; 'none' = no clear winner "
                 f"(lead < {MIN_LEAD} or share < {boot['threshold']:.0%})")
    lines.append("crossovers (less structure overtakes more):")
    for c in result["crossovers"]:
        where = f"{c['flops_mean']:.3g} FLOPs" if c["flops_mean"] else "none"
        lines.append(f"  w={c['more_structure']:>2} -> w={c['less_structure']:>2}: {where} "
                     f"({c['seeds_with_crossover']}/{c['seeds']} seeds)")
    return "\n".join(lines)


def report(sweep_result: dict, weights: tuple) -> dict:
    """The CLI's JSON: checkpoints with per-window mean accuracy, crossovers, b*(r) with its confidence, and
    the bootstrap behind it (per window, the share of seed resamples on top at each checkpoint)."""
    a = analyse(sweep_result, weights)
    checkpoints = [{"step": s, "flops": float(f),
                    "accuracy": {str(w): float(a["curves"][w]["mean"][i]) for w in a["windows"]}}
                   for i, (s, f) in enumerate(zip(a["steps"], a["flops"]))]
    return {"windows": a["windows"], "seeds": a["seeds"], "weights": list(weights), "lags": a["lags"],
            "ceilings": {str(w): c for w, c in a["ceilings"].items()}, "flops_per_step": a["flops_per_step"],
            "checkpoints": checkpoints, "crossovers": a["crossovers"], "b_star": a["b_star"],
            "bootstrap": {**a["bootstrap"], "top_share": None if a["top_share"] is None else
                          {str(w): [float(v) for v in share] for w, share in a["top_share"].items()}},
            "stopped": sweep_result["stopped"], "seconds": sweep_result["seconds"],
            "config": sweep_result["config"], "runs": sweep_result["windows"]}


def run(args: argparse.Namespace) -> dict:
    cfg = PRESETS[args.preset]
    overrides = {"windows": args.windows, "steps": args.steps,
                 "seeds": tuple(range(args.seeds)) if args.seeds is not None else None}
    cfg = replace(cfg, **{k: v for k, v in overrides.items() if v is not None}, batched=not args.sequential)
    weights = WEIGHTS if args.long_share is None else mix(args.long_share, len(cfg.lags))
    start = time.perf_counter()
    swept = sweep(cfg, use_cache=False)  # the CLI always trains: it is what produces and checks shipped data
    swept["wall_seconds"] = time.perf_counter() - start
    out = report(swept, weights)
    out["wall_seconds"] = swept["wall_seconds"]
    if args.preset.startswith("main") and cfg == PRESETS[args.preset] and not args.no_save:  # the shipped data
        out["saved_to"] = str(shipped.write(shipped_path(args.preset), swept))
    out["_text"] = _text
    return out

