"""The real-text corpus: public-domain English and Chinese running text, shipped as a small excerpt.

Built once, offline, from two Debian packages (`python -m explorer real-text corpus --save`):

    English  the King James Bible (1611; public domain), from `bible-kjv` / `bible-kjv-text` (its `bible` program
             prints the text); a fixed selection of books, one chapter per line, verse numbers removed
    Chinese  the Three Hundred Tang Poems and a hundred Song ci (poets of the 7th-13th centuries; public domain),
             from `fortunes-zh` (/usr/share/games/fortunes/tang300, song100); titles, authors and poems kept, the
             terminal colour codes removed. The package's own compilation is GPL-3.0+; only the classical poems'
             text is shipped, which is in the public domain

The app reads only the shipped files (data/realtext/corpus_{en,zh}.txt); nothing is downloaded. Each language's
last `HELD_OUT` share is held out: training never sees it, and every loss the page quotes is measured on it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "data" / "realtext"
LANGS = ("en", "zh")
HELD_OUT = 0.05  # the last 5% of each language's text
EN_BOOKS = ("Genesis", "Exodus", "Ruth", "Psalms", "Proverbs", "Ecclesiastes", "Matthew", "John", "Acts")
ZH_FILES = (Path("/usr/share/games/fortunes/tang300"), Path("/usr/share/games/fortunes/song100"))
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_VERSE = re.compile(r"^\s*\d+\s+(.*)$")


@dataclass(frozen=True)
class Corpus:
    """One language's text, split into training and held-out parts."""

    lang: str
    train: str
    held_out: str


def corpus_path(lang: str, directory: Path = DATA_DIR) -> Path:
    if lang not in LANGS:
        raise ValueError(f"language must be one of {LANGS}, got {lang!r}")
    return Path(directory) / f"corpus_{lang}.txt"


def split(text: str, lang: str) -> Corpus:
    """The first 95% for training, the rest held out, cut at a line break so no line is in both."""
    cut = int(len(text) * (1 - HELD_OUT))
    cut = text.rfind("\n", 0, cut) + 1 or cut
    return Corpus(lang, text[:cut], text[cut:])


def load(lang: str, directory: Path = DATA_DIR) -> Corpus:
    """The shipped excerpt of one language; FileNotFoundError with the command that makes it."""
    path = corpus_path(lang, directory)
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `python -m explorer real-text corpus --save`")
    return split(path.read_text(encoding="utf-8"), lang)


def _english_from_package() -> str:
    """Whole chapters of EN_BOOKS from the `bible` program of bible-kjv, one chapter per line."""
    if shutil.which("bible") is None:
        raise FileNotFoundError("the `bible` program is missing: apt-get install bible-kjv bible-kjv-text")
    chapters: list[str] = []
    for book in EN_BOOKS:
        out = subprocess.run(
            ["bible", "-l100000", f"{book} 1:1-{book} 999:999"], capture_output=True, text=True, check=True
        ).stdout
        verses: list[str] = []
        for line in out.splitlines():
            if (m := _VERSE.match(line)) is not None:
                verses.append(m.group(1).strip())
            elif verses:  # a chapter heading ("Genesis 2") ends the chapter before it
                chapters.append(" ".join(verses))
                verses = []
        if verses:
            chapters.append(" ".join(verses))
    return "\n".join(chapters) + "\n"


def _chinese_from_package() -> str:
    """The Tang and Song poems of fortunes-zh, one poem per paragraph, colour codes and separators removed."""
    missing = [str(p) for p in ZH_FILES if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"{', '.join(missing)} missing: apt-get install fortunes-zh")
    poems = []
    for path in ZH_FILES:
        for poem in _ANSI.sub("", path.read_text(encoding="utf-8")).split("\n%\n"):
            lines = [ln.strip() for ln in poem.strip().splitlines() if ln.strip() and ln.strip() != "%"]
            if lines:
                poems.append("\n".join(lines))
    return "\n".join(poems) + "\n"


def build(directory: Path = DATA_DIR) -> dict:
    """Read both packages and write the excerpt files; return their sizes."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    sizes = {}
    for lang, text in (("en", _english_from_package()), ("zh", _chinese_from_package())):
        path = corpus_path(lang, directory)
        path.write_text(text, encoding="utf-8")
        sizes[lang] = {"path": str(path), "bytes": path.stat().st_size, "characters": len(text)}
    return sizes


def summary(directory: Path = DATA_DIR) -> dict:
    """Sizes of the shipped excerpt, per language and split (what the page and the CLI quote)."""
    out = {}
    for lang in LANGS:
        c = load(lang, directory)
        out[lang] = {
            "characters": len(c.train) + len(c.held_out),
            "train_characters": len(c.train),
            "held_out_characters": len(c.held_out),
            "bytes": corpus_path(lang, directory).stat().st_size,
        }
    return out
