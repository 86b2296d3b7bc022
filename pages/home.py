"""Home: the lecture's argument as a chain, each link pointing to the page that measures it."""

import streamlit as st

from explorer.figures.home import argument_chain
from explorer.lecture_map import STAGES, pages_in_stage, slides_label
from ui import layout, render
from ui.frame import header, page_link
from ui.text import say, t


def _stages() -> None:
    """The argument's stages, each with the pages that measure it."""
    for stage in STAGES:
        with st.container(border=True):
            st.subheader(f"{stage.title} · {slides_label(stage.slides)}")
            st.write(stage.claim)
            links = pages_in_stage(stage.key)
            for info in links:
                page_link(info.slug)
            if not links:
                st.caption(t("no-page"))


header("home")
say("lead")
render.figure(argument_chain(), key="chain", notice=t("chain-notice"))
say("takeaway")
page_link("path", t("start-path"))
page_link("glossary", t("glossary-link"))
page_link("class", t("class-link"))

layout.show_sections({t("tab-pages"): _stages, t("tab-badges"): lambda: say("badges")})
