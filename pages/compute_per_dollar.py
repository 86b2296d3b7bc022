"""Compute per dollar: a century of cited machines, a fitted rate with its uncertainty, extrapolation labelled."""

from __future__ import annotations

import streamlit as st

from explorer import trend, trend_models
from explorer.csv_upload import inline_code
from explorer.figures.trend import precision_chart, trend_chart
from explorer.figures.trend_models import backtest_chart, rates_chart
from ui import params, render
from ui.frame import header

YEARS = (1850, 2025)  # slider range; the data run 1857-2025.4
BACKTEST_YEARS = (1960, 2015)  # last years a backtest may fit up to: some machines are left to forecast
HORIZON = (2026, 2060)
SERIES_KEYS = [s.key for s in trend.SERIES]
BY_SHORT = {s.short: s.key for s in trend.SERIES}  # options are shown and put in the URL by their short names
PRECISION_OPTIONS = {"FP32": trend.FP32, "best available": trend.BEST}


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
    cols[0].metric("Years per 10×", value, help="1 / slope of the least-squares line of log10(ops per $) on year")
    cols[1].metric("95% interval (analytic)", trend.interval_text(*fit.years_per_10x_ci),
                   help="t-interval of the slope, inverted; assumes independent, equal-variance residuals")
    cols[2].metric("95% interval (bootstrap)", trend.interval_text(boot.years_lo, boot.years_hi),
                   help=f"rows resampled with replacement, {boot.n_boot} times, seed {boot.seed}")
    cols[-1].metric("Points fitted", f"{fit.n}", help=f"{fit.x0:.1f} to {fit.x1:.1f}, R² = {fit.r2:.3f}")
    if robust:
        cols[3].metric("95% interval (robust)", trend.interval_text(robust["ci_low"] or 0, robust["ci_high"] or
                                                                    float("inf")),
                       help=f"{robust['method']}: neighbouring years' machines share their errors (lag-1 "
                            f"correlation of the residuals {robust['residual_lag1_autocorrelation']:.2f}), which the "
                            "other two intervals ignore")


header("compute")
st.markdown(
    "Slide 7 is the lecture's *dominant driving force*: what a fixed budget buys in computation has grown "
    "about **10× every 5 years** for a century, $C(t) = C_0 \\cdot 10^{t/5}$. Slides 4 and 6 say how to read "
    "such a rule: a simple model of one dominant force, good to a stated error. Here every point is a machine "
    "with a source. Move the window and pick the series; the fit, its uncertainty and the rate follow."
)

with st.container(border=True):
    c1, c2, c3 = st.columns([1, 1, 2])
    start = params.slider("Fit window: first year", "start", *YEARS, 1950, where=c1)
    end = params.slider("Fit window: last year", "end", *YEARS, 2025, where=c2)
    picked = params.multiselect("Series", "series", list(BY_SHORT),
                                [trend.SERIES_BY_KEY[k].short for k in trend.MAIN_SERIES], where=c3)
    c4, c5, c6 = st.columns([1, 1, 2])
    precision = PRECISION_OPTIONS[params.choice("GPU-era precision", "precision", list(PRECISION_OPTIONS), "FP32",
                                                where=c4)]
    horizon = params.slider("Extrapolate to", "horizon", *HORIZON, 2035, where=c5)
    show_reference = params.toggle("Show slide 7's line: 10× every 5 years", "slide7", True, where=c6)

if start > end:
    st.info(f"The first year ({start}) is after the last year ({end}); the window is read as {end}–{start}.")
    start, end = end, start
series = [k for k in SERIES_KEYS if trend.SERIES_BY_KEY[k].short in picked]  # stable order: one cache entry
if not series:
    st.info("Pick at least one series to see points and a fit.")

rows, fit, boot, problem = _fit(start, end, tuple(series), precision)
shown = _shown(tuple(series), precision)

if problem and series:
    st.warning(f"No fit for {start}–{end}: {problem} Widen the window or add a series.")
models = _models(start, end, tuple(series), precision) if fit is not None else None
if fit is not None:
    _readout(fit, boot, robust=models["robust"])
    if boot.share_nonpositive > 0:
        st.caption(f"{boot.share_nonpositive:.1%} of the bootstrap resamples show no growth, so the bootstrap "
                   "interval has no finite upper end.")
    for note in trend.lessons(start, end, series, precision, fit, models["fixed_effects"]):
        st.info(note)

uploaded = None if params.controls_hidden() else st.file_uploader(
    f"Your own data (optional): a CSV with a `year` and a `value` column, at most {trend.MAX_ROWS:,} rows and "
    f"{st.get_option('server.maxUploadSize')} MB",
    type=["csv", "txt"], key="upload",
    help="Values must be positive (ops per dollar or anything that grows); the shipped file's full schema, "
         f"with `{trend.VALUE}`, works too. It is fitted on the same axes, separately from the series above.")
upload_rows = upload_fit = upload_boot = None
if uploaded is not None:
    upload_rows, upload_fit, upload_boot, upload_problem = _upload(uploaded.getvalue())
    if upload_problem:
        st.warning(f"{inline_code(uploaded.name, 60)}: {upload_problem}")
    if upload_fit is not None:
        st.markdown(f"**Your data** ({inline_code(uploaded.name, 60)}, {upload_fit.n} rows), fitted on its own and "
                    "drawn in black:")
        _readout(upload_fit, upload_boot)

render.figure(
    trend_chart(shown, (start, end), fit, horizon, show_reference, upload_rows, upload_fit, precision),
    key="compute-trend",
    notice="What to notice: from 1857 to 2024 the points rise by about 17 orders of magnitude, and from 1950 on "
           "they sit close to one straight line on this log axis. The slide's dotted line is anchored where the fit "
           "crosses the mean fitted year, so only the slopes differ: from 1950 on they agree (slide 7). The grey "
           "band is where the mean line may lie, the lighter one where a new machine may land; past the last fitted "
           "year the band is hatched and the line dashed: that part is extrapolation, not data (slide 3's "
           "roll-forward).")

if models is not None:
    st.subheader("One rate, several models")
    render.figure(rates_chart(trend.summary(fit), models, (start, end)), key="compute-rates",
                  notice="What to notice: the dots are this app's fits of the points in the window, one per way of "
                         "joining the series; when they disagree by more than their intervals, the rate depends on "
                         "the model more than on the data. The robust interval is wider than the textbook one "
                         "because machines of neighbouring years share their errors. The hollow diamonds are rates "
                         "published for comparable windows: the literature's numbers, not this app's.")

st.subheader("Roll it forward: fit up to a year, forecast the rest")
train_end = params.slider("Fit up to", "train_end", *BACKTEST_YEARS, 2000,
                          help="The line is fitted to the picked series from the window's first year up to here; "
                               "every later machine is then compared with the line carried forward.")
backtest, backtest_problem = _backtest(start, int(train_end), tuple(series), precision) if series else (None, None)
if backtest_problem:
    st.warning(f"No backtest from {start} to {train_end}: {backtest_problem}")
if backtest is not None:
    cols = st.columns(3)
    cols[0].metric(f"Years per 10× up to {train_end}", "no growth" if backtest["years_per_10x"] is None
                   else f"{backtest['years_per_10x']:.2f}")
    cols[1].metric("Median miss of the later machines", f"{backtest['median_error_decades']:+.2f} decades",
                   help="observed minus forecast, log10 units: +1 means ten times more compute per dollar than "
                        "the line said")
    cols[2].metric("Machines forecast", f"{backtest['n_forecast']}")
    render.figure(backtest_chart(backtest), key="compute-backtest",
                  notice="What to notice: fitted up to 2000 (the default), the line under-predicts the GPUs of "
                         "2008-2024 by more than a decade: carried forward, the model failed at the switch from "
                         "CPUs to GPUs, the kind of failure condition slide 3 asks to state with every "
                         "roll-forward. Move the year and watch where the forecast holds.")

st.subheader("GPU era: FP32 vs best available precision")
gain, precision_figure = _precision_view()
render.figure(
    precision_figure, key="compute-precision",
    notice=f"What to notice: over {int(gain['span'][0])}–{int(gain['span'][1])} the FP32 fit gains "
           f"{gain['fitted_gain_fp32']:.0f}× per constant dollar, the best-precision fit "
           f"{gain['fitted_gain_best']:.0f}×. About {gain['precision_share_of_log_gain']:.0%} of the orders of "
           f"magnitude gained come from lower precision: {gain['chips_with_lower_precision']} of {gain['chips']} "
           f"chips run faster in FP16 or on tensor cores, by a median {gain['median_factor_where_lower']:.0f}×.")
st.caption("Only Epoch AI's rows list FP16 and tensor-core figures. The precision control above swaps these chips' "
           "values in the main chart and its fit; the other series have one precision each.")

st.subheader("What this chart does not show")
st.markdown(
    "- **The future slope.** The dashed part is the fitted line carried forward. Nothing in the data says the "
    "next decade follows it; the GPU era in FP32 already runs at about half the slide's pace.\n"
    "- **Energy, fabrication and capital limits.** Prices here are purchase prices of one chip or machine. Power, "
    "cooling, fabs, interconnect and the capital to build clusters are not in the numbers, and any of them may "
    "bend the curve.\n"
    "- **One unit of compute.** Nordhaus counts standardized operations (about one instruction), Kurzweil "
    "undefined “calculations”, the modern rows peak FP32 FLOP/s from datasheets; stitching them assumes one "
    "standard operation ≈ one FLOP.\n"
    "- **Market prices.** Launch list prices and capital costs, deflated with the US CPI-U to 2024 dollars; "
    "street prices, rentals and total cost of ownership differ. Datacenter prices are often analyst estimates.\n"
    "- **Independent samples.** Each source picked notable or ML-relevant machines; Kurzweil and Nordhaus share "
    "machines but disagree on values, so pooling them double-counts. The intervals treat the points as "
    "independent; they are not, so the true uncertainty is wider than either interval.")

with st.expander(f"The data: {len(_data())} rows, sources and licences"):
    counts = trend.row_counts(_data())
    st.markdown("\n".join(
        f"- **{s.label}** ({counts[s.key]} rows): {s.citation}; {s.licence}." for s in trend.SERIES))
    st.markdown(
        "Epoch AI's rows come from *Machine Learning Hardware* by Epoch AI "
        "(https://epoch.ai/data/machine-learning-hardware), used under CC BY 4.0 "
        "(https://creativecommons.org/licenses/by/4.0/); changes: priced rows only, FP32 and best-precision "
        "FLOP/s divided by the launch price and adjusted to 2024 dollars with the US CPI-U. `data/SOURCES.md` "
        "gives every source, caveat and how the file is built (`python -m explorer trend build-data`).")
    if len(rows):
        st.caption(f"The {len(rows)} rows in the fit window {start}–{end}:")
        table = rows[["year", "name", "kind", "series", "value", "price_usd", "reported_dollars", "citation"]]
        st.dataframe(table, hide_index=True, height=260, column_config={
            "value": st.column_config.NumberColumn("ops/s per 2024 US$", format="%.3e"),
            "price_usd": st.column_config.NumberColumn("price as reported", format="dollar"),
            "reported_dollars": "dollars of"})
    st.download_button("Download the data (CSV)", trend.DATA_CSV.read_bytes(), file_name="compute_per_dollar.csv",
                       mime="text/csv")
st.caption(f"Fit: least squares of log10(ops/s per 2024 US$) on year over {start}–{end}; analytic interval "
           f"from the t distribution, bootstrap from {trend.N_BOOT} row resamples (seed {trend.SEED}).")
