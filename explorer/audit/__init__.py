"""The bias-audit workbook of slide 67: the lecture's closing method as rows a student fills in.

For every structure in a model, the lecture asks for the problem it solved, its gain now, the scale axes
that could make it a ceiling, the single-variable ablation that would show it, and the crossover point with
its uncertainty and system cost. This package holds that workbook as plain data, one job a module:

  workbook   rows and cells: the lecture's four structures pre-filled (in our words) plus one worked example
             from this app; every cell says where it comes from: `measured` (by this app, with its config),
             `claim` (the lecture's claim), `typed` (by the student) or `pending` (not measured yet, with the
             page that would measure it)
  editing    the editor's edit state applied to a workbook
  decision   the lecture's `if deployment_budget < observed_crossover` with the crossover's uncertainty,
             refusing to call a budget beyond the measured range a measurement
  measured   measured cells built from the app's own results: the four-steps ablation, the inductive-bias
             crossover, the cache cost of one chat turn, the depth sweep when shipped
  export     Markdown, CSV and JSON
  importing  JSON back through a validator with messages that name the problem
  url_state  a compact URL state (JSON -> zlib -> URL-safe base64) for small workbooks

Callers use the names re-exported here: `from explorer import audit; audit.decide(...)`.
"""

from explorer.audit.decision import YEARS_PER_10X, Decision, decide, sci
from explorer.audit.editing import apply_edits
from explorer.audit.export import source_text, table, to_csv, to_json, to_markdown
from explorer.audit.importing import MAX_IMPORT_BYTES, import_json, parse_file
from explorer.audit.measured import (
    CACHE_DEPTH,
    DEFAULT_BUDGET_LOG,
    LONG_SHARE,
    SHIPPED_FILES,
    ablation_config,
    cache_cell,
    crossover_cells,
    crossover_config,
    crossover_input,
    crossover_pairs,
    depth_cells,
    four_steps_cells,
    measurements,
    shipped_ablation,
    shipped_crossover,
    shipped_depth,
    shipped_stamp,
    window_name,
)
from explorer.audit.url_state import MAX_STATE_BYTES, MAX_URL_CHARS, decode_state, encode_state
from explorer.audit.workbook import (
    CLAIM,
    COLUMNS,
    EMPTY,
    FORMAT,
    MAX_CELL_CHARS,
    MAX_ROWS,
    MEASURED,
    NOT_MEASURED,
    PENDING,
    SOURCES,
    TEMPLATE_BY_ID,
    TEMPLATES,
    TYPED,
    VERSION,
    AuditError,
    Cell,
    Measured,
    Row,
    Spec,
    Template,
    canonical,
    cells,
    default_cell,
    default_workbook,
    claim_text,
    column_label,
    page_of,
    source_label,
)

__all__ = [
    "YEARS_PER_10X",
    "Decision",
    "decide",
    "sci",
    "apply_edits",
    "source_text",
    "table",
    "to_csv",
    "to_json",
    "to_markdown",
    "MAX_IMPORT_BYTES",
    "import_json",
    "parse_file",
    "CACHE_DEPTH",
    "DEFAULT_BUDGET_LOG",
    "LONG_SHARE",
    "SHIPPED_FILES",
    "ablation_config",
    "cache_cell",
    "crossover_cells",
    "crossover_config",
    "crossover_input",
    "crossover_pairs",
    "depth_cells",
    "four_steps_cells",
    "measurements",
    "shipped_ablation",
    "shipped_crossover",
    "shipped_depth",
    "shipped_stamp",
    "window_name",
    "MAX_STATE_BYTES",
    "MAX_URL_CHARS",
    "decode_state",
    "encode_state",
    "CLAIM",
    "COLUMNS",
    "EMPTY",
    "FORMAT",
    "MAX_CELL_CHARS",
    "MAX_ROWS",
    "MEASURED",
    "NOT_MEASURED",
    "PENDING",
    "SOURCES",
    "TEMPLATE_BY_ID",
    "TEMPLATES",
    "TYPED",
    "VERSION",
    "AuditError",
    "Cell",
    "Measured",
    "Row",
    "Spec",
    "Template",
    "canonical",
    "cells",
    "claim_text",
    "column_label",
    "default_cell",
    "default_workbook",
    "page_of",
    "source_label",
]
