"""Shared test set-up: results go to a temporary cache, never into the developer's .cache/."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

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
