"""The attention page's numbers, checked without the page: pairs a mask allows (closed forms), the takeaway's
kind per architecture, what a model wrote against the answer, and the token table."""

import pytest

from explorer import i18n, tokenizer
from explorer.experiments import attention as att, attention_view as view

HELLO = tuple(tokenizer.encode("hello world").ids)  # 11 characters


def test_encoder_decoder_allows_the_input_both_ways_and_the_target_causally_plus_the_whole_input():
    n = m = len(HELLO)
    kind, values = view.takeaway("encoder_decoder", False, HELLO)
    assert kind == "encoder-decoder"
    assert values["allowed"] == n * n + m * (m + 1) // 2 + m * n == 308 and values["cells"] == (n + m) ** 2 == 484
    kind, causal = view.takeaway("encoder_decoder", True, HELLO)  # step 4: the input reads only backwards
    assert kind == "encoder-decoder-causal" and causal["allowed"] == 308 - n * (n - 1) // 2


def test_decoder_only_is_one_causal_triangle_and_prefix_lm_opens_the_input_block():
    t = 2 * len(HELLO)
    kind, values = view.takeaway("decoder", False, HELLO)
    assert kind == "decoder" and values["allowed"] == t * (t + 1) // 2 and values["cells"] == t * t
    kind, prefix = view.takeaway("prefix_lm", False, HELLO)
    n = len(HELLO)
    # the prefix read both ways is the input and <bos>: n + 1 positions, whose upper triangle opens
    assert kind == "prefix-lm" and prefix["allowed"] == values["allowed"] + (n + 1) * n // 2


def test_encoder_only_reads_its_padded_window():
    kind, values = view.takeaway("encoder", False, HELLO)
    assert kind == "encoder" and values == {"cells": att.MAX_CHARS**2, "slots": att.MAX_CHARS}


@pytest.mark.parametrize("arch", att.ARCHS)
def test_the_masks_notice_reads_the_architecture_and_then_the_empty_cells(arch):
    notice = view.masks_notice(arch)
    assert notice.endswith("Target labels here assume the right answer.") and notice.count("Empty cells") == 1
    assert notice.startswith("One causal stack over") == (arch == "decoder")
    with i18n.using("zh"):
        assert view.masks_notice(arch).endswith("这里的目标标签假定模型给出了正确答案。")


def test_the_variants_help_says_they_need_an_encoder_decoder_only_where_they_are_disabled():
    assert view.variants_note("encoder_decoder") == ""
    assert view.variants_note("decoder") == (
        " These variants rewire an encoder-decoder: choose Encoder-decoder to use them."
    )
    with i18n.using("zh"):
        assert view.variants_note("prefix_lm").startswith(" 这些变体改的是编码器-解码器的连接")


def _read(output: str, expected: str) -> dict:
    ids = lambda s: [tokenizer.encode(c).ids[0] for c in s]  # noqa: E731 - one character at a time
    got, want = ids(output), ids(expected)
    return {
        "input_ids": list(reversed(want)),
        "output_ids": got,
        "expected_ids": want,
        "output": output,
        "expected": expected,
        "wrong_positions": [i for i, (a, b) in enumerate(zip(got, want)) if a != b],
    }


def test_the_output_summary_lists_the_wrong_positions_from_one_and_counts_the_rest():
    right = view.output_summary(_read("olleh", "olleh"), {})
    assert right["verdict"] == "all right" and not right["wrong"] and right["accuracy"] is None
    assert right["input"] == "hello"
    wrong = view.output_summary(
        _read("abcdefghij", "klmnopqrst"),
        {
            "accuracy": {"strings": 448, "char_accuracy": 0.99, "exact_match": 0.9},
            "training": {"stopped": "time_budget"},
        },
    )
    assert wrong["verdict"] == "0 of 10 right" and wrong["more"] == ", and 4 more"
    assert wrong["wrong"].startswith("1 (wrote 'a', expected 'k')")
    assert wrong["wrong"].count("wrote") == view.WRONG_SHOWN
    assert wrong["accuracy"] == {"strings": 448, "max": att.MAX_CHARS, "chars": 0.99, "exact": 0.9}
    assert wrong["stopped_at_limit"]


def test_the_accuracy_caption_quotes_the_held_out_run_and_says_when_training_was_cut():
    assert view.accuracy_caption(view.output_summary(_read("olleh", "olleh"), {})) is None
    accuracy = {"strings": 448, "char_accuracy": 0.99, "exact_match": 0.9}
    cut = view.accuracy_caption(
        view.output_summary(_read("ab", "ab"), {"accuracy": accuracy, "training": {"stopped": "time_budget"}})
    )
    assert cut.startswith(f"This model, measured on 448 held-out random strings of 1-{att.MAX_CHARS} characters: 99.0%")
    assert cut.endswith(
        "90.0% of whole strings right (greedy decoding). It was trained on demand and stopped at the time limit."
    )
    done = view.accuracy_caption(
        view.output_summary(_read("ab", "ab"), {"accuracy": accuracy, "training": {"stopped": "steps"}})
    )
    assert done.endswith("(greedy decoding).")


@pytest.mark.parametrize("arch, role", [("encoder_decoder", "cross"), ("decoder", "decoder_self")])
def test_the_head_overview_shows_cross_attention_where_there_is_one(arch, role):
    assert view.overview_role(arch, {"roles": {"decoder_self": None}}) == role


def test_the_token_table_shows_a_space_and_one_column_per_position():
    table = view.token_table(tokenizer.encode("a b"))
    assert list(table.columns) == ["t=0", "t=1", "t=2"] and list(table.loc["character"]) == ["a", "␣", "b"]


def test_the_output_summary_and_the_token_table_speak_the_run_language():
    with i18n.using("zh"):
        wrong = view.output_summary(_read("abcdefghij", "klmnopqrst"), {})
        table = view.token_table(tokenizer.encode("a b"))
    assert wrong["verdict"] == "10 个中对了 0 个" and wrong["wrong"].startswith("第 1 位（写成 'a'，应为 'k'）")
    assert wrong["more"] == "，另有 4 处" and list(table.index) == ["字符", "token", "id"]
