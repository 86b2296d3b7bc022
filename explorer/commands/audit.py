"""`python -m explorer audit`: the bias-audit workbook of slide 67, pre-filled and measured, as a file.

Prints the default workbook with every measured cell computed from the shipped results (the same cells the
page shows at the same controls), and the decision rule for a budget: Markdown by default, or `--format csv`
or `--format json` (a file the page imports); `--json` prints the whole result as one JSON object.
"""

from __future__ import annotations

import argparse
import json

from explorer import audit


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser("audit", help="the bias-audit workbook (slide 67): export the pre-filled, measured workbook")
    p.add_argument("--format", choices=("markdown", "csv", "json"), default="markdown", help="what to print")
    p.add_argument("--n", type=int, default=48, help="chat history tokens for the cache-cost cell")
    p.add_argument("--m", type=int, default=8, help="new message tokens for the cache-cost cell")
    p.add_argument(
        "--budget", type=float, default=audit.DEFAULT_BUDGET_LOG, help="deployment budget, log10 of training FLOPs"
    )
    p.add_argument("--pair", default="2-48", help="window pair 'more-less' of the inductive-bias run")
    p.set_defaults(handler=run)
    return [p]


def run(args: argparse.Namespace) -> dict:
    if args.n < 1 or args.m < 1:
        raise ValueError("--n and --m must be at least 1")
    ablation, parameters = audit.shipped_ablation()
    crossover = audit.shipped_crossover()
    if crossover is not None and args.pair not in audit.crossover_pairs(crossover):
        raise ValueError(f"--pair must be one of {', '.join(audit.crossover_pairs(crossover))}")
    budget = 10**args.budget
    measured = audit.measurements(
        args.n, args.m, budget, args.pair, ablation, parameters, crossover, audit.shipped_depth()
    )
    workbook = audit.default_workbook()
    decision = None
    if crossover is not None:
        x = audit.crossover_input(crossover, args.pair)
        decision = audit.decide(budget, x["crossover"], x["lo"], x["hi"], x["range"], x["more"], x["less"])
    controls = {"n": args.n, "m": args.m, "budget": args.budget, "pair": args.pair}
    exported = {
        "markdown": lambda: audit.to_markdown(workbook, measured, decision, f"Budget 10^{args.budget:g}."),
        "csv": lambda: audit.to_csv(workbook, measured),
        "json": lambda: audit.to_json(workbook, measured, controls, decision),
    }[args.format]()
    return {
        "format": args.format,
        "controls": controls,
        "rows": len(workbook),
        "measured": sorted(measured),
        "workbook": json.loads(audit.to_json(workbook, measured, controls, decision)),
        "text": exported,
        "_text": lambda result: result["text"].rstrip(),
    }
