"""The workbook's shape: its columns and sources, the pre-filled rows and how a row's cells resolve.

Every other audit module reads these, so they live apart from editing, import, export and the URL state.
A workbook is stored as a list of `Row`s: a pre-filled row keeps only the cells the student changed
(`typed`), so measured cells stay live (they follow the controls) and the URL state stays short.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer import content, i18n

BOOK = "audit"  # every word of the workbook a student reads: content/<lang>/audit.md
COLUMNS = {  # key -> heading (a file's machine-read keys; the English headings); the order of slide 67's template
    "structure": "Structure (the assumption)",
    "problem": "Problem it solved",
    "axes": "Scale axes that could make it a ceiling",
    "ablation": "Single-variable ablation",
    "gain": "Gain now",
    "crossover": "Crossover ± uncertainty",
    "cost": "System cost",
}
MEASURED, CLAIM, TYPED, PENDING = "measured", "claim", "typed", "pending"
SOURCES = {MEASURED: "measured", CLAIM: "lecture's claim", TYPED: "typed by the student", PENDING: "not measured yet"}

MAX_ROWS = 20  # rows in a workbook (the editor, an import and the URL state)
MAX_CELL_CHARS = 600  # characters in one cell
FORMAT, VERSION = "bias-audit-workbook", 1
NOT_MEASURED = "not measured yet"
EMPTY = "to fill in"  # the label of an empty cell: the student's to write


def column_label(col: str) -> str:
    """A column's heading in the run's language (COLUMNS holds the English one)."""
    return content.text(BOOK, f"column-{col}")


def source_label(source: str) -> str:
    """A source's label in the run's language (SOURCES holds the English one); `EMPTY` for an empty cell."""
    return content.text(BOOK, "source-empty") if source == EMPTY else content.text(BOOK, f"source-{source}")


def claim_text(row_id: str, col: str, lang: str | None = None) -> str:
    """A pre-filled claim of the lecture, in our words, in `lang` (the run's language by default)."""
    return content.text(BOOK, f"claim-{row_id}-{col}", lang=lang)


def pending_text(key: str, lang: str | None = None) -> str:
    """A pre-filled 'not measured' cell's reason, in `lang` (the run's language by default)."""
    return content.text(BOOK, f"pending-{key}", lang=lang)


@dataclass(frozen=True)
class Measured:
    """A cell computed by this app: its text, the config that produced it, and the numbers behind it.

    `source` is PENDING when the app's results exist but do not cover the cell (a budget outside a run):
    the text then says why it is not measured.
    """

    text: str
    config: str
    values: dict = field(default_factory=dict, compare=False)
    source: str = "measured"


@dataclass(frozen=True)
class Spec:
    """A pre-filled cell: a claim, a measurement (ref) or a pending note; `key` names a claim's or a pending
    note's text in the content book (`claim-<row>-<col>`, `pending-<key>`), so it is shown in either language."""

    source: str
    key: str = ""
    ref: str = ""
    link: str = ""  # slug of the page that measures it

    def text(self, lang: str | None = None) -> str:
        """The pre-filled text in `lang` (the run's language by default); "" for a measured cell."""
        if self.source == CLAIM:
            row_id, col = self.key.split(":")
            return claim_text(row_id, col, lang)
        return pending_text(self.key, lang) if self.source == PENDING else ""

    def texts(self) -> set[str]:
        """The pre-filled text in every language: a file or an edit made in either one matches it."""
        return {self.text(lang) for lang in i18n.LANGUAGES} - {""}


@dataclass(frozen=True)
class Cell:
    text: str
    source: str
    config: str = ""
    ref: str = ""
    link: str = ""
    values: dict = field(default_factory=dict, compare=False)

    @property
    def kind(self) -> str:
        """The cell's source, or EMPTY for an empty typed cell: what its badge says."""
        return EMPTY if self.source == TYPED and not self.text.strip() else self.source

    @property
    def label(self) -> str:
        """The badge's words, in the run's language."""
        return source_label(self.kind)


@dataclass
class Row:
    """One row of the workbook: `id` of a pre-filled row (None for the student's own) and typed cells."""

    id: str | None = None
    typed: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Template:
    id: str
    page: str  # the page that measures this row
    cells: dict[str, Spec]
    example: bool = False  # not in the lecture's table: this app's own worked example


def _claims(row_id: str) -> dict[str, Spec]:
    """The row's four claim cells (structure, problem, axes, ablation), their texts in the content book."""
    return {col: Spec(CLAIM, f"{row_id}:{col}") for col in ("structure", "problem", "axes", "ablation")}


def _ref(ref: str, link: str) -> Spec:
    return Spec(MEASURED, ref=ref, link=link)


def _pending(key: str, link: str) -> Spec:
    return Spec(PENDING, key, link=link)


TEMPLATES = (
    Template(
        "separate",
        "four-steps",
        {
            **_claims("separate"),
            "gain": _ref("four_steps.separate", "four-steps"),
            "crossover": _pending("no-curve", "four-steps"),
            "cost": _ref("four_steps.parameters", "four-steps"),
        },
    ),
    Template(
        "final-layer",
        "depth",
        {
            **_claims("final-layer"),
            "gain": _ref("four_steps.final_layer", "four-steps"),
            "crossover": _ref("depth.final_layer", "depth"),
            "cost": _ref("depth.cost", "depth"),
        },
    ),
    Template(
        "bidirectional",
        "cache",
        {
            **_claims("bidirectional"),
            "gain": _ref("four_steps.bidirectional", "four-steps"),
            "crossover": _pending("bidirectional", "cache"),
            "cost": _ref("cache.turn", "cache"),
        },
    ),
    Template(
        "labels",
        "four-steps",
        {
            **_claims("labels"),
            "gain": _ref("four_steps.verdict", "four-steps"),
            "crossover": _pending("no-curve", "four-steps"),
        },
    ),
    Template(
        "locality",
        "inductive-bias",
        {
            **_claims("locality"),
            "gain": _ref("crossover.gain", "inductive-bias"),
            "crossover": _ref("crossover.pair", "inductive-bias"),
        },
        example=True,
    ),
)
TEMPLATE_BY_ID = {t.id: t for t in TEMPLATES}


class AuditError(ValueError):
    """A workbook, file or URL state that cannot be used; the message names the problem."""


def default_workbook() -> list[Row]:
    return [Row(t.id) for t in TEMPLATES]


# --- cells ----------------------------------------------------------------------------------------------


def template_of(row_id: str | None) -> Template | None:
    """The pre-filled row called `row_id`; None for the student's own rows and unknown ids."""
    return TEMPLATE_BY_ID.get(row_id) if row_id else None


def spec_of(row_id: str | None, col: str) -> Spec | None:
    """The pre-filled cell of `row_id` in column `col`, if there is one."""
    template = template_of(row_id)
    return template.cells.get(col) if template else None


def _default_cell(spec: Spec | None, measured: dict[str, Measured]) -> Cell:
    if spec is None:
        return Cell("", TYPED)
    if spec.source == MEASURED:
        found = measured.get(spec.ref)
        if found is None:
            return Cell(content.text(BOOK, "not-measured-cell"), PENDING, ref=spec.ref, link=spec.link)
        return Cell(found.text, found.source, found.config, spec.ref, spec.link, found.values)
    return Cell(spec.text(), spec.source, link=spec.link)


def default_cell(row_id: str | None, col: str, measured: dict[str, Measured]) -> Cell:
    return _default_cell(spec_of(row_id, col), measured)


def cells(row: Row, measured: dict[str, Measured]) -> dict[str, Cell]:
    """Every cell of a row: the student's text where typed, else the pre-filled or measured one."""
    return {
        col: Cell(row.typed[col], TYPED) if col in row.typed else default_cell(row.id, col, measured) for col in COLUMNS
    }


def is_prefilled(row_id: str | None, col: str, text: str, measured: dict[str, Measured]) -> bool:
    """Does `text` say exactly what the pre-filled cell says (a claim in either language)?"""
    spec = spec_of(row_id, col)
    return text == default_cell(row_id, col, measured).text or (spec is not None and text in spec.texts())


def canonical(row: Row, measured: dict[str, Measured]) -> Row:
    """Drop typed cells that say exactly what the pre-filled cell says: they are not the student's."""
    typed = {c: t for c, t in row.typed.items() if c in COLUMNS and not is_prefilled(row.id, c, t, measured)}
    return Row(row.id, typed)


def page_of(row: Row) -> str | None:
    template = template_of(row.id)
    return template.page if template else None
