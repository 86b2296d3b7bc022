"""`python -m explorer train`: train one model on one task and print its history."""

from __future__ import annotations

import argparse

from explorer.model import ARCHITECTURES, TransformerConfig
from explorer.tasks import RULES, make_task
from explorer.train import TrainConfig, config_dict, train

ARCH_ALIASES = {
    "decoder": "decoder",
    "encoder": "encoder",
    "encoder_decoder": "encoder_decoder",
    "encdec": "encoder_decoder",
    "prefix_lm": "prefix_lm",
}


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser("train", help="train one model on a synthetic task and print its history")
    p.add_argument("--task", choices=sorted(RULES), default="sort")
    p.add_argument(
        "--arch", choices=sorted(ARCH_ALIASES), default="decoder", help=f"architecture ({', '.join(ARCHITECTURES)})"
    )
    p.add_argument("--length", type=int, default=8, help="input (and target) length")
    p.add_argument("--symbols", type=int, default=16)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-every", type=int, default=25)
    p.add_argument("--time-budget", type=float, default=None, help="stop after this many seconds")
    p.set_defaults(handler=run)
    return [p]


def _text(result: dict) -> str:
    lines = [f"{'step':>6} {'train_loss':>10} {'eval_loss':>10} {'eval_acc':>9} {'flops':>10}"]
    for row in result["history"]:
        lines.append(
            f"{row['step']:>6} {row['train_loss']:>10.4f} {row['eval_loss']:>10.4f} "
            f"{row['eval_accuracy']:>9.3f} {row['flops']:>10.3g}"
        )
    s = result["summary"]
    lines.append(
        f"stopped: {s['stopped']} after {s['steps_done']} steps, {s['seconds']:.1f} s, "
        f"{s['tokens_per_second']:.0f} tokens/s"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict:
    task = make_task(args.task, length=args.length, n_symbols=args.symbols)
    model_cfg = TransformerConfig(
        arch=ARCH_ALIASES[args.arch],
        vocab_size=task.vocab_size,
        d_model=args.d_model,
        n_heads=args.heads,
        n_layers=args.layers,
        max_len=task.input_len + task.target_len,
    )
    train_cfg = TrainConfig(
        steps=args.steps,
        batch_size=args.batch_size,
        lr=args.lr,
        seed=args.seed,
        eval_every=args.eval_every,
        time_budget_s=args.time_budget,
    )
    result = train(model_cfg, task, train_cfg)
    return {
        "config": config_dict(model_cfg, task, train_cfg),
        "parameters": result.model.num_parameters(),
        "history": result.history,
        "summary": result.summary(),
        "_text": _text,
    }
