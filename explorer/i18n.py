"""Which language the app speaks in this run: English or Simplified Chinese.

The language is ambient, not an argument threaded through every figure: the page run (or the export) sets it
once, and `explorer.content` reads it when a text is asked for. A context variable keeps it per thread, so each
browser session's script thread has its own, and a background run's thread starts in English. Where nothing
set it in this thread yet, a fallback the app registers answers (a widget's callback runs before the page does:
the app's fallback reads the session's language).
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Callable, Iterator

LANGUAGES = {"en": "English", "zh": "简体中文"}
DEFAULT = "en"
_current: ContextVar[str | None] = ContextVar("language", default=None)
_fallbacks: list[Callable[[], str | None]] = []


def current() -> str:
    return _current.get() or next((lang for ask in _fallbacks if (lang := ask())), DEFAULT)


def set_fallback(ask: Callable[[], str | None]) -> None:
    """Where this thread set no language: ask `ask()` (None when it cannot tell). One fallback, set once."""
    _fallbacks[:] = [ask]


def set_current(lang: str) -> None:
    """Speak `lang` from now on in this thread (a page run sets it first)."""
    _current.set(lang if lang in LANGUAGES else DEFAULT)


@contextlib.contextmanager
def using(lang: str) -> Iterator[None]:
    """Speak `lang` inside the block only (an export, a test, or a label looked up in every language)."""
    token = _current.set(lang if lang in LANGUAGES else DEFAULT)
    try:
        yield
    finally:
        _current.reset(token)


def from_locale(locale: str | None) -> str:
    """The language for a browser locale such as 'zh-CN', 'zh-Hans-TW' or 'en-GB'; English for the rest."""
    return "zh" if (locale or "").lower().replace("_", "-").split("-")[0] == "zh" else DEFAULT


def parse(value: str | None) -> str | None:
    """A `lang=` URL value as a language code, or None when it names none ('zh-CN' and 'ZH' read as zh)."""
    code = (value or "").strip().lower().replace("_", "-").split("-")[0]
    return code if code in LANGUAGES else None
