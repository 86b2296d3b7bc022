"""`python -m explorer four-steps check|ablation`: the four steps of slides 40-51, measured.

  check     train decoder-only briefly, copy its weights into the model at every step, print per step the
            parameter count and max |logit difference| (keys: steps[].step/params/max_abs_logit_diff,
            decoder_only_params)
  ablation  train every variant with several seeds at an equal budget and write the results
            (default: data/four_steps/ablation.json, the file the page ships with)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from explorer.experiments import four_steps as fs
from explorer import shipped
from explorer.progress import Printed
from explorer.tasks import RULES

DEFAULT = fs.AblationSettings()


def _sizes(p: argparse.ArgumentParser, depth: int, width: int, heads: int) -> None:
    p.add_argument("--depth", type=int, default=depth, help="layers per stack")
    p.add_argument("--width", type=int, default=width, help="d_model")
    p.add_argument("--heads", type=int, default=heads)


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    parent = sub.add_parser("four-steps", help="encoder-decoder to decoder-only in four steps (slides 40-55)")
    actions = parent.add_subparsers(dest="action", metavar="action", required=True)

    check = actions.add_parser("check", help="per step: parameters and max |logit difference| to decoder-only")
    _sizes(check, **fs.DEFAULT_SIZES)
    check.add_argument("--train-steps", type=int, default=100, help="training steps of the decoder-only model")
    check.add_argument("--seed", type=int, default=0)
    check.add_argument("--out", type=Path, default=None,
                       help=f"also write the result as JSON (the page ships {fs.CHECK_PATH.relative_to(fs.ROOT)})")
    check.set_defaults(handler=run_check)

    ablation = actions.add_parser("ablation", help="train every variant with several seeds; write the results")
    ablation.add_argument("--task", choices=sorted(RULES), default=DEFAULT.task)
    ablation.add_argument("--length", type=int, default=DEFAULT.length, help="input (and target) tokens")
    ablation.add_argument("--symbols", type=int, default=DEFAULT.n_symbols)
    _sizes(ablation, DEFAULT.depth, DEFAULT.width, DEFAULT.heads)
    ablation.add_argument("--steps", type=int, default=DEFAULT.steps, help="optimizer steps per run")
    ablation.add_argument("--batch-size", type=int, default=DEFAULT.batch_size)
    ablation.add_argument("--lr", type=float, default=DEFAULT.lr)
    ablation.add_argument("--eval-size", type=int, default=DEFAULT.eval_size)
    ablation.add_argument("--eval-every", type=int, default=DEFAULT.eval_every)
    ablation.add_argument("--seeds", type=int, nargs="+", default=list(DEFAULT.seeds))
    ablation.add_argument("--variants", nargs="+", choices=fs.VARIANTS, default=list(fs.VARIANTS),
                          help="steps 0-5 and decoder")
    ablation.add_argument("--out", type=Path, default=fs.ABLATION_PATH, help="where to write the JSON results")
    ablation.add_argument("--from-shipped", action="store_true",
                          help="train nothing: the paired tests (every pair, Holm-corrected) and step 4's "
                               "equivalence test on the results already in --out")
    ablation.set_defaults(handler=run_ablation)
    return [check, ablation]


def _check_text(r: dict) -> str:
    lines = [f"{'step':<34} {'params':>10} {'max|Δlogit| f32':>16} {'f64':>10}"]
    for row in r["steps"]:
        lines.append(f"{row['name']:<34} {row['params']:>10,} {row['max_abs_logit_diff']:>16.3g} "
                     f"{row['max_abs_logit_diff_f64']:>10.3g}")
    lines.append(f"{'decoder-only':<34} {r['decoder_only_params']:>10,}")
    lines.append(f"largest decoder-only logit: {r['max_abs_logit']:.1f}")
    lines.append("what remains after step 4, each put back alone into the exact model:")
    for c in r["causes"]:
        lines.append(f"  {c['label']:<48} {c['f32']:>10.3g} (f64 {c['f64']:.3g})")
    return "\n".join(lines)


def run_check(args: argparse.Namespace) -> dict:
    base = fs.base_config(args.depth, args.width, args.heads)
    result = fs.numeric_check(base, train_steps=args.train_steps, seed=args.seed)
    if args.out is not None:
        shipped.write(args.out, result)
    return {**result, "_text": _check_text}


def _ablation_text(r: dict) -> str:
    lines = [f"{'variant':<34} {'n':>2} {'held-out loss':>14} {'sd':>8}"]
    for v in r["summary"]["variants"]:
        lines.append(f"{v['name']:<34} {v['n']:>2} {v['mean']:>14.4f} {v['sd']:>8.4f}")
    paired = fs.paired_analysis(r["runs"])
    lines += [fs.paired_text(paired), fs.path_text(paired)]
    lines.append(f"{len(r['runs'])} runs in {r['wall_seconds']:.0f} s ({r['threads']} thread)"
                 + (f"; written to {r['out']}" if r.get("out") else ""))
    return "\n".join(lines)


def _paired_text(r: dict) -> str:
    lines = [f"{'a':<14} {'b':<14} {'n':>2} {'mean a-b':>10} {'exact p':>8} {'Holm p':>7}"]
    for row in r["pairs"]:
        lines.append(f"{fs.VARIANT_SHORT[row['a']]:<14} {fs.VARIANT_SHORT[row['b']]:<14} {row['n']:>2} "
                     f"{row['mean_diff']:>+10.4f} {row['paired_p']:>8.3g} {row['holm_p']:>7.3g}")
    return "\n".join(lines + [r["verdict"]])


def run_ablation(args: argparse.Namespace) -> dict:
    if args.from_shipped:
        record = shipped.load(args.out)
        if record is None:
            raise ValueError(f"{args.out} is missing or unreadable; run `four-steps ablation` to write it")
        analysis = fs.paired_analysis(record["runs"])
        return {**analysis, "verdict": fs.paired_text(analysis), "source": str(args.out), "_text": _paired_text}
    settings = fs.AblationSettings(task=args.task, length=args.length, n_symbols=args.symbols, depth=args.depth,
                                   width=args.width, heads=args.heads, steps=args.steps,
                                   batch_size=args.batch_size, lr=args.lr, seeds=tuple(args.seeds),
                                   eval_size=args.eval_size, eval_every=args.eval_every,
                                   variants=tuple(args.variants))
    started = time.strftime("%Y-%m-%d")
    result = {**fs.run_ablation(settings, Printed()), "date": started}
    shipped.write(args.out, result)
    return {**result, "out": str(args.out), "_text": _ablation_text}
