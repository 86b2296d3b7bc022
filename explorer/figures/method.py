"""Figures of the method page (slides 2-6): the falling-object lab and the horizon of a fitted simple model.

Pure functions: data from `explorer.physics` in, plotly Figure out. Simulated curves are solid; the
gravity-only formula and the fitted model's extrapolation are dashed, so a model is never drawn like the
thing it predicts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.figures.theme import CONCEPT_COLORS, EVIDENCE_COLORS, FOOT_LEGEND, OKABE_ITO, below_badge, styled
from explorer.physics import FORCES, Crossing, Fall, Horizon, Trajectory, gravity_only

SIM_COLOR = CONCEPT_COLORS["data"]  # the simulation plays the part of the observed object
FORMULA_COLOR = EVIDENCE_COLORS[Kind.FORMULA]
FIT_COLOR = OKABE_ITO[3]
TOL_COLOR = "#777777"
PARTNER_COLOR = OKABE_ITO[5]
BOOK = "fig-method"  # this module's words: content/<lang>/fig-method.md
LOG_FLOOR_S = 0.01  # s: a horizon of 0 is drawn at this height on the log axis
ERROR_FLOOR_M = 1e-6  # m: prediction errors below this are solver rounding; drawn on the axis
LEVEL_COLORS = (OKABE_ITO[0], OKABE_ITO[1], OKABE_ITO[2], OKABE_ITO[4])  # one per number of forces
PALE = "#D5D5D5"
DECADES = dict(type="log", exponentformat="power", dtick=1)  # log axis labelled at powers of ten only


def length_text(m: float) -> str:
    """A distance in the unit that reads best: mm, cm, m or km."""
    if m < 0.01:
        return f"{m * 1000:.2g} mm"
    if m < 1:
        return f"{m * 100:.3g} cm"
    if m < 1000:
        return f"{m:.3g} m"
    return f"{m / 1000:.3g} km"


def object_name(name: str) -> str:
    """A listed object's name in the run's language ("pen" stays the key in code and in the URL)."""
    return content.text(BOOK, f"object-{name}")


def _hline(
    fig: go.Figure,
    y: float,
    text: str,
    log: bool = False,
    color: str = TOL_COLOR,
    dash: str = "dot",
    right: bool = False,
    layer: str = "above",
) -> None:
    """A horizontal reference line with its label (on a log axis a label's y is log10 of the value)."""
    fig.add_hline(y=y, line=dict(color=color, dash=dash, width=2), layer=layer)
    fig.add_annotation(
        text=text,
        xref="x domain",
        yref="y",
        x=1 if right else 0,
        y=math.log10(y) if log else y,
        xanchor="right" if right else "left",
        yanchor="bottom",
        showarrow=False,
        font=dict(size=14, color=color),
    )


# ----------------------------------------------------------------------------------------------- the lab


def fall_position(fall: Fall, name: str, v0: float = 0.0, height: int = 480) -> go.Figure:
    """Distance fallen vs time: the simulation and the gravity-only formula, each until it reaches the floor.

    `height` in px: a page's first screen asks for less than the export's default."""
    fig = go.Figure()
    shown = object_name(name)
    fig.add_trace(
        go.Scatter(
            x=fall.t,
            y=fall.y,
            mode="lines",
            name=content.text(BOOK, "fall-simulated", name=shown),
            line=dict(color=SIM_COLOR, width=3),
            hovertemplate=content.text(BOOK, "fall-hover-simulated"),
        )
    )
    t_formula = np.linspace(0.0, fall.t_land_formula, 200)
    fig.add_trace(
        go.Scatter(
            x=t_formula,
            y=gravity_only(t_formula, v0),
            mode="lines",
            name=content.text(BOOK, "fall-formula"),
            line=dict(color=FORMULA_COLOR, width=3, dash="dash"),
            hovertemplate=content.text(BOOK, "fall-hover-formula"),
        )
    )
    _hline(fig, fall.height, content.text(BOOK, "floor"), dash="solid")
    late = fall.t_land - fall.t_land_formula
    delay = f"{late * 1000:.0f} ms" if late < 1 else f"{late:.1f} s"
    # the label's tail in data units, two lines: it stays inside the plot however narrow the figure is drawn
    fig.add_annotation(
        x=fall.t_land,
        y=fall.height,
        ax=0.5 * fall.t_land,
        ay=0.72 * fall.height,
        axref="x",
        ayref="y",
        showarrow=True,
        arrowhead=2,
        xanchor="center",
        text=content.text(BOOK, "lands-late", delay=delay) if late >= 0.0005 else content.text(BOOK, "lands-on-time"),
        font=dict(size=14),
    )
    fig.update_xaxes(title_text=content.text(BOOK, "axis-time"), rangemode="tozero")
    fig.update_yaxes(title_text=content.text(BOOK, "axis-fallen-down"), autorange="reversed")
    fig.update_layout(legend=FOOT_LEGEND, margin=dict(b=90))  # the legend under the axis title, off the curves
    return styled(
        fig,
        content.text(BOOK, "fall-title", drop=length_text(fall.height), name=shown),
        Evidence(Kind.SIMULATION, content.text(BOOK, "fall-detail"), also=(Kind.FORMULA,)),
        height=height,
    )


def fall_error(
    fall: Fall, tol_abs: float, tol_rel: float, cross_abs: Crossing | None, cross_rel: Crossing | None
) -> go.Figure:
    """How far ahead of the simulation the formula is, in cm and in % of the distance fallen (log-log)."""
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.12,
        subplot_titles=(
            content.text(BOOK, "error-abs", tol=length_text(tol_abs)),
            content.text(BOOK, "error-rel", tol=f"{tol_rel * 100:g}"),
        ),
    )
    below_badge(fig)
    keep = fall.y >= fall.height * 1e-4  # the first samples are too close to the release to read
    y = fall.y[keep]
    span = math.log10(y[-1] / y[0]) or 1.0
    panels = (
        (fall.error[keep] * 100, tol_abs * 100, cross_abs),
        (fall.relative_error[keep] * 100, tol_rel * 100, cross_rel),
    )
    for col, (err, tol, cross) in enumerate(panels, start=1):
        fig.add_trace(
            go.Scatter(
                x=y,
                y=err,
                mode="lines",
                line=dict(color=SIM_COLOR, width=3),
                showlegend=False,
                hovertemplate=content.text(BOOK, "error-hover"),
            ),
            row=1,
            col=col,
        )
        fig.add_hline(y=tol, line=dict(color=TOL_COLOR, dash="dot", width=2), row=1, col=col)
        if cross is not None and cross.height <= fall.height:
            # the curve rises to the right: text above-left of the mark is clear, unless that is off the axis
            left = math.log10(cross.height / y[0]) / span > 0.4
            fig.add_trace(
                go.Scatter(
                    x=[cross.height],
                    y=[tol],
                    mode="markers+text",
                    showlegend=False,
                    marker=dict(size=14, color=FIT_COLOR, symbol="x"),
                    textposition="top left" if left else "bottom right",
                    text=[content.text(BOOK, "off-after", height=length_text(cross.height))],
                    textfont=dict(size=14),
                    hoverinfo="skip",
                ),
                row=1,
                col=col,
            )
        else:
            axis = "" if col == 1 else str(col)
            fig.add_annotation(
                text=content.text(BOOK, "within-whole-drop"),
                xref=f"x{axis} domain",
                yref=f"y{axis} domain",
                x=0.02,
                y=0.98,
                xanchor="left",
                yanchor="top",
                showarrow=False,
                font=dict(size=14),
            )
    fig.update_xaxes(title_text=content.text(BOOK, "axis-fallen"), **DECADES)
    fig.update_yaxes(**DECADES)
    return styled(
        fig,
        content.text(BOOK, "error-title"),
        Evidence(Kind.SIMULATION, content.text(BOOK, "error-detail"), also=(Kind.FORMULA,)),
    )


@dataclass(frozen=True)
class ObjectHeights:
    name: str
    absolute: Crossing | None  # None: within tolerance for the whole search range
    relative: Crossing | None


def tolerance_heights(
    rows: Sequence[ObjectHeights], tol_abs: float, tol_rel: float, drop: float, max_height: float
) -> go.Figure:
    """Per object: how far it may fall before the formula leaves each tolerance (log axis)."""
    fig = go.Figure()
    names = [object_name(r.name) for r in rows]
    for label, pick, color in (
        (content.text(BOOK, "tolerance", tol=length_text(tol_abs)), lambda r: r.absolute, OKABE_ITO[0]),
        (content.text(BOOK, "tolerance", tol=f"{tol_rel * 100:g}%"), lambda r: r.relative, OKABE_ITO[1]),
    ):
        crossings = [pick(r) for r in rows]
        heights = [c.height if c else max_height for c in crossings]
        texts = [length_text(c.height) if c else f"> {length_text(max_height)}" for c in crossings]
        fig.add_trace(
            go.Bar(
                x=names,
                y=heights,
                name=label,
                marker_color=color,
                text=texts,
                textposition="inside",
                insidetextanchor="end",
                textfont=dict(size=14, color="white"),
                marker_pattern_shape=["" if c else "/" for c in crossings],
                hovertemplate="%{x}: %{text}<extra>" + label + "</extra>",
            )
        )
    _hline(
        fig,
        drop,
        content.text(BOOK, "your-drop", drop=length_text(drop)),
        log=True,
        color=SIM_COLOR,
        right=True,
        layer="below",
    )
    values = [drop, *[b for trace in fig.data for b in trace.y]]
    fig.update_yaxes(
        title_text=content.text(BOOK, "axis-heights"),
        **DECADES,
        range=[math.log10(min(values)) - 0.5, math.log10(max(values)) + 0.8],
    )
    fig.update_layout(barmode="group", legend=dict(orientation="h", x=0, y=1.0, yanchor="bottom"))
    return styled(
        fig, content.text(BOOK, "heights-title"), Evidence(Kind.SIMULATION, content.text(BOOK, "heights-detail"))
    )


# ----------------------------------------------------------------------------------------------- more forces


def force_name(n: int) -> str:
    """The n-th force (1 = gravity) in the run's language; `physics.FORCES` holds the English names."""
    if not 1 <= n <= len(FORCES):
        raise ValueError(f"no force {n}; there are {len(FORCES)}")
    return content.text(BOOK, f"force-{n}")


def force_label(n: int) -> str:
    return force_name(1) if n == 1 else f"+ {force_name(n)}"


def system_prediction(traj: Trajectory, h: Horizon) -> go.Figure:
    """The simulated path and the fitted constant-acceleration model, fallen distance and sideways drift."""
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.12,
        subplot_titles=(content.text(BOOK, "axis-fallen"), content.text(BOOK, "drift")),
    )
    below_badge(fig)
    for col, i in ((1, 1), (2, 0)):  # column 1 shows y (index 1), column 2 shows x (index 0)
        first = col == 1
        if traj.partner is not None:
            fig.add_trace(
                go.Scatter(
                    x=traj.t,
                    y=traj.partner[:, i],
                    mode="lines",
                    name=content.text(BOOK, "second-body"),
                    showlegend=first,
                    legendgroup="partner",
                    line=dict(color=PARTNER_COLOR, width=2),
                ),
                row=1,
                col=col,
            )
        fig.add_trace(
            go.Scatter(
                x=traj.t,
                y=traj.xy[:, i],
                mode="lines",
                name=content.text(BOOK, "simulated-object"),
                showlegend=first,
                line=dict(color=SIM_COLOR, width=3),
                legendgroup="sim",
            ),
            row=1,
            col=col,
        )
        fig.add_trace(
            go.Scatter(
                x=traj.t,
                y=h.prediction[:, i],
                mode="lines",
                showlegend=first,
                name=content.text(BOOK, "fit-extrapolated"),
                legendgroup="fit",
                line=dict(color=FIT_COLOR, width=3, dash="dash"),
            ),
            row=1,
            col=col,
        )
        fig.add_vrect(x0=0, x1=h.t_fit, fillcolor="#BBBBBB", opacity=0.3, line_width=0, row=1, col=col)
        if not h.censored:
            fig.add_vline(x=h.t_fit + h.horizon, line=dict(color=FIT_COLOR, width=2, dash="dot"), row=1, col=col)
    # the model's runaway would set the axis range; show the path, with room for where the model first misses
    for col, i in ((1, 1), (2, 0)):
        lo, hi = float(traj.xy[:, i].min()), float(traj.xy[:, i].max())
        pad = max(0.15 * (hi - lo), 0.1)
        rng = [lo - pad, hi + pad]
        fig.update_yaxes(range=rng[::-1] if i == 1 else rng, row=1, col=col)
    fig.update_xaxes(title_text=content.text(BOOK, "axis-time"))
    fig = styled(
        fig,
        content.text(BOOK, "system-title", n=h.n_forces, s="s" if h.n_forces > 1 else ""),
        Evidence(
            Kind.FIT, content.text(BOOK, "system-detail", t_fit=h.t_fit), also=(Kind.EXTRAPOLATION, Kind.SIMULATION)
        ),
        height=560,
    )
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.3, yanchor="top"), margin=dict(b=130))
    return fig


def prediction_errors(t: np.ndarray, horizons: Sequence[Horizon], current: int) -> go.Figure:
    """Distance between fitted model and simulated path over time, one line per number of forces."""
    fig = go.Figure()
    tol, t_fit = horizons[0].tol, horizons[0].t_fit
    for h in sorted(horizons, key=lambda h: h.n_forces <= current):  # pale lines first, under the others
        color = LEVEL_COLORS[h.n_forces - 1] if h.n_forces <= current else PALE
        exact = h.censored and h.error.max() < ERROR_FLOOR_M
        name = f"{h.n_forces} · {force_label(h.n_forces)}"
        fig.add_trace(
            go.Scatter(
                x=t,
                y=np.maximum(h.error, ERROR_FLOOR_M),
                mode="lines",
                legendrank=h.n_forces,
                name=content.text(BOOK, "exact", name=name) if exact else name,
                line=dict(color=color, width=4 if h.n_forces == current else 2),
            )
        )
        if not h.censored:
            fig.add_trace(
                go.Scatter(
                    x=[h.t_fit + h.horizon],
                    y=[tol],
                    mode="markers",
                    showlegend=False,
                    marker=dict(size=12, color=color, line=dict(color="white", width=1)),
                    hovertemplate=content.text(BOOK, "errors-hover", n=h.n_forces),
                )
            )
    fig.add_vrect(x0=0, x1=t_fit, fillcolor="#BBBBBB", opacity=0.3, line_width=0)
    _hline(fig, tol, content.text(BOOK, "tolerance", tol=length_text(tol)), log=True, right=True)
    fig.update_xaxes(title_text=content.text(BOOK, "axis-time"))
    fig.update_yaxes(
        title_text=content.text(BOOK, "axis-error"), **DECADES, range=[math.log10(ERROR_FLOOR_M) - 0.2, 2.5]
    )
    fig.update_layout(legend=FOOT_LEGEND, margin=dict(b=110))
    return styled(
        fig,
        content.text(BOOK, "errors-title"),
        Evidence(Kind.FIT, content.text(BOOK, "errors-detail", t_fit=t_fit), also=(Kind.EXTRAPOLATION,)),
    )


def horizon_bars(horizons: Sequence[Horizon], current: int) -> go.Figure:
    """Slide 6 measured: how long the fitted model stays within tolerance, vs the number of forces."""
    labels = [f"{h.n_forces} · {force_label(h.n_forces)}" for h in horizons]
    values = [max(h.horizon, LOG_FLOOR_S) for h in horizons]
    texts = [
        (content.text(BOOK, "whole-run", horizon=h.horizon) if h.censored else f"{h.horizon:.2f} s") for h in horizons
    ]
    colors = [LEVEL_COLORS[h.n_forces - 1] if h.n_forces <= current else PALE for h in horizons]
    # horizontal bars, each named on a line above it: the whole width is left to the bars, even on a phone
    rows = list(range(len(labels)))
    fig = go.Figure(
        go.Bar(
            y=rows,
            x=values,
            orientation="h",
            text=texts,
            textposition="outside",
            width=0.45,
            textfont=dict(size=15),
            cliponaxis=False,
            customdata=labels,
            marker=dict(color=colors, pattern_shape=["/" if h.censored else "" for h in horizons]),
            hovertemplate="%{customdata}: %{text}<extra></extra>",
            showlegend=False,
        )
    )
    for row, label in zip(rows, labels):  # forces acting, each added to the ones above
        fig.add_annotation(
            text=label,
            xref="x domain",
            x=0,
            y=row - 0.26,
            xanchor="left",
            yanchor="bottom",
            showarrow=False,
            font=dict(size=15),
        )
    fig.update_yaxes(autorange="reversed", showticklabels=False, ticks="")
    fig.update_xaxes(
        title_text=content.text(BOOK, "axis-horizon"),
        **DECADES,
        range=[math.log10(min(values)) - 0.4, math.log10(max(values)) + 1.6],
    )  # room for the text
    h0 = horizons[0]
    return styled(
        fig,
        content.text(BOOK, "horizon-title"),
        Evidence(Kind.SIMULATION, content.text(BOOK, "horizon-detail", tol=length_text(h0.tol), t_fit=h0.t_fit)),
    )
