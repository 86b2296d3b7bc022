"""`python -m explorer method`: per falling object, how far gravity alone stays right, and the fitted model's
horizon as forces are added (the numbers behind the method page, slides 4-6)."""

from __future__ import annotations

import argparse

from explorer import physics


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser(
        "method",
        help="falling objects: tolerance heights of the gravity-only formula and "
        "prediction horizons vs number of forces",
    )
    p.add_argument("--objects", nargs="+", choices=list(physics.OBJECTS), default=list(physics.OBJECTS))
    p.add_argument("--tol-cm", type=float, default=1.0, help="absolute tolerance of the formula, in cm")
    p.add_argument("--tol-pct", type=float, default=1.0, help="relative tolerance of the formula, in %% of the fall")
    p.add_argument("--v0", type=float, default=0.0, help="initial downward speed, m/s")
    p.add_argument("--rho", type=float, default=physics.AIR_DENSITY, help="air density, kg/m^3")
    p.add_argument("--fit-window", type=float, default=0.5, help="seconds of the path the simple model is fitted on")
    p.add_argument("--horizon-tol", type=float, default=0.1, help="tolerance of the fitted model, in m")
    p.add_argument("--wind", type=float, default=3.0, help="mean cross-wind, m/s")
    p.add_argument("--duration", type=float, default=5.0, help="seconds simulated for the horizons")
    p.set_defaults(handler=run)
    return [p]


def _crossing(c: physics.Crossing | None) -> dict | None:
    return None if c is None else {"height_m": c.height, "time_s": c.time}


def _text(result: dict) -> str:
    s = result["settings"]
    lines = [
        f"{'object':<8} {'v_t m/s':>8} {'off by ' + str(s['tol_cm']) + ' cm after':>22} "
        f"{'off by ' + str(s['tol_pct']) + '% after':>20}   horizon (s) with 1..{len(physics.FORCES)} forces"
    ]
    for name, row in result["objects"].items():
        cells = [f"{row[k]['height_m']:.4g} m" if row[k] else "never" for k in ("absolute", "relative")]
        horizons = " ".join(("≥" if h["censored"] else "") + f"{h['horizon_s']:.3f}" for h in row["horizons"])
        lines.append(f"{name:<8} {row['terminal_velocity_m_s']:>8.3g} {cells[0]:>22} {cells[1]:>20}   {horizons}")
    lines.append(
        f"forces, added in order: {', '.join(physics.FORCES)}; fitted part {s['fit_window_s']:g} s, "
        f"model tolerance {s['horizon_tol_m']:g} m, wind {s['wind_m_s']:g} m/s"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict:
    if not 0 < args.tol_pct < 100:
        raise ValueError(f"--tol-pct must be between 0 and 100, not {args.tol_pct:g}")
    objects = {}
    for name in args.objects:
        obj = physics.OBJECTS[name]
        system = physics.ForceSystem(obj, rho=args.rho, wind=args.wind)
        horizons = physics.horizons_by_forces(system, args.fit_window, args.horizon_tol, args.duration)
        objects[name] = {
            "mass_kg": obj.mass,
            "area_m2": obj.area,
            "cd": obj.cd,
            "source": obj.source,
            "terminal_velocity_m_s": obj.terminal_velocity(args.rho),
            "absolute": _crossing(physics.tolerance_height(obj, args.tol_cm / 100, v0=args.v0, rho=args.rho)),
            "relative": _crossing(
                physics.tolerance_height(obj, args.tol_pct / 100, relative=True, v0=args.v0, rho=args.rho)
            ),
            "horizons": [
                {"forces": list(physics.FORCES[: h.n_forces]), "horizon_s": h.horizon, "censored": h.censored}
                for h in horizons
            ],
        }
    settings = {
        "tol_cm": args.tol_cm,
        "tol_pct": args.tol_pct,
        "v0_m_s": args.v0,
        "rho_kg_m3": args.rho,
        "fit_window_s": args.fit_window,
        "horizon_tol_m": args.horizon_tol,
        "wind_m_s": args.wind,
        "duration_s": args.duration,
        "g_m_s2": physics.G,
    }
    return {"settings": settings, "objects": objects, "_text": _text}
