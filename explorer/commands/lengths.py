"""`python -m explorer lengths`: the toy length-asymmetry experiment (slides 56-58) and its statistics.

`--preset main` trains every arm (decoder-only; encoder-decoder with the same parameters; encoder-decoder with
the same FLOPs per example) at 20->4, 12->12 and 4->20 tokens with 6 seeds and writes `data/lengths/main.json`,
the file the page ships with (`--no-save` to skip). `--preset quick` is a small run for tests.
`--ratios`, `--seeds` and `--steps` override the preset, e.g. `--preset main --ratios 20:4 --seeds 1
--steps 100` reruns a slice of the shipped run (and writes nothing). `--metric final` tests the held-out
loss at the last step instead of the loss averaged over the run.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from explorer import shipped
from explorer.experiments import lengths as ln
from explorer.progress import SILENT, Printed


def _ratios(text: str) -> tuple[tuple[int, int], ...]:
    try:
        pairs = tuple(tuple(int(v) for v in item.split(":")) for item in text.split(",") if item.strip())
    except ValueError:
        pairs = ()
    if not pairs or any(len(p) != 2 for p in pairs):
        raise argparse.ArgumentTypeError(f"expected Lx:Ly pairs separated by commas, e.g. 20:4,4:20; got {text!r}")
    return pairs


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser("lengths", help="length asymmetry: encoder-decoder vs decoder-only at several Lx:Ly ratios")
    p.add_argument("--preset", choices=sorted(ln.PRESETS), default="quick")
    p.add_argument("--ratios", type=_ratios, default=None, help="input:target lengths, e.g. 20:4,12:12,4:20")
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (seeds 0 .. n-1)")
    p.add_argument("--steps", type=int, default=None, help="optimizer steps per model (a multiple of eval_every)")
    p.add_argument("--metric", choices=sorted(ln.METRICS), default="curve", help="the loss the tests compare")
    p.add_argument("--progress", action="store_true", help="print one line per model on stderr")
    p.add_argument("--no-save", action="store_true", help="main preset: do not write data/lengths/main.json")
    p.set_defaults(handler=run)
    return [p]


def _text(out: dict) -> str:
    lines = [f"{out['metric_text']}; gap = encoder-decoder vs decoder-only loss, negative = encoder-decoder lower",
             f"{'Lx->Ly':>7} {'matching':>10} {'decoder-only':>16} {'encoder-decoder':>16} {'gap':>8} {'p':>6} "
             f"{'MDE':>6} seeds"]
    for r in out["rows"]:
        lines.append(f"{r['lx']:>3}->{r['ly']:<3} {r['matching']:>10} "
                     f"{r['decoder_mean']:>8.4f} ± {r['decoder_sd']:<5.3f} "
                     f"{r['encdec_mean']:>8.4f} ± {r['encdec_sd']:<5.3f} {ln.percent(r['gap_mean']):>+7.1f}% "
                     f"{r['p']:>6.3f} {ln.percent(r['mde']):>5.1f}% {len(r['seeds'])}")
    for matching, t in out["trend"].items():
        lines.append(f"length-ratio effect ({matching}): slope {t['slope']:+.4f} per doubling of Lx/Ly, "
                     f"p = {t['p']:.3f}, smallest detectable {t['mde']:.4f}")
    lines.append(f"{out['trained']} models trained in {out['wall_seconds']:.0f} s"
                 + (f"; saved to {out['saved_to']}" if out.get("saved_to") else ""))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict:
    cfg = ln.PRESETS[args.preset]
    overrides = {"ratios": args.ratios, "steps": args.steps,
                 "seeds": tuple(range(args.seeds)) if args.seeds is not None else None}
    cfg = replace(cfg, **{k: v for k, v in overrides.items() if v is not None})
    start = time.perf_counter()
    swept = ln.run(cfg, use_cache=False, progress=Printed() if args.progress else SILENT)  # the CLI always trains: it produces shipped data
    wall = time.perf_counter() - start
    analysis = ln.analyse(swept, args.metric)
    out = {"config": cfg.to_dict(), "arms": ln.arm_table(cfg), "metric": args.metric,
           "metric_text": analysis["metric_text"], "rows": analysis["rows"], "trend": analysis["trend"],
           "trained": swept["trained"], "wall_seconds": wall, "records": swept["records"]}
    if args.preset == "main" and cfg == ln.PRESETS["main"] and not args.no_save:
        swept["wall_seconds"] = wall
        out["saved_to"] = str(shipped.write(ln.shipped_path("main"), swept))
    out["_text"] = _text
    return out
