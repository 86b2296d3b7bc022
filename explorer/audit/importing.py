"""Import of an exported JSON file: a file is untrusted, so every refusal names the problem.

Its validators also check the URL state (`explorer.audit.url_state`).
"""

from __future__ import annotations

import json
import re

from explorer import content, shapes
from explorer.audit.workbook import (
    CLAIM,
    COLUMNS,
    FORMAT,
    MAX_CELL_CHARS,
    MAX_ROWS,
    MEASURED,
    PENDING,
    SOURCES,
    TEMPLATE_BY_ID,
    TYPED,
    VERSION,
    AuditError,
    Measured,
    Row,
    canonical,
    source_label,
    spec_of,
)

BOOK = "audit"  # the refusals and notes a student reads: content/<lang>/audit.md

MAX_IMPORT_BYTES = 1_000_000  # size of a JSON file to import: the uploader's own 1 MB, in bytes
# Objects, lists and strings in a file to import, counted before it is parsed: a full export (20 rows of every
# column, the controls) has about 1,000, while a 1 MB file of `{},{},...` would become 333,000 Python dicts
# (+24 MB of memory for one upload).
MAX_JSON_PARTS = 20_000
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def _check_parts(raw: bytes) -> None:
    """AuditError when the file holds more objects, lists and strings than MAX_JSON_PARTS (brackets inside
    strings not counted), so a file made to cost memory is refused before the parser builds it."""
    strings = 0
    containers = 0
    start = 0
    for match in _JSON_STRING.finditer(raw):
        strings += 1
        containers += raw.count(b"{", start, match.start()) + raw.count(b"[", start, match.start())
        start = match.end()
        if strings + containers > MAX_JSON_PARTS:
            break
    containers += raw.count(b"{", start) + raw.count(b"[", start)
    if strings + containers > MAX_JSON_PARTS:
        raise AuditError(content.text(BOOK, "error-file-parts", limit=f"{MAX_JSON_PARTS:,}"))


def type_name(value: object) -> str:
    """A JSON value's kind in the words of an error message."""
    kinds = {
        dict: "object",
        list: "list",
        str: "text",
        bool: "boolean",
        int: "number",
        float: "number",
        type(None): "null",
    }
    kind = kinds.get(type(value))
    return content.text(BOOK, f"json-{kind}") if kind else type(value).__name__


def expect(value: object, kind: type, where: str, what: str) -> None:
    """AuditError at `where` unless `value` is a `kind` (a bool is not a number); `what` names the expected kind
    (`expected-<what>` in the content book)."""
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise AuditError(
            content.text(
                BOOK, "error-expected", where=where, what=content.text(BOOK, f"expected-{what}"), got=type_name(value)
            )
        )


def cell_text(value: object, where: str) -> str:
    """`value` when it is text that fits a cell, else AuditError at `where`."""
    expect(value, str, where, "text")
    if len(value) > MAX_CELL_CHARS:
        raise AuditError(content.text(BOOK, "error-cell-long", where=where, chars=len(value), limit=MAX_CELL_CHARS))
    return value


def parse_file(raw: bytes) -> dict:
    """Bytes of an uploaded file -> the JSON object, or AuditError naming why not."""
    if len(raw) > MAX_IMPORT_BYTES:
        raise AuditError(content.text(BOOK, "error-file-large", bytes=f"{len(raw):,}", limit=f"{MAX_IMPORT_BYTES:,}"))
    _check_parts(raw)
    if not raw.strip():
        raise AuditError(content.text(BOOK, "error-file-empty"))
    if b"\x00" in raw:
        raise AuditError(content.text(BOOK, "error-file-binary"))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AuditError(content.text(BOOK, "error-file-not-utf8")) from None
    try:
        doc = shapes.loads(text, limit=MAX_IMPORT_BYTES)  # the one strict decoder: only ParseError, whatever it holds
    except shapes.ParseError as err:
        raise _refusal(err) from None
    if not isinstance(doc, dict):
        raise AuditError(content.text(BOOK, "error-not-object", kind=type_name(doc)))
    return doc


def _refusal(err: shapes.ParseError) -> AuditError:
    """What a student reads when the strict decoder refuses a file, by the rule it broke."""
    if err.kind == "length":
        return AuditError(
            content.text(BOOK, "error-file-large", bytes=str(err).split(" ")[0], limit=f"{MAX_IMPORT_BYTES:,}")
        )
    if err.kind == "depth":
        return AuditError(content.text(BOOK, "error-too-deep"))
    if err.kind == "number":
        return AuditError(content.text(BOOK, "error-number"))
    if err.kind == "text":
        return AuditError(content.text(BOOK, "error-lone-surrogate"))
    if err.kind == "encoding":
        return AuditError(content.text(BOOK, "error-file-not-utf8"))
    return AuditError(
        content.text(
            BOOK, "error-not-json", message=str(err).split(" at line ")[0], line=err.line or 1, column=err.column or 1
        )
    )


def _import_cell(row_id: str | None, col: str, cell: object, where: str, notes: list[str]) -> str | None:
    """The typed text this cell becomes, or None when it is the pre-filled cell (re-measured live)."""
    expect(cell, dict, where, "cell")
    text = cell_text(cell.get("text"), f"{where}.text")
    source = cell.get("source")
    if not isinstance(source, str) or source not in SOURCES:  # a list or object is not even hashable
        raise AuditError(
            content.text(
                BOOK,
                "error-source",
                where=where,
                sources=", ".join(SOURCES),
                got=json.dumps(source)[:40] if isinstance(source, str) else type_name(source),
            )
        )
    spec = spec_of(row_id, col)
    if source == TYPED:
        return text
    if source == CLAIM and spec is not None and spec.source == CLAIM and text in spec.texts():
        return None  # the claim in either language: shown in the page's language
    if source in (MEASURED, PENDING) and spec is not None and spec.source in (MEASURED, PENDING):
        return None  # a measured cell is measured again here, never taken from a file on trust
    why = content.text(BOOK, "note-differs") if spec else content.text(BOOK, "note-no-cell")
    notes.append(content.text(BOOK, "note-kept-typed", where=where, label=source_label(source), why=why))
    return text


def import_json(raw: bytes, measured: dict[str, Measured]) -> tuple[list[Row], dict, list[str]]:
    """A JSON file exported by this page -> (workbook, controls, notes). AuditError names what is wrong."""
    doc = parse_file(raw)
    if doc.get("format") != FORMAT:
        found = doc.get("format")
        raise AuditError(
            content.text(
                BOOK,
                "error-format",
                format=FORMAT,
                got=json.dumps(found)[:40] if isinstance(found, str) else type_name(found),
            )
        )
    if doc.get("version") != VERSION:
        raise AuditError(content.text(BOOK, "error-version", version=VERSION, got=json.dumps(doc.get("version"))[:20]))
    rows = doc.get("rows")
    expect(rows, list, "rows", "rows")
    if len(rows) > MAX_ROWS:
        raise AuditError(content.text(BOOK, "error-rows", rows=len(rows), limit=MAX_ROWS))
    controls = doc.get("controls", {})
    expect(controls, dict, "controls", "object")
    notes: list[str] = []
    workbook = []
    for i, row in enumerate(rows):
        where = f"rows[{i}]"
        expect(row, dict, where, "row")
        row_id = row.get("id")
        if row_id is not None:
            expect(row_id, str, f"{where}.id", "id")
            if row_id not in TEMPLATE_BY_ID:
                notes.append(content.text(BOOK, "note-unknown-row", where=where, id=json.dumps(row_id)[:40]))
                row_id = None
        row_cells = row.get("cells")
        expect(row_cells, dict, f"{where}.cells", "cells")
        unknown = [c for c in row_cells if c not in COLUMNS]
        if unknown:
            raise AuditError(
                content.text(
                    BOOK, "error-column", where=where, column=json.dumps(unknown[0])[:40], columns=", ".join(COLUMNS)
                )
            )
        typed = {}
        for col, cell in row_cells.items():
            text = _import_cell(row_id, col, cell, f"{where}.cells.{col}", notes)
            if text is not None:
                typed[col] = text
        workbook.append(canonical(Row(row_id, typed), measured))
    return workbook, controls, notes
