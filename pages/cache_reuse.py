"""Cache reuse in multi-turn chat (slides 64-66): bidirectional re-encoding vs the causal KV cache."""

from __future__ import annotations

from typing import Callable

import streamlit as st

from explorer import i18n
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


@st.cache_resource(show_spinner=False)
def _load_chat_models() -> dict | None:
    """The two demo models, shared and read-only; None when one is missing or does not load (the page then
    shows the reuse pattern, which holds by construction, without the measured drift)."""
    try:
        return chat_exp.load_models()
    except (ValueError, OSError):
        return None


def _chat_models() -> dict | None:
    with st.spinner(t("loading-models")):
        return _load_chat_models()


@st.cache_resource(show_spinner=False)
def _drift_models() -> tuple[dict, dict | None]:
    """The drift models (the shipped encoder when there is one) and the shipped encoder's training info."""
    trained, info = exp.load_encoder() or (None, None)
    return exp.drift_models(trained), info


@st.cache_data(show_spinner=False, max_entries=256)
def _chat(text: str, lang: str, _models: dict | None) -> tuple[chat_exp.Chat, dict]:
    """The typed chat, tokenised, and each turn's reuse and measured drift through the demo models (one shared
    pair, so not part of the key); ValueError when over a limit. Its notices are in `lang`."""
    chat = chat_exp.parse_chat(text)
    return chat, chat_exp.chat_reuse(chat, _models)


def _in_language(work: Callable, lang: str) -> Callable:
    """`work(progress)` run in `lang` (a background run's thread starts in English): its progress messages."""
    def run(progress):
        with i18n.using(lang):
            return work(progress)
    return run


def _view_label(view_name: str) -> str:
    return t("view-chat") if view_name == CHAT_VIEW else t("view-sizes")


def figure(key: str, deps: tuple, build: Callable, notice: str, slides: str | None = None) -> None:
    """Figure `key`, built once per `deps` (all it is drawn from), with its notice."""
    render.figure(render.built_once((key, *deps), build), key=key, notice=notice, slides=slides)


def _size_controls(more) -> tuple[int, int, int, int, int]:
    """n, m, turns, depth and the layer shown: the sizes view's controls and every section's sizes.
    `more` holds depth and layer (an expander beside the heatmaps; the same expander as the rest otherwise)."""
    n = params.select_slider(t("label-n"), "n", view.N_OPTIONS, 48)
    m = params.select_slider(t("label-m"), "m", view.M_OPTIONS, 8)
    turns = params.slider(t("label-turns"), "turns", 1, view.MAX_TURNS, 3)
    with more:
        depth = params.slider(t("label-depth"), "depth", 1, view.MAX_DEPTH, 2)
        if depth > 1:
            if st.session_state.get("layer", 1) > depth:  # depth went down: keep the shown layer inside it
                st.session_state["layer"] = depth
            layer = params.slider(t("label-layer"), "layer", 1, depth, min(2, depth))
        else:
            layer = 1
            st.caption(t("only-layer"))
    return n, m, turns, depth, layer


def _chat_view(figure_col, controls_col) -> None:
    """The first screen: slide 66's chat (or the student's) through the demo models, turn by turn."""
    with controls_col:
        text = params.text(t("label-chat", separator=chat_exp.TURN_SEPARATOR), "chat", chat_exp.DEFAULT_CHAT,
                           max_chars=chat_exp.MAX_TEXT, help=t("help-chat", **view.chat_help()))
        state = params.select_slider(t("label-state"), "chat_state", view.CHAT_STATES, view.CHAT_STATES[-2],
                                     format_func=view.state_label)
        shown = view.CHAT_STATES.index(state)
    with figure_col:
        try:
            chat, data = _chat(text, i18n.current(), _chat_models())
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
    return jobs.run_in_background(f"cache-measure-{history}-{m}-{depth}", _in_language(lambda progress: exp.measure(
        history, m, depth, budget_s=min(exp.MAX_MEASURE_SECONDS / 4, plan["planned"]), progress=progress),
        i18n.current()), label=t("timing-label", n=history, m=m, depth=depth),
        time_limit_s=exp.MAX_MEASURE_SECONDS * 2)


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
        numbers["key"], _in_language(lambda progress: scaling.sweep(quick, progress=progress.part(reserve_s=2.0)),
                                     i18n.current()),
        label=t("scaling-run-label"), time_limit_s=SCALING_TIME_LIMIT_S, live=_scaling_live,
        button=t("scaling-button", models=numbers["models"], seconds=numbers["seconds"])) or cut
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
                  else params.choice(t("label-view"), "view", [CHAT_VIEW, SIZES_VIEW], CHAT_VIEW, widget="radio",
                                     format_func=_view_label))
if view_shown == CHAT_VIEW:
    _chat_view(figure_col, controls_col)
    with st.expander(t("sizes-expander")):
        n, m, turns, depth, layer = _size_controls(st.container())
else:
    with controls_col:
        n, m, turns, depth, layer = _size_controls(st.expander(t("more-expander")))
    with figure_col:
        pattern = render.built_once(("pattern", n, m, turns, layer), lambda: exp.reuse_pattern(n, m, turns, layer))
        figure(HEATMAP, (n, m, turns, layer), lambda: figs.reuse_heatmaps(pattern, height=FIRST_SCREEN_HEIGHT),
               t("heatmap-notice"))
        say("takeaway", **view.takeaway(n, m, turns, pattern["counts"]))
history = exp.history_at(n, m, turns)

why_tab, cost_tab, measured_tab, drift_tab, stale_tab, scaling_tab, limits_tab = layout.sections(
    [t("tab-why"), t("tab-cost"), t("tab-measured"), t("tab-drift"), t("tab-stale"), t("tab-scaling"),
     t("tab-limits")])
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
        sweep = jobs.run_in_background("cache-overhead-sweep", _in_language(view.overhead_sweep, i18n.current()),
                                       label=t("sweep-label"), time_limit_s=300)
        fit = sweep["fit"] if sweep else None
        if measured is not None:
            tiles = view.measured_tiles(measured)
            for i, (col, (label, value)) in enumerate(zip(st.columns(5), tiles)):
                col.metric(label, value, help=t("help-logit", largest=measured["max_abs_logit"])
                           if i == len(tiles) - 1 else None)
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
            stale_n = params.select_slider(t("label-stale-n"), "stale_n", stale_ns, stale_ns[-1])
            figure("cache-stale-accuracy", (stale_n,), lambda: figs.stale_accuracy(summary, stale_n),
                   t("stale-accuracy-notice"))
            figure("cache-stale-kl", (), lambda: figs.stale_kl(summary), t("stale-kl-notice"))
            if (findings := view.stale_findings(stale_cache.headline(record))) is not None:
                say("stale-findings", **findings)
            with st.expander(t("stale-data")):
                st.dataframe(view.shown_table(summary), hide_index=True)
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
            with st.expander(t("scaling-data")):
                st.dataframe(view.shown_table(data["points"]), hide_index=True)
            say("scaling-limits", **view.scaling_sizes(data))
        _scaling_watch(shipped_scaling)
if limits_tab:
    with limits_tab:
        say("limits", **view.limits())
