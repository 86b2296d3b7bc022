"""Bias-audit workbook (slide 67): the lecture's closing method as a table students fill in, share and export."""

from __future__ import annotations

import streamlit as st

from explorer import audit, i18n
from explorer.audit import view
from explorer.figures import audit as figs
from ui import layout, params, render
from ui.frame import header
from ui.sections import bias_audit as sections
from ui.text import say, t

DEFAULT_PAIR = "2-48"  # the window pair shown first, where the crossover run has it


@st.cache_data(show_spinner=False, max_entries=4)
def _shipped(stamp: tuple) -> tuple:
    """(four-steps ablation, its parameter counts, crossover analysis, depth sweep): each None when not shipped."""
    return *audit.shipped_ablation(), audit.shipped_crossover(), audit.shipped_depth()


@st.cache_data(show_spinner=False, max_entries=256)
def _measured(
    n: int, m: int, budget_log: float, pair: str | None, timed: bool, stamp: tuple, lang: str
) -> dict[str, audit.Measured]:
    """The measured cells, their sentences in `lang`."""
    return audit.measurements(n, m, 10**budget_log, pair, *_shipped(stamp), view.quick_timing(n, m) if timed else None)


# --- page ----------------------------------------------------------------------------------------------------
header("audit")
say("lead")
stamp = audit.shipped_stamp()  # new shipped results (another page's CLI run) are picked up without a restart
analysis = _shipped(stamp)[2]
pairs = audit.crossover_pairs(analysis) if analysis is not None else []
figure_col, controls_col = layout.stage()
with controls_col:  # the budget's key is "deploy": the inductive-bias page's "budget" has a narrower range
    budget_log = params.slider(
        t("label-budget"),
        "deploy",
        *view.BUDGET_RANGE,
        audit.DEFAULT_BUDGET_LOG,
        step=0.1,
        help=t("help-budget", covers=view.covers(analysis)),
    )
    pair = (
        params.choice(
            t("label-pair"),
            "pair",
            pairs,
            DEFAULT_PAIR if DEFAULT_PAIR in pairs else pairs[0],
            widget="selectbox",
            help=t("help-pair"),
        )
        if pairs
        else None
    )
    if not pairs:
        st.caption(t("no-crossover-run"))
    n = params.select_slider(t("label-n"), "n", view.N_OPTIONS, 48)
    with st.expander(t("more-settings")):
        m = params.select_slider(t("label-m"), "m", view.M_OPTIONS, 8)
        source = params.choice(
            t("label-xsrc"),
            "xsrc",
            view.CROSSOVER_SOURCES,
            view.CROSSOVER_SOURCES[0],
            format_func=view.crossover_source,
        )
        timed = params.toggle(t("label-timed"), "timed", False)
        typed = source == view.CROSSOVER_SOURCES[1] or not pairs
        if typed:
            more = params.text(t("label-more"), "more", t("default-more"), 60)
            less = params.text(t("label-less"), "less", t("default-less"), 60)
            xc = params.slider(t("label-xc"), "xc", *view.BUDGET_RANGE, 21.0, step=0.1)
            xu = params.slider(t("label-xu"), "xu", 0.0, 3.0, 0.3, step=0.1)
            xlo = params.slider(t("label-xlo"), "xlo", *view.BUDGET_RANGE, 18.0, step=0.1)
            xhi = params.slider(t("label-xhi"), "xhi", *view.BUDGET_RANGE, 22.0, step=0.1)
budget_log = round(float(budget_log), 1)
budget = 10**budget_log
measured = _measured(int(n), int(m), budget_log, pair, bool(timed), stamp, i18n.current())
workbook, link_notice = sections.current_workbook(measured)
rows = audit.table(workbook, measured)

# --- the decision rule: the first screen's figure --------------------------------------------------------------
if typed:
    crossing, reversed_range = view.typed_crossing(xc, xu, xlo, xhi, more, less)
    inputs = view.own_inputs(xc, xu, xlo, xhi, budget_log)
else:
    crossing = audit.crossover_input(analysis, pair)
    inputs = view.measured_inputs(crossing, budget_log)
decision = audit.decide(
    budget, crossing["crossover"], crossing["lo"], crossing["hi"], crossing["range"], crossing["more"], crossing["less"]
)
with figure_col:
    render.figure(
        figs.decision_rule(crossing, budget, decision, typed), key="audit-decision", notice=t("decision-notice")
    )
    say("takeaway", ship=view.escape(decision.ship), validate=view.escape(decision.validate))
    if typed and reversed_range:
        st.info(t("reversed-range", lo=xlo, hi=xhi))
    if decision.evidence != audit.MEASURED:
        st.warning(t("extrapolated"))
    if link_notice:
        sections.notify(*link_notice)

state = sections.keep_in_link(workbook)  # the link holds the workbook whichever section is open
controls = view.export_controls(int(n), int(m), budget_log, pair)
layout.show_sections(
    {
        t("tab-workbook"): lambda: sections.workbook_section(workbook, rows),
        t("tab-rule"): lambda: sections.rule_section(decision, inputs),
        t("tab-share"): lambda: sections.share_section(workbook, measured, decision, inputs, controls, pairs, state),
        t("tab-how"): lambda: say("how", **view.how_numbers()),
    }
)
