"""The app's prose, out of the code: one Markdown file per page and language, in named sections.

A file `content/<lang>/<page>.md` is a run of sections, each opened by a line `## <name>` (lower case,
digits and hyphens). A section's text may hold placeholders `{{name}}` or `{{name:.2f}}` (a Python format
spec), filled from the values a page passes; double braces leave LaTeX's single braces alone. A
translation is the same file under another language folder, with the same section names. A text asked for
without a language is in the run's language (`explorer.i18n`); a section a translation lacks falls back to
English (the tests require every section in both, so a student never meets the fallback).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from explorer import i18n

ROOT = Path(__file__).resolve().parent.parent / "content"
DEFAULT_LANGUAGE = i18n.DEFAULT
_SECTION = re.compile(r"^## ([a-z0-9][a-z0-9-]*)\s*$", re.MULTILINE)
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::([^}]*))?\}\}")
_WIDE = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")  # CJK characters and punctuation
_BLOCK = re.compile(r"\s*([-*+]\s|[>|#]|\d+[.)]\s|$)")  # a line that opens a Markdown block (or is blank)
_EMPHASIS = "*_`"  # Markdown marks around a word: "**双向**" still ends in a Chinese character


class ContentError(LookupError):
    """A section or a placeholder value that the content file and the page disagree on."""


def path(page: str, lang: str = DEFAULT_LANGUAGE) -> Path:
    return ROOT / lang / f"{page}.md"


@lru_cache(maxsize=64)
def sections(page: str, lang: str = DEFAULT_LANGUAGE) -> dict[str, str]:
    """Every section of one page's file, by name, its text stripped; a name used twice is an error."""
    source = path(page, lang)
    if not source.is_file():
        raise ContentError(f"no content file {source.relative_to(ROOT.parent)}")
    raw = source.read_text(encoding="utf-8")
    names = _SECTION.findall(raw)
    if len(names) != len(set(names)):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ContentError(f"{source.name}: sections named twice: {', '.join(twice)}")
    bodies = _SECTION.split(raw)[2::2]  # split gives [preamble, name, body, name, body, ...]
    return {name: _join_wide_lines(body.strip()) for name, body in zip(names, bodies)}


def _runs_on(before: str, after: str) -> bool:
    """Whether a break between `before` and `after` falls between two Chinese characters, where it must vanish
    instead of becoming a space: Chinese puts no space between words."""
    return bool(_WIDE.match(before[-1:]) and _WIDE.match(after[:1]))


def unbreak(text: str, mark: str = "<br>") -> str:
    """`text` with its `mark` line breaks undone: nothing between two Chinese characters, a space elsewhere (a
    badge wrapped for a figure, shown as text that wraps by itself, read "按原作 者")."""
    parts = text.split(mark)
    out = parts[0]
    for part in parts[1:]:
        out += ("" if _runs_on(out, part) else " ") + part
    return out


def _join_wide_lines(body: str) -> str:
    """A paragraph's line breaks between two Chinese characters removed: a browser shows a soft break as a space,
    which Chinese text does not have ("花在 数据不同"). Breaks into or out of a Markdown block stay."""
    lines = body.split("\n")
    joined = lines[:1]
    for line in lines[1:]:
        last = joined[-1]
        if (
            _runs_on(last.rstrip(_EMPHASIS), line.lstrip(_EMPHASIS))
            and not _BLOCK.match(line)
            and not last.lstrip().startswith(("#", "|"))
        ):
            joined[-1] = last + line
        else:
            joined.append(line)
    return "\n".join(joined)


def placeholders(template: str) -> set[str]:
    """The value names a section's text asks for."""
    return {m.group(1) for m in _PLACEHOLDER.finditer(template)}


def fill(template: str, values: dict[str, object]) -> str:
    """The text with every placeholder replaced by its formatted value."""
    missing = placeholders(template) - set(values)
    if missing:
        raise ContentError(f"no value for {', '.join(sorted(missing))}")
    return _PLACEHOLDER.sub(lambda m: format(values[m.group(1)], m.group(2) or ""), template)


def text(page: str, section: str, /, lang: str | None = None, **values: object) -> str:
    """One section of a page's prose in `lang` (default: the run's language), filled in (positional names, so
    any word can be a placeholder)."""
    lang = lang or i18n.current()
    found = sections(page, lang) if path(page, lang).is_file() else {}
    if section not in found and lang != DEFAULT_LANGUAGE:
        found = sections(page, DEFAULT_LANGUAGE)
    if section not in found:
        raise ContentError(f"{path(page, DEFAULT_LANGUAGE).name} has no section {section!r}")
    return fill(found[section], values)
