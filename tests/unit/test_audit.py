"""The bias-audit workbook model: pre-filled rows, provenance, edits, exports, validated import, URL state,
and the decision rule on each of its cases."""

from __future__ import annotations

import base64
import csv
import io
import json
import math
import random
import string
import zlib

import pytest

from explorer import audit
from explorer.audit import AuditError, Measured, Row
from explorer.lecture_map import PAGES

MEASURED = {  # a stand-in for the app's results: the model only needs text and config per ref
    "four_steps.separate": Measured("removing it changes loss by -0.018", "ablation config"),
    "four_steps.verdict": Measured("step 4 vs decoder-only: p = 0.743", "ablation config", {"p": 0.743}),
    "cache.turn": Measured("7.0x more FLOPs", "cache config"),
}


def _workbook_with_everything() -> list[Row]:
    """Edited claim, edited measured cell, a cleared cell, a deleted row, reordered rows, own rows."""
    rows = audit.default_workbook()
    rows[0].typed["problem"] = "My reading: | pipes, *stars*, [links](x) and\na new line"
    rows[0].typed["gain"] = "my own number"
    rows[2].typed["axes"] = ""
    del rows[3]
    rows.reverse()
    rows.append(Row(None, {"structure": "Mixture-of-experts routing", "gain": "=1+1 is not a formula"}))
    rows.append(Row(None, {}))
    return rows


# --- pre-filled rows and provenance ------------------------------------------------------------------------


def test_the_lecture_four_rows_come_first_then_the_app_example():
    rows = audit.default_workbook()
    assert [r.id for r in rows] == ["separate", "final-layer", "bidirectional", "labels", "locality"]
    assert [t.example for t in audit.TEMPLATES] == [False] * 4 + [True]
    slugs = {p.slug for p in PAGES}
    for template in audit.TEMPLATES:
        assert template.page in slugs
        assert set(template.cells) <= set(audit.COLUMNS)
        assert template.cells["structure"].source == audit.CLAIM
        assert all(spec.link in slugs for spec in template.cells.values() if spec.link)


def test_every_cell_says_where_it_comes_from():
    cells = audit.cells(Row("separate"), MEASURED)
    assert cells["problem"].source == audit.CLAIM and cells["problem"].label == "lecture's claim"
    assert cells["gain"] == audit.Cell(
        "removing it changes loss by -0.018", audit.MEASURED, "ablation config", "four_steps.separate", "four-steps"
    )
    assert cells["gain"].label == "measured"
    assert cells["crossover"].source == audit.PENDING and cells["crossover"].label == "not measured yet"
    assert cells["cost"].source == audit.PENDING  # four_steps.parameters is not in MEASURED: not measured yet
    assert cells["cost"].text == audit.NOT_MEASURED and cells["cost"].link == "four-steps"
    typed = audit.cells(Row("separate", {"gain": "mine", "axes": ""}), MEASURED)
    assert typed["gain"].source == audit.TYPED and typed["gain"].label == "typed by the student"
    assert typed["axes"].source == audit.TYPED and typed["axes"].label == audit.EMPTY
    own = audit.cells(Row(None, {"structure": "MoE"}), MEASURED)
    assert {c.source for c in own.values()} == {audit.TYPED}


def test_a_missing_measurement_is_not_measured_yet_with_the_page_that_measures_it():
    cell = audit.cells(Row("final-layer"), {})["crossover"]
    assert (cell.source, cell.text, cell.link) == (audit.PENDING, "not measured yet", "depth")


def test_depth_cells_from_an_analysis_name_the_sign_and_the_noise():
    test = {"alpha": 0.05}
    analysis = {
        "depths": [2, 4],
        "seeds": [0, 1, 2],
        "config": {"steps": 600, "d_model": 32},
        "tests": {
            2: {"loss": {**test, "mean_diff": 0.5, "p": 0.2}},
            4: {"loss": {**test, "mean_diff": 1.5, "p": 0.01}},
        },
        "cells": {
            2: {
                "final": {"parameters": 10, "flops_per_step": 100.0},
                "aligned": {"parameters": 10, "flops_per_step": 100.0},
            },
            4: {
                "final": {"parameters": 20, "flops_per_step": 200.0},
                "aligned": {"parameters": 20, "flops_per_step": 200.0},
            },
        },
    }
    out = audit.depth_cells(analysis)
    text = out["depth.final_layer"].text
    assert "depth 2: +0.500 (p = 0.200)" in text and "depth 4: +1.500 (p = 0.010)" in text
    assert "layer-aligned reading is ahead at every depth, beyond seed noise at depth 4" in text
    assert "the same parameters and FLOPs" in out["depth.cost"].text
    assert out["depth.final_layer"].values["per_depth"]["4"]["p"] == 0.01
    analysis["cells"][4]["aligned"]["parameters"] = 21  # wirings that differ in size: no cost claim
    assert "depth.cost" not in audit.depth_cells(analysis)
    assert audit.depth_cells({**analysis, "tests": {}}) == {}


# --- editing --------------------------------------------------------------------------------------------------


def test_edits_make_cells_typed_and_typing_the_prefilled_text_back_restores_it():
    rows = audit.default_workbook()
    claim = audit.cells(rows[0], MEASURED)["problem"].text
    rows, notes = audit.apply_edits(rows, {"edited_rows": {"0": {"problem": "mine", "gain": None}}}, MEASURED)
    assert rows[0].typed == {"problem": "mine", "gain": ""} and not notes
    rows, _ = audit.apply_edits(rows, {"edited_rows": {0: {"problem": claim}}}, MEASURED)
    assert rows[0].typed == {"gain": ""}
    rows, _ = audit.apply_edits(rows, {"edited_rows": {0: {"gain": MEASURED["four_steps.separate"].text}}}, MEASURED)
    assert rows[0] == Row("separate")


def test_rows_are_added_and_deleted_by_position():
    rows, _ = audit.apply_edits(
        audit.default_workbook(),
        {"deleted_rows": [1, 3], "added_rows": [{"structure": "MoE", "row": "ignored"}, {}]},
        MEASURED,
    )
    assert [r.id for r in rows] == ["separate", "bidirectional", "locality", None, None]
    assert rows[3].typed == {"structure": "MoE"} and rows[4].typed == {}


def test_edits_respect_the_row_and_cell_limits():
    many = {"added_rows": [{"structure": f"row {i}"} for i in range(audit.MAX_ROWS)]}
    rows, notes = audit.apply_edits(audit.default_workbook(), many, MEASURED)
    assert len(rows) == audit.MAX_ROWS and any(f"at most {audit.MAX_ROWS} rows" in n for n in notes)
    rows, notes = audit.apply_edits(rows, {"edited_rows": {0: {"problem": "x" * (audit.MAX_CELL_CHARS + 5)}}}, MEASURED)
    assert len(rows[0].typed["problem"]) == audit.MAX_CELL_CHARS
    assert notes == [
        f"row 1, Problem it solved: cut to {audit.MAX_CELL_CHARS} characters (it had {audit.MAX_CELL_CHARS + 5})."
    ]


# --- export -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "workbook", [audit.default_workbook(), _workbook_with_everything(), []], ids=["default", "edited", "empty"]
)
def test_json_export_imports_back_to_the_same_workbook(workbook):
    controls = {"n": 64, "m": 4, "budget": 10.5, "pair": "2-48"}
    raw = audit.to_json(workbook, MEASURED, controls).encode()
    back, controls_back, notes = audit.import_json(raw, MEASURED)
    assert back == workbook and controls_back == controls and notes == []


def test_json_export_keeps_every_cell_with_its_source_and_config():
    doc = json.loads(audit.to_json(audit.default_workbook(), MEASURED))
    assert doc["format"] == audit.FORMAT and doc["version"] == audit.VERSION and len(doc["rows"]) == 5
    gain = doc["rows"][3]["cells"]["gain"]
    assert gain == {
        "text": "step 4 vs decoder-only: p = 0.743",
        "source": "measured",
        "config": "ablation config",
        "ref": "four_steps.verdict",
        "values": {"p": 0.743},
    }
    assert set(doc["rows"][0]["cells"]) == set(audit.COLUMNS)


def test_csv_has_every_row_and_every_cell_with_its_source():
    workbook = _workbook_with_everything()
    lines = list(csv.reader(io.StringIO(audit.to_csv(workbook, MEASURED))))
    assert len(lines) == len(workbook) + 1
    assert len(lines[0]) == 2 + 2 * len(audit.COLUMNS) and all(len(line) == len(lines[0]) for line in lines)
    structures = [line[2] for line in lines[1:]]
    assert structures == [audit.cells(r, MEASURED)["structure"].text for r in workbook]
    assert structures[-2:] == ["Mixture-of-experts routing", ""]
    moe = lines[len(workbook) - 1]
    assert moe[2] == "Mixture-of-experts routing" and moe[3] == "typed by the student"
    assert moe[10] == "'=1+1 is not a formula"  # a spreadsheet would run it; the quote keeps it text
    cache_row = next(line for line in lines if line[1] == "cache")  # the bidirectional row: its cost is measured
    assert cache_row[-2:] == ["7.0x more FLOPs", "measured: cache config"]


def test_markdown_has_every_row_title_and_every_typed_text():
    workbook = _workbook_with_everything()
    md = audit.to_markdown(workbook, MEASURED)
    for i, row in enumerate(workbook, 1):
        assert f"## {i}. " in md
    assert "Mixture-of-experts routing" in md and "(no structure yet)" in md
    assert "*(typed by the student)*: My reading: | pipes, *stars*, [links](x) and\n  a new line" in md
    assert "*(measured: cache config)*: 7.0x more FLOPs" in md
    decision = audit.decide(1e9, 1e10, 8e9, 1.2e10, (1e8, 1e11), "A", "B")
    md = audit.to_markdown(workbook, MEASURED, decision, "inputs")
    assert "## Decision rule" in md and "**Ship now**: A" in md and "*(measured)*" in md


# --- import validation: each bad class has its own message ---------------------------------------------------


def _doc(**changes) -> dict:
    doc = json.loads(audit.to_json(audit.default_workbook(), MEASURED))
    doc.update(changes)
    return doc


def _import(doc_or_bytes) -> str:
    raw = doc_or_bytes if isinstance(doc_or_bytes, bytes) else json.dumps(doc_or_bytes).encode()
    with pytest.raises(AuditError) as err:
        audit.import_json(raw, MEASURED)
    return str(err.value)


def test_import_refuses_files_that_are_not_json_text():
    assert _import(b"") == "The file is empty."
    assert "binary file" in _import(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    assert "not UTF-8 text" in _import(b"\xff\xfe\xfa rows")
    assert _import(b'{"format": "bias-audit-workbook", rows') == (
        "Not JSON: Expecting property name enclosed in double quotes at line 1, column 35."
    )
    assert f"at most {audit.MAX_IMPORT_BYTES:,}" in _import(b" " * (audit.MAX_IMPORT_BYTES + 1))


def test_import_refuses_a_wrong_schema():
    assert _import([1, 2]) == "Wrong schema: the file holds a list, not a workbook object."
    assert 'got "something-else"' in _import(_doc(format="something-else"))
    assert "got null" in _import({"rows": []})
    assert "reads version 1 workbooks, the file says 2" in _import(_doc(version=2))
    assert _import(_doc(rows=None)) == "rows: expected a list of rows, got null."


def test_import_refuses_wrong_types_naming_the_place():
    doc = _doc()
    doc["rows"][1] = "a row"
    assert _import(doc) == "rows[1]: expected an object with cells, got text."
    doc = _doc()
    doc["rows"][0]["cells"]["gain"]["text"] = 0.5
    assert _import(doc) == "rows[0].cells.gain.text: expected text, got a number."
    doc = _doc()
    doc["rows"][2]["cells"]["axes"]["source"] = "guessed"
    assert 'rows[2].cells.axes.source: expected one of measured, claim, typed, pending, got "guessed"' in _import(doc)
    doc = _doc()
    doc["rows"][0]["cells"]["colour"] = {"text": "", "source": "typed"}
    assert _import(doc).startswith('rows[0].cells: unknown column "colour"')
    doc = _doc()
    doc["rows"][2]["cells"]["axes"]["source"] = []  # unhashable: must not reach a dict lookup
    assert "rows[2].cells.axes.source: expected one of measured, claim, typed, pending, got a list" in _import(doc)
    assert "got a list" in _import(
        {
            "format": "bias-audit-workbook",
            "version": 1,
            "rows": [{"id": None, "cells": {"structure": {"text": "x", "source": []}}}],
        }
    )
    doc = _doc()
    doc["rows"][0]["id"] = 7
    assert _import(doc) == "rows[0].id: expected text or null, got a number."
    assert _import(_doc(controls=[])) == "controls: expected an object, got a list."


def test_import_refuses_too_many_rows_and_too_long_cells():
    doc = _doc()
    doc["rows"] = doc["rows"] * 5
    assert _import(doc) == f"rows: 25 rows; a workbook holds at most {audit.MAX_ROWS}."
    doc = _doc()
    doc["rows"][4]["cells"]["problem"] = {"text": "y" * (audit.MAX_CELL_CHARS + 1), "source": "typed"}
    assert _import(doc) == (
        f"rows[4].cells.problem.text: {audit.MAX_CELL_CHARS + 1} characters; a cell holds at most "
        f"{audit.MAX_CELL_CHARS}."
    )


def test_import_never_takes_a_measurement_or_a_claim_on_trust():
    doc = _doc()
    doc["rows"][0]["cells"]["gain"]["text"] = "a made-up number"  # still labelled measured: measured again here
    doc["rows"][0]["cells"]["problem"]["text"] = "a changed claim"  # labelled a claim, but not the lecture's
    doc["rows"].append({"id": "no-such-row", "cells": {"gain": {"text": "42", "source": "measured"}}})
    rows, _, notes = audit.import_json(json.dumps(doc).encode(), MEASURED)
    assert rows[0] == Row("separate", {"problem": "a changed claim"})
    assert rows[5] == Row(None, {"gain": "42"})
    assert len(notes) == 3
    assert 'rows[0].cells.problem: labelled "lecture\'s claim", but the pre-filled cell differs' in notes[0]
    assert 'no pre-filled row is called "no-such-row"' in notes[1]
    assert 'rows[5].cells.gain: labelled "measured", but no pre-filled cell is there; kept as typed' in notes[2]


# --- compact URL state -----------------------------------------------------------------------------------------


def test_url_state_round_trips_and_is_empty_for_the_default():
    assert audit.encode_state(audit.default_workbook()) == ""
    for workbook in (_workbook_with_everything(), [], [Row("labels")]):
        state = audit.encode_state(workbook)
        assert state and set(state) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        assert audit.decode_state(state) == workbook


def test_url_state_of_a_large_workbook_exceeds_the_limit_and_is_refused():
    rng = random.Random(0)
    noise = "".join(rng.choices(string.ascii_letters + string.digits, k=20 * audit.MAX_CELL_CHARS))  # incompressible
    big = [
        Row(
            None,
            {
                c: noise[(r * 7 + i) * audit.MAX_CELL_CHARS :][: audit.MAX_CELL_CHARS]
                for i, c in enumerate(audit.COLUMNS)
            },
        )
        for r in range(2)
    ]
    state = audit.encode_state(big)
    assert len(state) > audit.MAX_URL_CHARS
    with pytest.raises(AuditError, match=f"at most {audit.MAX_URL_CHARS:,}"):
        audit.decode_state(state)
    small = [Row(None, {"structure": noise[: audit.MAX_CELL_CHARS], "problem": noise[-audit.MAX_CELL_CHARS :]})]
    packed = audit.encode_state(small)
    assert len(packed) <= audit.MAX_URL_CHARS and audit.decode_state(packed) == small


def _packed(obj, raw: bytes | None = None) -> str:
    data = raw if raw is not None else json.dumps(obj).encode()
    return base64.urlsafe_b64encode(zlib.compress(data)).decode().rstrip("=")


@pytest.mark.parametrize(
    "state, message",
    [
        ("not base64!", "characters that URL-safe base64 does not use"),
        ("A", "not valid base64"),
        ("AAAA", "does not decompress"),
        (_packed({"v": 1, "r": ["labels", "separate"]})[:-8], "incomplete"),
        (_packed(None, b"\xff\xfe"), "does not hold JSON"),
        (_packed({"v": 2, "r": []}), "not a version 1 workbook"),
        (_packed({"v": 1, "r": ["nope"]}), 'unknown pre-filled row "nope"'),
        (_packed({"v": 1, "r": [{"i": [1]}]}), r"unknown pre-filled row \[1\]"),  # a list is not even hashable
        (_packed({"v": 1, "r": [{"c": {"colour": "red"}}]}), 'unknown column "colour"'),
        (_packed({"v": 1, "r": [{"c": {"gain": 3}}]}), "expected text, got a number"),
        (_packed({"v": 1, "r": [5]}), "row 1: expected a row, got a number"),
        (_packed({"v": 1, "r": ["labels"] * (audit.MAX_ROWS + 1)}), f"at most {audit.MAX_ROWS}"),
        (_packed(None, b" " * (audit.MAX_STATE_BYTES + 10)), f"more than {audit.MAX_STATE_BYTES:,} bytes"),
    ],
    ids=[
        "charset",
        "padding",
        "zlib",
        "cut",
        "utf8",
        "version",
        "row-id",
        "row-id-list",
        "column",
        "type",
        "row",
        "rows",
        "bomb",
    ],
)
def test_a_damaged_url_state_names_its_problem(state, message):
    with pytest.raises(AuditError, match=message):
        audit.decode_state(state)


# --- the decision rule -------------------------------------------------------------------------------------------

RANGE = (1e8, 1e11)


@pytest.mark.parametrize(
    "budget, case, ship",
    [
        (1e9, "below", "A"),
        (9e9, "inside", "A, for now"),
        (1e10, "inside", "A, for now"),
        (5e10, "above", "B, once validated at your budget"),
    ],
)
def test_decision_inside_the_measured_range_is_a_measurement(budget, case, ship):
    d = audit.decide(budget, 1e10, 8e9, 1.2e10, RANGE, "A", "B")
    assert (d.case, d.evidence, d.ship) == (case, "measured", ship)
    assert "extrapolation" not in d.reason


def test_decision_below_the_crossover_says_when_the_budget_reaches_it():
    d = audit.decide(1e9, 1e10, 8e9, 1.2e10, RANGE, "A", "B")
    assert d.years == pytest.approx(5.0)  # one decade at slide 7's 10x per 5 years
    assert "Keep training B" in d.validate and "8.00e9" in d.validate
    assert audit.decide(5e10, 1e10, 8e9, 1.2e10, RANGE, "A", "B").years is None


@pytest.mark.parametrize(
    "budget, crossover, side",
    [(1e12, 1e10, "above"), (1e7, 1e10, "below"), (1e9, 1e12, "below"), (1e12, 1e12, "inside the uncertainty of")],
)
def test_a_budget_or_crossover_beyond_the_measured_range_is_an_extrapolation(budget, crossover, side):
    d = audit.decide(budget, crossover, crossover * 0.8, crossover * 1.2, RANGE, "A", "B")
    assert d.case == "extrapolation" and d.evidence == "extrapolation"
    assert "an extrapolation, not a measurement" in d.reason and f"sits {side} the crossover" in d.reason
    assert d.validate.startswith("Measure both methods at")


def test_decision_without_a_crossover_and_with_seeds_that_never_cross():
    d = audit.decide(1e9, None, None, None, RANGE, "A", "B")
    assert (d.case, d.evidence, d.ship) == ("no-crossover", "measured", "A")
    assert audit.decide(1e12, None, None, None, RANGE, "A", "B").evidence == "extrapolation"
    d = audit.decide(5e10, 1e10, 8e9, math.inf, RANGE, "A", "B")  # some seeds never cross: no upper end
    assert d.case == "inside" and "to beyond 1.00e11 (some seeds never cross)" in d.reason
    with pytest.raises(ValueError):
        audit.decide(0, 1e10, None, None, RANGE, "A", "B")


def test_sci_is_compact():
    assert audit.sci(1.1e10) == "1.10e10" and audit.sci(6.3e9, 2) == "6.3e9" and audit.sci(math.inf) == "∞"


def test_a_chinese_method_name_breaks_into_even_rows_no_wider_than_a_latin_one():
    from explorer.figures.audit import _wrap
    from explorer.figures.theme import display_width

    for name in ("结构更少的方法", "一个非常非常长的中文方法名字啊啊啊"):
        rows = _wrap(name).split("<br>")
        assert "".join(rows) == name and len(rows) > 1
        assert max(display_width(r) for r in rows) <= 12 and max(map(len, rows)) - min(map(len, rows)) <= 1
    assert _wrap("结构化的方法") == "结构化的方法"  # twelve columns: one row
