"""Inductive-bias crossover (slides 10, 13-15): local attention windows as structure, each trained at several
model sizes; a window's frontier is its best size at each compute, and the frontiers cross."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from explorer import i18n, results
from explorer import shipped as shipped_results
from explorer.experiments import crossover as xo
from explorer.experiments import crossover_view as view
from explorer.experiments.crossover_view import ALL, BEST, TWO
from explorer.figures import crossover as figs
from explorer.formatting import sci
from ui import layout, params, render
from ui.frame import header
from ui.jobs import run_in_background, was_cut
from ui.sections import ladder
from ui.text import say, t

TIME_LIMIT_S = 90  # the live run may take this long on the shared server
MAIN, QUICK = xo.PRESETS["main"], xo.PRESETS["quick"]
PAIR = [MAIN.windows[0], MAIN.windows[-1]]  # slide 10's two curves: the most structure and the least
RECIPES = [BEST, *(f"{lr:g}" for lr in MAIN.lrs)]
DEFAULT_BUDGET = 9.4  # log10 FLOPs: left of the crossing, where the structured window still wins (slide 13)
FIRST_SCREEN_HEIGHT = 430  # px: the curves and the takeaway under them on a 1440x900 screen
FIRST_SCREEN_BADGE = 60  # badge characters per line: the curves get three quarters of the width


@st.cache_data(show_spinner=False)
def shipped() -> dict | None:
    """The main preset's results as produced by `python -m explorer crossover --preset main`."""
    return shipped_results.load(xo.shipped_path("main"))


@st.cache_data(show_spinner=False, max_entries=8)
def analysis_of(recipe: str, show: str) -> dict | None:
    """The shipped sweep (slide 10's pair of windows, or all) analysed with the best learning rate per size, or
    with one rate for every size."""
    cfg = replace(MAIN, windows=tuple(PAIR)) if show == TWO else MAIN
    try:
        swept = xo.sweep(cfg, shipped(), train=False)  # assembles stored records, never trains here
    except ValueError:  # missing, or made with other settings
        return None
    return xo.analyse(swept, lr=None if recipe == BEST else float(recipe))


@st.cache_data(show_spinner=False, max_entries=64)
def first_figure(recipe: str, show: str, budget: float, lang: str):
    return figs.frontier_curves(
        analysis_of(recipe, show), budget, height=FIRST_SCREEN_HEIGHT, badge_chars=FIRST_SCREEN_BADGE
    )


def takeaway(analysis: dict, budget: float) -> dict | None:
    """One sentence under the curves that follows the controls: who wins at today's budget, and how sure."""
    read, text = view.reading(analysis, budget)
    (st.info if read is None else st.markdown)(text)
    return read


def cost_table(read: dict, analysis: dict) -> None:
    st.subheader(t("table-title"))
    table, numbers = view.cost_table(read, analysis, MAIN.length)
    number = st.column_config.NumberColumn(format="%.3f")
    st.dataframe(table, hide_index=True, column_config=dict.fromkeys(numbers, number))


def live_figure(partial: dict):
    """The quick run's frontiers so far, redrawn at every poll while it trains (no bootstrap: it is partial)."""
    return figs.frontier_curves(xo.analyse(partial, bootstrap=False), height=440)


def watch() -> None:
    """Train the quick preset here and watch its frontiers grow and cross."""
    seconds = xo.estimate_seconds(QUICK, seconds_per_model_step=xo.measured_rate(shipped()) if shipped() else None)
    models = len(QUICK.runs) * len(QUICK.seeds)
    say(
        "watch",
        models=models,
        widths=", ".join(map(str, QUICK.widths)),
        steps=QUICK.steps,
        lr=QUICK.lrs[0],
        seconds=seconds,
    )
    key = "crossover-quick-" + results.result_key("crossover-quick", QUICK.to_dict())
    cut = was_cut(key)
    run = (
        run_in_background(
            key,
            lambda progress: xo.sweep(QUICK, use_cache=False, progress=progress.part(reserve_s=3)),
            t("run-label", seconds=seconds),
            time_limit_s=TIME_LIMIT_S,
            live=live_figure,
            button=t("run-button", models=models, seconds=seconds),
        )
        or cut
    )
    if run is None:
        return
    if run["stopped"] != "steps":
        st.warning(t("run-cut", limit=TIME_LIMIT_S, done=run["steps_done"], steps=QUICK.steps))
    quick = xo.analyse(run)
    c = quick["crossovers"][0]
    render.figure(
        figs.frontier_curves(quick),
        key="crossover-quick",
        notice=t(
            "watch-notice",
            seconds=run["seconds"],
            crossed=c["seeds_with_crossover"],
            seeds=c["seeds"],
            at=view.quick_crossing(c),
        ),
    )


def how_measured(analysis: dict) -> None:
    data = shipped()
    w2 = xo.window_kernel_flops(MAIN, 2, MAIN.widths[-1]) / xo.window_kernel_flops(MAIN, MAIN.length, MAIN.widths[-1])
    say(
        "how-measured",
        widths=", ".join(map(str, MAIN.widths)),
        lrs=", ".join(f"{lr:g}" for lr in MAIN.lrs),
        seeds=", ".join(map(str, analysis["seeds"])),
        steps=MAIN.steps,
        eval_size=MAIN.eval_size,
        **{k: getattr(MAIN, k) for k in ("n_layers", "n_heads", "n_symbols", "warmup", "batch_size", "grad_clip")},
        flops=", ".join(sci(MAIN.flops_per_step(d), 2) for d in MAIN.widths),
        share_w2=w2,
    )
    if analysis["top_share"]:
        say("how-bootstrap", min_lead=xo.MIN_LEAD, **analysis["bootstrap"])
    say("limits", steps=MAIN.steps)
    shift = view.lr_shift(analysis_of(BEST, ALL))
    if shift:
        st.markdown(shift)
    say("shipped-run", seconds=data["seconds"], torch=data["environment"]["torch"], created=data["created"])


header("inductive-bias")
say("lead")
figure_col, controls_col = layout.stage()
with controls_col:
    show = params.choice(
        t("label-show"), "show", [TWO, ALL], TWO, widget="radio", help=t("help-show"), format_func=view.show_label
    )
    recipe = params.choice(
        t("label-lr"), "lr", RECIPES, BEST, widget="radio", help=t("help-lr"), format_func=view.recipe_label
    )
    budget_log = params.slider(t("label-budget"), "budget", 7.5, 11.5, DEFAULT_BUDGET, step=0.1, help=t("help-budget"))
budget = 10 ** float(budget_log)
analysis = analysis_of(recipe, show)
with figure_col:
    if analysis is None:
        st.warning(t("missing-shipped", name=xo.shipped_path("main").name))
        st.stop()
    render.figure(first_figure(recipe, show, budget, i18n.current()), key="crossover-curves", notice=t("curves-notice"))
    read = takeaway(analysis, budget)

question_tab, best_tab, watch_tab, how_tab, ladder_tab = layout.sections([*view.section_labels(), t("tab-ladder")])
if question_tab:
    with question_tab:
        say("question", lags=", ".join(map(str, MAIN.lags[:-1])), last_lag=MAIN.lags[-1])
if best_tab:
    with best_tab:
        render.figure(figs.best_structure(analysis, budget), key="crossover-bstar", notice=view.bstar_notice(analysis))
        render.figure(figs.crossover_points(analysis, budget), key="crossover-points", notice=t("points-notice"))
        if read is not None:
            cost_table(read, analysis)
if watch_tab:
    with watch_tab:
        watch()
if how_tab:
    with how_tab:
        how_measured(analysis)
if ladder_tab:
    with ladder_tab:
        ladder.hold_at_scale("crossover")
