"""explorer.physics against closed forms: free fall, the tanh/log-cosh solution with quadratic drag, terminal
velocity, a brute-force scan for the tolerance height, and the horizon of a fitted constant-acceleration model."""

import math
from dataclasses import replace

import numpy as np
import pytest

from explorer import physics
from explorer.physics import OBJECTS, FallingObject, ForceSystem, Trajectory

G = physics.G


def _drag_free(obj: FallingObject) -> FallingObject:
    return replace(obj, cd=0.0)


# ----------------------------------------------------------------------------------------------- one fall


@pytest.mark.parametrize("v0", [0.0, 3.0])
def test_without_drag_the_simulation_is_the_formula(v0):
    fall = physics.simulate_fall(_drag_free(OBJECTS["pen"]), 50.0, v0=v0)
    scale = fall.height
    assert np.max(np.abs(fall.y - (v0 * fall.t + 0.5 * G * fall.t**2))) < 1e-9 * scale
    assert fall.t_land == pytest.approx((-v0 + math.sqrt(v0**2 + 2 * G * 50.0)) / G, rel=1e-9)
    assert fall.t_land == pytest.approx(fall.t_land_formula, rel=1e-9)


def test_no_air_is_the_same_as_no_drag_coefficient():
    fall = physics.simulate_fall(OBJECTS["feather"], 2.0, rho=0.0)
    assert np.max(np.abs(fall.error)) < 1e-9


@pytest.mark.parametrize("name", list(OBJECTS))
def test_quadratic_drag_matches_the_log_cosh_closed_form(name):
    """From rest: v = vt tanh(g t / vt), y = vt^2 / g * ln cosh(g t / vt)."""
    obj = OBJECTS[name]
    vt = math.sqrt(2 * obj.mass * G / (physics.AIR_DENSITY * obj.cd * obj.area))
    fall = physics.simulate_fall(obj, 20.0)
    x = G * fall.t / vt
    y = vt**2 / G * (x + np.log1p(np.exp(-2 * x)) - math.log(2))  # ln cosh x, without overflow
    v = vt * np.tanh(G * fall.t / vt)
    assert np.max(np.abs(fall.y - y)) < 1e-7 * 20.0
    assert np.max(np.abs(fall.v - v)) < 1e-7 * vt


@pytest.mark.parametrize("name, height", [("pen", 1000.0), ("ball", 2000.0), ("paper", 20.0), ("feather", 5.0)])
def test_terminal_velocity_is_reached(name, height):
    obj = OBJECTS[name]
    vt = math.sqrt(2 * obj.mass * G / (physics.AIR_DENSITY * obj.cd * obj.area))
    assert obj.terminal_velocity() == pytest.approx(vt, rel=1e-12)
    fall = physics.simulate_fall(obj, height)
    assert fall.v[-1] == pytest.approx(vt, rel=1e-4)
    assert np.all(fall.v <= vt * (1 + 1e-7))  # from rest it approaches from below (dense-output rounding)


def test_thrown_down_faster_than_terminal_the_object_slows_to_it():
    obj = OBJECTS["paper"]
    fall = physics.simulate_fall(obj, 10.0, v0=10.0)
    assert fall.v[0] == 10.0 and fall.v[-1] == pytest.approx(obj.terminal_velocity(), rel=1e-6)
    assert np.all(np.diff(fall.v) <= 1e-7)


def test_a_stiff_fall_is_solved_to_terminal_speed():
    """The lightest, largest feather in dense air relaxes to 3 cm/s within milliseconds, then falls for hours:
    an explicit solver would need millions of steps here."""
    obj = FallingObject("feather", mass=3e-6, area=200e-4, cd=2.5)
    fall = physics.simulate_fall(obj, 1000.0, v0=20.0, rho=1.5)
    assert fall.v[-1] == pytest.approx(obj.terminal_velocity(1.5), rel=1e-6)
    assert fall.t_land == pytest.approx(1000.0 / obj.terminal_velocity(1.5), rel=1e-3)


def test_default_objects_have_the_documented_terminal_speeds():
    speeds = {name: obj.terminal_velocity() for name, obj in OBJECTS.items()}
    assert speeds["feather"] == pytest.approx(0.43, abs=0.01)  # in the 0.3-0.5 m/s the source names
    assert speeds["paper"] < 1.5 < speeds["pen"] < speeds["ball"]
    assert all(obj.source for obj in OBJECTS.values())


# ----------------------------------------------------------------------------------------------- tolerance height


def _scan(obj, tol, relative, v0=0.0, height=None, n=200_001):
    """Brute force: sample one long drop densely, return the first distance fallen where the error is too big."""
    fall = physics.simulate_fall(obj, height, v0=v0, n_points=n)
    bound = tol * fall.y if relative else tol
    over = np.flatnonzero((fall.error > bound) & (fall.y > 0))
    return fall.y[over[0]], fall.y[over[0]] - fall.y[over[0] - 1]


@pytest.mark.parametrize(
    "name, tol, relative, v0",
    [
        ("pen", 0.01, False, 0.0),
        ("pen", 0.01, True, 0.0),
        ("ball", 0.01, False, 2.0),
        ("ball", 0.05, True, 0.0),
        ("paper", 0.01, False, 0.0),
        ("paper", 0.001, True, 1.0),
        ("feather", 0.002, False, 0.0),
        ("feather", 0.01, True, 0.0),
    ],
)
def test_tolerance_height_agrees_with_a_brute_force_scan(name, tol, relative, v0):
    obj = OBJECTS[name]
    found = physics.tolerance_height(obj, tol, relative=relative, v0=v0)
    assert found is not None
    scanned, step = _scan(obj, tol, relative, v0, height=found.height * 3)
    assert abs(found.height - scanned) <= step + 1e-9
    # at the crossing the formula is off by exactly the tolerance
    assert found.error == pytest.approx(tol * found.height if relative else tol, rel=1e-6, abs=2e-12)
    assert float(physics.gravity_only(found.time, v0)) - found.height == pytest.approx(found.error, rel=1e-9)


def test_tolerance_height_for_weak_drag_follows_the_series_expansion():
    """For k y << 1 from rest the formula's error is k y^2 / 3, so the relative error is k y / 3."""
    obj = OBJECTS["ball"]
    k = obj.drag_rate()
    rel = physics.tolerance_height(obj, 1e-4, relative=True)
    assert rel.height == pytest.approx(3e-4 / k, rel=2e-3)
    ab = physics.tolerance_height(obj, 1e-5)
    assert ab.height == pytest.approx(math.sqrt(3e-5 / k), rel=2e-3)


def test_pen_numbers_shown_on_the_page():
    pen = OBJECTS["pen"]
    assert physics.tolerance_height(pen, 0.01).height == pytest.approx(0.5956, abs=5e-4)
    assert physics.tolerance_height(pen, 0.01, relative=True).height == pytest.approx(0.3557, abs=5e-4)


def test_tolerance_is_never_left_without_drag_or_beyond_the_search_limit():
    assert physics.tolerance_height(_drag_free(OBJECTS["pen"]), 0.001) is None
    assert physics.tolerance_height(OBJECTS["ball"], 5000.0, max_height=100.0) is None


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(mass=0.0), "mass"),
        (dict(mass=-1.0), "mass"),
        (dict(area=0.0), "area"),
        (dict(cd=-0.1), "drag"),
        (dict(mass=float("nan")), "mass"),
    ],
)
def test_bad_objects_are_refused_with_a_message(change, message):
    with pytest.raises(ValueError, match=message):
        physics.simulate_fall(replace(OBJECTS["pen"], **change), 1.0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(height=0.0), "height"),
        (dict(height=1e6), "height"),
        (dict(height=1.0, rho=-1.0), "density"),
        (dict(height=1.0, v0=-1.0), "speed"),
    ],
)
def test_bad_drops_are_refused_with_a_message(kwargs, message):
    with pytest.raises(ValueError, match=message):
        physics.simulate_fall(OBJECTS["pen"], **kwargs)


def test_bad_tolerances_are_refused():
    with pytest.raises(ValueError, match="positive"):
        physics.tolerance_height(OBJECTS["pen"], 0.0)
    with pytest.raises(ValueError, match="100%"):
        physics.tolerance_height(OBJECTS["pen"], 1.5, relative=True)


# ----------------------------------------------------------------------------------------------- more forces


def test_gravity_alone_is_fitted_exactly_and_never_leaves_tolerance():
    traj = physics.simulate_system(ForceSystem(OBJECTS["pen"], n_forces=1))
    h = physics.prediction_horizon(traj, 0.5, 0.01, 1)
    assert h.censored and h.horizon == pytest.approx(traj.t[-1] - 0.5)
    assert h.acceleration == pytest.approx((0.0, G), abs=1e-6)
    assert np.max(h.error) < 1e-6


def test_without_air_the_spring_pair_falls_like_one_body():
    """No drag and no wind: both bodies accelerate at g, the spring never stretches, the object is in free fall."""
    traj = physics.simulate_system(ForceSystem(OBJECTS["pen"], n_forces=4, rho=0.0), duration=3.0)
    assert np.max(np.abs(traj.xy[:, 1] - 0.5 * G * traj.t**2)) < 1e-6
    assert np.max(np.abs(traj.xy[:, 0])) < 1e-9
    gap = np.linalg.norm(traj.partner - traj.xy, axis=1)
    assert np.max(np.abs(gap - 0.5)) < 1e-6


def test_a_steady_wind_carries_the_object_at_wind_speed():
    """Drag acts on the velocity relative to the air: the sideways speed relaxes to the wind's."""
    system = ForceSystem(OBJECTS["paper"], n_forces=3, wind=4.0, gust=0.0)
    traj = physics.simulate_system(system, duration=10.0)
    drift_speed = np.gradient(traj.xy[:, 0], traj.t)
    assert drift_speed[-1] == pytest.approx(4.0, rel=1e-3)
    assert np.gradient(traj.xy[:, 1], traj.t)[-1] == pytest.approx(OBJECTS["paper"].terminal_velocity(), rel=0.05)


def test_wind_without_drag_moves_nothing():
    traj = physics.simulate_system(ForceSystem(OBJECTS["ball"], n_forces=3, rho=0.0, wind=10.0), duration=2.0)
    assert np.max(np.abs(traj.xy[:, 0])) < 1e-9


@pytest.mark.parametrize("name", ["pen", "ball"])
def test_horizon_shrinks_as_forces_are_added_for_the_default_system(name):
    horizons = physics.horizons_by_forces(ForceSystem(OBJECTS[name]))
    values = [h.horizon for h in horizons]
    assert horizons[0].censored and not any(h.censored for h in horizons[1:])
    assert all(b <= a for a, b in zip(values, values[1:])), values
    assert values[-1] < values[1] / 1.5  # the interacting forces cost a real part of the horizon


def test_horizon_crossing_is_interpolated_exactly_on_a_linear_error():
    """A path that is exactly quadratic in the fitted part and then drifts linearly away by s metres per second."""
    t = np.linspace(0.0, 4.0, 401)
    s = 0.5
    y = 0.5 * G * t**2 + np.where(t > 1.0, s * (t - 1.0), 0.0)
    traj = Trajectory(t=t, xy=np.column_stack([np.zeros_like(t), y]), partner=None)
    h = physics.prediction_horizon(traj, 1.0, 0.2)
    assert not h.censored
    assert h.horizon == pytest.approx(0.2 / s, abs=1e-9)


def test_fit_window_and_tolerance_are_checked():
    traj = physics.simulate_system(ForceSystem(OBJECTS["pen"], n_forces=2), duration=1.0, n_points=101)
    with pytest.raises(ValueError, match="fit window"):
        physics.prediction_horizon(traj, 1.5, 0.1)
    with pytest.raises(ValueError, match="fewer than 3"):
        physics.prediction_horizon(traj, 0.015, 0.1)
    with pytest.raises(ValueError, match="tolerance"):
        physics.prediction_horizon(traj, 0.5, -1.0)
    with pytest.raises(ValueError, match="number of forces"):
        physics.simulate_system(ForceSystem(OBJECTS["pen"], n_forces=7))
    with pytest.raises(ValueError, match="wind"):
        physics.simulate_system(ForceSystem(OBJECTS["pen"], wind=-3.0))
