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
from ui import params, render
from ui.frame import header
from ui.jobs import run_in_background

TIME_LIMIT_S = 90  # an on-demand run may take this long on the shared server
WINDOW_OPTIONS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48]
STEP_OPTIONS = [100, 200, 400, 800, 1600, 3200]
MAX_SEEDS = 5
# position-embedding initialisation -> the preset whose results are shipped for it
INITS = {"0.3": "main", "0.02": "main_default_init"}
RECIPE = xo.PRESETS["main"]


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
    return (figs.accuracy_vs_compute(_analysis, budget), figs.best_structure(_analysis, budget),
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
            return f"With these windows and seeds, {steps} steps fit."
    for n in range(len(cfg.seeds) - 1, 0, -1):
        if fits(replace(cfg, seeds=tuple(range(n))), init)[1] <= TIME_LIMIT_S:
            return f"With these windows and steps, {n} seed{'s' if n > 1 else ''} fit."
    return "Pick fewer new windows (the shipped ones, 2, 4, 8, 16 and 48, cost nothing up to 800 steps)."


header("inductive-bias")
st.markdown(
    "Slide 10 draws two curves: a method with **more structure** does better when compute is scarce, "
    "one with **less structure** starts worse and overtakes when compute grows. Here the curves come from "
    "real training runs. Each model is the project's one-layer Transformer; its structure is a **local "
    "attention window w**: every position may read only the last w positions. The task, *multi-lag recall*, "
    f"asks at every position for the symbols {', '.join(map(str, LAGS[:-1]))} and {LAGS[-1]} places back, "
    "in sequences of 48 random symbols out of 8. Most of the score can be local and the rest needs long "
    "range, so locality is a **good but incomplete prior**, on purpose: that is the situation the lecture "
    "is about.")

with st.container(border=True):
    top = st.columns([3, 2])
    windows = params.multiselect("Attention windows (structure levels; 48 = full attention)", "windows",
                                 WINDOW_OPTIONS, list(RECIPE.windows), where=top[0])
    long_share = params.slider("Score share of the long-range lags 3-31", "long", 0.0, 1.0, 0.6, step=0.05,
                               where=top[1],
                               help="The rest of the score is on lag 1. Re-scores the same trained models.")
    row = st.columns([2, 2, 2, 3])
    n_seeds = params.slider("Seeds", "seeds", 1, MAX_SEEDS, len(RECIPE.seeds), where=row[0])
    steps = params.select_slider("Training steps per model", "steps", STEP_OPTIONS, RECIPE.steps, where=row[1])
    init = params.choice("Position init (std)", "init", list(INITS), "0.3", where=row[2],
                         help="Standard deviation of the learned position embeddings at initialisation; 0.02 is "
                              "the model's default. Both runs are shipped; see the notes below.")
    budget_log = params.slider("Today's budget: log10 of training FLOPs", "budget", 8.0, 12.0, 9.8, step=0.1,
                               where=row[3], help="Read off which structure wins at this compute (slide 13).")
    st.caption("Windows, seeds and steps within the shipped run (windows 2, 4, 8, 16, 48; 3 seeds; 800 steps) "
               f"show at once; anything else offers a button that trains it for real here, limited to {TIME_LIMIT_S} s, and caches it.")

long_share = round(float(long_share), 2)
budget = 10 ** float(budget_log)
weights = mix(long_share, len(LAGS))

if shipped(init) is None:
    st.warning(f"The shipped results ({xo.shipped_path(INITS[init]).name}) are missing or unreadable; run "
               f"`python -m explorer crossover --preset {INITS[init]}` to produce them. Only on-demand runs work "
               "meanwhile.")

analysis = None
if not windows:
    st.info("Pick at least one attention window to see its curve.")
else:
    cfg = settings(tuple(sorted(windows)), int(n_seeds), int(steps), init)
    missing, seconds = fits(cfg, init)
    if not missing:
        try:
            analysis_key = (cfg.windows, len(cfg.seeds), cfg.steps, init, long_share)
            analysis = analysis_of_settings(*analysis_key)
        except ValueError as err:  # a cached record vanished between the check and the read
            st.warning(f"{err}; rerun the page to train them.")
    elif seconds > TIME_LIMIT_S:
        st.warning(f"Refused: training {len(missing)} new window{'s' if len(missing) > 1 else ''} "
                   f"({', '.join(map(str, missing))}) x {plural(len(cfg.seeds), 'seed')} x {cfg.steps} steps would take "
                   f"about {seconds:.0f} s on this server; on-demand runs are limited to {TIME_LIMIT_S} s. "
                   f"{suggestion(cfg, init)}")
    else:
        key = "crossover-" + results.result_key("crossover-run", cfg.to_dict())

        def work(progress) -> dict:
            return xo.sweep(cfg, shipped(init), progress=progress.part(reserve_s=5.0))

        label = f"Training windows {', '.join(map(str, missing))} ({plural(len(cfg.seeds), 'seed')}, {cfg.steps} steps, " \
                f"about {seconds:.0f} s)"
        done = run_in_background(key, work, label, time_limit_s=TIME_LIMIT_S,
                                 button=f"Train {plural(len(missing) * len(cfg.seeds), 'model')} (about {seconds:.0f} s)")
        if done is not None:
            if done["stopped"] != "steps":
                st.warning(f"The run reached the {TIME_LIMIT_S} s limit after {done['steps_done']} of "
                           f"{cfg.steps} steps; the curves stop there and this partial run is not cached.")
            analysis_key = (key, long_share)
            analysis = analysis_of_run(key, done, long_share)

if analysis is None and shipped(init) is not None:
    st.caption("Meanwhile: the shipped run (windows 2, 4, 8, 16, 48; 3 seeds; 800 steps) with your score mix.")
    analysis_key = (RECIPE.windows, len(RECIPE.seeds), RECIPE.steps, init, long_share)
    analysis = analysis_of_settings(*analysis_key)

if analysis is not None:
    read = xo.at_budget(analysis, budget)
    steps_at_budget = budget / analysis["flops_per_step"]
    if read is None:
        st.info(f"Today's budget, {sci(budget, 2)} FLOPs, lies outside the measured range "
                f"({sci(analysis['flops'][0], 2)} to {sci(analysis['flops'][-1], 2)} FLOPs per model).")
    else:
        winner, runner_up, acc = read["winner"], read["runner_up"], read["accuracy"]
        where = f"**At {sci(budget, 2)} training FLOPs (about {steps_at_budget:.0f} steps per model), "
        if read["clear"]:
            text = where + f"window {winner} wins** with accuracy {acc[winner]:.3f}"
            if runner_up is not None:
                text += f" (next best: w={runner_up}, {acc[runner_up]:.3f})"
        else:
            text = (where + f"windows {winner} and {runner_up} are tied** ({acc[winner]:.3f} and "
                    f"{acc[runner_up]:.3f}, less than {xo.MIN_LEAD} apart); w={winner} is ahead by a hair")
        text += ". Slide 13's advice: use the structure that works at your budget"
        if read["remove_at"]:
            c = read["remove_at"]
            text += (f", and know when to take it out: w={c['less_structure']} overtakes w={winner} at about "
                     f"{sci(c['flops_of_mean_curves'], 2)} FLOPs ({c['seeds_with_crossover']}/{c['seeds']} seeds).")
        else:
            text += "; within these runs nothing overtakes it."
        st.markdown(text)

    curves_figure, bstar_figure, points_figure = figures_of(analysis_key, budget, analysis)
    render.figure(curves_figure, key="crossover-curves",
                  notice="What to notice: narrow windows (more structure) rise first and flatten at their dashed "
                         "ceilings; wider windows start slower and end higher. Less structure costs a slow start "
                         "and buys a higher ceiling (slides 10 and 15).")
    render.figure(bstar_figure, key="crossover-bstar",
                  notice="What to notice: the best window b*(r) = argmax_b P(b; r) is not fixed; it widens as "
                         "compute r grows (slide 14). At the first checkpoints all models are near chance, so "
                         "b* there is noise (hover for the lead).")
    if points_figure is not None:
        render.figure(points_figure, key="crossover-points",
                      notice="What to notice: each crossing is measured per seed (circles); the spread says how "
                             "sure the crossing point is. The dotted line is today's budget: pairs crossing to its "
                             "right are still won by the narrower window. Pairs that do not cross within the "
                             "training budget are listed below the axis.")
    else:
        st.info("With one window there is nothing to cross; add another window.")

    if read is not None:
        st.subheader("What each structure costs and buys at today's budget")
        table = pd.DataFrame({
            "window": [figs.window_name(w, RECIPE.length) for w in analysis["windows"]],
            "accuracy now": [read["accuracy"][w] for w in analysis["windows"]],
            "ceiling (closed form)": [analysis["ceilings"][w] for w in analysis["windows"]],
        })
        table["room left to its ceiling"] = table["ceiling (closed form)"] - table["accuracy now"]
        st.dataframe(table, hide_index=True, column_config={
            c: st.column_config.NumberColumn(format="%.3f") for c in table.columns if c != "window"})

    with st.expander("How this was measured, and what it does not show"):
        cfg_used = analysis["config"]
        data = shipped(init) or {}
        flops_w2 = xo.window_kernel_flops(RECIPE, 2) / xo.window_kernel_flops(RECIPE, RECIPE.length)
        st.markdown(
            f"- **Models**: the project's Transformer, decoder (causal), {cfg_used['n_layers']} layer, "
            f"d_model {cfg_used['d_model']}, {cfg_used['n_heads']} heads, MLP 4x, one output of "
            f"{cfg_used['n_symbols']} classes per lag; Adam, learning rate {cfg_used['lr']}, {cfg_used['warmup']} "
            f"warm-up steps, batch {cfg_used['batch_size']}, gradient clipping {cfg_used['grad_clip']}. "
            f"Seeds {', '.join(map(str, analysis['seeds']))}: a seed fixes the initial weights, the training "
            "batches and the held-out set, and all windows of a seed share them.\n"
            f"- **Score**: held-out accuracy on {cfg_used['eval_size']} fresh sequences per seed, per lag, "
            f"weighted {', '.join(f'{w:.2f}' for w in weights)} for lags {', '.join(map(str, LAGS))}. The models "
            "learn every lag with equal weight; the score mix only says how much each lag counts, so moving "
            "it re-scores the same models.\n"
            "- **Ceilings** (closed form): a one-layer model with window w sees w-1 symbols back; symbols are "
            "independent and uniform, so on a lag out of reach nothing beats a guess (1 in 8). Ceiling = "
            "weights of the lags in reach + 1/8 of the rest.\n"
            f"- **Compute**: training FLOPs = 3 x forward matmul FLOPs x batch x steps "
            f"({sci(analysis['flops_per_step'], 2)} per step). The model computes the full 48 x 48 score matrix "
            "and masks it, so every window costs the same. A kernel that computed only the entries a position "
            f"may read would make a w=2 step cost {flops_w2:.0%} of a full causal-attention step, moving its "
            f"curve left by {-math.log10(flops_w2):.2f} decades: not enough to change who crosses whom.\n"
            "- **Crossover**: the less-structured curve overtakes for good (it trails by at least 0.01 before, "
            "and leads by at least 0.01 at the end), located by linear interpolation in log FLOPs.\n"
            "- **Designed, not discovered**: the task was built so that locality helps but is incomplete. "
            "Set the long-range share to 0 and every window of 2 or more can reach a perfect score: the "
            "narrowest window leads early and is never overtaken. The lesson is the mechanism (a prior buys "
            "speed and costs a ceiling), not a claim that locality always loses. With two layers windows stack (each layer "
            "reaches w-1 further) and beat these one-layer ceilings, which is why the models have one layer.\n"
            "- **Initialisation matters**: the recipe draws the learned position embeddings with std 0.3, so "
            "positions dominate the first attention scores and where to look can be learned from the start; "
            "narrow windows then find their lags first and b* widens step by step (2, 4, 16, 48; w=8 is "
            "never clearly best). With the model's default std 0.02 (the init control) w=2 leads from the "
            "first checkpoint, but every wider window first settles on averaging what it sees and all of them "
            "leave that plateau at about the same compute (near 1e10 FLOPs): the crossings bunch together and "
            "b* jumps from w=2 straight to full attention. The best structure depends on the algorithm as well "
            "as on compute (slide 14), and a demonstration like this one depends on such choices; both runs "
            "are shipped.\n"
            + (f"- **Shipped run**: `python -m explorer crossover --preset {INITS[init]}`, "
               f"{data.get('seconds', 0):.0f} s "
               f"of training on this shared 2-core server (one thread, torch {data.get('torch', '?')}, "
               f"{data.get('created', '?')})." if data else ""))
