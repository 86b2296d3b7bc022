"""Uploaded CSVs: good files parse, every kind of malformed file gets a message that names its problem."""

import numpy as np
import pytest

from explorer import trend
from explorer.trend import MAX_ROWS, UploadError, validate_upload
from tests.conftest import ROOT

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"


def _rows(n: int) -> bytes:
    return ("year,value\n" + "".join(f"{1960 + i % 60},{10 ** (i % 60 / 5):.6g}\n" for i in range(n))).encode()


BAD = {
    "empty file": (b"", "empty"),
    "blank lines only": (b"\n \n\n", "empty"),
    "wrong columns": (b"a,b\n1,2\n", "Missing columns `year` and `value`"),
    "value column missing": (b"year,flops\n2000,5\n", "Missing column `value`"),
    "semicolons": (b"year;value\n2000;5\n", "use commas"),
    "non-numeric": (b"year,value\n2000,5\n2001,abc\n", "not numbers on line 3 (first: `abc`)"),
    "non-numeric year": (b"year,value\nMMXX,5\n", "Column `year` has values that are not numbers"),
    "empty cell": (b"year,value\n2000,\n2001,7\n", "an empty cell"),
    "nan and inf": (b"year,value\n2000,nan\n2001,inf\n", "lines 2, 3"),
    "underscored number": (b"year,value\n2000,1_000\n", "not numbers"),
    "negative": (b"year,value\n2000,5\n2001,-3\n2002,0\n", "must be positive"),
    "zero rows": (b"year,value\n", "0 data rows"),
    "100,000 rows": (_rows(100_000), f"more than {MAX_ROWS:,} data rows; the limit is {MAX_ROWS:,} rows"),
    "png": (PNG, "not a CSV file: it contains binary data"),
    "xlsx": (b"PK\x03\x04\x14\x00\x06\x00" + b"\x00" * 40, "ZIP archive"),
    "latin-1 text": ("year,value\n2000,5\nCaf\xe9,1\n".encode("latin-1"), "not valid UTF-8"),
    "short line": (b"year,value\n2000,5\n2001\n", "Line 3 has fewer fields"),
    "year out of range": (b"year,value\n20000,5\n", "between 1800 and 2100"),
}


@pytest.mark.parametrize("raw, message", BAD.values(), ids=BAD.keys())
def test_malformed_files_get_a_message_naming_the_problem(raw, message):
    with pytest.raises(UploadError, match=None) as err:
        validate_upload(raw)
    assert message in str(err.value)
    assert isinstance(err.value, ValueError)  # pages and the CLI catch ValueError


def test_long_lists_of_bad_lines_are_cut():
    raw = b"year,value\n" + b"".join(b"2000,-1\n" for _ in range(40))
    with pytest.raises(UploadError, match=r"lines 2, 3, 4, 5, 6 and 35 more"):
        validate_upload(raw)


def test_year_and_value_with_bom_crlf_case_and_names():
    raw = "\ufeffYear,Value,Name\r\n1971,0.06,Intel 4004\r\n\r\n1985,1.5e3,\r\n".encode()
    df = validate_upload(raw)
    assert df["year"].tolist() == [1971, 1985]
    assert np.allclose(df["value"], [0.06, 1500])
    assert df["name"].tolist() == ["Intel 4004", ""]


def test_names_default_to_line_numbers():
    assert validate_upload(b"year,value\n2000,1\n2001,2\n")["name"].tolist() == ["line 2", "line 3"]


def test_the_row_limit_is_inclusive():
    assert len(validate_upload(_rows(MAX_ROWS))) == MAX_ROWS
    with pytest.raises(UploadError, match="limit"):
        validate_upload(_rows(MAX_ROWS + 1))


@pytest.mark.parametrize("path", ["data/compute_per_dollar.csv", "data/reference/compute_per_dollar_facts.csv"])
def test_the_full_schemas_are_accepted(path):
    """The shipped file and the fact sheet upload as they are: every row, its name, its 2024-dollar value."""
    df = validate_upload((ROOT / path).read_bytes())
    shipped = trend.load()
    assert len(df) == len(shipped) == 234
    assert np.allclose(df["value"], shipped[trend.VALUE])
    assert df["name"].iloc[0] == "Scheutz Difference Engine"


def test_an_upload_is_fitted_like_the_shipped_data():
    df = validate_upload(b"year,value\n1990,1\n1995,10\n2000,100\n2005,1000\n")
    assert trend.ols(df["year"], df["value"]).years_per_10x == pytest.approx(5.0)
