"""The audit page's decisions (explorer.audit.view): the student's own crossover, an import's controls, the
share link's state, the page's lines, badges and notices, and student text made safe for Markdown."""

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
    assert math.isclose(crossing["lo"], 10**20.5) and math.isclose(crossing["hi"], 10**21.5)
    assert crossing["more"] == view.DEFAULT_MORE and crossing["less"] == "mine"
    assert not view.typed_crossing(21.0, 0.5, 18.0, 22.0, "a", "b")[1]


def test_imported_controls_are_kept_only_inside_the_pages_options():
    allowed = {"n": [8, 48], "m": [8], "pair": ["2-48"]}
    values, refused = view.restore_controls(
        {"n": 48, "m": 7, "pair": "2-48", "budget": 9.84, "other": 1, "timed": True}, allowed, (6.0, 30.0)
    )
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

    workbook = [
        audit.Row("separate", {"problem": "mine"}),
        *audit.default_workbook()[1:],
        audit.Row(None, {"gain": "x"}),
    ]
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
        assert audit.canonical(
            audit.Row("labels", {"problem": audit.claim_text("labels", "problem", "en")}), {}
        ) == audit.Row("labels")  # the English claim typed back is the pre-filled cell, not the student's


def test_refusals_and_the_decision_speak_the_run_language():
    from explorer import i18n

    with i18n.using("zh"):
        with pytest.raises(audit.AuditError, match="文件是空的"):
            audit.parse_file(b"  ")
        decision = audit.decide(1e9, 1e10, 5e9, 2e10, (1e8, 1e11), "w=2", "w=48")
        crossing, _ = view.typed_crossing(21.0, 0.3, 18.0, 22.0, "", "")
    assert decision.case == "below" and "低于交叉点" in decision.reason and crossing["more"] == "结构化的方法"
    assert view.typed_crossing(21.0, 0.3, 18.0, 22.0, "", "")[0]["more"] == view.DEFAULT_MORE


# --- the page's lines, badges and notices --------------------------------------------------------------------------


def test_a_link_is_noticed_only_when_there_is_one_and_its_damage_is_named_escaped():
    assert view.link_notice(None, None) is None and view.link_notice("", None) is None
    assert view.link_notice("abc", None) == ("caption", "Workbook restored from the link.")
    kind, text = view.link_notice("abc", "bad *base64*")
    assert kind == "warning" and r"bad \*base64\*" in text and "pre-filled workbook" in text


def test_the_share_note_says_what_the_link_holds_and_when_it_is_too_long():
    assert view.link_note("") == (
        "caption",
        "The link holds your workbook once you change it (up to 4,000 characters).",
    )
    kind, text = view.link_note("a" * 1234)
    assert kind == "caption" and "(1,234 of at most 4,000 characters)" in text
    kind, text = view.link_note("a" * (audit.MAX_URL_CHARS + 1))
    assert kind == "info" and "needs 4,001 characters" in text


def test_only_an_editor_state_with_a_change_counts_as_edits():
    assert view.has_edits({"edited_rows": {0: {"gain": "x"}}, "added_rows": [], "deleted_rows": []})
    assert view.has_edits({"deleted_rows": [2]})
    assert not view.has_edits({"edited_rows": {}, "added_rows": [], "deleted_rows": []})
    assert not view.has_edits(None) and not view.has_edits("edited_rows")


def test_an_upload_gives_its_workbook_controls_and_notes_or_says_why_not():
    workbook = audit.default_workbook()[:2]
    raw = audit.to_json(workbook, {}, {"n": 48, "m": 17, "pair": "2-48", "budget": 9.84}).encode()
    back, values, (kind, message, notes) = view.read_upload("mine*.json", raw, {}, ["2-48"])
    assert back == workbook and values == {"n": 48, "pair": "2-48", "budget": 9.8}
    assert kind == "success" and message.startswith(r"Imported 2 rows from **mine\*\.json**")
    assert notes == ["controls.m: 17 is not a value of this page's control; kept the current one."]
    assert view.read_upload("a.json", raw, {}, [])[1] == {"n": 48, "budget": 9.8}  # no crossover run: no pair
    back, values, (kind, message, notes) = view.read_upload("empty.json", b"  ", {}, ["2-48"])
    assert back is None and values == {} and notes == []
    assert kind == "warning" and message.startswith("**empty\\.json** was not imported.")


def test_an_export_carries_the_pair_only_where_there_is_one():
    assert view.export_controls(48, 8, 9.8, "2-48") == {"n": 48, "m": 8, "budget": 9.8, "pair": "2-48"}
    assert view.export_controls(1, 2, 6.0, None) == {"n": 1, "m": 2, "budget": 6.0}


def test_the_crossover_sources_and_inputs_read_as_the_page_shows_them():
    assert [view.crossover_source(o) for o in view.CROSSOVER_SOURCES] == ["measured here", "my own numbers"]
    own = view.own_inputs(21.0, 0.3, 22.0, 18.0, 10.0)  # a reversed range is quoted low to high
    assert own.startswith("Your numbers: crossover 10^21 FLOPs ± 0.3 decades, measured from 10^18 to 10^22")
    assert own.endswith("budget 10^10.")
    assert view.covers(None) == ""


@pytest.mark.skipif(audit.shipped_crossover() is None, reason="no shipped crossover run")
def test_the_shipped_crossover_is_quoted_with_its_range_and_its_config():
    analysis = audit.shipped_crossover()
    first, last = math.log10(analysis["flops"][0]), math.log10(analysis["flops"][-1])
    assert view.covers(analysis) == f"The crossover run covers 10^{first:.1f} to 10^{last:.1f}; "
    crossing = audit.crossover_input(analysis, "2-48")
    assert view.measured_inputs(crossing, 9.8) == (
        f"Measured crossover of {crossing['less']} over {crossing['more']} ({crossing['config']}); budget 10^9.8."
    )


def test_badges_name_every_kind_in_its_colour():
    assert view.badge(audit.MEASURED) == ":green-badge[measured]"
    assert view.legend_badges() == {
        "empty": ":violet-badge[to fill in]",
        "measured": ":green-badge[measured]",
        "claim": ":blue-badge[lecture's claim]",
        "typed": ":orange-badge[typed by the student]",
        "pending": ":gray-badge[not measured yet]",
    }


def test_a_card_names_its_structure_and_cells_escaped_and_links_a_later_measurement_elsewhere():
    empty = audit.Cell("", audit.TYPED)
    assert view.card_title(3, empty) == "**3. \\(a row without a structure yet\\)** :violet-badge[to fill in]"
    assert (
        view.cell_line("gain", audit.Cell("*x*", audit.TYPED))
        == r":orange-badge[typed by the student] **Gain now**: \*x\*"
    )
    assert view.cell_line("gain", empty).endswith("**Gain now**: —")
    later = audit.Cell("", audit.PENDING, link="four-steps")
    assert view.later_link(later, "depth") == "four-steps"
    assert view.later_link(later, "four-steps") is None  # the card links that page already
    assert view.later_link(audit.Cell("x", audit.CLAIM, link="four-steps"), "depth") is None


def test_the_rule_line_badges_a_measured_verdict_and_an_extrapolation():
    inside = audit.decide(1e9, 1e10, 5e9, 2e10, (1e8, 1e11), "w=2", "w=48")
    beyond = audit.decide(1e25, 1e10, 5e9, 2e10, (1e8, 1e11), "w=2", "w=48")
    assert view.rule_line(inside) == f":green-badge[measured] {view.escape(inside.reason)}"
    assert view.rule_line(beyond) == f":red-badge[extrapolation] {view.escape(beyond.reason)}"


def test_how_it_works_quotes_the_workbooks_limits():
    assert view.how_numbers() == {
        "share": audit.LONG_SHARE,
        "depth": audit.CACHE_DEPTH,
        "rows": 20,
        "chars": 600,
        "bytes": "1,000,000",
        "url": "4,000",
    }
