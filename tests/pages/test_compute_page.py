"""AppTest of the compute-per-dollar page: default view, window extremes, every control, uploads, URL state."""

import base64

import numpy as np
import pytest

from tests.pages.conftest import assert_clean, evidence_kinds, figure_heads, figures, run_page, untranslated
from tests.unit.test_trend_upload import BAD

PAGE = "compute_per_dollar.py"


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _infos(at) -> str:
    return " ".join(i.value for i in at.info)


def _array(value) -> np.ndarray:
    """A figure array from the browser JSON: a plain list, or Plotly's typed array (base64 `bdata`)."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value, float)


def _badge(at, index: int = 0) -> str:
    """The text above the figure: its title and evidence badge."""
    return figure_heads(at)[index]


def _trace_names(at, index: int = 0) -> list[str]:
    """Legend entries as one line each (the figure breaks them into short lines beside the plot)."""
    return [t.get("name", "").replace("<br>", " ") for t in figures(at)[index]["data"]]


def test_default_view_opens_on_the_slide_with_the_fit_in_numbers_below():
    at = run_page(PAGE)
    assert_clean(at)
    assert {k: v for k, v in _metrics(at).items() if "10×" in k or "interval" in k or "Points" in k} == {
        "Years per 10×": "4.95",
        "95% interval (analytic)": "4.83–5.09",
        "95% interval (bootstrap)": "4.81–5.09",
        "95% interval (robust)": "4.78–5.14",
        "Points fitted": "129",
    }
    assert "slide's window" in _infos(at) and "5.67 years (5.40–5.97)" in _infos(at)
    takeaway = " ".join(m.value for m in at.markdown)  # under the figure: the pooled rate, then the rate within
    assert "10× every 4.95 years" in takeaway and "10× every 5.67 years" in takeaway  # series (fixed effects)
    one_series = " ".join(m.value for m in run_page(PAGE, series=["Nordhaus 2001"]).markdown)
    assert "10× every 5.57 years" in one_series and "level difference" not in one_series  # no jump to count
    assert evidence_kinds(at) == ["historical data"]  # the open section is words and tiles; closed ones draw nothing
    assert [f["layout"]["meta"]["evidence_kinds"] for f in figures(at)] == [["historical data", "fit", "extrapolation"]]
    rates = figures(run_page(PAGE, section="One rate, several models"))
    assert [f["layout"]["meta"]["evidence_kinds"] for f in rates] == [
        ["historical data", "fit", "extrapolation"],
        ["fit", "historical data"],
    ]
    names = _trace_names(at)
    assert "extrapolation beyond 2023 (not data)" in names and any(n.startswith("slide 7") for n in names)


@pytest.mark.parametrize(
    "section, kinds",
    [
        ("Roll it forward", ["historical data", "extrapolation"]),
        ("GPU era: precision", ["historical data"] * 2),
        ("Data and sources", ["historical data"]),
        ("What it does not show", ["historical data"]),
    ],
)
def test_each_section_opens_from_the_url_and_draws_only_its_own_figures(section, kinds):
    at = run_page(PAGE, section=section)
    assert_clean(at)
    assert evidence_kinds(at) == kinds
    if section == "Roll it forward":
        assert _metrics(at)["Years per 10× up to 2000"] == "5.68"
        assert _metrics(at)["Median miss of the later machines"] == "+1.43 decades"
        assert [f["layout"]["meta"]["evidence_kinds"] for f in figures(at)][1] == ["extrapolation", "historical data"]
    if section == "GPU era: precision":
        assert figures(at)[1]["layout"]["meta"]["evidence_kinds"] == ["historical data", "fit"]
    if section == "What it does not show":
        assert "The future slope" in " ".join(m.value for m in at.markdown)


def test_window_extremes_and_a_reversed_window():
    at = run_page(PAGE)
    at.slider(key="start").set_value(1850).run()
    assert_clean(at)
    assert _metrics(at)["Years per 10×"] == "6.38" and "Before about 1940" in _infos(at)
    at.slider(key="start").set_value(2025).run()  # 2025-2025: no main-series point at all
    assert_clean(at)
    assert not at.metric and "No fit for 2025–2025" in at.warning[0].value
    assert evidence_kinds(at)[0] == "historical data"
    at.slider(key="end").set_value(2006).run()  # first year after last: read as 2006-2025
    assert_clean(at)
    assert "read as 2006–2025" in _infos(at)
    assert _metrics(at)["Years per 10×"] == "10.33" and "about half" in _infos(at)
    at.slider(key="end").set_value(1850).run()
    at.slider(key="start").set_value(1850).run()
    assert_clean(at)
    assert "0 points" in at.warning[0].value


def test_precision_toggle_swaps_the_gpu_values():
    at = run_page(PAGE, start="2006")
    assert _metrics(at)["Points fitted"] == "51"
    at.button_group(key="precision").set_value("best available").run()
    assert_clean(at)
    assert _metrics(at)["Years per 10×"] == "7.06" and _metrics(at)["Points fitted"] == "52"
    assert "lower precision" in _infos(at)
    assert "GPUs in best precision" in _badge(at)


def test_series_reference_line_and_horizon_controls():
    at = run_page(PAGE, start="1850")
    at.multiselect(key="series").set_value(
        ["Nordhaus 2001", "Epoch AI", "Kurzweil 2005", "Wikipedia FLOPS", "Wikipedia GPUs"]
    ).run()
    assert_clean(at)
    assert _metrics(at)["Points fitted"] == "231"
    at.toggle(key="slide7").set_value(False).run()
    assert not any(n.startswith("slide 7") for n in _trace_names(at))
    for horizon in (2026, 2060):
        at.slider(key="horizon").set_value(horizon).run()
        assert_clean(at)
        extrapolation = next(t for t in figures(at)[0]["data"] if t.get("name", "").startswith("extrapolation"))
        assert _array(extrapolation["x"])[-1] == pytest.approx(horizon)
    at.multiselect(key="series").set_value([]).run()
    assert_clean(at)
    assert "Pick at least one series" in _infos(at) and not at.metric


def test_url_restores_a_view():
    at = run_page(
        PAGE, start="2006", end="2024", precision="best available", series=["Epoch AI"], slide7="false", horizon="2050"
    )
    assert_clean(at)
    assert at.slider(key="start").value == 2006 and at.slider(key="end").value == 2024
    assert at.multiselect(key="series").value == ["Epoch AI"] and at.toggle(key="slide7").value is False
    assert _metrics(at)["Years per 10×"] == "7.06"
    assert not at.caption or not any("URL parameter" in c.value for c in at.caption)


def test_embedded_view_keeps_the_url_state_and_draws_no_controls():
    at = run_page(PAGE, controls="hidden", start="2006", precision="best available")
    assert_clean(at)
    assert not at.slider and not at.get("file_uploader") and len(figures(at)) == 1  # the trend; the rates: a tab away
    assert _metrics(at)["Years per 10×"] == "7.06"


def test_bad_url_values_get_notices_not_tracebacks():
    at = run_page(
        PAGE, start="abc", end="99999", precision="fp64", series=["<script>", "Epoch AI"], slide7="maybe", horizon="-5"
    )
    assert_clean(at)
    notices = " ".join(c.value for c in at.caption)
    for key in ("`start`", "`end`", "`precision`", "`series`", "`slide7`", "`horizon`"):
        assert key in notices, key
    assert at.slider(key="end").value == 2025 and at.slider(key="horizon").value == 2026
    assert at.multiselect(key="series").value == ["Epoch AI"]


def test_every_malformed_upload_gets_its_message_and_a_good_one_is_fitted():
    at = run_page(PAGE)
    uploader = at.file_uploader(key="upload")
    assert "10,000 rows" in uploader.label
    for name, (raw, message) in BAD.items():
        at.file_uploader(key="upload").set_value((f"{name}.csv", raw, "text/csv")).run()
        assert_clean(at)
        assert any(message in w.value for w in at.warning), (name, [w.value for w in at.warning])
        assert "your data" not in _trace_names(at)
    good = b"year,value,name\n1990,1e3,a\n1995,1e4,b\n2000,1e5,c\n2005,1e6,d\n2010,1e7,e\n"
    at.file_uploader(key="upload").set_value(("mine.csv", good, "text/csv")).run()
    assert_clean(at)
    assert not at.warning
    assert "your data" in _trace_names(at) and "your data: OLS fit to 5 points of 1990–2010" in _trace_names(at)
    assert [m.value for m in at.metric][5:7] == ["5.00", "5.00–5.00"]  # after the window's five readouts
    two_rows = b"year,value\n1990,5\n2000,50\n"
    at.file_uploader(key="upload").set_value(("two.csv", two_rows, "text/csv")).run()
    assert_clean(at)
    assert "drawn but not fitted" in at.warning[0].value and "your data" in _trace_names(at)


def test_the_chinese_page_speaks_chinese_everywhere():
    """?lang=zh: every section open, the tiles, tabs, figures and messages in Chinese; an upload too."""
    at = run_page(PAGE, lang="zh", sections="all")
    assert_clean(at)
    assert untranslated(at) == []
    assert _metrics(at)["每 10× 所需年数"] == "4.95" and "幻灯片的窗口" in _infos(at)
    at.button_group(key="precision").set_value("best available").run()  # the option value, shown translated
    assert_clean(at)
    assert untranslated(at) == []
    good = b"year,value,name\n1990,1e3,a\n1995,1e4,b\n2000,1e5,c\n2005,1e6,d\n2010,1e7,e\n"
    at.file_uploader(key="upload").set_value(("mine.csv", good, "text/csv")).run()
    assert_clean(at)
    assert untranslated(at) == [] and "你的数据" in _trace_names(at)
    at.file_uploader(key="upload").set_value(("bad.csv", b"a,b\n1,2\n", "text/csv")).run()
    assert "缺少" in at.warning[0].value


def test_a_chinese_link_restores_the_precision_by_its_chinese_label():
    at = run_page(PAGE, lang="zh", start="2006", precision="最佳可用精度")
    assert_clean(at)
    assert _metrics(at)["每 10× 所需年数"] == "7.06"


def test_the_first_screen_shows_the_record_its_text_cites_with_the_legends_beside_the_plot():
    """The lead says 'since 1857': the opening chart's axis starts there, not at the fit window's edge."""
    at = run_page(PAGE)
    assert_clean(at)
    assert "since 1857" in " ".join(" ".join(m.value for m in at.markdown).split())
    layout = figures(at)[0]["layout"]
    assert layout["xaxis"]["range"][0] <= 1857 and layout["xaxis"]["range"][1] >= 2035
    assert layout["legend"]["x"] > 1 and layout["legend"]["orientation"] == "v"  # beside the plot, not under it
