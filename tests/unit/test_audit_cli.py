"""`python -m explorer audit`: the default workbook with its measured cells, as Markdown, CSV or an importable JSON."""

import csv
import io
import json

from explorer import audit
from explorer.cli import main


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["audit", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_export_is_a_file_the_page_imports(capsys):
    code, out, _ = _run(capsys, "--format", "json", "--n", "1024", "--m", "8", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["rows"] == 5 and {"cache.turn", "crossover.pair", "four_steps.verdict"} <= set(result["measured"])
    exported = result["text"].encode()
    workbook, controls, notes = audit.import_json(exported, {})
    assert workbook == audit.default_workbook() and notes == []
    assert controls == {"n": 1024, "m": 8, "budget": audit.DEFAULT_BUDGET_LOG, "pair": "2-48"}
    assert result["workbook"]["decision"]["case"] == "below"
    cost = result["workbook"]["rows"][2]["cells"]["cost"]
    assert cost["source"] == "measured" and cost["values"]["flop_ratio"] == (1024 + 8) / 8


def test_readable_output_is_markdown_and_csv_has_every_row(capsys):
    code, out, _ = _run(capsys)
    assert code == 0 and out.startswith("# Bias audit (slide 67)") and "## Decision rule" in out
    code, out, _ = _run(capsys, "--format", "csv", "--budget", "12")
    assert code == 0 and len(list(csv.reader(io.StringIO(out)))) == 6


def test_bad_arguments_get_one_clear_line(capsys):
    code, _, err = _run(capsys, "--pair", "3-5")
    assert code == 2 and err.startswith("error: --pair must be one of 2-4, 2-8")
    code, _, err = _run(capsys, "--n", "0")
    assert code == 2 and "--n and --m must be at least 1" in err
