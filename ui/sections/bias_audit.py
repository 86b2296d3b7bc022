"""The bias-audit page's workbook and its sections under the first screen: the workbook kept in the session (from
the share link, the editor and imports), the workbook's editor and cards, the rule's verdict, and export,
import and the share link. Each section runs only while its tab is open."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from explorer import audit
from explorer.audit import view
from explorer.audit.workbook import column_label
from explorer.lecture_map import page as page_info
from ui import params, upload_caps
from ui.frame import page_link
from ui.text import say, t

WORKBOOK, VERSION, NOTES, IMPORTED = "audit_workbook", "audit_editor_version", "audit_notes", "audit_import"
_SHOW = {"caption": st.caption, "info": st.info, "success": st.success, "warning": st.warning}


def notify(kind: str, text: str) -> None:
    """A (kind, text) notice from the audit's view, shown as its kind says."""
    _SHOW[kind](text)


def _bump() -> None:
    """A new editor key: the data editor is drawn afresh from the workbook, its old edits dropped."""
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1


def _restore_defaults() -> None:
    """The restore button: the pre-filled workbook back, the last edit's notes gone."""
    st.session_state[WORKBOOK] = audit.default_workbook()
    st.session_state[NOTES] = []
    _bump()


def current_workbook(measured: dict[str, audit.Measured]) -> tuple[list[audit.Row], tuple[str, str] | None]:
    """The session's workbook, restored from the URL on its first run and edited in place, and what to say
    about the link it came from (None: nothing)."""
    notice = None
    if WORKBOOK not in st.session_state:
        st.session_state[WORKBOOK], problem = view.restore_workbook(st.query_params.get("wb"))
        notice = view.link_notice(st.query_params.get("wb"), problem)
    edits = st.session_state.get(f"audit-editor-{st.session_state.setdefault(VERSION, 0)}")
    if view.has_edits(edits):
        st.session_state[WORKBOOK], st.session_state[NOTES] = audit.apply_edits(
            st.session_state[WORKBOOK], edits, measured
        )
        _bump()
    return st.session_state[WORKBOOK], notice


def keep_in_link(workbook: list[audit.Row]) -> str:
    """The workbook's URL state, put in the link while it fits (whichever section is open) and taken out when not."""
    state = audit.encode_state(workbook)
    if view.link_status(state) == "holds":
        st.query_params["wb"] = state
    else:
        st.query_params.pop("wb", None)
    return state


def _import(measured: dict[str, audit.Measured], pairs: list[str]) -> None:
    """A JSON file uploaded: its workbook and its controls in place (before the widgets are drawn), or why not."""
    if (upload := st.session_state.get("audit-upload")) is None:
        st.session_state.pop(IMPORTED, None)
        return
    workbook, values, st.session_state[IMPORTED] = view.read_upload(upload.name, upload.getvalue(), measured, pairs)
    if workbook is None:
        return
    for key, value in values.items():
        st.session_state["deploy" if key == "budget" else key] = value  # the budget control's own key is "deploy"
    st.session_state[WORKBOOK] = workbook
    _bump()


def _card(i: int, row: dict) -> None:
    """Row `i` as a card a phone can read (the grid is too wide there): every cell with its badge and links."""
    cells = row["cells"]
    with st.container(border=True):
        st.markdown(view.card_title(i, cells["structure"]))
        if row["page"]:
            page_link(row["page"], t("measured-on", title=page_info(row["page"]).title))
        for col, cell in cells.items():
            if col == "structure":
                continue
            st.markdown(view.cell_line(col, cell))
            if cell.config:
                st.caption(t("config", config=view.escape(cell.config)))
            if later := view.later_link(cell, row["page"]):
                page_link(later, t("measured-later-on", title=page_info(later).title))


def _editor(frame: pd.DataFrame, workbook: list[audit.Row]) -> None:
    """The data grid the student fills in (a read-only table where controls are hidden), and its restore button."""
    if params.controls_hidden():
        st.dataframe(frame, hide_index=True)
        return
    st.data_editor(
        frame,
        key=f"audit-editor-{st.session_state[VERSION]}",
        num_rows="dynamic",
        hide_index=True,
        disabled=["row"],
        column_config={
            "row": st.column_config.TextColumn(t("column-row"), width="small", help=t("help-row")),
            **{
                c: st.column_config.TextColumn(column_label(c), width="medium", max_chars=audit.MAX_CELL_CHARS)
                for c in audit.COLUMNS
            },
        },
    )
    st.button(t("restore"), on_click=_restore_defaults, disabled=workbook == audit.default_workbook())


def workbook_section(workbook: list[audit.Row], rows: list[dict]) -> None:
    """The workbook: its editor, the notes on the last edit, the badges' legend and one card a row."""
    say("intro")
    say("editor-help", rows=audit.MAX_ROWS, chars=audit.MAX_CELL_CHARS)
    _editor(pd.DataFrame(view.editor_rows(rows, workbook, audit.COLUMNS), columns=["row", *audit.COLUMNS]), workbook)
    for note in st.session_state.get(NOTES, []):
        st.info(view.escape(note))
    st.subheader(t("legend-title"))
    say("legend", **view.legend_badges())
    left, right = st.columns(2)
    for i, row in enumerate(rows, 1):
        with left if i % 2 else right:
            _card(i, row)


def rule_section(decision: audit.Decision, inputs: str) -> None:
    """The decision rule's verdict, its inputs and, beyond the measured range, the years until the crossover."""
    say("rule")
    st.markdown(view.rule_line(decision))
    st.caption(inputs)
    if decision.years:
        st.caption(t("years", years=decision.years))


def _upload(measured: dict[str, audit.Measured], pairs: list[str]) -> None:
    """The JSON import and what came of the last one."""
    st.file_uploader(
        t("import-label", mb=audit.MAX_IMPORT_BYTES / 1e6),
        type=["json"],
        key="audit-upload",
        max_upload_size=math.ceil(audit.MAX_IMPORT_BYTES / 2**20),
        on_change=_import,
        args=(measured, pairs),
    )
    upload_caps.notice()
    if outcome := st.session_state.get(IMPORTED):
        kind, message, notes = outcome
        notify(kind, message)
        for note in notes:
            st.info(view.escape(note))


def share_section(
    workbook: list[audit.Row],
    measured: dict[str, audit.Measured],
    decision: audit.Decision,
    inputs: str,
    controls: dict,
    pairs: list[str],
    state: str,
) -> None:
    """Export (Markdown, CSV, JSON with the `controls`), the import (not where controls are hidden; `pairs`: the
    crossover run's, which an imported pair must be one of) and what the share link holds (`state`, the
    workbook's URL state)."""
    c1, c2, c3 = st.columns(3)
    c1.download_button(
        t("download-markdown"),
        audit.to_markdown(workbook, measured, decision, inputs),
        "bias-audit.md",
        "text/markdown",
        on_click="ignore",
        width="stretch",
    )
    c2.download_button(
        t("download-csv"),
        audit.to_csv(workbook, measured),
        "bias-audit.csv",
        "text/csv",
        on_click="ignore",
        width="stretch",
    )
    c3.download_button(
        t("download-json"),
        audit.to_json(workbook, measured, controls, decision),
        "bias-audit.json",
        "application/json",
        on_click="ignore",
        width="stretch",
    )
    if not params.controls_hidden():
        _upload(measured, pairs)
    notify(*view.link_note(state))
