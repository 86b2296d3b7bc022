"""`python -m explorer lengths`: the toy length-asymmetry experiment (slides 56-58) and its statistics.

`--preset main` trains every arm (decoder-only; encoder-decoder with the same parameters; encoder-decoder with
the same FLOPs per example) at 20->4, 12->12 and 4->20 tokens with 6 seeds and writes `data/lengths/main.json`,
the file the page ships with (with `--save`). `--preset matched` (the two extreme ratios with symbol
counts that match the tasks' difficulty, 8 seeds, 300 steps) and `--preset split-vocab` (the same with target
symbols of their own) write `data/lengths/<preset>.json`. `--preset quick` is a small run for tests.
`--ratios`, `--seeds` and `--steps` override the preset, e.g. `--preset main --ratios 20:4 --seeds 1
--steps 100` reruns a slice of the shipped run (and writes nothing). `--from-shipped` trains nothing and
analyses the preset's shipped file. `--metric final` fills `rows` with the held-out loss at the last step
instead of the loss averaged over the run; the tests below always cover both metrics.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from explorer import shipped
from explorer.experiments import lengths as ln
from explorer.formatting import p_text
from explorer.progress import SILENT, Printed
from explorer.lab import options

KEYS = """\
--json keys: config, arms (the matched models), metric, metric_text, rows (per ratio and matching for --metric:
both families' losses per seed, the gap ln(encdec/decoder) per seed, `p` the exact sign-flip p over seeds,
`holm_p`), per_ratio, trends, design, records (the trained models), trained, wall_seconds, source.
  per_ratio: one entry per ratio x matching x metric: {lx, ly, matching, metric, n_seeds, gap_mean (mean of
    ln(encdec/decoder) over seeds; < 0 = encoder-decoder lower), gap_percent, encdec_lower (seeds where it is),
    p (exact sign-flip over seeds), holm_p (Holm over every per_ratio entry)}.
  trends: per matching x metric, the gap against log2(Lx/Ly) with the seeds or the ratios as units:
    {matching, metric, n_seeds, slopes (one least-squares slope per seed), slope_mean, negative (seeds with a
    negative slope, the FLAN explanation's direction), seed_p (exact sign-flip over the slopes),
    seed_smallest_p, seed_holm_p; n_ratios,
    ratio_gaps (mean gap per ratio), ratio_p (exact permutation over the ratios' order), ratio_smallest_p
    (the lowest ratio_p the ratios allow), ratio_holm_p}.
  design: {n_seeds, n_ratios, alpha, ratio_tests, ratio_smallest_p, ratio_smallest_holm_p, trend_tests,
    trend_seed_smallest_holm_p, trend_ratio_smallest_p, difficulty (per metric: decoder-only loss per ratio
    and `span`, the hardest ratio's loss over the easiest's)}."""


def _ratios(text: str) -> tuple[tuple[int, int], ...]:
    try:
        pairs = tuple(tuple(int(v) for v in item.split(":")) for item in text.split(",") if item.strip())
    except ValueError:
        pairs = ()
    if not pairs or any(len(p) != 2 for p in pairs):
        raise argparse.ArgumentTypeError(f"expected Lx:Ly pairs separated by commas, e.g. 20:4,4:20; got {text!r}")
    return pairs


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser(
        "lengths",
        help="length asymmetry: encoder-decoder vs decoder-only at several Lx:Ly ratios",
        description=__doc__,
        epilog=KEYS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--preset", choices=sorted(ln.PRESETS), default="quick")
    p.add_argument("--ratios", type=_ratios, default=None, help="input:target lengths, e.g. 20:4,12:12,4:20")
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (seeds 0 .. n-1)")
    p.add_argument("--steps", type=int, default=None, help="optimizer steps per model (a multiple of eval_every)")
    p.add_argument("--metric", choices=sorted(ln.METRICS), default="curve", help="the loss `rows` compares")
    p.add_argument(
        "--from-shipped",
        action="store_true",
        help="train nothing: the tests on the preset's shipped results (data/lengths/<preset>.json)",
    )
    p.add_argument("--progress", action="store_true", help="print one line per model on stderr")
    options.add(p, f"data/lengths/<preset>.json (presets {', '.join(ln.SHIPPED_PRESETS)})")
    p.set_defaults(handler=run)
    return [p]


def _per_ratio(claims: dict) -> list[dict]:
    return [
        {
            "lx": r["lx"],
            "ly": r["ly"],
            "matching": r["matching"],
            "metric": r["metric"],
            "n_seeds": r["n"],
            "gap_mean": r["gap_mean"],
            "gap_percent": ln.percent(r["gap_mean"]),
            "encdec_lower": r["encdec_lower"],
            "p": r["p"],
            "holm_p": r["holm_p"],
        }
        for a in claims["by_metric"].values()
        for r in a["rows"]
    ]


def _text(out: dict) -> str:
    d = out["design"]
    lines = [
        f"gap = ln(encoder-decoder / decoder-only loss) as a % change, negative = encoder-decoder lower; "
        f"{d['n_seeds']} seeds, exact sign-flip p (lowest possible {p_text(d['ratio_smallest_p'])}), "
        f"Holm over {d['ratio_tests']} tests (lowest possible {p_text(d['ratio_smallest_holm_p'])})",
        f"{'metric':>6} {'Lx->Ly':>7} {'matching':>10} {'gap':>8} {'lower':>6} {'p':>6} {'Holm p':>7}",
    ]
    for r in out["per_ratio"]:
        lines.append(
            f"{r['metric']:>6} {r['lx']:>3}->{r['ly']:<3} {r['matching']:>10} {r['gap_percent']:>+7.1f}% "
            f"{r['encdec_lower']:>2} of {r['n_seeds']} {p_text(r['p']):>6} {p_text(r['holm_p']):>7}"
        )
    for t in out["trends"]:
        lines.append(
            f"trend {t['metric']}/{t['matching']}: per-seed slope {ln.percent(t['slope_mean']):+.1f}% per "
            f"doubling of Lx/Ly, {t['negative']} of {t['n_seeds']} negative, p {p_text(t['seed_p'])} "
            f"(Holm {p_text(t['seed_holm_p'])}); over {t['n_ratios']} ratios p {p_text(t['ratio_p'])} "
            f"(lowest possible {p_text(t['ratio_smallest_p'])})"
        )
    for metric, spread in d["difficulty"].items():
        lines.append(f"decoder-only loss ({metric}) spans {spread['span']:.1f}x across the ratios")
    lines.append(
        f"{out['trained']} models trained in {out['wall_seconds']:.0f} s"
        + (f"; saved to {out['saved_to']}" if out.get("saved_to") else "")
        + (f"; analysed {out['source']}" if out.get("source") else "")
    )
    return "\n".join(lines)


def _swept(args: argparse.Namespace, cfg: ln.ToyConfig) -> dict:
    """The run to analyse: the shipped file (--from-shipped) or a fresh training of `cfg`."""
    if not args.from_shipped:
        return ln.run(cfg, use_cache=False, progress=Printed() if args.progress else SILENT)  # fresh: shipped data
    if any(v is not None for v in (args.ratios, args.seeds, args.steps)):
        raise ValueError("--from-shipped analyses the shipped file as it is; drop --ratios, --seeds and --steps")
    record = ln.load_shipped(args.preset)
    if record is None:
        raise ValueError(
            f"{ln.shipped_path(args.preset)} is missing or unreadable; presets that ship results: "
            f"{', '.join(ln.SHIPPED_PRESETS)}"
        )
    return {**record, "trained": 0}


def run(args: argparse.Namespace) -> dict:
    cfg = ln.PRESETS[args.preset]
    overrides = {
        "ratios": args.ratios,
        "steps": args.steps,
        "seeds": tuple(range(args.seeds)) if args.seeds is not None else None,
    }
    cfg = replace(cfg, **{k: v for k, v in overrides.items() if v is not None}, recipe=args.recipe)
    start = time.perf_counter()
    swept = _swept(args, cfg)
    wall = time.perf_counter() - start
    claims = ln.claims(swept)
    analysis = claims["by_metric"][args.metric]
    out = {
        "config": swept["config"],
        "arms": ln.arm_table(ln.ToyConfig.from_dict(swept["config"])),
        "metric": args.metric,
        "metric_text": analysis["metric_text"],
        "rows": analysis["rows"],
        "per_ratio": _per_ratio(claims),
        "trends": claims["trends"],
        "design": claims["design"],
        "trained": swept["trained"],
        "wall_seconds": wall,
        "records": swept["records"],
    }
    if args.from_shipped:
        out["source"] = str(ln.shipped_path(args.preset))
    elif args.preset in ln.SHIPPED_PRESETS and replace(cfg, recipe="old") == ln.PRESETS[args.preset] and args.save:
        swept["wall_seconds"] = wall
        out["saved_to"] = str(shipped.write(ln.shipped_path(options.saved_name(args, args.preset)), swept))
    out["_text"] = _text
    return out
