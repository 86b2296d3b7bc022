"""Every slide figure has a data table behind it (ui.render._data_table): a popover that a keyboard reaches,
holding the numbers of the CSV download as a table, built only while it is open."""

from __future__ import annotations

import csv
import io

import numpy as np
import plotly.graph_objects as go
import pytest

from explorer import export
from explorer.lecture_map import available_pages, page
from tests.pages.conftest import figures, run_page

SLIDE_PAGES = [p.slug for p in available_pages() if p.slide_figure and p.slug != "home"]


def _figure_tables(at) -> list:
    """The data tables behind figures (a page's own tables have no "trace" column)."""
    return [d for d in at.dataframe if "trace" in d.value.columns]


def _open_first_table(slug: str, lang: str = "en"):
    at = run_page(page(slug).file.removeprefix("pages/"), lang=lang)
    fig = figures(at)[0]
    key = fig["layout"]["meta"]["figure_id"]
    assert not _figure_tables(at), f"{slug}: a table was built before anyone asked for it"
    at.session_state[f"data-{key}"] = True
    return at.run(), fig


@pytest.mark.parametrize("slug", SLIDE_PAGES)
def test_the_first_figure_of_every_page_opens_its_numbers_as_a_table(slug):
    at, fig = _open_first_table(slug)
    assert not at.exception
    (table,) = _figure_tables(at)
    header, rows = export.data_rows(go.Figure(fig))
    numbers = [r for r in rows if any(v is not None and v != "" and v == v for v in r[1:4])]  # a legend entry: none
    assert len(table.value) == len(numbers) > 0  # every row of the CSV download that holds a number
    assert "trace" in table.value.columns and set(table.value.columns) <= set(header)


def test_the_compute_table_holds_the_csv_numbers_and_says_so_in_chinese():
    at, fig = _open_first_table("compute", lang="zh")
    (table,) = _figure_tables(at)
    lines = [line for line in export.csv_bytes(go.Figure(fig)).decode().splitlines() if not line.startswith("#")]
    csv_rows = [r for r in csv.DictReader(io.StringIO("\n".join(lines))) if r["x"] or r["y"] or r["z"]]
    shown = table.value
    assert len(shown) == len(csv_rows) and shown["x"].dtype.kind in "if"  # years stay numbers: they sort
    expected = [float(r["y"]) if r["y"] else np.nan for r in csv_rows]
    np.testing.assert_allclose(shown["y"].astype(float), expected, rtol=1e-12)  # an empty cell stays empty
    assert any(f"{len(shown)} 行" in c.value for c in at.caption)
    assert not any("<" in name for name in shown["trace"])  # legend markup (<br>) is not data
