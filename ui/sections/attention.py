"""The attention page's sections under its first screen: what a trained demo model reads, the whole sequence in
one matrix with the step-3/4 wiring, the text's tokens and vectors, and the four real-text models reading the
student's own sentence. Each runs only while its tab is open."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Callable

import csv
import io

import streamlit as st

from explorer import checkpoints, i18n, tokenizer
from explorer.experiments import attention as att, attention_view as view
from explorer.figures import attention as figs, realtext as real_figs
from explorer.realtext import reading, training
from ui import jobs, params, render
from ui.text import say, t

ON_DEMAND_LIMIT_S = 480.0  # a missing model trains for at most this long (the full recipe fits on a free server)
SPEC = att.demo_spec("encoder_decoder")  # every demo model has the same depth and head count
N_LAYERS, N_HEADS = SPEC.model.n_layers, SPEC.model.n_heads

Model = tuple[str, int, dict]  # (path, stamp, sidecar) of a demo model's file


@st.cache_resource(show_spinner=False)
def _load(path: str, stamp: int):
    """One shared, read-only model per checkpoint file version (`stamp` = its modification time)."""
    return checkpoints.load(path)


@st.cache_data(show_spinner=False, max_entries=256)
def _read(path: str, stamp: int, ids: tuple[int, ...]) -> dict:
    model, _ = _load(path, stamp)
    return att.read_text(model, ids)


# Figures are cached per model, text and (where it matters) layer and head; their words are in the page's language,
# so the language is part of each key (`lang`).
@st.cache_data(show_spinner=False, max_entries=128)
def _embedding_figure(path: str, stamp: int, ids: tuple[int, ...], detail: str, lang: str):
    model, _ = _load(path, stamp)
    return figs.embedding_figure(att.embedding_rows(model, ids), detail)


@st.cache_data(show_spinner=False, max_entries=128)
def _sequence_figures(arch: str, ids: tuple[int, ...], causal_input: bool, aligned: bool, lang: str) -> tuple:
    """The combined [input ; target] view (None for encoder-only) and the wiring (None unless encoder-decoder)."""
    inputs, targets, _ = view.labels(arch, ids)
    n_in, m = len(inputs), len(targets)
    combined = (
        figs.combined_view(arch, att.combined_categories(arch, n_in, m, causal_input), inputs + targets, n_in)
        if m
        else None
    )
    wiring = figs.wiring_figure(att.wiring(N_LAYERS, aligned, causal_input)) if arch == "encoder_decoder" else None
    return combined, wiring


@st.cache_data(show_spinner=False, max_entries=128)
def _overview(path: str, stamp: int, ids: tuple[int, ...], role: str, detail: str, lang: str):
    return figs.head_overview(_read(path, stamp, ids), role, detail)


@st.cache_data(show_spinner=False, max_entries=256)
def _weights_figure(path: str, stamp: int, ids: tuple[int, ...], layer: int, head: int, detail: str, lang: str):
    return figs.attention_maps(_read(path, stamp, ids), layer, head, detail)


def _model(arch: str) -> Model | None:
    """(path, stamp, sidecar) of the demo model, training it in the background when no file is there."""
    path = att.find_demo(arch)
    if path is not None:
        try:
            stamp = path.stat().st_mtime_ns
            with st.spinner(t("loading-model")):
                _, sidecar = _load(str(path), stamp)
            return str(path), stamp, sidecar
        except (ValueError, OSError) as err:
            st.warning(t("load-failed", name=path.name, error=err))
    name = figs.arch_name(arch)
    st.info(t("not-on-disk", name=name))
    result = jobs.run_in_background(
        f"attention-demo-{arch}",
        lambda progress: att.train_on_demand(arch, progress),
        label=t("train-label", name=name),
        time_limit_s=ON_DEMAND_LIMIT_S,
        button=t("train-button", name=name, limit=ON_DEMAND_LIMIT_S),
    )
    if result is None:
        return None
    path = Path(result["path"])
    stamp = path.stat().st_mtime_ns
    return str(path), stamp, _load(str(path), stamp)[1]


def demo_model(arch: str) -> Callable[[], Model | None]:
    """The demo model, looked up once per run when a section first asks: that (open) section tells that the
    model is missing and trains it on demand, and a later one (all sections open) shares what it found."""
    return cache(lambda: _model(arch))


def _output_panel(read: dict, sidecar: dict) -> None:
    """What the model wrote against the right answer, and how often it is right on held-out strings."""
    said = view.output_summary(read, sidecar.get("meta", {}))
    c1, c2, c3 = st.columns(3)
    c1.markdown(f"{t('out-input')}  \n`{said['input']}`")
    c2.markdown(f"{t('out-expected')}  \n`{said['expected']}`")
    c3.markdown(f"{t('out-model', verdict=said['verdict'])}  \n`{said['output']}`")
    if said["wrong"]:
        st.caption(t("wrong", shown=said["wrong"], more=said["more"]))
    if (accuracy := view.accuracy_caption(said)) is not None:
        st.caption(accuracy)


def weights(arch: str, ids: tuple[int, ...], model: Model | None, variant: bool) -> None:
    """What a trained model reads: its output, every head at a glance, and one head's weights."""
    say("models-intro")
    if model is None:
        st.info(t("weights-wait"))
        return
    if variant:
        st.caption(t("variants-caption"))
    path, stamp, sidecar = model
    detail = att.config_text(sidecar)
    read = _read(path, stamp, ids)
    _output_panel(read, sidecar)
    render.figure(
        _overview(path, stamp, ids, view.overview_role(arch, read), detail, i18n.current()),
        key="attention-heads",
        notice=t("heads-notice"),
    )
    _one_head(path, stamp, ids, detail)


@st.fragment
def _one_head(path: str, stamp: int, ids: tuple[int, ...], detail: str) -> None:
    """One head's weights, large; its two sliders rerun only this part, so a move redraws one figure, not the
    overview's grid of maps as well."""
    row = st.columns(2, gap="large")
    layer = params.slider(t("label-layer"), "layer", 1, N_LAYERS, N_LAYERS, where=row[0])
    head = params.slider(t("label-head"), "head", 1, N_HEADS, 1, where=row[1])
    render.figure(
        _weights_figure(path, stamp, ids, layer - 1, head - 1, detail, i18n.current()),
        key="attention-weights",
        notice=t("weights-notice"),
    )


def sequence(arch: str, ids: tuple[int, ...], causal_input: bool, aligned: bool) -> None:
    """The whole [input ; target] sequence in one matrix (slide 37) and the step-3/4 wiring."""
    combined, wiring = _sequence_figures(arch, ids, causal_input, aligned, i18n.current())
    if combined is not None:
        render.figure(combined, key="attention-combined", notice=t("combined-notice"))
    else:
        st.caption(t("encoder-combined"))
    if wiring is not None:
        render.figure(wiring, key="attention-wiring", notice=t("wiring-notice"))
    else:
        st.caption(t("wiring-caption"))


def tokens(encoding: tokenizer.Encoding, ids: tuple[int, ...], model: Model | None) -> None:
    """Text, tokens, ids and the vectors entering layer 1 (slides 18, 21)."""
    say("tokenizer", name=tokenizer.display_name(), vocab=tokenizer.VOCAB_SIZE)
    st.dataframe(view.token_table(encoding), width="stretch")
    if model is not None:
        path, stamp, sidecar = model
        render.figure(
            _embedding_figure(path, stamp, ids, att.config_text(sidecar), i18n.current()),
            key="attention-embeddings",
            notice=t("embedding-notice"),
        )


# --- Real text: the four real-text models (explorer.realtext) on the student's own sentence --------------------
REAL_DEFAULT_TEXT = {
    "en": "And God said, Let there be light: and there was light.",
    "zh": "春风又绿江南岸，明月何时照我还。",
}
REAL_ORDER = ("decoder", "encoder", "prefix_lm", "encoder_decoder")


@st.cache_resource(show_spinner=False)
def _rt_models() -> dict:
    """arch -> (model, sidecar, tokenizer), loaded once per server; a missing or broken file is reported as text."""
    out = {}
    for arch in REAL_ORDER:
        try:
            out[arch] = training.load(arch)
        except (FileNotFoundError, ValueError, OSError) as err:
            out[arch] = str(err)
    return out


@st.cache_data(show_spinner=False, max_entries=64)
def _rt_readings(text: str) -> list[reading.Reading]:
    models = _rt_models()
    return [reading.read(models[a][0], models[a][2], text) for a in REAL_ORDER]


@st.cache_data(show_spinner=False, max_entries=64)
def _rt_guesses(text: str) -> tuple[dict, list[dict]]:
    models = _rt_models()
    dec, enc = models["decoder"], models["encoder"]
    return reading.next_token_guesses(dec[0], dec[2], text), reading.masked_guesses(enc[0], enc[2], text)


@st.cache_data(show_spinner=False, max_entries=128)
def _rt_figure(text: str, layer: int, head: int, lang: str):
    return real_figs.four_models(_rt_readings(text), layer, head, t("real-detail"))


def _rt_csv(text: str) -> bytes:
    out = io.StringIO()
    csv.writer(out).writerows(reading.csv_rows(_rt_readings(text)))
    return out.getvalue().encode()


def real_text() -> None:
    """The Real text tab: four real-text models read the student's sentence."""
    say("real-intro")
    models = _rt_models()
    missing = {a: m for a, m in models.items() if isinstance(m, str)}
    if missing:
        for arch, err in missing.items():
            st.warning(t("real-missing", name=figs.arch_name(arch), arch=arch, error=err))
        return
    lang = i18n.current()
    default = REAL_DEFAULT_TEXT.get(lang, REAL_DEFAULT_TEXT["en"])
    text = params.text(t("real-label-text", max=reading.MAX_TOKENS), "rt_text", default, max_chars=reading.MAX_TOKENS)
    tok = models["decoder"][2]
    enc = tok.encode(text, max_len=reading.MAX_TOKENS)
    if not enc.ids:
        st.info(t("real-empty", example=default))
        return
    if enc.unknown:
        shown = " ".join(c if c.isprintable() else f"U+{ord(c):04X}" for c in enc.unknown[:8])
        st.info(t("real-unknown", shown=shown))
    say("real-tokens", vocab=tok.vocab_size, n=len(enc.ids))
    st.dataframe(reading.token_table(tok, enc.ids), hide_index=True)
    _rt_attention(text)
    _rt_named(text)
    _rt_guesses_panel(text)
    _rt_about(models)


@st.fragment
def _rt_attention(text: str) -> None:
    """The four panels; the two sliders rerun only this part."""
    deepest = max(r.attention.shape[0] for r in _rt_readings(text))
    heads = _rt_readings(text)[0].attention.shape[1]
    row = st.columns(2, gap="large")
    layer = params.slider(t("label-layer"), "rt_layer", 1, deepest, 1, where=row[0])
    head = params.slider(t("label-head"), "rt_head", 1, heads, 1, where=row[1])
    render.figure(
        _rt_figure(text, layer - 1, head - 1, i18n.current()), key="attention-real-text", notice=t("real-notice")
    )
    st.download_button(
        t("real-csv"),
        data=lambda: _rt_csv(text),
        file_name="attention-real-text-weights.csv",
        mime="text/csv",
        key="real-text-csv",
        on_click="ignore",
    )


def _rt_named(text: str) -> None:
    rows = []
    for r in _rt_readings(text):
        for h in reading.named_heads(r.patterns):
            rows.append(
                {
                    t("real-col-model"): figs.arch_name(r.arch),
                    t("real-col-layer"): h["layer"] + 1,
                    t("real-col-head"): h["head"] + 1,
                    t("real-col-pattern"): t(f"real-pattern-{h['name'].replace('_', '-')}"),
                    t("real-col-score"): f"{h['score']:.0%}",
                }
            )
    say("real-named", at=f"{reading.NAMED_AT:.0%}")
    if rows:
        st.dataframe(rows, width="stretch", hide_index=True)
    else:
        st.caption(t("real-none-named"))


def _rt_guesses_panel(text: str) -> None:
    nxt, masked = _rt_guesses(text)
    left, right = st.columns(2, gap="large")
    with left:
        say("real-next")
        st.dataframe(
            [{t("real-col-token"): g["token"], "p": f"{g['p']:.1%}"} for g in nxt["top"]],
            hide_index=True,
            width="stretch",
        )
        st.markdown(t("real-continuation", text=_code(nxt["continuation"])))
    with right:
        right_count = sum(m["right"] for m in masked)
        say("real-masked", right=right_count, n=len(masked))
        st.dataframe(
            [
                {
                    t("real-col-token"): m["token"],
                    t("real-col-guess"): " · ".join(f"{g['token']} {g['p']:.0%}" for g in m["top"]),
                    "✓": "✓" if m["right"] else "",
                }
                for m in masked
            ],
            hide_index=True,
            width="stretch",
            height=300,
        )


def _rt_about(models: dict) -> None:
    """What each model is: the same width and heads, its size, held-out loss per language, and what it writes."""
    say("real-about")
    rows = []
    for arch in REAL_ORDER:
        _, sidecar, _ = models[arch]
        meta = sidecar["meta"]
        loss = meta["held_out_loss"]
        rows.append(
            {
                t("real-col-model"): figs.arch_name(arch),
                t("real-col-params"): f"{meta['parameters']:,}",
                "MB": f"{sidecar['bytes'] / 1e6:.2f}",
                t("real-col-loss-en"): f"{loss['en']:.2f}",
                t("real-col-loss-zh"): f"{loss['zh']:.2f}",
                t("real-col-steps"): meta["steps_done"],
            }
        )
    st.dataframe(rows, width="stretch", hide_index=True)
    say("real-samples")
    for arch in REAL_ORDER:
        lines = [_rt_sample(s) for s in models[arch][1]["meta"].get("samples", [])]
        st.markdown(f"**{figs.arch_name(arch)}**  \n" + "  \n".join(lines))
    st.caption(t("real-about-caption"))


def _code(text: str) -> str:
    """A model's text as one Markdown code span: no backtick can close it, a line break shows as ⏎."""
    return "`" + text.replace("`", "'").replace("\n", "⏎") + "`"


def _rt_sample(sample: dict) -> str:
    """One sample: a prompt and what the model wrote after it, or a masked text and its filling."""
    if "prompt" in sample:
        return f"{_code(sample['prompt'])} → {_code(sample['continuation'])}"
    return f"{_code(sample['masked'])} → {_code(sample['filled'])} ({sample['right']})"
