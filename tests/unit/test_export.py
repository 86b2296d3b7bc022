"""Slide export: real files from a real figure, checked by their formats' own parsers."""

import csv
import io
import xml.etree.ElementTree as ET

import numpy as np
import plotly.graph_objects as go
import pytest

from explorer import export
from explorer.evidence import Evidence, Kind
from explorer.figures.heatmaps import weights_heatmap
from explorer.figures.theme import styled
from tests.e2e.conftest import CHROMIUM


def _figure() -> go.Figure:
    fig = go.Figure(go.Scatter(x=[1, 2, 3], y=[1.0, 4.0, 9.0], name="squares"))
    fig.add_trace(weights_heatmap(np.eye(2), np.eye(2, dtype=bool), ["a", "b"], ["a", "b"]))
    return styled(fig, "A test figure", Evidence(Kind.MEASURED, "seed 0", also=(Kind.FORMULA,)))


def test_csv_has_a_provenance_header_and_every_point():
    text = export.csv_bytes(_figure(), page="test", figure_id="fig-1").decode()
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert "# evidence: measured + formula" in header and "# config / source: seed 0" in header
    rows = list(csv.reader(io.StringIO("\n".join(line for line in text.splitlines() if not line.startswith("#")))))
    assert rows[0] == ["trace", "x", "y", "z"]
    assert ["squares", "2", "4.0", ""] in rows
    assert len([r for r in rows if r[0] == "heatmap 1"]) == 4  # 2 x 2 cells, masked ones as nan


def test_html_embeds_plotly_js_and_needs_no_network():
    html = export.html_bytes(_figure()).decode()
    assert "A test figure" in html and "plotly.js" in html.lower()
    assert "<script src=" not in html  # plotly.js is inline, not loaded from a CDN


@pytest.mark.skipif(not __import__("pathlib").Path(CHROMIUM).exists(), reason="kaleido needs Chromium")
def test_images_are_valid_files_at_slide_size():
    fig = _figure()
    svg = export.image_bytes(fig, "svg")
    root = ET.fromstring(svg)
    assert root.get("width") == "1600" and root.get("height") == "900"
    assert export.image_bytes(fig, "png").startswith(b"\x89PNG\r\n\x1a\n")
    assert export.image_bytes(fig, "pdf").startswith(b"%PDF")


def test_unknown_formats_are_refused():
    with pytest.raises(ValueError, match="format must be one of"):
        export.render(_figure(), "gif")


def test_the_data_table_leaves_out_legend_only_entries_and_keeps_numbers_as_numbers():
    fig = go.Figure(go.Scatter(x=[1900, 1950], y=[0.5, 2.0], name="machines"))
    fig.add_scatter(x=[None], y=[None], name="a legend entry alone")
    fig.add_scatter(x=["late", 2000], y=[1.0, 3.0], name="mixed")
    table = export.data_table(fig)
    assert list(table.columns) == ["trace", "x", "y"]  # z held nothing
    assert list(table["trace"]) == ["machines", "machines", "mixed", "mixed"]
    assert table["y"].dtype.kind == "f" and list(table["x"]) == ["1900", "1950", "late", "2000"]


def test_data_rows_name_traces_without_the_legends_markup():
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4], name="<b>Nordhaus</b> (2001)<br>machines"))
    fig.add_scatter(x=[1], y=[1], name="按原作<br>者")
    header, rows = export.data_rows(fig)
    assert header == ["trace", "x", "y", "z"]
    assert [r[0] for r in rows] == ["Nordhaus (2001) machines", "Nordhaus (2001) machines", "按原作者"]
    assert export.csv_bytes(fig).decode().count("Nordhaus (2001) machines,") == 2  # the download says the same
