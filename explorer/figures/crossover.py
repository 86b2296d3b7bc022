"""Figures of the inductive-bias page: pure functions from `explorer.experiments.crossover.analyse` output
to Plotly figures (slides 10, 13-15)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale
from plotly.subplots import make_subplots

from explorer.evidence import Evidence, Kind
from explorer.figures.theme import BADGE_CHARS, SEQUENTIAL, styled

BUDGET_COLOR = "#D55E00"
MAX_WINDOW = 48
# what the x axis is: more steps of one fixed-size model, not bigger models (not compute-optimal scaling)
AXIS_TITLE = "training FLOPs = steps × FLOPs per step, one model size"


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
    fig.update_xaxes(type="log", exponentformat="power", title=AXIS_TITLE, range=_log_range(analysis))
    fig.update_yaxes(title="held-out accuracy (weighted over lags)", range=[0, 1.02])
    fig.update_layout(legend=dict(title="attention window"))
    styled(fig, "Accuracy vs training compute of one model size, one curve per structure level",
           Evidence(Kind.MEASURED, _detail(analysis) + "; band = seed min-max; dashed = closed-form ceiling",
                    also=(Kind.FORMULA,)), height=height, badge_chars=badge_chars)
    return fig


def best_structure(analysis: dict, budget: float | None = None) -> go.Figure:
    """b*(r) as a step curve over the share of seed resamples in which each window is on top.

    Top: the window with the best seed mean at each checkpoint; where no window is clearly best (a lead
    under `MIN_LEAD` or a share under `CLEAR_CONFIDENCE`) the point is hollow, grey and named "no clear
    winner", and the step curve skips it. Bottom: the bootstrap shares, stacked, with the threshold drawn
    (absent for one seed, which gives nothing to resample).
    """
    rows, boot, shares = analysis["b_star"], analysis["bootstrap"], analysis["top_share"]
    clear = [r for r in rows if r["clear"]]
    unclear = [r for r in rows if not r["clear"]]
    fig = make_subplots(rows=2 if shares else 1, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        row_heights=[0.55, 0.45] if shares else None)

    def confidence(r: dict) -> str:
        return "one seed: no bootstrap" if r["confidence"] is None else f"on top in {r['confidence']:.0%} of resamples"

    if clear:
        x, y = [r["flops"] for r in clear], [r["window"] for r in clear]
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", line=dict(shape="hv", color="#555555", width=2),
                                 hoverinfo="skip", showlegend=False), row=1, col=1)
        fig.add_trace(go.Scatter(x=x, y=y, mode="markers", name="clear winner",
                                 marker=dict(size=12, color=[window_color(w) for w in y],
                                             line=dict(color="#222222", width=1)),
                                 customdata=[[r["lead"], confidence(r)] for r in clear],
                                 hovertemplate="%{x:.3g} FLOPs: best window %{y}<br>lead %{customdata[0]:.3f}, "
                                               "%{customdata[1]}<extra></extra>"), row=1, col=1)
    if unclear:
        fig.add_trace(go.Scatter(x=[r["flops"] for r in unclear], y=[r["window"] for r in unclear], mode="markers",
                                 name="no clear winner (argmax shown)",
                                 marker=dict(size=10, symbol="circle-open", color="#999999", line=dict(width=2)),
                                 customdata=[[r["lead"], confidence(r)] for r in unclear],
                                 hovertemplate="%{x:.3g} FLOPs: no clear winner; argmax %{y}<br>"
                                               "lead %{customdata[0]:.3f}, %{customdata[1]}<extra></extra>"),
                      row=1, col=1)
    windows = analysis["windows"]
    if shares:
        length = analysis["config"]["length"]
        for w in windows:
            name = window_name(w, length)
            fig.add_trace(go.Scatter(x=analysis["flops"], y=shares[w], mode="lines", stackgroup="share",
                                     name=name, line=dict(color=window_color(w), width=0.5), showlegend=False,
                                     hovertemplate=f"{name}: on top in %{{y:.0%}} of resamples<extra></extra>"),
                          row=2, col=1)
        fig.add_hline(y=boot["threshold"], line=dict(color="#222222", width=1.5, dash="dash"), row=2, col=1,
                      annotation_text=f"clear: {boot['threshold']:.0%}", annotation_position="top left")
        fig.update_yaxes(title="share on top", range=[0, 1], tickformat=".0%", row=2, col=1)
    _budget_line(fig, budget)
    fig.update_xaxes(type="log", exponentformat="power", range=_log_range(analysis))
    fig.update_xaxes(title=f"{AXIS_TITLE} (the resource r)", row=2 if shares else 1, col=1)
    fig.update_yaxes(type="log", title="best window b*(r)", tickvals=windows, ticktext=[str(w) for w in windows],
                     range=[math.log10(min(windows)) - 0.15, math.log10(max(windows)) + 0.15], row=1, col=1)
    fig.update_layout(legend=dict(orientation="h", x=0.0, y=1.02, xanchor="left", yanchor="bottom"))
    design = (f"paired bootstrap over {boot['seeds']} seeds: {boot['resamples']} resamples, {boot['distinct']} "
              "distinct" if shares else "one seed: no bootstrap")
    styled(fig, "b*(r): the best structure as compute grows, and how sure",
           Evidence(Kind.MEASURED, _detail(analysis) + f"; argmax of seed means; {design}"),
           height=560 if shares else 420)
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
