"""Method: identify, understand, roll forward, measured on a falling object (slides 2-6)."""

from __future__ import annotations

import math

import streamlit as st

from explorer import physics, trend
from explorer.figures import method as figures
from explorer.figures.method import length_text
from ui import params, render
from ui.frame import header, page_link

HEIGHTS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]  # m; ints where whole keep the URL clean
TOL_CM = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50]
TOL_PCT = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20]
TOL_M = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1]
DURATION = 5.0  # s simulated in the more-forces system
WINDOWS = ((1950, 2025), (1900, 2025), (2006, 2025))  # compute-per-dollar fit windows quoted at the end


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
def _fall_figures(name: str, mass_g: float, area_cm2: float, cd: float, rho: float, v0: float, height: float,
                  tol_abs: float, tol_rel: float):
    fall = _fall(mass_g, area_cm2, cd, rho, v0, height)
    cross_abs = _crossing(mass_g, area_cm2, cd, rho, v0, tol_abs, False)
    cross_rel = _crossing(mass_g, area_cm2, cd, rho, v0, tol_rel, True)
    return figures.fall_position(fall, name, v0), figures.fall_error(fall, tol_abs, tol_rel, cross_abs, cross_rel)


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


# ----------------------------------------------------------------------------------------------- page

header("method")
st.markdown(
    "The lecture opens with a way of working rather than a model. When a field moves faster than anyone can "
    "follow, **identify** the force that drives most of the change, **understand** how that force shifts what "
    "works, and **roll it forward**, saying how far off the forecast may be (slide 3). Its example is a dropped "
    "pen (slide 4): air pushes back on the pen, yet gravity alone predicts the fall well. Ignoring a force is "
    "a claim with a size, *the error is below what I care about*, and this page measures that size."
)

# --- 1 · the falling-object lab ------------------------------------------------------------------------------
st.header("1 · Identify: when is gravity alone enough?")
st.latex(r"\text{model (slide 4):}\quad y(t) = y_0 + v_0 t + \tfrac12 g t^2"
         r"\qquad\text{simulation:}\quad m\,\dot v = m g - \tfrac12 \rho\, C_d A\, v\,|v|")

with st.container(border=True):
    c1, c2, c3, c4 = st.columns([1.4, 1, 1, 1])
    name = params.choice("Object", "object", list(physics.OBJECTS), "pen", where=c1)
    height = params.select_slider("Drop height (m)", "height", HEIGHTS, 2, where=c2)
    v0 = params.slider("Initial downward speed v₀ (m/s)", "v0", 0.0, 20.0, 0.0, step=0.5, where=c3)
    rho = params.slider("Air density ρ (kg/m³)", "rho", 0.0, 1.5, physics.AIR_DENSITY, step=0.05, where=c4,
                        help="1.2 kg/m³ is dry air near sea level at about 20 °C; 0 removes the air, and the drag.")
    base = physics.OBJECTS[name]
    c1, c2, c3, c4, c5 = st.columns(5)
    lo, hi, step, fmt = _edit_range(base.mass * 1000)
    mass_g = params.slider("Mass (g)", f"mass_{name}", lo, hi, round(base.mass * 1000, 12), step=step,
                           format=fmt, where=c1)
    lo, hi, step, fmt = _edit_range(base.area * 1e4)
    area_cm2 = params.slider("Area facing the air (cm²)", f"area_{name}", lo, hi, round(base.area * 1e4, 12),
                             step=step, format=fmt, where=c2)
    cd = params.slider("Drag coefficient C_d", f"cd_{name}", 0.0, 2.5, base.cd, step=0.01, where=c3)
    tol_cm = params.select_slider("Tolerance (cm)", "tol_cm", TOL_CM, 1, where=c4)
    tol_pct = params.select_slider("Tolerance (% of distance)", "tol_pct", TOL_PCT, 1, where=c5)
    st.caption(f"**Where the {name}'s numbers come from.** {base.source} Each value can be changed within a "
               "factor of ten of the textbook one.")

tol_abs, tol_rel = tol_cm / 100, tol_pct / 100
try:
    fall = _fall(mass_g, area_cm2, cd, rho, v0, float(height))
    cross_abs = _crossing(mass_g, area_cm2, cd, rho, v0, tol_abs, False)
    cross_rel = _crossing(mass_g, area_cm2, cd, rho, v0, tol_rel, True)
except ValueError as err:
    st.warning(f"These settings cannot be simulated: {err}")
    st.stop()

obj = _object(mass_g, area_cm2, cd)
vt = obj.terminal_velocity(rho)
never = f"never within {length_text(physics.MAX_HEIGHT)}"
m1, m2, m3, m4 = st.columns(4)
m1.metric("Terminal speed", "none (no drag)" if math.isinf(vt) else f"{vt:.3g} m/s",
          help="√(2mg / ρC_dA): the speed at which drag balances gravity.")
late = fall.t_land - fall.t_land_formula
m2.metric(f"Time to fall {length_text(float(height))}", f"{fall.t_land:.3f} s", delta_color="off",
          delta=f"{late * 1000:+.1f} ms vs formula" if abs(late) < 1 else f"{late:+.2f} s vs formula")
m3.metric(f"Formula off by {length_text(tol_abs)} after", length_text(cross_abs.height) if cross_abs else never,
          help="Distance fallen when gravity-only first places the object this far ahead of the simulation.")
m4.metric(f"Formula off by {tol_pct:g}% after", length_text(cross_rel.height) if cross_rel else never,
          help="Distance fallen when the formula's error first reaches this share of the distance fallen.")

fall_figure, error_figure = _fall_figures(name, mass_g, area_cm2, cd, rho, v0, float(height), tol_abs, tol_rel)
render.figure(fall_figure, key="method-fall",
              notice="Solid: the equations of motion with drag, integrated numerically (a model with textbook "
                     "inputs, not a lab measurement). Dashed: the slide-4 formula. For a pen dropped from hand "
                     "height the two are hard to tell apart: that is what lets the lecture ignore drag (slide 4).")
render.figure(error_figure, key="method-error",
              notice="The formula's error grows like the square of the distance fallen at first (a straight line "
                     "of slope 2 on these log axes), so whether drag may be ignored depends on both the drop and "
                     "the precision you need.")

render.figure(_heights_figure(name, mass_g, area_cm2, cd, rho, v0, tol_abs, tol_rel, float(height)),
              key="method-heights",
              notice=f"The same question for every object ({name} with your edits, the others with textbook "
                     "values). At 1 cm, a pen or a ball may fall more than half a metre before gravity alone is "
                     "off; a sheet of paper or a feather only a few centimetres: for them drag is a dominant force "
                     "too.")

# --- 2 · more forces ---------------------------------------------------------------------------------------------
st.header("2 · Understand: more forces, less predictability")
st.markdown(
    f"Slide 6 claims that the more forces interact, the harder the path is to predict. Here the {name} from "
    "above falls in a vertical plane and forces join one at a time: air drag, a gusty cross-wind (it acts "
    "through the drag, on the speed relative to the air), and a light, draggy second body tied on by a "
    "damped spring. You watch the first part of the fall and fit the simplest model that could explain it, "
    "constant acceleration, as if you only knew the slide-4 formula but let g be fitted. How long after "
    "the observed part does its prediction stay within the tolerance?"
)
with st.container(border=True):
    c1, c2, c3, c4 = st.columns(4)
    n_forces = params.slider("Number of forces", "forces", 1, len(physics.FORCES), len(physics.FORCES), where=c1)
    t_fit = params.slider("Observed part, fitted (s)", "fit_s", 0.1, 2.0, 0.5, step=0.05, where=c2)
    tol_m = params.select_slider("Tolerance (m)", "tol_m", TOL_M, 0.1, where=c3)
    wind = params.slider("Mean cross-wind (m/s)", "wind", 0.0, 10.0, 3.0, step=0.5, where=c4,
                         help="Gusts add ±50% with a 2 s period.")
    st.caption("Acting now: " + " + ".join(physics.FORCES[:n_forces]) + ". The second body has half the "
               "object's mass and four times its drag area, on a spring of 0.5 m rest length that swings with "
               "a 1 s period (5% damping).")

try:
    horizons = _horizons(mass_g, area_cm2, cd, rho, wind, t_fit, tol_m)[1]
except ValueError as err:
    st.warning(f"These settings cannot be simulated: {err}")
    st.stop()

now = horizons[n_forces - 1]
m1, m2, m3 = st.columns(3)
m1.metric(f"Horizon with {n_forces} force{'s' if n_forces > 1 else ''}",
          (f"≥ {now.horizon:.2f} s" if now.censored else f"{now.horizon:.2f} s"),
          help="How long after the fitted part the prediction stays within the tolerance; ≥ means it is still "
               f"within when the {DURATION:g} s simulation ends.")
m2.metric("Fitted downward acceleration", f"{now.acceleration[1]:.2f} m/s²",
          delta=f"{now.acceleration[1] - physics.G:+.2f} vs g", delta_color="off")
m3.metric("Where the prediction fails", "never in this run" if now.censored else
          f"{now.t_fit + now.horizon:.2f} s after release")

horizon_figure, system_figure, errors_figure = _system_figures(mass_g, area_cm2, cd, rho, wind, t_fit, tol_m,
                                                               n_forces)
render.figure(horizon_figure, key="method-horizon",
              notice="Slide 6, measured: with gravity alone the fitted model is exact; each interacting force "
                     "shortens how far ahead it can be trusted. Bars to the right of your setting are shown pale.")
gains = [figures.force_label(b.n_forces) for a, b in zip(horizons, horizons[1:])
         if not a.censored and b.horizon > max(1.05 * a.horizon, a.horizon + 0.01)]  # beyond the time grid
if gains:
    st.info(f"Here adding {' and '.join(gains)} made the horizon *longer*: a new force can partly cancel the "
            "error of the others. Slide 6 states a tendency, not a law.")
render.figure(system_figure, key="method-system",
              notice="The grey band is what you observed. Dashed is the constant-acceleration model fitted to it; "
                     "it keeps accelerating where drag has already slowed the object, and it cannot know the "
                     "gusts or the spring that are still to come.")
render.figure(errors_figure, key="method-errors",
              notice="Each dot is where a line crosses the tolerance: the horizon of the bar chart above, "
                     "measured from the end of the grey band.")

# --- 3 · the method in the lecture --------------------------------------------------------------------------------
st.header("3 · The method in the lecture's argument")
identify, understand, roll = st.columns(3)
with identify.container(border=True):
    st.subheader("Identify: compute per dollar")
    st.write("The lecture's dominant force is the falling cost of computation (slide 7): the gravity of AI "
             "research, strong enough that other forces may be ignored at the precision of a research plan.")
    rates = _compute_rates()
    if rates:
        start, end, years, ci = rates[0]
        others = "; ".join(f"{s}-{e}: {y:.1f} years" for s, e, y, _ in rates[1:])
        st.write(f"Fitted on the main series, {start}-{end}: **10× every {years:.2f} years** (95% interval "
                 f"{ci}). The rate depends on the window ({others}): choosing the window is part of the model.")
    page_link("compute", "Compute per dollar: the fitted rate and how it moves with the window")
with understand.container(border=True):
    st.subheader("Understand: inductive bias")
    st.write("Drag mattered for the feather but not for the pen. Structure built into a model (an inductive "
             "bias) is like that: it helps when compute is scarce and turns into a ceiling when compute is "
             "plentiful, so the best amount of structure moves with the force (slides 10, 13-15).")
    page_link("inductive-bias", "Inductive-bias crossover: where less structure overtakes more")
with roll.container(border=True):
    st.subheader("Roll forward, with failure conditions")
    st.write("The lecture extrapolates: compute keeps getting cheaper, so methods with less structure keep "
             "gaining. Like the fitted fall, that forecast holds only while no new force joins. Candidates: "
             "**energy** (power for data centres), **fabrication** (how far chips can still shrink, and fab "
             "capacity), **capital** (who can pay for the runs). If one of them starts to dominate, the regime "
             "has changed: identify the force again and re-model, rather than stretching the old line.")
