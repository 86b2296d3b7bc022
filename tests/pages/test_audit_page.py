"""AppTest of the bias-audit workbook: default view, controls at their extremes, edits through the editor's
session state, URL restore, imports, bad URL values and a damaged URL state."""

from __future__ import annotations

import json
import random
import string

import pytest

from explorer import audit
from explorer.audit import Row
from explorer.formatting import p_label
from tests.pages.conftest import assert_clean, evidence_kinds, figures, page_downloads, run_page, untranslated

PAGE = "bias_audit.py"
SHARE = "Export, import and share"
SECTIONS = ("Your workbook", "The decision rule", SHARE, "How it works and its limits")


def _plain(value: str) -> str:
    """Shown text without its Markdown escapes (every cell and message is shown escaped)."""
    return value.replace("\\", "")


def _text(at) -> str:
    return _plain("\n".join(m.value for m in at.markdown))


def _notices(at) -> str:
    return "\n".join(c.value for c in at.caption)


def _title(at) -> str:
    return figures(at)[0]["layout"]["meta"]["title"]


def test_default_view_prefills_the_lecture_rows_with_their_sources():
    at = run_page(PAGE)
    assert_clean(at)
    assert not at.warning
    editor = at.data_editor[0]
    assert editor.editing_mode == "dynamic" and len(editor.value) == 5
    assert list(editor.value["row"]) == ["slide 67"] * 4 + ["example"]
    text = _text(at)
    for label in ("measured", "lecture's claim", "not measured yet", "to fill in"):
        assert f"-badge[{label}]" in text
    from explorer.experiments import four_steps as fs

    pairs = fs.paired_analysis(fs.load_shipped()["runs"])["pairs"]
    verdict = next(r for r in pairs if (r["a"], r["b"]) == ("4", "decoder"))
    assert f"exact paired {p_label(verdict['paired_p'])}" in text  # the four-steps verdict, escaped for Markdown
    assert "Removing it (steps 1-2, shared parameters, against separate stacks" in text
    from explorer import audit

    crossing = audit.crossover_input(audit.shipped_crossover(), "2-48")["crossover"]
    assert f"w=48 (full attention) overtakes w=2 at {audit.sci(crossing)}" in text
    assert "**Ship now:** w=2" in text
    assert evidence_kinds(at) == ["measured"] and _title(at) == "Your budget is below the crossover"
    assert figures(at)[0]["layout"]["meta"]["figure_id"] == "audit-decision"  # the first screen's figure
    assert "wb" not in at.query_params
    assert any(c.value.replace("\\", "").startswith("Config: four-steps ablation") for c in at.caption)
    at = run_page(PAGE, section=SHARE)
    assert_clean(at)
    assert page_downloads(at) == ["Markdown", "CSV", "JSON (can be imported again)"]


@pytest.mark.parametrize("section", SECTIONS)
def test_each_section_opens_from_the_url_and_draws_only_its_own_figures(section):
    at = run_page(PAGE, section=section)
    assert_clean(at)
    assert [f["layout"]["meta"]["figure_id"] for f in figures(at)] == ["audit-decision"]  # no section has its own
    assert bool(at.data_editor) == (section == "Your workbook")
    assert bool(at.file_uploader) == (section == SHARE)
    assert bool(page_downloads(at)) == (section == SHARE)
    text = _text(at)
    assert ("Where each cell comes from" in " ".join(h.value for h in at.subheader)) == (section == "Your workbook")
    if section == "The decision rule":
        assert "A rule this page proposes" in text and ":green-badge[measured]" in text
    if section == "How it works and its limits":
        assert f"{audit.MAX_ROWS} rows" in text


def test_controls_at_their_low_extremes_make_the_budget_an_extrapolation():
    at = run_page(PAGE, n="1", m="1", deploy="6", pair="2-4")
    assert_clean(at)
    assert _title(at) == "Your budget is outside the measured range"
    assert (
        set(evidence_kinds(at)) == {"measured"}
        and "extrapolation" in figures(at)[0]["layout"]["meta"]["evidence_kinds"]
    )
    assert any("extrapolation, not a measurement" in w.value for w in at.warning)
    text = _text(at)
    assert "n=1: re-encoding" in text and "2.0x more" in text
    assert text.count(":gray-badge[not measured yet] **Gain now**") == 1  # the example row: budget out of range
    assert "Not measured at your budget: 1.00e6 FLOPs lies outside this run" in text


def test_controls_at_their_high_extremes():
    at = run_page(PAGE, n="4096", m="256", deploy="30", pair="16-48", timed="true")
    assert_clean(at)
    assert _title(at) == "Your budget is outside the measured range"
    text = _text(at)
    assert "n=4096" in text and "17.0x more" in text
    assert "Timed on this server" not in text  # too large to time while the page waits


def test_timing_a_small_turn_adds_a_measured_speedup():
    at = run_page(PAGE, n="16", m="4", timed="true")
    assert_clean(at)
    assert "Timed on this server" in _text(at)
    assert any("thread CPU time" in c.value for c in at.caption)


def test_the_students_own_crossover_drives_the_rule_as_a_schematic():
    at = run_page(
        PAGE, xsrc="my own numbers", more="CNN", less="ViT", xc="21", xu="0.5", xlo="18", xhi="22", deploy="20.7"
    )
    assert_clean(at)
    assert evidence_kinds(at) == ["schematic"]
    assert _title(at) == "Your budget is inside the crossover's uncertainty"
    assert "**Ship now:** CNN, for now" in _text(at)
    at = run_page(PAGE, xsrc="my own numbers", xlo="23", xhi="19", xc="21", deploy="22.5")
    assert_clean(at)
    assert any("read as 19.0 to 23.0" in i.value for i in at.info)
    assert _title(at) == "Your budget is above the crossover"


def test_edits_from_the_editor_become_typed_cells_and_go_into_the_url():
    at = run_page(PAGE)
    at.session_state["audit-editor-0"] = {
        "edited_rows": {0: {"structure": "Two stacks"}},
        "added_rows": [{"structure": "Mixture-of-experts routing"}],
        "deleted_rows": [4],
    }
    at.run()
    assert_clean(at)
    text = _text(at)
    assert "**1. Two stacks** :orange-badge[typed by the student]" in text
    assert "Mixture-of-experts routing" in text and "Local attention window" not in text
    expected = [
        Row("separate", {"structure": "Two stacks"}),
        Row("final-layer"),
        Row("bidirectional"),
        Row("labels"),
        Row(None, {"structure": "Mixture-of-experts routing"}),
    ]
    assert audit.decode_state(at.query_params["wb"]) == expected
    assert list(at.data_editor[0].value["structure"])[-1] == "Mixture-of-experts routing"
    assert at.data_editor[0].key == "audit-editor-1"  # a fresh editor shows the applied edits
    restore = next(b for b in at.button if b.label == "Restore the pre-filled workbook")
    restore.click().run()
    assert_clean(at)
    assert "wb" not in at.query_params and "Local attention window" in _text(at)


def test_a_url_restores_a_workbook_and_shows_student_text_escaped():
    workbook = [
        Row("labels", {"gain": "my own test"}),
        Row(None, {"structure": "Sparse attention", "axes": "length"}),
        Row(None, {"structure": ":red[x] <b>y</b> $z$ [l](http://e.x)\n==="}),
    ]
    at = run_page(PAGE, wb=audit.encode_state(workbook), n="64")
    assert_clean(at)
    assert "Workbook restored from the link." in _notices(at)
    assert len(at.data_editor[0].value) == 3
    raw = "\n".join(m.value for m in at.markdown)
    assert "**3. \\:red\\[x\\] \\<b\\>y\\</b\\> \\$z\\$ \\[l\\]\\(http\\:" in raw
    assert "  \n\\=\\=\\=**" in raw  # a line of "=" stays text, never a heading underline
    text = _text(at)
    assert ":orange-badge[typed by the student] **Gain now**: my own test" in text and "Sparse attention" in text
    assert at.select_slider(key="n").value == 64


def test_bad_url_values_get_notices_not_errors():
    at = run_page(PAGE, n="abc", m="99999", deploy="nan", pair="9-9", xsrc="bogus", timed="maybe")
    assert_clean(at)
    notices = _notices(at)
    for key in ("`n`", "`m`", "`deploy`", "`pair`", "`xsrc`", "`timed`"):
        assert key in notices
    assert at.select_slider(key="n").value == 48 and at.select_slider(key="m").value == 8
    assert _title(at) == "Your budget is below the crossover"


def test_a_damaged_url_state_warns_and_shows_the_prefilled_workbook():
    crafted = "eNqrVipTslIw1FFQKgLS0dVKmSDKMLY2thYAXVMHOg"  # {"v":1,"r":[{"i":[1]}]}: a list as a row id
    for state, problem in (
        ("!!!", "URL-safe base64"),
        (audit.encode_state([Row(None, {"structure": "x"})])[:-8], "was the link cut"),
        (crafted, "unknown pre-filled row"),
    ):
        at = run_page(PAGE, wb=state)
        assert_clean(at)
        assert any("could not be read" in w.value and problem in _plain(w.value) for w in at.warning)
        assert len(at.data_editor[0].value) == 5


def test_import_restores_rows_and_controls_and_refuses_bad_files():
    at = run_page(PAGE, section=SHARE)
    workbook = [Row("separate", {"problem": "my view"}), Row(None, {"structure": "Retrieval"})]
    exported = audit.to_json(workbook, {}, {"n": 1024, "m": 2, "budget": 10.5, "pair": "4-48"}).encode()
    at.file_uploader[0].set_value(("mine.json", exported, "application/json")).run()
    assert_clean(at)
    assert any("Imported 2 rows from **mine.json**" in _plain(s.value) for s in at.success)
    assert at.select_slider(key="n").value == 1024 and at.slider(key="deploy").value == 10.5
    assert at.selectbox(key="pair").value == "4-48"
    assert audit.decode_state(at.query_params["wb"]) == workbook
    assert _title(at) == "Your budget is above the crossover"
    for raw, problem in (
        (b"\x00\x01binary", "binary file"),
        (b"{not json", "Not JSON"),
        (json.dumps({"format": "x"}).encode(), "Wrong schema"),
    ):
        at.file_uploader[0].set_value(("bad.json", raw, "application/json")).run()
        assert_clean(at)
        assert any("was not imported" in w.value and problem in _plain(w.value) for w in at.warning)
        assert audit.decode_state(at.query_params["wb"]) == workbook  # the workbook stays


def test_a_workbook_too_large_for_the_url_suggests_json():
    rng = random.Random(1)
    noise = lambda: "".join(rng.choices(string.ascii_letters, k=audit.MAX_CELL_CHARS))  # noqa: E731
    at = run_page(PAGE, wb=audit.encode_state([Row("labels", {"gain": "kept in the link first"})]), section=SHARE)
    at.session_state["audit-editor-0"] = {"added_rows": [{c: noise() for c in audit.COLUMNS} for _ in range(2)]}
    at.run()
    assert_clean(at)
    assert any(f"links hold at most {audit.MAX_URL_CHARS:,}" in i.value and "JSON export" in i.value for i in at.info)
    assert "wb" not in at.query_params
    assert len(at.session_state["audit_workbook"]) == 3  # the editor (in "Your workbook") shows these rows


def test_embedded_without_controls_shows_a_read_only_table():
    at = run_page(PAGE, controls="hidden")
    assert_clean(at)
    assert not at.data_editor and not at.file_uploader and len(at.dataframe) == 1
    assert evidence_kinds(at) == ["measured"]
    at = run_page(PAGE, controls="hidden", section=SHARE)
    assert_clean(at)
    assert not at.file_uploader and page_downloads(at) == ["Markdown", "CSV", "JSON (can be imported again)"]


# --- the Chinese edition -------------------------------------------------------------------------------------------


def test_the_chinese_page_speaks_chinese_in_every_section():
    at = run_page(PAGE, lang="zh", sections="all")
    assert_clean(at)
    assert untranslated(at) == []
    assert _title(at).startswith("你的预算") and page_downloads(at)[-1] == "JSON（可再次导入）"
    assert "课上的论断" in _text(at)


def test_a_workbook_exported_in_english_imports_into_the_chinese_page():
    workbook = [Row("separate", {"problem": "my view"}), Row("labels"), Row(None, {"structure": "Retrieval"})]
    exported = audit.to_json(workbook, {}, {"n": 1024}).encode()  # English: the tests run in English
    at = run_page(PAGE, lang="zh", sections="all")
    at.file_uploader[0].set_value(("mine.json", exported, "application/json")).run()
    assert_clean(at)
    assert any("已从 **mine.json** 导入 3 行" in _plain(s.value) for s in at.success) and not at.info
    assert audit.decode_state(at.query_params["wb"]) == workbook  # the English claims stay pre-filled, not typed
    assert "固定的架构标签" in _text(at) and untranslated(at) == []
