"""A character tokenizer trained by the project on the real-text corpus (slides 18, 21: text -> tokens -> ids).

One token per character: every character seen at least `MIN_COUNT` times in the training part of the corpus,
most frequent first, after four special tokens. English needs ~60 characters; Chinese poems ~2,000 (a Chinese
character is already a word or a morpheme, so characters are a fair unit for both). A character the corpus never
showed (a digit, an emoji, a rare character) becomes `<unk>`, and `encode` says which ones did. The vocabulary is
saved as JSON beside the weights, so a model and its tokenizer always travel together.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

PAD, BOS, MASK, UNK = "<pad>", "<bos>", "<mask>", "<unk>"
SPECIALS = (PAD, BOS, MASK, UNK)
MIN_COUNT = 2  # a character seen once cannot be learned from and could not be held out
FORMAT = "explorer-realtext-tokenizer/1"


@dataclass
class Encoded:
    """The pipeline of one text: its tokens, their ids, and the characters that fell back to <unk>."""

    tokens: list[str]
    ids: list[int]
    unknown: list[str] = field(default_factory=list)  # distinct characters outside the vocabulary, in order seen
    truncated_from: int | None = None


class CharTokenizer:
    """Characters <-> ids over a vocabulary learned from text."""

    def __init__(self, symbols: list[str]) -> None:
        if list(symbols[: len(SPECIALS)]) != list(SPECIALS) or len(set(symbols)) != len(symbols):
            raise ValueError("a vocabulary starts with the special tokens and lists each symbol once")
        self.symbols = list(symbols)
        self._id = {s: i for i, s in enumerate(self.symbols)}

    @classmethod
    def train(cls, texts: list[str], min_count: int = MIN_COUNT) -> "CharTokenizer":
        """Every character seen `min_count` times or more, most frequent first (ties by code point)."""
        counts = Counter(ch for text in texts for ch in text)
        kept = sorted((c for c, n in counts.items() if n >= min_count), key=lambda c: (-counts[c], c))
        return cls([*SPECIALS, *kept])

    @property
    def vocab_size(self) -> int:
        return len(self.symbols)

    def id(self, token: str) -> int:
        return self._id[token]

    def encode(self, text: str, max_len: int | None = None) -> Encoded:
        if not isinstance(text, str):
            raise ValueError(f"text must be a string, got {type(text).__name__}")
        unk = self._id[UNK]
        ids = [self._id.get(ch, unk) for ch in text]
        tokens = [ch if i != unk else UNK for ch, i in zip(text, ids)]
        unknown = list(dict.fromkeys(ch for ch, i in zip(text, ids) if i == unk))
        enc = Encoded(tokens, ids, unknown)
        if max_len is not None and len(ids) > max_len:
            enc.truncated_from = len(ids)
            enc.tokens, enc.ids = tokens[:max_len], ids[:max_len]
        return enc

    def decode(self, ids) -> str:
        return "".join(self.symbols[int(i)] if 0 <= int(i) < len(self.symbols) else UNK for i in ids)

    def label(self, token_id: int) -> str:
        """A readable tick label: the space as '␣', a line break as '⏎'."""
        s = self.symbols[int(token_id)]
        return {" ": "␣", "\n": "⏎"}.get(s, s)

    def digest(self) -> str:
        """A short fingerprint of the vocabulary, stamped on every model trained with it."""
        return hashlib.sha256("\x00".join(self.symbols).encode()).hexdigest()[:16]

    def save(self, path: Path) -> None:
        Path(path).write_text(
            json.dumps({"format": FORMAT, "symbols": self.symbols, "digest": self.digest()}, ensure_ascii=False),
            encoding="utf-8",
        )

    @classmethod
    def load(cls, path: Path) -> "CharTokenizer":
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{Path(path).name} is not a {FORMAT} file")
        return cls(data["symbols"])
