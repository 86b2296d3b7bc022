"""What a requested run needs: each unit (a window, a model, a seed) from the shipped file, the cache, or training.

One loop for every experiment, so that "shipped", "cached" and "missing" mean the same on every page: a
shipped record is used when the shipped run covers the unit (see `Recipe.SLICES`), else a cached one, else
the unit is missing and its page says what training it would take.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Generic, Hashable, Iterable, TypeVar

from explorer import results

K = TypeVar("K", bound=Hashable)
SHIPPED, CACHE = "shipped", "cache"


@dataclass
class Plan(Generic[K]):
    ready: dict[K, dict]  # unit -> its record, in the recipe's order
    sources: dict[K, str]  # unit -> SHIPPED or CACHE
    missing: list[K]  # units still to train, in the recipe's order
    rejected: dict[K, str] = field(default_factory=dict)  # unit -> why its cached record was unusable (removed)

    def records(self) -> list[dict]:
        """The ready records, each with its `source`."""
        return [{**record, "source": self.sources[key]} for key, record in self.ready.items()]


def plan(
    units: Iterable[K],
    from_shipped: Callable[[K], dict | None],
    cache: tuple[str, Callable[[K], dict]] | None,
    shape: object = dict,
) -> Plan[K]:
    """Sort `units` into ready and missing; `cache` is (result kind, unit -> cache key), or None to skip it.
    A cached record without `shape` (`explorer.shapes`) counts as missing: it is trained again."""
    out: Plan[K] = Plan({}, {}, [])
    for unit in units:
        record, source = from_shipped(unit), SHIPPED
        if record is None and cache is not None:
            kind, key = cache
            (record, problem), source = results.inspect(kind, key(unit), shape), CACHE
            if problem is not None:
                out.rejected[unit] = problem
        if record is None:
            out.missing.append(unit)
        else:
            out.ready[unit], out.sources[unit] = record, source
    return out
