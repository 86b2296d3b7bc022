"""`python -m explorer lab list`: every experiment the lab runs, with its main preset's units (shipped, cached,
missing) and the estimated wall time here. `lab label-shipped --save` writes the truthful `recipe` and `device`
into shipped results made before results recorded them (the old recipe, on the CPU)."""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer import shipped
from explorer.lab import options, registry
from explorer.lab.recipe import of_config
from explorer.results import write_json_atomic


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    parent = sub.add_parser("lab", help="the experiments the lab runs: units, shipped, cached, missing, time")
    actions = parent.add_subparsers(dest="action", metavar="action", required=True)
    listing = actions.add_parser("list", help="every experiment's main preset: units and estimated seconds")
    listing.set_defaults(handler=run_list)
    label = actions.add_parser("label-shipped", help="add recipe and device to shipped results that lack them")
    label.add_argument("--save", action="store_true", help="write them (default: only say which files lack them)")
    label.set_defaults(handler=run_label)
    return [listing, label]


def _list_text(result: dict) -> str:
    lines = [f"{'experiment':<22} {'units':>5} {'shipped':>7} {'cached':>6} {'missing':>7} {'est. seconds':>12}"]
    for e in result["experiments"]:
        lines.append(
            f"{e['name']:<22} {e['units']:>5} {e['shipped']:>7} {e['cached']:>6} {e['missing']:>7} "
            f"{e['estimated_seconds']:>12.0f}"
        )
    return "\n".join(lines)


def run_list(args: argparse.Namespace) -> dict:
    return {"experiments": registry.experiments(), "_text": _list_text}


def shipped_results() -> list[Path]:
    """The shipped result files (checkpoint sidecars are not results)."""
    return sorted(p for p in options.DATA_DIR.glob("*/*.json") if "format" not in (shipped.load(p) or {"format": 1}))


def run_label(args: argparse.Namespace) -> dict:
    changed = []
    for path in shipped_results():
        record = shipped.load(path)
        if "recipe" in record and "device" in record:
            continue
        config = record.get("config", record.get("settings"))
        if isinstance(config, dict) and isinstance(record.get("lrs"), list):  # a rate sweep: its grid is the config's
            config = {**config, "lrs": record["lrs"]}
        labelled = {
            **record,
            "recipe": record.get("recipe") or of_config(config),
            "device": record.get("device", "cpu"),
        }
        changed.append(str(path.relative_to(options.DATA_DIR.parent)))
        if args.save:
            write_json_atomic(path, labelled)
            path.chmod(0o644)
    return {
        "files": changed,
        "saved": bool(args.save),
        "_text": lambda r: "\n".join(r["files"]) + ("\n(written)" if r["saved"] else "\n(add --save to write)"),
    }
