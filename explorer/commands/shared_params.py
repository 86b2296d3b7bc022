"""`python -m explorer shared-params`: separate against shared encoder/decoder parameters (slides 53-55).

`--preset quick` (2 seeds, 150 steps: what the page runs on demand) prints the result; `--preset main` (8 paired
seeds, 300 steps) also writes data/shared_params/main.json, the page's shipped result. `--seeds N` and `--steps N`
override the preset (and then nothing is written). The JSON holds `rows` (per task and variant: `params`, `loss`
the seed mean of the held-out loss, `loss_low` / `loss_high` the lowest and highest seed, plus seeds, accuracy,
width, d_ff, flops), `tests` (separate minus shared per task, and the translation-minus-one-vocabulary contrast:
exact sign-flip p, Holm-corrected, equivalence p within `margin`), `runs` (every run with its curve),
`wall_seconds` and `load_average`.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from explorer import shipped
from explorer.experiments import shared_params as sp
from explorer.formatting import p_text
from explorer.progress import Printed
from explorer.lab import options


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser("shared-params", help="separate vs shared encoder/decoder parameters, matched (slides 53-55)")
    p.add_argument(
        "--preset",
        choices=sorted(sp.PRESETS),
        default="quick",
        help="quick: 2 seeds, 150 steps; main: 8 seeds, 300 steps, writes the shipped result",
    )
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (seeds 0 .. n-1)")
    p.add_argument("--steps", type=int, default=None, help="optimizer steps per run")
    p.add_argument("--out", type=Path, default=None, help="where --preset main writes (default: its shipped file)")
    options.add(p, "data/shared_params/main.json (--preset main)")
    p.set_defaults(handler=run)
    return [p]


def _text(result: dict) -> str:
    lines = [
        f"{len(result['runs'])} runs, {result['wall_seconds']:.0f} s wall"
        + (f", saved to {result['saved_to']}" if result.get("saved_to") else ""),
        f"{'task':<15} {'variant':<9} {'params':>8} {'width':>5} {'loss (seed range)':>26}",
    ]
    for r in result["rows"]:
        lines.append(
            f"{r['task']:<15} {r['variant']:<9} {r['params']:>8,} {r['width']:>5} "
            f"{r['loss']:>8.4f} ({r['loss_low']:.4f}-{r['loss_high']:.4f})"
        )
    for t in result["tests"]:
        lines.append(
            f"{t['test']}: {t['what']} {t['mean_diff']:+.4f}, exact paired p {p_text(t['p'])}, Holm "
            f"{p_text(t['holm_p'])}, equivalence (±{result['margin']}) p {p_text(t['tost_p'])} "
            f"({t['n']} seeds)"
        )
    for t in result.get("flop_matched", []):
        lines.append(
            f"{t['test']} at equal training FLOPs (shared at step {t['shared_step']}): separate minus shared "
            f"{t['mean_diff']:+.4f}, {t['n'] - t['positive']} of {t['n']} seeds lower, exact p "
            f"{p_text(t['p'])}, Holm {p_text(t['holm_p'])}"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict:
    preset = sp.PRESETS[args.preset]
    overrides = {"steps": args.steps, "seeds": tuple(range(args.seeds)) if args.seeds is not None else None}
    cfg = replace(preset, **{k: v for k, v in overrides.items() if v is not None}, recipe=args.recipe)
    record = shipped.timed(lambda: sp.run(cfg, Printed()))
    path = options.target(args, sp.shipped_path(options.saved_name(args, "main")), args.out)
    if args.preset == "main" and replace(cfg, recipe="old") == preset and record["complete"] and path is not None:
        record["saved_to"] = str(shipped.write(path, record))
    return {**record, "_text": _text}
