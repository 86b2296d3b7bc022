"""The compact URL state (JSON -> zlib -> URL-safe base64), so a small workbook can be shared as a link.

A link is as untrusted as a file: it is checked with the import's validators and bounded before it is unpacked.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib

from explorer import content, shapes
from explorer.audit.importing import cell_text, expect
from explorer.audit.workbook import (
    COLUMNS,
    MAX_ROWS,
    TEMPLATE_BY_ID,
    VERSION,
    AuditError,
    Row,
    column_label,
    default_workbook,
)

BOOK = "audit"  # what a damaged link's notice says: content/<lang>/audit.md

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
        raise AuditError(content.text(BOOK, "state-long", chars=f"{len(state):,}", limit=f"{MAX_URL_CHARS:,}"))
    if not _URLSAFE.match(state):
        raise AuditError(content.text(BOOK, "state-characters"))
    try:
        packed = base64.urlsafe_b64decode(state + "=" * (-len(state) % 4))
    except (binascii.Error, ValueError):
        raise AuditError(content.text(BOOK, "state-base64")) from None
    inflate = zlib.decompressobj()
    try:
        raw = inflate.decompress(packed, MAX_STATE_BYTES)
    except zlib.error:
        raise AuditError(content.text(BOOK, "state-damaged")) from None
    if inflate.unconsumed_tail:
        raise AuditError(content.text(BOOK, "state-large", limit=f"{MAX_STATE_BYTES:,}"))
    if not inflate.eof:
        raise AuditError(content.text(BOOK, "state-incomplete"))
    try:
        doc = shapes.loads(raw, limit=MAX_STATE_BYTES)  # the one strict decoder: only ParseError, whatever it holds
    except shapes.ParseError as err:
        if err.kind == "number":
            raise AuditError(content.text(BOOK, "state-number")) from None
        raise AuditError(content.text(BOOK, "state-not-json")) from None
    if not isinstance(doc, dict) or doc.get("v") != VERSION or not isinstance(doc.get("r"), list):
        raise AuditError(content.text(BOOK, "state-version", version=VERSION))
    if len(doc["r"]) > MAX_ROWS:
        raise AuditError(content.text(BOOK, "state-rows", rows=len(doc["r"]), limit=MAX_ROWS))
    rows = []
    for i, entry in enumerate(doc["r"]):
        if isinstance(entry, str):
            entry = {"i": entry, "c": {}}
        where = content.text(BOOK, "where-row", row=i + 1)
        expect(entry, dict, where, "state-row")
        row_id = entry.get("i")
        if row_id is not None and (not isinstance(row_id, str) or row_id not in TEMPLATE_BY_ID):
            raise AuditError(content.text(BOOK, "state-unknown-row", where=where, id=json.dumps(row_id)[:40]))
        typed = entry.get("c", {})
        expect(typed, dict, where, "cells")
        for col, text in typed.items():
            if col not in COLUMNS:
                raise AuditError(content.text(BOOK, "state-unknown-column", where=where, column=json.dumps(col)[:40]))
            cell_text(text, content.text(BOOK, "where-cell", row=i + 1, column=column_label(col)))
        rows.append(Row(row_id, dict(typed)))
    return rows
