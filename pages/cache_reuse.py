"""Cache reuse in multi-turn chat (slides 64-66): bidirectional re-encoding vs the causal KV cache."""

from __future__ import annotations

import streamlit as st

from explorer import results
from explorer.experiments import cache as exp
from explorer.experiments import stale_cache
from explorer.figures import cache as figs
from explorer.formatting import si
from explorer.stats import smallest_p
from ui import jobs, layout, params, render
from ui.frame import header
from ui.text import say, t

N_OPTIONS = list(range(1, 17)) + [24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096]
M_OPTIONS = list(range(1, 17)) + [24, 32, 48, 64, 96, 128, 192, 256]
MAX_TURNS, MAX_DEPTH = 12, 8
FIRST_SCREEN_HEIGHT = 600  # px: the two heatmaps and their key whole on a 1440x900 screen
SWEEP = dict(histories=(16, 128, 1024), messages=(1, 8), depths=(1, 2, 4), repeats=5, seed=0)


@st.cache_data(show_spinner=False)
def _pattern(n: int, m: int, turns: int, layer: int) -> dict:
    return exp.reuse_pattern(n, m, turns, layer)


@st.cache_data(show_spinner=False)
def _turns(n: int, m: int, turns: int, depth: int):
    return exp.turn_table(n, m, turns, depth)


@st.cache_data(show_spinner=False)
def _curves(m: int, depth: int):
    return exp.cost_curves(m, depth, max_history=max(N_OPTIONS) + MAX_TURNS * max(M_OPTIONS))


@st.cache_data(show_spinner=False, max_entries=256)
def _measure_inline(history: int, m: int, depth: int) -> dict:
    return exp.measure(history, m, depth)


@st.cache_resource(show_spinner=False)
def _drift_models() -> tuple[dict, dict | None]:
    loaded = exp.load_encoder()
    trained, info = loaded if loaded else (None, None)
    return exp.drift_models(trained), info


@st.cache_data(show_spinner=False)
def _drift(n: int, m: int):
    return exp.drift_table(_drift_models()[0], n, m)


@st.cache_data(show_spinner=False)
def _drift_fraction():
    return exp.drift_vs_fraction(_drift_models()[0])


# Figures take longer to build than to copy out of the cache, so each view's figures are built once.
@st.cache_data(show_spinner=False, max_entries=256)
def _pattern_figure(n: int, m: int, turns: int, layer: int):
    return figs.reuse_heatmaps(_pattern(n, m, turns, layer), height=FIRST_SCREEN_HEIGHT)


@st.cache_data(show_spinner=False, max_entries=256)
def _turn_figures(n: int, m: int, turns: int, depth: int):
    """Recompute per turn, cost per turn, cumulative cost and KV memory for one view."""
    table, curves = _turns(n, m, turns, depth), _curves(m, depth)
    return (figs.recompute_across_turns(table), figs.cost_per_turn(curves, table.iloc[-1].to_dict(), m, depth),
            figs.cumulative_cost(table), figs.kv_memory(curves, depth, exp.history_at(n, m, turns) + m))


@st.cache_data(show_spinner=False, max_entries=256)
def _timing_figures(measured: dict | None, sweep_data: dict | None):
    """The measured-times, overhead-fit and speedup figures (the timings are small dicts: cheap to hash)."""
    fit = sweep_data["fit"] if sweep_data else None
    return (figs.measured_times(measured, fit) if measured is not None else None,
            figs.overhead_fit(sweep_data) if sweep_data else None,
            figs.speedup_vs_ratio(sweep_data, measured) if sweep_data else None)


@st.cache_data(show_spinner=False, max_entries=64)
def _drift_figures(n_d: int, m_d: int):
    return figs.drift_per_layer(_drift(n_d, m_d), n_d, m_d), figs.drift_vs_fraction(_drift_fraction())


@st.cache_data(show_spinner=False)
def _stale() -> tuple | None:
    """The shipped stale-cache runs: their seed summary, the numbers the text quotes, the histories covered."""
    record = stale_cache.load()
    if record is None:
        return None
    return stale_cache.summary(record["runs"]), stale_cache.headline(record), stale_cache.histories(record)


@st.cache_data(show_spinner=False, max_entries=16)
def _stale_figures(n: int):
    summary = _stale()[0]
    return figs.stale_accuracy(summary, n), figs.stale_kl(summary)


def _say_stale_findings(head: dict) -> None:
    sort, copy = head["sort"], head["copy"]
    say("stale-findings", seeds=sort["seeds"], sort_n=sort["n"], sort_m=sort["m"],
        sort_re=sort["accuracy_reencode"], sort_stale=sort["accuracy_stale"], sort_kl=sort["kl"],
        sort_low=sort["kl_low"], sort_high=sort["kl_high"], sort_gap=sort["mean_gap"],
        gap_low=sort["gap_low"], gap_high=sort["gap_high"], copy_gap=copy["mean_gap"], copy_kl=copy["kl"],
        causal_kl=head["causal_max_kl"], causal_logit=head["causal_max_logit_diff"],
        every="in every seed at every size" if sort["every_seed_worse"] else "at most sizes, not all",
        apart="do not overlap at any size" if sort["ranges_apart"] else "overlap at some sizes",
        p_floor=smallest_p(sort["seeds"]), steps=sort["steps"], trained_low=sort["trained_low"],
        trained_high=sort["trained_high"], copy_steps=copy["steps"], copy_trained=copy["trained_low"])


def _sweep(progress) -> dict:
    return results.cached("cache-overhead-sweep", SWEEP,
                          lambda: exp.overhead_sweep(**SWEEP, progress=progress), exp.SWEEP_SHAPE)


def _measure_background(history: int, m: int, depth: int, seconds: float) -> dict | None:
    def work(progress) -> dict:
        return exp.measure(history, m, depth, budget_s=min(exp.MAX_MEASURE_SECONDS / 4, seconds),
                           progress=progress)
    return jobs.run_in_background(f"cache-measure-{history}-{m}-{depth}", work,
                                  label=f"Timing n={history}, m={m}, {depth} layers",
                                  time_limit_s=exp.MAX_MEASURE_SECONDS * 2)


header("cache")
say("lead")
figure_col, controls_col = layout.stage(figure_share=4)  # two square heatmaps side by side need the width
with controls_col:
    n = params.select_slider("History n (tokens before turn 1)", "n", N_OPTIONS, 48)
    m = params.select_slider("New message m (tokens per turn)", "m", M_OPTIONS, 8)
    turns = params.slider("Turns T", "turns", 1, MAX_TURNS, 3)
    with st.expander("More settings: depth, layer shown"):
        depth = params.slider("Depth (layers)", "depth", 1, MAX_DEPTH, 2)
        if depth > 1:
            if st.session_state.get("layer", 1) > depth:  # depth went down: keep the shown layer inside it
                st.session_state["layer"] = depth
            layer = params.slider("Layer shown", "layer", 1, depth, min(2, depth))
        else:
            layer = 1
            st.caption("Layer shown: 1 (the only one)")
history = exp.history_at(n, m, turns)

with figure_col:
    render.figure(_pattern_figure(n, m, turns, layer), key="cache-reuse-heatmaps", notice=t("heatmap-notice"))
    counts = _pattern(n, m, turns, layer)["counts"]
    say("takeaway", turns=turns, m=m, history=history, total=history + m, causal=si(counts["causal_computed"]),
        bidirectional=si(counts["bidirectional_recomputed"]),
        ratio=counts["bidirectional_recomputed"] / counts["causal_computed"])

why_tab, cost_tab, measured_tab, drift_tab, stale_tab, limits_tab = layout.sections(
    ["Why the cache works", "What it costs", "Measured on this server", "How far old tokens move",
     "Reusing a stale cache", "What the toy cannot test"])
if why_tab:
    with why_tab:
        say("intro")
if cost_tab:
    with cost_tab:
        recompute_figure, per_turn_figure, cumulative_figure, memory_figure = _turn_figures(n, m, turns, depth)
        render.figure(recompute_figure, key="cache-recompute-turns", notice=t("recompute-notice"))
        render.figure(per_turn_figure, key="cache-cost-per-turn", notice=t("per-turn-notice"))
        render.figure(cumulative_figure, key="cache-cost-cumulative", notice=t("cumulative-notice"))
        render.figure(memory_figure, key="cache-kv-memory", notice=t("memory-notice"))

if measured_tab:
    with measured_tab:
        say("measured-intro", depth=depth, total=history + m, m=m, history=history)
        measured = None
        try:
            exp.check_measurable(history, m, depth)
        except ValueError as err:
            st.warning(t("not-measured", problem=err))
        else:
            planned = exp.planned_seconds(history, m, depth)
            if planned <= exp.INLINE_SECONDS:
                measured = _measure_inline(history, m, depth)
            else:
                st.info(t("background", planned=planned, inline=exp.INLINE_SECONDS))
                measured = _measure_background(history, m, depth, planned)
        sweep_data = jobs.run_in_background("cache-overhead-sweep", _sweep,
                                            label="Timing the overhead sweep (once per server)", time_limit_s=300)
        times_figure, fit_figure, speedup_figure = _timing_figures(measured, sweep_data)
        if measured is not None:
            cols = st.columns(5)
            cols[0].metric("Re-encode", f"{measured['time_reencode_ms']:.3g} ms")
            cols[1].metric("Cached step", f"{measured['time_cached_ms']:.3g} ms")
            cols[2].metric("Measured speedup", f"{measured['speedup']:.1f}x")
            cols[3].metric("FLOP ratio", f"{measured['flop_ratio']:.1f}x")
            cols[4].metric("max |Δ logit|", f"{measured['max_abs_logit_diff']:.1e}",
                           help=t("help-logit", largest=measured["max_abs_logit"]))
            render.figure(times_figure, key="cache-measured-times", notice=t("times-notice"))
        if sweep_data is not None:
            f = sweep_data["fit"]
            if measured is not None:
                pred = exp.predicted_speedup(f, history, m, depth)
                why = t("why", speedup=measured["speedup"], ratio=measured["flop_ratio"],
                        timings=len(sweep_data["rows"]), per_layer=f["b_s_per_layer"] * 1e3,
                        gflops=f["gflops_per_s"], matrix_ms=measured["flops_cached"] / f["gflops_per_s"] / 1e6,
                        fixed_ms=(depth * f["b_s_per_layer"] + f["c_s"]) * 1e3, predicted=pred)
                if measured["speedup"] < 0.8 * pred:
                    why += " " + t("why-thin", rows=f"{m} row{'s' if m != 1 else ''}", history=history)
                elif measured["speedup"] > 1.25 * pred:
                    why += " " + t("why-fast")
                st.markdown(why + " " + t("why-wider"))
            render.figure(fit_figure, key="cache-overhead-fit", notice=t("fit-notice"))
            render.figure(speedup_figure, key="cache-speedup-vs-ratio", notice=t("speedup-notice"))

if drift_tab:
    with drift_tab:
        info = _drift_models()[1]
        n_d, m_d = exp.drift_sizes(n, m)
        if (n_d, m_d) != (n, m):
            st.caption(t("drift-sizes", length=exp.DRIFT_TASK.length, n_d=n_d, m_d=m_d, n=n, m=m))
        if info is None:
            st.info(t("no-encoder"))
        else:
            st.caption(t("trained", layers=exp.DRIFT_MODEL.n_layers, d=exp.DRIFT_MODEL.d_model,
                         shortest=exp.DRIFT_TASK.min_length, longest=exp.DRIFT_TASK.length,
                         steps=info["summary"]["steps_done"], accuracy=info["summary"]["final"]["eval_accuracy"]))
        drift_figure, fraction_figure = _drift_figures(n_d, m_d)
        render.figure(drift_figure, key="cache-drift-layers", notice=t("drift-notice"))
        render.figure(fraction_figure, key="cache-drift-fraction", notice=t("fraction-notice"))

if stale_tab:
    with stale_tab:
        say("stale-intro")
        stale = _stale()
        if stale is None:
            st.info(t("no-stale"))
        else:
            summary, head, stale_ns = stale
            stale_n = params.select_slider("Old tokens n (first turn)", "stale_n", stale_ns, stale_ns[-1])
            accuracy_figure, kl_figure = _stale_figures(stale_n)
            render.figure(accuracy_figure, key="cache-stale-accuracy", notice=t("stale-accuracy-notice"))
            render.figure(kl_figure, key="cache-stale-kl", notice=t("stale-kl-notice"))
            if {"sort", "copy"} <= set(head):  # the findings quote the two default tasks
                _say_stale_findings(head)
            with st.expander("Data: each task, size and arch (seed mean, lowest and highest seed)"):
                st.dataframe(summary, hide_index=True)

if limits_tab:
    with limits_tab:
        say("limits", cells=exp.MAX_CELLS, tokens=f"{exp.MAX_MEASURE_TOKENS:,}", seconds=exp.MAX_MEASURE_SECONDS,
            inline=exp.INLINE_SECONDS, length=exp.DRIFT_TASK.length)
