"""The method page's numbers: the object a student edits, its fall and tolerance heights, the force system's
prediction horizons, and the tiles and sentences the page quotes, computed from `explorer.physics`. The page
lays them out with its content file; tests check them directly."""

from __future__ import annotations

import math

from explorer import content, physics
from explorer.figures.method import ObjectHeights, force_label, force_name, length_text, object_name
from explorer.tiles import Tile

BOOK = "method"  # the page's book: tiles and sentences in the run's language
DURATION = 5.0  # s simulated in the more-forces system
# The page opens on the lecture's case (slide 4): a pen let go from hand height over a desk, where gravity alone
# is within a centimetre and drag may be ignored. A 2 m drop is already past that, so it is a slider move away.
DEFAULT_OBJECT, DEFAULT_HEIGHT_M, DEFAULT_TOL_CM = "pen", 0.5, 1


def custom_object(mass_g: float, area_cm2: float, cd: float) -> physics.FallingObject:
    """The object with the page's units (grams, square centimetres) turned into SI."""
    return physics.FallingObject("custom", mass=mass_g / 1000, area=area_cm2 / 1e4, cd=cd)


def textbook_units(name: str) -> tuple[float, float, float]:
    """A listed object's mass (g), area (cm²) and drag coefficient, as the page's sliders show them."""
    base = physics.OBJECTS[name]
    return round(base.mass * 1000, 12), round(base.area * 1e4, 12), base.cd


def edit_range(default: float) -> tuple[float, float, float, str]:
    """Slider range from a tenth to ten times the textbook value, on a step grid that holds the default."""
    exponent = math.floor(math.log10(default)) - 2
    step = 10.0**exponent
    lo = round(math.ceil(default / 10 / step) * step, 12)
    return lo, round(default * 10, 12), step, f"%.{max(0, -exponent)}f"


def delay_text(late: float) -> str:
    return f"{late * 1000:.1f} ms" if abs(late) < 1 else f"{late:.2f} s"


def takeaway(
    name: str, height: float, fall: physics.Fall, tol_abs: float, cross: physics.Crossing | None
) -> tuple[str, dict]:
    """(kind, values) of the sentence under the fall: whether drag may be ignored at this tolerance and drop
    (`within`), only up to a height short of it (`beyond`), or over any drop simulated (`never`)."""
    values = dict(
        drop=length_text(height),
        name=object_name(name),
        delay=delay_text(fall.t_land - fall.t_land_formula),
        tol=length_text(tol_abs),
    )
    if cross is None:
        return "never", {**values, "max": length_text(physics.MAX_HEIGHT)}
    return ("within" if cross.height >= height else "beyond"), {**values, "off": length_text(cross.height)}


def crossings(
    obj: physics.FallingObject, rho: float, v0: float, tol_abs: float, tol_rel: float
) -> tuple[physics.Crossing | None, physics.Crossing | None]:
    """Where the gravity-only formula is first off by `tol_abs` metres, and by `tol_rel` of the distance."""
    return (
        physics.tolerance_height(obj, tol_abs, v0=v0, rho=rho),
        physics.tolerance_height(obj, tol_rel, relative=True, v0=v0, rho=rho),
    )


def object_heights(
    name: str, edited: physics.FallingObject, rho: float, v0: float, tol_abs: float, tol_rel: float
) -> list[ObjectHeights]:
    """Every listed object's tolerance heights, the picked one as the student edited it."""
    rows = []
    for key, default in physics.OBJECTS.items():
        rows.append(ObjectHeights(key, *crossings(edited if key == name else default, rho, v0, tol_abs, tol_rel)))
    return rows


def fall_tiles(
    obj: physics.FallingObject,
    rho: float,
    height: float,
    fall: physics.Fall,
    tol_abs: float,
    tol_pct: float,
    cross_abs: physics.Crossing | None,
    cross_rel: physics.Crossing | None,
) -> list[Tile]:
    """Terminal speed, the fall's time against the formula's, and where the formula leaves each tolerance."""
    vt = obj.terminal_velocity(rho)
    never = content.text(BOOK, "never-within", max=length_text(physics.MAX_HEIGHT))
    late = fall.t_land - fall.t_land_formula
    return [
        Tile(
            content.text(BOOK, "tile-terminal"),
            content.text(BOOK, "no-terminal") if math.isinf(vt) else f"{vt:.3g} m/s",
            "terminal",
        ),
        Tile(
            content.text(BOOK, "tile-time", drop=length_text(height)),
            f"{fall.t_land:.3f} s",
            delta=content.text(
                BOOK, "vs-formula", late=f"{late * 1000:+.1f} ms" if abs(late) < 1 else f"{late:+.2f} s"
            ),
        ),
        Tile(
            content.text(BOOK, "tile-off", tol=length_text(tol_abs)),
            length_text(cross_abs.height) if cross_abs else never,
            "off-abs",
        ),
        Tile(
            content.text(BOOK, "tile-off", tol=f"{tol_pct:g}%"),
            length_text(cross_rel.height) if cross_rel else never,
            "off-rel",
        ),
    ]


def horizons(
    obj: physics.FallingObject, rho: float, wind: float, t_fit: float, tol_m: float
) -> tuple[list[physics.Trajectory], list[physics.Horizon]]:
    """The system simulated with 1, 2, ... every force, and how long a fitted fall stays within `tol_m` in each."""
    trajectories = [
        physics.simulate_system(physics.ForceSystem(obj, n_forces=n, rho=rho, wind=wind), DURATION)
        for n in range(1, len(physics.FORCES) + 1)
    ]
    return trajectories, [physics.prediction_horizon(tr, t_fit, tol_m, n) for n, tr in enumerate(trajectories, start=1)]


def horizon_tiles(now: physics.Horizon) -> list[Tile]:
    """The horizon with the forces acting now, the fitted acceleration against g, and when the prediction fails."""
    n = now.n_forces
    return [
        Tile(
            content.text(BOOK, "tile-horizon", n=n, s="s" if n > 1 else ""),
            f"≥ {now.horizon:.2f} s" if now.censored else f"{now.horizon:.2f} s",
            "horizon",
            {"duration": DURATION},
        ),
        Tile(
            content.text(BOOK, "tile-acceleration"),
            f"{now.acceleration[1]:.2f} m/s²",
            delta=content.text(BOOK, "vs-g", delta=now.acceleration[1] - physics.G),
        ),
        Tile(
            content.text(BOOK, "tile-fails"),
            content.text(BOOK, "never-in-run")
            if now.censored
            else content.text(BOOK, "after-release", t=now.t_fit + now.horizon),
        ),
    ]


def forces_text(n: int) -> str:
    """The first `n` forces, as the caption lists them: "gravity + air drag + ..."."""
    return " + ".join(force_name(i) for i in range(1, n + 1))


def gains(found: list[physics.Horizon]) -> str:
    """The forces whose arrival lengthens the horizon (beyond the time grid's resolution), joined by "and":
    a force that makes the fall more regular, not less."""
    longer = [
        force_label(b.n_forces)
        for a, b in zip(found, found[1:])
        if not a.censored and b.horizon > max(1.05 * a.horizon, a.horizon + 0.01)
    ]
    joined = longer[0] if longer else ""
    for force in longer[1:]:
        joined = content.text(BOOK, "and", first=joined, last=force)
    return joined
