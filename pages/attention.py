"""Attention masks: who may read whom in each architecture, and what a trained model reads (slides 17-37, 50, 62-63)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from explorer import checkpoints, tokenizer
from explorer.experiments import attention as att
from explorer.figures import attention as figs
from ui import jobs, layout, params, render
from ui.frame import header
from ui.text import say, t

DEFAULT_TEXT = "hello world"
ON_DEMAND_LIMIT_S = 480.0  # a missing model trains for at most this long (the full recipe fits on a free server)
SPEC = att.demo_spec("encoder_decoder")  # every demo model has the same depth and head count
N_LAYERS, N_HEADS = SPEC.model.n_layers, SPEC.model.n_heads
ARCH_BY_NAME = {att.ARCH_NAMES[a]: a for a in att.ARCHS}
FIRST_SCREEN_HEIGHT = 520  # px: the masks whole on a 1440x900 screen, even for 16 characters


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


def _layout(arch: str, ids: tuple[int, ...]) -> tuple[list[str], list[str], dict]:
    """Input labels, target labels and each role's axes; target labels assume the right answer."""
    x_ids, target_side = att.expected_layout(arch, ids)
    return att.layout_labels(arch, x_ids, target_side)


@st.cache_data(show_spinner=False, max_entries=128)
def _masks(arch: str, ids: tuple[int, ...], causal_input: bool) -> tuple:
    """The slide's figure, every role's mask, and (allowed, all) query-key pairs over [input ; target]."""
    inputs, targets, axes = _layout(arch, ids)
    n_in, m = len(inputs), len(targets)
    gallery = figs.mask_gallery(arch, att.role_categories(arch, n_in, m, causal_input), axes,
                                height=FIRST_SCREEN_HEIGHT)
    codes = att.combined_categories(arch, n_in, m, causal_input)
    return gallery, int((codes != att.BLOCKED).sum()), int(codes.size)


@st.cache_data(show_spinner=False, max_entries=128)
def _sequence_figures(arch: str, ids: tuple[int, ...], causal_input: bool, aligned: bool) -> tuple:
    """The combined [input ; target] view (None for encoder-only) and the wiring (None unless encoder-decoder)."""
    inputs, targets, _ = _layout(arch, ids)
    n_in, m = len(inputs), len(targets)
    combined = figs.combined_view(arch, att.combined_categories(arch, n_in, m, causal_input), inputs + targets,
                                  n_in) if m else None
    wiring = figs.wiring_figure(att.wiring(N_LAYERS, aligned, causal_input)) if arch == "encoder_decoder" else None
    return combined, wiring


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
            st.warning(t("load-failed", name=path.name, error=err))
    name = att.ARCH_NAMES[arch]
    st.info(t("not-on-disk", name=name))
    result = jobs.run_in_background(f"attention-demo-{arch}", lambda progress: _train_on_demand(arch, progress),
                                    label=f"Training the {name} demo model", time_limit_s=ON_DEMAND_LIMIT_S,
                                    button=f"Train the {name} demo model (up to {ON_DEMAND_LIMIT_S:.0f} s)")
    if result is None:
        return None
    path = Path(result["path"])
    stamp = path.stat().st_mtime_ns
    return str(path), stamp, _load(str(path), stamp)[1]


def _output_panel(read: dict, sidecar: dict) -> None:
    """What the model wrote against the right answer, and how often it is right on held-out strings."""
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
        st.caption(t("wrong", shown=shown, more=more))
    if acc:
        stopped = meta.get("training", {}).get("stopped")
        note = " " + t("stopped-at-limit") if stopped == "time_budget" else ""
        st.caption(t("accuracy", strings=acc["strings"], max=att.MAX_CHARS, chars=acc["char_accuracy"],
                     exact=acc["exact_match"], note=note))




def _takeaway(arch: str, causal_input: bool, allowed: int, cells: int, slots: int) -> None:
    """One sentence under the masks: how many query-key pairs the mask allows, and who reads whom."""
    values = dict(allowed=allowed, cells=cells, share=allowed / cells)
    if arch == "encoder":
        say("takeaway-encoder", cells=cells, slots=slots)
    elif arch == "decoder":
        say("takeaway-decoder", **values)
    elif arch == "prefix_lm":
        say("takeaway-prefix-lm", **values)
    elif causal_input:
        say("takeaway-encoder-decoder-causal", **values)
    else:
        say("takeaway-encoder-decoder", **values)


@st.fragment
def _weights_section(arch: str, ids: tuple[int, ...], model: tuple[str, int, dict] | None,
                     variant: bool) -> None:
    """What a trained model reads: its output, every head at a glance, and one head's weights."""
    say("models-intro")
    row = st.columns(2, gap="large")
    layer = params.slider("Layer", "layer", 1, N_LAYERS, N_LAYERS, where=row[0])
    head = params.slider("Head", "head", 1, N_HEADS, 1, where=row[1])
    if model is None:
        st.info(t("weights-wait"))
        return
    if variant:
        st.caption(t("variants-caption"))
    path, stamp, sidecar = model
    detail = att.config_text(sidecar)
    read = _read(path, stamp, ids)
    _output_panel(read, sidecar)
    overview_role = "cross" if arch == "encoder_decoder" else next(iter(read["roles"]))
    render.figure(figs.frame_head(_overview(path, stamp, ids, overview_role, detail), layer - 1, head - 1, N_HEADS),
                  key="attention-heads", notice=t("heads-notice"))
    render.figure(_weights_figure(path, stamp, ids, layer - 1, head - 1, detail), key="attention-weights",
                  notice=t("weights-notice"))


def _sequence_section(arch: str, ids: tuple[int, ...], causal_input: bool, aligned: bool) -> None:
    """The whole [input ; target] sequence in one matrix (slide 37) and the step-3/4 wiring."""
    combined, wiring = _sequence_figures(arch, ids, causal_input, aligned)
    if combined is not None:
        render.figure(combined, key="attention-combined", notice=t("combined-notice"))
    else:
        st.caption(t("encoder-combined"))
    if wiring is not None:
        render.figure(wiring, key="attention-wiring", notice=t("wiring-notice"))
    else:
        st.caption(t("wiring-caption"))


def _tokens_section(encoding: tokenizer.Encoding, ids: tuple[int, ...],
                    model: tuple[str, int, dict] | None) -> None:
    """Text, tokens, ids and the vectors entering layer 1 (slides 18, 21)."""
    say("tokenizer", name=tokenizer.NAME, vocab=tokenizer.VOCAB_SIZE)
    table = pd.DataFrame([["␣" if c == " " else c for c in encoding.characters],
                          [tokenizer.label(i) for i in ids], [str(i) for i in ids]],
                         index=["character", "token", "id"], columns=[f"t={t}" for t in range(len(ids))])
    st.dataframe(table, width="stretch")
    if model is not None:
        path, stamp, sidecar = model
        render.figure(_embedding_figure(path, stamp, ids, att.config_text(sidecar)), key="attention-embeddings",
                      notice=t("embedding-notice"))


header("attention")
say("lead")
figure_col, controls_col = layout.stage(figure_share=4)  # three mask panels side by side need the width
with controls_col:
    # the options are the display names: Streamlit writes a widget's formatted label into the URL
    picked = params.choice("Architecture", "arch", list(ARCH_BY_NAME), att.ARCH_NAMES["encoder_decoder"],
                           widget="radio")
    arch = ARCH_BY_NAME[picked]
    text = params.text(f"Your text (at most {att.MAX_CHARS} characters)", "text", DEFAULT_TEXT,
                       max_chars=att.MAX_CHARS, help=t("help-text", name=tokenizer.NAME))
    encdec = arch == "encoder_decoder"
    only = "" if encdec else " " + t("only-encoder-decoder")
    with st.expander("More settings: steps 3 and 4 of the encoder-decoder"):
        causal_input = params.toggle("Step 4: causal input", "causal_input", False, disabled=not encdec,
                                     help=t("help-causal", only=only))
        aligned = params.toggle("Step 3: decoder layer l reads encoder layer l", "aligned", False,
                                disabled=not encdec, help=t("help-aligned", only=only))
causal_input, aligned = causal_input and encdec, aligned and encdec

encoding = tokenizer.encode(text, max_len=att.MAX_CHARS)
ids = tuple(encoding.ids)
with figure_col:
    for note in encoding.notices(att.MAX_CHARS):
        st.info(note)
    if not ids:
        st.info(t("no-text", max=att.MAX_CHARS, example=DEFAULT_TEXT))
        st.stop()
    gallery, allowed, cells = _masks(arch, ids, causal_input)
    render.figure(gallery, key="attention-masks",
                  notice=t(f"masks-notice-{arch.replace('_', '-')}") + " " + t("masks-empty-cells"))
    _takeaway(arch, causal_input, allowed, cells, slots=len(_layout(arch, ids)[0]))
    if len(ids) == 1:
        st.caption(t("single-character"))

weights_tab, sequence_tab, tokens_tab = layout.sections(
    ["What a trained model reads", "One sequence, one matrix", "Text, tokens and vectors"])
model = None
if weights_tab or tokens_tab:
    with weights_tab or tokens_tab:  # the open one tells that the model is missing, and trains it on demand
        model = _model(arch)
if weights_tab:
    with weights_tab:
        _weights_section(arch, ids, model, causal_input or aligned)
if sequence_tab:
    with sequence_tab:
        _sequence_section(arch, ids, causal_input, aligned)
if tokens_tab:
    with tokens_tab:
        _tokens_section(encoding, ids, model)
