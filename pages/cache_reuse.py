"""Cache reuse in multi-turn chat (slides 64-66): bidirectional re-encoding vs the causal KV cache."""

import streamlit as st

from explorer import results
from explorer.experiments import cache as exp
from explorer.figures import cache as figs
from ui import jobs, params, render
from ui.frame import header

N_OPTIONS = list(range(1, 17)) + [24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096]
M_OPTIONS = list(range(1, 17)) + [24, 32, 48, 64, 96, 128, 192, 256]
MAX_TURNS, MAX_DEPTH = 12, 8
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
    return figs.reuse_heatmaps(_pattern(n, m, turns, layer))


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
st.markdown(
    "In a chat, every new message lands at the end of a growing conversation. What the model must redo "
    "depends on one thing, the direction of attention. If old tokens may read new ones (bidirectional), the "
    "new message changes them, so every layer of the whole conversation is computed again. If they may "
    "not (causal), their keys and values from earlier turns are still exact, so the model keeps them (the "
    "**KV cache**) and only computes the new tokens. Move the sizes and watch counts, costs, timings on a "
    "real model, and how far old states actually move."
)

with st.container(border=True):
    c1, c2, c3, c4, c5 = st.columns([3, 3, 2, 2, 2])
    n = params.select_slider("History n (tokens before turn 1)", "n", N_OPTIONS, 48, where=c1)
    m = params.select_slider("New message m (tokens per turn)", "m", M_OPTIONS, 8, where=c2)
    turns = params.slider("Turns T", "turns", 1, MAX_TURNS, 3, where=c3)
    depth = params.slider("Depth (layers)", "depth", 1, MAX_DEPTH, 2, where=c4)
    if depth > 1:
        if st.session_state.get("layer", 1) > depth:  # depth went down: keep the shown layer inside it
            st.session_state["layer"] = depth
        layer = params.slider("Layer shown", "layer", 1, depth, min(2, depth), where=c5)
    else:
        layer = 1
        c5.caption("Layer shown: 1 (the only one)")
    history = exp.history_at(n, m, turns)
    st.caption(f"Turn {turns} (the current one) adds m = {m} tokens to a history of n + (T-1)·m = {history} "
               f"tokens: {history + m} in all.")

# --- 1. what each turn recomputes --------------------------------------------------------------------
st.header("What each turn recomputes")
render.figure(_pattern_figure(n, m, turns, layer), key="cache-reuse-heatmaps",
              notice="Each cell is one query reading one key in the current turn. Causal (left): the old rows "
                     "were computed in earlier turns and their keys and values wait in the cache, so only the "
                     "new bottom rows are work; everything above the diagonal is masked. Bidirectional (right): "
                     "old tokens can read the new message, so every cell is computed again. In layer 1 the old "
                     "part of the bidirectional matrix repeats last turn's scores exactly (they depend on the "
                     "embeddings only), yet it is recomputed because each row's softmax now includes the new "
                     "keys (slides 64-66).")
recompute_figure, per_turn_figure, cumulative_figure, memory_figure = _turn_figures(n, m, turns, depth)
render.figure(recompute_figure, key="cache-recompute-turns",
              notice="Per turn, the bidirectional model redoes (n+m)² entries in every layer; the causal model "
                     "computes m·(n+m) at most and reads the rest from its cache. The gap grows every turn, "
                     "because the history does (slide 66).")

# --- 2. cost model ------------------------------------------------------------------------------------
st.header("What it costs: exact FLOPs")
render.figure(per_turn_figure, key="cache-cost-per-turn",
              notice="Solid lines count every matrix multiply of the real model (projections, MLP, attention, "
                     "head). The dotted lines are the lecture's O((n+m)²) and O(nm+m²) with the attention "
                     "constant: they take over once the history is a few hundred tokens; below that the "
                     "per-token projections and MLP dominate. Either way the ratio is exactly (n+m)/m.")
render.figure(cumulative_figure, key="cache-cost-cumulative",
              notice="Summed over the conversation, re-encoding grows about with T³ and the cache about "
                     "with T²: long chats are where bidirectional input becomes expensive.")
render.figure(memory_figure, key="cache-kv-memory",
              notice="The cache trades compute for memory: keys and values for every layer and token. Tiny for "
                     "this model, tens of GiB for a GPT-3-sized one at a few thousand tokens, which is why "
                     "serving systems manage it carefully.")

# --- 3. measured ----------------------------------------------------------------------------------------
st.header("Measured on this server")
st.markdown(
    f"A fresh {depth}-layer model (d = 64, 4 heads) times one turn both ways: re-encoding all "
    f"{history + m} tokens with bidirectional attention, and a cached causal step of {m} tokens on top of "
    f"{history} cached ones (the same weights; the cache is preallocated and rewound between repeats). "
    "Times are CPU time on one thread, so other users' load does not count."
)
measured = None
try:
    exp.check_measurable(history, m, depth)
except ValueError as err:
    st.warning(f"Not measured: {err}")
else:
    planned = exp.planned_seconds(history, m, depth)
    if planned <= exp.INLINE_SECONDS:
        measured = _measure_inline(history, m, depth)
    else:
        st.info(f"Timing this size may take up to about {planned:.0f} s, more than the {exp.INLINE_SECONDS:g} s "
                "timed while you wait, so it runs in the background; the result is kept for these settings.")
        measured = _measure_background(history, m, depth, planned)

sweep_data = jobs.run_in_background("cache-overhead-sweep", _sweep, label="Timing the overhead sweep (once per server)",
                                    time_limit_s=300)
times_figure, fit_figure, speedup_figure = _timing_figures(measured, sweep_data)
if measured is not None:
    cols = st.columns(5)
    cols[0].metric("Re-encode", f"{measured['time_reencode_ms']:.3g} ms")
    cols[1].metric("Cached step", f"{measured['time_cached_ms']:.3g} ms")
    cols[2].metric("Measured speedup", f"{measured['speedup']:.1f}x")
    cols[3].metric("FLOP ratio", f"{measured['flop_ratio']:.1f}x")
    cols[4].metric("max |Δ logit|", f"{measured['max_abs_logit_diff']:.1e}",
                   help="Largest difference between the cached step's logits and a full causal recomputation "
                        f"(logits up to {measured['max_abs_logit']:.2f}): float32 rounding, nothing more.")
    render.figure(times_figure, key="cache-measured-times",
                  notice="The cached step computes (n+m)/m times fewer FLOPs, but it is not that much faster: "
                         "each layer costs a fixed amount (a dozen small kernel calls, Python module calls, the "
                         "cache write) that does not shrink with the number of tokens, and a few tokens still read "
                         "all the weights. The diamonds are what the overhead model below predicts.")
if sweep_data is not None:
    f = sweep_data["fit"]
    if measured is not None:
        pred = exp.predicted_speedup(f, history, m, depth)
        fixed_ms = (depth * f["b_s_per_layer"] + f["c_s"]) * 1e3
        why = (f"**Why {measured['speedup']:.1f}x and not {measured['flop_ratio']:.1f}x:** fitted over "
               f"{len(sweep_data['rows'])} timings, each layer costs about **{f['b_s_per_layer'] * 1e3:.2f} ms** "
               f"whatever its size, on top of matrix work at about {f['gflops_per_s']:.0f} GFLOP/s. The cached "
               f"step has only {measured['flops_cached'] / f['gflops_per_s'] / 1e6:.3f} ms of matrix work at that "
               f"rate but pays {fixed_ms:.2f} ms of fixed costs, so the overhead model expects {pred:.1f}x.")
        if measured["speedup"] < 0.8 * pred:
            why += (f" The rest of the gap: the step's products are thin ({m} row{'s' if m != 1 else ''} against "
                    f"every weight matrix and all {history} cached keys and values), and thin products run well "
                    "below the big-matrix rate the fit learns from re-encoding.")
        elif measured["speedup"] > 1.25 * pred:
            why += " This size runs faster than the model expects: it is fitted to a coarse grid of sizes."
        st.markdown(why + " A wider model shrinks the fixed cost's share, but its thin cached step is then bound "
                          "by reading weights from memory (`bench/bench_cache.py` times d = 256 and 512); "
                          "servers batch many users' steps together so that one read of the weights serves all.")
    render.figure(fit_figure, key="cache-overhead-fit",
                  notice="Time against FLOPs for every timed size: at small sizes the points sit on a floor "
                         "set by the number of layers, not by FLOPs. Dashed lines: the fitted model.")
    render.figure(speedup_figure, key="cache-speedup-vs-ratio",
                  notice="Points on the dotted diagonal would mean time follows FLOPs. They fall below it, "
                         "more so for short messages, where the cached step is almost all overhead.")

# --- 4. drift -----------------------------------------------------------------------------------------
st.header("How far old tokens move")
models, info = _drift_models()
n_d, m_d = exp.drift_sizes(n, m)
if (n_d, m_d) != (n, m):
    st.caption(f"The drift encoder reads at most {exp.DRIFT_TASK.length} tokens, so drift is measured with "
               f"{n_d} old and {m_d} appended tokens: the same share appended as n={n}, m={m}.")
if info is None:
    st.info("No trained encoder is shipped in data/cache/ (run `python -m explorer cache train-encoder`); "
            "the untrained models are shown.")
else:
    acc = info["summary"]["final"]["eval_accuracy"]
    st.caption(f"Trained: a {exp.DRIFT_MODEL.n_layers}-layer bidirectional encoder (d = {exp.DRIFT_MODEL.d_model}) "
               f"that sorts {exp.DRIFT_TASK.min_length}-{exp.DRIFT_TASK.length} symbols, "
               f"{info['summary']['steps_done']} steps, held-out token accuracy {acc:.0%}. The causal models "
               "run the very same weights with a causal mask.")
drift_figure, fraction_figure = _drift_figures(n_d, m_d)
render.figure(drift_figure, key="cache-drift-layers",
              notice="Layer 1's keys and values of old tokens never change: they come from the embeddings alone. "
                     "From layer 2 on, old tokens have read the new ones and move, usually more in deeper "
                     "layers and most in the trained encoder, which learned to use the whole input. The causal lines stay at "
                     "zero: this is why their cache stays valid.")
render.figure(fraction_figure, key="cache-drift-fraction",
              notice="Drift grows with the share of the sequence that is new, m/(n+m): one token appended to a "
                     "long history moves little, but never exactly nothing, so a bidirectional model cannot "
                     "safely skip re-encoding.")

with st.expander("Limits on this page"):
    st.markdown(
        f"- Heatmaps draw at most {exp.MAX_CELLS} x {exp.MAX_CELLS} cells; longer chats show blocks of tokens "
        "(the counts stay exact).\n"
        f"- Timing runs on chats of at most {exp.MAX_MEASURE_TOKENS:,} tokens and is refused when it would take "
        f"more than {exp.MAX_MEASURE_SECONDS:.0f} s; anything over {exp.INLINE_SECONDS:g} s runs in the background.\n"
        f"- Drift uses sequences of at most {exp.DRIFT_TASK.length} tokens (what the encoder was trained on).\n"
        "- FLOP counts cover any size here: they are formulas, not runs."
    )
