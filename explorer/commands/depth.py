"""`python -m explorer depth`: final-layer-only vs layer-aligned cross-attention as depth grows (slides 59-63).

`--preset main` is the full sweep behind the page (depths 2, 4, 8; both wirings; 8 seeds; 600 steps) and
writes `data/depth/main.json`; `--preset control` is that sweep on the control task (sorting) at depths 2 and 8
and writes `data/depth/control.json`; `--preset long` trains depth 8 for 2400 steps (3 seeds) and writes
`data/depth/long.json`; `--preset lr` trains depth 8 (3 seeds) at each learning rate of `LR_GRID` (the runs at
the main rate come from `data/depth/main.json`) and with `--save` writes `data/depth/lr.json`;
`--preset quick` is a small sweep for tests.
`--depths`, `--wirings`, `--seeds` and `--steps` override the preset, e.g.
`--preset main --depths 2 --wirings final --seeds 1` reruns one run of the shipped sweep (and writes nothing).
The JSON holds `config`, `table` (per depth and wiring: held-out accuracy and loss, mean and sd over seeds,
exact paired p-values), `probes` (per depth and wiring: probe accuracy per encoder level), `runs` (every record),
`stopped` and `wall_seconds`. The lr preset's JSON holds instead `config`, `lrs`, `lr_table` (per wiring and
rate: accuracy and loss over seeds), `best_lr` (per wiring), `at_best` (the exact paired tests at each wiring's
own best rate), `runs`, `stopped` and `wall_seconds`.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np

from explorer import shipped
from explorer.experiments import depth as dp
from explorer.formatting import p_label, p_text
from explorer.lab import options


def _csv(kind: type):
    def parse(text: str) -> tuple:
        try:
            return tuple(kind(t) for t in text.split(",") if t.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}") from None

    return parse


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser("depth", help="depth sweep: decoder reads the final encoder layer vs the aligned layer")
    p.add_argument("--preset", choices=sorted(dp.PRESETS), default="quick")
    p.add_argument("--depths", type=_csv(int), default=None, help="comma-separated layers per stack, e.g. 2,4,8")
    p.add_argument("--wirings", type=_csv(str), default=None, help=f"comma-separated, among {','.join(dp.WIRINGS)}")
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (seeds 0 .. n-1)")
    p.add_argument("--steps", type=int, default=None, help="optimizer steps per model")
    options.add(p, "data/depth/<preset>.json (shipped presets main, control, long, lr)")
    p.set_defaults(handler=run)
    return [p]


def _text(result: dict) -> str:
    lines = [
        f"{len(result['runs'])} runs, {result['wall_seconds']:.0f} s wall"
        + (f", saved to {result['saved_to']}" if result.get("saved_to") else "")
    ]
    lines.append(f"{'depth':>5} {'wiring':>8} {'accuracy':>15} {'loss':>15} {'p(loss)':>8} {'late drop':>9}")
    for r in result["table"]:
        lines.append(
            f"{r['depth']:>5} {r['wiring']:>8} {r['accuracy_mean']:>7.3f} ± {r['accuracy_sd']:<5.3f} "
            f"{r['loss_mean']:>7.3f} ± {r['loss_sd']:<5.3f} {p_text(r['p_loss']):>8} "
            f"{r['late_drop_mean']:>9.3f}"
        )
    lines.append("probe accuracy per encoder level (0 = embeddings), trained models, seed mean:")
    for p in result["probes"]:
        for target in dp.TARGETS:
            levels = " ".join(f"{a:.2f}" for a in p[target])
            lines.append(f"  depth {p['depth']} {p['wiring']:>7} {target:>8}: {levels}")
    return "\n".join(lines)


def report(swept: dict) -> dict:
    """The CLI's JSON: the table, the probe means, and every run record."""
    analysis = dp.analyse(swept)
    probes = [
        {
            "depth": depth,
            "wiring": wiring,
            **{t: [float(v) for v in np.mean(cell["probes"]["trained"][t], axis=0)] for t in dp.TARGETS},
        }
        for depth in analysis["depths"]
        for wiring, cell in analysis["cells"][depth].items()
    ]
    return {
        "config": swept["config"],
        "table": dp.table(analysis),
        "probes": probes,
        "runs": swept["runs"],
        "stopped": swept["stopped"],
        "incomplete": analysis["incomplete"],
    }


def _lr_text(result: dict) -> str:
    lines = [
        f"{len(result['runs'])} runs, {result['wall_seconds']:.0f} s wall"
        + (f", saved to {result['saved_to']}" if result.get("saved_to") else "")
    ]
    lines.append(f"{'wiring':>8} {'lr':>7} {'accuracy':>15} {'loss':>15}")
    for r in result["lr_table"]:
        mark = " best" if result["best_lr"][r["wiring"]] == r["lr"] else ""
        lines.append(
            f"{r['wiring']:>8} {r['lr']:>7g} {r['accuracy_mean']:>7.3f} ± {r['accuracy_sd']:<5.3f} "
            f"{r['loss_mean']:>7.3f} ± {r['loss_sd']:<5.3f}{mark}"
        )
    test = result["at_best"].get("loss")
    if test:
        lines.append(
            f"at each wiring's best rate: loss final - aligned {test['mean_diff']:+.3f}, exact paired "
            f"{p_label(test['p'])} ({test['pairs']} seeds, smallest possible {test['smallest_p']:.3g})"
        )
    return "\n".join(lines)


def lr_report(swept: dict) -> dict:
    """The lr preset's JSON: per wiring and rate the held-out numbers, each wiring's best rate, the tests there."""
    analysis = dp.analyse_lr(swept)
    rows = [
        {
            "wiring": w,
            "lr": lr,
            "seeds": len(c["seeds"]),
            "accuracy_mean": c["accuracy"]["mean"],
            "accuracy_sd": c["accuracy"]["sd"],
            "loss_mean": c["loss"]["mean"],
            "loss_sd": c["loss"]["sd"],
        }
        for w, by_lr in analysis["cells"].items()
        for lr, c in by_lr.items()
    ]
    return {
        "config": swept["config"],
        "lrs": swept["lrs"],
        "lr_table": rows,
        "best_lr": analysis["best"],
        "best_at_edge": analysis["at_edge"],
        "at_best": analysis["tests"],
        "runs": swept["runs"],
        "stopped": swept["stopped"],
    }


def run(args: argparse.Namespace) -> dict:
    preset = dp.PRESETS[args.preset]
    overrides = {
        "depths": args.depths,
        "wirings": args.wirings,
        "steps": args.steps,
        "seeds": tuple(range(args.seeds)) if args.seeds is not None else None,
    }
    cfg = replace(preset, **{k: v for k, v in overrides.items() if v is not None}, recipe=args.recipe)
    lr_check = args.preset == dp.LR_PRESET
    # the CLI always trains (no cache): it is what produces and checks shipped data
    # the lr check takes the main sweep's runs at the main rate from its shipped file (the same recipe and seeds)
    swept = shipped.timed(
        lambda: dp.lr_sweep(cfg, shipped=dp.load_shipped()) if lr_check else dp.sweep(cfg, use_cache=False)
    )
    out = {**(lr_report(swept) if lr_check else report(swept)), "wall_seconds": swept["wall_seconds"]}
    if args.preset in (*dp.SHIPPED_PRESETS, dp.LR_PRESET) and replace(cfg, recipe="old") == preset and args.save:
        out["saved_to"] = str(shipped.write(dp.shipped_path(options.saved_name(args, args.preset)), swept))
    out["_text"] = _lr_text if lr_check else _text
    return out
