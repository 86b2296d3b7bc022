"""Cache reuse in multi-turn chat (slides 64-66): what each turn recomputes, what it costs, measured.

The conversation model used throughout: an opening of `n` tokens, then `turns` messages of `m` tokens
each. At turn t the history is h = n + (t - 1) m tokens and the m new tokens make N = h + m.

- A bidirectional model lets old tokens read the new ones, so their states change and the whole
  conversation is encoded again: N x N attention entries per layer, about O((n+m)^2).
- A causal model's old tokens never read later ones, so their keys and values from earlier turns stay
  valid (the KV cache) and a turn computes only the m new query rows: m x N entries, about O(nm + m^2).

Four pieces, each returning plain data:
  reuse_pattern / turn_table / cost_curves   exact counts (entries, FLOPs, KV-cache bytes)
  measure / overhead_sweep / fit_overhead     wall-clock times of the project's Transformer, and the
                                              per-layer overhead model that explains why the measured
                                              speedup stays below the FLOP ratio
  drift / drift_table / drift_vs_fraction     how far old tokens' states move when tokens are appended
  train_drift_encoder / load_encoder          the small trained bidirectional encoder used for drift
"""

from __future__ import annotations

import copy
import json
import math
import statistics
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Iterator

import numpy as np
import pandas as pd
import torch

from explorer import content
from explorer.costs import attention_entries, kv_cache_bytes, stack_forward_flops
from explorer.model import KVCache, Transformer, TransformerConfig
from explorer.progress import SILENT, Progress
from explorer.tasks import FIRST_SYMBOL, RULES, Seq2SeqTask

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "data" / "cache"
ENCODER_PATH = DATA_DIR / "encoder_sort.safetensors"
BOOK = "cache"  # what a student reads of this module (refusals, progress): content/<lang>/cache.md


# ------------------------------------------------------------------------------------------------
# 1. Which attention entries a turn reuses, recomputes or masks (exact for the chosen sizes)
# ------------------------------------------------------------------------------------------------

REUSED, RECOMPUTED, BLOCKED, UNCHANGED = 0, 1, 2, 3  # cell codes of the reuse heatmaps
CELL_NAMES = ("reused from cache", "newly computed", "masked", "recomputed, same value as last turn")
MAX_CELLS = 96  # heatmap side in cells; longer conversations are drawn with one cell per block of tokens


def history_at(n: int, m: int, turn: int) -> int:
    """Tokens before turn `turn` (1-based): the opening plus the earlier messages."""
    return n + (turn - 1) * m


def _check_sizes(n: int, m: int, turns: int = 1) -> None:
    if n < 1 or m < 1 or turns < 1:
        raise ValueError(f"history n, message m and turns must be >= 1 (got n={n}, m={m}, turns={turns})")


def token_labels(n: int, m: int, turns: int) -> list[str]:
    """One label per position: `o1..on` for the opening, `t2.1` for turn 2's first token."""
    labels = [f"o{i + 1}" for i in range(n)]
    for t in range(1, turns + 1):
        labels += [f"t{t}.{j + 1}" for j in range(m)]
    return labels


def cell_codes(q: np.ndarray, k: np.ndarray, history: int, causal: bool, layer: int) -> np.ndarray:
    """The category of query position q reading key position k during the turn that starts at `history`.

    Causal: old rows were computed in earlier turns and their keys/values sit in the cache (reused); the
    new rows are computed now; keys after the query are masked. Bidirectional: every entry is computed
    again. In layer 1 the old tokens' queries and keys come from their embeddings alone, so old-old
    scores equal last turn's; they are still recomputed, since their softmax now includes new keys.
    """
    if causal:
        codes = np.where(q < history, REUSED, RECOMPUTED)
        return np.where(k > q, BLOCKED, codes).astype(np.int8)
    same = (q < history) & (k < history) & (layer == 1)
    return np.where(same, UNCHANGED, RECOMPUTED).astype(np.int8)


def entry_counts(history: int, m: int) -> dict[str, int]:
    """Exact attention entries per layer and head of one turn (h old tokens, m new)."""
    total = history + m
    return {
        "causal_reused": history * (history + 1) // 2,
        "causal_computed": attention_entries(m, total, causal=True),
        "causal_masked": total * (total - 1) // 2,
        "bidirectional_recomputed": total * total,
        "bidirectional_unchanged_layer1": history * history,
    }


def reuse_pattern(n: int, m: int, turns: int, layer: int, max_cells: int = MAX_CELLS) -> dict:
    """Query x key categories of the current (last) turn, for a causal and a bidirectional model.

    Up to `max_cells` tokens each cell is one entry. Longer conversations use blocks of `block` x `block`
    tokens, each cell coloured by the entry at its centre; the counts are always exact.
    """
    _check_sizes(n, m, turns)
    history = history_at(n, m, turns)
    total = history + m
    block = max(1, math.ceil(total / max_cells))
    starts = np.arange(0, total, block)
    centres = np.minimum(starts + (block - 1) // 2, total - 1)
    q, k = np.meshgrid(centres, centres, indexing="ij")
    labels = token_labels(n, m, turns)
    if block == 1:
        axis = labels
    else:
        axis = [f"{labels[s]}–{labels[min(s + block, total) - 1]}" for s in starts]
    segment_starts = [0, n] + [history_at(n, m, t) + m for t in range(1, turns)]  # opening, then each turn
    return {
        "n": n,
        "m": m,
        "turns": turns,
        "layer": layer,
        "history": history,
        "total": total,
        "block": block,
        "labels": axis,
        "causal": cell_codes(q, k, history, causal=True, layer=layer),
        "bidirectional": cell_codes(q, k, history, causal=False, layer=layer),
        "boundaries": [s / block for s in segment_starts[1:]],  # in cell units: where a new segment starts
        "counts": entry_counts(history, m),
    }


# ------------------------------------------------------------------------------------------------
# 2. Cost model: exact FLOPs per turn and cumulative, the lecture's leading terms, KV-cache memory
# ------------------------------------------------------------------------------------------------

MEASURE_WIDTH = 64  # d of the project's small model (GUIDE.md, sec. 3): 4 heads of 16, vocab 64
# A GPT-3-sized stack (Brown et al. 2020: 96 layers, d=12288) in 16-bit, to put the KV-cache bytes in scale
LARGE_MODEL = SimpleNamespace(n_layers=96, d_model=12288, name="96 layers, d=12288, 2-byte values (GPT-3 size)")


def model_config(depth: int, max_len: int, arch: str = "decoder", d_model: int = MEASURE_WIDTH) -> TransformerConfig:
    """The measured model: d=64 in heads of 16, vocab 64, `depth` layers, positions for the whole chat."""
    return TransformerConfig(
        arch=arch, vocab_size=64, d_model=d_model, n_heads=max(1, d_model // 16), n_layers=depth, max_len=max_len
    )


def turn_flops(cfg: TransformerConfig, history: int, m: int) -> dict[str, int]:
    """FLOPs of one turn: re-encode everything (bidirectional) vs the cached step (causal)."""
    total = history + m
    return {
        "flops_reencode": stack_forward_flops(cfg, total, total),
        "flops_cached": stack_forward_flops(cfg, m, total),
        "flops_cached_causal_only": stack_forward_flops(cfg, m, total, causal_only=True),
        # the lecture's leading terms with the attention constant of the exact count (4 d L per entry)
        "lecture_reencode": 4 * cfg.d_model * cfg.n_layers * total**2,
        "lecture_cached": 4 * cfg.d_model * cfg.n_layers * (history * m + m**2),
    }


def turn_table(n: int, m: int, turns: int, depth: int) -> pd.DataFrame:
    """One row per turn: sizes, attention entries, FLOPs both ways, running totals, KV-cache bytes.

    Turn 0 is the opening itself, which both models encode once in full; it is in the running totals.
    """
    _check_sizes(n, m, turns)
    cfg = model_config(depth, n + turns * m)
    opening = stack_forward_flops(cfg, n, n)
    rows = [
        {
            "turn": 0,
            "history": 0,
            "new": n,
            "total": n,
            "flops_reencode": opening,
            "flops_cached": opening,
            "flops_cached_causal_only": stack_forward_flops(cfg, n, n, causal_only=True),
            "lecture_reencode": 4 * cfg.d_model * depth * n**2,
            "lecture_cached": 4 * cfg.d_model * depth * n**2,
            "causal_reused": 0,
            "causal_computed": n * (n + 1) // 2,
            "bidirectional_recomputed": n * n,
        }
    ]
    for t in range(1, turns + 1):
        h = history_at(n, m, t)
        counts = entry_counts(h, m)
        rows.append(
            {
                "turn": t,
                "history": h,
                "new": m,
                "total": h + m,
                **turn_flops(cfg, h, m),
                **{k: counts[k] for k in ("causal_reused", "causal_computed", "bidirectional_recomputed")},
            }
        )
    df = pd.DataFrame(rows)
    for col in (
        "flops_reencode",
        "flops_cached",
        "flops_cached_causal_only",
        "causal_computed",
        "bidirectional_recomputed",
    ):
        df[f"cum_{col}"] = df[col].cumsum()
    df["flop_ratio"] = df["flops_reencode"] / df["flops_cached"]
    df["kv_cache_bytes"] = [kv_cache_bytes(cfg, int(t)) for t in df["total"]]
    return df


def cost_curves(m: int, depth: int, max_history: int = 4096, points: int = 64) -> pd.DataFrame:
    """FLOPs of one turn and KV-cache bytes against the history length h (log-spaced, 1..max_history)."""
    _check_sizes(1, m)
    hs = np.unique(np.round(np.logspace(0, math.log10(max_history), points)).astype(int))
    cfg = model_config(depth, int(hs[-1]) + m)
    rows = []
    for h in hs:
        h = int(h)
        rows.append(
            {
                "history": h,
                "total": h + m,
                **turn_flops(cfg, h, m),
                "kv_cache_bytes": kv_cache_bytes(cfg, h + m),
                "kv_cache_bytes_large": kv_cache_bytes(LARGE_MODEL, h + m, bytes_per_value=2),
            }
        )
    df = pd.DataFrame(rows)
    df["flop_ratio"] = df["flops_reencode"] / df["flops_cached"]
    return df


# ------------------------------------------------------------------------------------------------
# 3. Measured: wall-clock time of re-encoding vs the cached step, and the overhead model
# ------------------------------------------------------------------------------------------------

MAX_MEASURE_TOKENS = 4096  # re-encoding longer chats builds an N x N mask of N^2 floats (64 MiB at 4096)
INLINE_SECONDS = 0.6  # a measurement expected to take longer runs in the background
MAX_MEASURE_SECONDS = 60.0  # and one expected to take longer than this is refused
MIN_REPEATS, MAX_REPEATS = 5, 25
# conservative planning constants (a loaded 2-core server, one thread): to size repeats and refuse early
PLAN_FLOPS_PER_S = 20e9
PLAN_LAYER_S = 0.6e-3
PLAN_CALL_S = 0.4e-3

_TIMING_LOCK = threading.Lock()  # one timing at a time: concurrent timings would distort each other


@contextmanager
def timing() -> Iterator[None]:
    """One timing at a time (torch runs on one thread per op: see explorer.model)."""
    with _TIMING_LOCK:
        yield


def planned_seconds(n: int, m: int, depth: int, repeats: int = MIN_REPEATS, d_model: int = MEASURE_WIDTH) -> float:
    """A pessimistic estimate of `measure`'s wall time, used to pick repeats and to refuse big sizes."""
    cfg = model_config(depth, n + m, d_model=d_model)
    f = turn_flops(cfg, n, m)

    def call(flops: int) -> float:
        return flops / PLAN_FLOPS_PER_S + depth * PLAN_LAYER_S + PLAN_CALL_S

    # the bidirectional path adds an N x N mask to every score, about doubling its attention time
    one_round = 2 * call(f["flops_reencode"]) + call(f["flops_cached"])
    return (repeats + 2) * one_round + call(stack_forward_flops(cfg, n, n))


def check_measurable(n: int, m: int, depth: int, d_model: int = MEASURE_WIDTH) -> None:
    """Raise ValueError, naming the limit, when a measurement would be too big to run here."""
    _check_sizes(n, m)
    if n + m > MAX_MEASURE_TOKENS:
        raise ValueError(
            content.text(BOOK, "measure-error-tokens", limit=f"{MAX_MEASURE_TOKENS:,}", tokens=f"{n + m:,}")
        )
    if (s := planned_seconds(n, m, depth, d_model=d_model)) > MAX_MEASURE_SECONDS:
        raise ValueError(content.text(BOOK, "measure-error-seconds", seconds=s, limit=MAX_MEASURE_SECONDS))


def build_models(
    depth: int, max_len: int, seed: int = 0, d_model: int = MEASURE_WIDTH
) -> tuple[Transformer, Transformer]:
    """A causal model and a bidirectional model with the very same weights (eval mode)."""
    torch.manual_seed(seed)
    causal = Transformer(model_config(depth, max_len, d_model=d_model)).eval()
    bidirectional = Transformer(model_config(depth, max_len, arch="encoder", d_model=d_model)).eval()
    bidirectional.load_state_dict(causal.state_dict())  # identical parameter names: only the mask differs
    return causal, bidirectional


def _spread(times: list[float]) -> dict[str, float]:
    ms = sorted(t * 1e3 for t in times)
    q1, _, q3 = statistics.quantiles(ms, n=4, method="inclusive") if len(ms) > 1 else (ms[0],) * 3
    return {"median": statistics.median(ms), "q1": q1, "q3": q3, "min": ms[0], "max": ms[-1]}


def time_turn(
    causal: Transformer,
    bidirectional: Transformer,
    n: int,
    m: int,
    repeats: int,
    seed: int = 0,
    deadline: float | None = None,
) -> dict:
    """Time one turn both ways, interleaved: re-encode all n+m tokens vs a cached step of m tokens.

    Times are CPU time of the one thread doing the work (`time.thread_time`): on a shared server, time
    the process spends waiting for a core would otherwise be counted (wall-clock medians are returned too).

    The cache is filled with the n history tokens once; each repeat rewinds it to n (`cache.rewind(n)`)
    and writes the m new keys/values into its preallocated buffers again, so no repeat allocates a cache.
    Also returns the max |logit difference| between the cached step and a full causal recomputation.
    """
    gen = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, causal.cfg.vocab_size, (1, n + m), generator=gen)
    old, new = tokens[:, :n], tokens[:, n:]
    cache = KVCache(causal.cfg, batch_size=1, capacity=n + m)
    with torch.inference_mode():
        causal(old, cache=cache)  # prefill: keys and values of the history, once
        step_logits = causal(new, cache=cache).logits  # [1, m, vocab]
        full_logits = causal(tokens).logits[:, n:]  # recompute everything causally
        bidirectional(tokens)  # warm-up
        cpu = {"reencode": [], "cached": []}
        wall = {"reencode": [], "cached": []}

        def timed(mode: str, fn: Callable[[], object]) -> None:
            w, c = time.perf_counter(), time.thread_time()
            fn()
            cpu[mode].append(time.thread_time() - c)
            wall[mode].append(time.perf_counter() - w)

        for r in range(repeats):
            timed("reencode", lambda: bidirectional(tokens))
            cache.rewind(n)  # the history's keys/values stay where they are
            timed("cached", lambda: causal(new, cache=cache))
            if deadline is not None and time.perf_counter() > deadline and r + 1 >= 3:
                break
    diff = (step_logits - full_logits).abs().max().item()
    return {
        "reencode": _spread(cpu["reencode"]),
        "cached": _spread(cpu["cached"]),
        "repeats": len(cpu["cached"]),
        "wall_reencode_ms": _spread(wall["reencode"])["median"],
        "wall_cached_ms": _spread(wall["cached"])["median"],
        "max_abs_logit_diff": diff,
        "max_abs_logit": full_logits.abs().max().item(),
    }


def repeats_for(n: int, m: int, depth: int, budget_s: float, d_model: int = MEASURE_WIDTH) -> int:
    per = planned_seconds(n, m, depth, repeats=1, d_model=d_model) / 3
    return int(min(MAX_REPEATS, max(MIN_REPEATS, budget_s / max(per, 1e-9))))


def measure(
    n: int,
    m: int,
    depth: int,
    repeats: int | None = None,
    seed: int = 0,
    budget_s: float = INLINE_SECONDS,
    progress: Progress = SILENT,
    d_model: int = MEASURE_WIDTH,
) -> dict:
    """Measure one turn (history n, message m) on a fresh model of `depth` layers; check limits first."""
    check_measurable(n, m, depth, d_model)
    repeats = repeats or repeats_for(n, m, depth, budget_s, d_model)
    progress.update(0.05, content.text(BOOK, "progress-building", depth=depth, tokens=n + m))
    causal, bidirectional = build_models(depth, n + m, seed, d_model)
    progress.update(0.2, content.text(BOOK, "progress-timing", repeats=repeats))
    with timing():
        timed = time_turn(causal, bidirectional, n, m, repeats, seed, deadline=time.perf_counter() + 4 * budget_s)
    f = turn_flops(causal.cfg, n, m)
    t_re, t_c = timed["reencode"]["median"], timed["cached"]["median"]
    return {
        "n": n,
        "m": m,
        "depth": depth,
        "seed": seed,
        "repeats": timed["repeats"],
        "threads": 1,
        "flops_reencode": f["flops_reencode"],
        "flops_cached": f["flops_cached"],
        "flop_ratio": f["flops_reencode"] / f["flops_cached"],
        "time_reencode_ms": t_re,
        "time_cached_ms": t_c,
        "speedup": t_re / t_c,
        "spread_reencode_ms": timed["reencode"],
        "spread_cached_ms": timed["cached"],
        "max_abs_logit_diff": timed["max_abs_logit_diff"],
        "max_abs_logit": timed["max_abs_logit"],
        "clock": "thread CPU time",
        "wall_reencode_ms": timed["wall_reencode_ms"],
        "wall_cached_ms": timed["wall_cached_ms"],
        "config": {**asdict(causal.cfg), "torch": torch.__version__},
    }


SWEEP_SHAPE = {  # what a cached overhead sweep must hold (`explorer.shapes`)
    "rows": [{"depth": int, "history": int, "m": int, "mode": str, "flops": float, "median_ms": float}],
    "fit": {
        "a_s_per_flop": float,
        "b_s_per_layer": float,
        "c_s": float,
        "gflops_per_s": float,
        "median_rel_error": float,
        "max_rel_error": float,
    },
}
SWEEP_HISTORIES = (16, 64, 256, 1024)
SWEEP_MESSAGES = (1, 8)
SWEEP_DEPTHS = (1, 2, 4)


def overhead_sweep(
    histories=SWEEP_HISTORIES,
    messages=SWEEP_MESSAGES,
    depths=SWEEP_DEPTHS,
    repeats: int = 7,
    seed: int = 0,
    progress: Progress = SILENT,
) -> dict:
    """Time re-encoding and cached steps over a grid of sizes; the rows the overhead model is fitted to."""
    rows = []
    grid = [(d, h, m) for d in depths for h in histories for m in messages]
    for depth in depths:
        causal, bidirectional = build_models(depth, max(histories) + max(messages), seed)
        for h in histories:
            for m in messages:
                progress.update(
                    len(rows) / 2 / len(grid), content.text(BOOK, "progress-sweep", depth=depth, history=h, m=m)
                )
                with timing():  # size by size, so a page's own measurement never waits long
                    timed = time_turn(causal, bidirectional, h, m, repeats, seed)
                f = turn_flops(causal.cfg, h, m)
                for mode, flops in (("reencode", f["flops_reencode"]), ("cached", f["flops_cached"])):
                    rows.append(
                        {
                            "depth": depth,
                            "history": h,
                            "m": m,
                            "mode": mode,
                            "flops": flops,
                            **{f"{k}_ms": v for k, v in timed[mode].items()},
                        }
                    )
    fit = fit_overhead(rows)
    return {
        "rows": rows,
        "fit": fit,
        "repeats": repeats,
        "seed": seed,
        "threads": 1,
        "clock": "thread CPU time",
        "torch": torch.__version__,
    }


def fit_overhead(rows: list[dict]) -> dict:
    """Fit time ~ a * FLOPs + b * layers + c (all >= 0) to measured medians, in relative error.

    Relative (each row divided by its own time) so that sub-millisecond cached steps weigh as much as
    100 ms re-encodings. `b` is the fixed cost of a layer whatever its size: kernel launches, Python
    module calls, small allocations.
    """
    from scipy.optimize import nnls

    t = np.array([r["median_ms"] for r in rows]) / 1e3
    x = np.array([[r["flops"], r["depth"], 1.0] for r in rows], dtype=float)
    scale = np.array([1e-9, 1.0, 1.0])  # condition the columns (FLOPs in GFLOP)
    coef, _ = nnls((x * scale) / t[:, None], np.ones_like(t))
    a, b, c = coef * scale
    pred = x @ np.array([a, b, c])
    rel = np.abs(pred - t) / t
    return {
        "a_s_per_flop": float(a),
        "b_s_per_layer": float(b),
        "c_s": float(c),
        "gflops_per_s": float(1e-9 / a) if a > 0 else float("inf"),
        "median_rel_error": float(np.median(rel)),
        "max_rel_error": float(np.max(rel)),
    }


def predict_seconds(fit: dict, flops: float, depth: int) -> float:
    return fit["a_s_per_flop"] * flops + fit["b_s_per_layer"] * depth + fit["c_s"]


def predicted_speedup(fit: dict, n: int, m: int, depth: int) -> float:
    """Speedup the overhead model expects: the fixed terms do not shrink with the cache."""
    f = turn_flops(model_config(depth, n + m), n, m)
    return predict_seconds(fit, f["flops_reencode"], depth) / predict_seconds(fit, f["flops_cached"], depth)


# ------------------------------------------------------------------------------------------------
# 4. Drift: how far old tokens' states move when m tokens are appended
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VariableLengthTask(Seq2SeqTask):
    """The sort (or copy) task at a random length in [min_length, length] per batch.

    Appending tokens changes a sequence's length, so the drift encoder must have seen every length.
    """

    min_length: int = 4

    def sample(self, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        length = int(torch.randint(self.min_length, self.length + 1, (1,), generator=generator))
        x = torch.randint(FIRST_SYMBOL, self.vocab_size, (batch_size, length), generator=generator)
        return x, RULES[self.name](x)


DRIFT_TASK = VariableLengthTask(name="sort", length=32, n_symbols=16)
# max_len covers input + target because the shared trainer checks that sum for every architecture;
# an encoder only reads the input, so positions past DRIFT_TASK.length stay untrained and unused here.
DRIFT_MODEL = TransformerConfig(
    arch="encoder",
    vocab_size=DRIFT_TASK.vocab_size,
    d_model=64,
    n_heads=4,
    n_layers=4,
    max_len=DRIFT_TASK.input_len + DRIFT_TASK.target_len,
)
DRIFT_SEED = 0
DRIFT_BATCH = 16


def drift_sizes(n: int, m: int, length: int = DRIFT_TASK.length) -> tuple[int, int]:
    """(n, m) as they are, if they fit the drift encoder; else `length` tokens with the same share appended."""
    _check_sizes(n, m)
    if n + m <= length:
        return n, m
    m_d = min(length - 1, max(1, round(length * m / (n + m))))
    return length - m_d, m_d


def drift_models(trained: Transformer | None, seed: int = DRIFT_SEED) -> dict[str, Transformer]:
    """The drift line-up: trained and untrained weights, each run bidirectionally and causally.

    The causal twins carry exactly the same weights; only the mask differs.
    """
    torch.manual_seed(seed)
    untrained = Transformer(DRIFT_MODEL).eval()
    models = {"bidirectional, untrained": untrained}
    if trained is not None:
        models = {"bidirectional, trained": trained, **models}
    out = dict(models)
    for name, model in models.items():
        out[name.replace("bidirectional", "causal")] = causal_twin(model)
    return out


def causal_twin(model: Transformer) -> Transformer:
    """The same weights under a causal mask (eval mode): only the direction of attention differs."""
    twin = Transformer(replace(model.cfg, arch="decoder")).eval()
    twin.load_state_dict(model.state_dict())
    return twin


def _relative_change(before: torch.Tensor, after: torch.Tensor) -> float:
    return ((after - before).norm() / before.norm()).item()


def drift(
    model: Transformer,
    n: int,
    m: int,
    batch: int = DRIFT_BATCH,
    seed: int = DRIFT_SEED,
    dtype: torch.dtype = torch.float32,
) -> dict[str, list[float]]:
    """Relative L2 change of the n old tokens' states when m tokens are appended, per layer.

    `state[l]` is the residual stream entering layer l+1 (`state[0]` the embeddings, the last one the
    stack's output); `kv[l]` the keys and values that layer l+1 computes for the old tokens.
    """
    if n + m > model.cfg.max_len:
        raise ValueError(f"this model reads at most {model.cfg.max_len} tokens; n + m = {n + m}")
    gen = torch.Generator().manual_seed(seed)
    tokens = torch.randint(FIRST_SYMBOL, model.cfg.vocab_size, (batch, n + m), generator=gen)
    if dtype != torch.float32:
        model = copy.deepcopy(model).to(dtype)  # never retype a shared model in place
    with torch.no_grad():
        before = model(tokens[:, :n], return_states=True)
        after = model(tokens, return_states=True)
    stack = "encoder" if model.cfg.arch == "encoder" else "decoder"
    states = [_relative_change(b, a[:, :n]) for b, a in zip(before.states[stack], after.states[stack])]
    kv = [
        _relative_change(torch.cat(b, -1), torch.cat(a, -1)[:, :, :n])
        for b, a in zip(before.keys_values[stack], after.keys_values[stack])
    ]
    return {"state": states, "kv": kv}


def drift_table(models: dict[str, Transformer], n: int, m: int) -> pd.DataFrame:
    """Long table: model, quantity ('hidden state' or 'keys & values'), layer (1-based), relative change."""
    rows = []
    for name, model in models.items():
        d = drift(model, n, m)
        depth = model.cfg.n_layers
        for i, value in enumerate(d["state"]):
            layer = "output" if i == depth else str(i + 1)
            rows.append({"model": name, "quantity": "hidden state", "layer": layer, "relative_change": value})
        for i, value in enumerate(d["kv"]):
            rows.append({"model": name, "quantity": "keys & values", "layer": str(i + 1), "relative_change": value})
    return pd.DataFrame(rows)


FRACTION_STEPS = (1, 2, 4, 8, 12, 16, 20, 24, 28, 31)  # tokens appended to a 32-token sequence
FRACTION_BATCH = 16


def drift_vs_fraction(
    models: dict[str, Transformer],
    total: int = DRIFT_TASK.length,
    batch: int = FRACTION_BATCH,
    appended: tuple[int, ...] = FRACTION_STEPS,
) -> pd.DataFrame:
    """Drift of the last layer's keys/values and of the output against the share appended, m / (n + m)."""
    rows = []
    for name, model in models.items():
        for m in (a for a in appended if 0 < a < total):
            d = drift(model, total - m, m, batch=batch)
            rows.append(
                {
                    "model": name,
                    "n": total - m,
                    "m": m,
                    "fraction": m / total,
                    "kv_last_layer": d["kv"][-1],
                    "output": d["state"][-1],
                }
            )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------------
# 5. The trained drift encoder: trained by the CLI, shipped as safetensors
# ------------------------------------------------------------------------------------------------


def train_drift_encoder(
    steps: int = 2000, seed: int = DRIFT_SEED, progress: Progress = SILENT
) -> tuple[Transformer, dict]:
    """Train the 4-layer bidirectional encoder on sorting 4-32 tokens; return it and a summary."""
    from explorer.train import TrainConfig, config_dict, train

    cfg = TrainConfig(steps=steps, batch_size=32, lr=3e-3, seed=seed, eval_every=max(1, steps // 6))
    result = train(DRIFT_MODEL, DRIFT_TASK, cfg, progress)
    return result.model, {
        "config": config_dict(DRIFT_MODEL, DRIFT_TASK, cfg),
        "summary": result.summary(),
        "history": result.history,
    }


def save_encoder(model: Transformer, path: Path, info: dict) -> Path:
    from safetensors.torch import save_file

    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    save_file(
        tensors, str(path), metadata={"model": json.dumps(model.cfg.to_dict()), "info": json.dumps(info, default=str)}
    )
    return path


def load_encoder(path: Path = ENCODER_PATH) -> tuple[Transformer, dict] | None:
    """The shipped trained encoder and its training summary, or None when the file is missing."""
    from safetensors import safe_open
    from safetensors.torch import load_file

    if not path.is_file():
        return None
    with safe_open(str(path), framework="pt") as f:
        meta = f.metadata()
    model = Transformer(TransformerConfig(**json.loads(meta["model"])))
    model.load_state_dict(load_file(str(path)))
    return model.eval(), json.loads(meta["info"])
