"""How numbers read on every page, figure and export: p-values, large counts, seed lists, plurals.

One place, so that a p-value, 3.5e9 FLOPs or "seeds 0-2" look the same wherever a student meets them. Words
(seed lists, counted nouns, the colon after a progress prefix) come in the run's language, from
content/<lang>/messages.md; numbers read the same in both.
"""

from __future__ import annotations

import math
from typing import Sequence

from explorer import content, i18n

BOOK = "messages"  # the words of these helpers: content/<lang>/messages.md
COUNTED = (
    "run",
    "model",
    "seed",
    "thread",
    "paired seed",
    "cached result",
    "layer",
    "turn",
    "row",
    "new token",
)  # nouns `plural` words in Chinese too


def p_text(p: float | None) -> str:
    """A p-value for a table cell: `n/a` without a test, `< 0.001` when tiny, else three decimals."""
    if p is None or not math.isfinite(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def p_label(p: float | None) -> str:
    """`p = 0.012`, `p < 0.001` or `p n/a`, for running text and labels."""
    text = p_text(p)
    return f"p {text}" if text[0] in "<n" else f"p = {text}"


def si(x: float, digits: int = 3) -> str:
    """1.23M, 45.6G: counts that span many orders of magnitude, readable at a glance."""
    for unit, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= size:
            return f"{x / size:.{digits}g}{unit}"
    return f"{x:.{digits}g}"


def sci(x: float, digits: int = 3) -> str:
    """1.11e10, not 1.11e+10: compact and readable on a slide (∞ for an infinite value)."""
    if x == math.inf:
        return "∞"
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def plural(k: int, word: str) -> str:
    """`1 model`, `6 models`: a count with its noun; in Chinese `6 个模型` for the nouns of `COUNTED` (any other
    noun stays English: the command line's words)."""
    english = f"{k:,} {word}" + ("" if k == 1 else "s")
    if word not in COUNTED:
        return english
    return content.text(BOOK, f"n-{word.replace(' ', '-')}", text=english, n=f"{k:,}")


def seed_list(seeds: Sequence[int]) -> str:
    """`seed 0`, `seeds 0-4` for a run of consecutive seeds, else `seeds 0, 2, 5`, in the run's language."""
    seeds = sorted(seeds)
    if len(seeds) == 1:
        return content.text(BOOK, "seeds-one", seed=seeds[0])
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return content.text(BOOK, "seeds-run", first=seeds[0], last=seeds[-1])
    return content.text(BOOK, "seeds-list", seeds=(", " if i18n.current() == "en" else "、").join(map(str, seeds)))


def colon() -> str:
    """What joins a label to what follows it (a progress prefix to its message): ': ' in English, '：' in
    Chinese."""
    return ": " if i18n.current() == "en" else "："
