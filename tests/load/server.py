"""One fresh app server (`python -m ui.launch`) on a free port, with its own result cache: for the load test
and the cold-start benchmark."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from deploy.serve import _free_port, _healthy
from tests.conftest import ROOT


@contextmanager
def app_server(
    cache_dir: Path, log: Path, timeout_s: float = 120, extra_env: dict | None = None, script: Path | None = None
) -> Iterator[str]:
    """Start the server, wait until it answers its health check, yield its URL; stop it on the way out.
    `script` serves another Streamlit script with plain `streamlit run` (a benchmark's reference app)."""
    port = _free_port()
    env = {
        **os.environ,
        "EXPLORER_CACHE_DIR": str(cache_dir),
        "EXPLORER_JOBS_DIR": str(cache_dir / "jobs"),
        **(extra_env or {}),
    }
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                *(("streamlit", "run", str(script)) if script else ("ui.launch",)),
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--server.headless",
                "true",
                "--browser.gatherUsageStats",
                "false",
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        if not _healthy(url, timeout_s, proc):
            raise RuntimeError(f"the app server did not become healthy; its log ends:\n{log.read_text()[-3000:]}")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
