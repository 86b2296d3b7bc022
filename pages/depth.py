"""Depth and cross-attention (slides 59-63): final-layer-only vs layer-aligned reading, measured as depth grows."""

from __future__ import annotations

from dataclasses import replace
import pandas as pd
import streamlit as st

from explorer import results
from explorer.experiments import depth as dp
from explorer.experiments import depth_view as view
from explorer.experiments import layer_aligned
from explorer.figures import depth as figs
from explorer.formatting import plural
from explorer.stats import smallest_p
from ui import layout, params, render
from ui.frame import header, page_link
from ui.jobs import run_in_background, was_cut
from ui.text import say, t

TIME_LIMIT_S = 90  # an on-demand run may take this long on the shared server
RECIPE = view.RECIPE
FIRST_SCREEN_HEIGHT = 520  # px: the deepest schematic and its legend whole on a 1440x900 screen


@st.cache_data(show_spinner=False)
def shipped(stamp: tuple[float, ...]) -> dict:
    """The shipped runs and what the page reads from them (`view.load_shipped`), reloaded when a file changes."""
    return view.load_shipped()


@st.cache_data(show_spinner=False, max_entries=64)
def analysis_of(steps: int, n_seeds: int, width: int, ready: tuple, stamp: tuple[float, ...]) -> dict:
    """Analysis of the runs shipped or cached for these settings (`ready` and `stamp` only key the cache)."""
    return dp.analyse(dp.available(view.settings(steps, n_seeds, width), shipped(stamp)["runs"])[0])


def measured(name: str):
    """`figs.<name>(analysis, depth)` for the analysis and depth on screen."""
    return render.built_once((name, analysis_key, depth), lambda: getattr(figs, name)(analysis, depth))


# ----------------------------------------------------------------------------------------------- page

STAMP = view.shipped_stamp()
SHIPPED = shipped(STAMP)
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
        width = params.select_slider(t("label-width"), "width", (16, 32, 64), RECIPE.d_model,
                                     help=t("help-width", heads=RECIPE.n_heads))
        st.caption(t("settings-caption", **view.settings_numbers(), limit=TIME_LIMIT_S))
    depth, steps, n_seeds, width = int(depth), int(steps), int(n_seeds), int(width)
    cfg = view.settings(steps, n_seeds, width)
    swept, missing = dp.available(cfg, SHIPPED["runs"])  # one look at the cache per run; it removes what cannot be used
    if swept["rejected"]:  # cached records that could not be used, and were removed
        st.warning(t("rejected", **view.rejected_numbers(swept["rejected"])))
    plan = view.on_demand(cfg, depth, missing, SHIPPED, TIME_LIMIT_S)  # what these settings lack at this depth
    if plan["too_slow"]:
        st.warning(t("refused", **plan, suggestion=t("suggestion", **plan["fits"]) if plan["fits"]
                     else t("suggestion-none")))
    elif plan["models"]:  # a button that trains them in the background, beside the controls that asked for them
        one_depth, reuse, models = replace(cfg, depths=(depth,)), SHIPPED["runs"], plural(plan["models"], "model")
        key = "depth-" + results.result_key("depth-run", one_depth.to_dict())
        if was_cut(key):
            st.warning(t("run-cut", limit=TIME_LIMIT_S, models=models))
        run_in_background(key, lambda progress: dp.sweep(one_depth, reuse, progress=progress.part(reserve_s=5.0)),
                          t("run-label", depth=depth, models=models, steps=cfg.steps), time_limit_s=TIME_LIMIT_S,
                          button=t("run-button", models=models, seconds=plan["seconds"]))
    ready_keys = tuple((r["depth"], r["wiring"], r["seed"]) for r in swept["runs"])
    analysis_key, analysis = (steps, n_seeds, width, ready_keys, STAMP), None
    if ready_keys:
        with render.section(t("analysis-name")):
            analysis = analysis_of(*analysis_key)

meanwhile = analysis is None or not analysis["depths"]
if meanwhile:
    analysis_key = MAIN_KEY
    analysis = analysis_of(*analysis_key) if SHIPPED["main"] is not None else None
cells = analysis["cells"].get(depth, {}) if analysis is not None else {}
here = view.at_depth(analysis, depth) if analysis is not None else None

with figure_col:
    wiring = render.built_once(("depth-wiring", depth), lambda: figs.wiring_schematic(depth, max_height=FIRST_SCREEN_HEIGHT))
    render.figure(wiring, key="depth-wiring", notice=t("wiring-notice"))
    control = view.control_at(SHIPPED["control"], depth)
    if analysis is not None and here is None:
        say("takeaway-none", depth=depth)
    elif here is not None:
        st.markdown(t("takeaway", **{**here, "depth": t("depth-shipped", depth=depth) if meanwhile else depth})
                    + (" " + t("takeaway-control", **control) if control else ""))
if analysis is None:
    st.stop()


results_tab, depths_tab, control_tab, lr_tab, curves_tab, probes_tab, errors_tab, task_tab, how_tab = layout.sections([
    t(f"tab-{name}") for name in ("results", "depths", "control", "lr", "curves", "probes", "errors", "task", "how")])
if results_tab:
    with results_tab:
        if meanwhile:
            st.caption(t("meanwhile", **view.settings_numbers()))
        else:
            shown = view.coverage(analysis, cfg)
            if shown["untrained"]:
                st.caption(t("untrained", **shown))
            if shown["seeds"]:
                st.caption(t("seeds-shown", **shown))
        if here is not None:
            for i, (col, (label, value, delta)) in enumerate(zip(st.columns(4), view.tiles(here))):
                col.metric(label, value, delta, help=t("help-p", **here) if i == 3 else None)  # the 4th: exact p
            st.markdown(t("wins", **here) + " " + (t("detectable", **here) if here["has_test"] else t("no-test")))
            say("anatomy-sentence", **here)
        elif analysis["depths"]:
            st.info(t("not-measured", depth=depth))
if depths_tab:
    with depths_tab:
        floor = {"seeds": plural(len(analysis["seeds"]), "seed"), "smallest": smallest_p(len(analysis["seeds"]))}
        gaps = "; ".join(t("outcome-item", **i) for i in view.outcome_items(analysis)) or t("outcome-none")
        render.figure(measured("outcome_vs_depth"), key="depth-outcome", notice=t("outcome-notice", gaps=gaps, **floor))
        if rows := view.depth_table(analysis):
            st.dataframe(pd.DataFrame(rows), hide_index=True)
            caption = t("table-caption", seeds=len(analysis["seeds"]), smallest=floor["smallest"])
            if flops := view.same_cost(analysis):
                caption = t("same-cost", flops=", ".join(t("flops-item", **f) for f in flops)) + " " + caption
            st.caption(caption)
if control_tab:
    with control_tab:
        if (control := SHIPPED["control"]) is None:
            st.info(t("control-missing"))
        else:
            main = analysis_of(*MAIN_KEY)
            numbers = view.control_numbers(main, control)
            said = {name: "; ".join(t("gap-item", **i) for i in view.gap_items(a))
                    for name, a in (("main", main), ("control", control))}
            say("control-intro", **numbers)
            tasks = {RECIPE.task_name: main, dp.PRESETS["control"].task_name: control}
            render.figure(render.built_once(("depth-control", STAMP), lambda: figs.gap_by_task(tasks)), key="depth-control",
                          notice=t("control-notice", **said))
            table = view.gap_table(tasks)
            st.dataframe(pd.DataFrame(table), hide_index=True)
            st.caption(t("control-caption", **numbers, tests=len(table)))
            say("control-verdict", **{**numbers, **said, "seeds": numbers["main_seeds"]})
            if (found := render.built_once(layer_aligned.stamp(), layer_aligned.evidence)) is not None:  # four-steps' step 3
                say("reconcile", **layer_aligned.placeholders(found))
if lr_tab:
    with lr_tab:
        if (lr := SHIPPED["lr"]) is None:
            st.info(t("lr-missing"))
        else:
            numbers = view.lr_numbers(lr)
            say("lr-intro", **{**numbers, "seeds": numbers["n_seeds"]})
            render.figure(render.built_once(("depth-lr", STAMP), lambda: figs.lr_check(lr)), key="depth-lr", notice=t("lr-notice"))
            say("lr-verdict", **numbers)
            if numbers["edge"]:
                st.caption(t("lr-edge", wirings=numbers["edge"]))
            if numbers["other"]:
                rates = ", ".join(t("rate-item", **o) for o in numbers["other"])
                say("lr-by-accuracy", rates=rates, gap=numbers["other_gap"])
for tab in (curves_tab, probes_tab, errors_tab):
    if tab and not cells:
        tab.info(t("no-cells", depth=depth))
if curves_tab and cells:
    with curves_tab:
        late = view.late_drops(cells)
        render.figure(measured("training_curves"), key="depth-curves",
                      notice=t("curves-notice", drops=view.joined(t("drop-item", **d) for d in late["items"])))
        if late["wirings"]:
            ready = view.longest_ready(cfg, depth, SHIPPED["runs"])
            hint = t("hint-ready", steps=ready[0], seeds=plural(ready[1], "seed")) if ready else t("hint-more")
            st.info(t("caveat", depth=depth, **late, hint=hint))
if probes_tab and cells:
    with probes_tab:
        say("probes-intro")
        render.figure(measured("probe_profile"), key="depth-probes", notice=t("probes-notice"))
        st.markdown("\n".join(t("probe-line", **line) for line in view.probe_lines(cells)))
if errors_tab and cells:
    with errors_tab:
        st.dataframe(pd.DataFrame(view.anatomy_table(cells)), hide_index=True)
        st.caption(t("anatomy-caption"))
if task_tab:
    with task_tab:
        say("intro")
        say("task", **view.task_numbers())
        st.markdown("\n".join(t("example", **e, length=RECIPE.task.length) for e in dp.examples(RECIPE.task, 3, 3)))
if how_tab:
    with how_tab:
        parts = [t("how-measured", **view.how_numbers(analysis, depth))]
        if "long" in SHIPPED["by_preset"]:
            long_analysis = analysis_of(*view.preset_key("long"), STAMP)
            parts.append(t("long-run", **view.long_run_numbers(long_analysis, analysis_of(*MAIN_KEY))))
        parts += [t("shipped-run", **view.shipped_run_numbers(n, run)) for n, run in SHIPPED["by_preset"].items()]
        st.markdown("\n".join(parts))

page_link("four-steps", t("link-four-steps"))
