"""`python -m explorer four-steps check|ablation`: the four steps of slides 40-51, measured.

check     train decoder-only briefly, copy its weights into the model at every step, print per step the
          parameter count and max |logit difference| (keys: steps[].step/params/max_abs_logit_diff,
          decoder_only_params)
ablation  train every variant with several seeds at an equal budget and write the results:
          `--preset main` (250 steps) writes data/four_steps/ablation.json, the page's default file;
          `--preset long` (500 steps) writes data/four_steps/ablation_long.json; any other option
          overrides the preset. `--from-shipped` trains nothing and prints the paired tests (keys: pairs,
          equivalence; also functions, parameters and, with --at-step, an earlier budget read from the curves)
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

from explorer.experiments import four_steps as fs
from explorer.formatting import p_text
from explorer import shipped
from explorer.progress import Printed
from explorer.tasks import RULES
from explorer.lab import options

# option -> AblationSettings field, for options that override the preset
OVERRIDES = {
    "task": "task",
    "length": "length",
    "symbols": "n_symbols",
    "depth": "depth",
    "width": "width",
    "heads": "heads",
    "steps": "steps",
    "batch_size": "batch_size",
    "lr": "lr",
    "eval_size": "eval_size",
    "eval_every": "eval_every",
    "seeds": "seeds",
    "variants": "variants",
}


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
    check.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"also write the result as JSON (the page ships {fs.CHECK_PATH.relative_to(fs.ROOT)})",
    )
    options.add(check, "--out under data/ (the shipped check)")
    check.set_defaults(handler=run_check)

    ablation = actions.add_parser("ablation", help="train every variant with several seeds; write the results")
    ablation.add_argument(
        "--preset",
        choices=sorted(fs.PRESETS),
        default="main",
        help="main: 250 steps, 12 seeds, every variant; long: 500 steps, 8 seeds, both paths",
    )
    ablation.add_argument("--task", choices=sorted(RULES))
    ablation.add_argument("--length", type=int, help="input (and target) tokens")
    ablation.add_argument("--symbols", type=int)
    ablation.add_argument("--depth", type=int, help="layers per stack")
    ablation.add_argument("--width", type=int, help="d_model")
    ablation.add_argument("--heads", type=int)
    ablation.add_argument("--steps", type=int, help="optimizer steps per run")
    ablation.add_argument("--batch-size", type=int)
    ablation.add_argument("--lr", type=float)
    ablation.add_argument("--eval-size", type=int)
    ablation.add_argument("--eval-every", type=int)
    ablation.add_argument("--seeds", type=int, nargs="+")
    ablation.add_argument(
        "--variants",
        nargs="+",
        choices=fs.ALL_VARIANTS,
        help="steps 0-5, decoder, and 0m 1m (steps 0 and 1 at the parameter-matched width)",
    )
    ablation.add_argument(
        "--out",
        type=Path,
        default=None,
        help="where to write (or, with --from-shipped, read) the JSON results; default: the preset's shipped file",
    )
    ablation.add_argument(
        "--from-shipped",
        action="store_true",
        help="train nothing: the paired tests (every pair, Holm-corrected), step 4's "
        "equivalence test and the agreement/KL of each model with decoder-only, on the "
        "results already in --out",
    )
    ablation.add_argument(
        "--at-step",
        type=int,
        default=None,
        help="with --from-shipped: test the losses the curves recorded at this earlier step",
    )
    options.add(ablation, "the preset's shipped file (or --out under data/)")
    ablation.set_defaults(handler=run_ablation)
    return [check, ablation]


def _check_text(r: dict) -> str:
    lines = [f"{'step':<34} {'params':>10} {'max|Δlogit| f32':>16} {'f64':>10}"]
    for row in r["steps"]:
        lines.append(
            f"{row['name']:<34} {row['params']:>10,} {row['max_abs_logit_diff']:>16.3g} "
            f"{row['max_abs_logit_diff_f64']:>10.3g}"
        )
    lines.append(f"{'decoder-only':<34} {r['decoder_only_params']:>10,}")
    lines.append(f"largest decoder-only logit: {r['max_abs_logit']:.1f}")
    lines.append("what remains after step 4, each put back alone into the exact model:")
    for c in r["causes"]:
        lines.append(f"  {c['label']:<48} {c['f32']:>10.3g} (f64 {c['f64']:.3g})")
    return "\n".join(lines)


def run_check(args: argparse.Namespace) -> dict:
    base = fs.base_config(args.depth, args.width, args.heads)
    result = fs.numeric_check(base, train_steps=args.train_steps, seed=args.seed)
    options.needs_old(args, "four-steps")
    path = options.target(args, None, args.out)
    if path is not None:
        shipped.write(path, result)
    return {**result, "_text": _check_text}


def _ablation_text(r: dict) -> str:
    lines = [f"{'variant':<34} {'n':>2} {'held-out loss':>14} {'sd':>8}"]
    for v in r["summary"]["variants"]:
        lines.append(f"{v['name']:<34} {v['n']:>2} {v['mean']:>14.4f} {v['sd']:>8.4f}")
    paired = fs.paired_analysis(r["runs"])
    lines += [fs.paired_text(paired), fs.path_text(paired)]
    lines.append(
        f"{len(r['runs'])} runs in {r['wall_seconds']:.0f} s ({r['threads']} thread)"
        + (f"; written to {r['out']}" if r.get("out") else "")
    )
    return "\n".join(lines)


def _paired_text(r: dict) -> str:
    lines = [
        f"held-out loss at step {r['steps']}",
        f"{'a':<18} {'b':<18} {'n':>2} {'mean a-b':>10} {'exact p':>8} {'Holm p':>7}",
    ]
    for row in r["pairs"]:
        lines.append(
            f"{fs.VARIANT_SHORT[row['a']]:<18} {fs.VARIANT_SHORT[row['b']]:<18} {row['n']:>2} "
            f"{row['mean_diff']:>+10.4f} {p_text(row['paired_p']):>8} {p_text(row['holm_p']):>7}"
        )
    lines += [r["verdict"], "", f"{'variant':<18} {'width':>5} {'params':>8} {'vs decoder':>10}"]
    lines += [
        f"{fs.VARIANT_SHORT[p['variant']]:<18} {p['width']:>5} {p['params']:>8,} {p['vs_decoder']:>+10.1%}"
        for p in r["parameters"]
    ]
    if r.get("functions"):
        lines += ["", f"against decoder-only, same seed: {'agreement':>9} {'KL (nats/token)':>16}"]
        lines += [
            f"{fs.VARIANT_SHORT[f['variant']]:<33} {f['agreement']:>9.2%} {f['kl']:>16.4f}"
            for f in r["functions"]["variants"]
        ]
        lines.append(r["functions_verdict"])
    return "\n".join(lines)


def _from_shipped(args: argparse.Namespace) -> dict:
    path = args.out or fs.shipped_path(args.preset)
    record = shipped.load(path)
    if record is None:
        raise ValueError(
            f"{path} is missing or unreadable; run `four-steps ablation --preset {args.preset}` to write it"
        )
    settings = fs.AblationSettings.from_dict(record["settings"])
    steps = args.at_step or settings.steps
    runs = record["runs"] if steps == settings.steps else fs.runs_at(record["runs"], steps)
    if not runs:
        raise ValueError(
            f"the curves in {path} recorded no step {steps} (every {settings.eval_every} steps up to {settings.steps})"
        )
    analysis = fs.paired_analysis(runs)
    out = {
        **analysis,
        "verdict": fs.paired_text(analysis),
        "source": str(path),
        "steps": steps,
        "parameters": fs.parameter_table(settings.base, settings.variants),
        "_text": _paired_text,
    }
    if steps == settings.steps:  # the models, and so their predictions, exist at the run's own budget only
        out["functions"] = fs.function_summary(record)
        out["functions_verdict"] = fs.function_text(out["functions"], steps)
    return out


def run_ablation(args: argparse.Namespace) -> dict:
    if args.from_shipped:
        return _from_shipped(args)
    given = {field: getattr(args, option) for option, field in OVERRIDES.items() if getattr(args, option) is not None}
    settings = replace(fs.PRESETS[args.preset], **given, recipe=args.recipe)
    path = options.target(args, fs.shipped_path(options.saved_name(args, args.preset)), args.out)
    started = time.strftime("%Y-%m-%d")
    result = {**fs.run_ablation(settings, Printed()), "date": started}
    if path is not None:
        shipped.write(path, result)
    return {**result, "out": str(path) if path else None, "_text": _ablation_text}
