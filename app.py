"""Router: page config, navigation, and the previous/next links along the lecture. Pages live in pages/."""

import streamlit as st

from explorer.lecture_map import available_pages
from ui import appearance, frame, language, lecture, theme_choice
from ui.text import common

# Streamlit's top padding (6rem) halved: the slide's figure then fits a 1440x900 first screen under the title.
# A multi-panel figure (ui.render._scroll_frame) keeps 640 px and scrolls sideways in a narrower column until the
# browser has reported a phone's width (ui.appearance); from then on its panels stack.
# A page's section tabs wrap onto a second line instead of hiding the last ones behind a scroll, and a link to
# another page wraps too: Streamlit keeps it on one line and cuts it ("Start the learning path: ten questions fr…").
APP_CSS = """<style>
[data-testid='stMainBlockContainer'] { padding-top: 3rem; }
[data-testid='stTabs'] [role='tablist'] { flex-wrap: wrap; }
[data-testid='stPageLink'] a span, [data-testid='stPageLink'] a p { white-space: normal; overflow: visible; }
[class*='st-key-scroll-'] { overflow-x: auto; }
[class*='st-key-wide-'] { min-width: 640px; }
</style>"""

language.resolve()  # before the navigation: its titles are in the page's language
st.set_page_config(page_title=common("app-title"), layout="wide")
st.html(APP_CSS)
if not st.context.is_embedded:
    language.switch()
    theme_choice.switch()

navigation = st.navigation(
    [st.Page(p.file, title=p.title, url_path=p.slug, default=p.slug == "home") for p in available_pages()],
    position="hidden" if st.context.is_embedded else "sidebar",
    expanded=True,  # every page listed: no "View more"
)
# The browser reports a phone's, an embed's or a projector's size: figures are drawn for it. After st.navigation,
# never before: a phone's report reruns the script at once, and a rerun the browser asks for before it has heard
# which page this is runs the default one (seen under load: a phone opening /class or /glossary landed on home).
appearance.probe()
navigation.run()
if lecture.figure_mode():
    lecture.report_missing_figure()
elif not st.context.is_embedded:
    frame.guide(navigation.url_path)  # previous / next along the argument
