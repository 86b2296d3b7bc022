"""`python -m explorer reproduce [--quick] [--only NAME ...]`: rerun every shipped result and say if it agrees.

Prints `{"environment": {...}, "results": [{"name", "tier", "agrees", "detail"}]}` with `--json`; exits 1
when any result disagrees. `--quick` reruns a slice of each (about a minute in all, what `make test`
checks); without it every result is retrained whole (hours on 2 cores: `make test-repro`).
"""

from __future__ import annotations

import argparse

from explorer import environment
from explorer.reproduce import reproduce


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser(
        "reproduce", help="rerun the shipped results: exact where the environment matches, else within the seed spread"
    )
    p.add_argument("--quick", action="store_true", help="rerun a slice of each result (seconds each)")
    p.add_argument("--only", nargs="+", default=None, metavar="NAME", help="only these results, e.g. depth/main")
    p.set_defaults(handler=run)
    return [p]


def _text(result: dict) -> str:
    lines = [f"environment: {environment.describe(result['environment'])}"]
    for r in result["results"]:
        lines.append(f"{'agrees   ' if r['agrees'] else 'DISAGREES'} {r['tier']:<9} {r['name']}")
        lines.extend(f"    {part}" for part in r["detail"].split("; "))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict:
    out = reproduce(quick=args.quick, names=args.only)
    return {**out, "_text": _text, "_exit": 0 if all(r["agrees"] for r in out["results"]) else 1}
