"""Four-steps page: figure build times, the numeric check and one ablation run (its slider-move reruns are
timed with every other page's in bench_pages).

`python -m bench.bench_four_steps` (or `make bench`). Prints medians and ratios; asserts nothing. Quick mode: one
repeat each, a short numeric check and ablation run.
"""

from __future__ import annotations

import torch

from bench.stats import median_seconds
from explorer.experiments import four_steps as fs
from explorer.figures import four_steps as figs


def _figures(repeats: int) -> dict[str, float]:
    base = fs.base_config(**fs.DEFAULT_SIZES)
    counts = fs.parameter_counts(base)
    check = fs.load_shipped(fs.CHECK_PATH)
    record = fs.load_shipped()
    cfg = fs.step_config(base, 4)
    builders = {
        "diff table": lambda: figs.diff_table(fs.diff_table(base, 4, counts), 4, fs.STEP_TITLES[4]),
        "wiring": lambda: figs.wiring(fs.wiring(cfg), "w"),
        "masks": lambda: figs.combined_masks(
            [("a", fs.combined_mask(cfg, 6, 6)), ("b", fs.combined_mask(fs.decoder_only_config(base), 6, 6))]
        ),
        "parameter counts (meta device)": lambda: fs.parameter_counts(base),
        "parameter bars": lambda: figs.parameter_bars(counts, "4", base.to_dict()),
        "logit check": lambda: figs.logit_check(check, 4),
        "ablation dots": lambda: figs.ablation(record),
    }
    return {name: median_seconds(fn, repeats=repeats)[0] for name, fn in builders.items()}


def main(quick: bool = False) -> dict[str, float]:
    """Print the timings; return the figure builders' medians and the check's and the run's seconds."""
    repeats, train_steps = (1, 5) if quick else (7, 100)
    figures = _figures(repeats)
    print(f"figure and data builders (median of {repeats}):")
    for name, seconds in figures.items():
        print(f"  {name:32s} {seconds * 1000:7.1f} ms")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        check, _ = median_seconds(
            lambda: fs.numeric_check(fs.base_config(**fs.DEFAULT_SIZES), train_steps), repeats=repeats // 2 + 1
        )
        settings = fs.AblationSettings(
            seeds=(0,), variants=("4",), **({"steps": 10, "eval_every": 5, "eval_size": 32} if quick else {})
        )
        one_run, _ = median_seconds(lambda: fs.run_one(settings, "4", 0), repeats=repeats // 2 + 1)
    finally:
        torch.set_num_threads(before)
    record = fs.load_shipped()
    print(
        f"numeric check at the default sizes (train {train_steps} steps + 6 steps x 2 dtypes), 1 thread: {check:.2f} s"
    )
    print(
        f"one ablation run (step 4, seed 0, {settings.steps} steps), 1 thread: {one_run:.2f} s; the shipped "
        f"ablation took {record['wall_seconds']:.0f} s for {len(record['runs'])} runs "
        f"(x{record['wall_seconds'] / len(record['runs']) / one_run:.2f} of this run's time per run)"
    )
    return {**figures, "numeric check": check, "one ablation run": one_run}


if __name__ == "__main__":
    main()
