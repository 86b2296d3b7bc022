"""The compute page's numbers, checked without the page: the default view, the takeaway's choices, the tiles,
the backtest and an upload."""

import pytest

from explorer import trend, trend_view


@pytest.fixture(scope="module")
def df():
    return trend.load()


def test_the_slide_window_fits_the_main_series_pooled_and_within_series(df):
    view = trend_view.window(df, 1950, 2025, trend.MAIN_SERIES, trend.FP32)
    assert view.problem is None and view.fit.n == len(view.rows) == 129 and len(view.shown) == 157
    said = dict(trend_view.takeaway(view, 1950, 2025))
    assert said["pooled"]["years"] == "4.95" and said["pooled"]["interval"] == "4.78–5.14"  # the robust interval
    assert said["fixed"] == {"years": "5.67", "interval": "5.40–5.97"}  # the jump between series as a level
    tiles = trend_view.tiles(view.fit, view.boot, view.models["robust"])
    assert [(x.label, x.value) for x in tiles] == [
        ("Years per 10×", "4.95"),
        ("95% interval (analytic)", "4.83–5.09"),
        ("95% interval (bootstrap)", "4.81–5.09"),
        ("95% interval (robust)", "4.78–5.14"),
        ("Points fitted", "129"),
    ]
    assert tiles[2].values == {"n_boot": trend.N_BOOT, "seed": trend.SEED}


def test_one_series_has_no_jump_to_count_and_a_thin_window_says_why_there_is_no_fit(df):
    one = trend_view.window(df, 1950, 2025, trend_view.series_keys(["Nordhaus 2001"]), trend.FP32)
    assert [kind for kind, _ in trend_view.takeaway(one, 1950, 2025)] == ["pooled"]
    empty = trend_view.window(df, 2025, 2025, trend.MAIN_SERIES, trend.FP32)
    assert empty.fit is None and empty.models is None and "at least 3 points" in empty.problem
    assert trend_view.takeaway(empty, 2025, 2025) == [("none", {"problem": empty.problem})]


def test_series_keys_keep_the_module_order_whatever_order_they_are_picked_in():
    assert trend_view.series_keys(["Epoch AI", "Nordhaus 2001"]) == trend.MAIN_SERIES
    assert trend_view.series_keys([]) == ()


def test_the_backtest_fitted_up_to_2000_misses_the_gpus_and_a_late_end_says_why(df):
    result, problem = trend_view.backtest(df, trend.MAIN_SERIES, trend.FP32, 1950, 2000)
    assert problem is None
    assert [(x.label, x.value) for x in trend_view.backtest_tiles(result)] == [
        ("Years per 10× up to 2000", "5.68"),
        ("Median miss of the later machines", "+1.43 decades"),
        ("Machines forecast", f"{result['n_forecast']}"),
    ]
    none, why = trend_view.backtest(df, trend.MAIN_SERIES, trend.FP32, 2024, 2025)
    assert none is None and why


def test_an_upload_is_fitted_or_says_what_is_wrong():
    good = trend_view.upload(b"year,value\n1990,1e3\n1995,1e4\n2000,1e5\n2005,1e6\n")
    assert good.problem is None and good.fit.years_per_10x == pytest.approx(5.0)
    assert "drawn but not fitted" in trend_view.upload(b"year,value\n1990,5\n2000,50\n").problem
    bad = trend_view.upload(b"when,value\n1990,5\n")
    assert bad.rows is None and "year" in bad.problem


def test_the_sources_list_names_every_series_with_its_rows(df):
    lines = trend_view.sources_markdown(df).splitlines()
    counts = trend.row_counts(df)
    assert len(lines) == len(trend.SERIES)
    assert all(f"**{s.label}** ({counts[s.key]} rows)" in line for s, line in zip(trend.SERIES, lines))


def test_the_chinese_edition_translates_tiles_lessons_and_messages_and_keeps_the_english_labels(df):
    from explorer import i18n
    from explorer.figures.trend import series_label

    assert [series_label(s.key) for s in trend.SERIES] == [s.label for s in trend.SERIES]
    view = trend_view.window(df, 1950, 2025, trend.MAIN_SERIES, trend.FP32)
    with i18n.using("zh"):
        tiles = trend_view.tiles(view.fit, view.boot, view.models["robust"])
        assert tiles[0].label == "每 10× 所需年数" and tiles[0].value == "4.95"
        notes = trend.lessons(1950, 2025, trend.MAIN_SERIES, trend.FP32, view.fit, view.models["fixed_effects"])
        assert notes and "幻灯片的窗口" in notes[0] and "5.67 年（5.40–5.97）" in notes[0]
        assert "至少需要" in trend_view.window(df, 2025, 2025, trend.MAIN_SERIES, trend.FP32).problem
        assert "缺少" in trend_view.upload(b"when,value\n1990,5\n").problem
        assert "**Epoch AI 机器学习硬件**" in trend_view.sources_markdown(df)
        assert (
            "；"
            in trend_view.first_rate_and_others(
                trend_view.rates_by_window(df, ((1950, 2025), (1900, 2025), (2006, 2025)))
            )["others"]
        )
