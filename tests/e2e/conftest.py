"""A real `streamlit run` server and a real headless Chromium (Debian's, no browser download)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT

CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
TIMEOUT_MS = 30_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def app_process(tmp_path_factory):
    """(URL, process id) of this worker's app server."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's `chromium` (`.ci/run` does) to run browser tests")
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    env = {**os.environ, "EXPLORER_CACHE_DIR": str(tmp_path_factory.mktemp("server_results"))}
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ui.launch",
                "--server.port",
                str(port),
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
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail(f"streamlit did not become healthy; log:\n{log.read_text()[-3000:]}")
    yield url, proc.pid
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="session")
def app_url(app_process):
    return app_process[0]


@pytest.fixture(scope="session")
def server_pid(app_process):
    return app_process[1]


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import expect, sync_playwright

    # every assertion waits as long as a page load may take on a loaded 2-core machine (the default is 5 s;
    # `make test` runs two workers side by side)
    expect.set_options(timeout=TIMEOUT_MS)
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser, app_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    yield pg
    context.close()


def wait_for_app(pg, text: str) -> None:
    """Wait until the script finished and `text` is on the page."""
    from playwright.sync_api import expect

    expect(pg.get_by_text(text).first).to_be_visible(timeout=TIMEOUT_MS)
    pg.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=TIMEOUT_MS)


def assert_no_exception(pg) -> None:
    assert pg.locator('[data-testid="stException"]').count() == 0, pg.locator(
        '[data-testid="stException"]'
    ).first.inner_text()


def shoot(pg, path: Path, max_height: int = 9000) -> Path:
    """A screenshot of what is on screen; with $SHOTS_DIR set, of the whole page, copied there for looking at
    after a run.

    Streamlit scrolls inside its own main container, so for the whole page the viewport grows to the content
    first: a re-layout and a full redraw of every chart, seconds on a long page, spent only when someone looks.
    """
    if not os.environ.get("SHOTS_DIR"):
        pg.screenshot(path=str(path))
        return path
    width = pg.viewport_size["width"] if pg.viewport_size else 1400
    restore = pg.viewport_size["height"] if pg.viewport_size else 1000
    height = pg.evaluate("document.querySelector('[data-testid=\"stMain\"]')?.scrollHeight || 1000")
    pg.set_viewport_size({"width": width, "height": min(max(int(height), 1000), max_height)})
    pg.screenshot(path=str(path), full_page=True)
    pg.set_viewport_size({"width": width, "height": restore})
    target = Path(os.environ["SHOTS_DIR"])
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, target / path.name)
    return path
