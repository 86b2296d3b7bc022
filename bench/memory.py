"""A server's memory under load, from the kernel's own counters (Linux `/proc`): no sampling to miss a peak."""

from __future__ import annotations

from pathlib import Path


def _status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


class PeakMemory:
    """How far a process's resident memory rose above where it stood: the kernel's peak (VmHWM) is reset on
    entry (`clear_refs` 5), read on exit. `extra_mb` is then the peak less the resident size at entry."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def __enter__(self) -> "PeakMemory":
        self.start_kb = _status_kb(self.pid, "VmRSS")
        Path(f"/proc/{self.pid}/clear_refs").write_text("5")
        return self

    def __exit__(self, *exc) -> None:
        self.peak_kb = _status_kb(self.pid, "VmHWM")
        self.extra_mb = (self.peak_kb - self.start_kb) / 1024
