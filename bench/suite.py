"""Which modules in bench/ are benchmarks, and running them: every `bench_*.py`, and any other module whose
`main` takes `quick` (the device check). Each benchmark's `main(quick=...)` prints its medians and ratios and
returns its results; quick mode (few repetitions, the smallest sizes, one page where a browser is needed) exists
so that `make test` notices a broken benchmark. Found by reading the files, so a new module needs no list."""

from __future__ import annotations

import ast
import importlib
import time
import traceback
from pathlib import Path

HERE = Path(__file__).parent


def _main_takes_quick(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "main":
            return any(a.arg == "quick" for a in node.args.args + node.args.kwonlyargs)
    return False


def discover() -> list[str]:
    """Module names of the benchmarks in bench/, sorted."""
    return sorted(
        p.stem
        for p in HERE.glob("*.py")
        if p.stem.startswith("bench_") or (not p.stem.startswith("_") and _main_takes_quick(p))
    )


def run_one(name: str, quick: bool) -> dict:
    """Import and run one benchmark; {"seconds", "ok", "error"}. Returning nothing counts as a failure."""
    start = time.perf_counter()
    try:
        result = importlib.import_module(f"bench.{name}").main(quick=quick)
        error = None if result else "main() returned nothing"
    except Exception as err:  # noqa: BLE001 - one broken benchmark is reported, the others still run
        traceback.print_exc()
        result, error = None, f"{type(err).__name__}: {err}"[:500]
    return {"seconds": time.perf_counter() - start, "ok": error is None, "error": error, "result": result}
