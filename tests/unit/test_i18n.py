"""The Chinese edition's text: every English book has its Chinese twin, section for section, placeholder for
placeholder, and a Chinese section that a student reads is written in Chinese."""

import re
import threading

import pytest

from explorer import content, i18n
from explorer.evidence import Evidence, Kind
from explorer.jobs import DONE, JobQueue
from explorer.lecture_map import page, slides_label

BOOKS = sorted(p.stem for p in (content.ROOT / "en").glob("*.md"))
_CJK = re.compile(r"[\u3400-\u9fff]")
# English-only grammar that Chinese has no use for: plural endings ({{s}}, {{s_years}}), a verb's number
# ({{verb}}: was/were) and phrases the code words with their plural noun ("2 runs", "lines 3 and 4 are"); for
# those the code also passes the bare values Chinese words itself ({{n}}, {{lines}})
ENGLISH_GRAMMAR = re.compile(r"s(_[a-z_]+)?|runs|threads|verb|phrase|text|lines|seeds")
CHINESE_EXTRA = {"n", "lines", "numbers", "first_seed", "last_seed"}
_PROSE = re.compile(r"[A-Za-z]{3,}\s+[A-Za-z]{3,}")  # two English words in a row


def test_the_language_comes_from_a_url_value_or_a_browser_locale():
    assert [i18n.parse(v) for v in ("zh", "ZH", "zh-CN", "zh_Hans", "en", "en-GB", "fr", "", None, "<b>")] == [
        "zh",
        "zh",
        "zh",
        "zh",
        "en",
        "en",
        None,
        None,
        None,
        None,
    ]
    assert [i18n.from_locale(v) for v in ("zh-CN", "zh-Hant-TW", "en-US", "de", None)] == ["zh", "zh", "en", "en", "en"]


def test_the_language_is_per_thread_and_a_block_restores_it():
    seen = {}
    with i18n.using("zh"):
        assert i18n.current() == "zh" and slides_label("4, 6") == "幻灯片 4, 6"
        worker = threading.Thread(target=lambda: seen.update(lang=i18n.current()))
        worker.start()
        worker.join()
    assert seen["lang"] == "en" and i18n.current() == "en" and slides_label("67") == "slide 67"


@pytest.mark.parametrize("book", BOOKS)
def test_every_english_section_has_a_chinese_twin_with_the_same_placeholders(book):
    english = content.sections(book, "en")
    assert content.path(book, "zh").is_file(), f"no content/zh/{book}.md"
    chinese = content.sections(book, "zh")
    assert sorted(set(english) - set(chinese)) == [], f"content/zh/{book}.md lacks these sections"
    assert sorted(set(chinese) - set(english)) == [], f"content/zh/{book}.md has sections English lacks"
    for name, text in english.items():
        theirs, ours = content.placeholders(text), content.placeholders(chinese[name])
        dropped = [p for p in theirs - ours if not ENGLISH_GRAMMAR.fullmatch(p)]
        assert not dropped and ours - theirs <= CHINESE_EXTRA, f"{book}.md ## {name}: {theirs} vs {ours}"


@pytest.mark.parametrize("book", BOOKS)
def test_a_chinese_section_with_english_prose_in_its_twin_is_written_in_chinese(book):
    chinese = content.sections(book, "zh") if content.path(book, "zh").is_file() else {}
    english = [
        name
        for name, text in content.sections(book, "en").items()
        if _PROSE.search(re.sub(r"\{\{[^}]*\}\}|`[^`]*`|\$[^$]*\$|<[^>]*>|%\{[^}]*\}", " ", text))
    ]
    untranslated = [name for name in english if name in chinese and not _CJK.search(chinese[name])]
    assert not untranslated, f"content/zh/{book}.md: still English in {untranslated}"


def test_badges_titles_and_shared_notices_follow_the_language():
    evidence = Evidence(Kind.EXTRAPOLATION, also=(Kind.FIT,))
    assert evidence.title == "extrapolation + fit"
    with i18n.using("zh"):
        assert evidence.title == "外推 + 拟合" and page("compute").title != "Compute per dollar"
        assert content.text("common", "url-nan").startswith("NaN 不是")
    assert page("compute").title == "Compute per dollar"


def test_a_run_reports_its_progress_in_the_language_of_the_session_that_asked(tmp_path):
    queue = JobQueue(max_running=1, lock_dir=tmp_path)
    with i18n.using("zh"):
        job = queue.submit("zh-run", lambda progress: {"said": content.text("common", "run-starting")})
    assert queue.wait_idle(10) and job.state == DONE and job.result == {"said": "正在启动"}


def test_where_nothing_set_the_language_the_registered_fallback_answers(monkeypatch):
    """A widget's callback runs before the page sets the language: the app's fallback reads the session's."""
    monkeypatch.setattr(i18n, "_fallbacks", [])
    seen = []
    i18n.set_fallback(lambda: "zh")
    worker = threading.Thread(target=lambda: seen.append(i18n.current()))
    worker.start()
    worker.join()
    i18n.set_fallback(lambda: None)
    assert seen == ["zh"] and i18n.current() == "en"
