"""The project's statistics, in one place, so every page tests the same way and says the same things.

The design decides the test: seeds that share initial weights and batches are paired (paired t, or the exact
sign-flip test for few seeds); independent groups use Welch or an exact permutation test. "No difference"
needs an equivalence test against a margin declared before looking (TOST) or a minimum detectable effect.
Many comparisons on one page get Holm's correction. `smallest_p` says how low a p-value the design can go,
so a page never prints one it cannot support. `rerun_tolerance` is the reproduction checks' yardstick.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Callable, Sequence

import numpy as np
from scipy import integrate, optimize, stats

ALPHA = 0.05
POWER = 0.8
EXACT_LIMIT = 16  # up to 2**16 sign patterns (or as many splits) are enumerated; beyond, Monte Carlo
MONTE_CARLO = 20_000


def _array(values: Sequence[float]) -> np.ndarray:
    return np.asarray(values, dtype=float)


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (nan for the sd of fewer than two values)."""
    arr = _array(values)
    if not len(arr):
        return float("nan"), float("nan")
    return float(arr.mean()), float(arr.std(ddof=1)) if len(arr) > 1 else float("nan")


# --- tests ----------------------------------------------------------------------------------------------


def welch(a: Sequence[float], b: Sequence[float]) -> dict:
    """Welch's t-test of mean(a) - mean(b) for independent groups: {mean_diff, t, p} (p nan below 2 each)."""
    a, b = _array(a), _array(b)
    diff = float(a.mean() - b.mean()) if len(a) and len(b) else float("nan")
    if len(a) < 2 or len(b) < 2:
        return {"mean_diff": diff, "t": float("nan"), "p": float("nan")}
    if a.var(ddof=1) + b.var(ddof=1) == 0:  # no spread: the seen difference is all there is
        return {
            "mean_diff": diff,
            "t": 0.0 if diff == 0 else math.copysign(math.inf, diff),
            "p": 1.0 if diff == 0 else 0.0,
        }
    t, p = stats.ttest_ind(a, b, equal_var=False)
    return {"mean_diff": diff, "t": float(t), "p": float(p)}


def paired_t(a: Sequence[float], b: Sequence[float]) -> dict:
    """Paired t-test on a - b (same seeds in the same order): {mean_diff, sd_diff, t, p, n}."""
    d = _array(a) - _array(b)
    mean, sd = mean_sd(d)
    out = {"mean_diff": mean, "sd_diff": sd, "n": len(d), "t": float("nan"), "p": float("nan")}
    if len(d) >= 2 and sd > 0:
        out["t"] = mean / (sd / math.sqrt(len(d)))
        out["p"] = float(2 * stats.t.sf(abs(out["t"]), len(d) - 1))
    elif len(d) >= 2:
        out["t"], out["p"] = (0.0, 1.0) if mean == 0 else (math.copysign(math.inf, mean), 0.0)
    return out


@functools.lru_cache(maxsize=None)
def _sign_patterns(n: int) -> np.ndarray:
    """All 2**n sign patterns, one per row (read-only). Built once per n: a page's tests ask for the same few n
    a hundred times per rerun, and building the rows cost more than the tests (0.4 s of the four-steps page)."""
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
    signs.setflags(write=False)
    return signs


def sign_flip_p(diffs: Sequence[float], seed: int = 0) -> float:
    """Two-sided exact sign-flip (paired permutation) p-value of mean(diffs) = 0.

    Exact over all 2**n sign patterns up to `EXACT_LIMIT` pairs, Monte Carlo (fixed seed) beyond. With n pairs
    it cannot go below 2 / 2**n: 0.25 for 3 seeds, 0.0625 for 5, 0.0078 for 8.
    """
    d = _array(diffs)
    if not len(d):
        return float("nan")
    observed = abs(d.mean())
    if len(d) <= EXACT_LIMIT:
        signs = _sign_patterns(len(d))
    else:
        signs = np.random.default_rng(seed).choice((1.0, -1.0), size=(MONTE_CARLO, len(d)))
    means = np.abs(signs @ d) / len(d)
    return float(np.mean(means >= observed - 1e-12 * max(1.0, observed)))


def sign_flip_greater_p(diffs: Sequence[float]) -> float:
    """One-sided exact sign-flip p-value for mean(diffs) > 0 (at least 1 / 2**n)."""
    d = _array(diffs)
    if not len(d) or len(d) > EXACT_LIMIT:
        return float("nan")
    signs = _sign_patterns(len(d))
    observed = d.mean()
    return float(np.mean(signs @ d / len(d) >= observed - 1e-12 * max(1.0, abs(observed))))


def tost_sign_flip(a: Sequence[float], b: Sequence[float], margin: float) -> dict:
    """Equivalence of paired runs without a normal model: |mean(a - b)| < margin when both exact one-sided
    sign-flip tests reject (mean <= -margin, mean >= +margin); p is the larger of the two. With n pairs it
    cannot go below 1 / 2**n (0.031 for 5)."""
    d = _array(a) - _array(b)
    out = {"mean_diff": float(d.mean()) if len(d) else float("nan"), "margin": margin, "n": len(d), "p": float("nan")}
    if len(d) >= 2 and margin > 0:
        out["p"] = max(sign_flip_greater_p(d + margin), sign_flip_greater_p(margin - d))
    return out


def permutation_p(a: Sequence[float], b: Sequence[float], seed: int = 0) -> float:
    """Two-sided exact permutation p-value of mean(a) - mean(b) for independent groups.

    Enumerates every split of the pooled values when there are at most C(16, 8) of them, else Monte Carlo.
    With 3 against 3 it cannot go below 2 / C(6, 3) = 0.1.
    """
    a, b = _array(a), _array(b)
    if not len(a) or not len(b):
        return float("nan")
    pooled, n = np.concatenate([a, b]), len(a)
    observed = abs(a.mean() - b.mean())
    total = pooled.sum()
    if math.comb(len(pooled), n) <= math.comb(EXACT_LIMIT, EXACT_LIMIT // 2):
        picks = np.array(list(itertools.combinations(range(len(pooled)), n)))
        first = pooled[picks].sum(axis=1)
    else:
        rng = np.random.default_rng(seed)
        first = np.array([pooled[rng.permutation(len(pooled))[:n]].sum() for _ in range(MONTE_CARLO)])
    gaps = np.abs(first / n - (total - first) / len(b))
    return float(np.mean(gaps >= observed - 1e-12 * max(1.0, observed)))


def trend_permutation_p(x: Sequence[float], y: Sequence[float], seed: int = 0) -> float:
    """Two-sided exact permutation p-value of a linear trend of y on x, with the points as the units.

    Every ordering of y against x is as likely under no trend; the statistic is |slope| (permuting y leaves
    the spread of x fixed, so this equals a test of the correlation). Exact up to 8 points, Monte Carlo beyond.
    It cannot go below `trend_permutation_p(x, x)`: 2 / 3! = 0.33 for three evenly spaced points.
    """
    x, y = _array(x), _array(y)
    if len(x) != len(y) or len(x) < 2:
        return float("nan")
    centred = x - x.mean()
    observed = abs(centred @ y)
    if len(y) <= 8:
        orders = np.array(list(itertools.permutations(range(len(y)))))
    else:
        rng = np.random.default_rng(seed)
        orders = np.array([rng.permutation(len(y)) for _ in range(MONTE_CARLO)])
    slopes = np.abs(y[orders] @ centred)
    return float(np.mean(slopes >= observed - 1e-12 * max(1.0, observed)))


def smallest_p(n_a: int, n_b: int | None = None) -> float:
    """The smallest two-sided p-value an exact test can give: sign-flip for n_a pairs, or a permutation
    test for n_a against n_b independent runs. A p-value below this needs a model (t) the seeds cannot check."""
    if n_b is None:
        return 2 / 2**n_a if n_a else 1.0
    return min(1.0, 2 / math.comb(n_a + n_b, n_a)) if n_a and n_b else 1.0


def tost_paired(a: Sequence[float], b: Sequence[float], margin: float) -> dict:
    """Two one-sided paired t-tests: is |mean(a - b)| < margin? p < alpha supports equivalence.

    `margin` must be declared before looking at the data; {mean_diff, margin, p, ci90} (the 90% interval
    lies inside ±margin exactly when p < 0.05).
    """
    d = _array(a) - _array(b)
    mean, sd = mean_sd(d)
    out = {"mean_diff": mean, "margin": margin, "n": len(d), "p": float("nan"), "ci90": [float("nan")] * 2}
    if len(d) < 2 or not margin > 0:
        return out
    se = sd / math.sqrt(len(d))
    df = len(d) - 1
    if se == 0:
        out["p"] = 0.0 if abs(mean) < margin else 1.0
        out["ci90"] = [mean, mean]
        return out
    p_low = stats.t.sf((mean + margin) / se, df)  # H0: mean <= -margin
    p_high = stats.t.cdf((mean - margin) / se, df)  # H0: mean >= +margin
    half = stats.t.ppf(0.95, df) * se
    out["p"], out["ci90"] = float(max(p_low, p_high)), [mean - half, mean + half]
    return out


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the input order (nan stays nan and is not counted)."""
    p = _array(pvalues)
    finite = [i for i in np.argsort(p) if math.isfinite(p[i])]
    adjusted, running = [float("nan")] * len(p), 0.0
    for rank, i in enumerate(finite):
        running = max(running, min(1.0, (len(finite) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


# --- intervals and power ----------------------------------------------------------------------------------


def bootstrap_ci(
    values: Sequence[float],
    statistic: Callable[[np.ndarray], float] = np.mean,
    level: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of `statistic` over `values` (fixed seed: the same on every run)."""
    arr = _array(values)
    if len(arr) < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    draws = np.array([statistic(arr[rng.integers(0, len(arr), len(arr))]) for _ in range(resamples)])
    tail = (1 - level) / 2 * 100
    return float(np.percentile(draws, tail)), float(np.percentile(draws, 100 - tail))


def seed_resamples(n: int, resamples: int = MONTE_CARLO, seed: int = 0) -> np.ndarray:
    """Bootstrap draws of n seeds with replacement, as indices [R, n].

    All n**n equally likely draws when there are at most `resamples` of them (the exact bootstrap: 27 for
    3 seeds, 3125 for 5), else `resamples` draws from a fixed-seed generator.
    """
    if n < 1:
        raise ValueError(f"need at least one seed, got {n}")
    if n**n <= resamples:
        return np.array(list(itertools.product(range(n), repeat=n)))
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def distinct_resamples(n: int) -> int:
    """How many different multisets a bootstrap of n seeds can draw: C(2n-1, n), only 10 for 3 seeds."""
    return math.comb(2 * n - 1, n)


def top_share(values: np.ndarray, resamples: int = MONTE_CARLO, seed: int = 0) -> np.ndarray:
    """How often each group has the highest seed mean when the seeds are resampled: values [G, n, ...] -> [G, ...].

    The seeds are paired across groups (index i is the same seed, with the same initial weights and batches,
    in every group), so one draw of seed indices serves every group (`seed_resamples`). Groups tied for the
    top share that resample's credit equally, so two identical groups get one half each.
    """
    arr = np.asarray(values, dtype=float)
    draws = seed_resamples(arr.shape[1], resamples, seed)  # [R, n]
    weights = np.zeros(draws.shape)
    np.add.at(weights, (np.arange(len(draws))[:, None], draws), 1.0 / draws.shape[1])  # [R, n], rows sum to 1
    means = np.einsum("rs,gs...->gr...", weights, arr)  # [G, R, ...]
    best = means.max(axis=0, keepdims=True)
    top = means >= best - 1e-12 * np.maximum(1.0, np.abs(best))
    return (top / top.sum(axis=0, keepdims=True)).mean(axis=1)


def t_test_power(effect_over_se: float, df: int, alpha: float = ALPHA) -> float:
    """Power of a two-sided t-test when the true effect is `effect_over_se` standard errors.

    The noncentral t distribution; where scipy's is not finite (df = 1, large effects) the same probability
    is integrated over the chi-square law of the variance estimate.
    """
    crit = stats.t.ppf(1 - alpha / 2, df)
    power = stats.nct.sf(crit, df, effect_over_se) + stats.nct.cdf(-crit, df, effect_over_se)
    if math.isfinite(power):
        return float(power)

    def integrand(v: float) -> float:
        s = crit * math.sqrt(v / df)
        return (stats.norm.cdf(effect_over_se - s) + stats.norm.cdf(-effect_over_se - s)) * stats.chi2.pdf(v, df)

    lo, hi = stats.chi2.ppf([1e-12, 1 - 1e-12], df)
    return float(integrate.quad(integrand, lo, hi, limit=200)[0])


def minimum_detectable(se: float, df: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest true effect a two-sided t-test with this standard error and df detects with `power`."""
    if not (se > 0 and math.isfinite(se) and df >= 1):
        return float("nan")
    return float(optimize.brentq(lambda nc: t_test_power(nc, df, alpha) - power, 0.0, 1e3) * se)


def minimum_detectable_effect(n1: int, n2: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """The same for a two-sample test with n1 and n2 runs, in standard deviations (nan below two each)."""
    if n1 < 2 or n2 < 2:
        return float("nan")
    return minimum_detectable(math.sqrt(1 / n1 + 1 / n2), n1 + n2 - 2, alpha, power)


def compare_unpaired(a: Sequence[float], b: Sequence[float], alpha: float = ALPHA, power: float = POWER) -> dict:
    """Welch's test of mean(a) - mean(b) and the smallest difference these run counts could detect:
    {n, mean_diff, t, p, mde_sd (in pooled sds), mde, pooled_sd, alpha, power}."""
    a, b = _array(a), _array(b)
    out = {
        "n": [len(a), len(b)],
        **welch(a, b),
        "mde_sd": minimum_detectable_effect(len(a), len(b), alpha, power),
        "mde": float("nan"),
        "pooled_sd": float("nan"),
        "alpha": alpha,
        "power": power,
    }
    if len(a) >= 2 and len(b) >= 2:
        pooled = math.sqrt(((len(a) - 1) * a.var(ddof=1) + (len(b) - 1) * b.var(ddof=1)) / (len(a) + len(b) - 2))
        out["pooled_sd"], out["mde"] = pooled, out["mde_sd"] * pooled
    return out


# --- reproduction ---------------------------------------------------------------------------------------

RERUN_Z = 3.0  # a correct rerun lands outside this many standard errors about 3 times in 1000


def pooled_sd(groups: Sequence[Sequence[float]]) -> float:
    """The within-group standard deviation pooled over groups (each group's own mean removed): the seed spread
    of one recipe estimated from all its variants, far steadier than any one group's few seeds."""
    arrays = [_array(g) for g in groups if len(g) > 1]
    dof = sum(len(a) - 1 for a in arrays)
    if dof < 1:
        return float("nan")
    return math.sqrt(sum(((a - a.mean()) ** 2).sum() for a in arrays) / dof)


def rerun_tolerance(seed_sd: float, n_compared: int, resolution: float = 0.0, z: float = RERUN_Z) -> float:
    """How far the mean of `n_compared` reruns may lie from the shipped mean of the same seeds.

    On another CPU a rerun starts from the same weights and batches, but training amplifies last-bit
    differences; the worst case is a rerun as different as a fresh seed. Then the difference of two means of
    n runs has standard deviation seed_sd * sqrt(2 / n), and a correct rerun stays within z of those. The
    seed spread comes from the shipped seeds; `resolution` (one held-out example, say) keeps the tolerance
    above the measurement's own granularity where every seed scored the same.
    """
    if not (n_compared >= 1 and math.isfinite(seed_sd)):
        return resolution
    return max(z * seed_sd * math.sqrt(2 / n_compared), resolution)
