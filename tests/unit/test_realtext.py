"""The real-text corpus, tokenizer, objectives and a real (tiny) training slice of all four architectures."""

import json

import numpy as np
import pytest
import torch

from explorer.cli import main
from explorer.realtext import corpus, objectives, reading, training
from explorer.realtext.tokenizer import MASK, SPECIALS, CharTokenizer

TINY = training.Recipe(steps=30, batch_size=8, lr=3e-3, warmup=5, d_model=32, n_heads=2, d_ff=64, layers=2)


@pytest.fixture(scope="module")
def tok() -> CharTokenizer:
    return training.train_tokenizer()


@pytest.fixture(scope="module")
def streams(tok) -> objectives.Streams:
    return objectives.Streams(tok)


def test_the_shipped_corpus_has_both_languages_with_a_held_out_tail_no_line_shares():
    for lang in corpus.LANGS:
        c = corpus.load(lang)
        assert len(c.train) > 15 * len(c.held_out) > 0
        assert c.train.endswith("\n")  # the cut falls at a line break
        assert c.held_out.splitlines()[0] not in c.train.splitlines()[-3:]
    assert "In the beginning God created the heaven and the earth." in corpus.load("en").train
    zh = corpus.load("zh").train
    assert "\x1b" not in zh and "%" not in zh and "作者" in zh  # colour codes and separators removed
    source = (corpus.DATA_DIR / "SOURCE.md").read_text()
    assert "public domain" in source and "fortunes-zh" in source and "bible-kjv" in source


def test_a_missing_corpus_names_the_command_that_builds_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="real-text corpus --save"):
        corpus.load("en", tmp_path)


def test_the_tokenizer_learns_characters_by_frequency_and_reports_what_it_cannot_read(tok, tmp_path):
    assert tok.symbols[:4] == list(SPECIALS) and tok.symbols[4] == " "  # the space is the most frequent
    assert 1500 < tok.vocab_size < 3000  # ~60 English characters and ~2,000 Chinese ones
    enc = tok.encode("Let there be light 😀 7 床前明月光")
    assert tok.decode(enc.ids) == "Let there be light <unk> <unk> 床前明月光"
    assert enc.unknown == ["😀", "7"]
    assert tok.encode("abc", max_len=2).truncated_from == 3
    tok.save(tmp_path / "t.json")
    again = CharTokenizer.load(tmp_path / "t.json")
    assert again.symbols == tok.symbols and again.digest() == tok.digest()
    assert CharTokenizer.train(["aab"]).symbols == [*SPECIALS, "a"]  # 'b' is seen once: not learned


@pytest.mark.parametrize("arch", training.ARCHS)
def test_each_objective_predicts_only_what_its_mask_hides(arch, streams, tok):
    g = torch.Generator().manual_seed(0)
    b = objectives.batch(arch, streams, 16, g)
    assert b.inputs.shape == b.labels.shape == (16, objectives.SEQ_LEN)
    valid = b.labels != objectives.IGNORE
    if arch == "decoder":
        assert valid.all() and torch.equal(b.labels[:, :-1], b.inputs[:, 1:])
    elif arch == "prefix_lm":  # no loss where the next token sits inside the bidirectional prefix
        assert not valid[:, : b.prefix_len - 1].any() and valid[:, b.prefix_len - 1 :].all()
    elif arch == "encoder":
        share = valid.float().mean()
        assert 0.05 < share < 0.3
        assert (b.inputs[valid] == tok.id(MASK)).float().mean() > 0.6  # most chosen positions show <mask>
    else:
        assert torch.equal(b.target_in[:, 1:], b.labels[:, :-1])  # the decoder writes the clean window
        assert torch.equal(b.inputs[b.corrupted], torch.full_like(b.inputs[b.corrupted], tok.id(MASK)))
        assert 0.05 < b.corrupted.float().mean() < 0.3


@pytest.mark.parametrize("arch", training.ARCHS)
def test_a_training_slice_learns_and_round_trips_through_its_files(arch, streams, tok, tmp_path):
    model, record = training.train(arch, TINY, streams=streams)
    chance = np.log(tok.vocab_size)
    assert record["held_out_loss"]["en"] < chance - 1.5  # 30 steps already learn which characters are common
    assert record["steps_done"] == TINY.steps and record["tokenizer"] == tok.digest()
    assert record["samples"] and record["forward_ms_64_tokens"] > 0
    sidecar = training.save(model, record, tok, tmp_path)
    assert sidecar["bytes"] <= training.MAX_WEIGHT_BYTES
    loaded, side, tok2 = training.load(arch, tmp_path)
    assert tok2.digest() == tok.digest() and side["meta"]["arch"] == arch
    again = objectives.held_out_loss(loaded, streams)
    assert again == pytest.approx(record["held_out_loss"], rel=1e-6)


def test_the_four_models_are_one_transformer_of_about_equal_size(tok):
    sizes = {a: training.Transformer(training.model_config(a, tok.vocab_size)).num_parameters() for a in training.ARCHS}
    assert len({sizes[a] for a in ("decoder", "encoder", "prefix_lm")}) == 1
    assert 1.0 < sizes["encoder_decoder"] / sizes["decoder"] < 1.15  # its cross-attention, nothing else


def test_pattern_scores_measure_a_head_built_to_look_one_token_back():
    tokens = list("In the beginning, God.")
    n = len(tokens)
    allowed = reading.mask_of("decoder", n)
    prev = np.zeros((1, 1, n, n))
    prev[0, 0, 0, 0] = 1.0
    prev[0, 0, np.arange(1, n), np.arange(n - 1)] = 1.0
    scores = {s["name"]: s["score"] for s in reading.pattern_scores(prev, allowed, tokens)}
    assert scores["previous_token"] == 1.0
    assert scores["same_word"] == 1.0  # a query that can see earlier letters of its word: the previous one is one
    assert 0 < scores["word_start"] < 1  # the previous character starts a word only at a word's second letter
    (named,) = reading.named_heads(reading.pattern_scores(prev, allowed, tokens))
    assert named["name"] == "previous_token"
    assert reading.word_ids(list("Go in")) == [0, 0, -1, 1, 1]
    assert reading.word_ids(list("春风，")) == [0, 1, -1]


def test_the_masks_of_the_four_readings():
    assert reading.mask_of("encoder", 4).all()
    assert not reading.mask_of("decoder", 4)[0, 1]
    prefix = reading.mask_of("prefix_lm", 6)  # the first half (3 tokens) both ways
    assert prefix[0, 2] and not prefix[0, 3] and not prefix[3, 4] and prefix[4, 3]


def test_the_cli_trains_a_slice_and_prints_json(capsys):
    assert main(["real-text", "train", "--arch", "prefix_lm", "--steps", "2", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["arch"] == "prefix_lm" and out["steps_done"] == 2 and set(out["held_out_loss"]) == {"en", "zh"}
    assert main(["real-text", "corpus", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["zh"]["held_out_characters"] > 1000
