"""AppTest of the glossary: the map of terms, the tables under each page's link, the search, in both languages."""

from explorer.figures.home import MUTED_TEXT
from explorer import glossary
from tests.pages.conftest import assert_clean, evidence_kinds, figures, run_page, untranslated

PAGE = "glossary.py"


def _rows(at) -> list[str]:
    """The table rows shown (header and rule lines left out)."""
    return [line for m in at.markdown if m.value.startswith("| 中文") for line in m.value.splitlines()[2:]]


def test_it_opens_on_the_map_and_lists_every_term_under_its_page():
    at = run_page(PAGE)
    assert_clean(at)
    assert evidence_kinds(at) == ["schematic"] and figures(at)[0]["layout"]["meta"]["figure_id"] == "glossary-map"
    assert len(_rows(at)) == len(glossary.terms())
    assert "| KV 缓存 | KV cache | The stored keys and values" in "\n".join(_rows(at))
    assert any(c.value.startswith("Cache reuse in chat (slides 64-66)") for c in at.caption)  # its page link


def test_a_search_from_the_url_narrows_the_tables_and_greys_the_map():
    at = run_page(PAGE, find="cache")
    assert_clean(at)
    assert [r.split(" | ")[1] for r in _rows(at)] == ["KV cache"]
    assert sum(c != MUTED_TEXT for c in figures(at)[0]["data"][0]["textfont"]["color"]) == 1
    at = run_page(PAGE, find="zzz-nothing")
    assert_clean(at)
    assert not _rows(at)
    assert any("No term matches" in c.value for c in at.caption)


def test_the_chinese_glossary_speaks_chinese_and_finds_chinese_words():
    at = run_page(PAGE, lang="zh")
    assert_clean(at)
    assert untranslated(at) == []
    assert "| KV 缓存 | KV cache | 保存下来的早先 token 的键和值" in "\n".join(_rows(at))
    at = run_page(PAGE, lang="zh", find="注意力")
    assert_clean(at)
    assert untranslated(at) == [] and 0 < len(_rows(at)) < len(glossary.terms())
