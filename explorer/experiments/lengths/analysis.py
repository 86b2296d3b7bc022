"""Statistics over seeds of a toy run: paired tests per ratio, the trend with the length ratio, curves.

The design sets what can be claimed. Runs are paired by seed (same initial data and held-out set for every arm),
so each ratio gets an exact sign-flip test over seeds; every test of a page is one family for Holm's correction.
The trend with the length ratio is tested with the right unit: a slope per seed (seeds are the replicates), and
the ratios' mean gaps against their order (the ratios are the design points). Each ratio is a different task,
so no test here can separate the length ratio from the task's difficulty.
"""

from __future__ import annotations

import math

import numpy as np

from explorer.experiments.lengths.toy import ARMS, MATCHINGS
from explorer.stats import ALPHA, holm, sign_flip_p, smallest_p, trend_permutation_p


def paired_test(encdec: np.ndarray, decoder: np.ndarray) -> dict:
    """Exact sign-flip test over seeds on the log loss ratio ln(encdec / decoder): < 0 means encoder-decoder
    lower. With one seed there is no test (p nan)."""
    gap = np.log(encdec) - np.log(decoder)
    n = len(gap)
    return {
        "n": n,
        "gap_mean": float(gap.mean()),
        "gaps": gap.tolist(),
        "encdec_lower": int((gap < 0).sum()),
        "p": sign_flip_p(gap) if n > 1 else float("nan"),
        "smallest_p": smallest_p(n),
    }


def _sd(values: np.ndarray) -> float:
    return float(values.std(ddof=1)) if len(values) > 1 else 0.0


def loss_of(record: dict, metric: str) -> float:
    """`final`: held-out loss at the last evaluation; `curve`: mean held-out loss over every evaluation."""
    losses = [r["eval_loss"] for r in record["history"]]
    return float(losses[-1] if metric == "final" else np.mean(losses))


METRICS = {"curve": "held-out loss averaged over the run's evaluations", "final": "held-out loss at the last step"}


def analyse(run_result: dict, metric: str = "curve") -> dict:
    """Per ratio and matching: both families' losses over seeds and the paired test (uncorrected; `claims`
    corrects the whole family).

    Only seeds complete for every arm of a ratio enter that ratio's rows.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {sorted(METRICS)}, got {metric!r}")
    cfg = run_result["config"]
    by = {(r["lx"], r["ly"], r["arm"], r["seed"]): r for r in run_result["records"]}
    rows = []
    for matching, arm in MATCHINGS.items():
        for lx, ly in (tuple(r) for r in cfg["ratios"]):
            seeds = [s for s in cfg["seeds"] if all((lx, ly, a, s) in by for a in ARMS)]
            if not seeds:
                continue
            dec = np.array([loss_of(by[(lx, ly, "decoder", s)], metric) for s in seeds])
            ed = np.array([loss_of(by[(lx, ly, arm, s)], metric) for s in seeds])
            rows.append(
                {
                    "lx": lx,
                    "ly": ly,
                    "matching": matching,
                    "metric": metric,
                    "seeds": seeds,
                    "decoder": dec.tolist(),
                    "encdec": ed.tolist(),
                    "decoder_mean": float(dec.mean()),
                    "decoder_sd": _sd(dec),
                    "encdec_mean": float(ed.mean()),
                    "encdec_sd": _sd(ed),
                    "parameters": {a: by[(lx, ly, a, seeds[0])]["parameters"] for a in ("decoder", arm)},
                    "flops_per_example": {a: by[(lx, ly, a, seeds[0])]["flops_per_example"] for a in ("decoder", arm)},
                    **paired_test(ed, dec),
                }
            )
    return {
        "metric": metric,
        "metric_text": METRICS[metric],
        "rows": rows,
        "config": cfg,
        "stopped": run_result.get("stopped", "steps"),
    }


def log_ratio(lx: int, ly: int) -> float:
    """The trend's x axis: doublings of Lx / Ly (20->4: +2.32, 12->12: 0, 4->20: -2.32)."""
    return math.log2(lx / ly)


def seed_slopes(rows: list[dict]) -> dict[int, float]:
    """Per seed present at every ratio of `rows` (one matching, one metric): the least-squares slope of its gap
    against log2(Lx/Ly). One number per seed, so the seeds, not the points, are the replicates."""
    common = sorted(set.intersection(*(set(r["seeds"]) for r in rows)))
    x = np.array([log_ratio(r["lx"], r["ly"]) for r in rows])
    out = {}
    for seed in common:
        gap = np.array([r["gaps"][r["seeds"].index(seed)] for r in rows])
        out[seed] = float(np.polyfit(x, gap, 1)[0])
    return out


def _trend(rows: list[dict], matching: str, metric: str) -> dict:
    """The gap against the length ratio, at the two levels the design allows (see the module docstring)."""
    slopes = seed_slopes(rows)
    values = np.array(list(slopes.values()))
    x = [log_ratio(r["lx"], r["ly"]) for r in rows]
    means = [r["gap_mean"] for r in rows]
    return {
        "matching": matching,
        "metric": metric,
        "n_seeds": len(values),
        "slopes": values.tolist(),
        "slope_mean": float(values.mean()) if len(values) else float("nan"),
        "negative": int((values < 0).sum()),
        "seed_p": sign_flip_p(values) if len(values) > 1 else float("nan"),
        "seed_smallest_p": smallest_p(len(values)),
        "n_ratios": len(rows),
        "ratio_gaps": means,
        "ratio_p": trend_permutation_p(x, means),
        "ratio_smallest_p": trend_permutation_p(x, x),
    }


def claims(run_result: dict) -> dict:
    """Everything the page may conclude from a run, both metrics at once.

    `by_metric[m]`: `analyse(run_result, m)`, each row with `holm_p`, Holm's correction over every per-ratio
    test of both metrics and both matchings (one family: the page shows them together). `trends`: per metric
    and matching (where there are two ratios or more), the per-seed slope test and the test over ratios, each
    family Holm-corrected (`seed_holm_p`, `ratio_holm_p`). `design`: seeds, ratios, how many tests, the
    smallest p-value each test and each correction can give, and how much the tasks' difficulty differs.
    """
    by_metric = {m: analyse(run_result, m) for m in METRICS}
    rows = [r for m in METRICS for r in by_metric[m]["rows"]]
    for row, adjusted in zip(rows, holm([r["p"] for r in rows])):
        row["holm_p"] = float(adjusted)
    trends = []
    for metric in METRICS:
        for matching in MATCHINGS:
            mine = [r for r in by_metric[metric]["rows"] if r["matching"] == matching]
            if len({(r["lx"], r["ly"]) for r in mine}) >= 2:
                trends.append(_trend(mine, matching, metric))
    for level in ("seed", "ratio"):
        for trend, adjusted in zip(trends, holm([t[f"{level}_p"] for t in trends])):
            trend[f"{level}_holm_p"] = float(adjusted)
    return {
        "by_metric": by_metric,
        "trends": trends,
        "design": _design(rows, trends),
        "config": run_result["config"],
        "stopped": run_result.get("stopped", "steps"),
    }


def _design(rows: list[dict], trends: list[dict]) -> dict:
    n_seeds = max((r["n"] for r in rows), default=0)
    tested = [r for r in rows if math.isfinite(r["p"])]
    difficulty = {}
    for metric in METRICS:
        losses = {(r["lx"], r["ly"]): r["decoder_mean"] for r in rows if r["metric"] == metric}
        if losses:
            difficulty[metric] = {
                "decoder_loss": [{"lx": lx, "ly": ly, "mean": v} for (lx, ly), v in losses.items()],
                "span": max(losses.values()) / min(losses.values()),
            }
    lowest = smallest_p(n_seeds)
    return {
        "n_seeds": n_seeds,
        "n_ratios": len({(r["lx"], r["ly"]) for r in rows}),
        "alpha": ALPHA,
        "ratio_tests": len(tested),
        "ratio_smallest_p": lowest,
        "ratio_smallest_holm_p": min(1.0, lowest * len(tested)) if tested else float("nan"),
        "trend_tests": len(trends),
        "trend_seed_smallest_holm_p": min(1.0, lowest * len(trends)) if trends else float("nan"),
        "trend_ratio_smallest_p": min((t["ratio_smallest_p"] for t in trends), default=float("nan")),
        "difficulty": difficulty,
    }


def percent(log_ratio: float) -> float:
    """A log loss ratio as a percentage change of the loss: ln(a/b) = -0.1 -> -9.5%."""
    return 100.0 * math.expm1(log_ratio)


def learning_curves(run_result: dict) -> list[dict]:
    """Per ratio and arm: the seed-mean held-out loss at each evaluation step (for a curve figure)."""
    groups: dict[tuple, list[dict]] = {}
    for r in run_result["records"]:
        groups.setdefault((r["lx"], r["ly"], r["arm"]), []).append(r)
    out = []
    for (lx, ly, arm), recs in sorted(groups.items()):
        n = min(len(r["history"]) for r in recs)
        steps = [recs[0]["history"][i]["step"] for i in range(n)]
        loss = np.array([[r["history"][i]["eval_loss"] for i in range(n)] for r in recs])
        out.append(
            {
                "lx": lx,
                "ly": ly,
                "arm": arm,
                "steps": steps,
                "mean": loss.mean(0).tolist(),
                "low": loss.min(0).tolist(),
                "high": loss.max(0).tolist(),
                "seeds": len(recs),
            }
        )
    return out
