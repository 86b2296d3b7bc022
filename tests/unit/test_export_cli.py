"""`python -m explorer export`: every page's figures, written offline as valid slide files."""

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.e2e.conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="kaleido draws images with Chromium")


def _export(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "explorer", "export", *args, "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_export_writes_valid_svg_and_csv_for_the_page_with_the_most_panels(tmp_path):
    """SVG through kaleido and CSV with provenance for the four-steps page, whose figures have the most panels,
    subplot titles and annotations. `--all` is the same call over every page: a minute more, rendering what
    tests/pages/test_lecture_mode.py already renders (every page with every section open, every figure's exports)."""
    result = _export("--pages", "four-steps", "--out", str(tmp_path), "--format", "svg,csv")
    assert {f["page"] for f in result["files"]} == {"four-steps"} and result["figures"] >= 8
    for f in result["files"]:
        path = Path(f["path"])
        assert path.stat().st_size == f["bytes"] > 0
        if f["format"] == "svg":
            root = ET.parse(path).getroot()
            assert root.get("width") == "1600" and root.get("height") == "900"
        else:
            lines = path.read_text().splitlines()
            assert lines[0].startswith("# figure:") and any(line.startswith("# evidence:") for line in lines)
            assert any(line.startswith("trace,x,y,z") for line in lines)


def test_png_and_standalone_html_for_one_page(tmp_path):
    result = _export("--pages", "compute", "--out", str(tmp_path), "--format", "png,html")
    formats = {f["format"] for f in result["files"]}
    assert formats == {"png", "html"} and result["figures"] == 4  # trend, rates, backtest, precision
    png = next(Path(f["path"]) for f in result["files"] if f["format"] == "png")
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    html = next(Path(f["path"]) for f in result["files"] if f["format"] == "html").read_text()
    assert "<script src=" not in html and "Compute per 2024 dollar" in html


def test_an_unknown_format_is_refused_in_one_line(tmp_path):
    out = subprocess.run([sys.executable, "-m", "explorer", "export", "--all", "--out", str(tmp_path), "--format",
                          "gif"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "unknown format gif" in out.stderr and "Traceback" not in out.stderr
