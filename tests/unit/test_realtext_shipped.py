"""The shipped real-text models: size, learned language, the attention command's exact JSON, their guesses."""

import dataclasses
import json

import numpy as np
import pytest

from explorer.cli import main
from explorer.realtext import objectives, reading, training

SENTENCE = "And God said, Let there be light."


@pytest.fixture(scope="module")
def loaded():
    return {a: training.load(a) for a in training.ARCHS}


@pytest.mark.parametrize("arch", training.ARCHS)
def test_each_shipped_model_is_small_and_learned_the_language(arch, loaded):
    model, sidecar, tok = loaded[arch]
    assert sidecar["bytes"] <= training.MAX_WEIGHT_BYTES
    loss = sidecar["meta"]["held_out_loss"]
    assert loss["en"] < 2.2  # a unigram model of these characters needs ~3.0 nats
    assert loss["zh"] < np.log(tok.vocab_size)
    assert sidecar["meta"]["recipe"] == dataclasses.asdict(training.Recipe())  # shipped = the default recipe


def test_the_shipped_held_out_loss_is_what_the_weights_give(loaded):
    model, sidecar, tok = loaded["decoder"]
    again = objectives.held_out_loss(model, objectives.Streams(tok))
    assert again == pytest.approx(sidecar["meta"]["held_out_loss"], rel=1e-5)


@pytest.mark.parametrize("arch", training.ARCHS)
def test_the_attention_command_prints_exactly_the_contract(arch, capsys):
    assert main(["real-text", "attention", "--text", SENTENCE, "--arch", arch, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"tokens", "layers", "heads", "attention", "patterns"}
    assert out["tokens"] == list(SENTENCE)
    att = np.array(out["attention"])
    assert att.shape == (out["layers"], out["heads"], len(SENTENCE), len(SENTENCE))
    np.testing.assert_allclose(att.sum(-1), 1.0, atol=1e-3)
    allowed = reading.mask_of(arch, len(SENTENCE))
    assert np.abs(att[..., ~allowed]).max() == 0.0  # the mask holds in the weights
    assert {p["name"] for p in out["patterns"]} == set(reading.PATTERNS)
    assert all(0.0 <= p["score"] <= 1.0 for p in out["patterns"])


def test_a_chinese_sentence_and_bad_input(capsys):
    assert main(["real-text", "attention", "--text", "春风又绿江南岸", "--arch", "encoder", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tokens"] == list("春风又绿江南岸")
    assert main(["real-text", "attention", "--text", "", "--arch", "decoder", "--json"]) == 2
    assert "empty" in capsys.readouterr().err


def test_the_decoder_and_encoder_guess_like_language_models(loaded):
    dec, enc = loaded["decoder"], loaded["encoder"]
    nxt = reading.next_token_guesses(dec[0], dec[2], "And God said unto Mose")
    assert nxt["top"][0]["token"] == "s"
    masked = reading.masked_guesses(enc[0], enc[2], "In the beginning God created the heaven and the earth.")
    assert sum(m["right"] for m in masked) > len(masked) / 2
    prev = max(s["score"] for s in reading.read(dec[0], dec[2], SENTENCE).patterns if s["name"] == "previous_token")
    assert prev > 0.5  # some decoder head mostly looks one character back
