"""Save and load a `Transformer` as safetensors weights plus a JSON sidecar (its config and notes).

    name.safetensors   the state dict (safetensors: a flat tensor format, loading it never unpickles)
    name.json          {"format", "config", "sha256", "bytes", "meta"}

Loading rebuilds the model from the sidecar's `TransformerConfig`, checks the weights file against the
recorded SHA-256, loads the tensors strictly (every name and shape must match) and returns the model in
`eval()` mode. Both files are written atomically (a temporary file, then a rename), so a reader never
sees half a checkpoint. Any page can use this for its shipped or on-demand models.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from explorer.model import Transformer, TransformerConfig
from explorer.results import write_json_atomic

FORMAT = "explorer-checkpoint/1"
WEIGHTS_SUFFIX = ".safetensors"


def weights_path(path: str | Path) -> Path:
    """`path` with the weights suffix (`foo`, `foo.json` and `foo.safetensors` all name one checkpoint)."""
    path = Path(path)
    return (
        path.with_suffix(WEIGHTS_SUFFIX)
        if path.suffix in ("", ".json", WEIGHTS_SUFFIX)
        else path.with_name(path.name + WEIGHTS_SUFFIX)
    )


def sidecar_path(path: str | Path) -> Path:
    return weights_path(path).with_suffix(".json")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save(model: Transformer, path: str | Path, meta: dict | None = None) -> dict:
    """Write the weights and the sidecar; return the sidecar's content."""
    target = weights_path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tensors = {name: t.detach().to("cpu").contiguous() for name, t in model.state_dict().items()}
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    try:
        save_file(tensors, tmp, metadata={"format": FORMAT})
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    sidecar = {
        "format": FORMAT,
        "config": model.cfg.to_dict(),
        "sha256": _sha256(target),
        "bytes": target.stat().st_size,
        "meta": meta or {},
    }
    write_json_atomic(sidecar_path(target), sidecar)
    for written in (target, sidecar_path(target)):  # temporary files are private; shipped files are not
        written.chmod(0o644)
    return sidecar


def read_sidecar(path: str | Path) -> dict:
    """The sidecar of a checkpoint; ValueError if it is not one of ours."""
    try:
        sidecar = json.loads(sidecar_path(path).read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{sidecar_path(path).name} is not valid JSON: {err}") from None
    if not isinstance(sidecar, dict) or sidecar.get("format") != FORMAT or not isinstance(sidecar.get("config"), dict):
        raise ValueError(f"{sidecar_path(path).name} is not an {FORMAT} sidecar")
    return sidecar


def exists(path: str | Path) -> bool:
    return weights_path(path).is_file() and sidecar_path(path).is_file()


def load(path: str | Path, verify: bool = True) -> tuple[Transformer, dict]:
    """Rebuild the model from its sidecar and load its weights; return (model in eval mode, sidecar).

    Raises FileNotFoundError when a file is missing and ValueError when the files do not match
    (checksum, unknown config keys, missing or extra tensors, wrong shapes).
    """
    target = weights_path(path)
    sidecar = read_sidecar(target)
    if not target.is_file():
        raise FileNotFoundError(target)
    if verify and _sha256(target) != sidecar.get("sha256"):
        raise ValueError(f"{target.name} does not match the checksum in its sidecar (changed or corrupt)")
    known = set(TransformerConfig.__dataclass_fields__)
    unknown = set(sidecar["config"]) - known
    if unknown:
        raise ValueError(f"{sidecar_path(target).name}: unknown config keys {sorted(unknown)}")
    model = Transformer(TransformerConfig(**sidecar["config"]))
    tensors = load_file(target)
    expected = model.state_dict()
    missing, extra = set(expected) - set(tensors), set(tensors) - set(expected)
    wrong = [k for k in set(expected) & set(tensors) if expected[k].shape != tensors[k].shape]
    if missing or extra or wrong:
        raise ValueError(
            f"{target.name} does not fit its config: missing {sorted(missing)[:3]}, "
            f"unexpected {sorted(extra)[:3]}, wrong shapes {sorted(wrong)[:3]}"
        )
    with torch.no_grad():
        model.load_state_dict(tensors, strict=True)
    model.eval()
    return model, sidecar
