"""The falling pen of slides 4-6, as equations of motion: when may a force be ignored, and for how long?

Two pieces, both integrated numerically with scipy's `solve_ivp` (a numerical model, not a lab measurement):

1. **One falling object** (slide 4). Down is positive and `y` is the distance fallen. With quadratic air
   drag the equation of motion is

       dy/dt = v,    dv/dt = g - k v|v|,    k = rho Cd A / (2 m)   [1/m]

   and the model that ignores drag is the slide's formula y(t) = y0 + v0 t + g t^2 / 2 (here y0 = 0).
   `tolerance_height` finds how far the object falls before that formula is off by more than a chosen
   tolerance (absolute, in metres, or relative to the distance fallen).

2. **More forces** (slide 6). The same object in a plane (x downwind, y down), with forces added one at a
   time in the order of `FORCES`: gravity, quadratic air drag, a gusty cross-wind (acting through the drag
   on the velocity relative to the air), and a second body tied on by a damped spring. A constant-acceleration
   model is least-squares fitted on the first `t_fit` seconds and extrapolated; the **horizon** is how long
   after the fit window its prediction stays within a tolerance of the simulated position.

Default objects use typical textbook numbers (sources in `FallingObject.source`); all are editable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.integrate import solve_ivp

G = 9.81  # m/s^2, standard gravity (rounded)
AIR_DENSITY = 1.2  # kg/m^3, dry air near sea level at about 20 °C
MAX_HEIGHT = 10_000.0  # m: longest drop simulated, and where the tolerance search gives up
MAX_SPEED = 100.0  # m/s: largest initial downward speed accepted
RTOL, ATOL = 1e-10, 1e-12  # solver tolerances for the single fall (metres, seconds)


# ----------------------------------------------------------------------------------------------- objects


@dataclass(frozen=True)
class FallingObject:
    name: str
    mass: float  # kg
    area: float  # m^2, cross-section facing the flow
    cd: float  # drag coefficient, dimensionless
    source: str = ""  # where the numbers come from

    def drag_rate(self, rho: float = AIR_DENSITY) -> float:
        """k = rho Cd A / (2 m) in 1/m: the drag deceleration is k v^2."""
        return rho * self.cd * self.area / (2 * self.mass)

    def terminal_velocity(self, rho: float = AIR_DENSITY, g: float = G) -> float:
        """sqrt(2 m g / (rho Cd A)); infinite without drag."""
        k = self.drag_rate(rho)
        return math.sqrt(g / k) if k > 0 else math.inf


OBJECTS = {
    "pen": FallingObject(
        "pen",
        mass=0.010,
        area=14e-4,
        cd=1.0,
        source="A 10 g ballpoint pen, 14 cm long and 1 cm thick, falling broadside (14 cm²). Cd 1.0: a long "
        "cylinder across the flow has Cd about 1.0-1.2 at these speeds (textbook drag tables, e.g. "
        "White, Fluid Mechanics, ch. 7). Tip first it would meet about 20 times less drag.",
    ),
    "ball": FallingObject(
        "ball",
        mass=0.057,
        area=35.3e-4,
        cd=0.55,
        source="A tennis ball: 57 g and 6.7 cm across (within the ITF limits of 56.0-59.4 g and 6.54-6.86 cm), "
        "so 35.3 cm². Cd 0.55: a smooth sphere has about 0.47 below the drag crisis; the felt of a "
        "tennis ball raises it to about 0.5-0.6 in wind-tunnel measurements.",
    ),
    "paper": FallingObject(
        "paper",
        mass=0.0050,
        area=624e-4,
        cd=1.17,
        source="A flat A4 sheet of 80 g/m² paper: 5.0 g over 624 cm². Cd 1.17: a flat plate broadside to the "
        "flow (textbook drag tables). A real sheet flutters and tumbles; the model keeps it flat.",
    ),
    "feather": FallingObject(
        "feather",
        mass=3e-5,
        area=20e-4,
        cd=1.3,
        source="A small feather: 0.03 g over 20 cm². A feather has no textbook Cd; 1.3 is an effective value "
        "chosen so the terminal speed (about 0.43 m/s) lies in the 0.3-0.5 m/s typical of small feathers.",
    ),
}


def check_fall(
    obj: FallingObject, rho: float = AIR_DENSITY, height: float | None = None, v0: float = 0.0, g: float = G
) -> None:
    """Raise ValueError naming the first unusable input (the page shows the message)."""
    if not (obj.mass > 0 and math.isfinite(obj.mass)):
        raise ValueError(f"mass must be a positive number of kilograms, not {obj.mass!r}")
    if not (obj.area > 0 and math.isfinite(obj.area)):
        raise ValueError(f"area must be a positive number of square metres, not {obj.area!r}")
    if not (obj.cd >= 0 and math.isfinite(obj.cd)):
        raise ValueError(f"drag coefficient must be zero or positive, not {obj.cd!r}")
    if not (rho >= 0 and math.isfinite(rho)):
        raise ValueError(f"air density must be zero or positive, not {rho!r}")
    if not (g > 0 and math.isfinite(g)):
        raise ValueError(f"gravity must be positive, not {g!r}")
    if not (0 <= v0 <= MAX_SPEED):
        raise ValueError(f"initial downward speed must be between 0 and {MAX_SPEED:g} m/s, not {v0!r}")
    if height is not None and not (0 < height <= MAX_HEIGHT):
        raise ValueError(f"drop height must be above 0 and at most {MAX_HEIGHT:g} m, not {height!r}")


# ----------------------------------------------------------------------------------------------- one fall


def gravity_only(t, v0: float = 0.0, g: float = G, y0: float = 0.0):
    """The slide-4 formula y(t) = y0 + v0 t + g t^2 / 2 (down positive)."""
    t = np.asarray(t, float)
    return y0 + v0 * t + 0.5 * g * t**2


def _fall_rhs(k: float, g: float):
    def rhs(t, s):
        return [s[1], g - k * s[1] * abs(s[1])]

    return rhs


def _time_bound(height: float, v0: float, k: float, g: float) -> float:
    """A time by which the object has surely fallen `height` (the solver stops at the event well before)."""
    free = math.sqrt(2 * height / g)
    if k == 0:
        return free + 1.0
    vt = math.sqrt(g / k)
    # from rest y(t) >= vt t - vt^2 ln2 / g; starting faster only shortens the fall
    return free + height / vt + vt / g + 1.0


def _solve_fall(obj: FallingObject, height: float, v0: float, rho: float, g: float, events=()):
    k = obj.drag_rate(rho)

    def landed(t, s):
        return s[0] - height

    landed.terminal, landed.direction = True, 1
    return solve_ivp(
        _fall_rhs(k, g),
        (0.0, _time_bound(height, v0, k, g)),
        [0.0, v0],
        method="LSODA",
        events=[landed, *events],
        dense_output=True,
        rtol=RTOL,
        atol=ATOL,
    )


@dataclass(frozen=True)
class Fall:
    """A simulated drop sampled on a time grid, and the gravity-only formula on the same grid."""

    t: np.ndarray  # s
    y: np.ndarray  # m fallen, simulated
    v: np.ndarray  # m/s, simulated
    y_formula: np.ndarray  # m fallen, gravity only
    height: float  # m, the drop
    t_land: float  # s, simulated time to fall `height`
    t_land_formula: float  # s, the formula's time to fall `height`

    @property
    def error(self) -> np.ndarray:
        """How far the formula is ahead of the simulation, in metres (>= 0: drag only slows)."""
        return self.y_formula - self.y

    @property
    def relative_error(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.y > 0, self.error / np.where(self.y > 0, self.y, 1.0), 0.0)


def formula_fall_time(height: float, v0: float = 0.0, g: float = G) -> float:
    """Solve v0 t + g t^2 / 2 = height for t >= 0."""
    return (-v0 + math.sqrt(v0 * v0 + 2 * g * height)) / g


def simulate_fall(
    obj: FallingObject, height: float, v0: float = 0.0, rho: float = AIR_DENSITY, g: float = G, n_points: int = 400
) -> Fall:
    """Drop `obj` from `height` metres with downward speed `v0`; sample until it lands."""
    check_fall(obj, rho, height, v0, g)
    sol = _solve_fall(obj, height, v0, rho, g)
    if not sol.t_events[0].size:  # cannot happen within _time_bound; guard against solver failure
        raise ValueError(f"the solver did not reach the ground ({sol.message})")
    t_land = float(sol.t_events[0][0])
    t = np.linspace(0.0, t_land, n_points)
    y, v = sol.sol(t)
    y[-1] = height  # the event is exact to solver tolerance; make the last sample the floor
    return Fall(
        t=t,
        y=y,
        v=v,
        y_formula=gravity_only(t, v0, g),
        height=height,
        t_land=t_land,
        t_land_formula=formula_fall_time(height, v0, g),
    )


@dataclass(frozen=True)
class Crossing:
    height: float  # m fallen when the formula first leaves the tolerance
    time: float  # s after release
    error: float  # m, the formula's error there


def tolerance_height(
    obj: FallingObject,
    tol: float,
    relative: bool = False,
    v0: float = 0.0,
    rho: float = AIR_DENSITY,
    g: float = G,
    max_height: float = MAX_HEIGHT,
) -> Crossing | None:
    """How far `obj` falls before the gravity-only formula is off by more than `tol`.

    `tol` is in metres, or a fraction of the distance fallen when `relative` (0.01 = 1%). The formula's error
    grows monotonically during a fall from rest or a downward throw, so the first crossing is the answer.
    None when the formula stays within tolerance for the whole `max_height` (no drag, or a loose tolerance).
    """
    check_fall(obj, rho, max_height, v0, g)
    if not (tol > 0 and math.isfinite(tol)):
        raise ValueError(f"tolerance must be positive, not {tol!r}")
    if relative and tol >= 1:
        raise ValueError("a relative tolerance must be below 100%")

    def leaves(t, s):  # < 0 while within tolerance; the 1e-12 m keeps a relative test off its zero at t = 0
        error = v0 * t + 0.5 * g * t * t - s[0]
        return error - (tol * s[0] + 1e-12 if relative else tol)

    leaves.terminal, leaves.direction = True, 1
    sol = _solve_fall(obj, max_height, v0, rho, g, events=[leaves])
    if not sol.t_events[1].size:
        return None
    t = float(sol.t_events[1][0])
    y = float(sol.y_events[1][0][0])
    return Crossing(height=y, time=t, error=float(gravity_only(t, v0, g)) - y)


# ----------------------------------------------------------------------------------------------- more forces

FORCES = ("gravity", "air drag", "gusty cross-wind", "second body on a spring")


@dataclass(frozen=True)
class ForceSystem:
    """The object in a vertical plane with the first `n_forces` of FORCES acting.

    The cross-wind only acts through drag (air pushes on what moves relative to it), and the second body
    (a light, draggy tag such as a paper streamer) hangs from the object on a damped spring, so every force
    after the first couples to the others.
    """

    obj: FallingObject
    n_forces: int = len(FORCES)
    rho: float = AIR_DENSITY
    wind: float = 3.0  # m/s, mean cross-wind (along +x)
    gust: float = 0.5  # gust amplitude as a fraction of the mean wind
    gust_period: float = 2.0  # s
    partner_mass_ratio: float = 0.5  # second body's mass / the object's mass
    partner_area_ratio: float = 4.0  # second body's Cd*A / the object's Cd*A
    spring_period: float = 1.0  # s, natural period of the pair's relative motion (sets the stiffness)
    rest_length: float = 0.5  # m; the second body starts this far above the object
    damping_ratio: float = 0.05
    g: float = G

    def check(self) -> None:
        check_fall(self.obj, self.rho, g=self.g)
        if not 1 <= self.n_forces <= len(FORCES):
            raise ValueError(f"number of forces must be between 1 and {len(FORCES)}, not {self.n_forces!r}")
        if not (0 <= self.wind <= 50):
            raise ValueError(f"wind speed must be between 0 and 50 m/s, not {self.wind!r}")
        for name in ("gust_period", "partner_mass_ratio", "partner_area_ratio", "spring_period", "rest_length"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name.replace('_', ' ')} must be positive")

    @property
    def has_partner(self) -> bool:
        return self.n_forces >= 4

    def wind_at(self, t: float) -> float:
        if self.n_forces < 3:
            return 0.0
        return self.wind * (1 + self.gust * math.sin(2 * math.pi * t / self.gust_period))

    def rhs(self):
        """The right-hand side f(t, state) for solve_ivp; state = [x, y, vx, vy] (+ the partner's four)."""
        m1 = self.obj.mass
        k1 = self.obj.drag_rate(self.rho) if self.n_forces >= 2 else 0.0
        m2 = self.partner_mass_ratio * m1
        k2 = k1 * self.partner_area_ratio / self.partner_mass_ratio  # rho Cd A2 / (2 m2)
        reduced = m1 * m2 / (m1 + m2)
        stiffness = reduced * (2 * math.pi / self.spring_period) ** 2
        damping = 2 * self.damping_ratio * math.sqrt(stiffness * reduced)
        g, L0, partner = self.g, self.rest_length, self.has_partner

        def f(t, s):
            w = self.wind_at(t)
            x1, y1, u1, v1 = s[0], s[1], s[2], s[3]
            speed = math.hypot(u1 - w, v1)
            ax, ay = -k1 * speed * (u1 - w), g - k1 * speed * v1
            if not partner:
                return [u1, v1, ax, ay]
            x2, y2, u2, v2 = s[4], s[5], s[6], s[7]
            dx, dy = x2 - x1, y2 - y1
            length = math.hypot(dx, dy) or 1e-12
            ex, ey = dx / length, dy / length
            pull = stiffness * (length - L0) + damping * ((u2 - u1) * ex + (v2 - v1) * ey)  # N, on body 1 toward 2
            speed2 = math.hypot(u2 - w, v2)
            return [
                u1,
                v1,
                ax + pull * ex / m1,
                ay + pull * ey / m1,
                u2,
                v2,
                -k2 * speed2 * (u2 - w) - pull * ex / m2,
                g - k2 * speed2 * v2 - pull * ey / m2,
            ]

        return f

    def initial_state(self) -> list[float]:
        return [0.0, 0.0, 0.0, 0.0] + ([0.0, -self.rest_length, 0.0, 0.0] if self.has_partner else [])


@dataclass(frozen=True)
class Trajectory:
    t: np.ndarray  # s
    xy: np.ndarray  # (n, 2) m: the object's drift downwind and distance fallen
    partner: np.ndarray | None  # (n, 2) m, the second body, when attached


def simulate_system(system: ForceSystem, duration: float = 5.0, n_points: int = 2001) -> Trajectory:
    system.check()
    if not 0 < duration <= 60:
        raise ValueError(f"duration must be above 0 and at most 60 s, not {duration!r}")
    t = np.linspace(0.0, duration, n_points)
    sol = solve_ivp(
        system.rhs(), (0.0, duration), system.initial_state(), method="LSODA", t_eval=t, rtol=1e-9, atol=1e-10
    )
    if not sol.success:
        raise ValueError(f"the solver failed: {sol.message}")
    states = sol.y.T
    return Trajectory(t=t, xy=states[:, 0:2], partner=states[:, 4:6] if system.has_partner else None)


def _design(t: np.ndarray) -> np.ndarray:
    return np.column_stack([np.ones_like(t), t, 0.5 * t**2])


def fit_constant_acceleration(t: np.ndarray, xy: np.ndarray, t_fit: float) -> np.ndarray:
    """Least-squares r0 + v0 t + a t^2 / 2 per coordinate on samples with t <= t_fit; (3, 2) coefficients."""
    window = t <= t_fit
    if window.sum() < 3:
        raise ValueError(f"the fit window of {t_fit:g} s holds fewer than 3 samples; make it longer")
    coef, *_ = np.linalg.lstsq(_design(t[window]), xy[window], rcond=None)
    return coef


def predict(coef: np.ndarray, t: np.ndarray) -> np.ndarray:
    return _design(np.asarray(t, float)) @ coef


@dataclass(frozen=True)
class Horizon:
    n_forces: int
    t_fit: float  # s, end of the fit window
    tol: float  # m
    horizon: float  # s after the fit window while the prediction stays within tol
    censored: bool  # True: still within tol when the simulation ends (horizon is a lower bound)
    prediction: np.ndarray  # (n, 2) m, the fitted model on the trajectory's time grid
    error: np.ndarray  # (n,) m, distance between prediction and simulation
    acceleration: tuple[float, float]  # m/s^2, the fitted constant acceleration (x, y)


def prediction_horizon(traj: Trajectory, t_fit: float, tol: float, n_forces: int = 0) -> Horizon:
    """Fit on [0, t_fit], extrapolate, and find when the error first exceeds `tol` (linear interpolation)."""
    if not (tol > 0 and math.isfinite(tol)):
        raise ValueError(f"tolerance must be positive, not {tol!r}")
    if not 0 < t_fit < traj.t[-1]:
        raise ValueError(f"the fit window must be above 0 and shorter than the {traj.t[-1]:g} s simulated")
    coef = fit_constant_acceleration(traj.t, traj.xy, t_fit)
    pred = predict(coef, traj.t)
    err = np.linalg.norm(pred - traj.xy, axis=1)
    over = np.flatnonzero(err > tol)
    if not over.size:
        horizon, censored = traj.t[-1] - t_fit, True
    else:
        i = over[0]
        if i == 0:
            t_cross = 0.0
        else:
            t0, t1, e0, e1 = traj.t[i - 1], traj.t[i], err[i - 1], err[i]
            t_cross = t0 + (tol - e0) / (e1 - e0) * (t1 - t0)
        horizon, censored = max(0.0, t_cross - t_fit), False
    return Horizon(
        n_forces=n_forces,
        t_fit=t_fit,
        tol=tol,
        horizon=float(horizon),
        censored=censored,
        prediction=pred,
        error=err,
        acceleration=(float(coef[2, 0]), float(coef[2, 1])),
    )


def horizons_by_forces(
    system: ForceSystem, t_fit: float = 0.5, tol: float = 0.1, duration: float = 5.0, n_points: int = 2001
) -> list[Horizon]:
    """The horizon with 1, 2, ... len(FORCES) forces acting (everything else as in `system`)."""
    out = []
    for n in range(1, len(FORCES) + 1):
        traj = simulate_system(replace(system, n_forces=n), duration, n_points)
        out.append(prediction_horizon(traj, t_fit, tol, n))
    return out
