"""`python -m explorer ladder CLAIM`: does a toy's verdict hold at scale? (issue 37)

`--preset quick` (under a minute on two cores, for the page's live view) or `--preset main` (the shipped ladder,
16x in parameters above today's largest model of the claim); `--from-shipped` prints the shipped ladder without
training (with `--save`, it writes the shipped ladder again with its summaries, verdict and recipe derived from
its stored per-seed effects); `--top N` runs only the top N rungs (an accelerator's share); `--save` merges the
rungs into data/ladder/CLAIM.json, each keeping the device it ran on.
The JSON holds `claim`, `rungs` ([{params, flops, effect, low, high, seeds, same_sign, device}, plus label,
seconds and per_seed]), `verdict` (holds, flips, vanishes or unclear: `explorer.ladder.verdict`), then `effect`,
`prediction`, `growth` and `rule` in words.
"""

from __future__ import annotations

import argparse

from explorer.formatting import si
from explorer.lab.device import CHOICES
from explorer.ladder import registry
from explorer.ladder import run as ladder


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser("ladder", help="a scale claim measured at sizes 16x apart, with a verdict")
    p.add_argument("claim", choices=registry.NAMES)
    p.add_argument("--preset", choices=registry.PRESETS, default="quick")
    p.add_argument("--device", choices=CHOICES, default="cpu", help="where to train (default cpu)")
    p.add_argument("--from-shipped", action="store_true", help="print the shipped ladder; train nothing")
    p.add_argument("--top", type=int, default=None, help="run only the top N rungs of the preset")
    p.add_argument("--save", action="store_true", help="merge the rungs into data/ladder/CLAIM.json (main preset)")
    p.set_defaults(handler=run)
    return [p]


def _text(result: dict) -> str:
    lines = [
        f"{result['claim']}: {result['verdict']}  (effect: {result['effect']})",
        f"{'rung':>8} {'params':>8} {'FLOPs':>8} {'effect':>9} {'seed range':>21} {'same sign':>9} device",
    ]
    for r in result["rungs"]:
        lines.append(
            f"{r['label']:>8} {si(r['params']):>8} {si(r['flops']):>8} {r['effect']:>+9.4f} "
            f"[{r['low']:+.4f}, {r['high']:+.4f}] {r['same_sign']:>4}/{r['seeds']:<4} {r['device']}"
        )
    lines.append(f"lecture: {result['prediction']}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict:
    if args.from_shipped:
        found = ladder.load_shipped(args.claim)
        if found is None:
            raise ValueError(
                f"no shipped ladder for {args.claim} yet: run `python -m explorer ladder {args.claim} "
                "--preset main --save`"
            )
        if args.save:  # the summaries and the record's words again from the stored seeds; nothing trains
            again = ladder.merge(None, found)
            found = {**again, "saved_to": str(ladder.save(again))}
        return {**found, "_text": _text}
    if args.top is not None and args.top < 1:
        raise ValueError(f"--top must be >= 1, got {args.top}")
    if args.save and args.preset != "main":
        raise ValueError("--save ships the main preset only")
    rungs = slice(-args.top, None) if args.top else slice(None)
    out = ladder.run(args.claim, args.preset, args.device, use_cache=True, rungs=rungs)
    if args.save:
        merged = ladder.merge(ladder.load_shipped(args.claim), out)
        out = {**merged, "wall_seconds": out["wall_seconds"], "saved_to": str(ladder.save(merged))}
    return {**out, "_text": _text}
