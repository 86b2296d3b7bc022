"""`python -m explorer demo-models`: train the attention page's demo models and write them to data/demo_models/."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from explorer.experiments import attention
from explorer.formatting import plural
from explorer.progress import SILENT, Printed


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser(
        "demo-models",
        help="train the attention page's small models (seeded) and save them",
        description="Train one small Transformer per architecture on reversing text, seeded, and "
        "write each as safetensors + a JSON sidecar with its measured accuracy.",
    )
    p.add_argument(
        "--archs", default=",".join(attention.ARCHS), help=f"comma-separated subset of {','.join(attention.ARCHS)}"
    )
    p.add_argument("--out", type=Path, default=attention.SHIPPED_DIR, help="directory to write the models to")
    p.add_argument(
        "--steps",
        type=int,
        default=None,
        help="train fewer steps than the shipped recipe (a quick check; the shipped files use the recipe)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(handler=run)
    return [p]


def _archs(text: str) -> list[str]:
    archs = [a.strip() for a in text.split(",") if a.strip()]
    unknown = [a for a in archs if a not in attention.ARCHS]
    if unknown or not archs:
        raise ValueError(f"--archs takes names from {', '.join(attention.ARCHS)}; got {text!r}")
    return list(dict.fromkeys(archs))


def _text(result: dict) -> str:
    lines = [f"{'model':16} {'params':>8} {'bytes':>9} {'char acc':>9} {'exact':>7} {'steps':>6} {'seconds':>8}"]
    for m in result["models"]:
        lines.append(
            f"{m['arch']:16} {m['parameters']:>8,} {m['bytes']:>9,} {m['char_accuracy']:>9.1%} "
            f"{m['exact_match']:>7.1%} {m['steps']:>6} {m['seconds']:>8.1f}"
        )
    lines.append(
        f"wrote {plural(len(result['models']), 'model')} ({result['total_bytes']:,} bytes) to {result['out']} "
        f"in {result['seconds']:.0f} s"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict:
    archs = _archs(args.archs)
    specs = [attention.demo_spec(arch, steps=args.steps) for arch in archs]  # validate before any training
    start = time.perf_counter()
    models = []
    for spec in specs:
        shown = SILENT if args.quiet else Printed().part(prefix=f"{spec.arch}: ")
        saved = attention.train_and_save(spec, args.out, shown)
        models.append(
            {
                "arch": spec.arch,
                "path": saved["path"],
                "bytes": saved["bytes"],
                "parameters": saved["parameters"],
                "char_accuracy": saved["accuracy"]["char_accuracy"],
                "exact_match": saved["accuracy"]["exact_match"],
                "steps": saved["training"]["steps_done"],
                "seconds": saved["training"]["seconds"],
                "history": saved["history"],
            }
        )
    return {
        "out": str(args.out),
        "models": models,
        "total_bytes": sum(m["bytes"] for m in models),
        "seconds": time.perf_counter() - start,
        "_text": _text,
    }
