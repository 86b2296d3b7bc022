"""The audit page's decisions (explorer.audit.view): the student's own crossover, an import's controls, the
share link's state and student text made safe for Markdown."""

import math

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
