"""Every benchmark in bench/ runs in its quick mode (`python -m bench --quick`), so a benchmark that no longer runs
(a page's control renamed, a function's arguments changed) fails `make test` rather than the next `make bench`.
Nothing here is timed: the benchmarks print their medians, the test asks only that each ran and returned them."""

import json
import os
import subprocess
import sys

import pytest

from bench.suite import discover
from tests.conftest import ROOT


@pytest.mark.timeout(1800)  # minutes on a busy shared machine; well under two on two idle cores
def test_every_benchmark_runs_and_reports_in_quick_mode(tmp_path):
    report = tmp_path / "bench.json"
    env = {**os.environ, "EXPLORER_CACHE_DIR": str(tmp_path / "results"), "EXPLORER_JOBS_DIR": str(tmp_path / "jobs")}
    run = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--json", str(report)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1700,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    outcomes = json.loads(report.read_text())
    files = {p.stem for p in (ROOT / "bench").glob("bench_*.py")}
    assert files and files <= set(discover()), "every bench/bench_*.py is a benchmark"
    assert sorted(outcomes) == discover(), "every benchmark ran"
    assert [name for name, o in outcomes.items() if not o["ok"]] == []
