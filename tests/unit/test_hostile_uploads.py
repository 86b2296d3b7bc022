"""Every class of hostile upload against every upload validator (the compute page's CSV, the length-asymmetry
page's CSV, the bias audit's JSON import and its link state): each is refused with the validator's own error
(a ValueError the page shows), never another exception, and what a message quotes from the file cannot render
as markup."""

import base64
import re
import zlib

import pytest

from explorer import audit, trend
from explorer.csv_upload import inline_code
from explorer.experiments import lengths as ln

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"
MARKUP = "<script>x</script> **bold** [x](javascript:alert(1)) `tick` ]{x} \x1b[31m \u202e"


def _import(raw: bytes):
    return audit.import_json(raw, {})


VALIDATORS = {  # name: (function, its error, a file over its stated limit, a header the file should have)
    "compute": (
        trend.validate_upload,
        trend.UploadError,
        b"year,value\n" + b"2000,5\n" * (trend.MAX_ROWS + 1),
        "year,value",
    ),
    "lengths": (
        ln.read_pairs,
        ln.LengthsError,
        b"input_len,target_len\n" + b" " * ln.MAX_BYTES,
        "input_len,target_len",
    ),
    "audit": (_import, audit.AuditError, b" " * (audit.MAX_IMPORT_BYTES + 1), None),
}
CLASSES = {  # name: (bytes, or a function of the validator's header; what the message says, CSV / JSON)
    "empty": (b"", ("empty", "empty")),
    "blank lines": (b" \n\t\n\n", ("empty", "empty")),
    "binary (PNG)": (PNG, ("binary data", "binary file")),
    "ZIP (an .xlsx)": (b"PK\x03\x04\x14\x00\x06\x00" + b"\x00" * 40, ("ZIP archive", "binary file")),
    "not UTF-8": ("year;café\n".encode("latin-1"), ("UTF-8", "UTF-8")),
    "JSON given to a CSV, CSV to the JSON": (None, ("must name", "Not JSON")),
    "a 1,100,000-character field": (
        lambda header: f"{header}\n1,{'9' * 1_100_000}\n".encode(),
        ("cannot be read as CSV", "at most"),
    ),
    "nested 100,000 deep": (b"[" * 100_000, ("cannot be read as CSV", "more than 20,000 objects")),  # unparsed
    "nested 10,000 deep": (b"[" * 10_000, ("cannot be read as CSV", "nested too deeply")),
    "header only": (lambda header: f"{header}\n".encode(), ("0 data rows", "Not JSON")),
    "markup and control characters": (lambda header: f"{MARKUP},{MARKUP}\n1,2\n".encode(), ("must name", "Not JSON")),
}


@pytest.mark.parametrize("page", VALIDATORS)
@pytest.mark.parametrize("name", [*CLASSES, "over the stated limit"])
def test_every_hostile_upload_is_refused_with_a_message(page, name):
    validate, error, over_limit, header = VALIDATORS[page]
    raw, (csv_says, json_says) = CLASSES.get(name, (over_limit, ("limit is", "at most")))
    if raw is None:
        raw = b'{"year": [2000], "value": [5]}' if header else b"year,value\n2000,5\n"
    elif callable(raw):
        raw = raw(header or "structure,problem")
    with pytest.raises(error) as err:
        validate(raw)
    message = str(err.value)
    assert isinstance(err.value, ValueError) and (csv_says if header else json_says) in message, message
    live = re.sub(r"`[^`\n]*`", "", message)  # what is left outside the code spans could render as markup
    assert not [m for m in ("<script", "**bold**", "javascript:", "\x1b", "\u202e") if m in live], message


def test_csv_line_ends_of_every_kind_are_read():
    for end in (b"\r", b"\r\n", b"\n"):  # old Mac, Windows, Unix
        raw = end.join([b"year,value", b"1990,1", b"2000,10", b""])
        assert trend.validate_upload(raw)["value"].tolist() == [1, 10]


def _state(data: bytes) -> str:
    return base64.urlsafe_b64encode(zlib.compress(data)).decode().rstrip("=")


@pytest.mark.parametrize("data", [b"[" * 3000, b'{"v": 1, "r": ' + b"[" * 3000, b"{" * 3000])
def test_a_crafted_workbook_link_nested_too_deep_is_refused(data):
    state = _state(data)
    assert len(state) < 100  # a short link: anyone can send one
    with pytest.raises(audit.AuditError, match="does not hold JSON"):
        audit.decode_state(state)


@pytest.mark.parametrize(
    "text, shown",
    [
        ("abc", "`abc`"),
        ("", "(empty)"),
        ("a`b", "`a'b`"),
        ("]{x} [y](z)", "`\uff3d{x} \uff3by\uff3d(z)`"),
        ("a\x00\x1b\u202e\u200bz", "`a????z`"),
        ("x" * 50, "`" + "x" * 40 + "…`"),
        ("🧪", "`🧪`"),
    ],
)
def test_inline_code_quotes_any_text_as_one_inert_code_span(text, shown):
    assert inline_code(text) == shown and shown.count("`") in (0, 2)  # one span, nothing inside can close it


MILLIONS = {  # a 4.9 MB upload of tiny lines, within Streamlit's 5 MB: what stops each before it is all read
    "rows": (b"year,value\n" + b"1\n" * 2_450_000, "more than 10,000 data rows"),
    "blank rows": (b"year,value\n" + b" , \n" * 1_225_000, "more than 1,000 blank lines"),
    "one endless line": (b"year,value," + b"x," * 2_450_000 + b"\n", "more than 10,000 characters"),
    "columns": (b"year,value," + b"x," * 4_000 + b"\n" + b"1\n" * 2_440_000, "the limit is 64 columns"),
    "a long field": (b"year,value\n2000," + b"9" * 5_000 + b"\n" + b"1\n" * 2_440_000, "field of 5,000"),
}


@pytest.mark.parametrize("name", MILLIONS)
def test_a_file_of_millions_of_lines_is_stopped_at_its_first_line_past_a_limit(name):
    """Parsed as a stream: the peak of what Python allocates stays far below the file's own size."""
    import tracemalloc

    raw, says = MILLIONS[name]
    tracemalloc.start()
    try:
        with pytest.raises(trend.UploadError, match=says):
            trend.validate_upload(raw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(raw) > 4_000_000 and peak < 5_000_000, f"{peak:,} bytes at the peak"
