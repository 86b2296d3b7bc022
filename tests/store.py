"""The store under test: a fresh SQLite file, or the test session's own PostgreSQL (Debian's `postgresql`
package; `.ci/run` installs it and sets EXPLORER_REQUIRE_POSTGRES=1, so CI fails instead of skipping)."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest

from deploy import postgres

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def postgres_url():
    if postgres.binaries() is None:
        if os.environ.get("EXPLORER_REQUIRE_POSTGRES") == "1":
            pytest.fail("PostgreSQL is required here: `apt-get install postgresql` (`.ci/run` does)")
        pytest.skip("no PostgreSQL: install Debian's `postgresql` to run the store tests against it")
    folder = Path(tempfile.mkdtemp(prefix="explorer-pg-"))  # under /tmp: the `postgres` user can reach it
    url = postgres.start(folder)
    yield url
    postgres.stop(folder)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path, monkeypatch) -> str:
    """Point the store at one backend for the test; the backend's name is the value."""
    if request.param == "postgresql":
        url = request.getfixturevalue("postgres_url")
    else:
        url = f"sqlite:///{tmp_path / f'store-{uuid.uuid4().hex[:8]}.sqlite3'}"
    monkeypatch.setenv("EXPLORER_DB_URL", url)
    return request.param
