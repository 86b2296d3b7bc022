"""Method: identify, understand, roll forward, measured on a falling object (slides 2-6)."""

from __future__ import annotations

import streamlit as st

from explorer import i18n, physics, physics_view as view, trend, trend_view
from explorer.figures import method as figures
from explorer.tiles import Tile
from ui import layout, params, render
from ui.frame import header, page_link
from ui.text import say, t

HEIGHTS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]  # m; ints where whole keep the URL clean
TOL_CM = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50]
TOL_PCT = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20]
TOL_M = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1]
WINDOWS = ((1950, 2025), (1900, 2025), (2006, 2025))  # compute-per-dollar fit windows quoted at the end
FIRST_SCREEN_HEIGHT = 420  # px: the fall, its notice and the takeaway on a 1440x900 screen
FIGURE_SHARE = 2.5  # the figure's share of the width: the four objects' buttons fit beside it


# Every call is cached on plain values; figures too, as they take longer to build than to copy out of the cache.
# What holds words (figures, the quoted rates) takes the language as an argument, so each language has its own.
@st.cache_data(show_spinner=False, max_entries=64)
def _fall(mass_g: float, area_cm2: float, cd: float, rho: float, v0: float, height: float) -> physics.Fall:
    return physics.simulate_fall(view.custom_object(mass_g, area_cm2, cd), height, v0=v0, rho=rho)


@st.cache_data(show_spinner=False, max_entries=512)
def _crossings(mass_g: float, area_cm2: float, cd: float, rho: float, v0: float, tol_abs: float, tol_rel: float):
    return view.crossings(view.custom_object(mass_g, area_cm2, cd), rho, v0, tol_abs, tol_rel)


@st.cache_data(show_spinner=False)
def _compute_rates(lang: str) -> dict:
    """Years per 10x of compute per dollar for a few fit windows, from the compute page's library."""
    return trend_view.first_rate_and_others(trend_view.rates_by_window(trend.load(), WINDOWS))


@st.cache_data(show_spinner=False, max_entries=128)
def _horizons(mass_g: float, area_cm2: float, cd: float, rho: float, wind: float, t_fit: float, tol_m: float):
    return view.horizons(view.custom_object(mass_g, area_cm2, cd), rho, wind, t_fit, tol_m)


@st.cache_data(show_spinner=False, max_entries=64)
def _fall_figure(name: str, mass_g: float, area_cm2: float, cd: float, rho: float, v0: float, height: float, lang: str):
    return figures.fall_position(_fall(mass_g, area_cm2, cd, rho, v0, height), name, v0, height=FIRST_SCREEN_HEIGHT)


@st.cache_data(show_spinner=False, max_entries=64)
def _gravity_figures(
    name: str,
    mass_g: float,
    area_cm2: float,
    cd: float,
    rho: float,
    v0: float,
    height: float,
    tol_abs: float,
    tol_rel: float,
    lang: str,
):
    """The formula's error over this drop, and where it leaves the tolerance for every object."""
    edited = view.custom_object(mass_g, area_cm2, cd)
    rows = view.object_heights(name, edited, rho, v0, tol_abs, tol_rel)
    return (
        figures.fall_error(
            _fall(mass_g, area_cm2, cd, rho, v0, height),
            tol_abs,
            tol_rel,
            *_crossings(mass_g, area_cm2, cd, rho, v0, tol_abs, tol_rel),
        ),
        figures.tolerance_heights(rows, tol_abs, tol_rel, height, physics.MAX_HEIGHT),
    )


@st.cache_data(show_spinner=False, max_entries=64)
def _system_figures(
    mass_g: float,
    area_cm2: float,
    cd: float,
    rho: float,
    wind: float,
    t_fit: float,
    tol_m: float,
    n_forces: int,
    lang: str,
):
    trajectories, horizons = _horizons(mass_g, area_cm2, cd, rho, wind, t_fit, tol_m)
    return (
        figures.horizon_bars(horizons, n_forces),
        figures.system_prediction(trajectories[n_forces - 1], horizons[n_forces - 1]),
        figures.prediction_errors(trajectories[0].t, horizons, n_forces),
    )


def _tiles(tiles: list[Tile]) -> None:
    for col, tile in zip(st.columns(len(tiles)), tiles):
        col.metric(
            tile.label,
            tile.value,
            delta=tile.delta,
            delta_color="off",
            help=t(f"help-{tile.help}", **tile.values) if tile.help else None,
        )


def _forces_section(name: str, obj: tuple[float, float, float], rho: float) -> None:
    """Understand: the same object with more forces, and how far ahead a fitted model stays right (slide 6)."""
    say("forces-intro", name=figures.object_name(name))
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns(4)
        n_forces = params.slider(t("label-forces"), "forces", 1, len(physics.FORCES), len(physics.FORCES), where=c1)
        t_fit = params.slider(t("label-fit-s"), "fit_s", 0.1, 2.0, 0.5, step=0.05, where=c2)
        tol_m = params.select_slider(t("label-tol-m"), "tol_m", TOL_M, 0.1, where=c3)
        wind = params.slider(t("label-wind"), "wind", 0.0, 10.0, 3.0, step=0.5, where=c4, help=t("help-wind"))
        st.caption(t("acting-now", forces=view.forces_text(n_forces)))
    try:
        horizons = _horizons(*obj, rho, wind, t_fit, tol_m)[1]
    except ValueError as err:
        st.warning(t("no-simulation", error=err))
        return
    _tiles(view.horizon_tiles(horizons[n_forces - 1]))
    horizon_figure, system_figure, errors_figure = _system_figures(
        *obj, rho, wind, t_fit, tol_m, n_forces, i18n.current()
    )
    render.figure(horizon_figure, key="method-horizon", notice=t("horizon-notice"))
    if gains := view.gains(horizons):
        st.info(t("gains", forces=gains))
    render.figure(system_figure, key="method-system", notice=t("system-notice"))
    render.figure(errors_figure, key="method-errors", notice=t("errors-notice"))


def _argument_section() -> None:
    """The method in the lecture: identify, understand, roll forward, each linked to the page that measures it."""
    say("intro")
    identify, understand, roll = st.columns(3)
    with identify.container(border=True):
        st.subheader(t("heading-identify"))
        say("identify")
        say("compute-rate", **_compute_rates(i18n.current()))
        page_link("compute", t("link-compute"))
    with understand.container(border=True):
        st.subheader(t("heading-understand"))
        say("understand")
        page_link("inductive-bias", t("link-inductive-bias"))
    with roll.container(border=True):
        st.subheader(t("heading-roll"))
        say("roll-forward")


header("method")
say("lead")
figure_col, controls_col = layout.stage(figure_share=FIGURE_SHARE)
with controls_col:
    name = params.choice(
        t("label-object"), "object", list(physics.OBJECTS), view.DEFAULT_OBJECT, format_func=figures.object_name
    )
    height = float(params.select_slider(t("label-height"), "height", HEIGHTS, view.DEFAULT_HEIGHT_M))
    tol_cm = params.select_slider(t("label-tol-cm"), "tol_cm", TOL_CM, view.DEFAULT_TOL_CM)
    base_mass, base_area, base_cd = view.textbook_units(name)
    with st.expander(t("more-settings")):
        v0 = params.slider(t("label-v0"), "v0", 0.0, 20.0, 0.0, step=0.5)
        rho = params.slider(t("label-rho"), "rho", 0.0, 1.5, physics.AIR_DENSITY, step=0.05, help=t("help-rho"))
        lo, hi, step, fmt = view.edit_range(base_mass)
        mass_g = params.slider(t("label-mass"), f"mass_{name}", lo, hi, base_mass, step=step, format=fmt)
        lo, hi, step, fmt = view.edit_range(base_area)
        area_cm2 = params.slider(t("label-area"), f"area_{name}", lo, hi, base_area, step=step, format=fmt)
        cd = params.slider(t("label-cd"), f"cd_{name}", 0.0, 2.5, base_cd, step=0.01)
        tol_pct = params.select_slider(t("label-tol-pct"), "tol_pct", TOL_PCT, 1)
        st.caption(t("source", name=figures.object_name(name), source=t(f"object-source-{name}")))

tol_abs, tol_rel = tol_cm / 100, tol_pct / 100
obj = (mass_g, area_cm2, cd)
with figure_col:
    try:
        fall = _fall(*obj, rho, v0, height)
        cross_abs, cross_rel = _crossings(*obj, rho, v0, tol_abs, tol_rel)
    except ValueError as err:
        st.warning(t("no-simulation", error=err))
        st.stop()
    render.figure(_fall_figure(name, *obj, rho, v0, height, i18n.current()), key="method-fall", notice=t("fall-notice"))
    kind, values = view.takeaway(name, height, fall, tol_abs, cross_abs)
    say(f"takeaway-{kind}", **values)

argument_tab, gravity_tab, forces_tab = layout.sections([t("tab-argument"), t("tab-gravity"), t("tab-forces")])
if gravity_tab:
    with gravity_tab:  # identify: the formulas, the fall in numbers, the formula's error, every object
        st.latex(t("equations"))
        _tiles(view.fall_tiles(view.custom_object(*obj), rho, height, fall, tol_abs, tol_pct, cross_abs, cross_rel))
        error_figure, heights_figure = _gravity_figures(name, *obj, rho, v0, height, tol_abs, tol_rel, i18n.current())
        render.figure(error_figure, key="method-error", notice=t("error-notice"))
        render.figure(heights_figure, key="method-heights", notice=t("heights-notice", name=figures.object_name(name)))
if forces_tab:
    with forces_tab:
        _forces_section(name, obj, rho)
if argument_tab:
    with argument_tab:
        _argument_section()
