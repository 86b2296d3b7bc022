"""The base of every experiment's recipe: a frozen dataclass that fixes what a run computes.

A recipe is the cache key, the shipped file's `config` and the CLI's echo, so it must read back exactly as
written: lists from JSON become tuples again, `to_dict` gives what a JSON round trip gives, and seeds are
checked the same way on every page. Each experiment keeps its own fields, presets and size limits.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from typing import ClassVar, TypeVar

from explorer.lab.recipe import DEFAULT_GRID, LabRecipe
from explorer.train import TrainConfig

R = TypeVar("R", bound="Recipe")

# The lab's recipe fields (`explorer.lab.recipe`): an experiment that can run the reviewed recipe declares them;
# under the old recipe they are left out of `to_dict`, so old configs, cache keys and shipped files read as before.
LAB_FIELDS = ("recipe", "lr_grid", "decay_fraction", "readout_k")

# Fields a recipe may share with `TrainConfig`: `train_config` passes those it has.
TRAIN_FIELDS = ("steps", "batch_size", "lr", "warmup", "eval_every", "eval_size", "grad_clip")


def as_tuples(value: object) -> object:
    """Lists (from JSON) as tuples, nested ones too, so a recipe read back equals the one written."""
    return tuple(as_tuples(v) for v in value) if isinstance(value, (list, tuple)) else value


def check_seeds(seeds: tuple[int, ...], max_seeds: int) -> tuple[int, ...]:
    """1 to `max_seeds` distinct non-negative integer seeds, or a ValueError that names the rule."""
    seeds = tuple(int(s) for s in seeds)
    if not seeds or len(set(seeds)) != len(seeds) or min(seeds) < 0 or len(seeds) > max_seeds:
        raise ValueError(f"give 1 to {max_seeds} distinct non-negative seeds, got {list(seeds)}")
    return seeds


@dataclass(frozen=True)
class Recipe:
    """Subclasses are frozen dataclasses; their `__post_init__` calls this one first, then validates."""

    # Fields a longer or wider run covers (more seeds, windows, steps): a shipped or cached run with the same
    # settings and more of these serves a slice of itself. The one invalidation rule for every experiment.
    SLICES: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, as_tuples(getattr(self, f.name)))

    def to_dict(self) -> dict:
        """Plain JSON data (tuples as lists): what the shipped file and the result cache hold."""
        d = json.loads(json.dumps(asdict(self)))
        if d.get("recipe", "old") == "old":
            for name in LAB_FIELDS:
                d.pop(name, None)
        return d

    def lab_recipe(self) -> LabRecipe:
        """How this run is made (`explorer.lab.recipe`): the old recipe unless the experiment declares otherwise."""
        given = {name: getattr(self, name) for name in ("lr", "warmup", *LAB_FIELDS[1:]) if hasattr(self, name)}
        return LabRecipe(getattr(self, "recipe", "old"), **given)

    @classmethod
    def from_dict(cls: type[R], d: dict) -> R:
        return cls(**{k: as_tuples(v) for k, v in d.items()})

    def settings(self) -> dict:
        """Every field but the slice fields: runs with equal settings can share records."""
        return {k: v for k, v in self.to_dict().items() if k not in self.SLICES}

    def same_settings(self, config: dict) -> bool:
        """Was `config` (a shipped or cached run's) made with these settings, whatever its slice?"""
        return self.settings() == {k: v for k, v in json.loads(json.dumps(config)).items() if k not in self.SLICES}

    def train_config(self, seed: int, **overrides) -> TrainConfig:
        """The trainer's settings for one seed: the recipe's shared fields, then `overrides`."""
        shared = {name: getattr(self, name) for name in TRAIN_FIELDS if hasattr(self, name)}
        return TrainConfig(**{**shared, "seed": seed, **overrides})


@dataclass(frozen=True)
class Reviewable(Recipe):
    """A recipe that can also run the reviewed recipe (`explorer.lab.recipe`): its four settings, declared once.
    Under the old recipe they stay out of `to_dict` (old configs, cache keys and shipped files read as before)."""

    recipe: str = "old"  # "reviewed": lr per size from `lr_grid` by pilots, WSD decay, readout fixed in advance
    lr_grid: tuple[float, ...] = DEFAULT_GRID
    decay_fraction: float = 0.2
    readout_k: int = 3

    def __post_init__(self) -> None:
        super().__post_init__()
        self.lab_recipe()  # an unknown recipe or a grid spanning less than 10x: one clear line
