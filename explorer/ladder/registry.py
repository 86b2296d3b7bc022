"""The ladder's claims by the names the CLI takes (issue 37). A claim not yet on a ladder is named with what it
still needs, so the CLI can say so in one line instead of pretending."""

from __future__ import annotations

from explorer.ladder.bidirectional import Bidirectional
from explorer.ladder.bitter_lesson import BitterLesson
from explorer.ladder.claim import Claim
from explorer.ladder.crossover import Crossover
from explorer.ladder.depth import Depth
from explorer.ladder.four_steps import FourSteps
from explorer.ladder.shared_params import SharedParams

NAMES = ("bitter-lesson", "crossover", "bidirectional", "shared-params", "depth", "four-steps")
CLAIMS: dict[str, Claim] = {
    c.name: c for c in (Bidirectional(), SharedParams(), Depth(), FourSteps(), Crossover(), BitterLesson())
}
PRESETS = ("quick", "main")


def get(name: str) -> Claim:
    """The claim called `name`; ValueError (one clear line) for an unknown one or one without a ladder yet."""
    if name not in NAMES:
        raise ValueError(f"claim must be one of {', '.join(NAMES)}, got {name!r}")
    if name not in CLAIMS:
        raise ValueError(f"the {name} claim has no ladder yet (on one so far: {', '.join(CLAIMS)})")
    return CLAIMS[name]
