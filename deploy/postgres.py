"""A private PostgreSQL for a local deployment or the tests: `initdb` into a folder, serve on a loopback port.

Uses Debian's `postgresql` package (its binaries under /usr/lib/postgresql/<version>/bin). PostgreSQL refuses
to run as root, so as root the cluster belongs to the `postgres` user the package creates. Trust
authentication on loopback only: the cluster is a private one for this machine's replicas.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

DATABASE = "explorer"


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).resolve().parent if pg_ctl else None


def _as_owner(args: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


def _run(args: list[str]) -> None:
    done = subprocess.run(_as_owner(args), capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(
            f"{Path(args[0]).name} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}"
        )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def url(port: int) -> str:
    return f"postgresql+psycopg://postgres@127.0.0.1:{port}/{DATABASE}"


def start(folder: Path, port: int | None = None) -> str:
    """Create (first time) and start a cluster in `folder`; return its SQLAlchemy URL. As root, every folder
    above `folder` must be open to the `postgres` user (a folder under /tmp is; pytest's tmp_path is not)."""
    bin_dir = binaries()
    if bin_dir is None:
        raise SystemExit("PostgreSQL is not installed: `apt-get install postgresql` (Debian's package)")
    port = port or _free_port()
    data = folder / "data"
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    if not (data / "PG_VERSION").exists():
        _run(
            [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync"]
        )
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=300"
    _run([str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(folder / "postgres.log"), "-o", options, "-w", "start"])
    _create_database(port)
    return url(port)


def _create_database(port: int) -> None:
    import psycopg

    deadline = time.monotonic() + 30
    while True:
        try:
            with psycopg.connect(f"host=127.0.0.1 port={port} user=postgres dbname=postgres", autocommit=True) as conn:
                if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone():
                    conn.execute(f'CREATE DATABASE "{DATABASE}"')
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def stop(folder: Path) -> None:
    """Stop the cluster in `folder` (fast shutdown: open sessions are cut, committed data is kept)."""
    bin_dir = binaries()
    if bin_dir is not None and (folder / "data" / "postmaster.pid").exists():
        subprocess.run(
            _as_owner([str(bin_dir / "pg_ctl"), "-D", str(folder / "data"), "-m", "fast", "-w", "stop"]),
            check=False,
            capture_output=True,
        )
