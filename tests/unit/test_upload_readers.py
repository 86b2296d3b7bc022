"""What each upload reader keeps of a file: only the columns it uses (`read_rows(keep=...)`), and for the audit
import, no file parsed that holds more objects, lists and texts than an export ever does."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from bench.bench_uploads import compute_wide, lengths_wide
from explorer import audit, trend
from explorer.audit.importing import MAX_JSON_PARTS
from explorer.audit.workbook import AuditError
from explorer.csv_upload import UploadError, find_column, read_rows, require_rows
from explorer.experiments.lengths.profiles import LengthsError, read_pairs

WIDE = b"a,value,b,c,year,d\n1,10,2,3,1990,4\n5,100,6,7,2000,8\n9,1000\n"


def test_kept_rows_hold_only_the_used_cells_in_the_order_asked():
    def keep(header):
        return find_column(header, ("year",)), find_column(header, ("value",)), find_column(header, ("name",))

    header, body = read_rows(WIDE, 10, keep=keep)
    assert header == ["a", "value", "b", "c", "year", "d"]
    assert body == [(2, ("1990", "10", None)), (3, ("2000", "100", None)), (4, (None, "1000", None))]
    with pytest.raises(UploadError, match="Line 4 has fewer fields"):  # the short row is still named
        require_rows(body, [0, 1])
    require_rows(body[:2], [0, 1])


def test_a_wide_upload_reads_the_same_as_its_used_columns_alone():
    wide = compute_wide()
    header, body = read_rows(wide, trend.MAX_ROWS)
    year, value = header.index("year"), header.index("value")
    narrow = ("year,value\n" + "\n".join(f"{r[year]},{r[value]}" for _, r in body) + "\n").encode()
    got, expected = trend.validate_upload(wide), trend.validate_upload(narrow)
    assert got[["year", "value"]].equals(expected[["year", "value"]]) and len(got) == 10_000
    assert got["name"].tolist() == expected["name"].tolist() == [f"line {n}" for n, _ in body]
    pairs = read_pairs(lengths_wide())
    assert len(pairs) == 10_000 and pairs["input_len"].min() >= 1
    with pytest.raises(LengthsError, match="fewer fields"):
        read_pairs(b"x,input_len,y,target_len\n1,2,3,4\n1,2,3\n")


def test_a_wide_upload_costs_what_its_used_columns_cost():
    """64 columns, 4.5 MB: holding every cell took +32 MB of strings; keeping two, a few MB."""
    wide = compute_wide()
    tracemalloc.start()
    trend.validate_upload(wide)
    peak_mb = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    assert peak_mb < 8, peak_mb


def test_an_import_with_more_parts_than_an_export_is_refused_before_parsing():
    head = '{"format": "%s", "version": %d, "rows": [' % (audit.workbook.FORMAT, audit.workbook.VERSION)
    many = (head + ",".join(["{}"] * MAX_JSON_PARTS) + "]}").encode()
    with pytest.raises(AuditError, match="more than 20,000 objects, lists and texts"):
        audit.import_json(many, {})
    texts = (head + ",".join(['"ab"'] * MAX_JSON_PARTS) + "]}").encode()
    with pytest.raises(AuditError, match="more than 20,000"):
        audit.import_json(texts, {})
    # brackets inside texts are not counted: a full export of bracket-filled cells imports
    row = audit.Row(None, {c: "[{" * 300 for c in audit.COLUMNS})
    full = audit.to_json([row] * audit.MAX_ROWS, {}, {}).encode()
    assert full.count(b"[") + full.count(b"{") > MAX_JSON_PARTS
    workbook, _, _ = audit.import_json(full, {})
    assert len(workbook) == audit.MAX_ROWS
    assert json.loads(full)["rows"][0]["cells"]


def _doc_row(doc: str, label: str) -> str:
    rows = [line for line in doc.splitlines() if line.startswith("| " + label)]
    assert len(rows) == 1, label
    return rows[0]


def test_the_limits_page_states_the_upload_numbers_the_code_has():
    import tomllib

    from explorer import csv_upload
    from explorer.audit import importing, url_state, workbook
    from explorer.experiments.lengths import profiles
    from tests.conftest import ROOT
    from ui.upload_caps import MB, Caps

    doc = (ROOT / "docs" / "limits.md").read_text()
    server_mb = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    caps = Caps()
    expected = {
        "Size of any uploaded file": f"{server_mb} MB",
        "Fields in one CSV line": f"{csv_upload.MAX_COLUMNS}",
        "Characters in one CSV field": f"{csv_upload.MAX_FIELD_CHARS:,}",
        "Characters in one CSV line": f"{csv_upload.MAX_LINE_CHARS:,}",
        "Blank lines in a CSV": f"{csv_upload.MAX_BLANK_LINES:,}",
        "Compute page: rows": f"{trend.MAX_ROWS:,}",
        "Compute page: bootstrap": f"{trend.N_BOOT:,}",
        "Lengths page: rows": f"{profiles.MAX_ROWS:,}",
        "Lengths page: bytes": f"{profiles.MAX_BYTES:,}",
        "Lengths page: tokens": f"{profiles.MAX_LENGTH:,}",
        "Lengths page: pairs typed": f"{profiles.MAX_TYPED}",
        "Audit page: bytes": f"{importing.MAX_IMPORT_BYTES:,}",
        "Audit page: objects": f"{importing.MAX_JSON_PARTS:,}",
        "Audit page: rows": f"{workbook.MAX_ROWS}",
        "Audit page: characters in one cell": f"{workbook.MAX_CELL_CHARS}",
        "Audit page: characters of the workbook": f"{url_state.MAX_URL_CHARS:,}",
        "Audit page: decompressed": f"{url_state.MAX_STATE_BYTES:,}",
        "Files held by one tab": f"| {caps.tab_files} |",
        "Bytes held by one tab": f"{caps.tab_bytes / MB:g} MB",
        "Files sent from one client address": f"| {caps.address_files} |",
        "The window for files sent": f"{caps.window_s:g} s",
        "Bytes held by all tabs": f"{caps.address_bytes / MB:g} MB",
        "Files held by the server": f"{caps.server_files:,}",
        "Bytes held by the server": f"{caps.server_bytes / MB:g} MB",
        "Extra peak memory of the page run": f"{csv_upload.UPLOAD_PEAK_MB} MB",
        "Memory of the bootstrap": f"{trend.BLOCK_BYTES / MB:g} MB",
    }
    for label, number in expected.items():
        assert number in _doc_row(doc, label), (label, number)
