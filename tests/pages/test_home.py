"""AppTest of the router and the home page."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.lecture_map import PAGES, available_pages
from tests.conftest import ROOT
from tests.pages.conftest import untranslated


def _home(**query_params: str) -> AppTest:
    """The home page through the router: its page links need the navigation that app.py registers."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for key, value in query_params.items():
        at.query_params[key] = value
    return at.run()


def test_home_page_renders_the_chain_without_exceptions():
    at = _home()
    assert not at.exception
    charts = at.get("plotly_chart")
    assert len(charts) == 1 and "schematic" in charts[0].proto.spec
    assert len(at.subheader) == 5  # one box per link of the argument, in the section open by default
    assert "Each page here takes one link" in " ".join(" ".join(m.value for m in at.markdown).split())


def test_each_section_opens_from_the_url_and_draws_only_its_own_figures():
    at = _home(section="How to read a figure")
    assert not at.exception
    charts = at.get("plotly_chart")
    assert len(charts) == 1 and "schematic" in charts[0].proto.spec  # the chain, on every view
    assert not at.subheader  # the closed section's boxes and their links are not drawn: only the guide's is left
    labels = [link.proto.label for link in at.get("page_link")]  # path, glossary, class mode, the guide's next page
    assert labels[0].startswith("New here? Start the learning path") and labels[1].startswith("Terms in English")
    assert labels[2].startswith("Teaching with it? Class mode")
    assert [x.endswith("→") for x in labels] == [False, False, False, True]
    assert "**by construction**" in " ".join(m.value for m in at.markdown)


def test_home_links_exactly_the_pages_that_exist():
    at = _home()
    linked = sorted(
        Path(link.proto.page).name
        for link in at.get("page_link")  # the page's URL path
        if not link.proto.label.endswith("→")
    )  # not the guide's "next page" link
    assert linked == sorted(p.slug for p in available_pages() if p.slug != "home")  # path, glossary, class: their own


def test_router_runs_the_default_page():
    at = _home()
    assert not at.exception
    assert at.title[0].value == "The argument"


@pytest.mark.parametrize("info", [p for p in PAGES if p.exists], ids=lambda p: p.slug)
def test_only_pages_that_exist_are_in_the_navigation(info):
    assert info in available_pages()


def test_every_page_links_its_neighbours_along_the_argument():
    pages = available_pages()
    for i, info in enumerate(pages):
        script = f"import sys; sys.path.insert(0, {str(ROOT)!r})\nfrom ui.frame import guide\nguide({info.slug!r})"
        at = AppTest.from_string(script, default_timeout=30).run()
        shown = [c.value for c in at.caption]  # links become text without the router
        previous = [f"← {pages[i - 1].title}"] if i > 0 else []
        following = [pages[i + 1].title] if i < len(pages) - 1 else []
        assert [text.split(" (slide")[0] for text in shown] == previous + following, info.slug
        assert not following or "→" in shown[-1]


def test_the_chinese_home_page_speaks_chinese_in_every_section():
    at = _home(lang="zh", sections="all")
    assert not at.exception
    assert at.title[0].value == "论证全貌"
    assert untranslated(at) == []
    assert [s.value for s in at.subheader][0] == "主导驱动力 · 幻灯片 2-7"
    labels = [link.proto.label for link in at.get("page_link")]
    assert labels[0].startswith("第一次来？从学习路径开始") and labels[1].startswith("中英术语对照")
