"""The audit page's decisions (explorer.audit.view): the student's own crossover, an import's controls, the
share link's state and student text made safe for Markdown."""

import math

import pytest

from explorer import audit
from explorer.audit import view


def test_student_text_is_escaped_for_markdown_and_control_characters_are_shown():
    assert view.escape("*bold* [link](x)") == r"\*bold\* \[link\]\(x\)"
    assert view.escape("a\x00b\nc") == "a?b  \nc"
    assert view.escape(":red[alert]") == r"\:red\[alert\]"  # no Streamlit directive either


def test_a_reversed_range_is_swapped_and_said_and_blank_names_get_defaults():
    crossing, reversed_range = view.typed_crossing(21.0, 0.5, 22.0, 18.0, " ", "mine")
    assert reversed_range and crossing["range"] == (1e18, 1e22)
    assert math.isclose(crossing["lo"], 10 ** 20.5) and math.isclose(crossing["hi"], 10 ** 21.5)
    assert crossing["more"] == view.DEFAULT_MORE and crossing["less"] == "mine"
    assert not view.typed_crossing(21.0, 0.5, 18.0, 22.0, "a", "b")[1]


def test_imported_controls_are_kept_only_inside_the_pages_options():
    allowed = {"n": [8, 48], "m": [8], "pair": ["2-48"]}
    values, refused = view.restore_controls({"n": 48, "m": 7, "pair": "2-48", "budget": 9.84, "other": 1,
                                             "timed": True}, allowed, (6.0, 30.0))
    assert values == {"n": 48, "pair": "2-48", "budget": 9.8}
    assert refused == [("m", "7")]
    assert view.restore_controls({"budget": 99}, allowed, (6.0, 30.0)) == ({}, [("budget", "99")])
    assert view.restore_controls({"n": True}, allowed, (6.0, 30.0)) == ({}, [])  # a bool is never a size


def test_a_link_restores_its_workbook_and_a_damaged_one_gives_the_default_and_says_why():
    workbook = audit.default_workbook()[:2]
    assert view.restore_workbook(audit.encode_state(workbook)) == (workbook, None)
    assert view.restore_workbook(None) == (audit.default_workbook(), None)
    restored, problem = view.restore_workbook("not-a-state")
    assert restored == audit.default_workbook() and problem


def test_the_link_status_follows_the_url_limit():
    assert view.link_status("") == "empty"
    assert view.link_status("a" * audit.MAX_URL_CHARS) == "holds"
    assert view.link_status("a" * (audit.MAX_URL_CHARS + 1)) == "too-long"


def test_editor_rows_name_each_rows_kind_then_its_cells():
    workbook = audit.default_workbook()
    rows = view.editor_rows(audit.table(workbook, {}), workbook, audit.COLUMNS)
    assert [r["row"] for r in rows].count("example") == sum(t.example for t in audit.TEMPLATES)
    assert list(rows[0]) == ["row", *audit.COLUMNS]


# --- the Chinese edition: a workbook file made in one language reads in the other ----------------------------------

def test_a_workbook_exported_in_either_language_imports_in_the_other_with_its_claims_prefilled():
    from explorer import i18n

    workbook = [audit.Row("separate", {"problem": "mine"}), *audit.default_workbook()[1:], audit.Row(None, {"gain": "x"})]
    for made, read in (("en", "zh"), ("zh", "en")):
        with i18n.using(made):
            raw = audit.to_json(workbook, {}, {"n": 48}).encode()
            csv_head = audit.to_csv(workbook, {}).splitlines()[0]
        with i18n.using(read):
            back, values, notes, refused = view.import_file(raw, {}, {"n": [48]}, (6.0, 30.0))
        assert back == workbook and values == {"n": 48} and notes == [] and refused == []
        assert ("结构（假设）" in csv_head) == (made == "zh")
    with i18n.using("zh"):
        assert audit.cells(audit.Row("labels"), {})["problem"].text.startswith("有名字的架构")
        assert audit.canonical(audit.Row("labels", {"problem": audit.claim_text("labels", "problem", "en")}), {}) \
            == audit.Row("labels")  # the English claim typed back is the pre-filled cell, not the student's


def test_refusals_and_the_decision_speak_the_run_language():
    from explorer import i18n

    with i18n.using("zh"):
        with pytest.raises(audit.AuditError, match="文件是空的"):
            audit.parse_file(b"  ")
        decision = audit.decide(1e9, 1e10, 5e9, 2e10, (1e8, 1e11), "w=2", "w=48")
        crossing, _ = view.typed_crossing(21.0, 0.3, 18.0, 22.0, "", "")
    assert decision.case == "below" and "低于交叉点" in decision.reason and crossing["more"] == "结构化的方法"
    assert view.typed_crossing(21.0, 0.3, 18.0, 22.0, "", "")[0]["more"] == view.DEFAULT_MORE
