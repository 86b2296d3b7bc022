"""Cache reuse in multi-turn chat (slides 64-66): bidirectional re-encoding vs the causal KV cache."""

from __future__ import annotations

from typing import Callable

import streamlit as st

from explorer.experiments import bidirectional_scaling as scaling
from explorer.experiments import cache as exp
from explorer.experiments import cache_view as view
from explorer.experiments import chat_cache as chat_exp
from explorer.experiments import stale_cache
from explorer.figures import bidirectional_scaling as scaling_figs
from explorer.figures import cache as figs
from ui import jobs, layout, lecture, params, render
from ui.frame import header
from ui.text import say, t

FIRST_SCREEN_HEIGHT = 600  # px: the two heatmaps and their key whole on a 1440x900 screen
CHAT_VIEW, SIZES_VIEW = "Chat (slide 66)", "Any size (n, m, T)"
HEATMAP, CHAT_FIGURE = "cache-reuse-heatmaps", "cache-chat"
SCALING_TIME_LIMIT_S = 180.0  # the quick preset takes under a minute on two busy cores


@st.cache_resource(show_spinner="Loading the demo models ...")
def _chat_models() -> dict | None:
    """The two demo models, shared and read-only; None when one is missing or does not load (the page then
    shows the reuse pattern, which holds by construction, without the measured drift)."""
    try:
        return chat_exp.load_models()
    except (ValueError, OSError):
        return None


@st.cache_resource(show_spinner=False)
def _drift_models() -> tuple[dict, dict | None]:
    """The drift models (the shipped encoder when there is one) and the shipped encoder's training info."""
    trained, info = exp.load_encoder() or (None, None)
    return exp.drift_models(trained), info


@st.cache_data(show_spinner=False, max_entries=256)
def _chat(text: str) -> tuple[chat_exp.Chat, dict]:
    """The typed chat, tokenised, and each turn's reuse and measured drift (ValueError when over a limit)."""
    chat = chat_exp.parse_chat(text)
    return chat, chat_exp.chat_reuse(chat, _chat_models())


def figure(key: str, deps: tuple, build: Callable, notice: str, slides: str | None = None) -> None:
    """Figure `key`, built once per `deps` (all it is drawn from), with its notice."""
    render.figure(render.built_once((key, *deps), build), key=key, notice=notice, slides=slides)


def _size_controls(more) -> tuple[int, int, int, int, int]:
    """n, m, turns, depth and the layer shown: the sizes view's controls and every section's sizes.
    `more` holds depth and layer (an expander beside the heatmaps; the same expander as the rest otherwise)."""
    n = params.select_slider("History n (tokens before turn 1)", "n", view.N_OPTIONS, 48)
    m = params.select_slider("New message m (tokens per turn)", "m", view.M_OPTIONS, 8)
    turns = params.slider("Turns T", "turns", 1, view.MAX_TURNS, 3)
    with more:
        depth = params.slider("Depth (layers)", "depth", 1, view.MAX_DEPTH, 2)
        if depth > 1:
            if st.session_state.get("layer", 1) > depth:  # depth went down: keep the shown layer inside it
                st.session_state["layer"] = depth
            layer = params.slider("Layer shown", "layer", 1, depth, min(2, depth))
        else:
            layer = 1
            st.caption("Layer shown: 1 (the only one)")
    return n, m, turns, depth, layer


def _chat_view(figure_col, controls_col) -> None:
    """The first screen: slide 66's chat (or the student's) through the demo models, turn by turn."""
    with controls_col:
        text = params.text(f"Chat turns, separated by {chat_exp.TURN_SEPARATOR}", "chat", chat_exp.DEFAULT_CHAT,
                           max_chars=chat_exp.MAX_TEXT, help=t("help-chat", **view.chat_help()))
        state = params.select_slider("Old tokens' state shown", "chat_state", view.CHAT_STATES, view.CHAT_STATES[-2])
        shown = view.CHAT_STATES.index(state)
    with figure_col:
        try:
            chat, data = _chat(text)
        except ValueError as err:
            st.warning(t("chat-refused", problem=err))
            return
        for note in chat.notices:
            st.caption(note)
        figure(CHAT_FIGURE, (text, shown), lambda: figs.chat_reuse(data, shown), t("chat-notice"))
        kind, values = view.chat_takeaway(data, shown)
        say(f"chat-takeaway-{kind}", **values)
        if data["models"] is None:
            st.info(t("no-demo-models"))
        elif (measured := view.measured_turns(data)) is not None:
            st.caption(t("chat-limit", limit=data["limit"], turns=measured))


def _measure(history: int, m: int, depth: int) -> dict | None:
    """One turn timed both ways: inline when quick, else in the background (None until done or if refused)."""
    plan = view.timing_plan(history, m, depth)
    if plan["problem"]:
        st.warning(t("not-measured", problem=plan["problem"]))
        return None
    if plan["inline"]:
        return render.built_once(("measure", history, m, depth), lambda: exp.measure(history, m, depth))
    st.info(t("background", planned=plan["planned"], inline=exp.INLINE_SECONDS))
    return jobs.run_in_background(f"cache-measure-{history}-{m}-{depth}", lambda progress: exp.measure(
        history, m, depth, budget_s=min(exp.MAX_MEASURE_SECONDS / 4, plan["planned"]), progress=progress),
        label=f"Timing n={history}, m={m}, {depth} layers", time_limit_s=exp.MAX_MEASURE_SECONDS * 2)


def _scaling_live(partial: dict):
    """The quick run's gaps so far, redrawn at every poll while it trains."""
    return scaling_figs.gap_vs_compute(scaling.points(partial), partial["config"], height=420)


def _scaling_watch(shipped_record: dict | None) -> None:
    """Train the quick preset here and watch its gaps appear, pair by pair."""
    quick = scaling.PRESETS["quick"]
    numbers = view.scaling_watch(quick, shipped_record)
    say("scaling-watch", **numbers)
    cut = jobs.was_cut(numbers["key"])
    run = jobs.run_in_background(
        numbers["key"], lambda progress: scaling.sweep(quick, progress=progress.part(reserve_s=2.0)),
        label=t("scaling-run-label"), time_limit_s=SCALING_TIME_LIMIT_S, live=_scaling_live,
        button=f"Train {numbers['models']} (about {numbers['seconds']:.0f} s)") or cut
    if run is not None and run["stopped"] != "steps":
        st.warning(t("scaling-cut", limit=SCALING_TIME_LIMIT_S, done=len(run["runs"]), models=numbers["models"]))
    if run is not None:
        render.figure(_scaling_live(run), key="cache-bidirectional-quick",
                      notice=t("scaling-quick-notice", seconds=run["seconds"], seeds=len(quick.seeds)))


header("cache")
say("lead")
figure_col, controls_col = layout.stage(figure_share=4)  # the chat and the heatmaps need the width
with controls_col:
    # a link to the heatmaps alone (figure mode) opens the view that holds them
    view_shown = (SIZES_VIEW if lecture.figure_mode() == HEATMAP
                  else params.choice("View", "view", [CHAT_VIEW, SIZES_VIEW], CHAT_VIEW, widget="radio"))
if view_shown == CHAT_VIEW:
    _chat_view(figure_col, controls_col)
    with st.expander("Sizes for the sections below: n, m, turns, depth"):
        n, m, turns, depth, layer = _size_controls(st.container())
else:
    with controls_col:
        n, m, turns, depth, layer = _size_controls(st.expander("More settings: depth, layer shown"))
    with figure_col:
        pattern = render.built_once(("pattern", n, m, turns, layer), lambda: exp.reuse_pattern(n, m, turns, layer))
        figure(HEATMAP, (n, m, turns, layer), lambda: figs.reuse_heatmaps(pattern, height=FIRST_SCREEN_HEIGHT),
               t("heatmap-notice"))
        say("takeaway", **view.takeaway(n, m, turns, pattern["counts"]))
history = exp.history_at(n, m, turns)

why_tab, cost_tab, measured_tab, drift_tab, stale_tab, scaling_tab, limits_tab = layout.sections(
    ["Why the cache works", "What it costs", "Measured on this server", "How far old tokens move",
     "Reusing a stale cache", "Bidirectional at scale (slide 64)", "What the toy cannot test"])
if why_tab:
    with why_tab:
        say("intro")
if cost_tab:
    with cost_tab:
        table = render.built_once(("turns", n, m, turns, depth), lambda: exp.turn_table(n, m, turns, depth))
        curves = render.built_once(("curves", m, depth), lambda: exp.cost_curves(m, depth, max_history=view.MAX_HISTORY))
        sizes = (n, m, turns, depth)
        figure("cache-recompute-turns", sizes, lambda: figs.recompute_across_turns(table), t("recompute-notice"))
        figure("cache-cost-per-turn", sizes, lambda: figs.cost_per_turn(curves, table.iloc[-1].to_dict(), m, depth),
               t("per-turn-notice"))
        figure("cache-cost-cumulative", sizes, lambda: figs.cumulative_cost(table), t("cumulative-notice"))
        figure("cache-kv-memory", (m, depth, history + m), lambda: figs.kv_memory(curves, depth, history + m),
               t("memory-notice"))
if measured_tab:
    with measured_tab:
        say("measured-intro", depth=depth, total=history + m, m=m, history=history)
        measured = _measure(history, m, depth)
        sweep = jobs.run_in_background("cache-overhead-sweep", view.overhead_sweep,
                                       label="Timing the overhead sweep (once per server)", time_limit_s=300)
        fit = sweep["fit"] if sweep else None
        if measured is not None:
            for col, (label, value) in zip(st.columns(5), view.measured_tiles(measured)):
                col.metric(label, value, help=t("help-logit", largest=measured["max_abs_logit"])
                           if label.startswith("max") else None)
            figure("cache-measured-times", (measured, fit), lambda: figs.measured_times(measured, fit),
                   t("times-notice"))
        if sweep is not None:
            if measured is not None:
                why = view.why_speedup(measured, sweep, history, m, depth)
                extra = [t(f"why-{why['extra']}", **why)] if why["extra"] else []
                st.markdown(" ".join([t("why", **why), *extra, t("why-wider")]))
            figure("cache-overhead-fit", (sweep,), lambda: figs.overhead_fit(sweep), t("fit-notice"))
            figure("cache-speedup-vs-ratio", (sweep, measured), lambda: figs.speedup_vs_ratio(sweep, measured),
                   t("speedup-notice"))
if drift_tab:
    with drift_tab:
        models, info = _drift_models()
        drift = view.drift_numbers(n, m)
        n_d, m_d = drift["n_d"], drift["m_d"]
        if drift["scaled"]:
            st.caption(t("drift-sizes", **drift))
        if info is None:
            st.info(t("no-encoder"))
        else:
            st.caption(t("trained", **view.trained_numbers(info)))
        table = render.built_once(("drift", n_d, m_d), lambda: exp.drift_table(models, n_d, m_d))
        figure("cache-drift-layers", (n_d, m_d), lambda: figs.drift_per_layer(table, n_d, m_d), t("drift-notice"))
        figure("cache-drift-fraction", (), lambda: figs.drift_vs_fraction(exp.drift_vs_fraction(models)),
               t("fraction-notice"))
if stale_tab:
    with stale_tab:
        say("stale-intro")
        record = render.built_once(("stale",), stale_cache.load)
        if record is None:
            st.info(t("no-stale"))
        else:
            summary = render.built_once(("stale-summary",), lambda: stale_cache.summary(record["runs"]))
            stale_ns = stale_cache.histories(record)
            stale_n = params.select_slider("Old tokens n (first turn)", "stale_n", stale_ns, stale_ns[-1])
            figure("cache-stale-accuracy", (stale_n,), lambda: figs.stale_accuracy(summary, stale_n),
                   t("stale-accuracy-notice"))
            figure("cache-stale-kl", (), lambda: figs.stale_kl(summary), t("stale-kl-notice"))
            if (findings := view.stale_findings(stale_cache.headline(record))) is not None:
                say("stale-findings", **findings)
            with st.expander("Data: each task, size and arch (seed mean, lowest and highest seed)"):
                st.dataframe(summary, hide_index=True)
if scaling_tab:
    with scaling_tab:
        shipped_scaling = render.built_once(("scaling-shipped",), scaling.load_shipped)
        if shipped_scaling is None:
            st.info(t("no-scaling"))
        else:
            data = render.built_once(("scaling",), lambda: scaling.analyse(shipped_scaling))
            cfg, found = data["config"], view.scaling_findings(data)
            say("scaling-intro", **view.scaling_sizes(data))
            figure("cache-bidirectional-gap", (), lambda: scaling_figs.gap_vs_compute(data["points"], cfg),
                   t("scaling-gap-notice"), slides="64")
            say("scaling-findings", **found["findings"])
            say(f"scaling-{found['width_verdict']}", **found["verdict"])
            say(f"scaling-budget-{found['budget_verdict']}")
            say("scaling-caveat", **found["caveat"])
            say("scaling-weigh", **found["weigh"])
            figure("cache-bidirectional-serving", (), lambda: scaling_figs.serving_cost(
                data["serving"], cfg["widths"][-1], cfg["n_layers"]), t("scaling-serving-notice"), slides="64-66")
            with st.expander("Data: each width and budget (seed mean, lowest and highest seed)"):
                st.dataframe(data["points"], hide_index=True)
            say("scaling-limits", **view.scaling_sizes(data))
        _scaling_watch(shipped_scaling)
if limits_tab:
    with limits_tab:
        say("limits", **view.limits())
