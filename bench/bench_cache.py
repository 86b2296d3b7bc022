"""KV-cache timings: re-encoding vs the cached step at a few sizes, the overhead fit, and where a step's time goes.

CPU time on one thread (torch runs one thread per op: see explorer.model): the ratios are what travel between
machines. Also times the pieces of one cached layer that are not matrix work, to show the fixed cost. Quick mode: the
smallest size, 3 repeats, a small overhead grid.
"""

from __future__ import annotations

import time

import torch
import torch.nn.functional as F

from bench.stats import median_seconds
from explorer import masks
from explorer.experiments import cache as exp

SIZES = [(n, m, depth) for depth in (2, 4) for n in (128, 1024) for m in (1, 8)]
QUICK_SWEEP = {"histories": (64, 256), "messages": (1, 8), "depths": (1, 2)}  # enough timings for the fit


def _cpu_median_us(fn, repeats: int) -> float:
    return median_seconds(fn, repeats=repeats, clock=time.thread_time)[0] * 1e6


def _step_pieces(n: int = 1024, m: int = 8, d: int = 64, heads: int = 4, repeats: int = 200) -> dict[str, float]:
    """Microseconds of the non-matmul parts of one cached step, and the attention call with/without a mask."""
    big = max(3, repeats // 10)
    dh = d // heads
    buffer = torch.randn(1, heads, n + m, dh)
    q = torch.randn(1, heads, m, dh)
    k = v = buffer
    causal_mask = masks.causal(m, n + m)
    full_q = torch.randn(1, heads, n + m, dh)
    zeros = masks.bidirectional(n + m)
    x = torch.randn(1, m, d)
    ln = torch.nn.LayerNorm(d)
    lin = torch.nn.Linear(d, d)
    with torch.inference_mode():
        return {
            "build the causal mask (once per step)": _cpu_median_us(lambda: masks.causal(m, n + m), repeats),
            "write m keys into the cache buffer": _cpu_median_us(lambda: buffer[:, :, n:].copy_(q), repeats),
            "one LayerNorm on m tokens": _cpu_median_us(lambda: ln(x), repeats),
            "one d x d Linear on m tokens": _cpu_median_us(lambda: lin(x), repeats),
            "cached attention (SDPA, causal mask)": _cpu_median_us(
                lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask), repeats
            ),
            "re-encode attention, all-zero mask": _cpu_median_us(
                lambda: F.scaled_dot_product_attention(full_q, k, v, attn_mask=zeros), big
            ),
            "re-encode attention, no mask": _cpu_median_us(lambda: F.scaled_dot_product_attention(full_q, k, v), big),
        }


def main(quick: bool = False) -> list[dict]:
    """Print the timings; return the re-encode vs cached-step rows (exp.measure's dicts)."""
    repeats = 3 if quick else 15
    sizes = SIZES[:1] if quick else SIZES
    print(f"re-encode vs cached step, CPU time on 1 thread, median of {repeats} interleaved runs:")
    print(
        f"  {'n':>5} {'m':>3} {'L':>2} {'re-encode ms':>13} {'cached ms':>10} {'speedup':>8} {'FLOP ratio':>11} "
        f"{'max|dlogit|':>12}"
    )
    rows = []
    for n, m, depth in sizes:
        r = exp.measure(n, m, depth, repeats=repeats)
        rows.append(r)
        print(
            f"  {n:>5} {m:>3} {depth:>2} {r['time_reencode_ms']:>13.3f} {r['time_cached_ms']:>10.3f} "
            f"{r['speedup']:>7.1f}x {r['flop_ratio']:>10.1f}x {r['max_abs_logit_diff']:>12.1e}"
        )
    print("more work per layer hides the fixed cost (n=1024, m=8, 2 layers):")
    for d in (64,) if quick else (64, 256, 512):
        r = exp.measure(1024, 8, 2, repeats=3 if quick else 9, d_model=d)
        print(
            f"  d={d:>3}: speedup {r['speedup']:5.1f}x of a FLOP ratio {r['flop_ratio']:.0f}x "
            f"(re-encode {r['time_reencode_ms']:.1f} ms, cached step {r['time_cached_ms']:.2f} ms)"
        )
    sweep = exp.overhead_sweep(**QUICK_SWEEP, repeats=2) if quick else exp.overhead_sweep(repeats=7)
    f = sweep["fit"]
    print(
        f"overhead fit over {len(sweep['rows'])} timings: {f['gflops_per_s']:.1f} GFLOP/s, "
        f"{f['b_s_per_layer'] * 1e3:.3f} ms per layer, {f['c_s'] * 1e3:.3f} ms per call "
        f"(median relative error {f['median_rel_error']:.0%})"
    )
    for n, m, depth in [(1024, 8, 2), (1024, 1, 2), (128, 8, 4)]:
        print(
            f"  n={n}, m={m}, L={depth}: the model predicts {exp.predicted_speedup(f, n, m, depth):.1f}x "
            f"against a FLOP ratio of {(n + m) / m:.0f}x"
        )
    print("pieces of one cached step (n=1024, m=8, d=64), CPU microseconds:")
    for name, us in _step_pieces(repeats=20 if quick else 200).items():
        print(f"  {name:42s} {us:9.1f}")
    loaded = exp.load_encoder()
    models = exp.drift_models(loaded[0] if loaded else None)
    print("drift of old tokens' keys/values per layer (relative L2), 31 old + 1 appended / 24 old + 8 appended:")
    for name, model in models.items():
        a, b = exp.drift(model, 31, 1), exp.drift(model, 24, 8)
        cells = "  ".join(f"L{i + 1} {x:.3f}/{y:.3f}" for i, (x, y) in enumerate(zip(a["kv"], b["kv"])))
        print(f"  {name:26s} {cells}")
    return rows


if __name__ == "__main__":
    main()
