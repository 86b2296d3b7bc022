"""The numbers behind the one plain sentence that opens each measured tab ("what it found"), read from the
shipped results the tab shows, so the sentence moves with them. The statistics (p-values, Holm, TOST) stay in
each page's own text, in the tab's collapsed "For the reviewer" part."""

from __future__ import annotations

ALPHA = 0.05  # a difference "holds" when its Holm-corrected p is below this


def ablation(paired: dict, steps: int) -> dict | None:
    """Step 4 against decoder-only after `steps` steps, and how many of all the variants' pairwise differences
    hold once corrected together; None when step 4 and decoder-only were not both trained with two seeds."""
    eq = paired.get("equivalence")
    if eq is None or eq["n"] < 2:
        return None
    row = next(r for r in paired["pairs"] if (r["a"], r["b"]) == (eq["a"], eq["b"]))
    held = sum(r["holm_p"] < ALPHA for r in paired["pairs"])
    return {
        "steps": steps,
        "size": abs(row["mean_diff"]),
        "seeds": row["n"],
        "held": held,
        "pairs": len(paired["pairs"]),
    }


def length_toy(verdict: dict, analysis: dict) -> dict:
    """How many of the toy's ratio tests hold after correction, and its largest gap as a share of the
    decoder-only loss (`analysis`: the shipped run at the loss measure shown)."""
    gaps = [
        abs(r["encdec_mean"] - r["decoder_mean"]) / r["decoder_mean"] for r in analysis["rows"] if r["decoder_mean"]
    ]
    return {
        "ratios": verdict["ratios"],
        "seeds": verdict["seeds"],
        "tests": verdict["tests"],
        "held": len(verdict["held"]),
        "largest": max(gaps, default=0.0),
    }


def depth_gaps(analysis: dict, at_depth) -> dict | None:
    """Layer-aligned minus final-only accuracy (points) at the shallowest and the deepest depth measured
    (`at_depth(analysis, depth)`: the depth page's reading of one depth); None with fewer than two depths."""
    measured = [(d, at_depth(analysis, d)) for d in sorted(analysis["depths"])]
    measured = [(d, here) for d, here in measured if here is not None]
    if len(measured) < 2:
        return None
    (first, low), (last, high) = measured[0], measured[-1]
    return {"first": first, "first_gap": low["gap"], "last": last, "last_gap": high["gap"]}


def depth_control(main: dict, control: dict, at_depth) -> dict | None:
    """The accuracy gap on both tasks at the deepest depth both measured; None when they share none."""
    common = sorted(set(main["depths"]) & set(control["depths"]))
    for depth in reversed(common):
        here, there = at_depth(main, depth), at_depth(control, depth)
        if here is not None and there is not None:
            return {"depth": depth, "main_gap": here["gap"], "control_gap": there["gap"]}
    return None


def stale(headline: dict) -> dict | None:
    """Accuracy on the new positions re-encoded and with the stale cache, on sort and on copy."""
    if not {"sort", "copy"} <= set(headline):
        return None
    return {
        f"{task}_{kind}": headline[task][f"accuracy_{kind}"]
        for task in ("sort", "copy")
        for kind in ("reencode", "stale")
    }


def scaling(points: list[dict]) -> dict | None:
    """The benefit of bidirectional input after the longest budget, at the narrowest and the widest width."""
    if not points:
        return None
    steps = max(p["steps"] for p in points)
    last = sorted((p for p in points if p["steps"] == steps), key=lambda p: p["width"])
    if len(last) < 2:
        return None
    return {
        "steps": steps,
        "first": last[0]["width"],
        "first_gap": last[0]["gap"],
        "last": last[-1]["width"],
        "last_gap": last[-1]["gap"],
    }


def drift(table) -> dict | None:
    """The largest move of old tokens' keys and values when new tokens arrive: in the bidirectional encoder
    (the trained one when there is one) and in the causal model (`table`: `cache.drift_table`'s long table)."""
    kv = table[table["quantity"] == "keys & values"]
    bidirectional = kv[kv["model"].str.startswith("bidirectional")]
    trained = bidirectional[bidirectional["model"] == "bidirectional, trained"]
    causal = kv[kv["model"].str.startswith("causal")]
    if bidirectional.empty or causal.empty:
        return None
    return {
        "bidirectional": float((trained if not trained.empty else bidirectional)["relative_change"].max()),
        "causal": float(causal["relative_change"].max()),
    }
