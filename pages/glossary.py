"""Glossary: the app's terms in Chinese and English, one line each, grouped under the page that shows them."""

import streamlit as st

from explorer import glossary
from explorer.figures.frames import PHONE
from explorer.figures.home import MAP_LINE_UNITS, glossary_map
from explorer.lecture_map import page, slides_label
from ui import appearance, layout, params, render
from ui.frame import header, page_link
from ui.text import say, t

FIND_KEY = "find"  # URL: ?find=cache shows the terms that mention it
PHONE_LINE_UNITS = 30  # a 390 px phone's row beside the page names, at the phone's 10 px term labels

header("glossary")
say("lead")
figure_col, controls_col = layout.stage()
with controls_col:
    query = params.text(t("find"), FIND_KEY, "", max_chars=40, help=t("find-help"))
found = glossary.find(query)
with figure_col:
    units = PHONE_LINE_UNITS if appearance.current_frame().kind == PHONE else MAP_LINE_UNITS  # rows a phone holds
    render.figure(
        glossary_map(list(glossary.terms()), {term.key for term in found}, units),
        key="glossary-map",
        notice=t("map-notice"),
    )

st.caption(t("found", shown=len(found), total=len(glossary.terms())))
if not found:
    st.caption(t("none-found"))
for slug, terms in glossary.by_page(found).items():
    info = page(slug)
    page_link(slug, t("page-link", title=info.title, slides=slides_label(info.slides)))
    st.markdown(glossary.table(terms))
