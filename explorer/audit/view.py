"""The audit page's decisions, out of the page: the student's own crossover turned into the decision's input,
an imported file's controls checked against the page's ranges, the editor's rows, what the share link can
hold, and student text made safe to show as Markdown."""

from __future__ import annotations

import json
import re

from explorer import content
from explorer.audit.importing import import_json
from explorer.audit.measured import CACHE_DEPTH
from explorer.audit.url_state import MAX_URL_CHARS, decode_state
from explorer.audit.workbook import TEMPLATE_BY_ID, AuditError, Row, default_workbook
from explorer.experiments import cache as cache_exp

BOOK = "audit"  # the page's book: content/<lang>/audit.md
ROW_KINDS = {True: "example", False: "slide 67"}  # the editor's row kinds in English (`row-<kind>` in the book)
DEFAULT_MORE, DEFAULT_LESS = "the structured method", "the less-structured method"  # `default-more`, `default-less`
_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=^&])")


def quick_timing(n: int, m: int) -> dict | None:
    """One chat turn timed on the cache page's model at depth CACHE_DEPTH, if it is measurable and quick enough
    to time inline (else None: the cell keeps its formula)."""
    try:
        cache_exp.check_measurable(n, m, CACHE_DEPTH)
    except ValueError:
        return None
    return None if cache_exp.planned_seconds(n, m, CACHE_DEPTH) > cache_exp.INLINE_SECONDS else \
        cache_exp.measure(n, m, CACHE_DEPTH)


def escape(text: str) -> str:
    """Student text shown as plain words in Markdown: every Markdown and directive character escaped, control
    characters shown as '?'."""
    text = "".join(ch if ch.isprintable() or ch == "\n" else "?" for ch in text)
    return _MARKDOWN_SPECIALS.sub(r"\\\1", text).replace("\n", "  \n")


def typed_crossing(xc: float, xu: float, xlo: float, xhi: float, more: str, less: str) -> tuple[dict, bool]:
    """The student's own crossover (log10 FLOPs, ± decades) and measured range as the decision's input, and
    whether the range was given the wrong way round (it is swapped then)."""
    reversed_range = xlo > xhi
    lo, hi = (xhi, xlo) if reversed_range else (xlo, xhi)
    return ({"crossover": 10 ** xc, "lo": 10 ** (xc - xu), "hi": 10 ** (xc + xu), "per_seed": [],
             "range": (10 ** lo, 10 ** hi), "more": more.strip() or content.text(BOOK, "default-more"),
             "less": less.strip() or content.text(BOOK, "default-less")},
            reversed_range)


def restore_controls(controls: dict, allowed: dict[str, list], budget_range: tuple[float, float]) -> tuple[dict, list]:
    """An imported file's controls checked against the page's options: (the values to set, by control key; the
    (key, value as JSON) pairs refused). The budget may be any number in `budget_range`, rounded to 0.1; keys
    the page does not know are ignored."""
    values, refused = {}, []
    for key, value in controls.items():
        if isinstance(value, bool) or key not in (*allowed, "budget"):
            continue
        if key == "budget" and isinstance(value, (int, float)) and budget_range[0] <= value <= budget_range[1]:
            values[key] = round(float(value), 1)
        elif key in allowed and value in allowed[key]:
            values[key] = value
        else:
            refused.append((key, json.dumps(value)[:40]))
    return values, refused


def import_file(raw: bytes, measured: dict, allowed: dict[str, list],
                budget_range: tuple[float, float]) -> tuple[list[Row], dict, list[str], list]:
    """An exported JSON file read back: (its workbook, the controls to set, notes on cells, controls refused as in
    `restore_controls`); AuditError naming the problem when the file cannot be read."""
    workbook, controls, notes = import_json(raw, measured)
    values, refused = restore_controls(controls, allowed, budget_range)
    return workbook, values, notes, refused


def editor_rows(rows: list[dict], workbook: list[Row], columns: dict[str, str]) -> list[dict]:
    """The editor's rows: what kind of row it is (slide 67, the example, or the student's), then each cell's text."""
    kinds = [(content.text(BOOK, "row-example") if TEMPLATE_BY_ID[r.id].example else content.text(BOOK, "row-slide"))
             if r.id else content.text(BOOK, "row-yours") for r in workbook]
    return [{"row": kind, **{c: row["cells"][c].text for c in columns}} for kind, row in zip(kinds, rows)]


def restore_workbook(state: str | None) -> tuple[list[Row], str | None]:
    """The workbook a share link holds (the pre-filled one without a link), and what is wrong with a damaged
    link (None when nothing is): a damaged link gives the pre-filled workbook."""
    if not state:
        return default_workbook(), None
    try:
        return decode_state(state), None
    except AuditError as err:
        return default_workbook(), str(err)


def link_status(state: str) -> str:
    """Whether the share link holds the workbook: 'empty' (nothing to hold), 'holds' or 'too-long'."""
    return "empty" if not state else "holds" if len(state) <= MAX_URL_CHARS else "too-long"
