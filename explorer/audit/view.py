"""The audit page's decisions, out of the page: the student's own crossover turned into the decision's input,
an imported file's controls checked against the page's ranges, the editor's rows, what the share link can
hold, the badges and lines the workbook's cards and the rule show, and student text made safe to show as
Markdown."""

from __future__ import annotations

import json
import math
import re

from explorer import content
from explorer.audit.decision import Decision
from explorer.audit.importing import MAX_IMPORT_BYTES, import_json
from explorer.audit.measured import CACHE_DEPTH, LONG_SHARE
from explorer.audit.url_state import MAX_URL_CHARS, decode_state
from explorer.audit.workbook import (
    CLAIM,
    EMPTY,
    MAX_CELL_CHARS,
    MAX_ROWS,
    MEASURED,
    PENDING,
    TEMPLATE_BY_ID,
    TYPED,
    AuditError,
    Cell,
    Row,
    column_label,
    default_workbook,
    source_label,
)
from explorer.experiments import cache as cache_exp

BOOK = "audit"  # the page's book: content/<lang>/audit.md
ROW_KINDS = {True: "example", False: "slide 67"}  # the editor's row kinds in English (`row-<kind>` in the book)
DEFAULT_MORE, DEFAULT_LESS = "the structured method", "the less-structured method"  # `default-more`, `default-less`
# the page's controls: the cache page's sizes, so the two pages read the same n and m from a shared URL (and share
# their widget keys); an imported file's controls are checked against these
N_OPTIONS = list(range(1, 17)) + [24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096]
M_OPTIONS = list(range(1, 17)) + [24, 32, 48, 64, 96, 128, 192, 256]
BUDGET_RANGE = (6.0, 30.0)  # log10 training FLOPs; the shipped crossover run covers about 7.9 to 11.1
CROSSOVER_SOURCES = ("measured here", "my own numbers")  # the crossover control's URL values (`crossover_source`)
BADGE_COLORS = {
    MEASURED: "green",
    CLAIM: "blue",
    TYPED: "orange",
    PENDING: "gray",
    EMPTY: "violet",
}  # by a cell's kind (its source, or empty)
_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=^&])")


def quick_timing(n: int, m: int) -> dict | None:
    """One chat turn timed on the cache page's model at depth CACHE_DEPTH, if it is measurable and quick enough
    to time inline (else None: the cell keeps its formula)."""
    try:
        cache_exp.check_measurable(n, m, CACHE_DEPTH)
    except ValueError:
        return None
    return (
        None
        if cache_exp.planned_seconds(n, m, CACHE_DEPTH) > cache_exp.INLINE_SECONDS
        else cache_exp.measure(n, m, CACHE_DEPTH)
    )


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
    return (
        {
            "crossover": 10**xc,
            "lo": 10 ** (xc - xu),
            "hi": 10 ** (xc + xu),
            "per_seed": [],
            "range": (10**lo, 10**hi),
            "more": more.strip() or content.text(BOOK, "default-more"),
            "less": less.strip() or content.text(BOOK, "default-less"),
        },
        reversed_range,
    )


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


def import_file(
    raw: bytes, measured: dict, allowed: dict[str, list], budget_range: tuple[float, float]
) -> tuple[list[Row], dict, list[str], list]:
    """An exported JSON file read back: (its workbook, the controls to set, notes on cells, controls refused as in
    `restore_controls`); AuditError naming the problem when the file cannot be read."""
    workbook, controls, notes = import_json(raw, measured)
    values, refused = restore_controls(controls, allowed, budget_range)
    return workbook, values, notes, refused


def editor_rows(rows: list[dict], workbook: list[Row], columns: dict[str, str]) -> list[dict]:
    """The editor's rows: what kind of row it is (slide 67, the example, or the student's), then each cell's text."""
    kinds = [
        (content.text(BOOK, "row-example") if TEMPLATE_BY_ID[r.id].example else content.text(BOOK, "row-slide"))
        if r.id
        else content.text(BOOK, "row-yours")
        for r in workbook
    ]
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


def link_notice(state: str | None, problem: str | None) -> tuple[str, str] | None:
    """What the first screen says about the link a session opened with, as (kind, text): a warning naming the
    damage (`restore_workbook`'s problem), a caption that the workbook came from it, or None without a link."""
    if problem is not None:
        return "warning", content.text(BOOK, "damaged-link", problem=escape(problem))
    return ("caption", content.text(BOOK, "link-restored")) if state else None


def link_note(state: str) -> tuple[str, str]:
    """What the share section says about the link, as (kind, text): an info when the workbook is too long for
    it (the student must export instead), else a caption of what it holds."""
    status, values = link_status(state), {"used": f"{len(state):,}", "chars": f"{MAX_URL_CHARS:,}"}
    if status == "too-long":
        return "info", content.text(BOOK, "link-too-long", **values)
    return "caption", (
        content.text(BOOK, "link-empty", **values) if status == "empty" else content.text(BOOK, "link-holds", **values)
    )


def has_edits(edits: object) -> bool:
    """Whether the data editor's state holds a change (its state is a dict of edited, added and deleted rows)."""
    return isinstance(edits, dict) and any(edits.get(k) for k in ("edited_rows", "added_rows", "deleted_rows"))


def read_upload(
    name: str, raw: bytes, measured: dict, pairs: list[str]
) -> tuple[list[Row] | None, dict, tuple[str, str, list[str]]]:
    """An uploaded file read as `import_file` does, its controls checked against the page's options (`pairs`:
    the crossover run's window pairs): (its workbook, the controls to set, what to say as (kind, message,
    notes)); no workbook when the file cannot be read, the message then says why. A refused control becomes a
    note, so the student knows which value was kept."""
    shown, allowed = escape(name), {"n": N_OPTIONS, "m": M_OPTIONS, "pair": pairs}
    try:
        workbook, values, notes, refused = import_file(raw, measured, allowed, BUDGET_RANGE)
    except AuditError as err:
        return None, {}, ("warning", content.text(BOOK, "not-imported", name=shown, problem=escape(str(err))), [])
    notes = notes + [content.text(BOOK, "refused-control", key=key, value=value) for key, value in refused]
    return workbook, values, ("success", content.text(BOOK, "imported", rows=len(workbook), name=shown), notes)


def export_controls(n: int, m: int, budget_log: float, pair: str | None) -> dict:
    """The controls an exported file carries, so an import sets them back (the pair only where a crossover run
    offers one)."""
    return {"n": n, "m": m, "budget": budget_log, **({"pair": pair} if pair else {})}


def crossover_source(option: str) -> str:
    """A `CROSSOVER_SOURCES` option as the control shows it, in the page's language."""
    return content.text(BOOK, "xsrc-measured") if option == CROSSOVER_SOURCES[0] else content.text(BOOK, "xsrc-own")


def covers(analysis: dict | None) -> str:
    """The budget help's opening: the compute range the shipped crossover run covers ("" without a run)."""
    if analysis is None:
        return ""
    first, last = math.log10(analysis["flops"][0]), math.log10(analysis["flops"][-1])
    return content.text(BOOK, "covers", first=first, last=last) + " "


def own_inputs(xc: float, xu: float, xlo: float, xhi: float, budget_log: float) -> str:
    """The rule's inputs line for the student's own crossover: its measured range low to high, whichever way
    round it was typed (`typed_crossing` swaps it too)."""
    return content.text(BOOK, "own-inputs", xc=xc, xu=xu, xlo=min(xlo, xhi), xhi=max(xlo, xhi), budget=budget_log)


def measured_inputs(crossing: dict, budget_log: float) -> str:
    """The rule's inputs line for a measured crossover (`crossover_input`): which windows, and its config."""
    return content.text(
        BOOK,
        "measured-inputs",
        less=crossing["less"],
        more=crossing["more"],
        config=crossing["config"],
        budget=budget_log,
    )


def badge(kind: str) -> str:
    """A cell kind's badge (a source, or EMPTY) as Streamlit Markdown, its words in the page's language."""
    return f":{BADGE_COLORS[kind]}-badge[{source_label(kind)}]"


def legend_badges() -> dict[str, str]:
    """Every kind's badge, by the legend's placeholder names."""
    return {"empty": badge(EMPTY), **{kind: badge(kind) for kind in (MEASURED, CLAIM, TYPED, PENDING)}}


def card_title(i: int, structure: Cell) -> str:
    """A workbook card's heading: its number, the structure (or a note that it has none yet) and its badge."""
    name = structure.text.strip() or content.text(BOOK, "no-structure")
    return f"**{i}. {escape(name)}** {badge(structure.kind)}"


def cell_line(col: str, cell: Cell) -> str:
    """One cell on a card: its badge, its column's heading and its text (a dash when empty)."""
    return f"{badge(cell.kind)} **{column_label(col)}**: {escape(cell.text) or '—'}"


def later_link(cell: Cell, row_page: str | None) -> str | None:
    """The page that will measure a pending cell, when it is not the page the card already links to."""
    return cell.link if cell.source == PENDING and cell.link and cell.link != row_page else None


def rule_line(decision: Decision) -> str:
    """The rule's verdict: a measured badge, or a red one where the budget or the crossover lies outside the
    measured range, then the reason."""
    shown = (
        badge(MEASURED) if decision.evidence == MEASURED else f":red-badge[{content.text(BOOK, 'badge-extrapolation')}]"
    )
    return f"{shown} {escape(decision.reason)}"


def how_numbers() -> dict:
    """The limits and settings the how-it-works section quotes."""
    return {
        "share": LONG_SHARE,
        "depth": CACHE_DEPTH,
        "rows": MAX_ROWS,
        "chars": MAX_CELL_CHARS,
        "bytes": f"{MAX_IMPORT_BYTES:,}",
        "url": f"{MAX_URL_CHARS:,}",
    }
