"""Device check for a machine with an accelerator (under 4 minutes on one GPU): every experiment's quick slice
through its own CLI command on `--device` (default cuda), the reviewed recipe where the experiment has it, then
the seeds-batched (vmap) against one-by-one timing on that device. Prints one JSON object:
{"device", "torch", "experiments": [{"name", "argv", "rc", "seconds", "recipe", "device", "headline"}], "vmap"}.

    python -m bench.device_check               # cuda
    python -m bench.device_check --device cpu --tiny   # the same path on the CPU, tiny sizes (a smoke test)

In `python -m bench` it runs on cuda where there is one, else as `--device cpu --tiny`; its quick mode is always
the CPU smoke test. Either fails when any slice failed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

import torch

from explorer.cli import main as cli

OUT = Path(tempfile.gettempdir()) / "explorer-device-check"  # never data/: nothing here passes --save


def slices(device: str, tiny: bool) -> list[tuple[str, list[str]]]:
    """(name, argv) per experiment: small enough for seconds each on a GPU (or on a CPU with `tiny`)."""
    s = lambda big, small: small if tiny else big  # noqa: E731
    OUT.mkdir(parents=True, exist_ok=True)
    common = ["--device", device, "--json"]
    return [
        (
            "bidirectional-scaling (reviewed, widths to 256)",
            [
                "bidirectional-scaling",
                "--widths",
                s("32,128,256", "8,16"),
                "--budgets",
                s("150,300", "10,20"),
                "--seeds",
                s("2", "1"),
                "--recipe",
                "reviewed",
                *common,
            ],
        ),
        (
            "bidirectional-scaling (old recipe, same slice)",
            [
                "bidirectional-scaling",
                "--widths",
                s("32,128,256", "8,16"),
                "--budgets",
                s("150,300", "10,20"),
                "--seeds",
                s("2", "1"),
                "--recipe",
                "old",
                *common,
            ],
        ),
        (
            "bitter-lesson (reviewed)",
            [
                "bitter-lesson",
                "--cases",
                "order",
                "--seeds",
                s("2", "1"),
                "--steps",
                s("400", "16"),
                "--recipe",
                "reviewed",
                *common,
            ],
        ),
        ("crossover", ["crossover", "--preset", "quick", "--steps", s("128", "8"), "--seeds", "2", *common]),
        (
            "depth (reviewed)",
            [
                "depth",
                "--preset",
                "main",
                "--depths",
                s("2,4", "1"),
                "--steps",
                s("200", "4"),
                "--seeds",
                "2",
                "--recipe",
                "reviewed",
                *common,
            ],
        ),
        (
            "lengths (reviewed)",
            [
                "lengths",
                "--preset",
                "quick",
                "--seeds",
                "1",
                "--steps",
                s("200", "20"),
                "--recipe",
                "reviewed",
                *common,
            ],
        ),
        (
            "shared-params (reviewed)",
            [
                "shared-params",
                "--preset",
                "quick",
                "--seeds",
                "1",
                "--steps",
                s("150", "5"),
                "--recipe",
                "reviewed",
                *common,
            ],
        ),
        (
            "four-steps (reviewed)",
            [
                "four-steps",
                "ablation",
                "--preset",
                "main",
                "--seeds",
                "0",
                "--steps",
                s("100", "4"),
                "--variants",
                "0",
                "4",
                "decoder",
                "--out",
                str(OUT / "ablation.json"),
                "--recipe",
                "reviewed",
                *common,
            ],
        ),
        (
            "cache-stale",
            [
                "cache",
                "stale",
                "--tasks",
                "sort",
                "--task-steps",
                s("300", "10"),
                "--seeds",
                "0",
                "--sizes",
                "8x4",
                "--test-chats",
                "64",
                "--out",
                str(OUT / "stale.json"),
                *common,
            ],
        ),
    ]


def _headline(out: dict) -> object:
    """A few numbers to compare with a CPU run: the first point, row or crossover the command reports."""
    for key in ("points", "rows", "arms", "lr_table"):
        if isinstance(out.get(key), list) and out[key]:
            return out[key][-1]
    return out.get("crossover") or out.get("summary") or {k: out[k] for k in list(out)[:3]}


def run_one(name: str, argv: list[str]) -> dict:
    buffer, errors, start = io.StringIO(), io.StringIO(), time.perf_counter()
    try:
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(errors):
            rc = cli(argv)
        out = json.loads(buffer.getvalue() or "{}")
        error = None
    except (Exception, SystemExit) as err:  # one broken slice (arguments refused included) must not hide the others
        rc, out, error = 1, {}, f"{type(err).__name__}: {err} {errors.getvalue()[-300:]}".strip()
    return {
        "name": name,
        "argv": argv,
        "rc": rc,
        "seconds": time.perf_counter() - start,
        "error": error,
        "recipe": (out.get("recipe") or {}).get("name"),
        "lr_by_size": (out.get("recipe") or {}).get("lr_by_size"),
        "device": out.get("device"),
        "headline": _headline(out) if out else None,
    }


def main(argv: list[str] | None = None, quick: bool = False) -> dict:
    """The report; `argv` as on the command line (None: as `python -m bench` runs it, see above)."""
    if quick or (argv is None and not torch.cuda.is_available()):
        argv = ["--device", "cpu", "--tiny"]
    report = check(argv or [])
    for e in report["experiments"]:
        print(f"  {e['name']:50s} rc {e['rc']} {e['seconds']:6.1f} s {e['error'] or ''}")
    print(
        f"  vmap on {report['vmap']['device']}: batched x{report['vmap']['batched_speed']:.2f} the speed; "
        f"{report['wall_seconds']:.0f} s in all"
    )
    failed = [e["name"] for e in report["experiments"] if e["rc"] or e["error"]]
    if failed:
        raise RuntimeError(f"device check: {', '.join(failed)} failed")
    return report


def check(argv: list[str]) -> dict:
    """Run the slices and the vmap timing as `argv` asks; the report as printed by `python -m bench.device_check`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--tiny", action="store_true", help="tiny sizes (a CPU smoke test of the same path)")
    parser.add_argument("--only", default=None, help="run only slices whose name contains this")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    report = {
        "device": args.device,
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "experiments": [],
    }
    for name, slice_argv in slices(args.device, args.tiny):
        if args.only is None or args.only in name:
            report["experiments"].append(run_one(name, slice_argv))
    from bench.bench_vmap import measure

    report["vmap"] = measure(args.device, *((4, 1, "quick") if args.tiny else (30, 3)))
    report["wall_seconds"] = time.perf_counter() - start
    return report


if __name__ == "__main__":
    print(json.dumps(check(sys.argv[1:]), default=str))
