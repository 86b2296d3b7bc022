"""`python -m explorer cache <action>`: the cache-reuse page's numbers from the command line.

chat           slide 66's chat (or --chat "turn / turn") through the demo models: per turn, tokens reused or
               recomputed and how far each old token's keys and values (per layer) and output moved
measure        time re-encoding vs the cached step for one turn, with FLOPs and the logit check
sweep          time a grid of sizes and fit time ~ a*FLOPs + b*layers + c (the per-layer overhead)
drift          per-layer drift of old tokens' states when m tokens are appended
train-encoder  train the bidirectional drift encoder and write data/cache/encoder_sort.safetensors
stale          reuse the stale cache in a bidirectional encoder vs re-encode: train one encoder per task and
               seed, write data/cache/stale.json (keys: rows[].task/n/m/arch/accuracy_reencode/
               accuracy_stale/kl; runs per seed; models)
"""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer import shipped
from explorer.experiments import cache
from explorer.experiments import chat_cache
from explorer.experiments import stale_cache as stale
from explorer.progress import Printed
from explorer.tasks import RULES
from explorer.lab import options


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser("cache", help="multi-turn chat: re-encoding vs the KV cache (slides 64-66)")
    actions = p.add_subparsers(dest="action", metavar="action", required=True)

    chat = actions.add_parser("chat", help="slide 66's chat through the demo models: reuse and drift per turn")
    chat.add_argument(
        "--chat",
        default=chat_cache.DEFAULT_CHAT,
        help=f"turns separated by '{chat_cache.TURN_SEPARATOR}' (default: %(default)s)",
    )
    chat.set_defaults(handler=run_chat)

    measure = actions.add_parser("measure", help="time one turn both ways on the project's Transformer")
    measure.add_argument("--n", type=int, default=1024, help="history tokens before this turn")
    measure.add_argument("--m", type=int, default=8, help="tokens in the new message")
    measure.add_argument("--depth", type=int, default=2, help="layers")
    measure.add_argument(
        "--turns", type=int, default=1, help="measure turn T of a chat that opened with n tokens (history n + (T-1) m)"
    )
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
    options.add(train, "the drift encoder to --out under data/")
    train.set_defaults(handler=run_train)

    defaults = stale.StaleConfig()
    st = actions.add_parser(
        "stale",
        help="accuracy and KL when a bidirectional encoder reuses its stale cache instead of re-encoding",
        description="Per task, seed and size: a turn of n tokens is encoded and its keys/values kept, then m tokens "
        "arrive. Scored on the m new positions: token accuracy when re-encoding all n+m tokens, "
        "accuracy when the new tokens read the stale cache, and KL(re-encoded || stale) per position, "
        "averaged, in nats. Causal rows: the same weights under a causal mask, where stale equals "
        "re-encoding by construction (their accuracy is not a quality comparison).",
    )
    st.add_argument("--tasks", nargs="+", choices=sorted(RULES), default=list(defaults.tasks))
    st.add_argument(
        "--task-steps", type=int, nargs="+", default=list(defaults.task_steps), help="training steps, one per task"
    )
    st.add_argument("--seeds", type=int, nargs="+", default=list(defaults.seeds))
    st.add_argument(
        "--sizes",
        nargs="+",
        type=_size,
        default=[list(s) for s in defaults.sizes],
        help="NxM pairs: n old tokens, m new ones (n >= 4, n + m <= 32)",
    )
    st.add_argument("--test-chats", type=int, default=defaults.test_chats, help="held-out sequences per size")
    st.add_argument("--out", type=Path, default=stale.SHIPPED_PATH, help="where to write (or read) the results")
    st.add_argument("--from-shipped", action="store_true", help="train nothing: print the results in --out")
    options.add(st, "the results to --out under data/")
    st.set_defaults(handler=run_stale)
    return [chat, measure, sweep, drift, train, st]


def _size(text: str) -> list[int]:
    try:
        n, m = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a size is NxM, e.g. 24x4; got {text!r}") from None
    return [n, m]


def _chat_text(r: dict) -> str:
    lines = []
    for turn in r["turns"]:
        lines.append(
            f"turn {turn['turn']} {turn['text']!r}: {turn['new']} new tokens; causal reuses "
            f"{turn['causal_reused']}, bidirectional recomputes {turn['bidirectional_recomputed']} old ones"
        )
        if turn["drift"] is not None:
            old = r["tokens"][: turn["old"]]
            for name, moved in zip(r["quantities"], turn["drift"]["bidirectional"]):
                lines.append(f"  {name} moved: " + " ".join(f"{tok}={v:.0%}" for tok, v in zip(old, moved)))
            lines.append(
                f"  causal: at most {max(max(row) for row in turn['drift']['causal']):.0e} (rounding; "
                "zero by construction)"
            )
    if any(turn["drift"] is None and turn["turn"] > 1 for turn in r["turns"]):
        lines.append(f"drift is measured up to {r['limit']} tokens (what the demo models were trained on)")
    return "\n".join(lines)


def run_chat(args: argparse.Namespace) -> dict:
    chat = chat_cache.parse_chat(args.chat)
    return {**chat_cache.chat_reuse(chat, chat_cache.load_models()), "_text": _chat_text}


def _measure_text(r: dict) -> str:
    s_re, s_c = r["spread_reencode_ms"], r["spread_cached_ms"]
    return "\n".join(
        [
            f"turn with history n={r['n']}, message m={r['m']}, {r['depth']} layers, {r['repeats']} repeats, 1 thread",
            f"  FLOPs   re-encode {r['flops_reencode']:.3g}   cached step {r['flops_cached']:.3g}   "
            f"ratio {r['flop_ratio']:.1f}x",
            f"  time    re-encode {r['time_reencode_ms']:.3f} ms (IQR {s_re['q1']:.3f}-{s_re['q3']:.3f})   "
            f"cached step {r['time_cached_ms']:.3f} ms (IQR {s_c['q1']:.3f}-{s_c['q3']:.3f})   "
            f"speedup {r['speedup']:.1f}x",
            f"  max |cached - recomputed logits| = {r['max_abs_logit_diff']:.2e}"
            f" (logits up to {r['max_abs_logit']:.2f})",
        ]
    )


def run_measure(args: argparse.Namespace) -> dict:
    if args.turns < 1:
        raise ValueError(f"--turns must be >= 1, got {args.turns}")
    history = cache.history_at(args.n, args.m, args.turns)
    result = cache.measure(
        history, args.m, args.depth, repeats=args.repeats, seed=args.seed, budget_s=cache.MAX_MEASURE_SECONDS
    )
    return {**result, "_text": _measure_text}


def _sweep_text(r: dict) -> str:
    lines = [f"{'depth':>5} {'history':>7} {'m':>3} {'mode':>9} {'GFLOP':>8} {'median ms':>10}"]
    for row in r["rows"]:
        lines.append(
            f"{row['depth']:>5} {row['history']:>7} {row['m']:>3} {row['mode']:>9} "
            f"{row['flops'] / 1e9:>8.4f} {row['median_ms']:>10.3f}"
        )
    f = r["fit"]
    lines.append(
        f"fit: time = FLOPs / {f['gflops_per_s']:.1f} GFLOP/s + {f['b_s_per_layer'] * 1e3:.3f} ms per layer "
        f"+ {f['c_s'] * 1e3:.3f} ms (median relative error {f['median_rel_error']:.0%})"
    )
    return "\n".join(lines)


def run_sweep(args: argparse.Namespace) -> dict:
    return {**cache.overhead_sweep(repeats=args.repeats, seed=args.seed), "_text": _sweep_text}


def _drift_text(r: dict) -> str:
    lines = [f"relative L2 change of the {r['n']} old tokens when {r['m']} are appended"]
    for row in r["rows"]:
        lines.append(
            f"  {row['model']:28s} {row['quantity']:14s} layer {row['layer']:>6}  {row['relative_change']:.3e}"
        )
    return "\n".join(lines)


def run_drift(args: argparse.Namespace) -> dict:
    loaded = cache.load_encoder()
    n, m = cache.drift_sizes(args.n, args.m)
    table = cache.drift_table(cache.drift_models(loaded[0] if loaded else None), n, m)
    return {
        "n": n,
        "m": m,
        "trained_encoder": str(cache.ENCODER_PATH) if loaded else None,
        "rows": table.to_dict("records"),
        "_text": _drift_text,
    }


def run_train(args: argparse.Namespace) -> dict:
    options.needs_old(args, "cache train-encoder")
    model, info = cache.train_drift_encoder(steps=args.steps, seed=args.seed)
    info = shipped.stamp(info)  # the shipped file records the machine that trained it
    target = options.target(args, args.out)
    path = cache.save_encoder(model, target, info) if target is not None else None
    return {"path": str(path) if path else None, **info}


def _stale_text(r: dict) -> str:
    lines = [f"{'task':>5} {'n':>3} {'m':>3} {'arch':>13} {'acc re-encode':>13} {'acc stale':>9} {'KL nats':>9}"]
    for row in r["rows"]:
        lines.append(
            f"{row['task']:>5} {row['n']:>3} {row['m']:>3} {row['arch']:>13} {row['accuracy_reencode']:>13.3f} "
            f"{row['accuracy_stale']:>9.3f} {row['kl']:>9.3g}"
        )
    seeds = sorted({run["seed"] for run in r["runs"]})
    lines.append(
        f"seed means over {len(seeds)} seeds; scored on the m new positions; causal: same weights, causal "
        f"mask (stale = re-encoding by construction)"
    )
    return "\n".join(lines)


def run_stale(args: argparse.Namespace) -> dict:
    if args.from_shipped:
        record = stale.load(args.out)
        if record is None:
            raise ValueError(f"no stale-cache results in {args.out}; run without --from-shipped to make them")
    else:
        cfg = stale.StaleConfig(
            tasks=tuple(args.tasks),
            task_steps=tuple(args.task_steps),
            seeds=tuple(args.seeds),
            sizes=tuple(tuple(s) for s in args.sizes),
            test_chats=args.test_chats,
        )
        options.needs_old(args, "cache stale")
        record = stale.run(cfg, Printed())
        if options.target(args, args.out) is not None:
            shipped.write(args.out, record)
    return {**record, "path": str(args.out), "_text": _stale_text}
