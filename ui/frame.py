"""The frame every page shares: its title, the slides it covers, and links to other pages."""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from explorer.lecture_map import available_pages, page, slides_label
from ui import language, lecture
from ui.text import common


def header(slug: str) -> None:
    """Title and slides; in lecture mode also what the URL asks to hide (see ui.lecture)."""
    language.resolve()  # again for a page run on its own (a test, the figure export): no router ran before it
    lecture.set_current_page(slug)
    lecture.apply_chrome()
    info = page(slug)
    st.title(info.title)
    slides = slides_label(info.slides)
    st.caption(f"{slides[:1].upper()}{slides[1:]} · {info.question}")


def page_link(slug: str, label: str | None = None) -> None:
    """A link to another page when that page exists; plain text when it does not or the router is absent.

    A page run on its own (AppTest of one file) has no navigation, so Streamlit cannot resolve the link.
    """
    info = page(slug)
    if not info.exists:
        return
    text = label or common(
        "link-other-page", title=info.title, slides=slides_label(info.slides), question=info.question
    )
    try:
        st.page_link(info.file, label=text)
    except StreamlitPageNotFoundError:
        st.caption(common("link-in-navigation", text=text))


def guide(url_path: str) -> None:
    """Previous and next page along the lecture's argument, under every page (lecture mode's guided path)."""
    pages = available_pages()
    slugs = [p.slug for p in pages]
    slug = url_path or "home"
    if slug not in slugs or len(pages) < 2:
        return
    i = slugs.index(slug)
    st.divider()
    left, right = st.columns(2)
    if i > 0:
        with left:
            page_link(
                pages[i - 1].slug,
                common("link-previous", title=pages[i - 1].title, slides=slides_label(pages[i - 1].slides)),
            )
    if i < len(pages) - 1:
        with right:
            page_link(
                pages[i + 1].slug,
                common("link-next", title=pages[i + 1].title, slides=slides_label(pages[i + 1].slides)),
            )
