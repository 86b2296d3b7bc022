"""The experiments the lab knows, each with its main preset: how many units (models or seed groups) it trains,
how many are shipped, cached or missing, and how long the whole preset takes here (`python -m explorer lab list`).

Time: one model (`explorer.lab.estimate`), training FLOPs over the FLOP rate the shipped runs measured where an
experiment counts its FLOPs per run, else the shipped file's own seconds per unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from explorer import planning, shipped
from explorer.lab import estimate


@dataclass(frozen=True)
class Entry:
    name: str  # the CLI command
    count: Callable[[], dict]  # -> {units, shipped, cached, missing, estimated_seconds}


def _counted(
    units: int,
    plan: planning.Plan | None,
    shipped_units: int,
    wall: float | None,
    per_unit: float | None = None,
    missing_flops: float | None = None,
    rate: float | None = None,
    total_flops: float | None = None,
) -> dict:
    ready = plan.sources.values() if plan is not None else ()
    got_shipped = sum(s == planning.SHIPPED for s in ready) if plan is not None else shipped_units
    cached = sum(s == planning.CACHE for s in ready) if plan is not None else 0
    missing = units - got_shipped - cached
    if total_flops is not None and rate:
        whole, left = estimate.seconds(total_flops, rate), estimate.seconds(missing_flops or 0.0, rate)
    else:
        unit = per_unit if per_unit is not None else ((wall / shipped_units) if wall and shipped_units else None)
        whole = unit * units if unit is not None else float("nan")
        left = unit * missing if unit is not None else float("nan")
    return {
        "units": units,
        "shipped": got_shipped,
        "cached": cached,
        "missing": missing,
        "estimated_seconds": whole,
        "missing_seconds": left,
    }


def _bidirectional() -> dict:
    from explorer.experiments import bidirectional_scaling as bs

    cfg, record = bs.PRESETS["main"], bs.load_shipped()
    same = record is not None and bs.ScalingConfig.from_dict(record["config"]).settings() == cfg.settings()
    runs = {(r["width"], r["mask"], r["seed"]): r for r in (record or {}).get("runs", [])} if same else {}
    plan = planning.plan(cfg.runs(), runs.get, (bs.CACHE_KIND, lambda run: bs.run_key(cfg, *run)), bs.RUN_SHAPE)
    flops = {run: cfg.flops_per_step(run[0]) * cfg.steps for run in cfg.runs()}
    rate = estimate.measured_rate((r["flops_per_step"] * r["steps_done"], r["seconds"]) for r in runs.values())
    return _counted(
        len(flops),
        plan,
        0,
        None,
        missing_flops=sum(flops[k] for k in plan.missing),
        rate=rate,
        total_flops=sum(flops.values()),
    )


def _planned(module: str, preset: str = "main") -> Callable[[], dict]:
    """Experiments whose own `plan(cfg, shipped)` sorts units into shipped, cached and missing."""

    def count() -> dict:
        import importlib

        mod = importlib.import_module(module)
        cfg = mod.PRESETS[preset]
        record = mod.load_shipped(preset) if module.endswith("lengths") else mod.load_shipped()
        plan = mod.plan(cfg, record)
        units = len(plan.ready) + len(plan.missing)
        wall = (record or {}).get("wall_seconds")
        done = len((record or {}).get("runs", (record or {}).get("records", [])))
        return _counted(units, plan, 0, wall, per_unit=wall / done if wall and done else None)

    return count


def _crossover() -> dict:
    from explorer.experiments import crossover as cx

    cfg = cx.PRESETS["main"]
    record = shipped.load(cx.shipped_path("main"))
    plan = cx.plan(cfg, record)
    wall = (record or {}).get("wall_seconds")
    done = len((record or {}).get("runs", {}))
    return _counted(len(cfg.runs), plan, 0, wall, per_unit=wall / done if wall and done else None)


def _from_file(
    path_of: Callable[[], object], units_of: Callable[[], int], runs_key: str = "runs"
) -> Callable[[], dict]:
    """Experiments without a per-unit cache: a unit is shipped when the shipped file holds its run."""

    def count() -> dict:
        record = shipped.load(path_of()) or {}
        units = units_of()
        done = min(units, len(record.get(runs_key, [])))
        return _counted(units, None, done, record.get("wall_seconds"))

    return count


def _bitter_units() -> int:
    from explorer.experiments import bitter_lesson as bl

    cfg = bl.PRESETS["main"]
    return len(cfg.cases) * len(cfg.seeds) * len(bl.METHODS)


def _four_steps_units() -> int:
    from explorer.experiments import four_steps as fs

    s = fs.PRESETS["main"]
    return len(s.seeds) * len(s.variants)


def _shared_units() -> int:
    from explorer.experiments import shared_params as sp

    cfg = sp.PRESETS["main"]
    return len(cfg.seeds) * len(cfg.tasks) * len(cfg.variants)


def _stale() -> dict:
    from explorer.experiments import stale_cache as st

    cfg, record = st.StaleConfig(), shipped.load(st.SHIPPED_PATH) or {}
    units = len(cfg.tasks) * len(cfg.seeds)  # one encoder per task and seed, measured at every size
    done = len(record.get("models", []))
    seconds = sum(m.get("seconds", 0.0) for m in record.get("models", []) if isinstance(m, dict)) or None
    return _counted(units, None, min(units, done), seconds)


def _path(module: str, attr: str, *args: str) -> Callable[[], object]:
    def get() -> object:
        import importlib

        value = getattr(importlib.import_module(module), attr)
        return value(*args) if callable(value) else value

    return get


ENTRIES = (
    Entry("bidirectional-scaling", _bidirectional),
    Entry(
        "bitter-lesson", _from_file(_path("explorer.experiments.bitter_lesson", "shipped_path", "main"), _bitter_units)
    ),
    Entry("crossover", _crossover),
    Entry("depth", _planned("explorer.experiments.depth")),
    Entry(
        "four-steps", _from_file(_path("explorer.experiments.four_steps", "shipped_path", "main"), _four_steps_units)
    ),
    Entry("lengths", _planned("explorer.experiments.lengths")),
    Entry(
        "shared-params", _from_file(_path("explorer.experiments.shared_params", "shipped_path", "main"), _shared_units)
    ),
    Entry("cache-stale", _stale),
)


def experiments() -> list[dict]:
    """One row per experiment: name, units, estimated_seconds (the whole main preset here), shipped, cached,
    missing (and missing_seconds)."""
    return [{"name": e.name, **e.count()} for e in ENTRIES]
