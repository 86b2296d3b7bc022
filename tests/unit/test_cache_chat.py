"""Slide 66's chat through the real tokenizer and the shipped demo models: per turn, what is reused or recomputed,
and how far old tokens' keys and values move (a causal model's do not, to float tolerance; a bidirectional one's do)."""

import copy
import json

import numpy as np
import pytest
import torch

from explorer.experiments import chat_cache as cc
from explorer.figures import cache as figs


@pytest.fixture(scope="module")
def models():
    loaded = cc.load_models()
    assert loaded is not None, "the demo models are shipped in data/demo_models"
    return loaded


def test_the_lecture_chat_is_two_turns_of_real_tokens_joined_by_a_space():
    chat = cc.parse_chat(cc.DEFAULT_CHAT)
    assert chat.turns == ("how are you?", "bad")
    assert chat.ends == (12, 16) and len(chat.ids) == 16
    assert "".join(chat.labels) == "how␣are␣you?␣bad"
    assert chat.notices == ()  # capitals are lowercased, as the tokenizer would, without a notice


@pytest.mark.parametrize(
    "text, limit",
    [
        (" / ".join(["hi"] * (cc.MAX_TURNS + 1)), f"at most {cc.MAX_TURNS}"),
        ("x" * (cc.MAX_TURN_CHARS + 1), f"at most {cc.MAX_TURN_CHARS} per turn"),
        (" / / ", "empty"),
        ("\u200b\u200d", "invisible"),
    ],
)
def test_a_chat_over_a_limit_is_refused_naming_the_limit(text, limit):
    with pytest.raises(ValueError, match=limit):
        cc.parse_chat(text)


def test_blank_turns_are_skipped_and_markup_becomes_plain_tokens():
    chat = cc.parse_chat("<b>hi</b> / / **ok**")
    assert len(chat.turns) == 3  # '<b>hi<', 'b>', '**ok**': the separator splits the closing tag too
    assert set("".join(chat.labels)) <= set(cc.tokenizer.ALPHABET) | {"␣"}
    assert any("shown as '?'" in note for note in chat.notices)


def test_the_causal_model_keeps_old_keys_and_values_and_the_bidirectional_one_moves_them(models):
    data = cc.chat_reuse(cc.parse_chat(cc.DEFAULT_CHAT), models)
    first, second = data["turns"]
    assert first["drift"] is None and first["old"] == 0 and first["new"] == 12
    assert second["causal_reused"] == second["bidirectional_recomputed"] == 12 and second["new"] == 4
    causal = np.array(second["drift"]["causal"])
    bidirectional = np.array(second["drift"]["bidirectional"])
    assert data["quantities"] == ["layer 1 keys & values", "layer 2 keys & values", "output state"]
    assert causal.shape == bidirectional.shape == (models["causal"].cfg.n_layers + 1, 12)
    assert causal.max() < 1e-5  # float32 rounding: an old token never reads a new one
    assert bidirectional[0].max() < 1e-5  # layer 1 reads only each token's own embedding
    assert bidirectional[1:].min() > 0.05 and bidirectional[1:].mean() > 0.5  # layer 2 has read the new turn
    summary = cc.drift_summary(second, 1)
    assert summary["max"] == bidirectional[1].max() and data["tokens"][summary["argmax"]] == "r"
    assert json.loads(json.dumps(data)) == data  # plain data, as the CLI prints it


def test_in_float64_the_causal_old_states_are_equal_to_rounding(models):
    causal = copy.deepcopy(models["causal"]).to(torch.float64)
    chat = cc.parse_chat(cc.DEFAULT_CHAT)
    moved = cc.old_token_drift(causal, chat.ids[:12], chat.ids)
    assert moved.max() < 1e-12


def test_turns_past_the_models_length_are_not_measured_but_keep_their_reuse_counts(models):
    chat = cc.parse_chat("hi / ok / how are you today")
    data = cc.chat_reuse(chat, models)
    assert [t["drift"] is not None for t in data["turns"]] == [False, True, False]
    assert data["turns"][2]["end"] > cc.MEASURED_LIMIT and data["turns"][2]["causal_reused"] == 5
    assert cc.drift_summary(data["turns"][2], 1) is None


def test_the_figure_marks_the_measured_drift_and_the_causal_zero_by_construction(models):
    fig = figs.chat_reuse(cc.chat_reuse(cc.parse_chat(cc.DEFAULT_CHAT), models), shown=1)
    meta = fig.layout.meta
    assert meta["evidence_kinds"] == ["measured", "by construction"]
    assert fig.layout.title.text.startswith("Turn 2: the causal model computes 4 new tokens")
    causal, bidirectional = fig.data[:2]
    assert list(causal.text[1][:12]) == [""] * 12  # reused: no number, it cannot move
    assert bidirectional.text[1][5] == "151%"  # 'r', layer 2
    assert list(fig.layout.xaxis2.ticktext) == list("how␣are␣you?␣bad")
    assert len(fig.to_json()) < 20_000  # a lean spec: the first screen loads fast


def test_a_long_chat_is_drawn_in_blocks_per_turn_and_without_models_by_construction():
    chat = cc.parse_chat(" / ".join(["what does the cache keep"] * 4))
    fig = figs.chat_reuse(cc.chat_reuse(chat, None), shown=1)
    assert len(chat.ids) > figs.MAX_CHAT_CELLS
    assert list(fig.layout.xaxis2.ticktext) == [f"turn {i}" for i in range(1, 5)]
    assert fig.layout.meta["evidence_kinds"] == ["by construction"]
    assert fig.data[0].text[3][3] == f"{len(chat.ids) - chat.ends[2]} new"


def test_a_refused_chat_is_named_in_the_run_language():
    from explorer import i18n

    with pytest.raises(ValueError, match="at most 8"):
        cc.parse_chat(" / ".join(["hi"] * 9))
    with i18n.using("zh"), pytest.raises(ValueError, match="对话有 9 轮；本页至多接受 8 轮"):
        cc.parse_chat(" / ".join(["hi"] * 9))
