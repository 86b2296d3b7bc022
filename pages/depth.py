"""Depth and cross-attention (slides 59-63): final-layer-only vs layer-aligned reading, measured as depth grows."""

from __future__ import annotations

import streamlit as st

from explorer.experiments import depth as dp
from explorer.experiments import depth_view as view
from explorer.figures import depth as figs
from explorer.formatting import plural
from ui import layout, params, render
from ui.frame import header, page_link
from ui.jobs import run_in_background, was_cut
from ui.sections import depth as sections
from ui.sections import ladder
from ui.text import say, t

TIME_LIMIT_S = 90  # an on-demand run may take this long on the shared server
RECIPE = view.RECIPE
FIRST_SCREEN_HEIGHT = 520  # px: the deepest schematic and its legend whole on a 1440x900 screen

STAMP = view.shipped_stamp()
SHIPPED = sections.shipped(STAMP)
MAIN_KEY = (*view.preset_key("main"), STAMP)
header("depth")
say("lead")
if SHIPPED["main"] is None:
    st.warning(t("missing-shipped", name=dp.SHIPPED_PATH.name))
figure_col, controls_col = layout.stage()
with controls_col:
    depth = params.select_slider(t("label-depth"), "depth", view.DEPTHS, 4)
    steps = params.select_slider(t("label-steps"), "steps", view.STEP_OPTIONS, RECIPE.steps)
    n_seeds = params.slider(t("label-seeds"), "seeds", 1, dp.MAX_SEEDS, len(RECIPE.seeds))
    with st.expander(t("label-more")):
        width = params.select_slider(
            t("label-width"), "width", (16, 32, 64), RECIPE.d_model, help=t("help-width", heads=RECIPE.n_heads)
        )
        st.caption(t("settings-caption", **view.settings_numbers(), limit=TIME_LIMIT_S))
    depth, steps, n_seeds, width = int(depth), int(steps), int(n_seeds), int(width)
    cfg = view.settings(steps, n_seeds, width)
    swept, missing = dp.available(cfg, SHIPPED["runs"])  # one look at the cache per run; it removes what cannot be used
    if swept["rejected"]:  # cached records that could not be used, and were removed
        st.warning(t("rejected", **view.rejected_numbers(swept["rejected"])))
    plan = view.on_demand(cfg, depth, missing, SHIPPED, TIME_LIMIT_S)  # what these settings lack at this depth
    if plan["too_slow"]:
        st.warning(view.refusal(plan))
    elif plan["models"]:  # a button that trains them in the background, beside the controls that asked for them
        (one_depth, key), models = view.one_depth(cfg, depth), plural(plan["models"], "model")
        reuse = SHIPPED["runs"]
        if was_cut(key):
            st.warning(t("run-cut", limit=TIME_LIMIT_S, models=models))
        run_in_background(
            key,
            lambda progress: dp.sweep(one_depth, reuse, progress=progress.part(reserve_s=5.0)),
            t("run-label", depth=depth, models=models, steps=cfg.steps),
            time_limit_s=TIME_LIMIT_S,
            button=t("run-button", models=models, seconds=plan["seconds"]),
        )
    ready_keys = view.ready_keys(swept)
    analysis_key, analysis = (steps, n_seeds, width, ready_keys, STAMP), None
    if ready_keys:
        with render.section(t("analysis-name")):
            analysis = sections.analysis_of(*analysis_key)

meanwhile = analysis is None or not analysis["depths"]
if meanwhile:
    analysis_key = MAIN_KEY
    analysis = sections.analysis_of(*analysis_key) if SHIPPED["main"] is not None else None
here = view.at_depth(analysis, depth) if analysis is not None else None

with figure_col:
    # the wiring and, beside it, the measured answer at this depth seed by seed (stacked on a phone)
    wiring_col, answer_col = st.columns(2) if here is not None else (st.container(), None)
    with wiring_col:
        wiring = render.built_once(
            ("depth-wiring", depth), lambda: figs.wiring_schematic(depth, max_height=FIRST_SCREEN_HEIGHT)
        )
        render.figure(wiring, key="depth-wiring", notice=t("wiring-notice"))
    if answer_col is not None:
        with answer_col:
            answer = render.built_once(
                ("depth-answer", analysis_key, depth),
                lambda: figs.paired_seeds(analysis, depth, height=FIRST_SCREEN_HEIGHT),
            )
            render.figure(answer, key="depth-answer", notice=t("answer-notice"))
    if analysis is not None and here is None:
        say("takeaway-none", depth=depth)
    elif here is not None:
        st.markdown(view.takeaway(here, SHIPPED["control"], meanwhile))
if analysis is None:
    st.stop()

layout.show_sections(
    {
        t("tab-results"): lambda: sections.results(analysis, here, cfg, depth, meanwhile),
        t("tab-depths"): lambda: sections.depths(analysis, analysis_key, depth),
        t("tab-control"): lambda: sections.control(SHIPPED["control"], STAMP),
        t("tab-lr"): lambda: sections.learning_rate(SHIPPED["lr"], STAMP),
        t("tab-curves"): lambda: sections.curves(analysis, analysis_key, depth, cfg, SHIPPED["runs"]),
        t("tab-probes"): lambda: sections.probes(analysis, analysis_key, depth),
        t("tab-errors"): lambda: sections.errors(analysis, depth),
        t("tab-task"): sections.task,
        t("tab-how"): lambda: sections.how(analysis, depth, SHIPPED["by_preset"], STAMP),
        t("tab-ladder"): lambda: ladder.hold_at_scale("depth"),
    }
)

page_link("four-steps", t("link-four-steps"))
