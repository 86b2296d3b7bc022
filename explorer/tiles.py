"""A metric tile as plain data: what an explorer view computes for one of a page's `st.metric` tiles."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Tile:
    """A tile's label and value, an optional delta beside the value, and the content section (named
    `help-<help>` in the page's file, filled from `values`) that explains it."""

    label: str
    value: str
    help: str | None = None
    values: dict = field(default_factory=dict)
    delta: str | None = None
