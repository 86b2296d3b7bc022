"""A character-level tokenizer over a fixed, shipped alphabet (slides 18, 21: text -> tokens -> ids).

One token per character. The alphabet is part of the code, so nothing is downloaded or trained:
lowercase letters, digits, the space and a little punctuation. Ids 0 and 1 are the `<pad>` and `<bos>`
tokens of `explorer.tasks` (`<bos>` separates input from target in a decoder-only layout, `<pad>` fills an
encoder-only model's fixed window); the alphabet's symbols follow from `FIRST_SYMBOL`.

Text outside the alphabet gets a visible fallback instead of an error: accents are stripped
(`é` -> `e`), capitals are lowercased, invisible joiners and variation selectors are dropped, and any
other character (an emoji, a Greek letter) becomes `?`. `encode` reports each change, so a page can say
what it did.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from explorer import content, i18n
from explorer.tasks import BOS, FIRST_SYMBOL, PAD

ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789 .,!?'-"
NAME = f"character-level, {len(ALPHABET)} symbols: a-z, 0-9, space and . , ! ? ' -"  # stamped on saved models
BOOK = "messages"  # what a page shows of the tokenizer: content/<lang>/messages.md
UNKNOWN = "?"  # what a character outside the alphabet becomes; itself a symbol of the alphabet
SPECIAL = {PAD: "<pad>", BOS: "<bos>"}
VOCAB_SIZE = FIRST_SYMBOL + len(ALPHABET)

_ID = {ch: FIRST_SYMBOL + i for i, ch in enumerate(ALPHABET)}
_DROPPED_CATEGORIES = ("Mn", "Me", "Cf")  # combining marks, enclosing marks, format chars (ZWJ, VS16)
_SKIN_TONES = {chr(c) for c in range(0x1F3FB, 0x1F400)}  # emoji modifiers: part of the emoji before them


@dataclass
class Encoding:
    """The pipeline of one text: its characters, the tokens they became, and the tokens' ids."""

    characters: list[str]  # the text as typed, one entry per Unicode code point kept
    tokens: list[str]  # one per character: itself, or its fallback
    ids: list[int]
    replaced: dict[str, str] = field(default_factory=dict)  # character -> fallback token, in order seen
    dropped: int = 0  # invisible code points removed (accents, joiners, variation selectors)
    truncated_from: int | None = None  # length before cutting to `max_len`, when it was cut

    @property
    def text(self) -> str:
        return "".join(self.tokens)

    def notices(self, max_len: int | None = None) -> list[str]:
        """Plain-language notes about every fallback applied, for the page to show, in the run's language."""
        out = []
        changed = {c: t for c, t in self.replaced.items() if t != UNKNOWN}
        unknown = [c for c, t in self.replaced.items() if t == UNKNOWN]
        if changed:
            sep = ", " if i18n.current() == "en" else "、"
            pairs = sep.join(f"{c!r} -> {t!r}" for c, t in list(changed.items())[:8])
            out.append(content.text(BOOK, "tokenizer-mapped", pairs=pairs))
        if unknown:
            # each shown once, spaced: no two make markup; a control character (a line break) is named instead
            shown = " ".join(c if c.isprintable() else f"U+{ord(c):04X}" for c in unknown[:8]) + (
                " ..." if len(unknown) > 8 else ""
            )
            out.append(content.text(BOOK, "tokenizer-unknown", unknown=UNKNOWN, shown=shown))
        if self.dropped:
            out.append(content.text(BOOK, "tokenizer-dropped", n=self.dropped))
        if self.truncated_from is not None:
            out.append(content.text(BOOK, "tokenizer-cut", total=self.truncated_from, kept=max_len or len(self.ids)))
        return out


def display_name() -> str:
    """`NAME` in the run's language, for a page ("character-level, 43 symbols: ..."); `NAME` itself stays English
    (it is stamped on the saved demo models)."""
    return content.text(BOOK, "tokenizer-name", n=len(ALPHABET))


def _fallback(ch: str) -> str | None:
    """The alphabet token for one code point, or None to drop it."""
    low = ch.lower()
    if low in _ID:
        return low
    if unicodedata.category(ch) in _DROPPED_CATEGORIES or ch in _SKIN_TONES:
        return None
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)).lower()
    return base if len(base) == 1 and base in _ID else UNKNOWN


def encode(text: str, max_len: int | None = None) -> Encoding:
    """Characters -> tokens -> ids, with fallbacks for characters outside the alphabet."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    enc = Encoding(characters=[], tokens=[], ids=[])
    for ch in text:
        tok = _fallback(ch)
        if tok is None:
            enc.dropped += 1
            continue
        if tok != ch:
            enc.replaced.setdefault(ch, tok)
        enc.characters.append(ch)
        enc.tokens.append(tok)
        enc.ids.append(_ID[tok])
    if max_len is not None and len(enc.ids) > max_len:
        enc.truncated_from = len(enc.ids)
        enc.characters, enc.tokens, enc.ids = enc.characters[:max_len], enc.tokens[:max_len], enc.ids[:max_len]
    return enc


def decode(ids) -> str:
    """Ids -> text; special ids are written as <pad> / <bos>, anything else unknown as '?'."""
    out = []
    for i in ids:
        i = int(i)
        if i in SPECIAL:
            out.append(SPECIAL[i])
        elif FIRST_SYMBOL <= i < VOCAB_SIZE:
            out.append(ALPHABET[i - FIRST_SYMBOL])
        else:
            out.append(UNKNOWN)
    return "".join(out)


def label(token_id: int) -> str:
    """A readable tick label for one id: the space shows as '␣', specials by name."""
    text = decode([token_id])
    return "␣" if text == " " else text
