"""The glossary: the terms the app uses, in Chinese and English, each with a one-line explanation and the page
that shows it.

The terms and their pages are data, the same in every language (`content/glossary.csv`: key, term_zh, term_en,
page); each explanation is prose in the shown language (`content/<lang>/glossary.md`, section `term-<key>`).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from explorer import content, i18n
from explorer.lecture_map import PAGES

BOOK = "glossary"  # content/<lang>/glossary.md
SOURCE = content.ROOT / "glossary.csv"
COLUMNS = ["key", "term_zh", "term_en", "page"]
_KEY = re.compile(r"[a-z0-9][a-z0-9-]*")


class GlossaryError(ValueError):
    """A glossary file that does not fit its format: a column, a key or a page that is wrong."""


@dataclass(frozen=True)
class Term:
    key: str  # names the explanation's section, `term-<key>`
    term_zh: str
    term_en: str
    page: str  # the slug of the page that shows the term best

    @property
    def explanation(self) -> str:
        """One line, in the run's language."""
        return content.text(BOOK, f"term-{self.key}")

    @property
    def term(self) -> str:
        """The term in the run's language."""
        return self.term_zh if i18n.current() == "zh" else self.term_en

    def matches(self, query: str) -> bool:
        """Whether `query` (case and surrounding space ignored) is part of either term or of the explanation."""
        wanted = query.strip().casefold()
        return not wanted or any(wanted in text.casefold() for text in (self.term_zh, self.term_en, self.explanation))


@lru_cache(maxsize=4)
def terms(source: Path = SOURCE) -> tuple[Term, ...]:
    """Every term, in the order of the argument (the pages' order), then in the file's order."""
    with open(source, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            raise GlossaryError(f"{source.name}: columns must be {COLUMNS}, got {reader.fieldnames}")
        rows = [Term(**{k: (v or "").strip() for k, v in row.items()}) for row in reader]
    order = {p.slug: i for i, p in enumerate(PAGES)}
    keys = [t.key for t in rows]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise GlossaryError(f"{source.name}: keys used twice: {', '.join(twice)}")
    for t in rows:
        if not _KEY.fullmatch(t.key):
            raise GlossaryError(f"{source.name}: key {t.key!r} is not lower case with hyphens")
        if not (t.term_zh and t.term_en):
            raise GlossaryError(f"{source.name}: {t.key} needs both a Chinese and an English term")
        if t.page not in order:
            raise GlossaryError(f"{source.name}: {t.key} names no page of the app: {t.page!r}")
    return tuple(sorted(rows, key=lambda t: order[t.page]))


def find(query: str = "") -> list[Term]:
    """The terms that match `query` (all for an empty one), in the glossary's order."""
    return [t for t in terms() if t.matches(query)]


def by_page(found: list[Term]) -> dict[str, list[Term]]:
    """The terms grouped by their page's slug, pages in the order of the argument."""
    grouped: dict[str, list[Term]] = {}
    for t in found:
        grouped.setdefault(t.page, []).append(t)
    return grouped


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell: a pipe or a line break would end the cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def table(found: list[Term]) -> str:
    """The terms as a Markdown table: Chinese, English, the explanation in the run's language."""
    rows = [f"| {_cell(t.term_zh)} | {_cell(t.term_en)} | {_cell(t.explanation)} |" for t in found]
    return "\n".join([content.text(BOOK, "table-head"), *rows])
