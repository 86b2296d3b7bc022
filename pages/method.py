"""Method: identify, understand, roll forward, measured on a falling object (slides 2-6)."""

from __future__ import annotations

import math

import streamlit as st

from explorer import physics, trend
from explorer.figures import method as figures
from explorer.figures.method import length_text
from ui import layout, params, render
from ui.frame import header, page_link
from ui.text import say, t

HEIGHTS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]  # m; ints where whole keep the URL clean
TOL_CM = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50]
TOL_PCT = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20]
TOL_M = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1]
DURATION = 5.0  # s simulated in the more-forces system
WINDOWS = ((1950, 2025), (1900, 2025), (2006, 2025))  # compute-per-dollar fit windows quoted at the end
FIRST_SCREEN_HEIGHT = 420  # px: the fall, its notice and the takeaway on a 1440x900 screen
FIGURE_SHARE = 2.5  # the figure's share of the width: the four objects' buttons fit beside it


# ----------------------------------------------------------------------------------------------- cached calls


def _object(mass_g: float, area_cm2: float, cd: float) -> physics.FallingObject:
    return physics.FallingObject("custom", mass=mass_g / 1000, area=area_cm2 / 1e4, cd=cd)


@st.cache_data(show_spinner=False, max_entries=64)
def _fall(mass_g: float, area_cm2: float, cd: float, rho: float, v0: float, height: float) -> physics.Fall:
    return physics.simulate_fall(_object(mass_g, area_cm2, cd), height, v0=v0, rho=rho)


@st.cache_data(show_spinner=False, max_entries=512)
def _crossing(mass_g: float, area_cm2: float, cd: float, rho: float, v0: float, tol: float,
              relative: bool) -> physics.Crossing | None:
    return physics.tolerance_height(_object(mass_g, area_cm2, cd), tol, relative=relative, v0=v0, rho=rho)


@st.cache_data(show_spinner=False, max_entries=128)
def _trajectory(mass_g: float, area_cm2: float, cd: float, rho: float, wind: float,
                n_forces: int) -> physics.Trajectory:
    system = physics.ForceSystem(_object(mass_g, area_cm2, cd), n_forces=n_forces, rho=rho, wind=wind)
    return physics.simulate_system(system, DURATION)


@st.cache_data(show_spinner=False)
def _compute_rates() -> list[tuple[int, int, float, str]]:
    """Years per 10x of compute per dollar for a few fit windows, from the compute page's library."""
    df = trend.load()
    rates = []
    for start, end in WINDOWS:
        _, fit, _ = trend.fit_window(df, trend.MAIN_SERIES, trend.FP32, start, end, n_boot=0)
        rates.append((start, end, fit.years_per_10x, trend.interval_text(*fit.years_per_10x_ci)))
    return rates


@st.cache_data(show_spinner=False, max_entries=128)
def _horizons(mass_g: float, area_cm2: float, cd: float, rho: float, wind: float, t_fit: float,
              tol_m: float) -> tuple[list[physics.Trajectory], list[physics.Horizon]]:
    trajectories = [_trajectory(mass_g, area_cm2, cd, rho, wind, n) for n in range(1, len(physics.FORCES) + 1)]
    horizons = [physics.prediction_horizon(tr, t_fit, tol_m, n) for n, tr in enumerate(trajectories, start=1)]
    return trajectories, horizons


# Figures take longer to build than to copy out of the cache, so each view's figures are built once.
@st.cache_data(show_spinner=False, max_entries=64)
def _fall_figure(name: str, mass_g: float, area_cm2: float, cd: float, rho: float, v0: float, height: float):
    return figures.fall_position(_fall(mass_g, area_cm2, cd, rho, v0, height), name, v0, height=FIRST_SCREEN_HEIGHT)


@st.cache_data(show_spinner=False, max_entries=64)
def _error_figure(mass_g: float, area_cm2: float, cd: float, rho: float, v0: float, height: float, tol_abs: float,
                  tol_rel: float):
    fall = _fall(mass_g, area_cm2, cd, rho, v0, height)
    cross_abs = _crossing(mass_g, area_cm2, cd, rho, v0, tol_abs, False)
    cross_rel = _crossing(mass_g, area_cm2, cd, rho, v0, tol_rel, True)
    return figures.fall_error(fall, tol_abs, tol_rel, cross_abs, cross_rel)


@st.cache_data(show_spinner=False, max_entries=64)
def _heights_figure(name: str, mass_g: float, area_cm2: float, cd: float, rho: float, v0: float, tol_abs: float,
                    tol_rel: float, height: float):
    rows = []
    for key, default in physics.OBJECTS.items():
        m, a, c = (mass_g, area_cm2, cd) if key == name else (default.mass * 1000, default.area * 1e4, default.cd)
        rows.append(figures.ObjectHeights(key, _crossing(m, a, c, rho, v0, tol_abs, False),
                                          _crossing(m, a, c, rho, v0, tol_rel, True)))
    return figures.tolerance_heights(rows, tol_abs, tol_rel, height, physics.MAX_HEIGHT)


@st.cache_data(show_spinner=False, max_entries=64)
def _system_figures(mass_g: float, area_cm2: float, cd: float, rho: float, wind: float, t_fit: float, tol_m: float,
                    n_forces: int):
    trajectories, horizons = _horizons(mass_g, area_cm2, cd, rho, wind, t_fit, tol_m)
    return (figures.horizon_bars(horizons, n_forces),
            figures.system_prediction(trajectories[n_forces - 1], horizons[n_forces - 1]),
            figures.prediction_errors(trajectories[0].t, horizons, n_forces))


def _edit_range(default: float) -> tuple[float, float, float, str]:
    """Slider range from a tenth to ten times the textbook value, on a step grid that holds the default."""
    exponent = math.floor(math.log10(default)) - 2
    step = 10.0 ** exponent
    lo = round(math.ceil(default / 10 / step) * step, 12)
    return lo, round(default * 10, 12), step, f"%.{max(0, -exponent)}f"



def _delay_text(late: float) -> str:
    return f"{late * 1000:.1f} ms" if abs(late) < 1 else f"{late:.2f} s"


def _takeaway(name: str, height: float, fall: physics.Fall, tol_abs: float, cross: physics.Crossing | None) -> None:
    """One sentence under the figure: how late the object lands, and whether drag may be ignored at this tolerance."""
    values = dict(drop=length_text(height), name=name, delay=_delay_text(fall.t_land - fall.t_land_formula),
                  tol=length_text(tol_abs))
    if cross is None:
        say("takeaway-never", max=length_text(physics.MAX_HEIGHT), **values)
    elif cross.height >= height:
        say("takeaway-within", off=length_text(cross.height), **values)
    else:
        say("takeaway-beyond", off=length_text(cross.height), **values)


def _gravity_section(name: str, mass_g: float, area_cm2: float, cd: float, rho: float, v0: float, height: float,
                     tol_abs: float, tol_rel: float, tol_pct: float, fall: physics.Fall,
                     cross_abs: physics.Crossing | None, cross_rel: physics.Crossing | None) -> None:
    """Identify: the formulas, the fall in numbers, the formula's error, and every object at this tolerance."""
    st.latex(t("equations"))
    vt = _object(mass_g, area_cm2, cd).terminal_velocity(rho)
    never = f"never within {length_text(physics.MAX_HEIGHT)}"
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Terminal speed", "none (no drag)" if math.isinf(vt) else f"{vt:.3g} m/s", help=t("help-terminal"))
    late = fall.t_land - fall.t_land_formula
    m2.metric(f"Time to fall {length_text(height)}", f"{fall.t_land:.3f} s", delta_color="off",
              delta=f"{late * 1000:+.1f} ms vs formula" if abs(late) < 1 else f"{late:+.2f} s vs formula")
    m3.metric(f"Formula off by {length_text(tol_abs)} after", length_text(cross_abs.height) if cross_abs else never,
              help=t("help-off-abs"))
    m4.metric(f"Formula off by {tol_pct:g}% after", length_text(cross_rel.height) if cross_rel else never,
              help=t("help-off-rel"))
    render.figure(_error_figure(mass_g, area_cm2, cd, rho, v0, height, tol_abs, tol_rel), key="method-error",
                  notice=t("error-notice"))
    render.figure(_heights_figure(name, mass_g, area_cm2, cd, rho, v0, tol_abs, tol_rel, height),
                  key="method-heights", notice=t("heights-notice", name=name))


def _forces_section(name: str, mass_g: float, area_cm2: float, cd: float, rho: float) -> None:
    """Understand: the same object with more forces, and how far ahead a fitted model stays right (slide 6)."""
    say("forces-intro", name=name)
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns(4)
        n_forces = params.slider("Number of forces", "forces", 1, len(physics.FORCES), len(physics.FORCES),
                                 where=c1)
        t_fit = params.slider("Observed part, fitted (s)", "fit_s", 0.1, 2.0, 0.5, step=0.05, where=c2)
        tol_m = params.select_slider("Tolerance (m)", "tol_m", TOL_M, 0.1, where=c3)
        wind = params.slider("Mean cross-wind (m/s)", "wind", 0.0, 10.0, 3.0, step=0.5, where=c4,
                             help=t("help-wind"))
        st.caption(t("acting-now", forces=" + ".join(physics.FORCES[:n_forces])))
    try:
        horizons = _horizons(mass_g, area_cm2, cd, rho, wind, t_fit, tol_m)[1]
    except ValueError as err:
        st.warning(t("no-simulation", error=err))
        return
    now = horizons[n_forces - 1]
    m1, m2, m3 = st.columns(3)
    m1.metric(f"Horizon with {n_forces} force{'s' if n_forces > 1 else ''}",
              (f"≥ {now.horizon:.2f} s" if now.censored else f"{now.horizon:.2f} s"),
              help=t("help-horizon", duration=DURATION))
    m2.metric("Fitted downward acceleration", f"{now.acceleration[1]:.2f} m/s²",
              delta=f"{now.acceleration[1] - physics.G:+.2f} vs g", delta_color="off")
    m3.metric("Where the prediction fails", "never in this run" if now.censored else
              f"{now.t_fit + now.horizon:.2f} s after release")
    horizon_figure, system_figure, errors_figure = _system_figures(mass_g, area_cm2, cd, rho, wind, t_fit, tol_m,
                                                                   n_forces)
    render.figure(horizon_figure, key="method-horizon", notice=t("horizon-notice"))
    gains = [figures.force_label(b.n_forces) for a, b in zip(horizons, horizons[1:])
             if not a.censored and b.horizon > max(1.05 * a.horizon, a.horizon + 0.01)]  # beyond the time grid
    if gains:
        st.info(t("gains", forces=" and ".join(gains)))
    render.figure(system_figure, key="method-system", notice=t("system-notice"))
    render.figure(errors_figure, key="method-errors", notice=t("errors-notice"))


def _argument_section() -> None:
    """The method in the lecture: identify, understand, roll forward, each linked to the page that measures it."""
    say("intro")
    identify, understand, roll = st.columns(3)
    with identify.container(border=True):
        st.subheader("Identify: compute per dollar")
        say("identify")
        rates = _compute_rates()
        if rates:
            start, end, years, ci = rates[0]
            others = "; ".join(f"{s}-{e}: {y:.1f} years" for s, e, y, _ in rates[1:])
            say("compute-rate", start=start, end=end, years=years, ci=ci, others=others)
        page_link("compute", "Compute per dollar: the fitted rate and how it moves with the window")
    with understand.container(border=True):
        st.subheader("Understand: inductive bias")
        say("understand")
        page_link("inductive-bias", "Inductive-bias crossover: where less structure overtakes more")
    with roll.container(border=True):
        st.subheader("Roll forward, with failure conditions")
        say("roll-forward")


# ----------------------------------------------------------------------------------------------- page

header("method")
say("lead")
figure_col, controls_col = layout.stage(figure_share=FIGURE_SHARE)
with controls_col:
    name = params.choice("Object", "object", list(physics.OBJECTS), "pen")
    height = float(params.select_slider("Drop height (m)", "height", HEIGHTS, 2))
    tol_cm = params.select_slider("Tolerance (cm)", "tol_cm", TOL_CM, 1)
    base = physics.OBJECTS[name]
    with st.expander("More settings: speed, air, the object's numbers"):
        v0 = params.slider("Initial downward speed v₀ (m/s)", "v0", 0.0, 20.0, 0.0, step=0.5)
        rho = params.slider("Air density ρ (kg/m³)", "rho", 0.0, 1.5, physics.AIR_DENSITY, step=0.05,
                            help=t("help-rho"))
        lo, hi, step, fmt = _edit_range(base.mass * 1000)
        mass_g = params.slider("Mass (g)", f"mass_{name}", lo, hi, round(base.mass * 1000, 12), step=step,
                               format=fmt)
        lo, hi, step, fmt = _edit_range(base.area * 1e4)
        area_cm2 = params.slider("Area facing the air (cm²)", f"area_{name}", lo, hi, round(base.area * 1e4, 12),
                                 step=step, format=fmt)
        cd = params.slider("Drag coefficient C_d", f"cd_{name}", 0.0, 2.5, base.cd, step=0.01)
        tol_pct = params.select_slider("Tolerance (% of distance)", "tol_pct", TOL_PCT, 1)
        st.caption(t("source", name=name, source=base.source))

tol_abs, tol_rel = tol_cm / 100, tol_pct / 100
with figure_col:
    try:
        fall = _fall(mass_g, area_cm2, cd, rho, v0, height)
        cross_abs = _crossing(mass_g, area_cm2, cd, rho, v0, tol_abs, False)
        cross_rel = _crossing(mass_g, area_cm2, cd, rho, v0, tol_rel, True)
    except ValueError as err:
        st.warning(t("no-simulation", error=err))
        st.stop()
    render.figure(_fall_figure(name, mass_g, area_cm2, cd, rho, v0, height), key="method-fall",
                  notice=t("fall-notice"))
    _takeaway(name, height, fall, tol_abs, cross_abs)

argument_tab, gravity_tab, forces_tab = layout.sections(
    ["The method in the lecture", "When gravity alone is enough", "More forces, less predictability"])
if gravity_tab:
    with gravity_tab:
        _gravity_section(name, mass_g, area_cm2, cd, rho, v0, height, tol_abs, tol_rel, tol_pct, fall, cross_abs,
                         cross_rel)
if forces_tab:
    with forces_tab:
        _forces_section(name, mass_g, area_cm2, cd, rho)
if argument_tab:
    with argument_tab:
        _argument_section()
