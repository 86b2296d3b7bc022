"""Bias-audit workbook (slide 67): the lecture's closing method as a table students fill in, share and export."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from explorer import audit, i18n
from explorer.audit.view import (editor_rows, escape, import_file, link_status, quick_timing, restore_workbook,
                                 typed_crossing)
from explorer.audit.workbook import column_label, source_label
from explorer.figures import audit as figs
from explorer.lecture_map import page as page_info
from ui import layout, params, render
from ui.frame import header, page_link
from ui.text import say, t

# the cache page's sizes, so the two pages read the same n and m from a shared URL (and share their widget keys);
# the budget's key is "deploy": the inductive-bias page's "budget" has a narrower range
N_OPTIONS = list(range(1, 17)) + [24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096]
M_OPTIONS = list(range(1, 17)) + [24, 32, 48, 64, 96, 128, 192, 256]
BUDGET_RANGE = (6.0, 30.0)  # log10 training FLOPs; the shipped crossover run covers about 7.9 to 11.1
DEFAULT_PAIR = "2-48"
SOURCES = ("measured here", "my own numbers")  # the URL's values; shown through _source_label
WORKBOOK, VERSION, NOTES, IMPORTED = "audit_workbook", "audit_editor_version", "audit_notes", "audit_import"
BADGE_COLORS = {audit.MEASURED: "green", audit.CLAIM: "blue", audit.TYPED: "orange", audit.PENDING: "gray",
                audit.EMPTY: "violet"}  # by a cell's kind (its source, or empty)


def _badge(kind: str) -> str:
    """A cell kind's badge, its words in the page's language."""
    return f":{BADGE_COLORS[kind]}-badge[{source_label(kind)}]"


def _source_label(source: str) -> str:
    return t("xsrc-measured") if source == SOURCES[0] else t("xsrc-own")


@st.cache_data(show_spinner=False, max_entries=4)
def _shipped(stamp: tuple) -> tuple:
    """(four-steps ablation, its parameter counts, crossover analysis, depth sweep): each None when not shipped."""
    return *audit.shipped_ablation(), audit.shipped_crossover(), audit.shipped_depth()


@st.cache_data(show_spinner=False, max_entries=256)
def _measured(n: int, m: int, budget_log: float, pair: str | None, timed: bool,
              stamp: tuple, lang: str) -> dict[str, audit.Measured]:
    """The measured cells, their sentences in `lang`."""
    return audit.measurements(n, m, 10 ** budget_log, pair, *_shipped(stamp), quick_timing(n, m) if timed else None)


def _bump() -> None:
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1


def _restore_defaults() -> None:
    st.session_state[WORKBOOK] = audit.default_workbook()
    st.session_state[NOTES] = []
    _bump()


def _import(measured: dict[str, audit.Measured], pairs: list[str]) -> None:
    """A JSON file uploaded: its workbook and its controls in place (before the widgets are drawn), or why not."""
    if (upload := st.session_state.get("audit-upload")) is None:
        st.session_state.pop(IMPORTED, None)
        return
    name, allowed = escape(upload.name), {"n": N_OPTIONS, "m": M_OPTIONS, "pair": pairs}
    try:
        workbook, values, notes, refused = import_file(upload.getvalue(), measured, allowed, BUDGET_RANGE)
    except audit.AuditError as err:
        st.session_state[IMPORTED] = ("warning", t("not-imported", name=name, problem=escape(str(err))), [])
        return
    for key, value in values.items():
        st.session_state["deploy" if key == "budget" else key] = value  # the budget control's own key is "deploy"
    st.session_state[WORKBOOK] = workbook
    _bump()
    notes += [t("refused-control", key=key, value=value) for key, value in refused]
    st.session_state[IMPORTED] = ("success", t("imported", rows=len(workbook), name=name), notes)


def _card(i: int, row: dict) -> None:
    cells = row["cells"]
    with st.container(border=True):
        st.markdown(f"**{i}. {escape(cells['structure'].text.strip() or t('no-structure'))}** "
                    f"{_badge(cells['structure'].kind)}")
        if row["page"]:
            page_link(row["page"], t("measured-on", title=page_info(row["page"]).title))
        for col, cell in cells.items():
            if col == "structure":
                continue
            st.markdown(f"{_badge(cell.kind)} **{column_label(col)}**: {escape(cell.text) or '—'}")
            if cell.config:
                st.caption(t("config", config=escape(cell.config)))
            if cell.source == audit.PENDING and cell.link and cell.link != row["page"]:
                page_link(cell.link, t("measured-later-on", title=page_info(cell.link).title))


# --- page ----------------------------------------------------------------------------------------------------
header("audit")
say("lead")
stamp = audit.shipped_stamp()  # new shipped results (another page's CLI run) are picked up without a restart
analysis = _shipped(stamp)[2]
pairs = audit.crossover_pairs(analysis) if analysis is not None else []
covers = (t("covers", first=math.log10(analysis["flops"][0]), last=math.log10(analysis["flops"][-1])) + " "
          if analysis is not None else "")
figure_col, controls_col = layout.stage()
with controls_col:
    budget_log = params.slider(t("label-budget"), "deploy", *BUDGET_RANGE,
                               audit.DEFAULT_BUDGET_LOG, step=0.1, help=t("help-budget", covers=covers))
    pair = params.choice(t("label-pair"), "pair", pairs,
                         DEFAULT_PAIR if DEFAULT_PAIR in pairs else pairs[0], widget="selectbox",
                         help=t("help-pair")) if pairs else None
    if not pairs:
        st.caption(t("no-crossover-run"))
    n = params.select_slider(t("label-n"), "n", N_OPTIONS, 48)
    with st.expander(t("more-settings")):
        m = params.select_slider(t("label-m"), "m", M_OPTIONS, 8)
        source = params.choice(t("label-xsrc"), "xsrc", SOURCES, SOURCES[0], format_func=_source_label)
        timed = params.toggle(t("label-timed"), "timed", False)
        typed = source == SOURCES[1] or not pairs
        if typed:
            more = params.text(t("label-more"), "more", t("default-more"), 60)
            less = params.text(t("label-less"), "less", t("default-less"), 60)
            xc = params.slider(t("label-xc"), "xc", *BUDGET_RANGE, 21.0, step=0.1)
            xu = params.slider(t("label-xu"), "xu", 0.0, 3.0, 0.3, step=0.1)
            xlo = params.slider(t("label-xlo"), "xlo", *BUDGET_RANGE, 18.0, step=0.1)
            xhi = params.slider(t("label-xhi"), "xhi", *BUDGET_RANGE, 22.0, step=0.1)
budget_log = round(float(budget_log), 1)
budget = 10 ** budget_log
measured = _measured(int(n), int(m), budget_log, pair, bool(timed), stamp, i18n.current())

# --- the workbook: restored from the URL on a session's first run, edited in place -----------------------
link_notice = None
if WORKBOOK not in st.session_state:
    st.session_state[WORKBOOK], problem = restore_workbook(st.query_params.get("wb"))
    if problem is not None:
        link_notice = st.warning, t("damaged-link", problem=escape(problem))
    elif st.query_params.get("wb"):
        link_notice = st.caption, t("link-restored")
version = st.session_state.setdefault(VERSION, 0)
edits = st.session_state.get(f"audit-editor-{version}")
if isinstance(edits, dict) and any(edits.get(k) for k in ("edited_rows", "added_rows", "deleted_rows")):
    st.session_state[WORKBOOK], st.session_state[NOTES] = audit.apply_edits(st.session_state[WORKBOOK], edits,
                                                                             measured)
    _bump()
workbook = st.session_state[WORKBOOK]
rows = audit.table(workbook, measured)
frame = pd.DataFrame(editor_rows(rows, workbook, audit.COLUMNS), columns=["row", *audit.COLUMNS])

# --- the decision rule: the first screen's figure --------------------------------------------------------------
if typed:
    crossing, reversed_range = typed_crossing(xc, xu, xlo, xhi, more, less)
    inputs = t("own-inputs", xc=xc, xu=xu, xlo=min(xlo, xhi), xhi=max(xlo, xhi), budget=budget_log)
else:
    crossing = audit.crossover_input(analysis, pair)
    inputs = t("measured-inputs", less=crossing["less"], more=crossing["more"], config=crossing["config"],
               budget=budget_log)
decision = audit.decide(budget, crossing["crossover"], crossing["lo"], crossing["hi"], crossing["range"],
                        crossing["more"], crossing["less"])
with figure_col:
    render.figure(figs.decision_rule(crossing, budget, decision, typed), key="audit-decision",
                  notice=t("decision-notice"))
    say("takeaway", ship=escape(decision.ship), validate=escape(decision.validate))
    if typed and reversed_range:
        st.info(t("reversed-range", lo=xlo, hi=xhi))
    if decision.evidence != audit.MEASURED:
        st.warning(t("extrapolated"))
    if link_notice:
        link_notice[0](link_notice[1])

workbook_tab, rule_tab, share_tab, how_tab = layout.sections(
    [t("tab-workbook"), t("tab-rule"), t("tab-share"), t("tab-how")])
if workbook_tab:
    with workbook_tab:
        say("intro")
        say("editor-help", rows=audit.MAX_ROWS, chars=audit.MAX_CELL_CHARS)
        if params.controls_hidden():
            st.dataframe(frame, hide_index=True)
        else:
            st.data_editor(
                frame, key=f"audit-editor-{st.session_state[VERSION]}", num_rows="dynamic",
                hide_index=True, disabled=["row"],
                column_config={"row": st.column_config.TextColumn(t("column-row"), width="small", help=t("help-row")),
                               **{c: st.column_config.TextColumn(column_label(c), width="medium",
                                                                 max_chars=audit.MAX_CELL_CHARS)
                                  for c in audit.COLUMNS}})
            st.button(t("restore"), on_click=_restore_defaults, disabled=workbook == audit.default_workbook())
        for note in st.session_state.get(NOTES, []):
            st.info(escape(note))
        st.subheader(t("legend-title"))
        say("legend", empty=_badge(audit.EMPTY), **{k: _badge(k) for k in
                                                   (audit.MEASURED, audit.CLAIM, audit.TYPED, audit.PENDING)})
        left, right = st.columns(2)
        for i, row in enumerate(rows, 1):
            with left if i % 2 else right:
                _card(i, row)

if rule_tab:
    with rule_tab:
        say("rule")
        badge = (_badge(audit.MEASURED) if decision.evidence == audit.MEASURED
                 else f":red-badge[{t('badge-extrapolation')}]")
        st.markdown(f"{badge} {escape(decision.reason)}")
        st.caption(inputs)
        if decision.years:
            st.caption(t("years", years=decision.years))

state = audit.encode_state(workbook)  # the link holds the workbook whichever section is open
if (status := link_status(state)) == "holds":
    st.query_params["wb"] = state
else:
    st.query_params.pop("wb", None)
if share_tab:
    with share_tab:
        controls = {"n": int(n), "m": int(m), "budget": budget_log, **({"pair": pair} if pair else {})}
        c1, c2, c3 = st.columns(3)
        c1.download_button(t("download-markdown"), audit.to_markdown(workbook, measured, decision, inputs), "bias-audit.md",
                           "text/markdown", on_click="ignore", width="stretch")
        c2.download_button(t("download-csv"), audit.to_csv(workbook, measured), "bias-audit.csv", "text/csv", on_click="ignore",
                           width="stretch")
        c3.download_button(t("download-json"), audit.to_json(workbook, measured, controls, decision),
                           "bias-audit.json", "application/json", on_click="ignore", width="stretch")
        if not params.controls_hidden():
            st.file_uploader(t("import-label", mb=audit.MAX_IMPORT_BYTES / 1e6), type=["json"], key="audit-upload",
                             max_upload_size=math.ceil(audit.MAX_IMPORT_BYTES / 2 ** 20), on_change=_import,
                             args=(measured, pairs))
            outcome = st.session_state.get(IMPORTED)
            if outcome:
                kind, message, notes = outcome
                (st.success if kind == "success" else st.warning)(message)
                for note in notes:
                    st.info(escape(note))
        link = {"used": f"{len(state):,}", "chars": f"{audit.MAX_URL_CHARS:,}"}
        if status == "too-long":
            st.info(t("link-too-long", **link))
        else:
            st.caption(t("link-empty", **link) if status == "empty" else t("link-holds", **link))

if how_tab:
    with how_tab:
        say("how", share=audit.LONG_SHARE, depth=audit.CACHE_DEPTH, rows=audit.MAX_ROWS, chars=audit.MAX_CELL_CHARS,
            bytes=f"{audit.MAX_IMPORT_BYTES:,}", url=f"{audit.MAX_URL_CHARS:,}")
