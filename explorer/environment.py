"""The machine a result was made on, and whether a rerun here can be expected to match it bit for bit.

CPU kernels differ between instruction sets (AVX2, AVX-512, NEON) and vendors' BLAS paths, and training
amplifies last-bit differences, so a shipped result replays exactly only where the fields in
`REPLAY_FIELDS` are the same. Everything else recorded (Python, NumPy, processor name) is context for a reader.
"""

from __future__ import annotations

import platform
from pathlib import Path

import numpy as np
import torch

from explorer import content
from explorer.formatting import plural

REPLAY_FIELDS = ("torch", "cpu_capability", "machine", "cpu_vendor", "threads")


def _cpu_vendor() -> str:
    """The CPU vendor (GenuineIntel, AuthenticAMD, Apple ...): MKL takes vendor-specific paths."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("vendor_id", "CPU implementer")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def current(threads: int | None = None) -> dict:
    """This process's environment; `threads` is the torch thread count the result was computed with."""
    return {
        "torch": torch.__version__,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "machine": platform.machine(),
        "cpu_vendor": _cpu_vendor(),
        "threads": threads if threads is not None else torch.get_num_threads(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "system": platform.system(),
    }


def replay_difference(recorded: dict | None, now: dict) -> list[str]:
    """The replay fields on which `recorded` and `now` differ, as 'field: recorded -> now' (empty: same)."""
    if not isinstance(recorded, dict):
        return ["no environment recorded with the result"]
    return [
        f"{field}: {recorded.get(field)} -> {now.get(field)}"
        for field in REPLAY_FIELDS
        if recorded.get(field) != now.get(field)
    ]


def describe(env: dict) -> str:
    """One line for a reader: 'torch 2.13.0+cpu, AVX512, x86_64 GenuineIntel, 1 thread'."""
    return content.text(
        "common",
        "environment",
        torch=env.get("torch"),
        cpu=env.get("cpu_capability"),
        machine=env.get("machine"),
        vendor=env.get("cpu_vendor"),
        threads=plural(env.get("threads") or 0, "thread"),
        n=env.get("threads"),
    )
