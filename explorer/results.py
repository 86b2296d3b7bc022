"""On-disk result cache keyed by the full configuration and the code version.

Results are plain JSON (never pickle), written atomically (temp file + rename), so a crash mid-write
leaves no half file, and a file that does not parse or does not have its result's shape is treated as
missing and recomputed. Files are readable by the group (0644 less the umask): replicas running as other
users of one group can share a cache volume. The code
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

from explorer import shapes

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


def inspect(kind: str, config: dict, shape: object = dict) -> tuple[dict | None, str | None]:
    """(the stored result, None) if its file parses, was made for `config` and has `shape` (`explorer.shapes`);
    else (None, why not), None for a plain miss. A broken or tampered file is removed, so the next result
    replaces it."""
    path = _path(kind, config)
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError) as err:
        path.unlink(missing_ok=True)
        return None, f"{path.name} does not parse ({type(err).__name__})"
    if not isinstance(record, dict) or record.get("config") != json.loads(json.dumps(config, default=str)):
        return None, None  # a hash collision or another version's file: not ours to remove
    try:
        shapes.check(record.get("result"), shape, "result")
    except shapes.ShapeError as err:
        path.unlink(missing_ok=True)
        return None, f"{path.name}: {err}"
    return record["result"], None


def load(kind: str, config: dict, shape: object = dict) -> dict | None:
    """The stored result for (kind, config), or None (see `inspect`)."""
    return inspect(kind, config, shape)[0]


def _read_umask() -> int:
    """The process's umask, read once at import (setting and restoring it later could race another thread)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def write_json_atomic(path: Path, payload: object) -> None:
    """Write JSON so that readers see either the old file or the complete new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600: give the file what the umask allows
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


def cached(kind: str, config: dict, compute: Callable[[], dict], shape: object = dict) -> dict:
    """Return the stored result for (kind, config), computing and storing it on a miss."""
    hit = load(kind, config, shape)
    if hit is not None:
        return hit
    result = compute()
    save(kind, config, result)
    return result
