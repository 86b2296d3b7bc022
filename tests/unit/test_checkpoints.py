"""Checkpoints: safetensors + a JSON sidecar; a load gives back the same model and never unpickles."""

import json
import pickle

import pytest
import torch

from explorer import checkpoints
from explorer.model import Transformer, TransformerConfig

CONFIGS = [
    TransformerConfig(arch="decoder", vocab_size=20, d_model=16, n_heads=2, n_layers=2, max_len=12),
    TransformerConfig(arch="encoder", vocab_size=20, n_out=5, d_model=16, n_heads=4, n_layers=1, max_len=8),
    TransformerConfig(arch="encoder_decoder", vocab_size=20, d_model=16, n_heads=2, n_layers=2, max_len=12),
    # steps 1-4 and the joint softmax: shared modules must be written once and come back shared
    TransformerConfig(
        arch="encoder_decoder",
        vocab_size=20,
        d_model=16,
        n_heads=2,
        n_layers=2,
        max_len=12,
        share_cross_self=True,
        share_encoder_decoder=True,
        layer_aligned=True,
        causal_encoder=True,
        joint_softmax=True,
    ),
]


def _model(cfg: TransformerConfig, seed: int = 0) -> Transformer:
    torch.manual_seed(seed)
    model = Transformer(cfg)
    with torch.no_grad():  # move every weight away from its initial value, LayerNorms included
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    return model


def _outputs(model: Transformer) -> torch.Tensor:
    x = torch.arange(2, 8).reshape(1, 6) % model.cfg.vocab_size
    target = x if model.cfg.arch == "encoder_decoder" else None
    return model(x, target).logits


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.arch + ("-steps" if c.joint_softmax else ""))
def test_a_saved_model_loads_back_identical(cfg, tmp_path):
    model = _model(cfg)
    sidecar = checkpoints.save(model, tmp_path / "m", meta={"note": "hello", "accuracy": 0.5})
    loaded, read = checkpoints.load(tmp_path / "m")
    assert loaded.cfg == cfg and not loaded.training
    assert read["meta"] == {"note": "hello", "accuracy": 0.5} and read == sidecar
    a, b = model.state_dict(), loaded.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    with torch.no_grad():
        assert torch.equal(_outputs(model.eval()), _outputs(loaded))
    assert sidecar["bytes"] == (tmp_path / "m.safetensors").stat().st_size
    assert json.loads((tmp_path / "m.json").read_text())["config"] == cfg.to_dict()


def test_any_of_the_three_names_finds_the_checkpoint(tmp_path):
    checkpoints.save(_model(CONFIGS[0]), tmp_path / "m.safetensors")
    for name in ("m", "m.json", "m.safetensors"):
        assert checkpoints.exists(tmp_path / name)
        assert checkpoints.load(tmp_path / name)[0].cfg == CONFIGS[0]


def test_missing_files_raise_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        checkpoints.load(tmp_path / "nothing")
    checkpoints.save(_model(CONFIGS[0]), tmp_path / "m")
    (tmp_path / "m.safetensors").unlink()
    with pytest.raises(FileNotFoundError):
        checkpoints.load(tmp_path / "m")


def test_changed_weights_fail_the_checksum(tmp_path):
    checkpoints.save(_model(CONFIGS[0]), tmp_path / "m")
    data = bytearray((tmp_path / "m.safetensors").read_bytes())
    data[-1] ^= 0xFF
    (tmp_path / "m.safetensors").write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum"):
        checkpoints.load(tmp_path / "m")


def test_weights_that_do_not_fit_the_config_are_refused(tmp_path):
    checkpoints.save(_model(CONFIGS[0]), tmp_path / "m")
    sidecar = json.loads((tmp_path / "m.json").read_text())
    sidecar["config"]["d_model"] = 32
    (tmp_path / "m.json").write_text(json.dumps(sidecar))
    with pytest.raises(ValueError, match="does not fit its config"):
        checkpoints.load(tmp_path / "m")
    sidecar["config"]["surprise"] = 1
    (tmp_path / "m.json").write_text(json.dumps(sidecar))
    with pytest.raises(ValueError, match="unknown config keys"):
        checkpoints.load(tmp_path / "m")


def test_a_foreign_sidecar_is_refused(tmp_path):
    checkpoints.save(_model(CONFIGS[0]), tmp_path / "m")
    (tmp_path / "m.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="sidecar"):
        checkpoints.load(tmp_path / "m")
    (tmp_path / "m.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        checkpoints.load(tmp_path / "m")


class _Payload:
    """Unpickling this object would create the file at `marker`."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_loading_never_unpickles(tmp_path):
    """A pickle dressed as the weights file (with a matching checksum) is rejected without being run."""
    checkpoints.save(_model(CONFIGS[0]), tmp_path / "m")
    marker = tmp_path / "unpickled"
    (tmp_path / "m.safetensors").write_bytes(pickle.dumps(_Payload(marker)))
    sidecar = json.loads((tmp_path / "m.json").read_text())
    sidecar["sha256"] = checkpoints._sha256(tmp_path / "m.safetensors")
    (tmp_path / "m.json").write_text(json.dumps(sidecar))
    with pytest.raises(Exception):
        checkpoints.load(tmp_path / "m")
    assert not marker.exists()
