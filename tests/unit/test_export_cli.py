"""`python -m explorer export`: every page's figures, written offline as valid slide files."""

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from explorer.cli import main

from tests.conftest import ROOT
from tests.e2e.conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="kaleido draws images with Chromium")


def _export(*args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "explorer", "export", *args, "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_every_format_for_one_page_in_chinese(tmp_path):
    """`--lang zh`, every format of the compute page's four figures in one call: valid slide-sized SVG, PNG and HTML
    with the text in Chinese (a CJK font the renderer finds offline), CSV with its provenance header.
    `--all` is the same call over every page: a minute more, rendering what tests/pages/test_lecture_mode.py
    already renders (every page with every section open, every figure's exports)."""
    fonts = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True).stdout
    assert "Noto Sans CJK" in fonts, "a Chinese export needs a CJK font: apt-get install fonts-noto-cjk (.ci/run does)"
    result = _export("--pages", "compute", "--out", str(tmp_path), "--format", "svg,png,html,csv", "--lang", "zh")
    by_format = {
        fmt: [Path(f["path"]) for f in result["files"] if f["format"] == fmt] for fmt in ("svg", "png", "html", "csv")
    }
    assert result["figures"] == 4 and result["lang"] == "zh" and all(len(p) == 4 for p in by_format.values())
    assert all(f["bytes"] == Path(f["path"]).stat().st_size > 0 for f in result["files"])
    for svg in by_format["svg"]:
        root = ET.parse(svg).getroot()
        assert root.get("width") == "1600" and root.get("height") == "900"
    for csv_file in by_format["csv"]:
        lines = csv_file.read_text().splitlines()
        assert lines[0].startswith("# figure:") and any(line.startswith("# evidence:") for line in lines)
    png = by_format["png"][0]
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    html = next(p for p in by_format["html"] if p.stem == "compute-trend").read_text()
    assert "<script src=" not in html and "Compute per 2024 dollar" not in html
    assert json.dumps("每 2024 年美元")[1:-1] in html  # the title, as plotly.js's JSON escapes it


def test_an_unknown_format_is_refused_in_one_line(tmp_path, capsys):
    assert main(["export", "--all", "--out", str(tmp_path), "--format", "gif"]) == 2
    err = capsys.readouterr().err
    assert "unknown format gif" in err and "Traceback" not in err
