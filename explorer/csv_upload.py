"""Reading a student's CSV upload: the checks every upload needs, each failure named for the student.

A page adds its own column names and value rules on top; the common part is here, so every page says
the same thing about an empty file, a spreadsheet, binary data, bad text, a missing header, too many
rows or a short line.
"""

from __future__ import annotations

import csv
import io

MAX_LISTED = 5  # line numbers quoted in a message before "and N more"
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
    return shown + (f" and {len(lines) - MAX_LISTED} more" if len(lines) > MAX_LISTED else "")


def lines_phrase(lines: list[int], singular: str, plural: str) -> str:
    """'line 3 is' / 'lines 3, 4 are', with the verb or noun forms given."""
    many = len(lines) > 1
    return f"line{'s' if many else ''} {line_list(lines)} {plural if many else singular}"


def _decode(raw: bytes, max_bytes: int | None) -> str:
    if max_bytes is not None and len(raw) > max_bytes:
        raise UploadError(f"The file has {len(raw):,} bytes; the limit is {max_bytes:,} bytes.")
    if not raw or not raw.strip():
        raise UploadError("The file is empty: it has no header and no rows.")
    if raw[:4] == b"PK\x03\x04":
        raise UploadError("This is not a CSV file: it is a ZIP archive (an .xlsx workbook is one). "
                          "Save it as CSV (comma-separated text) and upload that.")
    if b"\x00" in raw[:4096]:
        raise UploadError("This is not a CSV file: it contains binary data (zero bytes). "
                          "Upload comma-separated text with a header row.")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise UploadError(f"This is not a CSV text file: byte {err.start} is not valid UTF-8 text. "
                          "Upload comma-separated text (UTF-8) with a header row.") from None


def read_rows(raw: bytes, max_rows: int, max_bytes: int | None = None,
              ) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """(header, [(line number, cells), ...]) of a CSV upload, blank lines skipped."""
    text = _decode(raw, max_bytes)
    reader = csv.reader(io.StringIO(text, newline=""))  # newline="": a lone \r (old Mac files) ends a line too
    try:
        lines = [(n, row) for n, row in enumerate(reader, start=1) if any(c.strip() for c in row)]
    except csv.Error as err:  # a field over the csv module's 131,072 characters, for one
        raise UploadError(f"This file cannot be read as CSV: line {reader.line_num}: {err}.") from None
    if not lines:
        raise UploadError("The file is empty: it has no header and no rows.")
    (_, header), body = lines[0], lines[1:]
    if len(body) > max_rows:
        raise UploadError(f"The file has {len(body):,} data rows; the limit is {max_rows:,} rows.")
    return header, body


def find_column(header: list[str], names: tuple[str, ...]) -> int | None:
    """Index of the first of `names` present in the header (case and spaces ignored)."""
    lowered = [h.strip().lower() for h in header]
    return next((lowered.index(n) for n in names if n in lowered), None)


def header_text(header: list[str], limit: int = 8) -> str:
    return ", ".join(inline_code(h.strip(), 30) for h in header[:limit]) or "none"


def require_rows(body: list[tuple[int, list[str]]], columns: list[int]) -> None:
    """At least one data row, and every row long enough to hold `columns`."""
    if not body:
        raise UploadError("The file has a header but 0 data rows.")
    short = [n for n, row in body if len(row) <= max(columns)]
    if short:
        raise UploadError(f"{lines_phrase(short, 'has', 'have').capitalize()} fewer fields than the header.")
