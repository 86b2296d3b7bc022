"""Figures of the Bitter Lesson page (slides 8-9): pure functions from `explorer.experiments.bitter_lesson`
output to Plotly figures. Learning curves over data or compute, the finished ones with their seed band and the
crossover, the live ones run by run as they train."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.experiments import bitter_lesson as bl
from explorer.figures.theme import BADGE_CHARS, styled
from explorer.formatting import seed_list

BOOK = "fig-bitter-lesson"
COLORS = {"hand-built": "#E69F00", "transformer": "#0072B2"}
FLOOR_COLOR = "#555555"
AXES = ("data", "flops")
DTICK = {"data": "D2", "flops": 1}  # log ticks: 1, 2, 5 per decade over 3 decades of data; decades only over 7 of FLOPs
LIVE_TOP = 0.8  # nats: the live figure's fixed frame (chance is ln 2 = 0.69), so the curves grow into it
LEGEND_MARGIN = 120  # px under the plot: tick labels, the axis title, then the legend
UNDER = dict(orientation="h", x=0.0, xanchor="left", yref="container", y=0.0, yanchor="bottom")  # the figure's
# bottom edge, under the axis title at any height: on the compute axis no corner of the plot is free of data


def method_name(method: str) -> str:
    """A method as the legend names it: "hand-built (2 features)" or "Transformer (raw words)"."""
    return content.text(BOOK, f"name-{method}")


def axis_title(axis: str) -> str:
    return content.text(BOOK, f"axis-{axis}")


def _detail(cfg: dict, seeds: list[int]) -> str:
    return content.text(
        BOOK,
        "detail",
        seeds=seed_list(seeds),
        steps=cfg["steps"],
        batch=cfg["batch_size"],
        layers=cfg["n_layers"],
        d_model=cfg["d_model"],
        width=cfg["hand_width"],
        eval_size=cfg["eval_size"],
    )


def _floor(fig: go.Figure, floor: float, case: str) -> None:
    fig.add_hline(y=floor, line=dict(color=FLOOR_COLOR, width=2, dash="dot"))
    fig.add_annotation(
        x=0.0,
        xref="paper",
        y=floor,
        text=content.text(BOOK, f"floor-{case}", floor=floor),
        showarrow=False,
        xanchor="left",
        yanchor="bottom",
        font=dict(color=FLOOR_COLOR, size=14),
    )


def _crossing(fig: go.Figure, analysis: dict, axis: str) -> None:
    """The crossover of the mean curves as a diamond, its range over the seeds that cross as a bar."""
    c = analysis["crossover"]
    if c is None:
        return
    general = analysis["methods"]["transformer"]
    x = c[axis]
    y = float(np.interp(math.log(x), np.log(general[axis] if axis == "flops" else analysis["data"]), general["mean"]))
    low, high = c[f"{axis}_range"] or (x, x)
    fig.add_trace(
        go.Scatter(
            x=[x],
            y=[y],
            mode="markers",
            name=content.text(BOOK, "crossover-name"),
            error_x=dict(
                type="data",
                symmetric=False,
                array=[high - x],
                arrayminus=[x - low],
                color="#222222",
                thickness=2,
                width=6,
            ),
            marker=dict(size=14, symbol="diamond", color="white", line=dict(color="#222222", width=2)),
            hovertemplate=content.text(BOOK, "crossover-hover", crossed=c["seeds_crossed"], seeds=c["seeds"])
            + "<extra></extra>",
        )
    )


def learning_curves(
    analysis: dict, config: dict, axis: str = "data", height: int = 480, badge_chars: int = BADGE_CHARS
) -> go.Figure:
    """Held-out loss of both methods over data or compute: seed mean (thick), seed min-max (band), the floor
    the counts allow (dotted, closed form) and the crossover. On the compute axis the hand-built method's last
    loss runs on dashed: it has seen every example, and more compute on its two features cannot pass the floor."""
    if axis not in AXES:
        raise ValueError(f"axis must be one of {sorted(AXES)}, got {axis!r}")
    fig = go.Figure()
    right = analysis["methods"]["transformer"][axis][-1] if axis == "flops" else analysis["data"][-1]
    for method in bl.METHODS:
        m, color = analysis["methods"][method], COLORS[method]
        x = m["flops"] if axis == "flops" else analysis["data"]
        fig.add_trace(
            go.Scatter(
                x=np.concatenate([x, x[::-1]]),
                y=np.concatenate([m["high"], m["low"][::-1]]),
                fill="toself",
                fillcolor=color,
                opacity=0.2,
                line=dict(width=0),
                hoverinfo="skip",
                showlegend=False,
                legendgroup=method,
            )
        )
        name = method_name(method)
        fig.add_trace(
            go.Scatter(
                x=x,
                y=m["mean"],
                mode="lines+markers",
                name=name,
                legendgroup=method,
                line=dict(color=color, width=4),
                marker=dict(size=6),
                hovertemplate=content.text(BOOK, "curve-hover", name=name, axis=axis_title(axis)) + "<extra></extra>",
            )
        )
        if axis == "flops" and method == "hand-built" and x[-1] < right:
            fig.add_trace(
                go.Scatter(
                    x=[x[-1], right],
                    y=[m["mean"][-1]] * 2,
                    mode="lines",
                    legendgroup=method,
                    showlegend=False,
                    line=dict(color=color, width=2, dash="dash"),
                    hovertemplate=content.text(BOOK, "last-loss-hover") + "<extra></extra>",
                )
            )
    _floor(fig, analysis["counts_floor"]["loss"], analysis["case"])
    _crossing(fig, analysis, axis)
    top = max(float(analysis["methods"][m]["high"].max()) for m in bl.METHODS)
    fig.update_xaxes(type="log", exponentformat="power", dtick=DTICK[axis], title=axis_title(axis))
    fig.update_yaxes(title=content.text(BOOK, "y-title"), range=[0, top * 1.05])
    fig.update_layout(legend=UNDER, margin=dict(b=LEGEND_MARGIN))
    return styled(
        fig,
        content.text(BOOK, f"title-{analysis['case']}-{axis}"),
        Evidence(
            Kind.MEASURED,
            content.text(BOOK, "detail-bands", detail=_detail(config, analysis["seeds"])),
            also=(Kind.FORMULA,),
        ),
        height=height,
        badge_chars=badge_chars,
    )


def live_curves(partial: dict, axis: str = "data", height: int = 420) -> go.Figure:
    """The runs of a training in progress (`progress.share`'s dict): one line per method and seed, growing."""
    fig = go.Figure()
    shown = set()
    for run in partial.get("runs", []):
        method = run["method"]
        name = method_name(method)
        fig.add_trace(
            go.Scatter(
                x=run[axis],
                y=run["loss"],
                mode="lines+markers",
                name=name,
                legendgroup=method,
                showlegend=method not in shown,
                line=dict(color=COLORS[method], width=2),
                marker=dict(size=5),
                hovertemplate=content.text(BOOK, "live-hover", name=name, seed=run["seed"]) + "<extra></extra>",
            )
        )
        shown.add(method)
    cfg = bl.BitterConfig.from_dict(partial["config"])
    runs = partial.get("runs") or [{"case": cfg.cases[0]}]
    _floor(fig, bl.counts_floor(cfg)["loss"], runs[-1]["case"])
    ends = [cfg.checkpoint_steps()[0] * cfg.batch_size, cfg.steps * cfg.batch_size]  # the finished run's range
    if axis == "flops":
        ends = [ends[0] * cfg.flops_per_example("hand-built"), ends[1] * cfg.flops_per_example("transformer")]
    fig.update_xaxes(
        type="log",
        exponentformat="power",
        dtick=DTICK[axis],
        title=axis_title(axis),
        range=[math.log10(ends[0]) - 0.1, math.log10(ends[1]) + 0.1],
    )
    fig.update_yaxes(title=content.text(BOOK, "y-title"), range=[0, LIVE_TOP])
    fig.update_layout(legend=UNDER, margin=dict(b=LEGEND_MARGIN))
    return styled(
        fig,
        content.text(BOOK, "title-live"),
        Evidence(Kind.MEASURED, content.text(BOOK, "detail-live", detail=_detail(partial["config"], list(cfg.seeds)))),
        height=height,
    )
