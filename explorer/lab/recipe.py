"""How a run is made, declared before it starts and recorded in every result.

- `old`: the project's first recipe: one learning rate for every size, warm-up then constant, each budget read
  from one checkpoint of a run still in flight. Kept so that the shipped results it made can be rerun and read.
- `reviewed` (GUIDE section 11): the learning rate of each model size chosen from a grid spanning at least 10x by
  short pilot runs scored on a selection set (never the scoring set, and trained on a seed no reported run uses);
  a WSD schedule that decays at every budget read; and a readout fixed in advance, the same for every arm: the
  mean of the last `readout_k` evaluations of each decayed branch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Hashable, Iterable

from explorer.lab.schedule import Schedule

NAMES = ("old", "reviewed")
DEFAULT_GRID = (1e-3, 3e-3, 1e-2)  # spans 10x around the old recipe's 3e-3
SELECT_SEED_OFFSET = 2_000_029  # the selection set: a generator neither training nor scoring ever uses
PILOT_SEED = 1_000  # pilots train on this seed; reported runs use seeds below MAX_SEEDS everywhere


@dataclass(frozen=True)
class LabRecipe:
    name: str = "old"
    lr: float = 3e-3  # the old recipe's one rate
    lr_grid: tuple[float, ...] = DEFAULT_GRID
    warmup: int = 20
    decay_fraction: float = 0.2
    readout_k: int = 3
    pilot_fraction: float = 0.5  # pilot length as a share of the longest budget

    def __post_init__(self) -> None:
        if self.name not in NAMES:
            raise ValueError(f"recipe must be one of {', '.join(NAMES)}, got {self.name!r}")
        grid = tuple(sorted(float(v) for v in self.lr_grid))
        object.__setattr__(self, "lr_grid", grid)
        if self.name == "reviewed" and (len(grid) < 2 or grid[-1] / grid[0] < 10 - 1e-9 or grid[0] <= 0):
            raise ValueError(f"the reviewed recipe needs a learning-rate grid spanning at least 10x, got {list(grid)}")

    @property
    def schedule(self) -> Schedule:
        return Schedule("wsd" if self.name == "reviewed" else "constant", self.warmup, self.decay_fraction)

    @property
    def k(self) -> int:
        """Evaluations per readout: one checkpoint under the old recipe."""
        return self.readout_k if self.name == "reviewed" else 1

    def readout(self) -> str:
        if self.name == "old":
            return "one held-out evaluation at each budget, on a constant-rate run (mid-flight)"
        return (
            f"mean of the last {self.readout_k} held-out evaluations of each budget's decay branch, "
            "the same for every arm, fixed before the run"
        )

    def pilot_steps(self, longest: int) -> int:
        return max(1, round(self.pilot_fraction * longest))

    def record(self, lr_by_size: dict[str, float] | None = None, **extra: object) -> dict:
        """What a result stores as `recipe`: {name, lr_grid, lr_by_size, schedule, readout} (+ `extra`)."""
        grid = list(self.lr_grid) if self.name == "reviewed" else [self.lr]
        return {
            "name": self.name,
            "lr_grid": grid,
            "lr_by_size": dict(lr_by_size or {}),
            "schedule": self.schedule.describe(),
            "readout": self.readout(),
            **extra,
        }


def old_record(lr: float, sizes: Iterable[Hashable], warmup: int = 20, **extra: object) -> dict:
    """The truthful `recipe` of a result made before the lab: one rate for every size, constant, one checkpoint."""
    recipe = LabRecipe("old", lr=lr, warmup=warmup)
    return recipe.record({str(s): lr for s in sizes}, **extra)


def of_config(config: object) -> dict:
    """The `recipe` of a result from its `config`, for results that do not record one: the old recipe with the
    config's one rate (`lr`, else each of its `lrs`, a rate sweep) for every size it names."""
    config = config if isinstance(config, dict) else {}
    sizes = next(
        (config[k] for k in ("widths", "depths", "sizes", "ratios") if isinstance(config.get(k), list)),
        [config.get("d_model", config.get("width", "all"))],
    )
    sizes = [s if not isinstance(s, list) else "x".join(map(str, s)) for s in sizes]
    if isinstance(config.get("lrs"), list):
        record = old_record(float(config["lrs"][0]), sizes, int(config.get("warmup", 20)))
        return {
            **record,
            "lr_grid": [float(v) for v in config["lrs"]],
            "lr_by_size": {},
            "note": "a learning-rate sweep: every rate of the grid is reported, none chosen",
        }
    return old_record(float(config.get("lr", 3e-3)), sizes, int(config.get("warmup", 20)))


SIZE_KEYS = ("task", "width", "depth", "wiring", "variant", "arm", "lx", "ly")  # what names a model's size and arm


def of_result(result: dict) -> dict:
    """The `recipe` a result records: its own when it has one; else, for a reviewed config, the grid and every
    run's chosen rate (keyed by what names its size and arm); else the old recipe (`of_config`)."""
    if isinstance(result.get("recipe"), dict):
        return result["recipe"]
    config = result.get("config", result.get("settings"))
    if not isinstance(config, dict) or config.get("recipe") != "reviewed":
        return of_config(config)
    runs = result.get("runs", result.get("records", []))
    runs = list(runs.values()) if isinstance(runs, dict) else runs
    chosen = {
        "/".join(f"{k}={r[k]}" for k in SIZE_KEYS if k in r): r["lr"] for r in runs if isinstance(r, dict) and "lr" in r
    }
    recipe = LabRecipe(
        "reviewed",
        lr_grid=tuple(config.get("lr_grid", DEFAULT_GRID)),
        warmup=int(config.get("warmup", 20)),
        decay_fraction=float(config.get("decay_fraction", 0.2)),
        readout_k=int(config.get("readout_k", 3)),
    )
    return recipe.record(chosen)


def choose_lr(grid: Iterable[float], pilot: Callable[[float], float]) -> tuple[float, dict[float, float]]:
    """The rate of `grid` whose pilot gives the lowest selection loss (NaN counts as worst); all pilot losses."""
    losses = {float(lr): float(pilot(float(lr))) for lr in grid}
    best = min(losses, key=lambda lr: (losses[lr] != losses[lr], losses[lr]))  # NaN last
    return best, losses
