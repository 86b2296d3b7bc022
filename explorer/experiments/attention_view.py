"""The attention page's numbers and choices: the layout a text gets in each architecture, how many query-key
pairs its mask allows, the sentence that says so, and what a demo model wrote against the right answer,
computed from `explorer.experiments.attention`. The page lays them out with its content file; tests check them
directly."""

from __future__ import annotations

import pandas as pd

from explorer import content, i18n, tokenizer
from explorer.experiments import attention as att

BOOK = "attention"  # the page's content file: the words of the output panel and the token table

WRONG_SHOWN = 6  # wrong positions listed one by one; the rest are counted


def labels(arch: str, ids: tuple[int, ...]) -> tuple[list[str], list[str], dict]:
    """Input labels, target labels and each role's axes; target labels assume the right answer."""
    x_ids, target_side = att.expected_layout(arch, ids)
    return att.layout_labels(arch, x_ids, target_side)


def mask_counts(arch: str, n_in: int, m: int, causal_input: bool) -> tuple[int, int]:
    """(allowed, all) query-key pairs over [input ; target]."""
    codes = att.combined_categories(arch, n_in, m, causal_input)
    return int((codes != att.BLOCKED).sum()), int(codes.size)


def masks_notice(arch: str) -> str:
    """What to notice under the masks: how this architecture's masks read, and what an empty cell means."""
    return content.text(BOOK, f"masks-notice-{arch.replace('_', '-')}") + " " + content.text(BOOK, "masks-empty-cells")


def variants_note(arch: str) -> str:
    """The sentence the help of each step-4 variant ends with: none for an encoder-decoder, else that the
    variants (disabled here) rewire one."""
    return "" if arch == "encoder_decoder" else " " + content.text(BOOK, "only-encoder-decoder")


def takeaway(arch: str, causal_input: bool, ids: tuple[int, ...]) -> tuple[str, dict]:
    """(kind, values) of the sentence under the masks: how many pairs the mask allows, and who reads whom.
    The kind is the architecture's name in the content file (`encoder-decoder-causal` after step 4)."""
    inputs, targets, _ = labels(arch, ids)
    allowed, cells = mask_counts(arch, len(inputs), len(targets), causal_input)
    if arch == "encoder":
        return "encoder", {"cells": cells, "slots": len(inputs)}
    kind = arch.replace("_", "-") + ("-causal" if arch == "encoder_decoder" and causal_input else "")
    return kind, {"allowed": allowed, "cells": cells, "share": allowed / cells}


def output_summary(read: dict, meta: dict) -> dict:
    """What the model wrote against the right answer (the wrong positions, numbered from 1) and how often it is
    right on held-out strings (`accuracy`: None when the model's file does not say)."""
    wrong, n = read["wrong_positions"], len(read["expected_ids"])
    got, want = read["output_ids"], read["expected_ids"]  # per id, so a "<pad>" stays one token
    sep = ", " if i18n.current() == "en" else "，"
    shown = sep.join(
        content.text(
            BOOK, "wrong-item", pos=i + 1, got=repr(tokenizer.decode([got[i]])), want=repr(tokenizer.decode([want[i]]))
        )
        for i in wrong[:WRONG_SHOWN]
    )
    accuracy = meta.get("accuracy") or None
    return {
        "input": tokenizer.decode(read["input_ids"]),
        "expected": read["expected"],
        "output": read["output"],
        "verdict": content.text(BOOK, "verdict-all")
        if not wrong
        else content.text(BOOK, "verdict-some", right=n - len(wrong), n=n),
        "wrong": shown,
        "more": sep + content.text(BOOK, "wrong-more", n=len(wrong) - WRONG_SHOWN) if len(wrong) > WRONG_SHOWN else "",
        "accuracy": accuracy
        and {
            "strings": accuracy["strings"],
            "max": att.MAX_CHARS,
            "chars": accuracy["char_accuracy"],
            "exact": accuracy["exact_match"],
        },
        "stopped_at_limit": meta.get("training", {}).get("stopped") == "time_budget",
    }


def accuracy_caption(said: dict) -> str | None:
    """The held-out accuracy under the output (`output_summary`), saying so when training stopped at its time
    limit; None when the model's file does not record it."""
    if not said["accuracy"]:
        return None
    note = " " + content.text(BOOK, "stopped-at-limit") if said["stopped_at_limit"] else ""
    return content.text(BOOK, "accuracy", **said["accuracy"], note=note)


def overview_role(arch: str, read: dict) -> str:
    """The role whose heads the overview shows: cross-attention where there is one, else the only role."""
    return "cross" if arch == "encoder_decoder" else next(iter(read["roles"]))


def token_table(encoding: tokenizer.Encoding) -> pd.DataFrame:
    """Characters, tokens and ids, one column per position (a space shown as ␣)."""
    ids = encoding.ids
    return pd.DataFrame(
        [
            ["␣" if c == " " else c for c in encoding.characters],
            [tokenizer.label(i) for i in ids],
            [str(i) for i in ids],
        ],
        index=[
            content.text(BOOK, "table-character"),
            content.text(BOOK, "table-token"),
            content.text(BOOK, "table-id"),
        ],
        columns=[f"t={t}" for t in range(len(ids))],
    )
