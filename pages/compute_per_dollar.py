"""Compute per dollar: a century of cited machines, a fitted rate with its uncertainty, extrapolation labelled."""

from __future__ import annotations

import streamlit as st

from explorer import i18n, trend, trend_view
from explorer.csv_upload import inline_code
from explorer.figures.trend import precision_chart, trend_chart
from explorer.figures.trend_models import backtest_chart, rates_chart
from explorer.tiles import Tile
from ui import layout, params, render, upload_caps
from ui.frame import header
from ui.text import say, t

YEARS = (1850, 2025)  # slider range; the data run 1857-2025.4
BACKTEST_YEARS = (1960, 2015)  # last years a backtest may fit up to: some machines are left to forecast
HORIZON = (2026, 2060)
PRECISION_OPTIONS = {"FP32": trend.FP32, "best available": trend.BEST}  # URL value -> precision; shown translated
FIRST_SCREEN_HEIGHT = 540  # px: the chart whole under the controls' row on a 1440x900 screen
CONTROL_SHARES = [1, 1, 1.3, 1.3]  # first year, last year, series, more settings: one row above the chart


@st.cache_data(show_spinner=False)
def _data():
    return trend.load()


# `lang` keys each cache: a view's messages and figures are in the run's language.
@st.cache_data(show_spinner=False, max_entries=256)
def _window(start: int, end: int, series: tuple[str, ...], precision: str, lang: str) -> trend_view.Window:
    """Rows, fits and bootstrap of one view; cached, so a slider move back is instant."""
    return trend_view.window(_data(), start, end, series, precision)


@st.cache_data(show_spinner=False, max_entries=128)
def _backtest(start: int, train_end: int, series: tuple[str, ...], precision: str, lang: str):
    return trend_view.backtest(_data(), series, precision, start, train_end)


@st.cache_resource(show_spinner=False)
def _precision_view(lang: str):
    """The GPU-era comparison does not depend on any control: build it once per language, share it read-only."""
    gain = trend.precision_gain(_data())
    return trend_view.precision_values(gain), precision_chart(gain["rows"], gain["fp32"], gain["best"])


@st.cache_data(show_spinner=False, max_entries=8)
def _upload(raw: bytes, lang: str) -> trend_view.Upload:
    return trend_view.upload(raw)


def _tiles(tiles: list[Tile]) -> None:
    for col, tile in zip(st.columns(len(tiles)), tiles):
        col.metric(tile.label, tile.value, help=t(f"help-{tile.help}", **tile.values) if tile.help else None)


@st.fragment
def _roll_forward(start: int, series: tuple[str, ...], precision: str) -> None:
    """Its own slider reruns only this section (the stage's settings come in as arguments)."""
    say("backtest-intro")
    train_end = params.slider(t("label-train-end"), "train_end", *BACKTEST_YEARS, 2000, help=t("help-train-end"))
    backtest, problem = _backtest(start, int(train_end), series, precision, i18n.current()) if series else (None, None)
    if problem:
        st.warning(t("no-backtest", start=start, train_end=train_end, problem=problem))
    if backtest is not None:
        _tiles(trend_view.backtest_tiles(backtest))
        render.figure(backtest_chart(backtest), key="compute-backtest", notice=t("backtest-notice"))


def _fit_section(
    view: trend_view.Window,
    start: int,
    end: int,
    series: tuple[str, ...],
    precision: str,
    mine: trend_view.Upload | None,
    name: str,
) -> None:
    if view.problem and series:
        st.warning(t("no-fit", start=start, end=end, problem=view.problem))
    if view.fit is not None:
        _tiles(trend_view.tiles(view.fit, view.boot, view.models["robust"]))
        if view.boot.share_nonpositive > 0:
            st.caption(t("no-growth-share", share=view.boot.share_nonpositive))
        for note in trend.lessons(start, end, series, precision, view.fit, view.models["fixed_effects"]):
            st.info(note)
    if mine is not None and mine.fit is not None:
        st.markdown(t("upload-fitted", name=name, n=mine.fit.n))
        _tiles(trend_view.tiles(mine.fit, mine.boot))
    st.caption(t("method", start=start, end=end, n_boot=trend.N_BOOT, seed=trend.SEED))


def _data_section(rows, start: int, end: int) -> None:
    say("data-intro", rows=len(_data()))
    st.markdown(trend_view.sources_markdown(_data()))
    say("epoch-licence")
    if len(rows):
        st.caption(t("window-rows", n=len(rows), start=start, end=end))
        st.dataframe(
            rows[trend_view.TABLE_COLUMNS],
            hide_index=True,
            height=260,
            column_config={
                "year": t("column-year"),
                "name": t("column-name"),
                "kind": t("column-kind"),
                "series": t("column-series"),
                "value": st.column_config.NumberColumn(t("column-value"), format="%.3e"),
                "price_usd": st.column_config.NumberColumn(t("column-price"), format="dollar"),
                "reported_dollars": t("column-dollars"),
                "citation": t("column-citation"),
            },
        )
    st.download_button(
        t("download-data"), trend.DATA_CSV.read_bytes(), file_name="compute_per_dollar.csv", mime="text/csv"
    )


header("compute")
say("lead")
# the controls in one row above the chart, so the chart has the page's whole width (its legends beside the plot)
window_cols = st.columns(CONTROL_SHARES, vertical_alignment="bottom")
start = params.slider(t("label-start"), "start", *YEARS, 1950, where=window_cols[0])
end = params.slider(t("label-end"), "end", *YEARS, 2025, where=window_cols[1])
picked = params.multiselect(
    t("label-series"), "series", list(trend_view.BY_SHORT), trend_view.MAIN_SHORTS, where=window_cols[2]
)
with window_cols[3].expander(t("more-settings")):
    precision = PRECISION_OPTIONS[
        params.choice(
            t("label-precision"),
            "precision",
            list(PRECISION_OPTIONS),
            "FP32",
            format_func=lambda option: t(f"precision-{PRECISION_OPTIONS[option]}"),
        )
    ]
    horizon = params.slider(t("label-horizon"), "horizon", *HORIZON, 2035)
    show_reference = params.toggle(t("label-slide7"), "slide7", True)
    uploaded = (
        None
        if params.controls_hidden()
        else st.file_uploader(
            t("upload-label", rows=f"{trend.MAX_ROWS:,}", mb=st.get_option("server.maxUploadSize")),
            type=["csv", "txt"],
            key="upload",
            help=t("upload-help", value=trend.VALUE),
        )
    )
    upload_caps.notice()
figure_col = st.container()

if start > end:
    st.info(t("reversed-window", start=start, end=end))
    start, end = end, start
series = trend_view.series_keys(picked)
if not series:
    st.info(t("no-series"))

view = _window(start, end, series, precision, i18n.current())
mine = _upload(uploaded.getvalue(), i18n.current()) if uploaded is not None else None
name = inline_code(uploaded.name, 60) if uploaded is not None else ""
if mine is not None and mine.problem:
    st.warning(f"{name}: {mine.problem}")

upload_rows, upload_fit = (mine.rows, mine.fit) if mine else (None, None)
with figure_col:
    figure_key = ("trend", start, end, series, precision, horizon, show_reference, uploaded and uploaded.file_id)
    render.figure(
        render.built_once(
            figure_key,
            lambda: trend_chart(
                view.shown,
                (start, end),
                view.fit,
                horizon,
                show_reference,
                upload_rows,
                upload_fit,
                precision,
                height=FIRST_SCREEN_HEIGHT,
            ),
        ),
        key="compute-trend",
        notice=t("trend-notice"),
    )
    for kind, values in trend_view.takeaway(view, start, end) if series else []:
        say(f"takeaway-{kind}", **values)

fit_tab, rates_tab, backtest_tab, gpu_tab, data_tab, limits_tab = layout.sections(
    [t("tab-fit"), t("tab-rates"), t("tab-backtest"), t("tab-gpu"), t("tab-data"), t("tab-limits")]
)
if fit_tab:
    with fit_tab:
        _fit_section(view, start, end, series, precision, mine, name)
if rates_tab:
    with rates_tab:
        if view.models is not None:
            render.figure(
                rates_chart(trend.summary(view.fit), view.models, (start, end)),
                key="compute-rates",
                notice=t("rates-notice"),
            )
        else:
            st.info(t("no-fit", start=start, end=end, problem=view.problem or t("no-series")))
if backtest_tab:
    with backtest_tab:
        _roll_forward(start, series, precision)
if gpu_tab:
    with gpu_tab:
        values, precision_figure = _precision_view(i18n.current())
        render.figure(precision_figure, key="compute-precision", notice=t("precision-notice", **values))
        st.caption(t("precision-caption"))
if data_tab:
    with data_tab:
        _data_section(view.rows, start, end)
if limits_tab:
    with limits_tab:
        say("limits")
