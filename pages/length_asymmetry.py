"""Length asymmetry (slides 56-58): who reads how many tokens, length profiles, and what a toy test can say."""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd
import streamlit as st

from explorer import results
from explorer.csv_upload import inline_code
from explorer.experiments import lengths as ln
from explorer.figures import lengths as figs
from explorer.formatting import p_label, p_text, plural, si
from ui import params, render
from ui.frame import header, page_link
from ui.jobs import forget, last_result, run_in_background

LENGTHS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048]
WIDTHS = [64, 128, 256, 512, 768, 1024, 2048, 4096]
VOCABS = [64, 1024, 32_000, 256_000]
TYPED, UPLOADED = "typed pairs", "uploaded CSV"
SOURCES = [*ln.PROFILES, TYPED, UPLOADED]
TYPED_DEFAULT = "300:4, 250:2, 180:12, 120:8, 60:400"
TIME_LIMIT_S = 90
RUN_LENGTH = (1, 24)
RUN_STEPS = [100, 200, 400, 800, 1200]
MAIN = ln.PRESETS["main"]
METRIC_LABELS = {"averaged over the run": "curve", "at the last step": "final"}


# ----------------------------------------------------------------------------------------------- cached calls


@st.cache_data(show_spinner=False, max_entries=256)
def _allocation(shape: ln.Shape, lx: float, ly: float) -> dict:
    return ln.allocation(shape, lx, ly)


@st.cache_data(show_spinner=False, max_entries=256)
def _parity(shape: ln.Shape, lx: int, ly: int) -> dict:
    return ln.cost_parity(shape, lx, ly)


# Figures take longer to build than to copy out of the cache, so each view's figures are built once.
@st.cache_data(show_spinner=False, max_entries=256)
def _allocation_figure(shape: ln.Shape, lx: float, ly: float, title: str | None = None):
    return figs.allocation_chart(_allocation(shape, lx, ly), title=title)


@st.cache_data(show_spinner=False, max_entries=256)
def _parity_figure(shape: ln.Shape, lx: int, ly: int):
    return figs.parity_chart(_parity(shape, lx, ly), lx, ly, _allocation(shape, lx, ly)["shape"])


@st.cache_data(show_spinner=False, max_entries=32)
def _pairs(source: str, typed: str, raw: bytes | None) -> tuple[pd.DataFrame | None, str | None]:
    """(pairs, problem): a profile, the typed pairs or the uploaded file, or the message saying what is wrong."""
    try:
        if source in ln.PROFILES:
            return ln.profile_pairs(source), None
        if source == TYPED:
            return ln.parse_typed(typed), None
        if raw is None:
            return None, None
        return ln.read_pairs(raw), None
    except ln.LengthsError as err:
        return None, str(err)


@st.cache_data(show_spinner=False, max_entries=64)
def _stats(source: str, typed: str, raw: bytes | None, shape: ln.Shape) -> dict | None:
    pairs, _ = _pairs(source, typed, raw)
    return None if pairs is None else ln.profile_stats(pairs, shape)


@st.cache_resource(show_spinner=False, max_entries=32)
def _distribution_figure(source: str, typed: str, raw: bytes | None, label: str):
    pairs, _ = _pairs(source, typed, raw)
    return figs.distribution_chart(pairs, ln.length_stats(pairs), label, synthetic=source in ln.PROFILES)


@st.cache_data(show_spinner=False)
def _shipped() -> dict | None:
    return ln.load_shipped("main")


@st.cache_data(show_spinner=False, max_entries=4)
def _shipped_analysis(metric: str) -> dict | None:
    data = _shipped()
    return None if data is None else ln.analyse(data, metric)


@st.cache_resource(show_spinner=False, max_entries=4)
def _shipped_figures(metric: str):
    """The shipped run's figures do not depend on the other controls: built once, shared read-only."""
    data = _shipped()
    return figs.gap_chart(_shipped_analysis(metric)), figs.curves_chart(ln.learning_curves(data), data["config"])


@st.cache_data(show_spinner=False, max_entries=16)
def _run_analysis(run_key: str, metric: str, _run: dict) -> dict:
    return ln.analyse(_run, metric)


# ----------------------------------------------------------------------------------------------- helpers



def _metric(where, label: str, value: str, sub: str, help: str | None = None) -> None:
    """A metric with a grey second line (a fact, not a change: no arrow, no colour)."""
    where.metric(label, value, sub, delta_color="off", delta_arrow="off", help=help)


def _rows_table(analysis: dict) -> pd.DataFrame:
    return pd.DataFrame([{
        "Lx → Ly": figs.ratio_label(r["lx"], r["ly"]),
        "matched in": "parameters" if r["matching"] == "parameters" else "FLOPs per example",
        "decoder-only loss": f"{r['decoder_mean']:.4f} ± {r['decoder_sd']:.4f}",
        "encoder-decoder loss": f"{r['encdec_mean']:.4f} ± {r['encdec_sd']:.4f}",
        "gap (enc-dec vs dec)": f"{ln.percent(r['gap_mean']):+.1f}%",
        "p (paired t)": p_text(r["p"]),
        "smallest detectable gap": "n/a" if r["mde"] != r["mde"] else f"±{ln.percent(r['mde']):.1f}%",
        "seeds": len(r["seeds"]),
    } for r in analysis["rows"]])


def _matching_name(matching: str) -> str:
    return "parameters" if matching == "parameters" else "FLOPs"


def _trend_line(matching: str, t: dict) -> str:
    """One matching's slope, said against the FLAN explanation's prediction (a negative slope)."""
    numbers = (f"{ln.percent(t['slope']):+.1f}% per doubling of Lx/Ly, {p_label(t['p'])}; the design detects "
               f"about ±{ln.percent(t['mde']):.1f}% per doubling")
    if not t["p"] < 0.05:
        read = "no slope distinguishable from zero"
    elif t["slope"] < 0:
        read = "a slope in the predicted direction"
    else:
        read = "a slope in the **opposite** direction: the encoder-decoder loses ground as inputs get longer"
    return f"- matched in {_matching_name(matching)}: {read} ({numbers})."


def _verdict(analysis: dict) -> str:
    """What the shipped numbers say, written from the numbers (not fixed text)."""
    lines = ["**Does the gap move with the length ratio?** If the FLAN explanation carried over, the encoder-decoder "
             "would do best relative to decoder-only at 20→4 and worst at 4→20: a negative slope of the gap against "
             "log2(Lx/Ly)."]
    lines += [_trend_line(m, t) for m, t in analysis["trend"].items() if t["slope"] == t["slope"]]
    better = [r for r in analysis["rows"] if r["p"] < 0.05 and r["gap_mean"] < 0]
    worse = [r for r in analysis["rows"] if r["p"] < 0.05 and r["gap_mean"] > 0]

    def named(rows: list[dict]) -> str:
        return ", ".join(f"{figs.ratio_label(r['lx'], r['ly'])} (same {_matching_name(r['matching'])}: "
                         f"{ln.percent(r['gap_mean']):+.1f}%, {p_label(r['p'])})" for r in rows) or "none"

    lines.append(f"\n**Per ratio** (p < 0.05, uncorrected for the six tests): encoder-decoder lower loss at "
                 f"{named(better)}; higher at {named(worse)}.")
    lines.append("\n**What it means**: a difference between two tiny architectures on one synthetic rule, trained "
                 "from scratch. It neither confirms nor refutes the lecture's explanation, which is about instruction "
                 "tuning large pretrained models.")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- page

header("lengths")
st.markdown(
    "Slide 57 reports a surprise from instruction tuning (FLAN): the encoder-decoder T5 gained **more** from it "
    "than the decoder-only PaLM, although most of the team's effort went into PaLM. Slide 58 gives the speaker's "
    "explanation: academic tasks have **long inputs and short targets**, E[Lx] ≫ E[Ly], and an encoder-decoder "
    "gives the input and the target parameters of their own. Long generation and multi-turn chat remove that "
    "asymmetry. Evidence level: an **observed result plus an explanation** offered in a talk, not an ablation. "
    "This page computes the allocation exactly, lets you put in your own lengths, and trains a toy version at "
    "60k parameters (section 3), saying what such a test can and cannot show."
)

# --- 1 · allocation -------------------------------------------------------------------------------------------
st.header("1 · Who reads how many tokens")
with st.container(border=True):
    c1, c2, c3, c4, c5 = st.columns([1.3, 1.3, 1, 1, 1])
    lx = params.select_slider("Input length Lx (tokens)", "lx", LENGTHS, 256, where=c1)
    ly = params.select_slider("Target length Ly (tokens)", "ly", LENGTHS, 16, where=c2)
    d_model = params.select_slider("Width d_model", "d", WIDTHS, 768, where=c3)
    layers = params.slider("Layers (per stack)", "layers", 1, 48, 12, where=c4)
    vocab = params.select_slider("Vocabulary", "vocab", VOCABS, 32_000, where=c5,
                                 format_func=lambda v: f"{v:,}")
    st.caption(f"MLP width 4·d_model; learned positions for {ln.POSITIONS:,} tokens. The decoder-only model has "
               "the layers given; the encoder-decoder has that many in each stack, so about twice the parameters.")

shape = ln.Shape(d_model=int(d_model), n_layers=int(layers), vocab_size=int(vocab))
alloc = _allocation(shape, int(lx), int(ly))
parity = _parity(shape, int(lx), int(ly))
dec, ed = alloc["families"][ln.DECODER], alloc["families"][ln.ENCDEC]
m1, m2, m3, m4 = st.columns(4)
_metric(m1, "Decoder-only params", si(dec["parameters"]), f"{si(dec['flops'])} FLOPs / example",
        help="Every parameter of the one stack reads all Lx + Ly tokens.")
_metric(m2, "Encoder-decoder params", si(ed["parameters"]), f"{si(ed['flops'])} FLOPs / example",
        help="Encoder parameters read Lx tokens, decoder parameters Ly.")
_metric(m3, "Enc-dec / dec-only params", f"{alloc['parameter_ratio']:.2f}×", f"{alloc['flop_ratio']:.2f}× FLOPs",
        help="The encoder-decoder's parameters and FLOPs per example over the decoder-only model's.")
eq = parity["equal_cost"]
_metric(m4, "Params at equal FLOPs", f"{eq['parameter_ratio']:.2f}×", f"{eq['layers_per_stack']:.1f} layers per stack",
        help="The encoder-decoder (fractional layers per stack) whose FLOPs per example equal the decoder-only's: "
             "its parameters over the decoder-only model's.")

render.figure(
    _allocation_figure(shape, int(lx), int(ly)), key="lengths-allocation",
    notice=f"What to notice: in the decoder-only model every layer parameter reads all {lx + ly:,} tokens, "
           f"{dec['input_share_of_flops']:.0%} of its matmul work on the input. The encoder-decoder splits its "
           f"parameters: the encoder reads only the {lx:,} input tokens, the decoder only the {ly:,} target tokens, "
           "so its decoder parameters are cheap when targets are short (slide 58). Area is work: the boxes' total "
           "area is about half the FLOPs.")
render.figure(
    _parity_figure(shape, int(lx), int(ly)), key="lengths-parity",
    notice=f"What to notice: at these lengths an encoder-decoder with {eq['parameter_ratio']:.2f}× the parameters "
           "costs what the decoder-only model does. Per token, every parameter does the same work in both; the "
           "decoder-only model applies each to Lx + Ly tokens, the encoder-decoder each to Lx or Ly, so about 2P "
           "parameters cost what P do. Cross-attention (extra projections) and the head (which the decoder-only "
           "model computes at every position) move the ratio away from 2.")

# --- 2 · profiles ---------------------------------------------------------------------------------------------
st.header("2 · Length distributions")
st.markdown("Pick a profile, type pairs, or upload your own to see its mean lengths and what each family spends "
            "on it, with the model shape above.")
with st.container(border=True):
    c1, c2 = st.columns([2, 3])
    source = params.choice("Lengths from", "profile", SOURCES, "academic benchmark", where=c1, widget="radio")
    typed = params.text(f"Typed pairs, input:target (at most {ln.MAX_TYPED})", "pairs", TYPED_DEFAULT, 600,
                        where=c2, help="Whole tokens, e.g. `300:4, 120:8`; separate pairs with commas or spaces.")
    uploaded = None if params.controls_hidden() else c2.file_uploader(
        f"CSV of pairs: columns `input_len`, `target_len`; at most {ln.MAX_ROWS:,} rows and {ln.MAX_BYTES / 1e6:g} MB",
        type=["csv", "txt"], max_upload_size=math.ceil(ln.MAX_BYTES / 2 ** 20),
        key="upload", help=f"Lengths are whole numbers of tokens from 1 to {ln.MAX_LENGTH:,}. `lx` and `ly` work "
                           "as column names too.")
    if source in ln.PROFILES:
        st.caption(f"**{source}** ({ln.PROFILES[source].story}): a **synthetic, illustrative** profile, drawn from "
                   "log-normal lengths with a fixed seed. It is not measured from any dataset; it only has the shape "
                   "the lecture describes.")

raw = uploaded.getvalue() if uploaded is not None and source == UPLOADED else None
pairs, problem = _pairs(source, typed, raw)
if problem:
    where = f"{inline_code(uploaded.name, 60)}: " if source == UPLOADED and uploaded is not None else ""
    st.warning(where + problem)
elif source == UPLOADED and raw is None:
    st.info(f"Upload a CSV with columns `input_len` and `target_len` (at most {ln.MAX_ROWS:,} rows) to see your "
            "own lengths; meanwhile nothing is drawn here. Download a profile below as a template.")

if pairs is not None:
    stats = _stats(source, typed, raw, shape)
    label = source if source in ln.PROFILES else ("your typed pairs" if source == TYPED else uploaded.name)
    s1, s2, s3, s4 = st.columns(4)
    _metric(s1, "E[Lx], mean input", f"{stats['mean_input']:,.1f}", f"median {stats['median_input']:,.0f}")
    _metric(s2, "E[Ly], mean target", f"{stats['mean_target']:,.1f}", f"median {stats['median_target']:,.0f}")
    _metric(s3, "E[Lx] / E[Ly]", f"{stats['ratio_of_means']:,.2f}",
            f"{stats['share_longer_input']:.0%} of pairs Lx > Ly")
    _metric(s4, "FLOPs, enc-dec / dec-only", f"{stats['flop_ratio']:.2f}×",
            f"{si(stats['mean_flops'][ln.ENCDEC])} vs {si(stats['mean_flops'][ln.DECODER])}",
            help="Every pair's FLOPs counted exactly, then averaged (attention is quadratic in length, so this is "
                 "not the count at the mean lengths). Shape from section 1.")
    render.figure(
        _distribution_figure(source, typed, raw, label), key="lengths-distribution",
        notice="What to notice: pairs below the dashed diagonal have longer inputs than targets. The academic profile "
               "sits far below it (E[Lx] ≫ E[Ly], slide 58); chat straddles it; long-form writing sits above it, the "
               "reverse asymmetry.")
    render.figure(
        _allocation_figure(shape, round(stats["mean_input"], 1), round(stats["mean_target"], 1),
                           title=f"At the mean lengths of {label}: Lx = {stats['mean_input']:,.1f}, "
                                 f"Ly = {stats['mean_target']:,.1f}"),
        key="lengths-profile-allocation",
        notice=f"What to notice: a decoder-only model spends {stats['decoder_input_share']:.0%} of its token passes "
               "on inputs here. The encoder-decoder's decoder parameters read only the mean target length. Box areas "
               "use the mean lengths; the FLOP ratio above averages every pair exactly.")
    st.download_button("Download these pairs (CSV, usable as an upload template)",
                       pairs.to_csv(index=False).encode(), file_name=f"lengths-{label.replace(' ', '-')}.csv",
                       mime="text/csv")

# --- 3 · the toy experiment -----------------------------------------------------------------------------------
st.header("3 · A toy test at 60k parameters")
c_claim, c_here = st.columns(2)
c_claim.info(
    "**The lecture's claim (slides 57-58).** Instruction tuning improved T5 (encoder-decoder) more than PaLM "
    "(decoder-only); the speaker explains it by the long-input, short-target data. **Evidence level:** the "
    "speaker's explanation of an observed FLAN result, with large pretrained models. Not reproduced here.", icon=None)
c_here.success(
    "**Measured here (toy scale, trained from scratch).** Tiny encoder-decoders and decoder-only models, "
    "matched in parameters and separately in FLOPs, trained on the same task at 20→4, 12→12 and 4→20 tokens, "
    f"{len(MAIN.seeds)} seeds each. It tests whether the length ratio alone favours one family at this scale; it "
    "cannot test instruction tuning of pretrained models.", icon=None)

data = _shipped()
if data is None:
    st.warning(f"The shipped results ({ln.shipped_path('main').name}) are missing or unreadable; run "
               "`python -m explorer lengths --preset main` to produce them. Section 5 still trains on demand.")
else:
    metric_label = params.choice("Loss compared", "metric", list(METRIC_LABELS), "averaged over the run",
                                 help="Averaged over the run = the area under the held-out loss curve (how fast a "
                                      "model learns); at the last step = where it ends.")
    metric = METRIC_LABELS[metric_label]
    analysis = _shipped_analysis(metric)
    st.markdown(_verdict(analysis))
    st.dataframe(_rows_table(analysis), hide_index=True)
    st.caption(f"Loss: {analysis['metric_text']}, in nats per target token on {MAIN.eval_size:,} held-out examples "
               "(mean ± sd over seeds). Gap: the encoder-decoder's loss relative to the decoder-only model's, from the "
               "mean of ln(loss ratio) per seed (same seed = same initial data and held-out set). p: paired t-test "
               "over seeds. Smallest detectable gap: the gap a two-sided test at α = 0.05 would catch with 80% "
               "power, given the seed spread. The loss averaged over the run was chosen as the main measure before "
               "the shipped run; the last step is a single evaluation and carries more training noise, so the two can "
               "disagree.")
    gap_figure, curves_figure = _shipped_figures(metric)
    render.figure(gap_figure, key="lengths-toy-gaps",
                  notice="What to notice: if the FLAN explanation carried over to this scale, the points would sit "
                         "below zero at 20→4 and rise towards 4→20. Each dot is one seed; the bar is the 95% interval "
                         "of the mean.")
    render.figure(curves_figure, key="lengths-toy-curves",
                  notice="What to notice: the loss averaged over the run is the area under each curve, so a curve "
                         "that falls earlier scores better even when both end low. The tasks differ in difficulty "
                         "(4→20 repeats a sorted 4-token input), so compare arms within a panel, not across.")
    with st.expander("How this was measured, and what it does not show"):
        arms = pd.DataFrame(ln.arm_table(MAIN))
        arms["arm"] = arms["arm"].map(ln.ARM_NAMES)
        arms["Lx → Ly"] = [figs.ratio_label(a, b) for a, b in zip(arms["lx"], arms["ly"])]
        st.dataframe(arms[["Lx → Ly", "arm", "layers", "d_ff", "parameters", "flops_per_example"]], hide_index=True,
                     column_config={"layers": "layers per stack", "flops_per_example": "forward FLOPs per example"})
        st.markdown(
            f"- **Task** (rank summary): the input is Lx random symbols out of {MAIN.n_symbols}; target token j is "
            "the input's value at rank ⌊(2j+1)·Lx / 2Ly⌋ once sorted. At 20→4 the target is four quantiles (a "
            "summary), at 12→12 the sorted input, at 4→20 each sorted value five times (an expansion). One rule, "
            "so only the lengths change.\n"
            f"- **Models**: the project's Transformer. Decoder-only: {MAIN.n_layers} layers, d={MAIN.d_model}, "
            f"{MAIN.n_heads} heads, MLP {MAIN.d_ff}. Same parameters: an encoder-decoder with {MAIN.n_layers // 2} "
            f"layer per stack and the MLP width that matches the parameter count within {ln.PARAM_TOLERANCE:.1%}. "
            f"Same FLOPs: {MAIN.n_layers} layers per stack and the MLP width that matches the forward FLOPs per "
            f"example within {ln.FLOP_TOLERANCE:.0%} (so about twice the parameters).\n"
            f"- **Training**: `explorer.train`, Adam, learning rate {MAIN.lr}, {MAIN.warmup} warm-up steps, batch "
            f"{MAIN.batch_size}, {MAIN.steps} steps, held-out loss every {MAIN.eval_every} steps. A seed fixes the "
            "initial weights, the training batches and the held-out set; the three arms of a seed see the same data.\n"
            "- **Not shown**: pretraining, instruction tuning, natural language, scale. The FLAN effect, if the "
            "explanation is right, concerns how a large pretrained model's separate input parameters absorb "
            "long-input data; a 60k-parameter model trained from scratch on one synthetic rule has none of that. "
            "Whatever the toy shows (a gap, no gap, or a gap in the opposite direction), it describes these tiny "
            "models on this rule; it neither confirms nor refutes the lecture. A differently built task can "
            "change the pattern, as the difficulty of the three ratios already differs.\n"
            f"- **Shipped run**: `python -m explorer lengths --preset main`, {data.get('wall_seconds', 0):.0f} s "
            f"wall time on this shared 2-core server (one thread, torch {data.get('torch', '?')}, "
            f"{data.get('created', '?')}).")

# --- 4 · published numbers ------------------------------------------------------------------------------------
st.header("4 · The published FLAN numbers")
st.markdown(
    "Slide 57 shows a table of FLAN-T5 and Flan-PaLM results from *Scaling Instruction-Finetuned Language Models* "
    "(Chung et al., 2022). **That table is not reproduced here**: this page shows published figures only when they "
    "can be cited with their table and page, and the paper's tables could not be checked against the paper itself "
    "while this page was built (nothing is downloaded while the app runs). Read them in the paper; compare the "
    "**gain from instruction tuning** per model, not the absolute scores (the lecture's own caution).")

# --- 5 · on demand ----------------------------------------------------------------------------------------------
st.header("5 · Train another setting")
with st.container(border=True):
    c1, c2, c3, c4 = st.columns(4)
    run_lx = params.slider("Input length Lx", "run_lx", *RUN_LENGTH, 24, where=c1)
    run_ly = params.slider("Target length Ly", "run_ly", *RUN_LENGTH, 2, where=c2)
    run_seeds = params.slider("Seeds", "run_seeds", 1, len(MAIN.seeds), 2, where=c3)
    run_steps = params.select_slider("Steps per model", "run_steps", RUN_STEPS, 200, where=c4)
    st.caption(f"Same recipe as section 3. Ratios 20→4, 12→12 and 4→20 with up to {len(MAIN.seeds)} seeds and "
               f"{MAIN.steps} steps come from the shipped run at once; anything else trains here (3 models per seed), "
               f"limited to {TIME_LIMIT_S} s, and is cached.")

try:
    run_cfg = replace(MAIN, ratios=((int(run_lx), int(run_ly)),), seeds=tuple(range(int(run_seeds))),
                      steps=int(run_steps))
    ln.arm_table(run_cfg)  # the matched widths exist (raises ValueError otherwise)
except ValueError as err:
    st.warning(f"These settings cannot be matched: {err}")
    run_cfg = None

if run_cfg is not None:
    planned = ln.plan(run_cfg, data)
    ready, missing = list(planned.ready.values()), planned.missing
    run_key = "lengths-" + results.result_key("lengths-run", run_cfg.to_dict())
    done = None
    if not missing:
        done = {"config": run_cfg.to_dict(), "records": ready, "stopped": "steps"}
    else:
        seconds = ln.estimate_seconds(run_cfg, missing, data)
        if seconds > TIME_LIMIT_S:
            fits = [s for s in RUN_STEPS
                    if ln.estimate_seconds(replace(run_cfg, steps=s), missing, data) <= TIME_LIMIT_S]
            hint = (f"{max(fits)} steps would fit" if fits else
                    "even 100 steps would not fit; use fewer seeds or a shorter Lx + Ly")
            st.warning(f"Refused: {len(missing)} models × {run_cfg.steps} steps would take about {seconds:.0f} s here; "
                       f"on-demand runs are limited to {TIME_LIMIT_S} s. With these seeds, {hint}.")
        else:
            earlier = last_result(run_key)
            if earlier is not None and earlier.get("stopped") != "steps":  # cut: show it, and offer the rest
                done = earlier
                forget(run_key)

            def work(progress) -> dict:
                return ln.run(run_cfg, data, use_cache=True, progress=progress)

            done = run_in_background(run_key, work, f"Training {figs.ratio_label(int(run_lx), int(run_ly))}, "
                                                    f"{plural(len(missing), 'model')}", time_limit_s=TIME_LIMIT_S,
                                     button=f"Train {plural(len(missing), 'model')} (about {seconds:.0f} s)") or done
    if done is not None:
        if done.get("stopped") != "steps":
            st.warning(f"The run stopped at the {TIME_LIMIT_S} s limit; the table uses the seeds that finished, "
                       f"and {plural(len(missing), 'model')} still to train (the unfinished one is not cached).")
        run_analysis = _run_analysis(run_key, metric if data is not None else "curve", done)
        if run_analysis["rows"]:
            st.dataframe(_rows_table(run_analysis), hide_index=True)
            render.figure(figs.gap_chart(run_analysis), key="lengths-run-gaps",
                          notice="What to notice: with few seeds the interval is wide, and the smallest detectable "
                                 "gap in the table says how large a difference this run could have caught.")
            if len(run_cfg.seeds) < 2:
                st.info("With one seed there is no spread, so no test: add a seed for a p-value.")
        else:
            st.info("No seed finished within the limit; try fewer steps.")

st.divider()
page_link("four-steps", "Four steps to decoder-only: what separates the two families, parameter by parameter")
page_link("cache", "Cache reuse in chat: why multi-turn chat favours a causal input")
