"""Compute per dollar: a century of cited machines, a fitted rate with its uncertainty, extrapolation labelled."""

from __future__ import annotations

import streamlit as st

from explorer import trend, trend_models
from explorer.csv_upload import inline_code
from explorer.figures.trend import precision_chart, trend_chart
from explorer.figures.trend_models import backtest_chart, rates_chart
from ui import layout, params, render
from ui.frame import header
from ui.text import say, t

YEARS = (1850, 2025)  # slider range; the data run 1857-2025.4
BACKTEST_YEARS = (1960, 2015)  # last years a backtest may fit up to: some machines are left to forecast
HORIZON = (2026, 2060)
SERIES_KEYS = [s.key for s in trend.SERIES]
BY_SHORT = {s.short: s.key for s in trend.SERIES}  # options are shown and put in the URL by their short names
PRECISION_OPTIONS = {"FP32": trend.FP32, "best available": trend.BEST}
FIRST_SCREEN_HEIGHT = 630  # px: the chart and its legend whole on a 1440x900 screen


@st.cache_data(show_spinner=False)
def _data():
    return trend.load()


@st.cache_data(show_spinner=False, max_entries=64)
def _shown(series: tuple[str, ...], precision: str):
    """Every row of the picked series, all years: the points drawn (faded outside the window)."""
    return trend.fit_rows(_data(), series, precision)


@st.cache_data(show_spinner=False, max_entries=256)
def _fit(start: int, end: int, series: tuple[str, ...], precision: str):
    """Rows, OLS fit and seeded bootstrap for one view; cached, so a slider move back is instant."""
    shown = _shown(series, precision)
    rows = shown[trend.in_window(shown["year"], start, end)]
    problem = trend.min_points_message(len(rows), rows["year"].nunique())
    if problem:
        return rows, None, None, problem
    return rows, trend.ols(rows["year"], rows["value"]), trend.bootstrap(rows["year"], rows["value"]), None


@st.cache_data(show_spinner=False, max_entries=128)
def _models(start: int, end: int, series: tuple[str, ...], precision: str) -> dict | None:
    """Per series, series fixed effects and the autocorrelation-robust interval for one view."""
    rows, fit, _, problem = _fit(start, end, series, precision)
    return None if problem else trend_models.compare(rows)


@st.cache_data(show_spinner=False, max_entries=128)
def _backtest(start: int, train_end: int, series: tuple[str, ...], precision: str) -> tuple[dict | None, str | None]:
    shown = _shown(series, precision)
    try:
        return trend_models.backtest(shown[shown["year"] >= start], train_end), None
    except ValueError as err:
        return None, str(err)


@st.cache_resource(show_spinner=False)
def _precision_view():
    """The GPU-era comparison does not depend on any control: build it once, share it read-only."""
    gain = trend.precision_gain(_data())
    return gain, precision_chart(gain["rows"], gain["fp32"], gain["best"])


@st.cache_data(show_spinner=False, max_entries=8)
def _upload(raw: bytes):
    """(rows, fit, boot, message): the message names what is wrong with the file or why there is no fit."""
    try:
        rows = trend.validate_upload(raw)
    except trend.UploadError as err:
        return None, None, None, str(err)
    try:
        fit = trend.ols(rows["year"], rows["value"])
        return rows, fit, trend.bootstrap(rows["year"], rows["value"], trend.n_boot_for(len(rows))), None
    except ValueError as err:
        return rows, None, None, f"Your {len(rows)} rows are drawn but not fitted. {err}"


def _readout(fit: trend.Fit, boot: trend.Bootstrap, where=st, robust: dict | None = None) -> None:
    cols = where.columns(5 if robust else 4)
    value = f"{fit.years_per_10x:.2f}" if fit.b > 0 else "no growth"
    cols[0].metric("Years per 10×", value, help=t("help-years"))
    cols[1].metric("95% interval (analytic)", trend.interval_text(*fit.years_per_10x_ci), help=t("help-analytic"))
    cols[2].metric("95% interval (bootstrap)", trend.interval_text(boot.years_lo, boot.years_hi),
                   help=t("help-bootstrap", n_boot=boot.n_boot, seed=boot.seed))
    cols[-1].metric("Points fitted", f"{fit.n}", help=t("help-points", first=fit.x0, last=fit.x1, r2=fit.r2))
    if robust:
        cols[3].metric("95% interval (robust)", trend.interval_text(robust["ci_low"] or 0, robust["ci_high"] or
                                                                    float("inf")),
                       help=t("help-robust", method=robust["method"],
                              lag1=robust["residual_lag1_autocorrelation"]))


def _takeaway(fit: trend.Fit | None, models: dict | None, start: int, end: int, problem: str | None) -> None:
    """One sentence under the figure that follows the controls."""
    if fit is None or models is None:
        if problem:
            say("takeaway-none", problem=problem)
        return
    robust = models["robust"]
    years = f"{fit.years_per_10x:.2f}" if fit.b > 0 else "∞ (no growth)"
    say("takeaway", start=start, end=end, years=years,
        interval=trend.interval_text(robust["ci_low"] or 0, robust["ci_high"] or float("inf")))
    fixed = models["fixed_effects"]
    if len(fixed["series"]) > 1 and fixed["years_per_10x"] is not None:  # the pooled line counts the jump
        say("takeaway-fixed", years=f"{fixed['years_per_10x']:.2f}",    # between series as growth
            interval=trend.interval_text(fixed["ci_low"] or 0, fixed["ci_high"] or float("inf")))


@st.fragment
def _roll_forward(start: int, series: tuple[str, ...], precision: str) -> None:
    """Its own slider reruns only this section (the stage's settings come in as arguments)."""
    say("backtest-intro")
    train_end = params.slider("Fit up to", "train_end", *BACKTEST_YEARS, 2000, help=t("help-train-end"))
    backtest, backtest_problem = _backtest(start, int(train_end), series, precision) if series else (None, None)
    if backtest_problem:
        st.warning(t("no-backtest", start=start, train_end=train_end, problem=backtest_problem))
    if backtest is not None:
        cols = st.columns(3)
        cols[0].metric(f"Years per 10× up to {train_end}", "no growth" if backtest["years_per_10x"] is None
                       else f"{backtest['years_per_10x']:.2f}")
        cols[1].metric("Median miss of the later machines", f"{backtest['median_error_decades']:+.2f} decades",
                       help=t("help-miss"))
        cols[2].metric("Machines forecast", f"{backtest['n_forecast']}")
        render.figure(backtest_chart(backtest), key="compute-backtest", notice=t("backtest-notice"))


header("compute")
say("lead")
figure_col, controls_col = layout.stage(figure_share=4)  # its legend needs the width
with controls_col:
    start = params.slider("Fit window: first year", "start", *YEARS, 1950)
    end = params.slider("Fit window: last year", "end", *YEARS, 2025)
    picked = params.multiselect("Series", "series", list(BY_SHORT),
                                [trend.SERIES_BY_KEY[k].short for k in trend.MAIN_SERIES])
    with st.expander("More settings: precision, horizon, your data"):
        precision = PRECISION_OPTIONS[params.choice("GPU-era precision", "precision", list(PRECISION_OPTIONS),
                                                    "FP32")]
        horizon = params.slider("Extrapolate to", "horizon", *HORIZON, 2035)
        show_reference = params.toggle("Show slide 7's line: 10× every 5 years", "slide7", True)
        uploaded = None if params.controls_hidden() else st.file_uploader(
            t("upload-label", rows=f"{trend.MAX_ROWS:,}", mb=st.get_option("server.maxUploadSize")),
            type=["csv", "txt"], key="upload", help=t("upload-help", value=trend.VALUE))

if start > end:
    st.info(t("reversed-window", start=start, end=end))
    start, end = end, start
series = [k for k in SERIES_KEYS if trend.SERIES_BY_KEY[k].short in picked]  # stable order: one cache entry
if not series:
    st.info(t("no-series"))

rows, fit, boot, problem = _fit(start, end, tuple(series), precision)
shown = _shown(tuple(series), precision)
models = _models(start, end, tuple(series), precision) if fit is not None else None
upload_rows = upload_fit = upload_boot = upload_problem = None
if uploaded is not None:
    upload_rows, upload_fit, upload_boot, upload_problem = _upload(uploaded.getvalue())
    if upload_problem:
        st.warning(f"{inline_code(uploaded.name, 60)}: {upload_problem}")

with figure_col:
    render.figure(
        trend_chart(shown, (start, end), fit, horizon, show_reference, upload_rows, upload_fit, precision,
                    height=FIRST_SCREEN_HEIGHT),
        key="compute-trend", notice=t("trend-notice"))
    _takeaway(fit, models, start, end, problem if series else None)

fit_tab, rates_tab, backtest_tab, gpu_tab, data_tab, limits_tab = layout.sections(
    ["The fit in numbers", "One rate, several models", "Roll it forward", "GPU era: precision", "Data and sources",
     "What it does not show"])
if fit_tab:
    with fit_tab:
        if problem and series:
            st.warning(t("no-fit", start=start, end=end, problem=problem))
        if fit is not None:
            _readout(fit, boot, robust=models["robust"])
            if boot.share_nonpositive > 0:
                st.caption(t("no-growth-share", share=boot.share_nonpositive))
            for note in trend.lessons(start, end, series, precision, fit, models["fixed_effects"]):
                st.info(note)
        if upload_fit is not None:
            st.markdown(t("upload-fitted", name=inline_code(uploaded.name, 60), n=upload_fit.n))
            _readout(upload_fit, upload_boot)
        st.caption(t("method", start=start, end=end, n_boot=trend.N_BOOT, seed=trend.SEED))

if rates_tab:
    with rates_tab:
        if models is not None:
            render.figure(rates_chart(trend.summary(fit), models, (start, end)), key="compute-rates",
                          notice=t("rates-notice"))
        else:
            st.info(t("no-fit", start=start, end=end, problem=problem or t("no-series")))

if backtest_tab:
    with backtest_tab:
        _roll_forward(start, tuple(series), precision)

if gpu_tab:
    with gpu_tab:
        gain, precision_figure = _precision_view()
        render.figure(precision_figure, key="compute-precision", notice=t(
            "precision-notice", first=int(gain["span"][0]), last=int(gain["span"][1]),
            gain_fp32=gain["fitted_gain_fp32"], gain_best=gain["fitted_gain_best"],
            share=gain["precision_share_of_log_gain"], lower=gain["chips_with_lower_precision"],
            chips=gain["chips"], factor=gain["median_factor_where_lower"]))
        st.caption(t("precision-caption"))

if data_tab:
    with data_tab:
        counts = trend.row_counts(_data())
        say("data-intro", rows=len(_data()))
        st.markdown("\n".join(
            f"- **{s.label}** ({counts[s.key]} rows): {s.citation}; {s.licence}." for s in trend.SERIES))
        say("epoch-licence")
        if len(rows):
            st.caption(t("window-rows", n=len(rows), start=start, end=end))
            table = rows[["year", "name", "kind", "series", "value", "price_usd", "reported_dollars", "citation"]]
            st.dataframe(table, hide_index=True, height=260, column_config={
                "value": st.column_config.NumberColumn("ops/s per 2024 US$", format="%.3e"),
                "price_usd": st.column_config.NumberColumn("price as reported", format="dollar"),
                "reported_dollars": "dollars of"})
        st.download_button("Download the data (CSV)", trend.DATA_CSV.read_bytes(),
                           file_name="compute_per_dollar.csv", mime="text/csv")

if limits_tab:
    with limits_tab:
        say("limits")
