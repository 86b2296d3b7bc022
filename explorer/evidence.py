"""The evidence kinds every figure declares (the lecture's discipline: never pass an extrapolation off
as a measurement)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from explorer import content


class Kind(str, Enum):
    MEASURED = "measured"  # computed live or by the CLI from real runs, with seed and config
    SIMULATION = "simulation"  # a numerical solution of a stated model (an ODE), not an observation
    BY_CONSTRUCTION = "by construction"  # holds because of how the thing is built (a mask), whatever the weights
    HISTORICAL = "historical data"  # rows with sources
    FIT = "fit"  # a line or curve fitted to data, drawn over the data's own range
    EXTRAPOLATION = "extrapolation"  # a fit carried beyond its data: dashed or hatched, never solid like data
    FORMULA = "formula"  # a closed-form count or bound, exact for the given sizes
    SCHEMATIC = "schematic"  # an illustration of an idea, no data
    CLASS_ANSWERS = "class answers"  # what a class guessed in class mode: opinions counted, not a measurement


@dataclass(frozen=True)
class Evidence:
    kind: Kind  # the main kind: it sets the badge colour
    detail: str = ""  # the config, seeds or source that back the figure
    also: tuple[Kind, ...] = ()  # further kinds drawn in the same figure (data + fit, say)
    note: str = ""  # a qualifier printed after the kinds, e.g. "no extrapolation"

    @property
    def kinds(self) -> tuple[Kind, ...]:
        return (self.kind, *self.also)

    @property
    def title(self) -> str:
        """The kinds in the run's language (the badge); `Kind.value` stays the English, machine-read name."""
        text = " + ".join(content.text("common", f"kind-{k.value.replace(' ', '-')}") for k in self.kinds)
        return f"{text} ({self.note})" if self.note else text

    @property
    def label(self) -> str:
        return self.title if not self.detail else f"{self.title} · {self.detail}"
