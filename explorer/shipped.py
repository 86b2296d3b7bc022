"""Shipped results: the JSON files under `data/` that the CLI writes and the pages read.

One writer stamps every file with the environment that made it (so a rerun knows whether it can expect
the same bits, see `explorer.environment`), the date and the code version; one reader returns a dict or
None, never raises, so a missing or damaged file reads as "not shipped" and the page trains or explains.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Callable

from explorer import environment, results

# Every experiment trains on one torch thread (explorer.model sets it), so results record threads=1.
TRAINING_THREADS = 1


def stamp(payload: dict, threads: int = TRAINING_THREADS) -> dict:
    """`payload` with `environment`, `created` and `code_version` added (the provenance of a shipped file), and
    the `recipe` and `device` it was made with when it does not say (`explorer.lab`)."""
    from explorer.lab import device, recipe  # the lab imports the trainer; stamping needs it only here

    payload = {**payload, "recipe": recipe.of_result(payload), "device": payload.get("device", device.current())}
    return {
        **payload,
        "environment": environment.current(threads),
        "created": time.strftime("%Y-%m-%d %H:%M:%S"),
        "code_version": results.code_version(),
    }


def timed(work: Callable[[], dict]) -> dict:
    """`work()`'s result with `wall_seconds`, `cpus` and `load_average` (before, after) added: a result made
    on a busy machine says so, and time estimates can tell a slow machine from a slow recipe."""
    load_before, start = os.getloadavg()[0], time.perf_counter()
    result = work()
    result.update(
        wall_seconds=time.perf_counter() - start, cpus=os.cpu_count(), load_average=[load_before, os.getloadavg()[0]]
    )
    return result


def write(path: Path, payload: dict, threads: int = TRAINING_THREADS) -> Path:
    """Write a shipped result atomically, stamped, world-readable (it is committed to the repository)."""
    results.write_json_atomic(path, stamp(payload, threads))
    path.chmod(0o644)
    return path


def load(path: Path) -> dict | None:
    """The shipped result at `path`, or None when it is missing, unreadable or not a JSON object."""
    try:
        record = json.loads(Path(path).read_text())
    except (OSError, ValueError, RecursionError):  # RecursionError: `[[[[...` deeper than the parser goes
        return None
    return record if isinstance(record, dict) else None


def environment_of(record: dict | None) -> dict | None:
    """The environment a shipped result records, or None for a file written before results recorded it."""
    env = (record or {}).get("environment")
    return env if isinstance(env, dict) else None
