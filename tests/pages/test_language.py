"""The language switch: `lang=` in the URL wins, a choice in the sidebar sticks for the session and goes into the
URL, and a share link carries the language it was made in."""

import html
import re

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from tests.pages.conftest import TIMEOUT, open_shares, run_page


def _switch(at: AppTest):
    (switch,) = [b for b in at.get("button_group") if b.key == "_language_switch"]
    return switch


def test_the_sidebar_switch_turns_the_app_chinese_and_writes_the_language_into_the_url():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert at.title[0].value == "The argument" and _switch(at).options == ["English", "简体中文"]
    _switch(at).set_value("zh").run()
    assert not at.exception and at.query_params["lang"] == "zh" and at.title[0].value != "The argument"
    del at.query_params["lang"]  # another page of the app: no parameter, the session's choice holds
    at.run()
    assert at.title[0].value != "The argument"


def test_lang_in_the_url_wins_and_a_value_it_does_not_know_is_english():
    assert run_page("compute_per_dollar.py", lang="zh").title[0].value != "Compute per dollar"
    for value in ("fr", "x" * 10_000, "<script>"):
        at = run_page("compute_per_dollar.py", lang=value)
        assert not at.exception and at.title[0].value == "Compute per dollar"


def test_a_share_link_carries_the_language_it_was_made_in():
    at = open_shares(run_page("method.py", lang="zh"))
    links = [c.value for c in at.code if c.value.startswith("http")]
    assert links and all("lang=zh" in link for link in links)


def test_a_link_made_in_english_opens_the_same_view_in_chinese():
    """Option labels and section names travel in the URL in the language the link was made in."""
    from explorer import content

    tab = content.sections("bitter-lesson", "en")["tab-counts"]
    for lang in ("en", "zh"):
        at = run_page("bitter_lesson.py", lang=lang, axis="compute", section=tab)
        (axis,) = [b for b in at.get("button_group") if b.key == "axis"]
        assert not at.exception and axis.value == "compute", lang
        assert [bool(t.children) for t in at.tabs] == [False, True, False, False, False], (
            lang
        )  # the ladder tab is the fifth


def test_the_browsers_language_picks_the_default_and_the_url_still_wins():
    def opened(locale: str, **query: str) -> str:
        at = AppTest.from_file(str(ROOT / "pages" / "compute_per_dollar.py"), default_timeout=TIMEOUT)
        at.context = {"locale": locale}
        for key, value in query.items():
            at.query_params[key] = value
        return at.run().title[0].value

    assert opened("zh-CN") != "Compute per dollar" and opened("en-GB") == "Compute per dollar"
    assert opened("zh-CN", lang="en") == "Compute per dollar"


def test_the_theme_links_open_this_view_with_streamlits_theme_option_and_keep_every_parameter():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params.update({"lang": "zh", "section": "<b>&"})
    at.context = {"theme": "dark"}
    at.run()
    (switch,) = [h.proto.body for h in at.sidebar.get("html") if "embed_options" in h.proto.body]
    hrefs = re.findall(r'href="([^"]*)"', switch)
    assert [html.unescape(h) for h in hrefs] == [
        "?lang=zh&section=%3Cb%3E%26",  # the system's theme: no option
        "?lang=zh&section=%3Cb%3E%26&embed_options=light_theme",
        "?lang=zh&section=%3Cb%3E%26&embed_options=dark_theme",
    ]
    assert "<b>&" not in switch and "主题" in switch and "深色" in switch  # the URL's text escaped (switch_html)
    outlined = re.findall(r"var\(--primary-color[^>]*>([^<]*)</a>", switch)
    assert outlined == ["深色"]  # the theme the browser reports is the one marked
