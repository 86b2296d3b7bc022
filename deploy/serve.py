"""Start or stop N app replicas behind nginx on one port: `python -m deploy.serve start --replicas 2`.

Every replica is `python -m ui.launch` on its own loopback port with the same cookie secret (so a session's
XSRF cookie checks out on whichever replica it lands) and the same store and lock folder, so a run finished by
one replica is a cache hit on all and the run limit holds for the whole deployment.
nginx (Debian's package) listens on the public port and keeps each session on one replica.
The store (result cache, class mode, run locks) is the SQLite file in the cache folder by default; `--db postgres`
starts a private PostgreSQL (Debian's package, `deploy.postgres`) for the replicas, and `--db <URL>` uses
one that already runs (what replicas on several machines share).
State lives in a run folder (default .run/serve): pids, logs, the generated nginx.conf.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from deploy import postgres

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = Path(__file__).with_name("nginx.conf.template")
DEFAULT_RUN_DIR = ROOT / ".run" / "serve"
STATE = "state.json"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(url: str, timeout_s: float, proc: subprocess.Popen | None = None) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and (proc is None or proc.poll() is None):
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return True
        except OSError:
            time.sleep(0.3)
    return False


def nginx_config(listen: int, replica_ports: list[int]) -> str:
    servers = "\n".join(f"        server 127.0.0.1:{p};" for p in replica_ports)
    return TEMPLATE.read_text().replace("{{SERVERS}}", servers).replace("{{LISTEN}}", str(listen))


def postgres_folder(run_dir: Path) -> Path:
    """Where `--db postgres` keeps its cluster: under /tmp, which the `postgres` user can reach when we are root."""
    return Path("/tmp") / f"explorer-pg-{hashlib.sha256(str(run_dir.resolve()).encode()).hexdigest()[:10]}"


def _database(db: str, run_dir: Path) -> tuple[str | None, str | None]:
    """(the URL replicas get, the private cluster's folder): none for sqlite, a started cluster for postgres."""
    if db == "sqlite":
        return None, None
    if db == "postgres":
        folder = postgres_folder(run_dir)
        return postgres.start(folder), str(folder)
    return db, None


def start(
    replicas: int, port: int, run_dir: Path, cache_dir: Path, max_runs: int | None = None, db: str = "sqlite"
) -> dict:
    """Start the replicas and nginx; return the deployment's state (also written to run_dir/state.json)."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        raise SystemExit("nginx is not installed: `apt-get install nginx` (Debian's package)")
    if replicas < 1:
        raise SystemExit("--replicas must be at least 1")
    if (run_dir / STATE).exists():
        stop(run_dir)
    for sub in ("logs", "tmp"):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "EXPLORER_CACHE_DIR": str(cache_dir),
        "EXPLORER_JOBS_DIR": str(cache_dir / "jobs"),
        "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(16),
    }
    if max_runs:
        env["EXPLORER_MAX_RUNS"] = str(max_runs)
    db_url, pg_folder = _database(db, run_dir)
    if db_url:
        env["EXPLORER_DB_URL"] = db_url
    ports, procs = [_free_port() for _ in range(replicas)], []
    for i, p in enumerate(ports):
        with open(run_dir / "logs" / f"replica-{i}.log", "w") as log:
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "ui.launch", "--server.port", str(p), "--server.address", "127.0.0.1"],
                    cwd=ROOT,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
    pids = [proc.pid for proc in procs]
    state = {
        "port": port,
        "replica_ports": ports,
        "replica_pids": pids,
        "cache_dir": str(cache_dir),
        "url": f"http://127.0.0.1:{port}",
        "run_dir": str(run_dir),
        "db_url": db_url,
        "postgres_dir": pg_folder,
    }
    (run_dir / STATE).write_text(json.dumps(state, indent=2))
    for p, proc in zip(ports, procs):
        if not _healthy(f"http://127.0.0.1:{p}", 120, proc):
            stop(run_dir)
            raise SystemExit(f"replica on port {p} did not start; see {run_dir / 'logs'}")
    (run_dir / "nginx.conf").write_text(nginx_config(port, ports))
    subprocess.run([nginx, "-p", str(run_dir), "-c", "nginx.conf"], check=True)
    if not _healthy(state["url"], 30):  # nginx daemonizes: no process of ours to watch
        stop(run_dir)
        raise SystemExit(f"nginx did not answer on port {port}; see {run_dir / 'logs' / 'nginx-error.log'}")
    return state


def stop(run_dir: Path, keep_database: bool = True) -> dict:
    """Stop nginx and every replica started from `run_dir`, and the private PostgreSQL if one was started (its
    data stays for the next start unless `keep_database` is False: a test's throwaway deployment)."""
    path = run_dir / STATE
    if not path.exists():
        return {"stopped": False, "reason": f"nothing running from {run_dir}"}
    state = json.loads(path.read_text())
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if (run_dir / "nginx.pid").exists():
        subprocess.run([nginx, "-p", str(run_dir), "-c", "nginx.conf", "-s", "quit"], capture_output=True)
    for pid in state["replica_pids"]:
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
    deadline = time.monotonic() + 10
    for pid in state["replica_pids"]:
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    if state.get("postgres_dir"):
        postgres.stop(Path(state["postgres_dir"]))
        if not keep_database:
            shutil.rmtree(state["postgres_dir"], ignore_errors=True)
    path.unlink()
    return {"stopped": True, "replicas": len(state["replica_pids"]), "port": state["port"]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m deploy.serve", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("start", "stop"))
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--port", type=int, default=8501, help="the one public port (nginx)")
    parser.add_argument("--run-dir", type=Path, default=DEFAULT_RUN_DIR)
    parser.add_argument(
        "--cache-dir", type=Path, default=ROOT / ".cache" / "results", help="result cache shared by the replicas"
    )
    parser.add_argument("--max-runs", type=int, default=None, help="training runs at once, whole deployment")
    parser.add_argument(
        "--db",
        default="sqlite",
        help="sqlite (a file in the cache folder), postgres (a private local PostgreSQL), "
        "or a PostgreSQL URL (postgresql+psycopg://user@host/db) shared by several machines",
    )
    args = parser.parse_args(argv)
    if args.action == "start":
        state = start(args.replicas, args.port, args.run_dir, args.cache_dir, args.max_runs, args.db)
        print(
            f"{len(state['replica_ports'])} replicas behind nginx at {state['url']} "
            f"(stop with `make stop` or `python -m deploy.serve stop`)"
        )
    else:
        print(json.dumps(stop(args.run_dir)))


if __name__ == "__main__":
    main()
