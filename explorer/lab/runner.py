"""The one runner: plan the units of a run (shipped, cached, missing), train the missing ones in order, cache each
finished unit, report progress, publish the records so far (a page draws them as they come), and stop between or
inside units when cancelled or out of time (the ready units still come back; none trains after the stop). Every
experiment hands it its units and a function that trains one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Generic, Hashable, Sequence, TypeVar

from explorer import planning, results
from explorer.formatting import colon
from explorer.progress import SILENT, Progress

K = TypeVar("K", bound=Hashable)


@dataclass
class Outcome(Generic[K]):
    records: list[dict]  # in unit order: ready ones and the ones trained now
    stopped: str = "steps"  # "steps" when every unit is there, else "cancelled" or "time_budget"
    seconds: float = 0.0
    trained: list[K] = field(default_factory=list)
    plan: planning.Plan | None = None


@dataclass(frozen=True)
class Units(Generic[K]):
    """What the runner needs to know of an experiment's run."""

    keys: Sequence[K]  # every unit, in the order they train (seeds outermost keeps a cut run balanced)
    train: Callable[[K, Progress], dict]  # trains one unit; its record has `stopped` ("steps" when finished)
    label: Callable[[K, int, int], str] = lambda key, i, n: f"{i}/{n}: {key}"  # a progress line (unit, i, n)
    from_shipped: Callable[[K], dict | None] = lambda key: None
    cache: tuple[str, Callable[[K], dict]] | None = None  # (result kind, unit -> cache key), or no cache
    shape: object = dict  # what a cached record must look like (`explorer.shapes`)
    weight: Callable[[K], float] = lambda key: 1.0  # its share of the progress bar (training FLOPs, say)
    publish: Callable[[list[dict]], dict] | None = None  # records so far -> what `progress.share` gets

    def plan(self) -> planning.Plan:
        return planning.plan(self.keys, self.from_shipped, self.cache, self.shape)


def run(units: Units[K], progress: Progress = SILENT, done_message: str = "") -> Outcome[K]:
    """Every unit of `units`: ready ones as they are, the missing ones trained now (and cached when finished)."""
    start, plan = time.perf_counter(), units.plan()
    weights = {k: float(units.weight(k)) for k in plan.missing}
    total, before = sum(weights.values()) or 1.0, 0.0
    out: Outcome[K] = Outcome(records=[], plan=plan)
    for i, key in enumerate(units.keys):
        if key in plan.ready:
            record = plan.ready[key]  # where it came from: `plan.sources`
        elif out.stopped != "steps":
            continue  # stopped: what is ready still comes back, nothing more trains
        else:
            if progress.should_stop():
                out.stopped = progress.stop_reason()
                continue
            label = units.label(key, i + 1, len(units.keys))
            share = weights[key] / total
            progress.update(before, label)
            record = units.train(key, progress.part(before, before + share, label + colon()))
            before += share
            out.trained.append(key)
            if record.get("stopped", "steps") == "steps" and units.cache is not None:
                kind, cache_key = units.cache
                results.save(kind, cache_key(key), record)
        out.records.append(record)
        if units.publish is not None:
            progress.share(units.publish(list(out.records)))
        if record.get("stopped", "steps") != "steps":
            out.stopped = record["stopped"]
    if out.stopped == "steps" and done_message:
        progress.update(1.0, done_message)
    out.seconds = time.perf_counter() - start
    return out
