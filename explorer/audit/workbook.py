"""The workbook's shape: its columns and sources, the pre-filled rows and how a row's cells resolve.

Every other audit module reads these, so they live apart from editing, import, export and the URL state.
A workbook is stored as a list of `Row`s: a pre-filled row keeps only the cells the student changed
(`typed`), so measured cells stay live (they follow the controls) and the URL state stays short.
"""

from __future__ import annotations

from dataclasses import dataclass, field

COLUMNS = {  # key -> heading; the order of the lecture's audit template (slide 67)
    "structure": "Structure (the assumption)",
    "problem": "Problem it solved",
    "axes": "Scale axes that could make it a ceiling",
    "ablation": "Single-variable ablation",
    "gain": "Gain now",
    "crossover": "Crossover ± uncertainty",
    "cost": "System cost",
}
MEASURED, CLAIM, TYPED, PENDING = "measured", "claim", "typed", "pending"
SOURCES = {MEASURED: "measured", CLAIM: "lecture's claim", TYPED: "typed by the student",
           PENDING: "not measured yet"}

MAX_ROWS = 20  # rows in a workbook (the editor, an import and the URL state)
MAX_CELL_CHARS = 600  # characters in one cell
FORMAT, VERSION = "bias-audit-workbook", 1
NOT_MEASURED = "not measured yet"
EMPTY = "to fill in"  # the label of an empty cell: the student's to write


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
    """A pre-filled cell: a claim (text), a measurement (ref, with a fallback text) or a pending note."""
    source: str
    text: str = ""
    ref: str = ""
    link: str = ""  # slug of the page that measures it


@dataclass(frozen=True)
class Cell:
    text: str
    source: str
    config: str = ""
    ref: str = ""
    link: str = ""
    values: dict = field(default_factory=dict, compare=False)

    @property
    def label(self) -> str:
        return EMPTY if self.source == TYPED and not self.text.strip() else SOURCES[self.source]


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


def _claim(text: str) -> Spec:
    return Spec(CLAIM, text)


def _ref(ref: str, link: str) -> Spec:
    return Spec(MEASURED, ref=ref, link=link)


def _pending(text: str, link: str) -> Spec:
    return Spec(PENDING, text, link=link)


NO_CURVE = "Not measured: the ablation here runs at one budget; a crossover needs both curves across budgets."
TEMPLATES = (
    Template("separate", "four-steps", {
        "structure": _claim("Separate parameters for input and target (an encoder stack and a decoder stack)"),
        "problem": _claim("Translation: the two sides are different languages with their own words, order and "
                          "roles, so small models gave each side its own weights (slides 53-54)."),
        "axes": _claim("Breadth of data and tasks, long generation, multi-turn chat: what is learned on one side "
                       "should serve the other, and scale pays for one shared set of weights (slide 55)."),
        "ablation": _claim("Shared against separate parameters, each trained at several compute budgets: compare "
                           "the two scaling curves, not one score."),
        "gain": _ref("four_steps.separate", "four-steps"),
        "crossover": _pending(NO_CURVE, "four-steps"),
        "cost": _ref("four_steps.parameters", "four-steps"),
    }),
    Template("final-layer", "depth", {
        "structure": _claim("Every decoder layer reads only the encoder's final layer"),
        "problem": _claim("With encoders of 6 to 24 layers the top layer is a good summary of the input, and one "
                          "memory shared by all decoder layers is simple (slides 59-60)."),
        "axes": _claim("Depth: in deeper stacks layers hold the input at different granularity, and an early "
                       "decoder layer may need a lower encoder layer than the top one (slide 61)."),
        "ablation": _claim("Final-layer-only against layer-aligned cross-attention (step 3) at growing depth, with "
                           "the same parameters and FLOPs."),
        "gain": _ref("four_steps.final_layer", "four-steps"),
        "crossover": _ref("depth.final_layer", "depth"),
        "cost": _ref("depth.cost", "depth"),
    }),
    Template("bidirectional", "cache", {
        "structure": _claim("Bidirectional attention over the input"),
        "problem": _claim("An input given once and read whole (translation, classification, a long input with a "
                          "short answer): every input token can use the tokens after it (slide 62)."),
        "axes": _claim("Interaction: streaming and multi-turn chat grow the input every turn; scale: after "
                       "instruction tuning the speaker saw little quality difference, an anecdote he labels as "
                       "such (slide 64)."),
        "ablation": _claim("Causal against bidirectional input at the same budget (step 4): the quality gain set "
                           "against the cost of re-encoding every turn."),
        "gain": _ref("four_steps.bidirectional", "four-steps"),
        "crossover": _pending("Not measured: needs the quality gap at several scales, and the number of turns at "
                              "which re-encoding costs more than the gap is worth.", "cache"),
        "cost": _ref("cache.turn", "cache"),
    }),
    Template("labels", "four-steps", {
        "structure": _claim("Fixed architecture labels (encoder-decoder and decoder-only as two kinds of model)"),
        "problem": _claim("A named architecture is easy to build, reproduce and compare with the next paper."),
        "axes": _claim("Components can now be swapped one at a time and serving constraints change (long chats, "
                       "caches), so a label hides which of its parts still matters."),
        "ablation": _claim("A single-variable transformation: change one structural flag at a time from one "
                           "architecture to the other (the four steps, slides 40-51)."),
        "gain": _ref("four_steps.verdict", "four-steps"),
        "crossover": _pending(NO_CURVE, "four-steps"),
    }),
    Template("locality", "inductive-bias", {
        "structure": _claim("Local attention window (this app's worked example, not in slide 67's table)"),
        "problem": _claim("Little compute: a narrow window finds the nearby answers first, because it cannot "
                          "spend attention on far positions (slides 10, 13)."),
        "axes": _claim("Compute: a narrow window can never reach far positions, so more training cannot buy "
                       "what lies beyond it; its curve flattens at a ceiling (slide 15)."),
        "ablation": _claim("Sweep the window width at equal training FLOPs over several seeds and locate where "
                           "each wider window overtakes (slide 14's b*(r))."),
        "gain": _ref("crossover.gain", "inductive-bias"),
        "crossover": _ref("crossover.pair", "inductive-bias"),
    }, example=True),
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
            return Cell(NOT_MEASURED, PENDING, ref=spec.ref, link=spec.link)
        return Cell(found.text, found.source, found.config, spec.ref, spec.link, found.values)
    return Cell(spec.text, spec.source, link=spec.link)


def default_cell(row_id: str | None, col: str, measured: dict[str, Measured]) -> Cell:
    return _default_cell(spec_of(row_id, col), measured)


def cells(row: Row, measured: dict[str, Measured]) -> dict[str, Cell]:
    """Every cell of a row: the student's text where typed, else the pre-filled or measured one."""
    return {col: Cell(row.typed[col], TYPED) if col in row.typed else default_cell(row.id, col, measured)
            for col in COLUMNS}


def canonical(row: Row, measured: dict[str, Measured]) -> Row:
    """Drop typed cells that say exactly what the pre-filled cell says: they are not the student's."""
    typed = {c: t for c, t in row.typed.items() if c in COLUMNS and t != default_cell(row.id, c, measured).text}
    return Row(row.id, typed)


def page_of(row: Row) -> str | None:
    template = template_of(row.id)
    return template.page if template else None

