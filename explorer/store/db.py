"""The store's engine and schema version: SQLite by default, PostgreSQL when `$EXPLORER_DB_URL` names one.

SQLAlchemy gives both databases one query language and one connection pool; Alembic keeps the schema's
history as migrations (`explorer/store/migrations`), so a deployment's database is brought up to date by the
first process that opens it, whatever version made it. Migrating holds a lock (an advisory lock on PostgreSQL,
a file lock beside the SQLite file), so replicas starting together migrate once.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from functools import lru_cache
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from explorer.store.local import cache_dir

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
MIGRATION_LOCK = 0x45585052  # the advisory-lock id migrations hold on PostgreSQL ("EXPR")


def database_url() -> str:
    """`$EXPLORER_DB_URL` (e.g. postgresql+psycopg://host/db), else a SQLite file in the local cache folder."""
    return os.environ.get("EXPLORER_DB_URL") or f"sqlite:///{cache_dir() / 'explorer.sqlite3'}"


def is_postgres(url: str | None = None) -> bool:
    return sa.make_url(url or database_url()).get_backend_name() == "postgresql"


def engine() -> sa.Engine:
    """The migrated engine for the current URL: one pool per URL and process."""
    return _engine(database_url())


@lru_cache(maxsize=4)
def _engine(url: str) -> sa.Engine:
    if is_postgres(url):
        # no pre-ping: a round trip on every checkout cost a tenth of a replica's CPU under a class's polling; a
        # connection that a database restart broke fails once, and SQLAlchemy then renews the pool
        made = sa.create_engine(url, pool_size=10, max_overflow=30, pool_recycle=600)
    else:
        path = Path(sa.make_url(url).database or "")
        path.parent.mkdir(parents=True, exist_ok=True)
        made = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})
        sa.event.listen(made, "connect", _sqlite_pragmas)
        sa.event.listen(made, "begin", _sqlite_begin)
    _migrate(made)
    return made


def reads() -> sa.Connection:
    """A connection for reads alone, in autocommit: no BEGIN and ROLLBACK round trips around a poll's query."""
    return engine().connect().execution_options(isolation_level="AUTOCOMMIT")


def _sqlite_pragmas(connection, _record) -> None:
    """WAL lets readers go on while one writer writes; foreign keys are off in SQLite unless asked for. The
    driver's own transaction handling is turned off: `_sqlite_begin` starts every transaction."""
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_begin(connection: sa.Connection) -> None:
    """A write transaction takes SQLite's write lock when it begins (BEGIN IMMEDIATE), so two processes that
    read and then write wait for each other (busy timeout) instead of one failing with "database is locked";
    `reads()` connections run in autocommit and take no lock."""
    if connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def _migrate(made: sa.Engine) -> None:
    """Bring the schema to the newest migration, once across every process that opens it at the same time."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with _migration_lock(made), made.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "heads")  # "heads": migrations written side by side apply together


@contextlib.contextmanager
def _migration_lock(made: sa.Engine):
    if made.dialect.name == "postgresql":
        with made.connect() as connection:
            connection.execute(sa.select(sa.func.pg_advisory_lock(MIGRATION_LOCK)))
            try:
                yield
            finally:
                connection.execute(sa.select(sa.func.pg_advisory_unlock(MIGRATION_LOCK)))
                connection.commit()
        return
    lock_path = Path(f"{made.url.database}.migrate.lock")
    with open(lock_path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
