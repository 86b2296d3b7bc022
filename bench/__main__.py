"""Run every benchmark module in bench/ (the bench_*.py files) in turn, then one summary table:
`python -m bench` (or `make bench`). `python -m bench pages cold_start` runs only the modules named."""

import importlib
import os
import pkgutil
import sys
import time

import bench


def _modules(names: list[str]) -> list[str]:
    found = sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_"))
    return [m for m in found if not names or m.removeprefix("bench_") in names]


def summary(results: dict) -> None:
    """Per page: warm rerun p50/p95, cold start, and in the browser the first chart and a slider's redraw;
    then training throughput and the KV-cache timings."""
    pages, cold = results.get("bench_pages") or {}, results.get("bench_cold_start") or {}
    browser = results.get("bench_browser") or {}
    training, cache = results.get("bench_training"), results.get("bench_cache")
    print(f"\n== summary: {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores ==")
    print(f"  {'page':15s} {'warm rerun: control moved':34s} {'p50 ms':>7s} {'p95 ms':>7s} "
          f"{'cold: first chart s':>20s} {'server ready s':>15s} {'browser: first chart s':>22s} "
          f"{'redraw p50 s':>12s} {'redraw p95 s':>12s}")
    for slug in dict.fromkeys([*pages, *cold, *browser]):
        r, c = pages.get(slug, {}), cold.get(slug, {})
        rerun = (f"{r['control']:34s} {r['p50'] * 1000:7.0f} {r['p95'] * 1000:7.0f}" if "p50" in r
                 else f"{'failed' if r else '-':34s} {'':7s} {'':7s}")
        start = f"{c['first_chart_s']:20.1f} {c['server_s']:15.1f}" if c else f"{'-':>20s} {'-':>15s}"
        b = browser.get(slug, {})
        felt = (f"{b['first_chart_s']:22.2f} " if b else f"{'-':>22s} ") + (
            f"{b['redraw_p50_s']:12.2f} {b['redraw_p95_s']:12.2f}" if "redraw_p50_s" in b else f"{'-':>12s} {'-':>12s}")
        print(f"  {slug:15s} {rerun} {start} {felt}")
    if training:
        print("  training throughput, tokens/s: " + ", ".join(f"{arch} {rate:,.0f}" for arch, rate in training.items()))
    for r in cache or []:
        print(f"  KV cache, n={r['n']} m={r['m']} {r['depth']} layers: re-encode {r['time_reencode_ms']:.2f} ms, "
              f"cached step {r['time_cached_ms']:.2f} ms, x{r['speedup']:.1f} (FLOP ratio x{r['flop_ratio']:.0f})")


results = {}
for name in _modules(sys.argv[1:]):
    module = importlib.import_module(f"bench.{name}")
    if hasattr(module, "main"):
        print(f"\n== {name} ==")
        results[name] = module.main()
summary(results)
