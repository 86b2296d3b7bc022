"""Run every benchmark in bench/ (`bench.suite.discover`) in turn, then one summary table: `python -m bench`
(or `make bench`). `python -m bench pages cold_start` runs only the modules named; `--quick` (`make bench-quick`,
run by `make test` through tests/test_bench_quick.py) runs each in its quick mode; `--json PATH` writes each
module's outcome. Exits 1 when any module raised or returned nothing."""

import argparse
import json
import os
import sys
import time
from pathlib import Path

from bench.suite import discover, run_one


def summary(results: dict) -> None:
    """Per page: warm rerun p50/p95, cold start, and in the browser the first chart and a slider's redraw;
    then training throughput and the KV-cache timings."""
    pages, cold = results.get("bench_pages") or {}, results.get("bench_cold_start") or {}
    browser = results.get("bench_browser") or {}
    training, cache = results.get("bench_training"), results.get("bench_cache")
    print(f"\n== summary: {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores ==")
    print(
        f"  {'page':15s} {'warm rerun: control moved':34s} {'p50 ms':>7s} {'p95 ms':>7s} "
        f"{'cold: first chart s':>20s} {'server ready s':>15s} {'browser: first chart s':>22s} "
        f"{'redraw p50 s':>12s} {'redraw p95 s':>12s}"
    )
    for slug in dict.fromkeys([*pages, *cold, *browser]):
        r, c = pages.get(slug, {}), cold.get(slug, {})
        rerun = (
            f"{r['control']:34s} {r['p50'] * 1000:7.0f} {r['p95'] * 1000:7.0f}"
            if "p50" in r
            else f"{'failed' if r else '-':34s} {'':7s} {'':7s}"
        )
        start = f"{c['first_chart_s']:20.1f} {c['server_s']:15.1f}" if c else f"{'-':>20s} {'-':>15s}"
        b = browser.get(slug, {})
        felt = (f"{b['first_chart_s']:22.2f} " if b else f"{'-':>22s} ") + (
            f"{b['redraw_p50_s']:12.2f} {b['redraw_p95_s']:12.2f}" if "redraw_p50_s" in b else f"{'-':>12s} {'-':>12s}"
        )
        print(f"  {slug:15s} {rerun} {start} {felt}")
    if training:
        print("  training throughput, tokens/s: " + ", ".join(f"{arch} {rate:,.0f}" for arch, rate in training.items()))
    for r in cache or []:
        print(
            f"  KV cache, n={r['n']} m={r['m']} {r['depth']} layers: re-encode {r['time_reencode_ms']:.2f} ms, "
            f"cached step {r['time_cached_ms']:.2f} ms, x{r['speedup']:.1f} (FLOP ratio x{r['flop_ratio']:.0f})"
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="modules to run, with or without `bench_` (default: all)")
    parser.add_argument("--quick", action="store_true", help="few repetitions, smallest sizes, one page")
    parser.add_argument("--json", type=Path, help="write {module: {seconds, ok, error}} here")
    args = parser.parse_args(argv)
    names = [m for m in discover() if not args.names or m in args.names or m.removeprefix("bench_") in args.names]
    outcomes, start = {}, time.perf_counter()
    for name in names:
        print(f"\n== {name}{' (quick)' if args.quick else ''} ==", flush=True)
        outcomes[name] = run_one(name, args.quick)
        sys.stdout.flush()
    summary({name: o["result"] for name, o in outcomes.items()})
    print(f"\n== {len(names)} benchmarks{' (quick)' if args.quick else ''}, {time.perf_counter() - start:.0f} s ==")
    for name, o in outcomes.items():
        print(f"  {name:20s} {o['seconds']:6.1f} s  {'ok' if o['ok'] else 'FAILED: ' + o['error']}")
    if args.json:
        fields = ("seconds", "ok", "error")
        args.json.write_text(json.dumps({n: {k: o[k] for k in fields} for n, o in outcomes.items()}))
    return 0 if all(o["ok"] for o in outcomes.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
