"""The shipped data file: built by the CLI from the cited fact sheet, byte for byte, with its sources stated."""

import json
import re

import pytest

from explorer import cli, trend
from tests.conftest import ROOT


def test_build_data_reproduces_the_shipped_csv_byte_for_byte(tmp_path, capsys):
    out = tmp_path / "built.csv"
    assert cli.main(["trend", "build-data", "--out", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert out.read_bytes() == trend.DATA_CSV.read_bytes()
    assert result["rows"] == 234 and result["rows_per_series"] == trend.row_counts(trend.load())


def test_every_row_is_cited_and_usable():
    df = trend.load()
    assert (df["source"].str.len() > 40).all() and (df["citation"] != "").all()
    assert (df[trend.VALUE] > 0).all() and df["year"].between(1857, 2025.5).all()
    epoch = df[df["series"] == "epoch_ml_hardware"]
    assert epoch["source"].str.contains("CC BY 4.0").all()  # the attribution CC BY requires travels with each row
    assert set(df["in_main_fit"]) == {"yes", "no"}
    assert (df.loc[df["in_main_fit"] == "no", "fit_note"] != "").sum() == 234 - 157 - 1  # all but the manual row


def test_sources_md_states_counts_licences_and_the_build_command():
    text = (ROOT / "data" / "SOURCES.md").read_text()
    for key, count in trend.row_counts(trend.load()).items():
        assert re.search(rf"\| `{key}` \| {count} \|", text), key
    for phrase in (
        "python -m explorer trend build-data",
        "CC BY 4.0",
        "creativecommons.org/licenses/by/4.0",
        "CC BY-SA",
        "CPI-U",
        "Nordhaus",
        "Kurzweil",
        "Epoch AI",
        "Published rates shown beside the fits",
    ):
        assert phrase in text, phrase


def test_cli_fit_prints_the_documented_keys(capsys):
    """`python -m explorer trend fit --start 1950 --end 2025 --json` (explorer/__main__.py calls cli.main)."""
    assert cli.main(["trend", "fit", "--start", "1950", "--end", "2025", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"years_per_10x", "ci_low", "ci_high", "n_points", "slope_log10_per_year"} <= set(result)
    assert result["n_points"] == 129
    assert result["years_per_10x"] == pytest.approx(4.953, abs=1e-3)
    assert result["ci_low"] < result["years_per_10x"] < result["ci_high"]
    assert result["slope_log10_per_year"] == pytest.approx(1 / result["years_per_10x"])
    assert result["boot_low"] == pytest.approx(4.81, abs=0.005) and result["seed"] == 0


def test_cli_fit_options_and_readable_text(capsys):
    assert (
        cli.main(
            [
                "trend",
                "fit",
                "--start",
                "2006",
                "--end",
                "2025",
                "--series",
                "epoch_ml_hardware",
                "--precision",
                "best",
                "--boot",
                "0",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "years per 10x: 7.06" in text and "bootstrap" not in text


@pytest.mark.parametrize(
    "args, message",
    [
        (["--start", "2030", "--end", "2040"], "at least 3 points"),
        (["--start", "2000", "--end", "1990"], "is after"),
        (["--boot", "-1"], "--boot"),
    ],
)
def test_cli_fit_bad_settings_get_one_line(args, message, capsys):
    assert cli.main(["trend", "fit", *args, "--json"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
