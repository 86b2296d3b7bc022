"""Shared test set-up: results go to a temporary cache, never into the developer's .cache/."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The slowest test files: seconds of pytest time each on 2 shared cores (2026-12-06). `make test` hands whole files
# to its two workers in collection order (`--no-loadscope-reorder`); these go first, so no long file starts last
# and keeps one worker busy while the other idles (xdist's own order, most tests first, started them last and ran
# about a minute longer). Stale numbers cost only time, never a result.
SLOW_FILES = {
    "tests/e2e/test_first_screen_browser.py": 118,
    "tests/unit/test_reproduce.py": 102,
    "tests/test_bench_quick.py": 91,
    "tests/unit/test_ladder.py": 86,
    "tests/pages/test_hostile_input.py": 85,
    "tests/e2e/test_four_renderings_browser.py": 76,
    "tests/e2e/test_class_browser.py": 76,
    "tests/e2e/test_cache_browser.py": 50,
    "tests/pages/test_depth_page.py": 46,
    "tests/e2e/test_four_steps_browser.py": 43,
    "tests/pages/test_story_first.py": 40,
    "tests/e2e/test_hostile_uploads_browser.py": 39,
    "tests/e2e/test_audit_browser.py": 39,
    "tests/pages/test_four_steps_page.py": 37,
    "tests/pages/test_data_table.py": 30,
    "tests/e2e/test_lecture_mode_browser.py": 28,
    "tests/pages/test_lecture_mode.py": 26,
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slowest files first (a stable sort: every other file and every file's own tests keep their order)."""
    items.sort(key=lambda item: -SLOW_FILES.get(item.path.relative_to(ROOT).as_posix(), 0))


# the store fixtures (`store`, on SQLite and PostgreSQL, and `postgres_url`), for every test that names them
pytest_plugins = ("tests.store",)


@pytest.fixture(autouse=True, scope="session")
def _private_result_cache(tmp_path_factory):
    os.environ["EXPLORER_CACHE_DIR"] = str(tmp_path_factory.mktemp("results"))
    yield


@pytest.fixture(autouse=True, scope="session")
def _full_error_details():
    """The app hides tracebacks from students (.streamlit/config.toml); tests want to read them."""
    from streamlit import config

    config.set_option("client.showErrorDetails", "full")
    yield


@pytest.fixture(autouse=True, scope="session")
def _components_scanned_once():
    """Every AppTest scans all installed packages for Streamlit components (0.1-0.2 s each, over a thousand
    times in `make test`); the installed packages do not change during a test session, so scan once."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    found = scan()
    manifest_scanner.scan_component_manifests = lambda max_workers=None: list(found)
    yield
    manifest_scanner.scan_component_manifests = scan
