"""Figures of the inductive-bias page: pure functions from `explorer.experiments.crossover.analyse` output
to Plotly figures (slides 10, 13-15)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from explorer.evidence import Evidence, Kind
from explorer.figures.theme import BADGE_CHARS, SEQUENTIAL, styled

BUDGET_COLOR = "#D55E00"
MAX_WINDOW = 48


def window_color(window: int) -> str:
    """One colour per window on every figure: dark = narrow window (more structure), light = wide (less)."""
    t = math.log2(max(window, 1)) / math.log2(MAX_WINDOW)
    return sample_colorscale(SEQUENTIAL, [0.85 * min(t, 1.0)])[0]


def window_name(window: int, length: int = MAX_WINDOW) -> str:
    return f"w={window} (full attention)" if window >= length else f"w={window}"


def _detail(analysis: dict) -> str:
    cfg = analysis["config"]
    seeds = analysis["seeds"]
    seed_text = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]}-{seeds[-1]}"
    return (f"{cfg['n_layers']} layer, d={cfg['d_model']}, {cfg['n_heads']} heads, batch {cfg['batch_size']}, "
            f"{max(analysis['steps'])} steps, {seed_text}")


def _log_range(analysis: dict) -> list[float]:
    xs = np.log10(analysis["flops"])
    return [xs[0] - 0.08, xs[-1] + 0.08]


def _budget_line(fig: go.Figure, budget: float | None, label: bool = True) -> None:
    if budget is None:
        return
    fig.add_vline(x=budget, line=dict(color=BUDGET_COLOR, width=2, dash="dot"))
    if label:
        fig.add_annotation(x=math.log10(budget), y=0.0, yref="paper", text="today's budget", showarrow=False,
                           xanchor="left", yanchor="bottom", xshift=4, font=dict(color=BUDGET_COLOR, size=14))


def accuracy_vs_compute(analysis: dict, budget: float | None = None, height: int = 560,
                        badge_chars: int = BADGE_CHARS) -> go.Figure:
    """Held-out accuracy against training FLOPs per window: seed mean, seed band, closed-form ceilings
    (`height`, `badge_chars`: a page's first screen, beside its controls, passes smaller ones)."""
    fig = go.Figure()
    x = analysis["flops"]
    length = analysis["config"]["length"]
    for w in analysis["windows"]:
        c, color = analysis["curves"][w], window_color(w)
        name = window_name(w, length)
        fig.add_trace(go.Scatter(x=np.concatenate([x, x[::-1]]), y=np.concatenate([c["max"], c["min"][::-1]]),
                                 fill="toself", fillcolor=color, opacity=0.18, line=dict(width=0),
                                 hoverinfo="skip", showlegend=False, legendgroup=name))
        fig.add_trace(go.Scatter(x=x, y=c["mean"], mode="lines+markers", name=name, legendgroup=name,
                                 line=dict(color=color, width=3), marker=dict(size=5),
                                 hovertemplate=f"{name}<br>%{{x:.3g}} FLOPs<br>accuracy %{{y:.3f}}<extra></extra>"))
        top = analysis["ceilings"][w]
        fig.add_trace(go.Scatter(x=[x[0], x[-1]], y=[top, top], mode="lines", legendgroup=name, showlegend=False,
                                 line=dict(color=color, width=2, dash="dash"),
                                 hovertemplate=f"ceiling of {name}: {top:.3f}<extra></extra>"))
    fig.add_hline(y=analysis["chance"], line=dict(color="#888888", width=1, dash="dot"),
                  annotation_text="chance", annotation_position="bottom right")
    _budget_line(fig, budget)
    fig.update_xaxes(type="log", exponentformat="power", title="training FLOPs per model", range=_log_range(analysis))
    fig.update_yaxes(title="held-out accuracy (weighted over lags)", range=[0, 1.02])
    fig.update_layout(legend=dict(title="attention window"))
    styled(fig, "Accuracy vs training compute, one curve per structure level",
           Evidence(Kind.MEASURED, _detail(analysis) + "; band = seed min-max; dashed = closed-form ceiling",
                    also=(Kind.FORMULA,)), height=height, badge_chars=badge_chars)
    return fig


def best_structure(analysis: dict, budget: float | None = None) -> go.Figure:
    """b*(r): the window with the best seed-mean accuracy at each compute budget, as a step curve.

    Checkpoints where the best two windows are within a tie (early on, all near chance) are drawn hollow
    and grey, and the step curve skips them.
    """
    rows = analysis["b_star"]
    clear = [r for r in rows if r["clear"]]
    unclear = [r for r in rows if not r["clear"]]
    fig = go.Figure()
    if clear:
        x, y = [r["flops"] for r in clear], [r["window"] for r in clear]
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", line=dict(shape="hv", color="#555555", width=2),
                                 hoverinfo="skip", showlegend=False))
        fig.add_trace(go.Scatter(x=x, y=y, mode="markers", name="best window",
                                 marker=dict(size=12, color=[window_color(w) for w in y],
                                             line=dict(color="#222222", width=1)),
                                 customdata=[r["lead"] for r in clear],
                                 hovertemplate="%{x:.3g} FLOPs: best window %{y}<br>"
                                               "lead %{customdata:.3f}<extra></extra>"))
    if unclear:
        fig.add_trace(go.Scatter(x=[r["flops"] for r in unclear], y=[r["window"] for r in unclear], mode="markers",
                                 name="tie (lead < 0.01)",
                                 marker=dict(size=10, symbol="circle-open", color="#999999", line=dict(width=2)),
                                 customdata=[r["lead"] for r in unclear],
                                 hovertemplate="%{x:.3g} FLOPs: a tie, argmax %{y}<br>"
                                               "lead %{customdata:.3f}<extra></extra>"))
    _budget_line(fig, budget)
    windows = analysis["windows"]
    fig.update_xaxes(type="log", exponentformat="power", title="training FLOPs per model (the resource r)", range=_log_range(analysis))
    fig.update_yaxes(type="log", title="best window b*(r)", tickvals=windows, ticktext=[str(w) for w in windows],
                     range=[math.log10(min(windows)) - 0.15, math.log10(max(windows)) + 0.15])
    fig.update_layout(legend=dict(orientation="h", x=0.0, y=1.02, xanchor="left", yanchor="bottom"))
    styled(fig, "b*(r): the best structure moves as compute grows",
           Evidence(Kind.MEASURED, _detail(analysis) + "; argmax of seed means"), height=420)
    return fig


def crossover_points(analysis: dict, budget: float | None = None) -> go.Figure:
    """Where each less-structured window overtakes each more-structured one, per seed and on average."""
    fig = go.Figure()
    labels, missing = [], []
    for c in analysis["crossovers"]:
        pair = f"w={c['more_structure']} → w={c['less_structure']}"
        label = f"{pair} ({c['seeds_with_crossover']}/{c['seeds']} seeds)"
        if c["flops_mean"] is None:
            missing.append(pair)
            continue
        labels.append(label)
        found = [f for f in c["flops_per_seed"] if f is not None]
        fig.add_trace(go.Scatter(x=found, y=[label] * len(found), mode="markers", showlegend=False,
                                 marker=dict(size=9, symbol="circle-open", color="#555555", line=dict(width=2)),
                                 hovertemplate="one seed: %{x:.3g} FLOPs<extra></extra>"))
        mean = c["flops_mean"]
        fig.add_trace(go.Scatter(
            x=[mean], y=[label], mode="markers", showlegend=False,
            marker=dict(size=14, symbol="diamond", color=window_color(c["less_structure"]),
                        line=dict(color="#222222", width=1)),
            error_x=dict(type="data", symmetric=False, array=[c["flops_max"] - mean], arrayminus=[mean - c["flops_min"]],
                         color="#555555", thickness=2, width=0),
            hovertemplate=f"{label}<br>geometric mean %{{x:.3g}} FLOPs<br>"
                          f"{c['seeds_with_crossover']}/{c['seeds']} seeds cross<extra></extra>"))
    _budget_line(fig, budget, label=False)  # the rows would hide a label; the notice names the line
    fig.update_xaxes(type="log", exponentformat="power", title="training FLOPs where less structure overtakes for good",
                     range=_log_range(analysis))
    fig.update_yaxes(title="", categoryorder="array", categoryarray=labels[::-1], type="category", automargin=True)
    if missing:
        fig.add_annotation(text="no crossover within this budget: " + ", ".join(missing), xref="paper",
                           yref="paper", x=0.0, y=-0.22, xanchor="left", showarrow=False,
                           font=dict(size=13, color="#555555"))
    if not labels:
        fig.add_annotation(text="no pair of windows crosses within this budget", xref="paper", yref="paper",
                           x=0.5, y=0.5, showarrow=False, font=dict(size=16, color="#555555"))
    styled(fig, "Crossover points: diamond = geometric mean over seeds, circles = single seeds",
           Evidence(Kind.MEASURED, _detail(analysis)), height=max(320, 120 + 40 * len(labels)))
    return fig
