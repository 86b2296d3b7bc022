"""Untrusted JSON checked against a declared shape before any page uses it.

A cached record can be edited by anyone who can write the store, and a stale or hand-made one must not
crash a page for every visitor with those settings. A shape is written like the data it describes:
`int`, `float` (an int is a float too), `str`, `bool`; `[shape]` for a list of such items; `{key: shape}`
for a dict with at least those keys (more are allowed); a tuple of shapes for "any of these". Every list
is bounded, so a record cannot make a page draw a 300,000-point history.
"""

from __future__ import annotations

MAX_ITEMS = 10_000  # items in one list of a record


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
