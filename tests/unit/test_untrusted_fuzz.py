"""Property-based fuzz of every decoder of untrusted text (issue 36): whatever a link, an imported file, a stored
record or a URL parameter holds, each decoder either refuses it with its one error (ParseError, AuditError, a
miss, a notice) or returns a valid value. Never a RecursionError, a ValueError from Python's integer-string
limit, a TypeError, a NaN shown as a number.

Hypothesis draws both raw text and JSON-shaped documents that carry the known tricks (5000-digit integers,
NaN and Infinity, deep nesting, lone surrogates, wrong types in every place); the seeds are fixed so a run in
`make test` is repeatable, and nothing is written to a `.hypothesis` folder."""

from __future__ import annotations

import base64
import json
import math
import os
import tempfile
import zlib
from pathlib import Path

# Hypothesis keeps its own notes (constants it found in the code, Unicode tables) in a folder: not in the repository
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "explorer-hypothesis"))

import pytest  # noqa: E402 (after the storage folder is chosen)
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from explorer import results, shapes, shipped
from explorer.audit import AuditError, Row, export, view
from explorer.audit.importing import MAX_IMPORT_BYTES
from explorer.audit.url_state import decode_state
from explorer.audit.workbook import COLUMNS, FORMAT, TEMPLATE_BY_ID, VERSION, default_workbook
from explorer.store import db
from explorer.store.schema import RESULTS
from ui import params

FUZZ = settings(
    max_examples=150,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- the tricks, as JSON text fragments -------------------------------------------------------------------

TRICK_NUMBERS = [
    "9" * 5000,
    "-" + "1" * 101,
    "1" * 100,
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    "-1e999",
    "0." + "0" * 500 + "1",
    "1e-400",
    "0",
    "-0",
    "3.5",
    "1E5",
]
TRICK_STRINGS = [
    '"\\ud800"',
    '"\\udfff\\ud800"',
    '"\\ud83d\\ude00"',
    '"\\u0000"',
    '"' + "x" * 3000 + '"',
    '""',
    '"<script>"',
    '"\\n"',
]


def _value_text() -> st.SearchStrategy[str]:
    """JSON text (and nearly-JSON text) built from the tricks, nested up to 80 deep."""
    leaves = st.one_of(
        st.sampled_from(TRICK_NUMBERS),
        st.sampled_from(TRICK_STRINGS),
        st.sampled_from(["true", "false", "null"]),
        st.integers().map(str),
        st.floats(allow_nan=False, allow_infinity=False).map(repr),
        st.text(max_size=20).map(json.dumps),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=5).map(lambda xs: "[" + ",".join(xs) + "]"),
            st.dictionaries(st.text(max_size=8).map(json.dumps), inner, max_size=5).map(
                lambda d: "{" + ",".join(f"{k}:{v}" for k, v in d.items()) + "}"
            ),
            st.integers(1, 80).map(lambda n: "[" * n + "1" + "]" * n),
        ),
        max_leaves=30,
    )


def _json_value() -> st.SearchStrategy[object]:
    """Python values a JSON document may hold, tricks included (NaN, infinities, huge ints, lone surrogates)."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(-(10**150), 10**150),
        st.floats(),
        st.text(max_size=20),
        st.sampled_from(["\ud800", "x" * 3000]),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)),
        max_leaves=25,
    )


def _is_plain_json(value: object, depth: int = 0) -> bool:
    """What `loads` promises of a value it returns: finite numbers, bounded ints and depth, encodable text."""
    if depth > shapes.MAX_DEPTH:
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return len(str(abs(value))) <= shapes.MAX_INT_DIGITS
    if isinstance(value, str):
        value.encode("utf-8")  # raises on a lone surrogate
        return True
    if isinstance(value, list):
        return all(_is_plain_json(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_plain_json(k) and _is_plain_json(v, depth + 1) for k, v in value.items())
    return False


# --- shapes.loads ------------------------------------------------------------------------------------------


@FUZZ
@given(st.one_of(st.text(max_size=300), st.binary(max_size=300), _value_text()))
def test_loads_raises_only_parse_error_or_returns_plain_json(text):
    try:
        value = shapes.loads(text, limit=100_000)
    except shapes.ParseError as err:
        assert err.kind in ("length", "encoding", "syntax", "depth", "number", "text") and str(err)
        return
    assert _is_plain_json(value)
    assert shapes.loads(json.dumps(value, allow_nan=False), limit=10**7) == value  # what it returns, it takes back


@FUZZ
@given(_json_value())
def test_what_dumps_checked_stores_loads_reads_back_exactly(value):
    try:
        text = shapes.dumps_checked(value, limit=1_000_000)
    except shapes.ParseError:
        assert not _is_storable(value)
        return
    try:
        back = shapes.loads(text, limit=1_000_000)
    except shapes.ParseError as err:  # a big int or a lone surrogate: stored, but refused on reading
        assert err.kind in ("number", "text")
        return
    assert back == value


def _is_storable(value: object) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (ValueError, TypeError):
        return False
    return True


def test_the_reported_attacks_each_raise_parse_error_quickly():
    for text, kind in (
        ("[" * 100_000, "depth"),
        ('{"v":' + "9" * 5000 + "}", "number"),
        ("[NaN]", "number"),
        ('"' + "x" * 4_000_001 + '"', "length"),
        ("[1e999]", "number"),
        ('["\\ud800"]', "text"),
    ):
        with pytest.raises(shapes.ParseError) as refused:
            shapes.loads(text, limit=4_000_000)
        assert refused.value.kind == kind, text[:20]


# --- the audit's share link and its imported files ---------------------------------------------------------


def _packed(doc_text: str) -> str:
    return base64.urlsafe_b64encode(zlib.compress(doc_text.encode("utf-8", "surrogatepass"), 9)).decode().rstrip("=")


def _state_docs() -> st.SearchStrategy[str]:
    """Workbook states: the right frame around hostile rows, and hostile text in place of the whole."""
    row = st.one_of(
        st.sampled_from(sorted(TEMPLATE_BY_ID)),
        _value_text(),
        st.builds(
            lambda i, c, t: json.dumps({"i": i, "c": {c: t}}),
            st.sampled_from(sorted(TEMPLATE_BY_ID)),
            st.sampled_from([*COLUMNS, "zz"]),
            st.one_of(st.text(max_size=40), st.integers()),
        ),
    )
    framed = st.lists(row, max_size=6).map(lambda rows: '{"v":%d,"r":[%s]}' % (VERSION, ",".join(rows)))
    return st.one_of(framed, _value_text())


@FUZZ
@given(st.one_of(_state_docs().map(_packed), st.text(max_size=200)))
def test_a_share_link_decodes_to_rows_or_audit_error(state):
    try:
        rows = decode_state(state)
    except AuditError as err:
        assert str(err)
        return
    assert all(isinstance(r, Row) and all(isinstance(v, str) for v in r.typed.values()) for r in rows)
    assert view.restore_workbook(state) == (rows, None) or not state  # "" is the pre-filled workbook, no link


def _import_docs() -> st.SearchStrategy[str]:
    cell = st.builds(
        lambda t, s: json.dumps({"text": t, "source": s}),
        st.text(max_size=30),
        st.sampled_from(["typed", "claim", "measured", "pending", "nope"]),
    )
    cell_text = st.one_of(cell, _value_text())
    row = st.builds(
        lambda i, cells: '{"id":%s,"cells":{%s}}' % (i, ",".join(f'"{c}":{v}' for c, v in cells)),
        st.one_of(st.sampled_from(sorted(TEMPLATE_BY_ID)).map(json.dumps), _value_text()),
        st.lists(st.tuples(st.sampled_from(sorted(COLUMNS)), cell_text), max_size=4),
    )
    controls = st.dictionaries(st.sampled_from(["n", "m", "budget", "pair", "x"]), _value_text(), max_size=4).map(
        lambda d: "{" + ",".join(f'"{k}":{v}' for k, v in d.items()) + "}"
    )
    return st.builds(
        lambda rows, ctl, fmt: (
            '{"format":%s,"version":%d,"rows":[%s],"controls":%s}' % (fmt, VERSION, ",".join(rows), ctl)
        ),
        st.lists(st.one_of(row, _value_text()), max_size=5),
        controls,
        st.one_of(st.just(json.dumps(FORMAT)), _value_text()),
    )


@FUZZ
@given(st.one_of(_import_docs().map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=300)))
def test_an_imported_file_gives_a_workbook_or_audit_error(raw):
    try:
        workbook, values, notes, refused = view.import_file(raw, {}, {"n": [48, 96], "m": [8]}, (0.0, 6.0))
    except AuditError as err:
        assert str(err)
        return
    assert all(isinstance(r, Row) for r in workbook) and all(isinstance(n, str) for n in notes)
    assert all(isinstance(v, str) and len(v) <= 40 for _, v in refused)
    assert all(math.isfinite(v) for v in values.values() if isinstance(v, float))


def test_a_real_export_still_imports():
    raw = export.to_json(default_workbook(), {}, {"n": 48}).encode()
    assert len(raw) < MAX_IMPORT_BYTES and view.import_file(raw, {}, {"n": [48]}, (0.0, 6.0))[1] == {"n": 48}


# --- stored result rows --------------------------------------------------------------------------------------

SHAPE = {"gain": float, "runs": [{"seed": int, "loss": float}]}


@FUZZ
@given(
    st.one_of(
        _value_text().map(lambda r: '{"config":{"fuzz":1},"result":%s}' % r), _value_text(), st.text(max_size=200)
    )
)
def test_a_stored_record_is_a_valid_result_or_a_miss_that_is_deleted(record):
    config = {"fuzz": 1}
    key = results.save("fuzz", config, {"gain": 1.0, "runs": []})
    with db.engine().begin() as conn:
        conn.execute(RESULTS.update().where(RESULTS.c.key == key).values(record=record))
    result, problem = results.inspect("fuzz", config, SHAPE)
    if result is not None:
        assert problem is None and shapes.conforms(result, SHAPE) and math.isfinite(result["gain"])
        return
    with db.reads() as conn:
        left = conn.execute(RESULTS.select().where(RESULTS.c.key == key)).first()
    assert (left is None) == (problem is not None)  # a refused record is gone; a foreign one stays, a plain miss


# --- URL parameters --------------------------------------------------------------------------------------


@FUZZ
@given(
    st.one_of(
        st.text(max_size=60),
        st.sampled_from(["inf", "-inf", "nan", "1e999", "9" * 5000, "1e300", "-0", "0x10", "1_000"]),
    )
)
def test_a_url_number_is_a_finite_value_in_range_or_the_default_with_a_notice(raw):
    for kind, lo, hi in ((int, 1, 12), (float, 0.0, 6.0)):
        value, note = params._number_coercer(lo, hi, kind)([raw])
        if value is None:
            assert note  # the page falls back to its default and says why
            continue
        assert isinstance(value, kind) and lo <= value <= hi and math.isfinite(value)
        assert note or float(raw) == value


# --- shipped result files (tracked, so trusted to hold NaN, but a damaged one reads as "not shipped") ---------


@FUZZ
@given(st.one_of(_value_text(), st.text(max_size=200), st.just("[" * 100_000)))
def test_a_damaged_shipped_file_reads_as_not_shipped(text):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "shipped.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        record = shipped.load(path)
    assert record is None or isinstance(record, dict)
