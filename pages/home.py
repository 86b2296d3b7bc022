"""Home: the lecture's argument as a chain, each link pointing to the page that measures it."""

import streamlit as st

from explorer.figures.home import argument_chain
from explorer.lecture_map import STAGES, pages_in_stage
from ui import render
from ui.frame import header, page_link

header("home")
st.markdown(
    "Hyung Won Chung's lecture *Shaping the future of AI from the history of Transformer* (Stanford CS25, "
    "2024) reads architecture history as a record of one force at work: compute gets cheaper every year, "
    "so structure that helped when compute was scarce turns into a ceiling, and the field removes it. "
    "Each page here takes one link of that chain and puts real numbers on it: historical data with its "
    "sources, small Transformers trained on this machine, and exact counts."
)
render.figure(argument_chain(), key="chain",
              notice="Read left to right: a driving force, what it does to structure, the architectures it "
                     "reshaped, and what they cost to serve.")

for stage in STAGES:
    with st.container(border=True):
        st.subheader(f"{stage.title} · slides {stage.slides}")
        st.write(stage.claim)
        links = pages_in_stage(stage.key)
        for info in links:
            page_link(info.slug)
        if not links:
            st.caption("No page for this link yet.")

st.divider()
st.caption("Every figure carries a badge: **measured** (real runs, with seed and config), **simulation** (a "
           "model solved numerically), **historical data** (rows with sources), **fit** (a line through data), "
           "**extrapolation** (a fit carried past its data: dashed or hatched), **formula** (exact count), **by construction** (true whatever the weights), **schematic** (an "
           "idea, no data).")
