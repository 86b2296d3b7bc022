"""Length profiles (slide 58): pairs of lengths to feed the accounting, from a profile, typed or uploaded.

Three synthetic, illustrative profiles, typed pairs or an uploaded CSV (validated, since it comes from a
student); their mean lengths and their exact mean FLOPs per example.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from explorer import content
from explorer.costs import sequence_forward_flops
from explorer.csv_upload import (
    UploadError,
    find_column,
    header_text,
    inline_code,
    line_list,
    lines_phrase,
    read_rows,
    require_rows,
)
from explorer.experiments.lengths.accounting import Shape
from explorer.experiments.lengths.families import DECODER, ENCDEC, FAMILIES

MAX_ROWS = 10_000  # pairs in an upload
MAX_BYTES = 2_000_000  # bytes in an upload
MAX_LENGTH = 100_000  # tokens on either side of one pair
MAX_TYPED = 50  # pairs typed into the text field
PROFILE_SEED = 58  # the slide that shows the length distribution
PROFILE_PAIRS = 2_000
BOOK = "lengths"  # the messages below are the length page's text
INPUT_NAMES = ("input_len", "input_length", "input_tokens", "input", "lx", "inputs")
TARGET_NAMES = (
    "target_len",
    "target_length",
    "target_tokens",
    "target",
    "ly",
    "output_len",
    "output_tokens",
    "output",
    "targets",
)


class LengthsError(UploadError):
    """Pairs of lengths that cannot be used; the message names the problem for the student."""


@dataclass(frozen=True)
class Profile:
    """A synthetic length profile: log-normal input and target lengths. Illustrative, not measured."""

    name: str
    input_median: float
    input_spread: float  # sigma of log length
    target_median: float
    target_spread: float
    story: str  # what kind of example it imitates, in a few words

    def sample(self, n: int = PROFILE_PAIRS, seed: int = PROFILE_SEED) -> pd.DataFrame:
        rng = np.random.default_rng([seed, sum(map(ord, self.name))])
        lx = rng.lognormal(math.log(self.input_median), self.input_spread, n)
        ly = rng.lognormal(math.log(self.target_median), self.target_spread, n)
        clip = lambda a: np.clip(np.rint(a), 1, MAX_LENGTH).astype(np.int64)  # noqa: E731
        return pd.DataFrame({"input_len": clip(lx), "target_len": clip(ly)})


PROFILES = {
    "academic benchmark": Profile(
        "academic benchmark", 220, 0.7, 3, 0.8, "a passage or question with options in, a label or a few words out"
    ),
    "chat": Profile(
        "chat", 160, 0.9, 190, 0.8, "a user turn with some earlier context in, a reply of similar size out"
    ),
    "long-form writing": Profile(
        "long-form writing", 45, 0.6, 900, 0.6, "a short instruction in, an essay or story out"
    ),
}


@lru_cache(maxsize=8)
def profile_pairs(name: str) -> pd.DataFrame:
    if name not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {name!r}")
    return PROFILES[name].sample()


def _as_lengths(cells: list[str], side: str, where: list[int]) -> np.ndarray:
    """The column's cells as lengths (`side`: "input" or "target", which column the message names)."""
    values, bad = [], []
    for cell, line in zip(cells, where):
        try:
            x = float(cell.strip().replace("_", ""))
        except ValueError:
            bad.append(line)
            continue
        values.append(x)
    if bad:
        raise LengthsError(
            content.text(
                BOOK, f"error-not-numbers-{side}", lines=lines_phrase(bad, "is", "are"), numbers=line_list(bad)
            )
        )
    arr = np.asarray(values)
    wrong = [
        where[i] for i in np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)) | (arr < 1) | (arr > MAX_LENGTH))
    ]
    if wrong:
        raise LengthsError(
            content.text(
                BOOK,
                f"error-out-of-range-{side}",
                longest=f"{MAX_LENGTH:,}",
                lines=lines_phrase(wrong, "is", "are"),
                numbers=line_list(wrong),
            )
        )
    return arr.astype(np.int64)


def _used_columns(header: list[str]) -> tuple[int | None, int | None]:
    """Where the input and target lengths are in an upload's header; None for one it lacks."""
    return find_column(header, INPUT_NAMES), find_column(header, TARGET_NAMES)


def read_pairs(raw: bytes) -> pd.DataFrame:
    """An uploaded CSV of length pairs -> columns input_len, target_len; LengthsError names what is wrong.

    The header must name an input column (`input_len`, `lx`, ...) and a target column (`target_len`, `ly`, ...);
    at most MAX_ROWS rows and MAX_BYTES bytes; lengths are whole numbers of tokens from 1 to MAX_LENGTH.
    """
    try:
        header, body = read_rows(raw, MAX_ROWS, MAX_BYTES, keep=_used_columns)  # each row: its two lengths
        if None in _used_columns(header):
            raise UploadError(content.text(BOOK, "error-header", found=header_text(header)))
        require_rows(body, [0, 1])
    except UploadError as err:  # the shared checks, re-raised as this page's error
        raise LengthsError(str(err)) from None
    where = [n for n, _ in body]
    return pd.DataFrame(
        {
            "input_len": _as_lengths([r[0] for _, r in body], "input", where),
            "target_len": _as_lengths([r[1] for _, r in body], "target", where),
        }
    )


def parse_typed(text: str) -> pd.DataFrame:
    """Pairs typed as `Lx:Ly`, separated by commas, semicolons or spaces, e.g. `300:4, 120:8`."""
    items = [t for t in re.split(r"[,;\s]+", text.strip()) if t]
    if not items:
        raise LengthsError(content.text(BOOK, "error-no-pair"))
    if len(items) > MAX_TYPED:
        raise LengthsError(content.text(BOOK, "error-too-many", n=len(items), limit=MAX_TYPED))
    bad = [t for t in items if not re.fullmatch(r"\d+:\d+", t)]
    if bad:
        raise LengthsError(content.text(BOOK, "error-not-a-pair", item=inline_code(bad[0], 20)))
    # capped before numpy (or int() and its 4300-digit limit) sees them: 10**20 tokens is too long, not an overflow
    too_long = MAX_LENGTH + 1
    pairs = np.array(
        [[min(int(a), too_long) if len(a) <= 20 else too_long for a in t.split(":")] for t in items], dtype=np.int64
    )
    if (pairs < 1).any() or (pairs > MAX_LENGTH).any():
        raise LengthsError(content.text(BOOK, "error-typed-range", longest=f"{MAX_LENGTH:,}"))
    return pd.DataFrame({"input_len": pairs[:, 0], "target_len": pairs[:, 1]})


def length_stats(pairs: pd.DataFrame) -> dict:
    """Mean and median lengths of pairs, their ratio, and the share of a decoder-only model's tokens that are input."""
    if pairs.empty:
        raise LengthsError(content.text(BOOK, "error-no-pairs"))
    lx, ly = pairs["input_len"].to_numpy(), pairs["target_len"].to_numpy()
    mx, my = float(lx.mean()), float(ly.mean())
    return {
        "n": int(len(pairs)),
        "mean_input": mx,
        "mean_target": my,
        "median_input": float(np.median(lx)),
        "median_target": float(np.median(ly)),
        "ratio_of_means": mx / my,
        "share_longer_input": float((lx > ly).mean()),
        "decoder_input_share": mx / (mx + my),
    }


def profile_stats(pairs: pd.DataFrame, shape: Shape) -> dict:
    """`length_stats` and the exact mean forward FLOPs per example of both families.

    FLOPs are not linear in the lengths (attention is quadratic), so the mean FLOPs average the exact
    count of every pair (grouped by distinct pairs), not the count at the mean lengths.
    """
    out = length_stats(pairs)
    distinct, counts = np.unique(pairs[["input_len", "target_len"]].to_numpy(), axis=0, return_counts=True)
    mean_flops = {}
    for family in FAMILIES:
        cfg = shape.config(family)
        per = np.array([sequence_forward_flops(cfg, int(a), int(b)) for a, b in distinct], dtype=float)
        mean_flops[family] = float((per * counts).sum() / counts.sum())
    return {**out, "mean_flops": mean_flops, "flop_ratio": mean_flops[ENCDEC] / mean_flops[DECODER]}
