"""Where training runs: `cpu` (the default, always there), `cuda`, `mps`, or `auto` (an accelerator if torch sees
one, else the CPU). Data is always drawn on the CPU from seeded generators and then moved, so a seed means the same
examples on every device; only the arithmetic differs (results record the device they were made on)."""

from __future__ import annotations

import torch

CHOICES = ("auto", "cpu", "cuda", "mps")


def available(name: str) -> bool:
    """Can torch use device `name` here?"""
    if name == "cpu":
        return True
    if name == "cuda":
        return torch.cuda.is_available()
    if name == "mps":
        backend = getattr(torch.backends, "mps", None)
        return bool(backend and backend.is_available())
    return False


def resolve(name: str = "cpu") -> torch.device:
    """The torch device for a `--device` value; ValueError (one clear line) for an unknown or absent one."""
    if name not in CHOICES:
        raise ValueError(f"device must be one of {', '.join(CHOICES)}, got {name!r}")
    if name == "auto":
        return torch.device(next((d for d in ("cuda", "mps") if available(d)), "cpu"))
    if not available(name):
        raise ValueError(
            f"device {name!r} is not available here (torch sees: {', '.join(d for d in CHOICES[1:] if available(d))})"
        )
    return torch.device(name)


def label(device: torch.device | str) -> str:
    """What a result records: 'cpu', 'cuda' or 'mps' (the index dropped: results do not depend on it)."""
    return torch.device(device).type


def cache_key(device: torch.device | str) -> dict:
    """What a cached run adds to its key for `device`: nothing on the CPU (old keys stay valid), else its type."""
    kind = label(resolve(device) if isinstance(device, str) else device)
    return {} if kind == "cpu" else {"device": kind}


_current = "cpu"  # what a training call without its own device uses: the CLI's --device sets it


def use(name: str) -> str:
    """Make `name` the device of every training call that names none (the CLI's `--device`); its label."""
    global _current
    _current = label(resolve(name))
    return _current


def current() -> str:
    """The device a training call without its own uses (the CPU unless `use` said otherwise)."""
    return _current


# Seeds trained as one vmapped model (the crossover sweep) only where that was measured faster than one model after
# another (`python -m bench.bench_vmap <device> <steps> <repeats>`, median of interleaved runs, the main sweep's 15
# runs x 3 seeds): on this project's busy 2-core CPU the batched path ran at x0.79 the speed (12 steps, 3 repeats;
# also x0.79 at 4 steps, x1.30 in one noisier 6-step run; the audit's x0.90). CUDA keeps batching until
# `bench/device_check.py` measures it on a GPU.
BATCH_SEEDS = {"cpu": False, "cuda": True, "mps": False}


def batch_seeds(device: str | None = None) -> bool:
    """Train a run's seeds as one vmapped model on `device` (default: the current one)?"""
    return BATCH_SEEDS.get(label(device or current()), False)
