"""`python -m explorer trend fit|backtest|build-data`: the compute-per-dollar rate (pooled, per series, with
series fixed effects, with autocorrelation-robust intervals), a backtest of it, and the shipped data file."""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer import trend, trend_models


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser("trend", help="compute per dollar: fit the rate (fit) or rebuild the data file (build-data)")
    actions = p.add_subparsers(dest="action", metavar="action", required=True)

    fit = actions.add_parser("fit", help="OLS of log10(ops/s per 2024 US$) on year, with 95%% intervals")
    _selection(fit)
    fit.add_argument("--end", type=float, default=2025, help="last year of the window (the whole year counts)")
    fit.add_argument("--boot", type=int, default=trend.N_BOOT, help="bootstrap resamples (0: none)")
    fit.add_argument("--seed", type=int, default=trend.SEED)
    fit.set_defaults(handler=run_fit)

    back = actions.add_parser("backtest", help="fit up to a year, forecast the machines after it, report the miss")
    _selection(back)
    back.add_argument("--train-end", type=float, required=True, help="last year the fit may see")
    back.set_defaults(handler=run_backtest)

    build = actions.add_parser("build-data", help="write data/compute_per_dollar.csv from data/reference/")
    build.add_argument("--reference", type=Path, default=trend.REFERENCE_CSV, help="the fact sheet")
    build.add_argument("--out", type=Path, default=trend.DATA_CSV)
    build.set_defaults(handler=run_build)
    return [fit, back, build]


def _selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--start", type=float, default=1950, help="first year of the window")
    parser.add_argument(
        "--series",
        nargs="+",
        default=list(trend.MAIN_SERIES),
        choices=list(trend.SERIES_BY_KEY),
        help="source series to pool (default: the main set, Nordhaus 2001 + Epoch AI)",
    )
    parser.add_argument(
        "--precision",
        choices=list(trend.PRECISIONS),
        default=trend.FP32,
        help="GPU-era precision: fp32, or the best of FP32/FP16/tensor-FP16",
    )
    parser.add_argument("--data", type=Path, default=trend.DATA_CSV, help="the data file")


def _text(result: dict) -> str:
    boot = (
        f", bootstrap [{result['boot_low']:.2f}, {result['boot_high']:.2f}] ({result['n_boot']} resamples, "
        f"seed {result['seed']})"
        if result.get("n_boot")
        else ""
    )
    if result["years_per_10x"] is None:
        return f"no growth: slope {result['slope_log10_per_year']:.4f} orders of magnitude per year"
    high = "inf" if result["ci_high"] is None else f"{result['ci_high']:.2f}"
    return (
        f"{', '.join(result['series'])} ({result['precision']}), {result['start']:g}-{result['end']:g}: "
        f"{result['n_points']} points, {result['first_year']:.1f}-{result['last_year']:.1f}\n"
        f"years per 10x: {result['years_per_10x']:.2f}, 95% interval [{result['ci_low']:.2f}, {high}]{boot}\n"
        f"slope {result['slope_log10_per_year']:.4f} ± {result['slope_se']:.4f} orders of magnitude per year, "
        f"R² {result['r2']:.3f}\n"
        f"{result['robust']['method']}: [{_end(result['robust']['ci_low'])}, {_end(result['robust']['ci_high'])}]\n"
        f"series fixed effects (the jump between series is a level, not growth): "
        f"{_end(result['fixed_effects']['years_per_10x'])} [{_end(result['fixed_effects']['ci_low'])}, "
        f"{_end(result['fixed_effects']['ci_high'])}]\n"
        + "\n".join(
            f"{r['series']} alone: {_end(r['years_per_10x'])} [{_end(r['ci_low'])}, {_end(r['ci_high'])}], "
            f"{r['n']} points"
            for r in result["by_series"]
        )
    )


def _end(value: float | None) -> str:
    return "inf" if value is None else f"{value:.2f}"


def run_fit(args: argparse.Namespace) -> dict:
    if args.boot < 0:
        raise ValueError("--boot must be 0 or more")
    if args.start > args.end:
        raise ValueError(f"--start {args.start:g} is after --end {args.end:g}")
    rows, fit, boot = trend.fit_window(
        trend.load(args.data), args.series, args.precision, args.start, args.end, n_boot=args.boot, seed=args.seed
    )
    models = trend_models.compare(rows)
    return {
        **trend.summary(fit, boot),
        "start": args.start,
        "end": args.end,
        "series": args.series,
        "precision": args.precision,
        "by_series": models["by_series"],
        "fixed_effects": {k: models["fixed_effects"][k] for k in ("years_per_10x", "ci_low", "ci_high")},
        "robust": {k: models["robust"][k] for k in ("ci_low", "ci_high", "method")},
        "_text": _text,
    }


def _backtest_text(result: dict) -> str:
    return (
        f"fitted up to {result['train_end']:g}: {result['years_per_10x']:.2f} years per 10x; the "
        f"{result['n_forecast']} machines after it lie a median {result['median_error_decades']:+.2f} "
        "decades from the forecast (positive: the fit under-predicted)"
    )


def run_backtest(args: argparse.Namespace) -> dict:
    rows = trend.fit_rows(trend.load(args.data), args.series, args.precision, args.start)
    result = trend_models.backtest(rows, args.train_end)
    return {k: result[k] for k in ("train_end", "years_per_10x", "median_error_decades", "n_forecast")} | {
        "_text": _backtest_text
    }


def run_build(args: argparse.Namespace) -> dict:
    return trend.build_data(args.reference, args.out)
