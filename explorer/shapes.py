"""Untrusted JSON checked against a declared shape before any page uses it.

A cached record can be edited by anyone who can write the store, and a stale or hand-made one must not
crash a page for every visitor with those settings. A shape is written like the data it describes:
`int`, `float` (an int is a float too), `str`, `bool`; `[shape]` for a list of such items; `{key: shape}`
for a dict with at least those keys (more are allowed); a tuple of shapes for "any of these". Every list
is bounded, so a record cannot make a page draw a 300,000-point history.

`loads` is the one JSON decoder for everything untrusted (URL state, imported files, stored records): it raises
only `ParseError`, whatever the text holds, and what it returns is plain JSON of bounded size, depth and number
size, with every number finite and every string encodable.
"""

from __future__ import annotations

import json
import math
import re

MAX_ITEMS = 10_000  # items in one list of a record
MAX_DEPTH = 64  # nesting of lists and objects; the explorer's own records stay under 10
MAX_INT_DIGITS = 100  # digits of a whole number; Python refuses past 4,300 with a plain ValueError
MAX_NUMBER_CHARS = 400  # characters of any number literal

_SURROGATE = re.compile("[\ud800-\udfff]")  # a lone surrogate (`"\\ud800"`) cannot be sent to a browser


class ParseError(ValueError):
    """Untrusted text is not JSON that the explorer takes; `kind` says which rule it broke (length, encoding,
    syntax, depth, number, text) and the message says where."""

    def __init__(self, kind: str, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.kind, self.line, self.column = kind, line, column


def _whole(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_INT_DIGITS:
        raise ParseError(
            "number", f"a whole number of {len(literal.lstrip('-')):,} digits; the limit is {MAX_INT_DIGITS}"
        )
    return int(literal)


def _real(literal: str) -> float:
    if len(literal) > MAX_NUMBER_CHARS:
        raise ParseError("number", f"a number of {len(literal):,} characters; the limit is {MAX_NUMBER_CHARS}")
    value = float(literal)
    if not math.isfinite(value):
        raise ParseError("number", f"{literal[:20]} is too large for a number")
    return value


def _constant(name: str) -> None:
    raise ParseError("number", f"{name} is not a number JSON allows")


def loads(text: str | bytes, limit: int, max_depth: int = MAX_DEPTH) -> object:
    """The JSON value in `text`, or `ParseError`: longer than `limit` characters (bytes for bytes), not UTF-8,
    not JSON, nested deeper than `max_depth`, a whole number over `MAX_INT_DIGITS` digits, NaN or Infinity
    (written, or a float too large to hold), or a string holding a lone surrogate. Never any other error."""
    if len(text) > limit:
        raise ParseError("length", f"{len(text):,} characters; the limit is {limit:,}")
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ParseError("encoding", "not UTF-8 text") from None
    try:
        value = json.loads(text, parse_int=_whole, parse_float=_real, parse_constant=_constant)
    except ParseError:
        raise
    except json.JSONDecodeError as err:
        raise ParseError(
            "syntax", f"{err.msg} at line {err.lineno}, column {err.colno}", err.lineno, err.colno
        ) from None
    except RecursionError:  # `[[[[...` past the parser's own stack: deeper than any limit here
        raise ParseError("depth", f"nested deeper than {max_depth}") from None
    except (ValueError, TypeError, OverflowError, MemoryError) as err:
        raise ParseError("syntax", f"not JSON ({type(err).__name__})") from None
    _check_tree(value, max_depth)
    return value


def _check_tree(value: object, max_depth: int) -> None:
    """Depth and strings of a parsed value, walked with a stack of its own (no recursion to run out of)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth >= max_depth:
                raise ParseError("depth", f"nested deeper than {max_depth}")
            children = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in children:
                if isinstance(key, str) and _SURROGATE.search(key):
                    raise ParseError("text", "a text holds a lone surrogate")
                stack.append((child, depth + 1))
        elif isinstance(item, str) and _SURROGATE.search(item):
            raise ParseError("text", "a text holds a lone surrogate")


def dumps_checked(value: object, limit: int) -> str:
    """`value` as compact JSON that `loads(..., limit)` takes back, or `ParseError` (a result that holds NaN or
    is too large must not be stored, to be refused at every later read)."""
    try:
        text = json.dumps(value, allow_nan=False, default=str, separators=(",", ":"))
    except (ValueError, TypeError, RecursionError, OverflowError) as err:
        raise ParseError("number", f"cannot be stored as JSON ({type(err).__name__}: {err})") from None
    if len(text) > limit:
        raise ParseError("length", f"{len(text):,} characters; the limit is {limit:,}")
    return text


class ShapeError(ValueError):
    """The data does not have the declared shape; the message names where."""


def check(value: object, shape: object, where: str = "record", max_items: int = MAX_ITEMS) -> None:
    """Raise `ShapeError` naming the first place where `value` differs from `shape`."""
    if isinstance(shape, tuple):
        errors = []
        for option in shape:
            try:
                return check(value, option, where, max_items)
            except ShapeError as err:
                errors.append(str(err))
        raise ShapeError(errors[0])
    if shape is None:
        if value is not None:
            raise ShapeError(f"{where}: expected null")
    elif isinstance(shape, dict):
        if not isinstance(value, dict):
            raise ShapeError(f"{where}: expected an object, found {_name(value)}")
        for key, inner in shape.items():
            if key not in value:
                raise ShapeError(f"{where}: the key {key!r} is missing")
            check(value[key], inner, f"{where}.{key}", max_items)
    elif isinstance(shape, list):
        if not isinstance(value, list):
            raise ShapeError(f"{where}: expected a list, found {_name(value)}")
        if len(value) > max_items:
            raise ShapeError(f"{where}: {len(value):,} items, the limit is {max_items:,}")
        for i, item in enumerate(value):
            check(item, shape[0], f"{where}[{i}]", max_items)
    elif shape is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ShapeError(f"{where}: expected a number, found {_name(value)}")
        if isinstance(value, float) and not math.isfinite(value):  # NaN is never shown as a measurement
            raise ShapeError(f"{where}: {value} is not a finite number")
    elif shape is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ShapeError(f"{where}: expected a whole number, found {_name(value)}")
    elif not isinstance(value, shape):
        raise ShapeError(f"{where}: expected {shape.__name__}, found {_name(value)}")


def conforms(value: object, shape: object, max_items: int = MAX_ITEMS) -> bool:
    try:
        check(value, shape, max_items=max_items)
    except ShapeError:
        return False
    return True


def _name(value: object) -> str:
    return "null" if value is None else type(value).__name__
