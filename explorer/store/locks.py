"""Named locks that every process of a deployment sees: the job queue's run slots and per-key locks.

On PostgreSQL a lock is a session advisory lock, held on a connection of its own: replicas on several
machines share it, and the server lets go when the holder's connection dies. With the SQLite default (one
machine) a lock is `fcntl.flock` on a file in a shared folder, which the kernel lets go when the process dies.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
from pathlib import Path
from typing import Iterator

import sqlalchemy as sa

from explorer.store import db

_LOG = logging.getLogger(__name__)


def lock_id(name: str) -> int:
    """A stable signed 64-bit id for `name` (what PostgreSQL's advisory locks take)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


@contextlib.contextmanager
def try_lock(name: str, folder: Path) -> Iterator[bool]:
    """Hold the lock `name` if it is free; yield whether we got it. `folder` holds the lock files when the
    store is SQLite."""
    manager = _advisory(name) if db.is_postgres() else _file_lock(folder / f"{_file_name(name)}.lock")
    with manager as got:
        yield got


def _file_name(name: str) -> str:
    """Slot names stay readable (slot-0); anything else becomes a short hash."""
    return (
        name if name.replace("-", "").isalnum() and len(name) <= 24 else hashlib.sha256(name.encode()).hexdigest()[:24]
    )


@contextlib.contextmanager
def _advisory(name: str) -> Iterator[bool]:
    """Taking the lock raises what the database raises (the caller fails its job); letting it go never does: a
    connection whose unlock failed (the server ended it, the network dropped) is thrown away, and PostgreSQL lets
    go of a session's locks when its connection ends."""
    key = lock_id(name)
    connection = db.engine().connect()
    try:
        got = bool(connection.execute(sa.select(sa.func.pg_try_advisory_lock(key))).scalar())
        connection.commit()  # the lock is the session's, not the transaction's: end the transaction now
    except BaseException:
        _discard(connection)
        raise
    try:
        yield got
    finally:
        try:
            if got:
                connection.execute(sa.select(sa.func.pg_advisory_unlock(key)))
                connection.commit()
            connection.close()
        except Exception:  # noqa: BLE001 (any driver error: the lock dies with the connection thrown away here)
            _LOG.warning("advisory lock %r: unlock failed, connection discarded", name, exc_info=True)
            _discard(connection)


def _discard(connection: sa.Connection) -> None:
    """Never hand a connection that may still hold a lock back to the pool: close its socket instead."""
    with contextlib.suppress(Exception):
        connection.invalidate()
    with contextlib.suppress(Exception):
        connection.close()


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[bool]:
    """The lock file is removed before it is let go; whoever opened the old file meanwhile sees it is no longer
    at `path` and does not count as holding the lock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            current = os.stat(path).st_ino
        except FileNotFoundError:
            current = None
        if current != os.fstat(fd).st_ino:  # removed by its last holder after we opened it
            fcntl.flock(fd, fcntl.LOCK_UN)
            yield False
            return
        try:
            yield True
        finally:
            with contextlib.suppress(OSError):  # gone already, or not ours to remove: the flock still ends
                path.unlink()
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
