"""The character-level tokenizer: a lossless round trip inside its alphabet, visible fallbacks outside it."""

import pytest

from explorer import tokenizer as tk
from explorer.tasks import BOS, FIRST_SYMBOL, PAD


def test_every_alphabet_character_round_trips_to_its_own_id():
    assert len(set(tk.ALPHABET)) == len(tk.ALPHABET)
    enc = tk.encode(tk.ALPHABET)
    assert enc.ids == list(range(FIRST_SYMBOL, FIRST_SYMBOL + len(tk.ALPHABET)))
    assert tk.decode(enc.ids) == tk.ALPHABET
    assert enc.tokens == list(tk.ALPHABET) and not enc.replaced and not enc.notices()
    assert tk.VOCAB_SIZE == max(enc.ids) + 1


def test_a_sentence_round_trips_and_names_its_tokens():
    text = "hello, world! it's 2024 - ok?"
    enc = tk.encode(text)
    assert tk.decode(enc.ids) == text == enc.text
    assert len(enc.ids) == len(text)  # one token per character
    assert tk.label(enc.ids[6]) == "␣"  # the space is visible as a tick label


def test_capitals_and_accents_map_into_the_alphabet_with_a_notice():
    enc = tk.encode("Héllo Wörld")
    assert enc.text == "hello world"
    assert enc.replaced == {"H": "h", "é": "e", "W": "w", "ö": "o"}
    assert "lowercase, accents removed" in " ".join(enc.notices())


def test_decomposed_accents_are_dropped_and_counted():
    enc = tk.encode("cafe\u0301")  # e + combining acute accent
    assert enc.text == "cafe" and enc.dropped == 1
    assert "invisible" in " ".join(enc.notices())


@pytest.mark.parametrize(
    "text, expected, dropped",
    [
        ("hi 😀", "hi ?", 0),
        ("👍🏽", "?", 1),  # the skin-tone modifier belongs to the emoji before it
        ("👨\u200d👩\u200d👧", "???", 2),  # a family emoji: three people joined by two zero-width joiners
        ("ΣΩ€", "???", 0),
    ],
)
def test_characters_outside_the_alphabet_become_the_unknown_token(text, expected, dropped):
    enc = tk.encode(text)
    assert enc.text == expected and enc.dropped == dropped
    assert all(tok == tk.UNKNOWN for c, tok in enc.replaced.items())
    assert "Not in the alphabet" in " ".join(enc.notices())
    assert len(enc.characters) == len(enc.tokens) == len(enc.ids)


def test_long_text_is_cut_to_the_limit_and_says_so():
    enc = tk.encode("x" * 10_000, max_len=16)
    assert len(enc.ids) == 16 and enc.truncated_from == 10_000
    assert "10000 characters; only the first 16" in " ".join(enc.notices(16))


def test_empty_text_gives_no_tokens_and_no_notices():
    enc = tk.encode("")
    assert enc.ids == [] and enc.notices() == []


def test_special_ids_and_unknown_ids_decode_visibly():
    assert tk.decode([PAD, BOS]) == "<pad><bos>"
    assert tk.decode([tk.VOCAB_SIZE, -1]) == "??"


def test_non_text_is_refused_with_a_clear_message():
    with pytest.raises(ValueError, match="must be a string"):
        tk.encode(None)  # type: ignore[arg-type]


def test_the_name_and_the_notices_speak_the_language_of_the_page():
    from explorer import i18n

    enc = tk.encode("Héllo 😀 cafe\u0301" + "x" * 40, max_len=16)
    assert tk.display_name() == tk.NAME == "character-level, 43 symbols: a-z, 0-9, space and . , ! ? ' -"
    assert enc.notices(16) == [
        "Mapped to the alphabet (lowercase, accents removed): 'H' -> 'h', 'é' -> 'e'.",
        "Not in the alphabet, shown as '?': 😀",
        "Dropped 1 invisible mark(s): combining accents, joiners, emoji modifiers.",
        "The text has 52 characters; only the first 16 are used (the demo models were trained on at most that many).",
    ]
    with i18n.using("zh"):
        assert tk.display_name().startswith("字符级，43 个符号") and tk.NAME.startswith("character-level")
        mapped, unknown, dropped, cut = enc.notices(16)
    assert mapped == "已换成字母表中的字符（转为小写、去掉重音）：'H' -> 'h'、'é' -> 'e'。"
    assert unknown == "不在字母表中，显示为 '?'：😀"
    assert dropped.startswith("去掉了 1 个不可见的符号") and cut.startswith("这段文字有 52 个字符，只用前 16 个")
