"""The store itself on SQLite and PostgreSQL: the migrated schema is the one the code queries, and the named
locks behind the job queue hold across processes and die with their holder (the queue itself on both stores:
tests/unit/test_jobs.py)."""

import os
import subprocess
import sys
import time

import sqlalchemy as sa

from explorer.store import db, locks
from explorer.store.schema import METADATA
from tests.conftest import ROOT


def test_the_migrations_build_the_schema_the_code_queries(store):
    inspector = sa.inspect(db.engine())
    for table in METADATA.sorted_tables:
        columns = {c["name"]: c["nullable"] for c in inspector.get_columns(table.name)}
        assert columns == {c.name: c.nullable for c in table.columns}, table.name
    from alembic.script import ScriptDirectory

    with db.engine().connect() as conn:
        applied = set(conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars())
    assert applied == set(ScriptDirectory(str(db.MIGRATIONS)).get_heads())  # every head, however many


def test_a_database_made_by_an_older_version_is_migrated_forward(store):
    """A class's database from the first version (no result cache table) gains it when the app opens it."""
    from alembic import command
    from alembic.config import Config

    engine = db.engine()
    config = Config()
    config.set_main_option("script_location", str(db.MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0001")
    assert "results" not in sa.inspect(engine).get_table_names()
    db._engine.cache_clear()  # a new process opening the database
    assert "results" in sa.inspect(db.engine()).get_table_names()


def test_a_lock_is_held_once(store, tmp_path):
    with locks.try_lock("slot-0", tmp_path) as first, locks.try_lock("slot-0", tmp_path) as second:
        assert (first, second) == (True, False)
    with locks.try_lock("slot-0", tmp_path) as again:
        assert again  # let go at the end of the block


def test_a_killed_holder_leaves_no_lock_taken(store, tmp_path):
    """A replica killed mid-run: its slot is free again (PostgreSQL ends the dead connection's session)."""
    script = (
        "import sys, time; from explorer.store import locks; from pathlib import Path\n"
        "with locks.try_lock('slot-0', Path(sys.argv[1])) as got:\n"
        "    print('held' if got else 'busy', flush=True); time.sleep(60)"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert child.stdout.readline().strip() == "held"
        with locks.try_lock("slot-0", tmp_path) as got:
            assert not got
    finally:
        child.kill()
        child.wait()
    deadline = time.monotonic() + 10
    while True:
        with locks.try_lock("slot-0", tmp_path) as got:
            if got or time.monotonic() > deadline:
                break
        time.sleep(0.1)
    assert got
