"""Length asymmetry (slides 56-58): who reads how many tokens, length profiles, and what a toy test can say."""

from __future__ import annotations

import streamlit as st

from explorer.experiments import lengths as ln
from explorer.experiments.lengths import view
from explorer.figures import lengths as figs
from ui import layout, params, render
from ui.frame import header, page_link
from ui.sections import length_asymmetry as sections
from ui.text import say, t

LENGTHS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048]
FIRST_SCREEN_HEIGHT = 520  # px: the allocation chart and its legend whole on a 1440x900 screen

header("lengths")
say("lead")
figure_col, controls_col = layout.stage()
with controls_col:
    lx = int(params.select_slider(t("label-lx"), "lx", LENGTHS, 256))
    ly = int(params.select_slider(t("label-ly"), "ly", LENGTHS, 16))
    d_model = params.select_slider(t("label-width"), "d", [64, 128, 256, 512, 768, 1024, 2048, 4096], 768)
    with st.expander(t("label-more")):
        layers = params.slider(t("label-layers"), "layers", 1, 48, 12)
        vocab = params.select_slider(
            t("label-vocab"), "vocab", [64, 1024, 32_000, 256_000], 32_000, format_func=lambda v: f"{v:,}"
        )
        st.caption(t("shape-caption", positions=f"{ln.POSITIONS:,}"))
shape = ln.Shape(d_model=int(d_model), n_layers=int(layers), vocab_size=int(vocab))
numbers = render.built_once(("numbers", shape, lx, ly), lambda: view.first_screen(shape, lx, ly))
with figure_col:
    # one token axis for every slider position (up to Lx + Ly at their largest): a length move changes the picture
    render.figure(
        render.built_once(
            ("allocation", shape, lx, ly, FIRST_SCREEN_HEIGHT),
            lambda: figs.allocation_chart(
                ln.allocation(shape, lx, ly), height=FIRST_SCREEN_HEIGHT, tokens_max=2 * max(LENGTHS)
            ),
        ),
        key="lengths-allocation",
        notice=t("allocation-notice", **numbers),
    )
    say("takeaway", **numbers)

layout.show_sections(
    {
        t("tab-claim"): sections.claim,
        t("tab-toy"): sections.toy,
        t("tab-cost"): lambda: sections.cost(shape, lx, ly, numbers),
        t("tab-profiles"): lambda: sections.profiles(shape),
        t("tab-how"): sections.how,
    }
)

st.divider()
page_link("four-steps", t("link-four-steps"))
page_link("cache", t("link-cache"))
