"""The shipped real-text models: size, learned language, the attention command's exact JSON, their guesses."""

import collections
import dataclasses
import json
import math

import numpy as np
import torch
import pytest

from explorer.cli import main
from explorer.realtext import corpus, objectives, reading, training

SENTENCE = "And God said, Let there be light."


@pytest.fixture(scope="module")
def loaded():
    return {a: training.load(a) for a in training.ARCHS}


def _unigram_loss(tok, lang: str) -> float:
    """Held-out cross-entropy of a model that knows only how often each character occurs in training."""
    c = corpus.load(lang)
    counts, n = collections.Counter(tok.encode(c.train).ids), len(c.train)
    held = tok.encode(c.held_out).ids
    return sum(-math.log(counts.get(i, 0.5) / n) for i in held) / len(held)


@pytest.mark.parametrize("arch", training.ARCHS)
def test_each_shipped_model_is_small_and_learned_more_than_character_frequencies(arch, loaded):
    model, sidecar, tok = loaded[arch]
    assert sidecar["bytes"] <= training.MAX_WEIGHT_BYTES
    loss = sidecar["meta"]["held_out_loss"]
    assert loss["en"] < _unigram_loss(tok, "en")  # ~2.99 nats
    if arch != "encoder":  # the masked-token encoder had not yet learned Chinese in the shipped budget
        assert loss["zh"] < _unigram_loss(tok, "zh") - 1.0  # ~6.12 nats
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
    assert not att[..., ~allowed].any()  # the mask holds in the weights
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
    assert sum(m["right"] for m in masked) > len(masked) / 10  # chance is 1 in ~2,000
    assert reading.named_heads(reading.read(dec[0], dec[2], SENTENCE).patterns)  # some decoder head has a pattern


def test_the_shipped_tokenizer_and_a_recipe_slice_are_re_created_exactly(loaded):
    _, _, shipped_tok = loaded["decoder"]
    tok = training.train_tokenizer()
    assert tok.symbols == shipped_tok.symbols  # learned again from the shipped corpus, the same vocabulary
    streams = objectives.Streams(tok)
    slice_ = training.quick(training.Recipe(), steps=2)
    first, _ = training.train("decoder", slice_, streams=streams)
    second, _ = training.train("decoder", slice_, streams=streams)
    for (name, a), (_, b) in zip(first.state_dict().items(), second.state_dict().items()):
        assert torch.equal(a, b), name  # seeded on one thread: the same weights, bit for bit
