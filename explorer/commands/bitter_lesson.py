"""`python -m explorer bitter-lesson`: a hand-built method against the general Transformer (slides 8-9).

`--preset quick` trains the first case (a "not" first flips the verdict) with 3 seeds: the page's on-demand
run. `--preset main` trains both cases (the second: the verdict depends on the counts alone) with 8 seeds and
writes `data/bitter_lesson/main.json` (with `--save`). `--cases`, `--seeds` and `--steps`
override the preset (and then nothing is written).
The JSON holds `config`; `curves` (per method, every checkpoint of every seed as {data, flops, loss, accuracy,
seed}) and `crossover` ({flops, data, their ranges over seeds, seeds_crossed, seeds}, or null when the mean
curves do not cross) of the first case; `cases` (per case: curves, crossover, tests, floor); `stopped` and
`wall_seconds`.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from explorer import shipped
from explorer.experiments import bitter_lesson as bl
from explorer.formatting import p_text, sci
from explorer.progress import Printed
from explorer.lab import options

SHIPPED_PRESETS = ("main",)


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser("bitter-lesson", help="hand-built features vs the general Transformer, over data and compute")
    p.add_argument("--preset", choices=sorted(bl.PRESETS), default="quick")
    p.add_argument(
        "--cases",
        type=lambda text: tuple(c for c in text.split(",") if c),
        default=None,
        help=f"comma-separated, among {','.join(bl.CASES)}",
    )
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (seeds 0 .. n-1)")
    p.add_argument("--steps", type=int, default=None, help="optimizer steps per model")
    options.add(p, "data/bitter_lesson/main.json (--preset main)")
    p.set_defaults(handler=run)
    return [p]


def report(result: dict) -> dict:
    """The CLI's JSON from a run's records: per case its curves, crossover and tests; the first case on top."""
    analysed = bl.analyse(result)
    cases = {
        c: {
            "curves": bl.curves(result, c),
            "crossover": a["crossover"],
            "tests": a["tests"],
            "floor": a["counts_floor"],
        }
        for c, a in analysed.items()
    }
    first = cases.get(result["config"]["cases"][0], {"curves": {}, "crossover": None})
    return {
        "config": result["config"],
        "curves": first["curves"],
        "crossover": first["crossover"],
        "cases": cases,
        "stopped": result["stopped"],
    }


def _text(out: dict) -> str:
    lines = [f"{out['wall_seconds']:.0f} s wall" + (f", saved to {out['saved_to']}" if out.get("saved_to") else "")]
    for case, c in out["cases"].items():
        x = c["crossover"]
        where = (
            f"{sci(x['flops'])} FLOPs, {x['data']:,.0f} examples ({x['seeds_crossed']} of {x['seeds']} seeds)"
            if x
            else "none"
        )
        lines.append(f"{case}: crossover of the mean curves {where}; floor on counts {c['floor']['loss']:.3f} nats")
        per_seed = (x or {}).get("data_per_seed")
        if per_seed:
            interval = (
                f", 95% interval {per_seed['low']:,.0f}-{per_seed['high']:,.0f}" if per_seed["low"] is not None else ""
            )
            lines.append(
                f"  per seed: geometric mean {per_seed['geomean']:,.0f} examples{interval} "
                f"({per_seed['seeds']} seeds crossed)"
            )
        for name in ("small", "large"):
            t = c["tests"][name]
            lines.append(
                f"  at {t['data']:,.0f} examples: Transformer - hand-built loss {t['mean_diff']:+.3f} "
                f"[{t['low']:+.3f}, {t['high']:+.3f}], exact p {p_text(t['p'])}, Holm {p_text(t['holm_p'])}"
            )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict:
    preset = bl.PRESETS[args.preset]
    overrides = {
        "cases": args.cases,
        "steps": args.steps,
        "seeds": tuple(range(args.seeds)) if args.seeds is not None else None,
    }
    cfg = replace(preset, **{k: v for k, v in overrides.items() if v is not None}, recipe=args.recipe)
    result = shipped.timed(lambda: bl.run(cfg, progress=Printed()))
    out = {
        **report(result),
        "wall_seconds": result["wall_seconds"],
        "recipe": result["recipe"],
        "device": result["device"],
    }
    if args.preset in SHIPPED_PRESETS and replace(cfg, recipe="old") == preset and args.save:
        out["saved_to"] = str(shipped.write(bl.shipped_path(options.saved_name(args, args.preset)), result))
    out["_text"] = _text
    return out
