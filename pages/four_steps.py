"""Four steps to decoder-only (slides 40-55): real models at every step, their differences measured."""

from __future__ import annotations

import streamlit as st

from explorer.experiments import four_steps as fs
from explorer.experiments import four_steps_view as view
from explorer.figures import four_steps as figs
from explorer.steps import FINAL_STEP
from ui import layout, params, render
from ui.frame import header
from ui.sections import four_steps as sections
from ui.sections import ladder
from ui.text import say, t

FIRST_SCREEN_HEIGHT = 450  # px: the weights and the masks side by side, whole on a 1440x900 screen
MASK_LEGEND_PX = 50  # the mask's legend sits under its cells: as much taller, the cells as large
CONTROL_SHARES = [3, 1]  # the step slider across most of the width, the sizes beside it

header("four-steps")
say("lead")
# the controls in a row above the figures: the weights and the masks share the page's width, side by side
step_col, sizes_col = st.columns(CONTROL_SHARES, vertical_alignment="bottom")
# plain numbers: Streamlit binds a select_slider with format_func to the URL by its label, not its value
step = params.slider(t("label-step"), "step", 0, FINAL_STEP, 0, help=view.step_help(), where=step_col)
with sizes_col.expander(t("sizes-expander")):
    depth = params.slider(t("label-depth"), "depth", *fs.DEPTH_RANGE, fs.DEFAULT_SIZES["depth"])
    width = params.select_slider(t("label-width"), "width", fs.WIDTHS, fs.DEFAULT_SIZES["width"])
    heads = params.select_slider(t("label-heads"), "heads", fs.HEADS, fs.DEFAULT_SIZES["heads"])
sizes = (depth, width, heads)
try:
    base, refused = fs.base_config(*sizes), None
    counts = render.built_once(("counts", *sizes), lambda: fs.parameter_counts(base))
except ValueError as err:
    base = counts = None
    refused = t("sizes-refused", err=err)
    st.warning(refused)

# steps 1-3 change no mask: the weights show what they change (shared blocks, which level is read), the masks
# what steps 4 and 5 change; stacked on a phone
weights_col, masks_col = st.columns(2)
with weights_col:
    render.figure(
        render.built_once(
            ("weights", step, depth), lambda: figs.weights(**view.weights(step, depth), height=FIRST_SCREEN_HEIGHT)
        ),
        key="four-steps-weights",
        notice=t("weights-notice"),
    )
with masks_col:
    render.figure(
        render.built_once(
            ("mask", step),
            lambda: figs.mask_against_decoder(
                *view.mask_first_screen(step), height=FIRST_SCREEN_HEIGHT + MASK_LEGEND_PX
            ),
        ),
        key="four-steps-mask",
        notice=t("mask-notice"),
    )
say("takeaway", **view.takeaway(step), text=t(f"step-{step}"))

layout.show_sections(
    {
        t("tab-why"): sections.why,
        t("tab-table"): lambda: sections.comparison(step, base, counts, sizes, refused),
        t("tab-check"): lambda: sections.numeric_check(step, base, counts, refused),
        t("tab-ablation"): lambda: sections.ablation(sizes),
        t("tab-shared"): sections.shared_parameters,
        t("tab-ladder"): lambda: ladder.hold_at_scale("four-steps"),
        t("tab-ladder-shared"): lambda: ladder.hold_at_scale("shared-params"),
    }
)
