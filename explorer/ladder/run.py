"""Run a claim's ladder rung by rung (each rung's runs cached by its experiment), summarise every rung and give
the verdict; the shipped ladder is what `ladder CLAIM --preset main --save` wrote."""

from __future__ import annotations

import time
from pathlib import Path

from explorer import shipped
from explorer.ladder import registry, verdict
from explorer.lab import device as lab_device
from explorer.progress import SILENT, Progress

DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "ladder"
RUNG_KEYS = ("params", "flops", "effect", "low", "high", "seeds", "same_sign", "device")  # the CLI's rung keys
MEASURED_KEYS = ("label", "params", "flops", "device", "effects", "seconds")  # anything else a claim adds rides along


def shipped_path(claim: str) -> Path:
    return DATA_DIR / f"{claim}.json"


def summarise(claim: str, measured: list[dict], preset: str) -> dict:
    """The CLI's JSON from per-rung records (each: label, params, flops, device, effects {seed: effect}, seconds)
    measured with `preset`'s recipe."""
    reference = verdict.reference_sign(list(measured[0]["effects"].values())) if measured else 0
    rungs = []
    for m in measured:
        summary = verdict.rung_summary(list(m["effects"].values()), reference)
        rungs.append(
            {
                "params": int(m["params"]),
                "flops": float(m["flops"]),
                **summary,
                "device": m["device"],
                "label": m["label"],
                "seconds": m["seconds"],
                "per_seed": {str(k): v for k, v in sorted(m["effects"].items(), key=lambda kv: int(kv[0]))},
                **{k: v for k, v in m.items() if k not in MEASURED_KEYS},
            }
        )
    c = registry.get(claim)
    return {
        "claim": claim,
        "rungs": rungs,
        "verdict": verdict.verdict(rungs),
        "effect": c.effect,
        "prediction": c.prediction,
        "growth": c.growth,
        "rule": verdict.__doc__.strip(),
        "preset": preset,
        "recipe": c.recipe(preset),
    }


def run(
    claim: str,
    preset: str = "quick",
    device: str | None = None,
    use_cache: bool = True,
    progress: Progress = SILENT,
    rungs: slice = slice(None),
) -> dict:
    """Measure every rung of `claim`'s `preset` (or the `rungs` slice of them) on `device` and summarise."""
    if preset not in registry.PRESETS:
        raise ValueError(f"preset must be one of {', '.join(registry.PRESETS)}, got {preset!r}")
    c, device = registry.get(claim), device or lab_device.current()
    chosen, seeds, start = c.rungs(preset)[rungs], c.seeds(preset), time.perf_counter()
    measured = []
    for i, rung in enumerate(chosen):
        part = progress.part(i / len(chosen), (i + 1) / len(chosen), f"{rung.label}: ")
        m = c.measure(rung, seeds, device, part, use_cache)
        measured.append(
            {
                "label": rung.label,
                "params": m.params,
                "flops": m.flops,
                "effects": m.effects,
                "device": lab_device.label(device),
                "seconds": m.seconds,
                **m.extra,
            }
        )
        if progress.should_stop():
            break
    return {**summarise(claim, measured, preset), "wall_seconds": time.perf_counter() - start}


def merge(shipped_record: dict | None, new: dict) -> dict:
    """A shipped ladder with `new`'s rungs put in (a rung is its parameter count): the accelerator's top rungs
    join the CPU's lower ones, each keeping the device it was measured on."""
    old = {r["params"]: r for r in (shipped_record or {}).get("rungs", [])}
    old.update({r["params"]: r for r in new["rungs"]})
    summary_keys = set(RUNG_KEYS) | set(MEASURED_KEYS) | {"per_seed"}
    measured = [
        {
            "label": r["label"],
            "params": r["params"],
            "flops": r["flops"],
            "device": r["device"],
            "seconds": r["seconds"],
            "effects": {int(k): v for k, v in r["per_seed"].items()},
            **{k: v for k, v in r.items() if k not in summary_keys},
        }
        for _, r in sorted(old.items())
    ]
    return summarise(new["claim"], measured, new.get("preset", "main"))


def load_shipped(claim: str) -> dict | None:
    """The shipped ladder of `claim` (None when there is none yet)."""
    registry.get(claim)
    record = shipped.load(shipped_path(claim))
    return record if record and "rungs" in record else None


def save(record: dict) -> Path:
    """Write `record` as the shipped ladder of its claim (the CLI's `--save`, the only writer)."""
    return shipped.write(shipped_path(record["claim"]), record)
