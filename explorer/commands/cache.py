"""`python -m explorer cache <action>`: the cache-reuse page's numbers from the command line.

  measure        time re-encoding vs the cached step for one turn, with FLOPs and the logit check
  sweep          time a grid of sizes and fit time ~ a*FLOPs + b*layers + c (the per-layer overhead)
  drift          per-layer drift of old tokens' states when m tokens are appended
  train-encoder  train the bidirectional drift encoder and write data/cache/encoder_sort.safetensors
"""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer import shipped
from explorer.experiments import cache


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser("cache", help="multi-turn chat: re-encoding vs the KV cache (slides 64-66)")
    actions = p.add_subparsers(dest="action", metavar="action", required=True)

    measure = actions.add_parser("measure", help="time one turn both ways on the project's Transformer")
    measure.add_argument("--n", type=int, default=1024, help="history tokens before this turn")
    measure.add_argument("--m", type=int, default=8, help="tokens in the new message")
    measure.add_argument("--depth", type=int, default=2, help="layers")
    measure.add_argument("--turns", type=int, default=1,
                         help="measure turn T of a chat that opened with n tokens (history n + (T-1) m)")
    measure.add_argument("--repeats", type=int, default=15)
    measure.add_argument("--seed", type=int, default=0)
    measure.set_defaults(handler=run_measure)

    sweep = actions.add_parser("sweep", help="time a grid of sizes and fit the per-layer overhead model")
    sweep.add_argument("--repeats", type=int, default=7)
    sweep.add_argument("--seed", type=int, default=0)
    sweep.set_defaults(handler=run_sweep)

    drift = actions.add_parser("drift", help="per-layer drift of old tokens' states (bidirectional vs causal)")
    drift.add_argument("--n", type=int, default=24, help="old tokens")
    drift.add_argument("--m", type=int, default=8, help="appended tokens")
    drift.set_defaults(handler=run_drift)

    train = actions.add_parser("train-encoder", help="train the drift encoder and save it as safetensors")
    train.add_argument("--steps", type=int, default=2000, help="2000 made the shipped file")
    train.add_argument("--seed", type=int, default=cache.DRIFT_SEED)
    train.add_argument("--out", type=Path, default=cache.ENCODER_PATH)
    train.set_defaults(handler=run_train)
    return [measure, sweep, drift, train]


def _measure_text(r: dict) -> str:
    s_re, s_c = r["spread_reencode_ms"], r["spread_cached_ms"]
    return "\n".join([
        f"turn with history n={r['n']}, message m={r['m']}, {r['depth']} layers, {r['repeats']} repeats, 1 thread",
        f"  FLOPs   re-encode {r['flops_reencode']:.3g}   cached step {r['flops_cached']:.3g}   "
        f"ratio {r['flop_ratio']:.1f}x",
        f"  time    re-encode {r['time_reencode_ms']:.3f} ms (IQR {s_re['q1']:.3f}-{s_re['q3']:.3f})   "
        f"cached step {r['time_cached_ms']:.3f} ms (IQR {s_c['q1']:.3f}-{s_c['q3']:.3f})   "
        f"speedup {r['speedup']:.1f}x",
        f"  max |cached - recomputed logits| = {r['max_abs_logit_diff']:.2e} (logits up to {r['max_abs_logit']:.2f})",
    ])


def run_measure(args: argparse.Namespace) -> dict:
    if args.turns < 1:
        raise ValueError(f"--turns must be >= 1, got {args.turns}")
    history = cache.history_at(args.n, args.m, args.turns)
    result = cache.measure(history, args.m, args.depth, repeats=args.repeats, seed=args.seed,
                           budget_s=cache.MAX_MEASURE_SECONDS)
    return {**result, "_text": _measure_text}


def _sweep_text(r: dict) -> str:
    lines = [f"{'depth':>5} {'history':>7} {'m':>3} {'mode':>9} {'GFLOP':>8} {'median ms':>10}"]
    for row in r["rows"]:
        lines.append(f"{row['depth']:>5} {row['history']:>7} {row['m']:>3} {row['mode']:>9} "
                     f"{row['flops'] / 1e9:>8.4f} {row['median_ms']:>10.3f}")
    f = r["fit"]
    lines.append(f"fit: time = FLOPs / {f['gflops_per_s']:.1f} GFLOP/s + {f['b_s_per_layer'] * 1e3:.3f} ms per layer "
                 f"+ {f['c_s'] * 1e3:.3f} ms (median relative error {f['median_rel_error']:.0%})")
    return "\n".join(lines)


def run_sweep(args: argparse.Namespace) -> dict:
    return {**cache.overhead_sweep(repeats=args.repeats, seed=args.seed), "_text": _sweep_text}


def _drift_text(r: dict) -> str:
    lines = [f"relative L2 change of the {r['n']} old tokens when {r['m']} are appended"]
    for row in r["rows"]:
        lines.append(f"  {row['model']:28s} {row['quantity']:14s} layer {row['layer']:>6}  "
                     f"{row['relative_change']:.3e}")
    return "\n".join(lines)


def run_drift(args: argparse.Namespace) -> dict:
    loaded = cache.load_encoder()
    n, m = cache.drift_sizes(args.n, args.m)
    table = cache.drift_table(cache.drift_models(loaded[0] if loaded else None), n, m)
    return {"n": n, "m": m, "trained_encoder": str(cache.ENCODER_PATH) if loaded else None,
            "rows": table.to_dict("records"), "_text": _drift_text}


def run_train(args: argparse.Namespace) -> dict:
    model, info = cache.train_drift_encoder(steps=args.steps, seed=args.seed)
    info = shipped.stamp(info)  # the shipped file records the machine that trained it
    path = cache.save_encoder(model, args.out, info)
    return {"path": str(path), **info}
