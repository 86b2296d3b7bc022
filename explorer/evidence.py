"""The evidence kinds every figure declares (the lecture's discipline: never pass an extrapolation off
as a measurement)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Kind(str, Enum):
    MEASURED = "measured"  # computed live or by the CLI from real runs, with seed and config
    HISTORICAL = "historical data"  # rows with sources
    FIT = "fit / extrapolation"  # drawn dashed or shaded, never solid like data
    FORMULA = "formula"  # a closed-form count or bound, exact for the given sizes
    SCHEMATIC = "schematic"  # an illustration of an idea, no data


@dataclass(frozen=True)
class Evidence:
    kind: Kind
    detail: str = ""  # the config, seeds or source that back the figure

    @property
    def label(self) -> str:
        return self.kind.value if not self.detail else f"{self.kind.value} · {self.detail}"
