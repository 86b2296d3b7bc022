"""Widgets whose values live in the URL, so a link reproduces the view.

Each wrapper binds its widget to a query parameter (Streamlit's `bind="query-params"`). On a session's
first run it also reads the raw URL value itself: a value out of range is clamped and a value that
cannot be used is dropped, each with a short notice instead of a silent reset. With `controls=hidden`
in the URL (embedding in slides) the widgets are not drawn and the URL values are used as they are.
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

import logging
import math

import streamlit as st

from explorer.csv_upload import inline_code
from explorer import i18n
from ui.lecture import controls_hidden, note_control
from ui.text import common

T = TypeVar("T")
# Correcting a bad URL value means presetting session state for a widget that also has a default;
# Streamlit logs a warning for that combination, which here is intended.
logging.getLogger("streamlit.elements.lib.policies").setLevel(logging.ERROR)
_MAX_ECHO = 40  # characters of a bad URL value repeated back in a notice


def _echo(raw: str) -> str:
    """A bad URL value quoted in a notice: a code span that nothing in the value can close or turn into a link."""
    return inline_code(raw, _MAX_ECHO)


def _from_url(
    key: str,
    default: T,
    coerce: Callable[[list[str]], tuple[T | None, str | None]],
    where,
    shown: Callable[[T], list[str]] | None = None,
) -> T:
    """The value this widget starts from: session state, else a usable URL value, else the default.

    A URL value that needed correcting (clamped, cut, partly unknown, or replaced by the default) is written
    to session state, so the widget shows the value used, not the raw one its URL binding would read; a
    valid one is left to the widget's own URL binding, unless it is not the text that binding reads (`shown`:
    an option's label in the other language, from a link made there), which is written to session state too.
    """
    note_control(key)
    if key in st.session_state:
        return _checked_state(key, default, coerce)
    raws = st.query_params.get_all(key)
    if not raws:
        return default
    value, problem = coerce(raws)
    if value is None:
        value = default
    if problem:
        where.caption(common("url-problem", key=key, problem=problem))
        if not controls_hidden():  # the caption may sit in a closed "More settings" expander: say it on top too
            st.toast(common("url-problem-toast", key=key, problem=problem))
        st.session_state[key] = value
    elif shown is not None and shown(value) != raws[-len(shown(value)) :]:
        st.session_state[key] = value
    return value


def _checked_state(key: str, default: T, coerce: Callable[[list[str]], tuple[T | None, str | None]]) -> T:
    """A value already in session state, made valid for this widget.

    Widget keys are per page, but session state is per browser session: a value left by another page's
    widget of the same name (another range, other options) is clamped or dropped here, silently, before
    Streamlit would refuse it.
    """
    current = st.session_state[key]
    if isinstance(current, list) and not current:
        return current  # an emptied multiselect is a choice, not a bad value
    value, _ = coerce([str(v) for v in current] if isinstance(current, list) else [str(current)])
    if value is None:
        del st.session_state[key]
        return default
    if value != current:
        st.session_state[key] = value
    return value


def _number_coercer(lo: float, hi: float, kind: type) -> Callable[[list[str]], tuple[float | None, str | None]]:
    def coerce(raws: list[str]) -> tuple[float | None, str | None]:
        raw = raws[-1]
        try:
            x = float(raw)
        except ValueError:
            return None, common("url-not-a-number", value=_echo(raw))
        if x != x:  # NaN
            return None, common("url-nan")
        if math.isinf(x):  # "inf", "1e999", 5000 digits: no value to clamp to, so the default, said as such
            return None, common("url-infinite", value=_echo(raw))
        clamped = min(max(x, lo), hi)
        value = kind(round(clamped)) if kind is int else kind(clamped)
        note = (
            None
            if clamped == x
            else common("url-outside", value=_echo(raw), lo=f"{lo:g}", hi=f"{hi:g}", used=f"{value:g}")
        )
        return value, note

    return coerce


def _by_text(options: Sequence[T], format_func: Callable[[T], str] | None) -> dict[str, T]:
    """URL text -> option. Streamlit writes the displayed label when the widget has a format_func; a link
    made in the other language carries that language's label, so every language's labels are read."""
    by_text = {str(o): o for o in options}
    if format_func is not None:
        for lang in i18n.LANGUAGES:
            with i18n.using(lang):
                by_text.update({format_func(o): o for o in options})
    return by_text


def _labels(format_func: Callable | None, many: bool = False) -> Callable | None:
    """The URL texts Streamlit's binding reads for a value: its labels in the shown language."""
    if format_func is None:
        return None
    return (lambda values: [format_func(v) for v in values]) if many else (lambda value: [format_func(value)])


def _choice_coercer(
    options: Sequence[T],
    format_func: Callable[[T], str] | None = None,
) -> Callable[[list[str]], tuple[T | None, str | None]]:
    by_text = _by_text(options, format_func)

    def coerce(raws: list[str]) -> tuple[T | None, str | None]:
        if raws[-1] in by_text:
            return by_text[raws[-1]], None
        return None, common("url-not-an-option", value=_echo(raws[-1]), options=", ".join(by_text))

    return coerce


def slider(
    label: str, key: str, min_value: T, max_value: T, default: T, step: T | None = None, where=st, **kwargs
) -> T:
    """A numeric slider bound to the URL parameter `key`."""
    kind = type(default)
    value = _from_url(key, default, _number_coercer(min_value, max_value, kind), where)
    if controls_hidden():
        return value
    return where.slider(label, min_value, max_value, default, step=step, key=key, bind="query-params", **kwargs)


def select_slider(label: str, key: str, options: Sequence[T], default: T, where=st, **kwargs) -> T:
    """A slider over discrete options (log-spaced sizes, named levels) bound to the URL."""
    value = _from_url(
        key, default, _choice_coercer(options, kwargs.get("format_func")), where, _labels(kwargs.get("format_func"))
    )
    if controls_hidden():
        return value
    return where.select_slider(label, options=list(options), value=default, key=key, bind="query-params", **kwargs)


def choice(
    label: str, key: str, options: Sequence[T], default: T, where=st, widget: str = "segmented_control", **kwargs
) -> T:
    """One of several options (`widget` = "segmented_control", "radio" or "selectbox") bound to the URL."""
    value = _from_url(
        key, default, _choice_coercer(options, kwargs.get("format_func")), where, _labels(kwargs.get("format_func"))
    )
    if controls_hidden():
        return value
    options = list(options)
    if widget == "segmented_control":
        # Required: a student cannot click it off. Streamlit still seeds a button group from an empty `?key=`
        # as "nothing picked", so for that one run it is drawn unbound (showing the value the notice names)
        # and the empty parameter is dropped; the next run binds it again.
        empty_in_url = st.query_params.get_all(key) == [""]
        if empty_in_url:
            del st.query_params[key]
        return where.segmented_control(
            label,
            options,
            default=default,
            key=key,
            required=True,
            bind=None if empty_in_url else "query-params",
            **kwargs,
        )
    return getattr(where, widget)(label, options, index=options.index(default), key=key, bind="query-params", **kwargs)


def toggle(label: str, key: str, default: bool = False, where=st, **kwargs) -> bool:
    def coerce(raws: list[str]) -> tuple[bool | None, str | None]:
        text = raws[-1].lower()
        if text in ("true", "1", "yes", "on"):
            return True, None
        if text in ("false", "0", "no", "off"):
            return False, None
        return None, common("url-not-a-boolean", value=_echo(raws[-1]))

    value = _from_url(key, default, coerce, where)
    if controls_hidden():
        return value
    return where.toggle(label, value=default, key=key, bind="query-params", **kwargs)


def multiselect(label: str, key: str, options: Sequence[T], default: Sequence[T], where=st, **kwargs) -> list[T]:
    by_text = _by_text(options, kwargs.get("format_func"))

    def coerce(raws: list[str]) -> tuple[list[T] | None, str | None]:
        raws = [r for r in raws if r]  # `?key=` is Streamlit's link to an emptied multiselect
        if not raws:
            return [], None
        good = [by_text[r] for r in raws if r in by_text]
        bad = [r for r in raws if r not in by_text]
        note = common("url-unknown-values", values=", ".join(_echo(b) for b in bad[:5])) if bad else None
        return (list(dict.fromkeys(good)) or None), note

    value = _from_url(key, list(default), coerce, where, _labels(kwargs.get("format_func"), many=True))
    if controls_hidden():
        return value
    return where.multiselect(label, list(options), default=list(default), key=key, bind="query-params", **kwargs)


def text(label: str, key: str, default: str, max_chars: int, where=st, **kwargs) -> str:
    """Free text bound to the URL; longer URL text is cut to `max_chars` with a notice."""

    def coerce(raws: list[str]) -> tuple[str, str | None]:
        raw = raws[-1]
        if len(raw) > max_chars:
            return raw[:max_chars], common("url-text-cut", max_chars=max_chars)
        return raw, None

    value = _from_url(key, default, coerce, where)
    if controls_hidden():
        return value
    return where.text_input(label, default, key=key, max_chars=max_chars, bind="query-params", **kwargs)
