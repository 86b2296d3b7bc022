"""On-disk result cache keyed by the full configuration and the code version.

Results are plain JSON (never pickle), written atomically (temp file + rename), so a crash mid-write
leaves no half file, and a file that does not parse is treated as missing and recomputed. The code
version is a hash of the explorer sources: editing the library invalidates every cached result.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Callable

PACKAGE_DIR = Path(__file__).resolve().parent
DEFAULT_DIR = PACKAGE_DIR.parent / ".cache" / "results"


def cache_dir() -> Path:
    """`$EXPLORER_CACHE_DIR` if set (tests, shared deployments), else `.cache/results` in the project."""
    return Path(os.environ.get("EXPLORER_CACHE_DIR", DEFAULT_DIR))


@lru_cache(maxsize=1)
def code_version() -> str:
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def result_key(kind: str, config: dict) -> str:
    blob = json.dumps({"kind": kind, "config": config, "code": code_version()}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _path(kind: str, config: dict) -> Path:
    return cache_dir() / kind / f"{result_key(kind, config)}.json"


def load(kind: str, config: dict) -> dict | None:
    path = _path(kind, config)
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        path.unlink(missing_ok=True)  # corrupt: drop it, the caller recomputes
        return None
    if not isinstance(record, dict) or record.get("config") != json.loads(json.dumps(config, default=str)):
        return None
    return record.get("result")


def write_json_atomic(path: Path, payload: object) -> None:
    """Write JSON so that readers see either the old file or the complete new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(payload, f, default=str)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save(kind: str, config: dict, result: dict) -> Path:
    path = _path(kind, config)
    write_json_atomic(path, {"kind": kind, "config": config, "code": code_version(), "result": result})
    return path


def cached(kind: str, config: dict, compute: Callable[[], dict]) -> dict:
    """Return the stored result for (kind, config), computing and storing it on a miss."""
    hit = load(kind, config)
    if hit is not None:
        return hit
    result = compute()
    save(kind, config, result)
    return result
