"""The compute-per-dollar figures: data as points, fit as line and bands, extrapolation never drawn solid."""

import numpy as np
import pytest

from explorer import trend
from explorer.figures.trend import precision_chart, reference_line, trend_chart

HORIZON = 2040


@pytest.fixture(scope="module")
def view():
    df = trend.load()
    rows, fit, _ = trend.fit_window(df, trend.MAIN_SERIES, trend.FP32, 1950, 2025, n_boot=0)
    return trend.fit_rows(df, trend.MAIN_SERIES), fit


def _lines(fig):
    return [t for t in fig.data if t.mode == "lines"]


def test_every_line_past_the_last_fitted_year_is_dashed_or_dotted(view):
    rows, fit = view
    fig = trend_chart(rows, (1950, 2025), fit, HORIZON)
    beyond = [t for t in _lines(fig) if np.nanmax(np.asarray(t.x, float)) > fit.x1 + 1e-9]
    assert beyond and all(t.line.dash in ("dash", "dot") for t in beyond)
    extrapolation = next(t for t in fig.data if t.name.startswith("extrapolation beyond"))
    assert extrapolation.x[0] == pytest.approx(fit.x1) and extrapolation.x[-1] == pytest.approx(HORIZON)
    assert extrapolation.line.dash == "dash"
    solid = [t for t in _lines(fig) if t.line.dash in (None, "solid")]
    assert solid and all(np.nanmax(np.asarray(t.x, float)) <= fit.x1 + 1e-9 for t in solid)
    assert any(a.text == "extrapolation" for a in fig.layout.annotations)
    hatched = [t for t in fig.data if t.fill == "toself" and t.fillpattern and t.fillpattern.shape == "/"]
    assert hatched and all(min(t.x) >= fit.x1 - 1e-9 for t in hatched)


def test_badge_and_legend_name_each_kind_of_evidence(view):
    rows, fit = view
    fig = trend_chart(rows, (1950, 2025), fit, HORIZON)
    assert fig.layout.meta["evidence"] == "historical data"
    assert fig.layout.meta["evidence_kinds"] == ["historical data", "fit", "extrapolation"]
    badge = next(a for a in fig.layout.annotations if a.name == "evidence")
    assert "HISTORICAL DATA + FIT + EXTRAPOLATION" in badge.text
    names = " | ".join(t.name.replace("<br>", " ") for t in fig.data if t.showlegend is not False)
    for phrase in (
        "Nordhaus (2001) machines (106 rows)",
        "Epoch AI ML hardware (51 rows)",
        "OLS fit to 129 points of 1950–2023",
        "95% confidence band (fit)",
        "95% prediction band (fit)",
        "extrapolation beyond 2023 (not data)",
        "slide 7: 10× per 5 years",
    ):
        assert phrase in names, phrase
    assert "4.95 years per 10×" in fig.layout.title.text
    assert fig.layout.yaxis.type == "log"


def test_points_carry_name_year_price_and_source_in_hover(view):
    rows, fit = view
    fig = trend_chart(rows, (1950, 2025), fit, HORIZON)
    points = [t for t in fig.data if t.mode == "markers" and t.customdata is not None]
    assert sum(len(t.x) for t in points) == len(rows) == 157
    gtx = next(c for t in points for c in t.customdata if c[0] == "NVIDIA GeForce GTX 280")
    assert gtx[2] == "$649 (nominal 2008 USD)" and "Epoch AI" in gtx[4]
    kurzweil_like = next(c for t in points for c in t.customdata if c[0] == "Scheutz Difference Engine")
    assert kurzweil_like[5] == "outside the fit window"
    assert all("%{customdata[4]}" in t.hovertemplate for t in points)


def test_reference_line_is_ten_x_per_five_years_through_the_fit(view):
    _, fit = view
    years = np.array([fit.x_mean, fit.x_mean + 5, fit.x_mean + 10])
    values, c0 = reference_line(fit, years)
    assert values[0] == pytest.approx(10 ** fit.line(fit.x_mean)[()]) == pytest.approx(c0)
    assert values[1] / values[0] == pytest.approx(10) and values[2] / values[0] == pytest.approx(100)
    rows, _ = view
    hidden = trend_chart(rows, (1950, 2025), fit, HORIZON, show_reference=False)
    assert not any(t.name.startswith("slide 7") for t in hidden.data)


def test_upload_is_drawn_and_fitted_on_the_same_axes(view):
    rows, fit = view
    upload = trend.validate_upload(b"year,value\n1990,1e3\n2000,1e5\n2010,1e7\n2020,1e9\n")
    fig = trend_chart(
        rows, (1950, 2025), fit, HORIZON, upload=upload, upload_fit=trend.ols(upload["year"], upload["value"])
    )
    names = [t.name.replace("<br>", " ") for t in fig.data]
    assert "your data" in names and "your data: OLS fit to 4 points of 1990–2020" in names
    assert "your data: extrapolation beyond 2020 (not data)" in names


def test_empty_selection_draws_an_honest_empty_chart():
    fig = trend_chart(trend.fit_rows(trend.load(), []), (1950, 2025), None, HORIZON)
    assert fig.layout.meta["evidence_kinds"] == ["historical data"]
    assert "no fit" in fig.layout.title.text and not _lines(fig)


def test_precision_chart_joins_each_chip_and_draws_no_extrapolation():
    gain = trend.precision_gain(trend.load())
    chips = gain["rows"]
    fig = precision_chart(chips, gain["fp32"], gain["best"])
    badge = next(a for a in fig.layout.annotations if a.name == "evidence")
    assert "HISTORICAL DATA + FIT" in badge.text and "EXTRAPOLATION" not in badge.text
    assert not any("extrapolation" in (t.name or "") for t in fig.data)
    joins = fig.data[0]
    assert len(joins.x) == 3 * len(chips) and np.isnan(np.asarray(joins.y, float)[2::3]).all()
    names = [t.name for t in fig.data]
    assert "FP32 fit: 10.3 years per 10×" in names and "best precision fit: 7.1 years per 10×" in names


def test_the_chinese_figures_name_their_axes_legends_and_badges_in_chinese(view):
    from explorer import i18n
    from explorer.figures.trend_models import rates_chart
    from explorer import trend_models

    rows, fit = view[0], view[1]
    with i18n.using("zh"):
        fig = trend_chart(rows, (1950, 2025), fit, HORIZON)
        models = rates_chart(
            trend.summary(fit), trend_models.compare(rows[trend.in_window(rows["year"], 1950, 2025)]), (1950, 2025)
        )
    assert "每 4.95 年 10×" in fig.layout.title.text and fig.layout.xaxis.title.text == "年份"
    assert any(t.name.replace("<br>", "").startswith("2023 年之后的外推") for t in fig.data)
    assert fig.layout.meta["evidence_kinds"] == ["historical data", "fit", "extrapolation"]  # machine-read: English
    assert "合并拟合" in " ".join(t.hovertemplate or "" for t in models.data)


def test_the_axis_spans_the_whole_record_the_text_cites_whatever_the_window(view):
    """The page says 'since 1857': the x axis starts there even when the fit window starts in 1950 or 2006."""
    rows, fit = view
    first = float(rows["year"].min())
    assert int(first) == 1857
    for window in ((1950, 2025), (2006, 2025)):
        fig = trend_chart(rows, window, fit, HORIZON)
        lo, hi = fig.layout.xaxis.range
        assert lo <= first and hi >= HORIZON
        shown = [x for t in fig.data if t.mode == "markers" and t.customdata is not None for x in t.x]
        assert len(shown) == len(rows) and lo <= min(shown)  # every cited machine is in view


def test_the_legends_stand_beside_the_plot_in_narrow_lines_not_under_it(view):
    """Under the plot they were as tall as the plot at 1440 px; beside it they take width, in short lines."""
    rows, fit = view
    fig = trend_chart(rows, (1950, 2025), fit, HORIZON)
    side, shapes = fig.layout.legend, fig.layout.legend2
    assert side.orientation == "v" and side.x > 1 and side.xanchor == "left" and side.yanchor == "top"
    assert shapes.orientation == "h" and shapes.y == 1 and shapes.yanchor == "bottom"  # one row over the plot
    shown = [t.name for t in fig.data if t.showlegend is not False and t.name]
    assert max(len(line) for name in shown for line in name.split("<br>")) <= 36
