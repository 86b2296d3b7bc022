"""The folder a deployment keeps on its own disk: the SQLite store, lock files and demo model weights."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DIR = Path(__file__).resolve().parent.parent.parent / ".cache" / "results"


def cache_dir() -> Path:
    """`$EXPLORER_CACHE_DIR` if set (tests, shared deployments), else `.cache/results` in the project."""
    return Path(os.environ.get("EXPLORER_CACHE_DIR", DEFAULT_DIR))
