"""Export as JSON, CSV and Markdown, all made of one plain table so the three files say the same."""

from __future__ import annotations

import csv
import io
import json
import re

from explorer import content
from explorer.audit.decision import Decision
from explorer.audit.workbook import (
    COLUMNS,
    FORMAT,
    SOURCES,
    VERSION,
    Cell,
    Measured,
    Row,
    cells,
    column_label,
    page_of,
    source_label,
)

BOOK = "audit"  # the exports' words, in the run's language (keys and sources stay as the import reads them)


def table(workbook: list[Row], measured: dict[str, Measured]) -> list[dict]:
    """The workbook as plain rows: id, page and every cell with its source (what every export is made of)."""
    return [{"id": row.id, "page": page_of(row), "cells": cells(row, measured)} for row in workbook]


def _cell_json(cell: Cell) -> dict:
    out = {"text": cell.text, "source": cell.source}
    if cell.config:
        out["config"] = cell.config
    if cell.ref:
        out["ref"] = cell.ref
    if cell.values:
        out["values"] = cell.values
    return out


def to_json(
    workbook: list[Row], measured: dict[str, Measured], controls: dict | None = None, decision: Decision | None = None
) -> str:
    # "columns" and "sources" are for a reader (headings and labels in the run's language); an import reads the
    # keys, the same in every language, so a file exported in one language imports in the other
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "columns": {c: column_label(c) for c in COLUMNS},
        "sources": {s: source_label(s) for s in SOURCES},
        "controls": controls or {},
        "rows": [
            {"id": r["id"], "page": r["page"], "cells": {c: _cell_json(cell) for c, cell in r["cells"].items()}}
            for r in table(workbook, measured)
        ],
    }
    if decision is not None:
        doc["decision"] = {k: getattr(decision, k) for k in ("case", "evidence", "ship", "validate", "reason", "years")}
    return json.dumps(doc, indent=2, ensure_ascii=False, default=str)


def source_text(cell: Cell) -> str:
    return f"{cell.label}: {cell.config}" if cell.config else cell.label


# what a spreadsheet would run as a formula: "-2+3+cmd|..." too; a plain negative number ("-0.5") stays a number
_CSV_FORMULA = re.compile(r"^[=+@\t\r]|^-(?![\d.]*$)")


def _csv_safe(text: str) -> str:
    return "'" + text if _CSV_FORMULA.match(text) else text


def to_csv(workbook: list[Row], measured: dict[str, Measured]) -> str:
    """One line per row; every cell is followed by its source (and the config of a measured cell)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [content.text(BOOK, "csv-row"), content.text(BOOK, "csv-page")]
        + [h for c in COLUMNS for h in (column_label(c), content.text(BOOK, "csv-source", column=column_label(c)))]
    )
    for i, r in enumerate(table(workbook, measured), 1):
        writer.writerow(
            [i, r["page"] or ""]
            + [_csv_safe(v) for cell in r["cells"].values() for v in (cell.text, source_text(cell))]
        )
    return out.getvalue()


def _md_block(text: str) -> str:
    return text.replace("\r", "").replace("\n", "\n  ") or "—"


def to_markdown(
    workbook: list[Row], measured: dict[str, Measured], decision: Decision | None = None, decision_inputs: str = ""
) -> str:
    lines = ["# " + content.text(BOOK, "md-title"), "", content.text(BOOK, "md-intro"), ""]
    for i, r in enumerate(table(workbook, measured), 1):
        lines.append(f"## {i}. {r['cells']['structure'].text.strip() or content.text(BOOK, 'md-no-structure')}")
        lines.append("")
        if r["page"]:
            lines.append(content.text(BOOK, "md-measured-on", page=r["page"]))
            lines.append("")
        for col, cell in r["cells"].items():
            if col != "structure":
                lines.append(f"- **{column_label(col)}** *({source_text(cell)})*: {_md_block(cell.text)}")
        lines.append("")
    if decision is not None:
        lines += [
            "## " + content.text(BOOK, "md-rule"),
            "",
            decision_inputs,
            "",
            content.text(BOOK, "md-ship", ship=decision.ship),
            content.text(BOOK, "md-validate", validate=decision.validate),
            content.text(
                BOOK, "md-why", evidence=content.text(BOOK, f"evidence-{decision.evidence}"), reason=decision.reason
            ),
            "",
        ]
    return "\n".join(lines)
