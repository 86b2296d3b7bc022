"""Class mode at class scale: 200 simulated students (the app's own websocket protocol) join and answer one
poll within a minute across two replicas behind nginx sharing one PostgreSQL; one replica is killed mid-class."""

import shutil
from pathlib import Path

import pytest

from bench.class_load import run_class
from deploy import postgres, serve

STUDENTS = 200
pytestmark = [
    pytest.mark.load,
    pytest.mark.skipif(
        not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()),
        reason="nginx is not installed (`.ci/run` installs Debian's nginx)",
    ),
]


def test_a_class_of_200_answers_through_a_replica_crash_and_loses_nothing_acknowledged(tmp_path, capsys, monkeypatch):
    if postgres.binaries() is None:
        pytest.fail("PostgreSQL is required: `apt-get install postgresql` (`.ci/run` does)")
    monkeypatch.setenv("EXPLORER_CLASS_JOINS_PER_MINUTE", str(2 * STUDENTS))  # every device comes from one address
    state = serve.start(2, serve._free_port(), tmp_path / "serve", tmp_path / "cache", db="postgres")
    try:
        result = run_class(
            state["url"],
            state["db_url"],
            STUDENTS,
            answer_window_s=40.0,
            kill_pid=state["replica_pids"][-1],
            logs=tmp_path / "serve" / "logs",
        )
    finally:
        serve.stop(tmp_path / "serve", keep_database=False)
    with capsys.disabled():  # the figures are the point: docs/serving.md's "Serving a class" quotes them
        print(
            f"\nclass of {STUDENTS}: {result['acknowledged']} acknowledged, {result['stored']} in PostgreSQL, "
            f"last answer at {result['answers_within_s']:.0f} s; answer -> lecturer's view p50 "
            f"{result['view_p50_s']:.2f} s, p95 {result['view_p95_s']:.2f} s; replica killed at "
            f"{result['killed'].get('at_s', 0):.0f} s after {result['killed'].get('answers_before')} answers, "
            f"{result['reconnects']} reconnects; {result['errors']} errors"
        )
    assert result["errors"] == 0, result["error_samples"]
    assert result["acknowledged"] == result["stored"] == STUDENTS and result["acknowledged_but_lost"] == 0
    assert result["killed"]["answers_before"] < STUDENTS  # the crash came mid-class
    assert result["secrets_in_logs"] == 0  # no lecturer's or device's token in nginx's or a replica's log
