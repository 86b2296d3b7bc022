"""The result cache, keyed by the full configuration and the code version, in the store (`explorer.store`).

A result is a plain JSON record (never a pickle) in the store's `results` table: the SQLite file of one machine
by default, or the PostgreSQL every replica shares, so a result one replica computed is a hit on every machine.
A record that does not parse, was made for another configuration, or lacks its result's declared shape is a
miss: it is deleted and recomputed. The code version is a hash of the explorer sources, so editing the library
invalidates every cached result. `write_json_atomic` writes the JSON files that are still files (shipped
results, checkpoint sidecars).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Callable

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from explorer import shapes
from explorer.store import db
from explorer.store.schema import RESULTS

PACKAGE_DIR = Path(__file__).resolve().parent
MAX_RECORD_CHARS = 4_000_000  # a stored record longer than this is a miss, never parsed (the largest is ~1 MB)
_LOG = logging.getLogger(__name__)


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


def _forget(key: str) -> None:
    with db.engine().begin() as conn:
        conn.execute(sa.delete(RESULTS).where(RESULTS.c.key == key))


def inspect(kind: str, config: dict, shape: object = dict) -> tuple[dict | None, str | None]:
    """(the stored result, None) if its record parses (`shapes.loads`: strict, bounded), was made for `config` and
    has `shape` (`explorer.shapes`); else (None, why not), None for a plain miss. A record that is too long,
    does not parse or lacks its shape is deleted, so it is read at most once and the next result replaces it."""
    key = result_key(kind, config)
    size = sa.func.length(RESULTS.c.record)
    with db.reads() as conn:
        found = conn.execute(
            sa.select(size, sa.case((size <= MAX_RECORD_CHARS, RESULTS.c.record))).where(RESULTS.c.key == key)
        ).first()
    if found is None:
        return None, None
    try:
        if found[1] is None:  # over the limit: not even fetched
            raise shapes.ParseError("length", f"{found[0]:,} characters; the limit is {MAX_RECORD_CHARS:,}")
        record = shapes.loads(found[1], limit=MAX_RECORD_CHARS)
    except shapes.ParseError as err:
        _forget(key)
        return None, f"{kind}/{key} does not parse ({err})"
    if not isinstance(record, dict) or record.get("config") != json.loads(json.dumps(config, default=str)):
        return None, None  # a hash collision or another version's record: not ours to remove
    try:
        shapes.check(record.get("result"), shape, "result")
    except shapes.ShapeError as err:
        _forget(key)
        return None, f"{kind}/{key}: {err}"
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


def save(kind: str, config: dict, result: dict) -> str:
    """Store `result` for (kind, config), replacing what was there; returns its key. Two processes saving the
    same key at once both succeed: the last record stays, and both were computed from the same settings. A result
    that `inspect` would refuse (NaN or infinity in it, too long) is not stored: it is logged and stays a miss."""
    key = result_key(kind, config)
    try:
        record = shapes.dumps_checked(
            {"kind": kind, "config": config, "code": code_version(), "result": result}, MAX_RECORD_CHARS
        )
    except shapes.ParseError as err:
        _LOG.warning("%s/%s not stored: %s", kind, key, err)
        return key
    values = {"kind": kind[:64], "record": record, "saved_at": time.time()}
    with db.engine().begin() as conn:
        insert = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(RESULTS)
        conn.execute(
            insert.values(key=key, **values).on_conflict_do_update(index_elements=[RESULTS.c.key], set_=values)
        )
    return key


def cached(kind: str, config: dict, compute: Callable[[], dict], shape: object = dict) -> dict:
    """Return the stored result for (kind, config), computing and storing it on a miss."""
    hit = load(kind, config, shape)
    if hit is not None:
        return hit
    result = compute()
    save(kind, config, result)
    return result
