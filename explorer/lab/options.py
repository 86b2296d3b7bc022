"""The lab's command-line options, the same on every experiment command:

--device auto|cpu|cuda|mps   where training runs (default cpu; auto: an accelerator if torch sees one)
--recipe old|reviewed        how runs are made (`explorer.lab.recipe`); `old` remakes the shipped results
--save                       the only way anything is written into data/ (default: print, and cache runs)
"""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer.lab.device import CHOICES
from explorer.lab.recipe import NAMES

DATA_DIR = Path(__file__).resolve().parents[2] / "data"


def add(parser: argparse.ArgumentParser, what: str = "its shipped file") -> argparse.ArgumentParser:
    parser.add_argument(
        "--device",
        choices=CHOICES,
        default="cpu",
        help="where to train (default cpu; auto: cuda or mps when torch sees one, else cpu)",
    )
    parser.add_argument(
        "--recipe",
        choices=NAMES,
        default="old",
        help="old: one rate, constant, one checkpoint (remakes the shipped results); reviewed: rate "
        "per size from a grid, WSD decay at every budget, readout fixed in advance",
    )
    parser.add_argument("--save", action="store_true", help=f"write {what} under data/ (nothing else writes there)")
    parser.add_argument("--no-save", action="store_true", help=argparse.SUPPRESS)  # the old default, now a no-op
    return parser


def needs_old(args: argparse.Namespace, experiment: str) -> None:
    """A ValueError (one clear line) when `--recipe reviewed` is asked of an experiment not yet on it."""
    if getattr(args, "recipe", "old") != "old":
        raise ValueError(
            f"{experiment} runs the old recipe only; --recipe reviewed is wired into "
            "every experiment that trains models except crossover and cache so far"
        )


def saved_name(args: argparse.Namespace, preset: str) -> str:
    """The shipped name a preset saves under: its own for the old recipe, `<preset>-reviewed` for the reviewed one
    (the old result stays beside it, so a page can say what changed)."""
    return preset if getattr(args, "recipe", "old") == "old" else f"{preset}-reviewed"


def inside_data(path: Path) -> bool:
    try:
        Path(path).resolve().relative_to(DATA_DIR)
        return True
    except ValueError:
        return False


def target(args: argparse.Namespace, default: Path | None, out: Path | None = None) -> Path | None:
    """Where a command writes: `out` (or `default`), but a path under data/ only with `--save`; else None."""
    path = out or default
    if path is None or (inside_data(path) and not getattr(args, "save", False)):
        return None
    return Path(path)
