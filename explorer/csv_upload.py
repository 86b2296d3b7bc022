"""Reading a student's CSV upload: the checks every upload needs, each failure named for the student.

A page adds its own column names and value rules on top; the common part is here, so every page says
the same thing about an empty file, a spreadsheet, binary data, bad text, a missing header, too many
rows or a short line.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from typing import Callable, Sequence

from explorer import content

MAX_LISTED = 5  # line numbers quoted in a message before "and N more"
MAX_BLANK_LINES = 1_000  # a file of blank lines is refused after this many, not after reading them all
MAX_COLUMNS = 64  # fields in one line
MAX_FIELD_CHARS = 1_000  # characters in one field (a year, a price, a name and its source fit easily)
MAX_LINE_CHARS = 10_000  # characters in one line, checked before the line is split into fields
UPLOAD_PEAK_MB = 30  # extra peak memory one upload within the limits may cost (tests/pages/test_upload_memory.py):
# measured 5-24 MB alone; a test worker that ran other pages first saw up to 7 MB more (collected garbage counts)
_VISIBLE = re.compile(rb"\S")
# Characters that could end a quoted code span (the backtick) or the `:color[...]` label around a message
# (square brackets), swapped for look-alikes so that quoted text never turns into markup or a link.
_INERT = str.maketrans({"`": "'", "[": "\uff3b", "]": "\uff3d"})


class UploadError(ValueError):
    """A file that cannot be used; the message names the problem for the student."""


def inline_code(text: str, limit: int = 40) -> str:
    """A student's text quoted in a message as a Markdown code span: cut to `limit` characters, invisible and
    control characters shown as '?', and nothing inside able to close the span or render as markup."""
    if not text:
        return "(empty)"
    shown = "".join(ch if ch.isprintable() else "?" for ch in text[:limit]).translate(_INERT)
    return f"`{shown}{'…' if len(text) > limit else ''}`"


def line_list(lines: list[int]) -> str:
    """'3, 5 and 7' style, cut after MAX_LISTED numbers."""
    shown = ", ".join(str(n) for n in lines[:MAX_LISTED])
    more = len(lines) - MAX_LISTED
    return shown + (" " + content.text("common", "and-more", n=more) if more > 0 else "")


def lines_phrase(lines: list[int], singular: str, plural: str) -> str:
    """'line 3 is' / 'lines 3, 4 are', with the verb or noun forms given."""
    many = len(lines) > 1
    return f"line{'s' if many else ''} {line_list(lines)} {plural if many else singular}"


def _check_bytes(raw: bytes, max_bytes: int | None) -> None:
    """What the raw bytes alone tell: too large, empty, a ZIP archive, binary data."""
    if max_bytes is not None and len(raw) > max_bytes:
        raise UploadError(content.text("common", "upload-too-big", size=len(raw), limit=max_bytes))
    if _VISIBLE.search(raw) is None:  # a search, not raw.strip(): no copy of a large file
        raise UploadError(content.text("common", "upload-empty"))
    if raw[:4] == b"PK\x03\x04":
        raise UploadError(content.text("common", "upload-zip"))
    if b"\x00" in raw[:4096]:
        raise UploadError(content.text("common", "upload-binary"))


def _check_row(line: int, row: list[str]) -> None:
    if len(row) > MAX_COLUMNS:
        raise UploadError(content.text("common", "upload-columns", line=line, fields=len(row), limit=MAX_COLUMNS))
    longest = max(map(len, row), default=0)
    if longest > MAX_FIELD_CHARS:
        raise UploadError(content.text("common", "upload-field", line=line, chars=longest, limit=MAX_FIELD_CHARS))


def _lines(raw: bytes):
    """The text's lines, decoded 8 KB at a time; a line longer than MAX_LINE_CHARS is refused unread."""
    # newline="": a lone \r (old Mac files) ends a line too, and the csv module sees the line ends as they are
    stream = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8-sig", newline="")
    for number in itertools.count(1):
        line = stream.readline(MAX_LINE_CHARS + 1)
        if not line:
            return
        if len(line) > MAX_LINE_CHARS:
            raise UploadError(content.text("common", "upload-line", line=number, limit=MAX_LINE_CHARS))
        yield line


Columns = Callable[[list[str]], Sequence[int | None]]


def read_rows(
    raw: bytes,
    max_rows: int,
    max_bytes: int | None = None,
    keep: Columns | None = None,
) -> tuple[list[str], list[tuple[int, Sequence[str | None]]]]:
    """(header, [(line number, cells), ...]) of a CSV upload, blank lines skipped.

    Read as a stream, line by line, and stopped at the first line past a limit (rows, blank lines, columns,
    field length), so a file of millions of short lines costs no more than the limit's worth of them.
    `keep`, given the header, names the columns the reader uses (their indices, None for one it lacks); each
    row then holds only those cells, in that order (None where the row is too short or the column absent), so a
    64-column file costs what its used columns cost, not every cell of it."""
    _check_bytes(raw, max_bytes)
    reader = csv.reader(_lines(raw))
    header: list[str] | None = None
    kept: Sequence[int | None] = ()
    body: list[tuple[int, Sequence[str | None]]] = []
    blank = 0
    try:
        for row in reader:
            if not any(c.strip() for c in row):
                blank += 1
                if blank > MAX_BLANK_LINES:
                    raise UploadError(content.text("common", "upload-blank", limit=MAX_BLANK_LINES))
                continue
            _check_row(reader.line_num, row)
            if header is None:
                header = row
                kept = tuple(keep(header)) if keep is not None else ()
                continue
            if keep is not None:
                row = tuple(row[i] if i is not None and i < len(row) else None for i in kept)
            body.append((reader.line_num, row))
            if len(body) > max_rows:
                raise UploadError(content.text("common", "upload-rows", limit=max_rows))
    except csv.Error as err:  # a field over the csv module's 131,072 characters, for one
        raise UploadError(content.text("common", "upload-unreadable", line=reader.line_num, error=err)) from None
    except UnicodeDecodeError:
        raise UploadError(content.text("common", "upload-not-utf8", line=reader.line_num + 1)) from None
    if header is None:
        raise UploadError(content.text("common", "upload-empty"))
    return header, body


def find_column(header: list[str], names: tuple[str, ...]) -> int | None:
    """Index of the first of `names` present in the header (case and spaces ignored)."""
    lowered = [h.strip().lower() for h in header]
    return next((lowered.index(n) for n in names if n in lowered), None)


def header_text(header: list[str], limit: int = 8) -> str:
    return ", ".join(inline_code(h.strip(), 30) for h in header[:limit]) or content.text("common", "none")


def require_rows(body: list[tuple[int, Sequence[str | None]]], columns: list[int]) -> None:
    """At least one data row, and every row long enough to hold `columns` (a row read with `keep` holds None
    where it was too short)."""
    if not body:
        raise UploadError(content.text("common", "upload-no-rows"))
    short = [n for n, row in body if len(row) <= max(columns) or any(row[c] is None for c in columns)]
    if short:
        phrase = lines_phrase(short, "has", "have")
        raise UploadError(
            content.text("common", "upload-short-rows", phrase=phrase[:1].upper() + phrase[1:], lines=line_list(short))
        )
