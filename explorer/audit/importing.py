"""Import of an exported JSON file: a file is untrusted, so every refusal names the problem.

Its validators also check the URL state (`explorer.audit.url_state`).
"""

from __future__ import annotations

import json

from explorer.audit.workbook import (CLAIM, COLUMNS, FORMAT, MAX_CELL_CHARS, MAX_ROWS, MEASURED, PENDING, SOURCES,
                                     TEMPLATE_BY_ID, TYPED, VERSION, AuditError, Measured, Row, canonical, spec_of)

MAX_IMPORT_BYTES = 1_000_000  # size of a JSON file to import: the uploader's own 1 MB, in bytes


def type_name(value: object) -> str:
    """A JSON value's kind in the words of an error message."""
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", int: "a number", float: "a number",
            type(None): "null"}.get(type(value), type(value).__name__)


def expect(value: object, kind: type, where: str, what: str) -> None:
    """AuditError at `where` unless `value` is a `kind` (a bool is not a number)."""
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise AuditError(f"{where}: expected {what}, got {type_name(value)}.")


def cell_text(value: object, where: str) -> str:
    """`value` when it is text that fits a cell, else AuditError at `where`."""
    expect(value, str, where, "text")
    if len(value) > MAX_CELL_CHARS:
        raise AuditError(f"{where}: {len(value)} characters; a cell holds at most {MAX_CELL_CHARS}.")
    return value


def parse_file(raw: bytes) -> dict:
    """Bytes of an uploaded file -> the JSON object, or AuditError naming why not."""
    if len(raw) > MAX_IMPORT_BYTES:
        raise AuditError(f"The file has {len(raw):,} bytes; a workbook file may have at most {MAX_IMPORT_BYTES:,}.")
    if not raw.strip():
        raise AuditError("The file is empty.")
    if b"\x00" in raw:
        raise AuditError("This is a binary file, not JSON text. Upload a workbook exported as JSON from this page.")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AuditError("This file is not UTF-8 text (a binary file?). Upload a workbook exported as JSON "
                         "from this page.") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise AuditError(f"Not JSON: {err.msg} at line {err.lineno}, column {err.colno}.") from None
    except RecursionError:  # `[[[[...` a thousand deep: the parser gives up before any schema check
        raise AuditError("Not a workbook: the JSON is nested too deeply.") from None
    if not isinstance(doc, dict):
        raise AuditError(f"Wrong schema: the file holds {type_name(doc)}, not a workbook object.")
    return doc


def _import_cell(row_id: str | None, col: str, cell: object, where: str, notes: list[str]) -> str | None:
    """The typed text this cell becomes, or None when it is the pre-filled cell (re-measured live)."""
    expect(cell, dict, where, "an object with text and source")
    text = cell_text(cell.get("text"), f"{where}.text")
    source = cell.get("source")
    if not isinstance(source, str) or source not in SOURCES:  # a list or object is not even hashable
        raise AuditError(f"{where}.source: expected one of {', '.join(SOURCES)}, got "
                         f"{json.dumps(source)[:40] if isinstance(source, str) else type_name(source)}.")
    spec = spec_of(row_id, col)
    if source == TYPED:
        return text
    if source == CLAIM and spec is not None and spec.source == CLAIM and spec.text == text:
        return None
    if source in (MEASURED, PENDING) and spec is not None and spec.source in (MEASURED, PENDING):
        return None  # a measured cell is measured again here, never taken from a file on trust
    label = SOURCES[source]
    why = "the pre-filled cell differs" if spec else "no pre-filled cell is there"
    notes.append(f"{where}: labelled \"{label}\", but {why}; "
                 "kept as typed by the student.")
    return text


def import_json(raw: bytes, measured: dict[str, Measured]) -> tuple[list[Row], dict, list[str]]:
    """A JSON file exported by this page -> (workbook, controls, notes). AuditError names what is wrong."""
    doc = parse_file(raw)
    if doc.get("format") != FORMAT:
        found = doc.get("format")
        raise AuditError(f"Wrong schema: \"format\" must be \"{FORMAT}\", got "
                         f"{json.dumps(found)[:40] if isinstance(found, str) else type_name(found)}. "
                         "Is this a workbook exported from this page?")
    if doc.get("version") != VERSION:
        raise AuditError(f"Wrong schema: this page reads version {VERSION} workbooks, the file says "
                         f"{json.dumps(doc.get('version'))[:20]}.")
    rows = doc.get("rows")
    expect(rows, list, "rows", "a list of rows")
    if len(rows) > MAX_ROWS:
        raise AuditError(f"rows: {len(rows)} rows; a workbook holds at most {MAX_ROWS}.")
    controls = doc.get("controls", {})
    expect(controls, dict, "controls", "an object")
    notes: list[str] = []
    workbook = []
    for i, row in enumerate(rows):
        where = f"rows[{i}]"
        expect(row, dict, where, "an object with cells")
        row_id = row.get("id")
        if row_id is not None:
            expect(row_id, str, f"{where}.id", "text or null")
            if row_id not in TEMPLATE_BY_ID:
                notes.append(f"{where}.id: no pre-filled row is called {json.dumps(row_id)[:40]}; imported as "
                             "your own row.")
                row_id = None
        row_cells = row.get("cells")
        expect(row_cells, dict, f"{where}.cells", "an object of cells")
        unknown = [c for c in row_cells if c not in COLUMNS]
        if unknown:
            raise AuditError(f"{where}.cells: unknown column {json.dumps(unknown[0])[:40]}; the columns are "
                             f"{', '.join(COLUMNS)}.")
        typed = {}
        for col, cell in row_cells.items():
            text = _import_cell(row_id, col, cell, f"{where}.cells.{col}", notes)
            if text is not None:
                typed[col] = text
        workbook.append(canonical(Row(row_id, typed), measured))
    return workbook, controls, notes

