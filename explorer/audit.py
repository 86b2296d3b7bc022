"""The bias-audit workbook of slide 67: the lecture's closing method as rows a student fills in.

For every structure in a model, the lecture asks for the problem it solved, its gain now, the scale axes
that could make it a ceiling, the single-variable ablation that would show it, and the crossover point with
its uncertainty and system cost. This module holds that workbook as plain data:

  rows and cells   the lecture's four structures pre-filled (in our words) plus one worked example from
                   this app; every cell says where it comes from: `measured` (by this app, with its
                   config), `claim` (the lecture's claim), `typed` (by the student) or `pending` (not
                   measured yet, with the page that would measure it)
  measurements     measured cells built from the app's own results: the four-steps ablation, the
                   inductive-bias crossover, the cache cost of one chat turn, the depth sweep when shipped
  decision rule    the lecture's `if deployment_budget < observed_crossover` with the crossover's
                   uncertainty, refusing to call a budget beyond the measured range a measurement
  export / import  Markdown, CSV and JSON; JSON comes back through a validator with messages that name
                   the problem; a compact URL state (JSON -> zlib -> URL-safe base64) for small workbooks

A workbook is stored as a list of `Row`s: a pre-filled row keeps only the cells the student changed
(`typed`), so measured cells stay live (they follow the controls) and the URL state stays short.
"""

from __future__ import annotations

import base64
import binascii
import csv
import io
import json
import math
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

# --- the workbook's shape -------------------------------------------------------------------------------

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
MAX_IMPORT_BYTES = 200_000  # size of a JSON file to import
MAX_URL_CHARS = 4000  # characters of the compact URL state; larger workbooks travel as JSON
MAX_STATE_BYTES = 64_000  # decompressed size of a URL state (a guard against decompression bombs)
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
    template = TEMPLATE_BY_ID.get(row_id) if row_id else None
    return _default_cell(template.cells.get(col) if template else None, measured)


def cells(row: Row, measured: dict[str, Measured]) -> dict[str, Cell]:
    """Every cell of a row: the student's text where typed, else the pre-filled or measured one."""
    return {col: Cell(row.typed[col], TYPED) if col in row.typed else default_cell(row.id, col, measured)
            for col in COLUMNS}


def canonical(row: Row, measured: dict[str, Measured]) -> Row:
    """Drop typed cells that say exactly what the pre-filled cell says: they are not the student's."""
    typed = {c: t for c, t in row.typed.items() if c in COLUMNS and t != default_cell(row.id, c, measured).text}
    return Row(row.id, typed)


def page_of(row: Row) -> str | None:
    template = TEMPLATE_BY_ID.get(row.id) if row.id else None
    return template.page if template else None


# --- editing (st.data_editor's edit state) -------------------------------------------------------------

def _clean(value: object, where: str, notes: list[str]) -> str:
    text = "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)
    if len(text) > MAX_CELL_CHARS:
        notes.append(f"{where}: cut to {MAX_CELL_CHARS} characters (it had {len(text)}).")
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
                rows[i].typed[col] = _clean(value, f"row {i + 1}, {COLUMNS[col]}", notes)
    deleted = {int(i) for i in edits.get("deleted_rows") or []}
    rows = [r for i, r in enumerate(rows) if i not in deleted]
    for added in edits.get("added_rows") or []:
        if len(rows) >= MAX_ROWS:
            notes.append(f"A workbook holds at most {MAX_ROWS} rows; the rows added beyond that were dropped.")
            break
        rows.append(Row(None, {c: _clean(v, f"new row, {COLUMNS[c]}", notes) for c, v in (added or {}).items()
                               if c in COLUMNS}))
    return [canonical(r, measured) for r in rows], notes


# --- the decision rule ------------------------------------------------------------------------------------

YEARS_PER_10X = 5.0  # slide 7's rate: compute per dollar grows 10x every 5 years (a fit, not a law)


@dataclass(frozen=True)
class Decision:
    case: str  # below | inside | above | no-crossover | extrapolation
    evidence: str  # "measured" when the budget and the crossover lie in the measured range, else "extrapolation"
    ship: str
    validate: str
    reason: str
    years: float | None = None  # years until the budget reaches the crossover at slide 7's rate (an extrapolation)


def sci(x: float, digits: int = 3) -> str:
    """1.11e10, not 1.11e+10: compact and readable on a slide."""
    if x == math.inf:
        return "∞"
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def decide(budget: float, crossover: float | None, lo: float | None, hi: float | None,
           measured_range: tuple[float, float], more: str, less: str) -> Decision:
    """Slide 67's rule: ship the structured method below the crossover, validate the less-structured above it.

    `lo`..`hi` is the crossover's uncertainty (the seeds' spread; `hi` is inf when some seeds never cross
    within the measured range). A budget or a crossover outside `measured_range` makes the answer an
    extrapolation, and it is labelled so.
    """
    r_lo, r_hi = measured_range
    if not (budget > 0 and r_lo > 0 and r_hi >= r_lo):
        raise ValueError("the budget and the measured range must be positive FLOP counts, lowest first")
    where = f"the measured range {sci(r_lo)} to {sci(r_hi)} FLOPs"
    if crossover is None:
        if not r_lo <= budget <= r_hi:
            return Decision("extrapolation", "extrapolation", f"{more}, provisionally",
                            f"Measure both methods at {sci(budget)} FLOPs: nothing is measured there.",
                            f"No crossover was observed in {where}, and your budget {sci(budget)} lies outside "
                            "it: anything said about it is an extrapolation, not a measurement.")
        return Decision("no-crossover", MEASURED, more,
                        f"Extend both curves beyond {sci(r_hi)} FLOPs: a crossover there, if any, is unmeasured.",
                        f"{less} did not overtake {more} in {where}.")
    lo = crossover if lo is None else lo
    hi = crossover if hi is None else hi
    years = YEARS_PER_10X * math.log10(crossover / budget) if budget < crossover else None
    outside = [] if r_lo <= budget <= r_hi else [f"your budget {sci(budget)}"]
    if not r_lo <= crossover <= r_hi:
        outside.append(f"the crossover {sci(crossover)}")
    if outside:
        side = "below" if budget < lo else "above" if budget > hi else "inside the uncertainty of"
        return Decision(
            "extrapolation", "extrapolation",
            f"{more}, provisionally" if budget <= hi else f"nothing new until {less} is validated",
            f"Measure both methods at {sci(budget)} FLOPs before deciding; report that crossover with its spread.",
            f"{_capital(' and '.join(outside))} {'lies' if len(outside) == 1 else 'lie'} outside {where}. "
            f"Read past the data, your budget sits {side} the crossover, but that is an extrapolation, not a "
            "measurement.", years)
    span = f"{sci(lo)} to {sci(hi)}" if hi < math.inf else f"{sci(lo)} to beyond {sci(r_hi)} (some seeds never cross)"
    if budget < lo:
        return Decision("below", MEASURED, more,
                        f"Keep training {less} alongside: re-measure both as your budget approaches {sci(lo)}, "
                        "and keep both curves and their failure cases.",
                        f"Your budget {sci(budget)} lies below the crossover {sci(crossover)} (seeds: {span}), "
                        f"where {more} is ahead.", years)
    if budget <= hi:
        return Decision("inside", MEASURED, f"{more}, for now",
                        f"Run more seeds at {sci(budget)} FLOPs: the crossover's spread ({span}) covers your "
                        "budget, so this measurement cannot tell which method wins there.",
                        f"Your budget {sci(budget)} lies inside the crossover's uncertainty ({span}).", years)
    return Decision("above", MEASURED, f"{less}, once validated at your budget",
                    f"Validate {less} at {sci(budget)} FLOPs against {more} before shipping it; keep {more} as the "
                    "baseline and record its failure cases.",
                    f"Your budget {sci(budget)} lies above the crossover {sci(crossover)} (seeds: {span}), where "
                    f"{less} has overtaken.")


# --- measurements from the app's own results -------------------------------------------------------------

def _seeds(seeds: list[int]) -> str:
    return f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]}-{seeds[-1]}"


def ablation_config(record: dict) -> str:
    s = record["settings"]
    return (f"four-steps ablation, data/four_steps/ablation.json: task {s['task']}, {s['length']} tokens of "
            f"{s['n_symbols']} symbols; {s['depth']} layers, d={s['width']}, {s['heads']} heads; {s['steps']} steps, "
            f"batch {s['batch_size']}, lr {s['lr']}; {_seeds(s['seeds'])}; {s['eval_size']} held-out examples"
            + (f"; run {record['date']}" if record.get("date") else ""))


def _removal_text(c: dict, what: str, means: tuple[float, float]) -> str:
    word = "within seed noise" if c["p"] >= c["alpha"] else "beyond seed noise"
    return (f"Removing it ({what}) changes held-out loss by {c['mean_diff']:+.3f} ({means[0]:.3f} against "
            f"{means[1]:.3f}; Welch p = {c['p']:.2g}, {c['n'][0]} and {c['n'][1]} seeds): {word}; these seeds "
            f"detect a difference of {c['mde']:.3f} or more.")


STRUCTURE_REMOVED = {  # ref -> (variant without the structure, variant with it, how it is removed)
    "four_steps.separate": ("2", "0", "steps 1-2, shared parameters"),
    "four_steps.final_layer": ("3", "2", "step 3, layer-aligned reading, at this depth only"),
    "four_steps.bidirectional": ("4", "3", "step 4, causal input"),
}


def four_steps_cells(record: dict, parameters: dict[str, int] | None = None) -> dict[str, Measured]:
    """Gain-now cells from the shipped ablation, the verdict of step 4 against decoder-only, parameter counts."""
    from explorer.experiments import four_steps as fs  # torch: imported only when the ablation is read

    config = ablation_config(record)
    runs = record["runs"]
    losses = {}
    for run in runs:
        losses.setdefault(run["variant"], []).append(run["eval_loss"])
    out = {}
    for ref, (without, with_, what) in STRUCTURE_REMOVED.items():
        if losses.get(without) and losses.get(with_):
            c = fs.compare(losses[without], losses[with_])
            means = (sum(losses[without]) / len(losses[without]), sum(losses[with_]) / len(losses[with_]))
            out[ref] = Measured(_removal_text(c, what, means), config, {k: c[k] for k in ("mean_diff", "p", "mde")})
    verdict = fs.summarize(runs)["verdict"]
    if verdict and min(verdict["n"]) >= 2:
        differ = "more" if verdict["p"] < verdict["alpha"] else "no more"
        out["four_steps.verdict"] = Measured(
            f"After the four steps the label no longer matters here: step 4 against decoder-only differs by "
            f"{verdict['mean_diff']:+.4f} held-out loss (Welch p = {verdict['p']:.3g}, {verdict['n'][0]} and "
            f"{verdict['n'][1]} seeds), {differ} than seed noise; only a gap of {verdict['mde']:.4f} or more would be "
            f"detected {verdict['power']:.0%} of the time.", config,
            {k: verdict[k] for k in ("mean_diff", "p", "mde", "power")})
    if parameters:
        before, after = parameters["0"], parameters["2"]
        out["four_steps.parameters"] = Measured(
            f"{before:,} parameters with separate stacks against {after:,} shared ({before / after:.2f}x) at the "
            "same depth and width; the FLOPs per token stay the same.", config + "; parameters counted on the "
            "instantiated models", {"separate": before, "shared": after})
    return out


def crossover_pairs(analysis: dict) -> list[str]:
    """'more-less' window pairs whose crossover was observed in at least one seed."""
    return [f"{c['more_structure']}-{c['less_structure']}" for c in analysis["crossovers"] if c["flops_mean"]]


def crossover_config(analysis: dict) -> str:
    cfg = analysis["config"]
    weights = analysis["weights"]
    return (f"inductive-bias page, shipped run data/crossover/main.json: {cfg['n_layers']}-layer decoder, "
            f"d={cfg['d_model']}, {cfg['n_heads']} heads, windows {', '.join(map(str, analysis['windows']))}, "
            f"{max(analysis['steps'])} steps, {_seeds(analysis['seeds'])}; score weights "
            f"{', '.join(f'{w:.2f}' for w in weights)} on lags {', '.join(map(str, analysis['lags']))}")


def window_name(window: int, length: int) -> str:
    return f"w={window} (full attention)" if window >= length else f"w={window}"


def crossover_input(analysis: dict, pair: str) -> dict:
    """The decision rule's inputs for one window pair of the inductive-bias run."""
    more, less = (int(w) for w in pair.split("-"))
    found = next((c for c in analysis["crossovers"] if (c["more_structure"], c["less_structure"]) == (more, less)),
                 None)
    if found is None:
        raise ValueError(f"no window pair {pair} in this run")
    length = analysis["config"]["length"]
    complete = found["seeds_with_crossover"] == found["seeds"]
    return {"crossover": found["flops_mean"], "lo": found["flops_min"],
            "hi": found["flops_max"] if complete else (math.inf if found["flops_mean"] else None),
            "per_seed": [x for x in found["flops_per_seed"] if x is not None],
            "seeds_with_crossover": found["seeds_with_crossover"], "seeds": found["seeds"],
            "range": (float(analysis["flops"][0]), float(analysis["flops"][-1])),
            "more": window_name(more, length), "less": window_name(less, length),
            "windows": (more, less), "config": crossover_config(analysis)}


def crossover_cells(analysis: dict, pair: str, budget: float) -> dict[str, Measured]:
    """The worked example's crossover and its gain at the budget (only inside the measured range)."""
    from explorer.experiments.crossover import at_budget  # torch: imported only when a run is read

    x = crossover_input(analysis, pair)
    config = x["config"]
    more, less = x["windows"]
    out = {}
    if x["crossover"]:
        seeds = f"{x['seeds_with_crossover']} of {x['seeds']} seeds cross"
        spread = (f"{sci(x['lo'])} to {sci(x['hi'])}" if x["hi"] < math.inf
                  else f"{sci(x['lo'])} to beyond {sci(x['range'][1])}")
        out["crossover.pair"] = Measured(
            f"{x['less']} overtakes {x['more']} at {sci(x['crossover'])} training FLOPs (geometric mean over the "
            f"seeds; per-seed spread {spread}; {seeds}).", config,
            {"flops_mean": x["crossover"], "flops_min": x["lo"], "flops_max": x["hi"], "pair": pair})
    read = at_budget(analysis, budget)
    if read is None:
        out["crossover.gain"] = Measured(
            f"Not measured at your budget: {sci(budget)} FLOPs lies outside this run ({sci(x['range'][0])} to "
            f"{sci(x['range'][1])}), and reading its curves there would be an extrapolation.", config,
            {"budget": budget}, PENDING)
    else:
        acc = read["accuracy"]
        lead = acc[more] - acc[less]
        out["crossover.gain"] = Measured(
            f"At your budget, {sci(budget)} FLOPs: {x['more']} scores {acc[more]:.3f}, {x['less']} {acc[less]:.3f} "
            f"(seed means): the structure is worth {lead:+.3f} in held-out accuracy now.", config,
            {"budget": budget, "more": acc[more], "less": acc[less]})
    return out


def cache_cell(n: int, m: int, depth: int = 2, timing: dict | None = None) -> dict[str, Measured]:
    """One chat turn of n old + m new tokens: FLOPs both ways (exact counts), KV-cache bytes, timing if given."""
    from explorer.costs import kv_cache_bytes
    from explorer.experiments.cache import model_config, turn_flops

    cfg = model_config(depth, n + m)
    f = turn_flops(cfg, n, m)
    ratio = f["flops_reencode"] / f["flops_cached"]
    kib = kv_cache_bytes(cfg, n + m) / 1024
    text = (f"One chat turn of m={m} new tokens after n={n}: re-encoding the whole input (bidirectional) costs "
            f"{sci(f['flops_reencode'])} FLOPs, the cached causal step {sci(f['flops_cached'])}: {ratio:.1f}x "
            f"more, (n+m)/m; the cache holds {kib:,.1f} KiB.")
    config = (f"cache page's model: {depth} layers, d={cfg.d_model}, {cfg.n_heads} heads, vocab {cfg.vocab_size}; "
              "FLOPs counted exactly (explorer.costs), float32 cache")
    values = {"n": n, "m": m, "flops_reencode": f["flops_reencode"], "flops_cached": f["flops_cached"],
              "flop_ratio": ratio, "kv_cache_bytes": kv_cache_bytes(cfg, n + m)}
    if timing:
        text += (f" Timed on this server: {timing['time_reencode_ms']:.3g} ms against {timing['time_cached_ms']:.3g} "
                 f"ms, a {timing['speedup']:.1f}x speedup (per-layer overhead keeps it below the FLOP ratio).")
        config += f"; timed: thread CPU time, median of {timing['repeats']} repeats, seed {timing['seed']}"
        values.update(speedup=timing["speedup"])
    return {"cache.turn": Measured(text, config, values)}


def depth_cells(analysis: dict) -> dict[str, Measured]:
    """Final-layer-only against layer-aligned, per depth, from `explorer.experiments.depth.analyse`."""
    gaps = {d: analysis["tests"][d]["loss"] for d in analysis["depths"] if analysis["tests"].get(d)}
    if not gaps:
        return {}
    depths = sorted(gaps)
    parts = [f"depth {d}: {gaps[d]['mean_diff']:+.3f} (p = {gaps[d]['p']:.2g})" for d in depths]
    aligned_ahead = [d for d in depths if gaps[d]["mean_diff"] > 0]
    clear = [str(d) for d in aligned_ahead if gaps[d]["p"] < gaps[d]["alpha"]]
    if len(aligned_ahead) == len(depths):
        verdict = f"no crossover within depths {depths[0]}-{depths[-1]}: layer-aligned reading is ahead at every depth"
    elif not aligned_ahead:
        verdict = f"no crossover within depths {depths[0]}-{depths[-1]}: final-layer-only is ahead at every depth"
    else:
        verdict = "the sign changes along depth: see the depth page"
    if clear:
        verdict += f", beyond seed noise at depth{'s' if len(clear) > 1 else ''} {', '.join(clear)}"
    cfg = analysis["config"]
    seeds = analysis["seeds"]
    config = (f"depth page, data/depth/main.json: majority-shifted copy, {cfg.get('length', '?')} tokens of "
              f"{cfg.get('n_symbols', '?')} symbols; d={cfg.get('d_model', '?')}, {cfg.get('n_heads', '?')} heads; "
              f"{cfg.get('steps', '?')} steps, batch {cfg.get('batch_size', '?')}; "
              f"{_seeds(seeds) if seeds else 'no seeds'}")
    text = ("Held-out loss of final-layer-only minus layer-aligned (positive: reading only the final layer hurts): "
            + "; ".join(parts) + f". So {verdict}.")
    out = {"depth.final_layer": Measured(text, config, {"per_depth": {str(d): {"mean_diff": gaps[d]["mean_diff"],
                                                                               "p": gaps[d]["p"]} for d in depths}})}
    sizes = {d: {w: (c["parameters"], c["flops_per_step"]) for w, c in analysis["cells"][d].items()} for d in depths}
    if all(len(set(by_wiring.values())) == 1 for by_wiring in sizes.values()):
        per_depth = "; ".join(f"depth {d}: {next(iter(sizes[d].values()))[0]:,} parameters, "
                              f"{sci(next(iter(sizes[d].values()))[1])} training FLOPs per step" for d in depths)
        out["depth.cost"] = Measured(f"None in parameters or compute: both wirings have the same parameters and FLOPs "
                                     f"at every depth ({per_depth}).", config)
    return out


DATA = Path(__file__).resolve().parent.parent / "data"
SHIPPED_FILES = (DATA / "four_steps" / "ablation.json", DATA / "crossover" / "main.json", DATA / "depth" / "main.json")
CACHE_DEPTH = 2  # the cache page's default depth
LONG_SHARE = 0.6  # the inductive-bias page's default score mix: its crossover is the one quoted here


def shipped_stamp() -> tuple[float | None, ...]:
    """Modification times of the shipped results the measured cells read: a cache key that notices new runs."""
    return tuple(p.stat().st_mtime if p.is_file() else None for p in SHIPPED_FILES)


def shipped_ablation() -> tuple[dict | None, dict[str, int] | None]:
    """The shipped four-steps ablation and the parameter counts of its models without and with sharing."""
    from explorer.experiments import four_steps as fs

    record = fs.load_shipped()
    if not record or not record.get("runs"):
        return None, None
    try:
        base = fs.AblationSettings.from_dict(record["settings"]).base
        return record, {v: fs.instantiated_parameters(fs.variant_config(base, v)) for v in ("0", "2")}
    except (KeyError, TypeError, ValueError):
        return record, None


def shipped_crossover(long_share: float = LONG_SHARE) -> dict | None:
    """The inductive-bias page's shipped run, analysed with that page's default score mix."""
    from explorer.experiments import crossover as xo
    from explorer.recall import LAGS, mix

    try:
        shipped = json.loads(xo.shipped_path("main").read_text())
        return xo.analyse(xo.sweep(xo.PRESETS["main"], shipped, train=False), mix(long_share, len(LAGS)))
    except (OSError, KeyError, TypeError, ValueError):
        return None


def shipped_depth() -> dict | None:
    """The depth page's shipped sweep, analysed; None while it is missing or cannot be read."""
    try:
        from explorer.experiments import depth

        shipped = depth.load_shipped()
        if not shipped:
            return None
        swept, _ = depth.available(depth.DepthConfig.from_dict(shipped["config"]), shipped)
        return depth.analyse(swept)
    except Exception:  # noqa: BLE001 - a sweep that another page is still building must not break the workbook
        return None


def measurements(n: int, m: int, budget: float, pair: str | None, ablation: dict | None = None,
                 parameters: dict[str, int] | None = None, crossover: dict | None = None, depth: dict | None = None,
                 timing: dict | None = None) -> dict[str, Measured]:
    """Every measured cell the given results support; a cell without results stays 'not measured yet'."""
    out = dict(four_steps_cells(ablation, parameters)) if ablation else {}
    if crossover is not None and pair:
        out.update(crossover_cells(crossover, pair, budget))
    out.update(cache_cell(n, m, CACHE_DEPTH, timing))
    if depth is not None:
        out.update(depth_cells(depth))
    return out


# --- export -------------------------------------------------------------------------------------------------

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


def to_json(workbook: list[Row], measured: dict[str, Measured], controls: dict | None = None,
            decision: Decision | None = None) -> str:
    doc = {"format": FORMAT, "version": VERSION, "columns": COLUMNS, "sources": SOURCES,
           "controls": controls or {},
           "rows": [{"id": r["id"], "page": r["page"], "cells": {c: _cell_json(cell) for c, cell in r["cells"].items()}}
                    for r in table(workbook, measured)]}
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
    writer.writerow(["row", "page"] + [h for c in COLUMNS for h in (COLUMNS[c], f"{COLUMNS[c]} [source]")])
    for i, r in enumerate(table(workbook, measured), 1):
        writer.writerow([i, r["page"] or ""] + [_csv_safe(v) for cell in r["cells"].values()
                                                for v in (cell.text, source_text(cell))])
    return out.getvalue()


def _md_block(text: str) -> str:
    return text.replace("\r", "").replace("\n", "\n  ") or "—"


def to_markdown(workbook: list[Row], measured: dict[str, Measured], decision: Decision | None = None,
                decision_inputs: str = "") -> str:
    lines = ["# Bias audit (slide 67)", "",
             "Exported from the Transformer History Explorer. Each cell says where it comes from: *measured* "
             "(by the app, with its config), *lecture's claim*, *typed by the student* or *not measured yet*.", ""]
    for i, r in enumerate(table(workbook, measured), 1):
        lines.append(f"## {i}. {r['cells']['structure'].text.strip() or '(no structure yet)'}")
        lines.append("")
        if r["page"]:
            lines.append(f"Measured on the app's page `/{r['page']}`.")
            lines.append("")
        for col, cell in r["cells"].items():
            if col != "structure":
                lines.append(f"- **{COLUMNS[col]}** *({source_text(cell)})*: {_md_block(cell.text)}")
        lines.append("")
    if decision is not None:
        lines += ["## Decision rule", "", decision_inputs, "",
                  f"- **Ship now**: {decision.ship}", f"- **Validate next**: {decision.validate}",
                  f"- **Why** *({decision.evidence})*: {decision.reason}", ""]
    return "\n".join(lines)


# --- import (JSON) --------------------------------------------------------------------------------------------

def _type_name(value: object) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", int: "a number", float: "a number",
            type(None): "null"}.get(type(value), type(value).__name__)


def _expect(value: object, kind: type, where: str, what: str) -> None:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise AuditError(f"{where}: expected {what}, got {_type_name(value)}.")


def _text(value: object, where: str) -> str:
    _expect(value, str, where, "text")
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
        raise AuditError(f"Wrong schema: the file holds {_type_name(doc)}, not a workbook object.")
    return doc


def _import_cell(row_id: str | None, col: str, cell: object, where: str, notes: list[str]) -> str | None:
    """The typed text this cell becomes, or None when it is the pre-filled cell (re-measured live)."""
    _expect(cell, dict, where, "an object with text and source")
    text = _text(cell.get("text"), f"{where}.text")
    source = cell.get("source")
    if source not in SOURCES:
        raise AuditError(f"{where}.source: expected one of {', '.join(SOURCES)}, got "
                         f"{json.dumps(source)[:40] if isinstance(source, str) else _type_name(source)}.")
    template = TEMPLATE_BY_ID.get(row_id) if row_id else None
    spec = template.cells.get(col) if template else None
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
                         f"{json.dumps(found)[:40] if isinstance(found, str) else _type_name(found)}. "
                         "Is this a workbook exported from this page?")
    if doc.get("version") != VERSION:
        raise AuditError(f"Wrong schema: this page reads version {VERSION} workbooks, the file says "
                         f"{json.dumps(doc.get('version'))[:20]}.")
    rows = doc.get("rows")
    _expect(rows, list, "rows", "a list of rows")
    if len(rows) > MAX_ROWS:
        raise AuditError(f"rows: {len(rows)} rows; a workbook holds at most {MAX_ROWS}.")
    controls = doc.get("controls", {})
    _expect(controls, dict, "controls", "an object")
    notes: list[str] = []
    workbook = []
    for i, row in enumerate(rows):
        where = f"rows[{i}]"
        _expect(row, dict, where, "an object with cells")
        row_id = row.get("id")
        if row_id is not None:
            _expect(row_id, str, f"{where}.id", "text or null")
            if row_id not in TEMPLATE_BY_ID:
                notes.append(f"{where}.id: no pre-filled row is called {json.dumps(row_id)[:40]}; imported as "
                             "your own row.")
                row_id = None
        row_cells = row.get("cells")
        _expect(row_cells, dict, f"{where}.cells", "an object of cells")
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


# --- compact URL state -------------------------------------------------------------------------------------

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
        raise AuditError(f"the workbook state has {len(state):,} characters; the URL holds at most {MAX_URL_CHARS:,}.")
    if not _URLSAFE.match(state):
        raise AuditError("the workbook state has characters that URL-safe base64 does not use (was the link cut "
                         "or edited?).")
    try:
        packed = base64.urlsafe_b64decode(state + "=" * (-len(state) % 4))
    except (binascii.Error, ValueError):
        raise AuditError("the workbook state is not valid base64 (was the link cut?).") from None
    inflate = zlib.decompressobj()
    try:
        raw = inflate.decompress(packed, MAX_STATE_BYTES)
    except zlib.error:
        raise AuditError("the workbook state is damaged: it does not decompress (was the link cut?).") from None
    if inflate.unconsumed_tail:
        raise AuditError(f"the workbook state unpacks to more than {MAX_STATE_BYTES:,} bytes.")
    if not inflate.eof:
        raise AuditError("the workbook state is incomplete: it stops early (was the link cut?).")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):  # RecursionError: `[[[[...` nested too deep
        raise AuditError("the workbook state does not hold JSON.") from None
    if not isinstance(doc, dict) or doc.get("v") != VERSION or not isinstance(doc.get("r"), list):
        raise AuditError(f"the workbook state is not a version {VERSION} workbook.")
    if len(doc["r"]) > MAX_ROWS:
        raise AuditError(f"the workbook state has {len(doc['r'])} rows; a workbook holds at most {MAX_ROWS}.")
    rows = []
    for i, entry in enumerate(doc["r"]):
        if isinstance(entry, str):
            entry = {"i": entry, "c": {}}
        _expect(entry, dict, f"row {i + 1}", "a row")
        row_id = entry.get("i")
        if row_id is not None and row_id not in TEMPLATE_BY_ID:
            raise AuditError(f"row {i + 1}: unknown pre-filled row {json.dumps(row_id)[:40]}.")
        typed = entry.get("c", {})
        _expect(typed, dict, f"row {i + 1}", "an object of cells")
        for col, text in typed.items():
            if col not in COLUMNS:
                raise AuditError(f"row {i + 1}: unknown column {json.dumps(col)[:40]}.")
            _text(text, f"row {i + 1}, {COLUMNS[col]}")
        rows.append(Row(row_id, dict(typed)))
    return rows
