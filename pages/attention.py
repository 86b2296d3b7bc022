"""Attention masks: who may read whom in each architecture, and what a trained model reads (slides 17-37, 50, 62-63)."""

from __future__ import annotations

import streamlit as st

from explorer import i18n, tokenizer
from explorer.experiments import attention as att, attention_view as view
from explorer.figures import attention as figs
from ui import layout, params, render
from ui.frame import header
from ui.sections import attention as sections
from ui.text import say, t

DEFAULT_TEXT = "hello world"
FIRST_SCREEN_HEIGHT = 520  # px: the masks whole on a 1440x900 screen, even for 16 characters


@st.cache_data(show_spinner=False, max_entries=128)
def _masks(arch: str, ids: tuple[int, ...], causal_input: bool, lang: str):
    """The slide's figure: every role's mask."""
    inputs, targets, axes = view.labels(arch, ids)
    return figs.mask_gallery(
        arch, att.role_categories(arch, len(inputs), len(targets), causal_input), axes, height=FIRST_SCREEN_HEIGHT
    )


header("attention")
say("lead")
figure_col, controls_col = layout.stage(figure_share=4)  # three mask panels side by side need the width
with controls_col:
    # the options are the architectures, shown by their display names: Streamlit writes a widget's formatted
    # label into the URL (`arch=Encoder-decoder`), and ui.params reads the labels of every language
    arch = params.choice(
        t("label-arch"), "arch", att.ARCHS, "encoder_decoder", widget="radio", format_func=figs.arch_name
    )
    text = params.text(
        t("label-text", max=att.MAX_CHARS),
        "text",
        DEFAULT_TEXT,
        max_chars=att.MAX_CHARS,
        help=t("help-text", name=tokenizer.display_name()),
    )
    encdec = arch == "encoder_decoder"
    only = view.variants_note(arch)
    with st.expander(t("settings-expander")):
        causal_input = params.toggle(
            t("label-causal"), "causal_input", False, disabled=not encdec, help=t("help-causal", only=only)
        )
        aligned = params.toggle(
            t("label-aligned"), "aligned", False, disabled=not encdec, help=t("help-aligned", only=only)
        )
causal_input, aligned = causal_input and encdec, aligned and encdec

encoding = tokenizer.encode(text, max_len=att.MAX_CHARS)
ids = tuple(encoding.ids)
with figure_col:
    for note in encoding.notices(att.MAX_CHARS):
        st.info(note)
    if not ids:
        st.info(t("no-text", max=att.MAX_CHARS, example=DEFAULT_TEXT))
        st.stop()
    render.figure(
        _masks(arch, ids, causal_input, i18n.current()), key="attention-masks", notice=view.masks_notice(arch)
    )
    kind, values = view.takeaway(arch, causal_input, ids)
    say(f"takeaway-{kind}", **values)
    if len(ids) == 1:
        st.caption(t("single-character"))

model = sections.demo_model(arch)  # the first open section that needs it tells that it is missing, and trains it
layout.show_sections(
    {
        t("tab-weights"): lambda: sections.weights(arch, ids, model(), causal_input or aligned),
        t("tab-sequence"): lambda: sections.sequence(arch, ids, causal_input, aligned),
        t("tab-tokens"): lambda: sections.tokens(encoding, ids, model()),
        t("tab-real"): sections.real_text,
    }
)
