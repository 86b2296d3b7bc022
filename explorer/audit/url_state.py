"""The compact URL state (JSON -> zlib -> URL-safe base64), so a small workbook can be shared as a link.

A link is as untrusted as a file: it is checked with the import's validators and bounded before it is unpacked.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib

from explorer.audit.importing import cell_text, expect
from explorer.audit.workbook import COLUMNS, MAX_ROWS, TEMPLATE_BY_ID, VERSION, AuditError, Row, default_workbook

MAX_URL_CHARS = 4000  # characters of the compact URL state; larger workbooks travel as JSON
MAX_STATE_BYTES = 64_000  # decompressed size of a URL state (a guard against decompression bombs)


def encode_state(workbook: list[Row]) -> str:
    """JSON -> zlib -> URL-safe base64 without padding; "" for the untouched default workbook."""
    if workbook == default_workbook():
        return ""
    rows = []
    for row in workbook:
        if row.id and not row.typed:
            rows.append(row.id)
        else:
            rows.append({**({"i": row.id} if row.id else {}), "c": row.typed})
    raw = json.dumps({"v": VERSION, "r": rows}, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


_URLSAFE = re.compile(r"^[A-Za-z0-9_-]*$")


def decode_state(state: str) -> list[Row]:
    """The inverse of `encode_state`; AuditError names what is wrong with a damaged or foreign state."""
    if len(state) > MAX_URL_CHARS:
        raise AuditError(f"the workbook state has {len(state):,} characters; the URL holds at most {MAX_URL_CHARS:,}.")
    if not _URLSAFE.match(state):
        raise AuditError("the workbook state has characters that URL-safe base64 does not use (was the link cut "
                         "or edited?).")
    try:
        packed = base64.urlsafe_b64decode(state + "=" * (-len(state) % 4))
    except (binascii.Error, ValueError):
        raise AuditError("the workbook state is not valid base64 (was the link cut?).") from None
    inflate = zlib.decompressobj()
    try:
        raw = inflate.decompress(packed, MAX_STATE_BYTES)
    except zlib.error:
        raise AuditError("the workbook state is damaged: it does not decompress (was the link cut?).") from None
    if inflate.unconsumed_tail:
        raise AuditError(f"the workbook state unpacks to more than {MAX_STATE_BYTES:,} bytes.")
    if not inflate.eof:
        raise AuditError("the workbook state is incomplete: it stops early (was the link cut?).")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):  # RecursionError: `[[[[...` nested too deep
        raise AuditError("the workbook state does not hold JSON.") from None
    if not isinstance(doc, dict) or doc.get("v") != VERSION or not isinstance(doc.get("r"), list):
        raise AuditError(f"the workbook state is not a version {VERSION} workbook.")
    if len(doc["r"]) > MAX_ROWS:
        raise AuditError(f"the workbook state has {len(doc['r'])} rows; a workbook holds at most {MAX_ROWS}.")
    rows = []
    for i, entry in enumerate(doc["r"]):
        if isinstance(entry, str):
            entry = {"i": entry, "c": {}}
        expect(entry, dict, f"row {i + 1}", "a row")
        row_id = entry.get("i")
        if row_id is not None and (not isinstance(row_id, str) or row_id not in TEMPLATE_BY_ID):
            raise AuditError(f"row {i + 1}: unknown pre-filled row {json.dumps(row_id)[:40]}.")
        typed = entry.get("c", {})
        expect(typed, dict, f"row {i + 1}", "an object of cells")
        for col, text in typed.items():
            if col not in COLUMNS:
                raise AuditError(f"row {i + 1}: unknown column {json.dumps(col)[:40]}.")
            cell_text(text, f"row {i + 1}, {COLUMNS[col]}")
        rows.append(Row(row_id, dict(typed)))
    return rows
