"""Serving a class: two replicas behind nginx, sticky sessions, one shared result cache."""

import shutil
from pathlib import Path

import pytest

from bench.loadtest import figure_pages, run_crowd, summarize
from deploy import serve
from tests.e2e.conftest import assert_no_exception, wait_for_app

# a class's deployment: `make test-load` runs it with the classroom load test (CI runs both make targets)
pytestmark = [
    pytest.mark.load,
    pytest.mark.skipif(
        not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()),
        reason="nginx is not installed (`.ci/run` installs Debian's nginx)",
    ),
]


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("serve")
    state = serve.start(2, serve._free_port(), run_dir, tmp_path_factory.mktemp("shared_results"))
    yield state
    serve.stop(run_dir)


def test_every_page_serves_real_sessions_through_the_balancer(deployment):
    rows = run_crowd(deployment["url"], 2 * len(figure_pages()), 5)
    summary = summarize(rows, 0.0)
    assert summary["errors"] == 0, summary["error_samples"]
    assert all(r["charts"] > 0 for r in rows) and sum("rerun_s" in r for r in rows) >= len(figure_pages())


def test_an_upload_reaches_the_replica_that_holds_the_session(deployment, page, tmp_path):
    """Uploads go to /_stcore/upload_file/<session>: without affinity half of them would miss."""
    good = tmp_path / "points.csv"
    good.write_text("year,value\n1971,2300\n1982,134000\n1993,3100000\n2000,42000000\n")
    for attempt in range(4):  # four fresh sessions: each lands on some replica, and its upload must follow
        page.context.clear_cookies()
        page.goto(f"{deployment['url']}/compute")
        wait_for_app(page, "Years per 10×")
        page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(good))
        wait_for_app(page, "fitted on its own")  # the upload's own fit (the expander's label says "your data")
        assert_no_exception(page)
    assert page.context.cookies()[0]["name"] == "explorer_route"


def test_both_replicas_share_one_result_cache_and_one_set_of_run_slots(deployment):
    """Each replica runs with the same cache and lock folders (explorer.results and explorer.jobs read them)."""
    envs = []
    for pid in deployment["replica_pids"]:
        raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        envs.append(dict(item.decode().split("=", 1) for item in raw if b"=" in item))
    assert {env["EXPLORER_CACHE_DIR"] for env in envs} == {deployment["cache_dir"]}
    assert len({env["EXPLORER_JOBS_DIR"] for env in envs}) == 1
    assert len({env["STREAMLIT_SERVER_COOKIE_SECRET"] for env in envs}) == 1
    for log in Path(deployment["run_dir"], "logs").glob("replica-*.log"):
        assert "Traceback" not in log.read_text(), log.name
