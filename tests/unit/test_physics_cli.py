"""`python -m explorer method`: the page's numbers from the command line, as one JSON object or a table."""

import argparse
import json

import pytest

from explorer import physics
from explorer.commands import method


def _run(*argv: str) -> dict:
    """Parse and run the subcommand as explorer.cli does (without importing every other command)."""
    parser = argparse.ArgumentParser()
    for command in method.register(parser.add_subparsers(dest="command")):
        command.add_argument("--json", action="store_true")
    args = parser.parse_args(["method", *argv])
    return args.handler(args)


def test_method_reports_tolerance_heights_and_horizons_per_object():
    result = _run("--objects", "pen", "feather", "--json")
    text = result.pop("_text")(result)
    assert json.loads(json.dumps(result)) == result  # plain JSON
    pen, feather = result["objects"]["pen"], result["objects"]["feather"]
    assert pen["absolute"]["height_m"] == pytest.approx(physics.tolerance_height(physics.OBJECTS["pen"], 0.01).height)
    assert feather["relative"]["height_m"] < 0.001 < pen["relative"]["height_m"]
    horizons = [h["horizon_s"] for h in pen["horizons"]]
    assert [len(h["forces"]) for h in pen["horizons"]] == [1, 2, 3, 4]
    assert pen["horizons"][0]["censored"] and horizons == sorted(horizons, reverse=True)
    assert "pen" in text and "feather" in text and "≥4.500" in text


def test_without_air_no_height_is_ever_reached():
    result = _run("--objects", "ball", "--rho", "0")
    assert result["objects"]["ball"]["absolute"] is None
    assert "never" in result["_text"](result)


@pytest.mark.parametrize(
    "argv, message",
    [(("--tol-pct", "150"), "tol-pct"), (("--rho", "-1"), "density"), (("--fit-window", "9"), "fit window")],
)
def test_bad_settings_raise_a_value_error_for_one_clear_line(argv, message):
    with pytest.raises(ValueError, match=message):
        _run("--objects", "pen", *argv)
