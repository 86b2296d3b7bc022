"""Four steps to decoder-only (slides 40-55): real models at every step, their differences measured."""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from explorer import results
from explorer import shipped as shipped_results
from explorer.experiments import four_steps as fs
from explorer.figures import four_steps as figs
from explorer.lecture_map import page as page_info
from explorer.formatting import p_text
from explorer.steps import FINAL_STEP
from ui import params, render
from ui.frame import header
from ui.jobs import run_in_background

MASK_SIZE = (6, 6)  # input and target tokens drawn in the mask figure
TASKS = ("sort", "reverse", "copy")
LENGTHS = (4, 6, 8, 10, 12)
STEP_BUDGETS = (50, 100, 150, 200, 250, 300, 400, 600)
CHECK_TIME_LIMIT_S = 120.0

STEP_SLIDES = {0: "slide 40", 1: "slides 41-42", 2: "slides 44-45", 3: "slides 47-48", 4: "slides 50-51",
               5: "beyond the slides"}
STEP_TEXT = {
    0: "The standard encoder-decoder. The input runs through its own stack with bidirectional self-attention. "
       "Each decoder layer has a causal self-attention over the target so far and a separate cross-attention, "
       "with its own projections, that reads the encoder's final output. Target positions start again at 0.",
    1: "Self- and cross-attention are the same computation; only where the keys and values come from differs. "
       "So one set of Q, K, V, O projections now serves both roles. The connections stay where they were; the "
       "cross-attention projections are gone.",
    2: "One set of layers now runs the input and the target: the encoder is the decoder's own layers applied to "
       "the input. Whatever made input and target different must now come from the sequences and the masks, not "
       "from separate weights.",
    3: "Decoder layer l no longer reads the encoder's final output; it reads the input at layer l, the same "
       "normalised states that layer l itself reads. Every layer now sees the input at its own depth, as a single "
       "stack does.",
    4: "The input's self-attention becomes causal and the target's positions continue after the input, as if "
       "[input ; target] were one sequence. The slide's table is left with small implementation details.",
    5: "One detail is left: a target token still normalises its attention over its own prefix and over the input "
       "in two separate softmaxes. Merged into one softmax over [input ; target prefix], the model computes "
       "exactly what decoder-only computes.",
}

# slides 52-55 (and 59-66): the three extra structures of encoder-decoder; `step` removes it,
# `compare` is the pair of shipped variants whose difference measures removing it here
WHY = (
    {"structure": "Separate parameters for input and target", "step": 2, "compare": ("2", "0"), "related": "lengths",
     "helped": "Translation (slides 53-54): input and target are different languages with different words, word "
               "order and roles; giving each side its own weights spends a small budget where the data differ.",
     "changed": "General pretraining (slide 55) wants knowledge shared across languages and tasks; one set of "
                "weights can reuse what it learns on either side, and scale pays for the capacity.",
     "test": "Train with and without sharing on a task whose input and target differ (and on one where they "
             "do not); removing it here is steps 1-2."},
    {"structure": "Decoder reads only the encoder's final layer", "step": 3, "compare": ("3", "2"), "related": "depth",
     "helped": "Encoders of 6-24 layers (slides 59-60): the fully encoded input is a good summary, and one memory "
               "shared by all decoder layers is cheap.",
     "changed": "Networks got much deeper; layers hold information at different granularity (slide 61), so a "
                "first decoder layer reading only the top encoder layer may be a bottleneck.",
     "test": "Vary depth and compare final-layer-only with layer-aligned reading; removing it here is step 3."},
    {"structure": "Bidirectional input", "step": 4, "compare": ("4", "3"), "related": "cache",
     "helped": "A fixed input read once (translation, classification, long-input short-answer tasks, slide 62): "
               "every input token can use the tokens after it.",
     "changed": "In chat the input grows every turn (slides 64-66); bidirectional states change and must be "
                "recomputed, causal ones are computed once and cached.",
     "test": "Compare held-out loss with bidirectional and causal input, and the cost of re-encoding per turn; "
             "removing it here is step 4."},
)


@st.cache_data(show_spinner=False, max_entries=64)
def _counts(depth: int, width: int, heads: int) -> dict[str, int]:
    return fs.parameter_counts(fs.base_config(depth, width, heads))


@st.cache_data(show_spinner=False, max_entries=256)
def _model_figures(step: int, depth: int, width: int, heads: int):
    """Table, wiring, parameter bars and masks for one view: all from configs and instantiated counts."""
    base, counts = fs.base_config(depth, width, heads), _counts(depth, width, heads)
    cfg = fs.step_config(base, step)
    n, m = MASK_SIZE
    panels = [(f"step {step}", fs.combined_mask(cfg, n, m)),
              ("decoder-only", fs.combined_mask(fs.decoder_only_config(base), n, m))]
    return (figs.diff_table(fs.diff_table(base, step, counts), step, fs.STEP_TITLES[step]),
            figs.wiring(fs.wiring(cfg), f"Wiring at step {step}"),
            figs.parameter_bars(counts, str(step), base.to_dict()), figs.combined_masks(panels),
            fs.extra_parameters_explained(base, step, counts))


@st.cache_data(show_spinner=False, max_entries=64)
def _check_figures(check: dict, step: int):
    return figs.logit_check(check, step), figs.causes(check)


@st.cache_data(show_spinner=False, max_entries=16)
def _ablation_figures(record: dict):
    return figs.ablation(record), figs.ablation_curves(record)


@st.cache_data(show_spinner=False, max_entries=64)
def _step0_parameters(settings: fs.AblationSettings) -> int:
    return fs.instantiated_parameters(fs.variant_config(settings.base, "0"))


@st.cache_data(show_spinner=False)
def _shipped(path: str, mtime: float) -> dict | None:
    return shipped_results.load(Path(path))


def _shipped_file(path) -> dict | None:
    return _shipped(str(path), path.stat().st_mtime) if path.exists() else None


def _roundtrip(d: dict) -> dict:
    return json.loads(json.dumps(d, default=str))


def _stored_check(base) -> dict | None:
    """The check at these sizes: shipped (default sizes) or from the result cache."""
    settings = fs.check_settings(base)
    shipped = _shipped_file(fs.CHECK_PATH)
    if shipped and shipped.get("settings") == _roundtrip(settings):
        return shipped
    return results.load(fs.CHECK_KIND, settings, fs.CHECK_SHAPE)


def _check_work(depth: int, width: int, heads: int):
    base = fs.base_config(depth, width, heads)
    settings = fs.check_settings(base)

    def work(progress) -> dict:
        out = fs.numeric_check(base, progress=progress)
        if out.get("stopped"):
            return {"timed_out": True}
        results.save(fs.CHECK_KIND, settings, out)
        return out
    return work


def _ablation_work(settings: fs.AblationSettings):
    def work(progress) -> dict:
        record = fs.run_ablation(settings, progress)
        if record["complete"]:
            results.save(fs.ABLATION_KIND, settings.to_dict(), record)
        else:
            record["stopped"] = f"the {fs.ABLATION_TIME_LIMIT_S:.0f} s limit"
        return record
    return work


def _relative(r: float) -> str:
    return f"{r:.1f}× the largest logit" if r >= 1 else f"{r:.0%} of the largest logit"


def _link(info, where) -> None:
    try:
        where.page_link(info.file, label=info.title)
    except StreamlitPageNotFoundError:  # the page run on its own (AppTest): no navigation to resolve it in
        where.markdown(f"[{info.title}](/{info.slug})")


def _go_to(k: int) -> None:
    st.session_state["step"] = k


# --- sections ---------------------------------------------------------------------------------------
def comparison(step: int, sizes: tuple[int, int, int]) -> None:
    st.header("The comparison at this step", divider="gray")
    table, wires, bars, mask, extra = _model_figures(step, *sizes)
    render.figure(table, key="four-steps-table",
                  notice="Shaded rows changed at this step; ✓ marks a row that already matches decoder-only. "
                         "Every cell is generated from the model's configuration flags (slides 42, 45, 48, 51).")
    left, right = st.columns(2)
    with left:
        render.figure(wires, key="four-steps-wiring",
                      notice="Each arrow starts at the encoder level a decoder layer reads: the final output until "
                             "step 3, then the input of the matching layer (slides 47-48).")
    with right:
        render.figure(bars, key="four-steps-params", notice=f"{extra} (slides 42, 45).")
    render.figure(mask, key="four-steps-mask",
                  notice="Rows read columns. Two colours in a target row mean two separate softmaxes; after the "
                         "final change the allowed cells and their single softmax match decoder-only "
                         "(slides 37, 50).")


def _check_or_run(base, counts: dict[str, int], sizes: tuple[int, int, int]) -> dict | None:
    """The stored check for these sizes; else a button that runs it in the background (within the limit)."""
    check = _stored_check(base)
    if check is not None:
        return check
    key = f"four-steps-check-{results.result_key(fs.CHECK_KIND, fs.check_settings(base))}"
    if counts["0"] > fs.LIVE_PARAM_LIMIT:
        st.info(f"The check trains a model here, so it runs for sizes up to {fs.LIVE_PARAM_LIMIT:,} parameters "
                f"at step 0; these sizes give {counts['0']:,}. Lower the width or the depth.")
        return None
    check = run_in_background(key, _check_work(*sizes), label="Numeric check", time_limit_s=CHECK_TIME_LIMIT_S,
                              button="Train decoder-only for these sizes and run the check")
    if check is not None and check.get("timed_out"):
        st.warning(f"The check ran past its {CHECK_TIME_LIMIT_S:.0f} s limit; try smaller sizes.")
        return None
    return check


def numeric_check(base, counts: dict[str, int], step: int, sizes: tuple[int, int, int]) -> None:
    st.header("Numeric check: decoder-only weights at every step", divider="gray")
    st.markdown(
        "A decoder-only model is trained briefly, then its weights are copied into the model at each step (the "
        "separate encoder and cross-attention get copies of the shared ones). On the same batch, how far are the "
        "logits from decoder-only's?")
    check = _check_or_run(base, counts, sizes)
    if check is None:
        return
    row = check["steps"][step]
    c1, c2, c3 = st.columns(3)
    c1.metric(f"max |logit difference| at step {step}, float32", f"{row['max_abs_logit_diff']:.3g}")
    c2.metric("float64", f"{row['max_abs_logit_diff_f64']:.3g}")
    c3.metric("relative to the largest logit", f"{row['relative_diff']:.2g}",
              help=f"largest |decoder-only logit| on this batch: {check['max_abs_logit']:.1f}")
    diffs = [r["max_abs_logit_diff_f64"] for r in check["steps"]]
    if step <= 2 and max(diffs[:3]) - min(diffs[:3]) <= 1e-9 * max(diffs[:3]):
        st.markdown("Steps 1 and 2 leave this number exactly where step 0 has it: with copied weights, sharing "
                    "parameters does not change the function, it only keeps the copies from drifting apart in "
                    "training. The function changes at steps 3 and 4, and at the final change.")
    four, final = check["steps"][4], check["steps"][FINAL_STEP]
    st.markdown(
        f"After step 4 the logits still differ by **{four['max_abs_logit_diff']:.3g}** "
        f"({_relative(four['relative_diff'])}): step 4 is not yet decoder-only. "
        f"The final change brings the difference to **{final['max_abs_logit_diff']:.2g}** in float32 and "
        f"**{final['max_abs_logit_diff_f64']:.2g}** in float64: rounding.")
    logits, causes = _check_figures(check, step)
    render.figure(logits, key="four-steps-check",
                  notice="Bars at the dotted lines are rounding error. Only the final change reaches them.")
    st.markdown(
        "Three things separate step 4 from decoder-only. The model here already does two of them the "
        "decoder-only way (layer l's keys and values come from what encoder layer l *reads*, and target "
        "positions continue at n), so its remaining gap is the two softmaxes. Each one, put back alone into "
        "the exact model, moves the logits far beyond rounding:")
    render.figure(causes, key="four-steps-causes",
                  notice="Each bar is the exact (final-change) model with one difference put back, "
                         "on the same weights and batch.")


def show_ablation(record: dict, key: str) -> None:
    summary = record["summary"]
    if not record.get("complete", True):
        st.warning(f"This run stopped early ({record.get('stopped', 'incomplete')}): "
                   f"{len(record['runs'])} runs finished; they are shown but not cached.")
    paired = fs.paired_analysis(record["runs"])
    st.markdown(f"**Verdict.** {fs.paired_text(paired)}")
    st.markdown(fs.path_text(paired))
    st.dataframe([{"a": fs.VARIANT_SHORT[r["a"]], "b": fs.VARIANT_SHORT[r["b"]], "seeds": r["n"],
                   "held-out loss, a − b": round(r["mean_diff"], 4), "exact paired p": p_text(r["paired_p"]),
                   "Holm p": p_text(r["holm_p"])} for r in paired["pairs"]], hide_index=True, height=240)
    st.caption(f"Every pair of variants, compared seed by seed (exact sign-flip test; with these seeds no p can go "
               f"below {paired['smallest_p']:.3g}), Holm-corrected over all {len(paired['pairs'])} pairs. Steps "
               "that remove parameters also halve the model, so a gap mixes the change with the size.")
    exact = summary.get("final_vs_decoder")
    if exact and exact["seeds"]:
        st.markdown(f"The final change and decoder-only start from the same weights for a seed and compute the same "
                    f"function, so they train alike: their held-out losses differ by at most "
                    f"{exact['max_same_seed_gap']:.1e} per seed, rounding differences grown over training.")
    dots, curves = _ablation_figures(record)
    render.figure(dots, key=f"{key}-dots",
                  notice="Dots are seeds; diamonds are means with ± one seed standard deviation. Step 4 and "
                         "decoder-only are highlighted (slide 51).")
    render.figure(curves, key=f"{key}-curves",
                  notice="Every variant sees the same batches; the curves show where in training the gaps open. The "
                         "final change lies under decoder-only.")
    table = [{"variant": v["name"], "seeds": v["n"], "held-out loss (mean)": round(v["mean"], 4),
              "sd": round(v["sd"], 4), "min": round(v["min"], 4), "max": round(v["max"], 4)}
             for v in summary["variants"]]
    st.dataframe(table, hide_index=True)
    wall = record.get("wall_seconds")
    st.caption(f"Measured: {len(record['runs'])} runs"
               + (f" in {wall:.0f} s wall time, {record.get('threads', 1)} thread" if wall else "")
               + (f", {record['date']}" if record.get("date") else "") + ".")


def ablation(shipped: dict | None, sizes: tuple[int, int, int]) -> None:
    st.header("Ablation: does step 4 differ from decoder-only by more than seed noise?", divider="gray")
    st.markdown(
        "Slide 51 suggests that after the four steps the remaining differences may matter less than retraining "
        "noise. Every variant is trained from scratch with the same seeds, data, steps and batch size, and "
        "compared on held-out loss.")
    if shipped is None:
        st.warning("No shipped ablation results were found; `python -m explorer four-steps ablation` writes them "
                   f"to `{fs.ABLATION_PATH.relative_to(fs.ROOT)}`.")
    else:
        with render.section("The shipped ablation"):
            show_ablation(shipped, "four-steps-ablation")
    with st.expander("Rerun the ablation with other settings"):
        rerun(shipped, sizes)


def rerun(shipped: dict | None, sizes: tuple[int, int, int]) -> None:
    st.caption("Uses the depth, width and heads chosen above. The run trains in a separate process, one model at "
               "a time, and stops at the time limit.")
    c1, c2, c3, c4 = st.columns(4)
    task = params.choice("Task", "ab_task", TASKS, "sort", where=c1)
    length = params.select_slider("Tokens per input", "ab_len", LENGTHS, 8, where=c2)
    budget = params.select_slider("Steps per run", "ab_steps", STEP_BUDGETS, 150, where=c3)
    n_seeds = params.slider("Seeds", "ab_seeds", 3, fs.MAX_SEEDS, 3, where=c4)
    depth, width, heads = sizes
    try:
        settings = fs.AblationSettings(task=task, length=length, depth=depth, width=width, heads=heads,
                                       steps=budget, seeds=tuple(range(n_seeds)))
    except ValueError as err:
        st.warning(f"These settings are refused: {err}")
        return
    if shipped and shipped["settings"] == settings.to_dict():
        st.info("These are the shipped settings: their results are shown above.")
        return
    stored = results.load(fs.ABLATION_KIND, settings.to_dict(), fs.ABLATION_SHAPE)
    if stored is not None:
        show_ablation(stored, "four-steps-rerun")
        return
    biggest = _step0_parameters(settings)
    estimate = fs.estimate_seconds(settings, shipped)
    runs = len(settings.seeds) * len(settings.variants)
    if biggest > fs.LIVE_PARAM_LIMIT:
        st.info(f"Reruns train models up to {fs.LIVE_PARAM_LIMIT:,} parameters at step 0; the sizes above give "
                f"{biggest:,}. Lower the width or the depth.")
        return
    if estimate > fs.ABLATION_TIME_LIMIT_S:
        st.info(f"{runs} runs of {budget} steps would take about {estimate:.0f} s here; the limit is "
                f"{fs.ABLATION_TIME_LIMIT_S:.0f} s. Use fewer steps or seeds, or a smaller model.")
        return
    key = f"four-steps-ablation-{results.result_key(fs.ABLATION_KIND, settings.to_dict())}"
    record = run_in_background(key, _ablation_work(settings), label="Ablation rerun",
                               time_limit_s=fs.ABLATION_TIME_LIMIT_S,
                               button=f"Run {runs} trainings (about {estimate:.0f} s)")
    if record is not None:
        with render.section("This ablation rerun"):
            show_ablation(record, "four-steps-rerun")


def _measured(shipped: dict | None, pair: tuple[str, str]) -> str:
    if shipped is None:
        return "no shipped results"
    losses = {v: [r["eval_loss"] for r in shipped["runs"] if r["variant"] == v] for v in pair}
    if not all(losses.values()):
        return "not in the shipped results"
    rows = {(r["a"], r["b"]): r for r in fs.paired_analysis(shipped["runs"])["pairs"]}
    row = rows.get(pair) or {**rows[pair[::-1]], "mean_diff": -rows[pair[::-1]]["mean_diff"]}
    return (f"{fs.VARIANT_SHORT[pair[0]]} vs {fs.VARIANT_SHORT[pair[1]]}: {row['mean_diff']:+.3f} held-out loss "
            f"(exact paired p = {row['paired_p']:.2g}, {row['n']} seeds)")


def why(shipped: dict | None) -> None:
    st.header("Why each structure existed (slides 52-55)", divider="gray")
    st.markdown(
        "Encoder-decoder carries three structures that decoder-only lacks. Each matched the data of its time; "
        "each is worth re-testing as the data and the compute change. *Measured here* is the shipped ablation's "
        "change in held-out loss when the step removes the structure (negative: lower loss without it). The task "
        "is sorting, with the same vocabulary on both sides: no language difference for separate parameters to "
        "exploit.")
    widths = [1.2, 1.9, 1.9, 1.9, 1.9]
    for col, label in zip(st.columns(widths), ("Structure", "Where it helped", "What changed", "The test",
                                               "Removed at")):
        col.markdown(f"**{label}**")
    for row in WHY:
        st.divider()
        cols = st.columns(widths)
        cols[0].markdown(f"**{row['structure']}**")
        cols[1].markdown(row["helped"])
        cols[2].markdown(row["changed"])
        cols[3].markdown(f"{row['test']}  \n*Measured here:* {_measured(shipped, row['compare'])}.")
        cols[4].button(f"Go to step {row['step']}", key=f"why-{row['step']}", on_click=_go_to, args=(row["step"],))
        related = page_info(row["related"])
        if related.exists:
            _link(related, cols[4])


# --- page -----------------------------------------------------------------------------------------
header("four-steps")
st.markdown(
    "Slides 40-51 rewrite an encoder-decoder into a decoder-only Transformer one structural change at a time, "
    "updating a comparison table as they go. Here every step is a real model of the same configurable "
    "Transformer. The table, the wiring and the masks are read from each model's configuration; the parameter "
    "counts come from the instantiated models; the logit comparison and the training runs are measured on "
    "this machine."
)

with st.container(border=True):
    c1, c2, c3, c4 = st.columns([3, 1.2, 1.2, 1.2])
    # plain numbers: Streamlit binds a select_slider with format_func to the URL by its label, not its value
    step = params.slider("Step (0 = encoder-decoder, 4 = after the four steps, 5 = the final change)", "step", 0,
                         FINAL_STEP, 0, where=c1, help=" · ".join(fs.STEP_TITLES))
    depth = params.slider("Depth (layers per stack)", "depth", *fs.DEPTH_RANGE, fs.DEFAULT_SIZES["depth"], where=c2)
    width = params.select_slider("Width d_model", "width", fs.WIDTHS, fs.DEFAULT_SIZES["width"], where=c3)
    heads = params.select_slider("Heads", "heads", fs.HEADS, fs.DEFAULT_SIZES["heads"], where=c4)
sizes = (depth, width, heads)
st.markdown(f"**{fs.STEP_TITLES[step].capitalize()}** ({STEP_SLIDES[step]}). {STEP_TEXT[step]}")

try:
    base, counts = fs.base_config(*sizes), _counts(*sizes)
except ValueError as err:
    st.warning(f"These sizes are refused: {err}. Lower the depth or the width; the sections below the model "
               "figures do not depend on the sizes.")
    base = counts = None
if base is not None:
    comparison(step, sizes)
    numeric_check(base, counts, step, sizes)
shipped_ablation = _shipped_file(fs.ABLATION_PATH)
ablation(shipped_ablation, sizes)
why(shipped_ablation)
