"""The current page's prose (explorer.content), in the language the app is shown in."""

from __future__ import annotations

import streamlit as st

from explorer import content
from ui.lecture import current_page


def t(section: str, /, **values: object) -> str:
    """Section `section` of this page's content file, placeholders filled from `values`."""
    return content.text(current_page(), section, **values)


def common(section: str, /, **values: object) -> str:
    """A text every page shares (content/<lang>/common.md): buttons, notices, links."""
    return content.text("common", section, **values)


def say(section: str, /, where=st, **values: object) -> None:
    """Section `section` as Markdown in `where` (the page by default)."""
    where.markdown(t(section, **values))
