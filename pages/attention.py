"""Attention masks: who may read whom in each architecture, and what a trained model reads (slides 17-37, 50, 62-63)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from explorer import checkpoints, tokenizer
from explorer.experiments import attention as att
from explorer.figures import attention as figs
from ui import jobs, params, render
from ui.frame import header

DEFAULT_TEXT = "hello world"
ON_DEMAND_LIMIT_S = 480.0  # a missing model trains for at most this long (the full recipe fits on a free server)
SPEC = att.demo_spec("encoder_decoder")  # every demo model has the same depth and head count
N_LAYERS, N_HEADS = SPEC.model.n_layers, SPEC.model.n_heads
ARCH_BY_NAME = {att.ARCH_NAMES[a]: a for a in att.ARCHS}


@st.cache_resource(show_spinner="Loading the demo model ...")
def _load(path: str, stamp: int):
    """One shared, read-only model per checkpoint file version (`stamp` = its modification time)."""
    return checkpoints.load(path)


@st.cache_data(show_spinner=False, max_entries=256)
def _read(path: str, stamp: int, ids: tuple[int, ...]) -> dict:
    model, _ = _load(path, stamp)
    return att.read_text(model, ids)


# Figures that do not depend on the layer and head are cached, so a slider move redraws only two figures.
@st.cache_data(show_spinner=False, max_entries=128)
def _embedding_figure(path: str, stamp: int, ids: tuple[int, ...], detail: str):
    model, _ = _load(path, stamp)
    return figs.embedding_figure(att.embedding_rows(model, ids), detail)


@st.cache_data(show_spinner=False, max_entries=128)
def _mask_figures(arch: str, ids: tuple[int, ...], causal_input: bool, aligned: bool) -> tuple:
    """The schematic figures: the role masks, the combined view (None for encoder-only), the wiring (None
    unless encoder-decoder). Target labels assume the right answer."""
    x_ids, target_side = att.expected_layout(arch, ids)
    inputs, targets, axes = att.layout_labels(arch, x_ids, target_side)
    n_in, m = len(inputs), len(targets)
    gallery = figs.mask_gallery(arch, att.role_categories(arch, n_in, m, causal_input), axes)
    combined = figs.combined_view(arch, att.combined_categories(arch, n_in, m, causal_input), inputs + targets,
                                  n_in) if m else None
    wiring = figs.wiring_figure(att.wiring(N_LAYERS, aligned, causal_input)) if arch == "encoder_decoder" else None
    return gallery, combined, wiring


@st.cache_data(show_spinner=False, max_entries=128)
def _overview(path: str, stamp: int, ids: tuple[int, ...], role: str, detail: str):
    return figs.head_overview(_read(path, stamp, ids), role, detail)


@st.cache_data(show_spinner=False, max_entries=256)
def _weights_figure(path: str, stamp: int, ids: tuple[int, ...], layer: int, head: int, detail: str):
    return figs.attention_maps(_read(path, stamp, ids), layer, head, detail)


def _train_on_demand(arch: str, progress) -> dict:
    # training stops 30 s before the job's limit: measuring and saving the model take the rest
    saved = att.train_and_save(att.demo_spec(arch), att.on_demand_dir(), progress.part(reserve_s=30.0))
    progress.check()
    return {"path": saved["path"]}


def _model(arch: str) -> tuple[str, int, dict] | None:
    """(path, stamp, sidecar) of the demo model, training it in the background when no file is there."""
    path = att.find_demo(arch)
    if path is not None:
        try:
            stamp = path.stat().st_mtime_ns
            _, sidecar = _load(str(path), stamp)
            return str(path), stamp, sidecar
        except (ValueError, OSError) as err:
            st.warning(f"The model file {path.name} could not be loaded ({err}); training a fresh copy instead.")
    name = att.ARCH_NAMES[arch]
    st.info(f"The {name} demo model is not on disk (`python -m explorer demo-models` ships it); this page can "
            "train it here, seeded, on this server. The masks below need no model and are already drawn.")
    result = jobs.run_in_background(f"attention-demo-{arch}", lambda progress: _train_on_demand(arch, progress),
                                    label=f"Training the {name} demo model", time_limit_s=ON_DEMAND_LIMIT_S,
                                    button=f"Train the {name} demo model (up to {ON_DEMAND_LIMIT_S:.0f} s)")
    if result is None:
        return None
    path = Path(result["path"])
    stamp = path.stat().st_mtime_ns
    return str(path), stamp, _load(str(path), stamp)[1]


def _output_panel(read: dict, sidecar: dict) -> None:
    meta = sidecar.get("meta", {})
    acc = meta.get("accuracy", {})
    wrong = read["wrong_positions"]
    n = len(read["expected_ids"])
    c1, c2, c3 = st.columns(3)
    c1.markdown(f"**Input**  \n`{tokenizer.decode(read['input_ids'])}`")
    c2.markdown(f"**Expected (reversed)**  \n`{read['expected']}`")
    verdict = "all right" if not wrong else f"{n - len(wrong)} of {n} right"
    c3.markdown(f"**Model output** ({verdict})  \n`{read['output']}`")
    if wrong:
        got, want = read["output_ids"], read["expected_ids"]  # per id, so a "<pad>" stays one token
        shown = ", ".join(f"{i + 1} (wrote {tokenizer.decode([got[i]])!r}, expected {tokenizer.decode([want[i]])!r})"
                          for i in wrong[:6])
        more = f", and {len(wrong) - 6} more" if len(wrong) > 6 else ""
        st.caption(f":orange[Wrong at output position(s) {shown}{more}.]")
    if acc:
        stopped = meta.get("training", {}).get("stopped")
        note = " It was trained on demand and stopped at the time limit." if stopped == "time_budget" else ""
        st.caption(f"This model, measured on {acc['strings']:,} held-out random strings of 1-{att.MAX_CHARS} "
                   f"characters: {acc['char_accuracy']:.1%} of characters and {acc['exact_match']:.1%} of whole "
                   f"strings right (greedy decoding).{note}")


header("attention")
st.markdown(
    "Every Transformer family in the lecture runs the same core: tokens become vectors, then attention lets "
    "positions read each other. What differs is **who may read whom** (the mask) and how the input and the "
    "target are laid out. Pick an architecture and type a short text; each demo model below was trained on "
    "this machine to **reverse** text, so to write output character *t* it must read input character "
    "*n-1-t*, which makes its attention easy to read."
)

with st.container(border=True):
    top = st.columns([5, 3])
    # the options are the display names: Streamlit writes a widget's formatted label into the URL
    picked = params.choice("Architecture", "arch", list(ARCH_BY_NAME), att.ARCH_NAMES["encoder_decoder"],
                           where=top[0])
    arch = ARCH_BY_NAME[picked]
    text = params.text(f"Your text (at most {att.MAX_CHARS} characters)", "text", DEFAULT_TEXT,
                       max_chars=att.MAX_CHARS, where=top[1],
                       help=f"Tokenizer: {tokenizer.NAME}. Capitals are lowercased, accents dropped, "
                            "anything else becomes '?'.")
    row = st.columns([1, 1, 2], gap="large")
    layer = params.slider("Layer", "layer", 1, N_LAYERS, N_LAYERS, where=row[0])
    head = params.slider("Head", "head", 1, N_HEADS, 1, where=row[1])
    with row[2]:
        encdec = arch == "encoder_decoder"
        only = "" if encdec else " These variants rewire an encoder-decoder: choose Encoder-decoder to use them."
        causal_input = params.toggle("Step 4: causal input", "causal_input", False, disabled=not encdec,
                                     help="Slide 50: the encoder's self-attention becomes causal and the target "
                                          "positions continue after the input." + only)
        aligned = params.toggle("Step 3: decoder layer l reads encoder layer l", "aligned", False,
                                disabled=not encdec, help="Slides 47, 62-63: layer-aligned cross-attention "
                                                          "instead of every decoder layer reading the final "
                                                          "encoder output." + only)
causal_input, aligned = causal_input and encdec, aligned and encdec

encoding = tokenizer.encode(text, max_len=att.MAX_CHARS)
for note in encoding.notices(att.MAX_CHARS):
    st.info(note)
if not encoding.ids:
    st.info(f"There is no text to read: type 1 to {att.MAX_CHARS} characters (for example `{DEFAULT_TEXT}`).")
    st.stop()
ids = tuple(encoding.ids)
if len(ids) == 1:
    st.caption("With a single character every matrix below is tiny; longer text shows the patterns better.")

model = _model(arch)

# --- 1. the pipeline ----------------------------------------------------------------------------------
st.subheader("1 · Text, tokens, ids, vectors (slides 18, 21)", anchor=False)
st.markdown(f"Tokenizer: **{tokenizer.NAME}**. One character is one token; the id is its row in the "
            f"embedding table E ({tokenizer.VOCAB_SIZE} rows: `<pad>`, `<bos>` and the alphabet).")
table = pd.DataFrame([["␣" if c == " " else c for c in encoding.characters],
                      [tokenizer.label(i) for i in ids], [str(i) for i in ids]],
                     index=["character", "token", "id"], columns=[f"t={t}" for t in range(len(ids))])
st.dataframe(table, width="stretch")
if model is not None:
    path, stamp, sidecar = model
    detail = att.config_text(sidecar)
    render.figure(_embedding_figure(path, stamp, ids, detail), key="attention-embeddings",
                  notice="h⁽⁰⁾ₜ = E[iₜ] + pₜ (slide 21). A repeated character takes the same row of E every time "
                         "(left), but each position adds its own row pₜ (middle), so the vectors entering layer 1 "
                         "differ (right): the model knows both what and where.")

# --- 2. the masks ---------------------------------------------------------------------------------------
st.subheader("2 · Who may read whom: the masks (slides 23-37, 50)", anchor=False)
gallery, combined, wiring = _mask_figures(arch, ids, causal_input, aligned)
gallery_notice = {
    "encoder_decoder": "Three roles (slide 22): encoder self-attention is full, every input token reads every other "
                       "(slide 23); decoder self-attention is lower-triangular, M_ij = -inf for j > i (slide 25); "
                       "cross-attention lets every target position read every input position (slide 27).",
    "encoder": "One bidirectional stack over a fixed window of slots (slide 32): the text, then `<pad>` tokens. "
               "Every slot reads every other, and a task head labels each slot. This simple encoder-only model "
               "has no built-in way to generate token by token (one can be added, but then it is no longer this "
               "model), so the reversed text is read off the last slots.",
    "decoder": "One causal stack over [input ; `<bos>` ; target] (slide 37): each position reads itself and what "
               "came before, so the target reads all of the input but the input never reads the target.",
    "prefix_lm": "One stack, two rules: the input and `<bos>` form a bidirectional prefix, the target after it is "
                 "causal. A prefix-LM sits between decoder-only and encoder-decoder.",
}[arch]
render.figure(gallery, key="attention-masks",
              notice=gallery_notice + " Empty cells are forbidden: softmax gives them weight exactly 0. Target "
                                      "labels here assume the right answer.")
if combined is not None:
    render.figure(combined, key="attention-combined",
                  notice="The whole [input ; target] sequence in one matrix, the way slide 37 lays it out. "
                         "Decoder-only is one causal triangle; a prefix-LM makes the input block bidirectional; "
                         "an encoder-decoder splits the triangle into an input block (bidirectional, or causal "
                         "after step 4), a cross block and a causal target block. In none of them does the input "
                         "read the target.")
else:
    st.caption("An encoder-only model has no target tokens in its sequence, so its [input ; target] view is the "
               "single bidirectional block above; the task head turns each slot's final vector into a label.")
if wiring is not None:
    render.figure(wiring, key="attention-wiring",
                  notice="Slide 28: every decoder layer reads the encoder's final output. Step 3 (slides 47, 63) "
                         "lets decoder layer l read what encoder layer l reads instead; step 4 (slide 50) makes "
                         "the input causal and numbers the target positions after the input. Together they make "
                         "the encoder-decoder wire up like one decoder-only stack.")
else:
    st.caption("The step-3 and step-4 variants rewire an encoder-decoder; choose Encoder-decoder to draw them.")

# --- 3. the trained model -------------------------------------------------------------------------------
st.subheader("3 · What a trained model reads: real attention weights", anchor=False)
if model is None:
    st.info("The attention weights appear here when the demo model is ready.")
    st.stop()
if causal_input or aligned:
    st.caption(":orange[The variant toggles change the schematic figures above; the weights below come from the "
               "standard encoder-decoder demo model (the four-steps page trains the variants).]")
read = _read(path, stamp, ids)
_output_panel(read, sidecar)
overview_role = "cross" if arch == "encoder_decoder" else next(iter(read["roles"]))
render.figure(figs.frame_head(_overview(path, stamp, ids, overview_role, detail), layer - 1, head - 1, N_HEADS),
              key="attention-heads",
              notice="Where to look: every layer and head at once, the one picked above framed. A head that "
                     "concentrates its weight draws a sharp line (for reversal, the anti-diagonal); others "
                     "spread it. Different heads of one layer often split the work.")
render.figure(_weights_figure(path, stamp, ids, layer - 1, head - 1, detail), key="attention-weights",
              notice="Each row is one query's softmax over the keys its mask allows: it sums to 1, and the empty "
                     "cells are exactly 0. To reverse, output t reads input n-1-t: look for the anti-diagonal "
                     "(in the encoder-decoder it shows in the cross-attention, target position t reading input "
                     "n-1-t). Weights show where a model looked, not why. Hover a cell for the query, "
                     "the key and the weight.")
