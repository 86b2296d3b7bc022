"""The attention page's "Real text" section: the four real-text models (explorer.realtext) reading the student's
own sentence, side by side with their masks; their named heads, the decoder's and the encoder's guesses, what
each model is (size, held-out loss, samples), and every weight as CSV."""

from __future__ import annotations

import csv
import io

import streamlit as st

from explorer import i18n
from explorer.realtext import reading, training
from explorer.figures import realtext as figs
from explorer.figures.attention import arch_name
from ui import params, render
from ui.text import say, t

DEFAULT_TEXT = {"en": "And God said, Let there be light: and there was light.", "zh": "春风又绿江南岸，明月何时照我还。"}
ORDER = ("decoder", "encoder", "prefix_lm", "encoder_decoder")


@st.cache_resource(show_spinner=False)
def _models() -> dict:
    """arch -> (model, sidecar, tokenizer), loaded once per server; a missing or broken file is reported as text."""
    out = {}
    for arch in ORDER:
        try:
            out[arch] = training.load(arch)
        except (FileNotFoundError, ValueError, OSError) as err:
            out[arch] = str(err)
    return out


@st.cache_data(show_spinner=False, max_entries=64)
def _readings(text: str) -> list[reading.Reading]:
    models = _models()
    return [reading.read(models[a][0], models[a][2], text) for a in ORDER]


@st.cache_data(show_spinner=False, max_entries=64)
def _guesses(text: str) -> tuple[dict, list[dict]]:
    models = _models()
    dec, enc = models["decoder"], models["encoder"]
    return reading.next_token_guesses(dec[0], dec[2], text), reading.masked_guesses(enc[0], enc[2], text)


@st.cache_data(show_spinner=False, max_entries=128)
def _figure(text: str, layer: int, head: int, lang: str):
    return figs.four_models(_readings(text), layer, head, t("real-detail"))


def _csv(text: str) -> bytes:
    out = io.StringIO()
    csv.writer(out).writerows(reading.csv_rows(_readings(text)))
    return out.getvalue().encode()


def section() -> None:
    say("real-intro")
    models = _models()
    missing = {a: m for a, m in models.items() if isinstance(m, str)}
    if missing:
        for arch, err in missing.items():
            st.warning(t("real-missing", name=arch_name(arch), arch=arch, error=err))
        return
    lang = i18n.current()
    text = params.text(t("real-label-text", max=reading.MAX_TOKENS), "rt_text", DEFAULT_TEXT.get(lang, DEFAULT_TEXT["en"]),
                       max_chars=reading.MAX_TOKENS)
    tok = models["decoder"][2]
    enc = tok.encode(text, max_len=reading.MAX_TOKENS)
    if not enc.ids:
        st.info(t("real-empty", example=DEFAULT_TEXT[lang if lang in DEFAULT_TEXT else "en"]))
        return
    if enc.unknown:
        st.info(t("real-unknown", shown=" ".join(c if c.isprintable() else f"U+{ord(c):04X}" for c in enc.unknown[:8])))
    _attention(text)
    _named(text)
    _guesses_panel(text)
    _about(models)


@st.fragment
def _attention(text: str) -> None:
    """The four panels; the two sliders rerun only this part."""
    deepest = max(r.attention.shape[0] for r in _readings(text))
    heads = _readings(text)[0].attention.shape[1]
    row = st.columns(2, gap="large")
    layer = params.slider(t("label-layer"), "rt_layer", 1, deepest, 1, where=row[0])
    head = params.slider(t("label-head"), "rt_head", 1, heads, 1, where=row[1])
    render.figure(_figure(text, layer - 1, head - 1, i18n.current()), key="attention-real-text",
                  notice=t("real-notice"))
    st.download_button(t("real-csv"), data=lambda: _csv(text), file_name="attention-real-text-weights.csv",
                       mime="text/csv", key="real-text-csv", on_click="ignore")


def _named(text: str) -> None:
    rows = []
    for r in _readings(text):
        for h in reading.named_heads(r.patterns):
            rows.append({t("real-col-model"): arch_name(r.arch), t("real-col-layer"): h["layer"] + 1,
                         t("real-col-head"): h["head"] + 1, t("real-col-pattern"): t(f"real-pattern-{h['name']}"),
                         t("real-col-score"): f"{h['score']:.0%}"})
    say("real-named", at=f"{reading.NAMED_AT:.0%}")
    if rows:
        st.dataframe(rows, width="stretch", hide_index=True)
    else:
        st.caption(t("real-none-named"))


def _guesses_panel(text: str) -> None:
    nxt, masked = _guesses(text)
    left, right = st.columns(2, gap="large")
    with left:
        say("real-next")
        st.dataframe([{t("real-col-token"): g["token"], "p": f"{g['p']:.1%}"} for g in nxt["top"]], hide_index=True,
                     width="stretch")
        st.markdown(t("real-continuation", text=nxt["continuation"].replace("`", "'")))
    with right:
        right_count = sum(m["right"] for m in masked)
        say("real-masked", right=right_count, n=len(masked))
        st.dataframe([{t("real-col-token"): m["token"],
                       t("real-col-guess"): " · ".join(f"{g['token']} {g['p']:.0%}" for g in m["top"]),
                       "✓": "✓" if m["right"] else ""} for m in masked], hide_index=True, width="stretch",
                     height=300)


def _about(models: dict) -> None:
    """What each model is: the same width and heads, its size, held-out loss per language, and what it writes."""
    say("real-about")
    rows = []
    for arch in ORDER:
        _, sidecar, _ = models[arch]
        meta = sidecar["meta"]
        loss = meta["held_out_loss"]
        rows.append({t("real-col-model"): arch_name(arch), t("real-col-params"): f"{meta['parameters']:,}",
                     "MB": f"{sidecar['bytes'] / 1e6:.2f}", t("real-col-loss-en"): f"{loss['en']:.2f}",
                     t("real-col-loss-zh"): f"{loss['zh']:.2f}", t("real-col-steps"): meta["steps_done"],
                     t("real-col-sample"): _sample(meta.get("samples", []))})
    st.dataframe(rows, width="stretch", hide_index=True)
    st.caption(t("real-about-caption"))


def _sample(samples: list[dict]) -> str:
    if not samples:
        return ""
    s = samples[0]
    if "prompt" in s:
        return f"{s['prompt']}|{s['continuation']}"
    return f"{s['masked']} → {s['filled']}"
