"""`python -m explorer bidirectional-scaling`: prefix-LM against decoder-only over model sizes (slide 64).

`--preset main` is the sweep behind the cache page (widths 8, 16, 32, 64; 8 seeds; 600 steps, read at 75, 150,
300 and 600); with `--save` it writes `data/bidirectional_scaling/main.json` (`main-reviewed.json` with
`--recipe reviewed`); `--preset quick`
is a small sweep (under a minute). `--widths`, `--seeds` and `--budgets` override the preset (and then nothing
is written).
The JSON holds `config`, `points` (per width and budget: `width`, `flops` (training FLOPs), `gap` (decoder-only
minus prefix-LM held-out loss per target token, seed mean), `gap_low` and `gap_high` (lowest and highest seed),
then `steps`, `seeds`, `p`, losses and parameters), `trend` (the per-seed slopes of the gap over widths and
over budgets, exact sign-flip p, Holm-corrected), `serving` (FLOPs per chat turn, re-encoding vs cached, at the
largest width), `runs`, `stopped` and `wall_seconds`.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from explorer import shipped
from explorer.commands.depth import _csv
from explorer.experiments import bidirectional_scaling as bs
from explorer.formatting import p_label, p_text, si
from explorer.lab import options


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser(
        "bidirectional-scaling",
        help="prefix-LM vs decoder-only (same parameters, only the mask differs) over model sizes",
    )
    p.add_argument("--preset", choices=sorted(bs.PRESETS), default="quick")
    p.add_argument("--widths", type=_csv(int), default=None, help="comma-separated d_model values, e.g. 16,32,64")
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (seeds 0 .. n-1)")
    p.add_argument(
        "--budgets",
        type=_csv(int),
        default=None,
        help="comma-separated steps at which the gap is read; the last is the run's length",
    )
    options.add(p, "data/bidirectional_scaling/main.json (--preset main)")
    p.set_defaults(handler=run)
    return [p]


def _text(result: dict) -> str:
    lines = [
        f"{len(result['runs'])} runs, {result['wall_seconds']:.0f} s wall"
        + (f", saved to {result['saved_to']}" if result.get("saved_to") else ""),
        "gap = decoder-only minus prefix-LM held-out loss per target token (positive: bidirectional helps)",
        f"{'width':>5} {'steps':>5} {'FLOPs':>7} {'gap':>8} {'seed range':>19} {'p':>7}",
    ]
    for p in result["points"]:
        lines.append(
            f"{p['width']:>5} {p['steps']:>5} {si(p['flops']):>7} {p['gap']:>+8.4f} "
            f"[{p['gap_low']:+.4f}, {p['gap_high']:+.4f}] {p_text(p['p']):>7}"
        )
    for axis, t in result["trend"].items():
        lines.append(
            f"trend over {axis}: mean slope {t['mean_slope']:+.4f} nats per doubling "
            f"({t['negative']} of {t['seeds']} seeds negative), exact sign-flip {p_label(t['p'])}, "
            f"Holm {p_text(t['p_holm'])} (smallest possible {t['smallest_p']:.3g})"
        )
    last = result["serving"][-1]
    lines.append(
        f"serving {last['turn']} turns of {last['m']} tokens: re-encoding {si(last['cum_reencode'])} FLOPs, "
        f"cached {si(last['cum_cached'])} ({last['ratio']:.1f}x)"
    )
    return "\n".join(lines)


def report(swept: dict) -> dict:
    """The CLI's JSON: points, trend tests, the serving cost at the largest width, and every run."""
    return {**bs.analyse(swept), "runs": swept["runs"], "stopped": swept["stopped"]}


def run(args: argparse.Namespace) -> dict:
    preset = bs.PRESETS[args.preset]
    overrides = {
        "widths": args.widths,
        "budgets": args.budgets,
        "seeds": tuple(range(args.seeds)) if args.seeds is not None else None,
    }
    cfg = bs.with_recipe(replace(preset, **{k: v for k, v in overrides.items() if v is not None}), args.recipe)
    swept = shipped.timed(lambda: bs.sweep(cfg, use_cache=False))  # the CLI always trains: it makes shipped data
    out = {**report(swept), "wall_seconds": swept["wall_seconds"], "recipe": swept["recipe"], "device": swept["device"]}
    if args.preset in bs.SHIPPED_PRESETS and replace(cfg, recipe="old") == preset and args.save:
        out["saved_to"] = str(shipped.write(bs.shipped_path(options.saved_name(args, args.preset)), swept))
    out["_text"] = _text
    return out
