"""Statistics over seeds of a toy run: paired tests per ratio, the trend with the length ratio, curves.

Small models trained from scratch differ by seed, so every comparison says how large an effect the design
could have detected.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from explorer.experiments.lengths.toy import ARMS, MATCHINGS
from explorer.stats import minimum_detectable


def paired_test(encdec: np.ndarray, decoder: np.ndarray) -> dict:
    """Paired t-test over seeds on the log loss ratio ln(encdec / decoder): < 0 means encoder-decoder lower."""
    gap = np.log(encdec) - np.log(decoder)
    n = len(gap)
    out = {"n": n, "gap_mean": float(gap.mean()), "gaps": gap.tolist()}
    if n < 2:
        return {**out, "gap_sd": float("nan"), "p": float("nan"), "ci95": [float("nan")] * 2, "mde": float("nan")}
    sd = float(gap.std(ddof=1))
    se = sd / math.sqrt(n)
    t = stats.t.ppf(0.975, n - 1)
    p = float(stats.ttest_rel(np.log(encdec), np.log(decoder)).pvalue) if sd > 0 else float("nan")
    return {**out, "gap_sd": sd, "p": p, "ci95": [out["gap_mean"] - t * se, out["gap_mean"] + t * se],
            "mde": minimum_detectable(se, n - 1)}


def _sd(values: np.ndarray) -> float:
    return float(values.std(ddof=1)) if len(values) > 1 else 0.0


def loss_of(record: dict, metric: str) -> float:
    """`final`: held-out loss at the last evaluation; `curve`: mean held-out loss over every evaluation."""
    losses = [r["eval_loss"] for r in record["history"]]
    return float(losses[-1] if metric == "final" else np.mean(losses))


METRICS = {"curve": "held-out loss averaged over the run's evaluations",
           "final": "held-out loss at the last step"}


def analyse(run_result: dict, metric: str = "curve") -> dict:
    """Per ratio and matching: both families' losses over seeds, the paired test and its detectable effect;
    per matching: whether the gap moves with the length ratio (a regression of the gap on log2(Lx/Ly)).

    Only seeds complete for every arm of a ratio enter that ratio's rows.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {sorted(METRICS)}, got {metric!r}")
    cfg = run_result["config"]
    by = {(r["lx"], r["ly"], r["arm"], r["seed"]): r for r in run_result["records"]}
    rows, trend = [], {}
    for matching, arm in MATCHINGS.items():
        xs, gaps = [], []
        for lx, ly in (tuple(r) for r in cfg["ratios"]):
            seeds = [s for s in cfg["seeds"] if all((lx, ly, a, s) in by for a in ARMS)]
            if not seeds:
                continue
            dec = np.array([loss_of(by[(lx, ly, "decoder", s)], metric) for s in seeds])
            ed = np.array([loss_of(by[(lx, ly, arm, s)], metric) for s in seeds])
            test = paired_test(ed, dec)
            rows.append({"lx": lx, "ly": ly, "matching": matching, "seeds": seeds,
                         "decoder": dec.tolist(), "encdec": ed.tolist(),
                         "decoder_mean": float(dec.mean()), "decoder_sd": _sd(dec),
                         "encdec_mean": float(ed.mean()), "encdec_sd": _sd(ed),
                         "parameters": {a: by[(lx, ly, a, seeds[0])]["parameters"] for a in ("decoder", arm)},
                         "flops_per_example": {a: by[(lx, ly, a, seeds[0])]["flops_per_example"]
                                               for a in ("decoder", arm)}, **test})
            xs += [math.log2(lx / ly)] * len(seeds)
            gaps += test["gaps"]
        trend[matching] = ratio_trend(np.array(xs), np.array(gaps))
    return {"metric": metric, "metric_text": METRICS[metric], "rows": rows, "trend": trend,
            "config": cfg, "stopped": run_result.get("stopped", "steps")}


def ratio_trend(x: np.ndarray, gap: np.ndarray) -> dict:
    """Slope of the gap per doubling of Lx/Ly, its p-value and the smallest slope the design detects.

    The FLAN explanation predicts a negative slope: the longer the input relative to the target, the more
    the encoder-decoder gains (the gap is ln(encdec / decoder) loss, lower = encoder-decoder better).
    """
    if len(set(x.tolist())) < 2 or len(x) < 3:
        return {"slope": float("nan"), "p": float("nan"), "se": float("nan"), "mde": float("nan"), "n": len(x)}
    fit = stats.linregress(x, gap)
    return {"slope": float(fit.slope), "p": float(fit.pvalue), "se": float(fit.stderr), "n": len(x),
            "mde": minimum_detectable(float(fit.stderr), len(x) - 2)}


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
        out.append({"lx": lx, "ly": ly, "arm": arm, "steps": steps, "mean": loss.mean(0).tolist(),
                    "low": loss.min(0).tolist(), "high": loss.max(0).tolist(), "seeds": len(recs)})
    return out
