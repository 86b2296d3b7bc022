"""Editing: folds st.data_editor's edit state into a workbook, so the page keeps no workbook logic."""

from __future__ import annotations

import math

from explorer import content
from explorer.audit.workbook import COLUMNS, MAX_CELL_CHARS, MAX_ROWS, Measured, Row, canonical, column_label

BOOK = "audit"  # the editor's notes: content/<lang>/audit.md


def _clean(value: object, where: str, notes: list[str]) -> str:
    text = "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)
    if len(text) > MAX_CELL_CHARS:
        notes.append(content.text(BOOK, "note-cut", where=where, limit=MAX_CELL_CHARS, chars=len(text)))
        text = text[:MAX_CELL_CHARS]
    return text


def apply_edits(workbook: list[Row], edits: dict, measured: dict[str, Measured]) -> tuple[list[Row], list[str]]:
    """Apply an editor's edit state ({edited_rows, added_rows, deleted_rows}, rows by position) to a workbook.

    An edited cell becomes the student's; typing back exactly the pre-filled text restores its source.
    Returns the new workbook and notes about anything cut or refused.
    """
    notes: list[str] = []
    rows = [Row(r.id, dict(r.typed)) for r in workbook]
    for index, changes in (edits.get("edited_rows") or {}).items():
        i = int(index)
        if not 0 <= i < len(rows):
            continue
        for col, value in (changes or {}).items():
            if col in COLUMNS:
                rows[i].typed[col] = _clean(
                    value, content.text(BOOK, "where-cell", row=i + 1, column=column_label(col)), notes
                )
    deleted = {int(i) for i in edits.get("deleted_rows") or []}
    rows = [r for i, r in enumerate(rows) if i not in deleted]
    for added in edits.get("added_rows") or []:
        if len(rows) >= MAX_ROWS:
            notes.append(content.text(BOOK, "note-rows-dropped", limit=MAX_ROWS))
            break
        rows.append(
            Row(
                None,
                {
                    c: _clean(v, content.text(BOOK, "where-new-cell", column=column_label(c)), notes)
                    for c, v in (added or {}).items()
                    if c in COLUMNS
                },
            )
        )
    return [canonical(r, measured) for r in rows], notes
