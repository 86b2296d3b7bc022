"""Inductive-bias crossover (slides 10, 13-15): real tiny models, local attention windows as structure."""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd
import streamlit as st

from explorer import results
from explorer import shipped as shipped_results
from explorer.experiments import crossover as xo
from explorer.figures import crossover as figs
from explorer.formatting import plural, sci
from explorer.recall import LAGS, mix
from ui import layout, params, render
from ui.frame import header
from ui.jobs import run_in_background
from ui.text import say, t

TIME_LIMIT_S = 90  # an on-demand run may take this long on the shared server
WINDOW_OPTIONS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48]
STEP_OPTIONS = [100, 200, 400, 800, 1600, 3200]
MAX_SEEDS = 5
# position-embedding initialisation -> the preset whose results are shipped for it
INITS = {"0.3": "main", "0.02": "main_default_init"}
RECIPE = xo.PRESETS["main"]
FIRST_SCREEN_HEIGHT = 450  # px: the curves and the takeaway under them on a 1440x900 screen
FIRST_SCREEN_BADGE = 60  # badge characters per line: the curves get three quarters of the width
LONG_SHARE = 0.6  # the recipe's score mix (`explorer.recall.WEIGHTS`): the slider's default, and the notes' facts


@st.cache_data(show_spinner=False)
def shipped(init: str) -> dict | None:
    """A main preset's results as produced by `python -m explorer crossover --preset <preset>`."""
    return shipped_results.load(xo.shipped_path(INITS[init]))


def settings(windows: tuple[int, ...], n_seeds: int, steps: int, init: str) -> xo.SweepConfig:
    return replace(xo.PRESETS[INITS[init]], windows=windows, seeds=tuple(range(n_seeds)), steps=steps)


@st.cache_data(show_spinner=False, max_entries=256)
def analysis_of_settings(windows: tuple[int, ...], n_seeds: int, steps: int, init: str, long_share: float) -> dict:
    """Analysis of settings whose every window is shipped or cached (the caller checked with `xo.plan`)."""
    cfg = settings(windows, n_seeds, steps, init)
    swept = xo.sweep(cfg, shipped(init), train=False)  # assembles stored records, never trains here
    return xo.analyse(swept, mix(long_share, len(cfg.lags)))


@st.cache_data(show_spinner=False, max_entries=16)
def analysis_of_run(run_key: str, _swept: dict, long_share: float) -> dict:
    """Analysis of an on-demand run held by the job queue (complete, or cut by the time limit)."""
    return xo.analyse(_swept, mix(long_share, len(_swept["config"]["lags"])))


@st.cache_data(show_spinner=False, max_entries=256)
def figures_of(analysis_key: tuple, budget: float, _analysis: dict) -> tuple:
    """The curves, b* and crossing figures of one analysis at one budget, built once (`analysis_key` names the
    analysis: the arguments of the cached call that made it)."""
    return (figs.accuracy_vs_compute(_analysis, budget, height=FIRST_SCREEN_HEIGHT,
                                     badge_chars=FIRST_SCREEN_BADGE),
            figs.best_structure(_analysis, budget),
            figs.crossover_points(_analysis, budget) if len(_analysis["windows"]) > 1 else None)


def seconds_per_model_step() -> float | None:
    data = shipped("0.3")
    return xo.measured_rate(data) if data else None


def fits(cfg: xo.SweepConfig, init: str) -> tuple[list[int], float]:
    """Windows still to train for `cfg` and the estimated seconds to train them here."""
    missing = xo.plan(cfg, shipped(init)).missing
    return missing, xo.estimate_seconds(cfg, len(missing), seconds_per_model_step()) if missing else 0.0


def suggestion(cfg: xo.SweepConfig, init: str) -> str:
    """What would fit into the time limit, said in terms of the controls."""
    for steps in sorted((s for s in STEP_OPTIONS if s < cfg.steps), reverse=True):
        if fits(replace(cfg, steps=steps), init)[1] <= TIME_LIMIT_S:
            return t("suggest-steps", steps=steps)
    for n in range(len(cfg.seeds) - 1, 0, -1):
        if fits(replace(cfg, seeds=tuple(range(n))), init)[1] <= TIME_LIMIT_S:
            return t("suggest-seeds", seeds=plural(n, "seed"))
    return t("suggest-windows")


def train_here(cfg: xo.SweepConfig, init: str, long_share: float) -> tuple[tuple | None, dict | None]:
    """(analysis key, analysis) of the picked settings: stored ones at once; new ones through a training button
    (or a refusal), and (None, None) until that run is done."""
    missing, seconds = fits(cfg, init)
    if not missing:
        try:
            analysis_key = (cfg.windows, len(cfg.seeds), cfg.steps, init, long_share)
            return analysis_key, analysis_of_settings(*analysis_key)
        except ValueError as err:  # a cached record vanished between the check and the read
            st.warning(t("record-vanished", err=err))
            return None, None
    if seconds > TIME_LIMIT_S:
        st.warning(t("refused", new=plural(len(missing), "new window"), missing=", ".join(map(str, missing)),
                     seeds=plural(len(cfg.seeds), "seed"), steps=cfg.steps, seconds=seconds, limit=TIME_LIMIT_S,
                     suggestion=suggestion(cfg, init)))
        return None, None
    key = "crossover-" + results.result_key("crossover-run", cfg.to_dict())

    def work(progress) -> dict:
        return xo.sweep(cfg, shipped(init), progress=progress.part(reserve_s=5.0))

    label = t("run-label", missing=", ".join(map(str, missing)), seeds=plural(len(cfg.seeds), "seed"),
              steps=cfg.steps, seconds=seconds)
    done = run_in_background(key, work, label, time_limit_s=TIME_LIMIT_S,
                             button=f"Train {plural(len(missing) * len(cfg.seeds), 'model')} (about {seconds:.0f} s)")
    if done is None:
        return None, None
    if done["stopped"] != "steps":
        st.warning(t("run-cut", limit=TIME_LIMIT_S, done=done["steps_done"], steps=cfg.steps))
    return (key, long_share), analysis_of_run(key, done, long_share)


def sure(confidence: float | None, analysis: dict) -> str:
    """How sure a winner is, in words: its bootstrap share, or that one seed cannot say."""
    if confidence is None:
        return t("sure-one-seed")
    boot = analysis["bootstrap"]
    return t("sure-share", share=confidence, resamples=boot["resamples"], seeds=boot["seeds"])


def takeaway(read: dict | None, analysis: dict, budget: float) -> None:
    """One sentence under the curves that follows the controls: who wins at today's budget, and how sure."""
    if read is None:
        st.info(t("outside-range", budget=sci(budget, 2), first=sci(analysis["flops"][0], 2),
                  last=sci(analysis["flops"][-1], 2)))
        return
    winner, runner_up, acc = read["winner"], read["runner_up"], read["accuracy"]
    at = dict(budget=sci(budget, 2), steps=budget / analysis["flops_per_step"], winner=winner,
              sure=sure(read["confidence"], analysis))
    if read["clear"]:
        text = t("read-wins", **at, acc=acc[winner])
        if runner_up is not None:
            text += " " + t("read-next", runner=runner_up, acc=acc[runner_up])
    else:
        text = t("read-unclear", **at, runner=runner_up, acc=acc[winner], acc_runner=acc[runner_up],
                 lead=read["lead"], min_lead=xo.MIN_LEAD, threshold=xo.CLEAR_CONFIDENCE)
    if read["remove_at"]:
        c = read["remove_at"]
        advice = t("read-remove", less=c["less_structure"], winner=winner, flops=sci(c["flops_of_mean_curves"], 2),
                   crossed=c["seeds_with_crossover"], seeds=c["seeds"])
    else:
        advice = t("read-keep")
    st.markdown(f"{text}. {advice}")


def cost_table(read: dict, analysis: dict) -> None:
    st.subheader("What each structure costs and buys at today's budget")
    table = pd.DataFrame({
        "window": [figs.window_name(w, RECIPE.length) for w in analysis["windows"]],
        "accuracy now": [read["accuracy"][w] for w in analysis["windows"]],
        "ceiling (closed form)": [analysis["ceilings"][w] for w in analysis["windows"]],
    })
    table["room left to its ceiling"] = table["ceiling (closed form)"] - table["accuracy now"]
    st.dataframe(table, hide_index=True, column_config={
        c: st.column_config.NumberColumn(format="%.3f") for c in table.columns if c != "window"})


def bstar_notice(analysis: dict) -> str:
    boot = analysis["bootstrap"]
    how_sure = t("bstar-bootstrap", **boot) if analysis["top_share"] else t("bstar-one-seed", min_lead=xo.MIN_LEAD)
    return t("bstar-notice", min_lead=xo.MIN_LEAD) + " " + how_sure


def crossed(analysis: dict) -> str:
    """Which pairs of windows cross in how many seeds, in words, from the analysis (never typed by hand)."""
    pairs = analysis["crossovers"]
    seeds = len(analysis["seeds"])
    short = [c for c in pairs if c["seeds_with_crossover"] < seeds]
    if not short:
        return t("crossed-all", pairs=len(pairs), seeds=seeds)
    others = ", ".join(t("crossed-pair", more=c["more_structure"], less=c["less_structure"],
                         crossed=c["seeds_with_crossover"], seeds=seeds) for c in short)
    return t("crossed-some", full=len(pairs) - len(short), pairs=len(pairs), seeds=seeds, others=others)


def path(analysis: dict) -> str:
    return ", ".join(str(row["window"]) for row in xo.changes(analysis["b_star"]))


def init_facts() -> dict | None:
    """The notes' comparison of the two shipped initialisations, computed from them (None if one is missing)."""
    if shipped("0.3") is None or shipped("0.02") is None:
        return None
    recipe = (RECIPE.windows, len(RECIPE.seeds), RECIPE.steps)
    main, default = (analysis_of_settings(*recipe, init, LONG_SHARE) for init in ("0.3", "0.02"))
    widest = [main["crossovers"][-1], default["crossovers"][-1]]  # the two widest windows

    def at(c: dict) -> str:
        where = f"{sci(c['flops_mean'], 2)} FLOPs" if c["flops_mean"] else "no crossing"
        return f"{where} ({c['seeds_with_crossover']} of {c['seeds']} seeds)"

    bunch = [c["flops_mean"] for c in default["crossovers"] if c["flops_mean"]]
    return dict(path_main=path(main), path_default=path(default), crossed_main=crossed(main),
                crossed_default=crossed(default), bunch_low=sci(min(bunch), 2), bunch_high=sci(max(bunch), 2),
                more=widest[0]["more_structure"], less=widest[0]["less_structure"], at_main=at(widest[0]),
                at_default=at(widest[1]))


def how_measured(analysis: dict, init: str, weights: list[float]) -> None:
    cfg_used = analysis["config"]
    data = shipped(init) or {}
    flops_w2 = xo.window_kernel_flops(RECIPE, 2) / xo.window_kernel_flops(RECIPE, RECIPE.length)
    say("how-measured", **{k: cfg_used[k] for k in ("n_layers", "d_model", "n_heads", "n_symbols", "lr", "warmup",
                                                    "batch_size", "grad_clip", "eval_size")},
        seeds=", ".join(map(str, analysis["seeds"])), weights=", ".join(f"{w:.2f}" for w in weights),
        lags=", ".join(map(str, LAGS)), flops_per_step=sci(analysis["flops_per_step"], 2), share_w2=flops_w2,
        decades=-math.log10(flops_w2))
    if analysis["top_share"]:
        say("how-bootstrap", min_lead=xo.MIN_LEAD, **analysis["bootstrap"])
    say("limits")
    facts = init_facts()
    if facts:
        say("limits-recipe", **facts)
    if data:
        say("shipped-run", preset=INITS[init], seconds=data.get("seconds", 0),
            torch=data.get("environment", {}).get("torch", "?"), created=data.get("created", "?"))


header("inductive-bias")
say("lead")
notice = st.container()  # filled once the init is known: above the figure, where a missing run shows
figure_col, controls_col = layout.stage()
with controls_col:
    windows = params.multiselect("Attention windows (structure levels; 48 = full attention)", "windows",
                                 WINDOW_OPTIONS, list(RECIPE.windows))
    long_share = params.slider("Score share of the long-range lags 3-31", "long", 0.0, 1.0, LONG_SHARE, step=0.05,
                               help=t("help-long"))
    budget_log = params.slider("Today's budget: log10 of training FLOPs", "budget", 8.0, 12.0, 9.8, step=0.1,
                               help=t("help-budget"))
    with st.expander("More settings: seeds, steps, initialisation"):
        n_seeds = params.slider("Seeds", "seeds", 1, MAX_SEEDS, len(RECIPE.seeds))
        steps = params.select_slider("Training steps per model", "steps", STEP_OPTIONS, RECIPE.steps)
        init = params.choice("Position init (std)", "init", list(INITS), "0.3", help=t("help-init"))
        st.caption(t("settings-caption", limit=TIME_LIMIT_S))
    long_share = round(float(long_share), 2)
    analysis_key = analysis = None
    if windows:
        analysis_key, analysis = train_here(settings(tuple(sorted(windows)), int(n_seeds), int(steps), init), init,
                                            long_share)

budget = 10 ** float(budget_log)
weights = mix(long_share, len(LAGS))
if shipped(init) is None:
    notice.warning(t("missing-shipped", name=xo.shipped_path(INITS[init]).name, preset=INITS[init]))
meanwhile = analysis is None and shipped(init) is not None
if meanwhile:
    analysis_key = (RECIPE.windows, len(RECIPE.seeds), RECIPE.steps, init, long_share)
    analysis = analysis_of_settings(*analysis_key)

with figure_col:
    if not windows:
        st.info(t("no-window"))
    if analysis is not None:
        curves_figure, bstar_figure, points_figure = figures_of(analysis_key, budget, analysis)
        render.figure(curves_figure, key="crossover-curves", notice=t("curves-notice"))
        read = xo.at_budget(analysis, budget)
        takeaway(read, analysis, budget)
        if meanwhile:
            st.caption(t("meanwhile"))
if analysis is None:
    st.stop()

question_tab, best_tab, how_tab = layout.sections(["The question and the task", "Best structure and crossings",
                                                   "How it was measured"])
if best_tab:
    with best_tab:
        render.figure(bstar_figure, key="crossover-bstar", notice=bstar_notice(analysis))
        if points_figure is not None:
            render.figure(points_figure, key="crossover-points", notice=t("points-notice"))
        else:
            st.info(t("one-window"))
        if read is not None:
            cost_table(read, analysis)
if question_tab:
    with question_tab:
        say("question", lags=", ".join(map(str, LAGS[:-1])), last_lag=LAGS[-1])
if how_tab:
    with how_tab:
        how_measured(analysis, init, weights)
