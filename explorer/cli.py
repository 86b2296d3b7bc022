"""Command line: `python -m explorer <command> [--json]`.

Each module in `explorer/commands/` adds one subcommand through `register(subparsers)`; the handler
returns a dict that is printed as one JSON object with `--json`, or as readable text without it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
from typing import Callable

from explorer import __version__, commands
from explorer.lab import device as lab_device
from explorer.lab.recipe import of_result


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m explorer", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", metavar="command", required=True)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        for command in module.register(sub):
            _add_common(command)
    return parser


def _print_text(result: dict) -> None:
    text: Callable[[dict], str] | None = result.pop("_text", None)
    print(text(result) if text else json.dumps(result, indent=2, default=str))


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if hasattr(args, "device"):  # an experiment command: every training call in it uses this device
            lab_device.use(args.device)
        result = args.handler(args)
    except ValueError as err:  # bad sizes or settings: one clear line, no traceback
        print(f"error: {err}", file=sys.stderr)
        return 2
    if hasattr(args, "device"):  # what every experiment's output records (`explorer.lab`)
        result.setdefault("device", lab_device.current())
        result["recipe"] = of_result(result)
    status = result.pop("_exit", 0)  # a command that checks something exits 1 when the check fails
    if args.json:
        result.pop("_text", None)
        print(json.dumps(result, default=str))
    else:
        _print_text(result)
    return status
