"""The glossary's data: every term in both languages with an explanation in each, on a page that exists."""

import pytest

from explorer.figures.home import MUTED_TEXT
from explorer import content, glossary, i18n
from explorer.figures.home import glossary_map
from explorer.lecture_map import PAGES


def test_every_term_has_both_names_an_existing_page_and_an_explanation_in_each_language():
    terms = glossary.terms()
    assert len(terms) >= 40 and len({t.key for t in terms}) == len(terms)
    slugs = [p.slug for p in PAGES]
    assert [slugs.index(t.page) for t in terms] == sorted(slugs.index(t.page) for t in terms)  # argument order
    for lang in ("en", "zh"):
        written = content.sections("glossary", lang)
        assert {f"term-{t.key}" for t in terms} == {s for s in written if s.startswith("term-")}, lang
        assert all("\n" not in written[f"term-{t.key}"] for t in terms), lang  # one line each


def test_the_brief_terms_are_there_as_the_notes_write_them():
    names = {t.term_en: t.term_zh for t in glossary.terms()}
    assert names["inductive bias"] == "归纳偏置" and names["KV cache"] == "KV 缓存"
    assert names["the Bitter Lesson"] == "苦涩的教训" and names["crossover"] == "交叉点"


def test_find_matches_either_term_or_the_explanation_in_the_shown_language():
    assert glossary.find("") == list(glossary.terms()) == glossary.find("   ")
    assert [t.key for t in glossary.find("KV CACHE")] == ["kv-cache"]
    assert "kv-cache" in [t.key for t in glossary.find("缓存")]
    with i18n.using("zh"):
        assert "re-encode" in [t.key for t in glossary.find("每一轮")]  # its Chinese explanation
        assert glossary.terms()[0].term == glossary.terms()[0].term_zh
    assert not glossary.find("no such term at all")


def test_the_table_shows_both_names_and_keeps_cells_whole():
    term = glossary.Term("x", "甲|乙", "a|b", "home")
    lines = glossary.table([glossary.terms()[0]]).splitlines()
    assert lines[0].startswith("| 中文 | English |") and len(lines) == 3
    assert glossary._cell(term.term_zh) == "甲\\|乙"


@pytest.mark.parametrize(
    "problem, text",
    [
        ("columns must be", "key,term_zh,term_en\nx,甲,a\n"),
        ("keys used twice", "key,term_zh,term_en,page\nx,甲,a,home\nx,乙,b,home\n"),
        ("not lower case", "key,term_zh,term_en,page\nBad Key,甲,a,home\n"),
        ("needs both", "key,term_zh,term_en,page\nx,,a,home\n"),
        ("names no page", "key,term_zh,term_en,page\nx,甲,a,nowhere\n"),
    ],
    ids=lambda v: v if " " in v and "\n" not in v else "",
)
def test_a_malformed_glossary_file_says_what_is_wrong(tmp_path, problem, text):
    source = tmp_path / "glossary.csv"
    source.write_text(text, encoding="utf-8")
    with pytest.raises(glossary.GlossaryError, match=problem):
        glossary.terms(source)


def test_the_map_places_every_term_on_its_page_row_and_greys_the_others():
    terms = list(glossary.terms())
    fig = glossary_map(terms, {"kv-cache"})
    (trace,) = fig.data
    assert list(trace.text) == [t.term_en for t in terms] and len(trace.customdata) == len(terms)
    colors = list(trace.textfont.color)
    assert sum(c != MUTED_TEXT for c in colors) == 1 and colors[[t.key for t in terms].index("kv-cache")] != MUTED_TEXT
    assert fig.layout.meta["evidence"] == "schematic"
    with i18n.using("zh"):
        zh = glossary_map(terms)
    assert list(zh.data[0].text) == [t.term_zh for t in terms] and MUTED_TEXT not in zh.data[0].textfont.color
    assert list(zh.layout.yaxis.ticktext)[0] == content.text("map", "page-home-title", lang="zh")
