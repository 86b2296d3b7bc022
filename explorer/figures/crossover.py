"""Figures of the inductive-bias page: pure functions from `explorer.experiments.crossover.analyse` output
to Plotly figures (slides 10, 13-15)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale
from plotly.subplots import make_subplots

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.figures.theme import BADGE_CHARS, SEQUENTIAL, styled
from explorer.formatting import seed_list

BOOK = "fig-crossover"
BUDGET_COLOR = "#D55E00"
MAX_WINDOW = 48
# the x axis (section axis-title) is every model size's own FLOPs (steps x its FLOPs per step), short so a phone
# shows it whole; the y title (y-title) is short too: a long one was cut on the first screen at 1440 px


def window_color(window: int) -> str:
    """One colour per window on every figure: dark = narrow window (more structure), light = wide (less)."""
    t = math.log2(max(window, 1)) / math.log2(MAX_WINDOW)
    return sample_colorscale(SEQUENTIAL, [0.85 * min(t, 1.0)])[0]


def window_name(window: int, length: int = MAX_WINDOW) -> str:
    return content.text(BOOK, "window-full", window=window) if window >= length else f"w={window}"


def recipe_name(analysis: dict) -> str:
    if analysis.get("lr") is None:
        return content.text(BOOK, "recipe-best")
    return content.text(BOOK, "recipe-one", lr=f"{analysis['lr']:g}")


def _detail(analysis: dict) -> str:
    cfg = analysis["config"]
    seeds = analysis["seeds"]
    seed_text = seed_list(seeds)
    return content.text(
        BOOK,
        "detail",
        layers=cfg["n_layers"],
        widths=", ".join(map(str, analysis["widths"])),
        heads=cfg["n_heads"],
        recipe=recipe_name(analysis),
        steps=max(analysis["steps"]),
        seeds=seed_text,
    )


def _log_range(analysis: dict) -> list[float]:
    xs = np.log10(analysis["flops"])
    return [xs[0] - 0.08, xs[-1] + 0.08]


def _budget_line(fig: go.Figure, budget: float | None, label: bool = True) -> None:
    if budget is None:
        return
    fig.add_vline(x=budget, line=dict(color=BUDGET_COLOR, width=2, dash="dot"))
    if label:
        fig.add_annotation(
            x=math.log10(budget),
            y=0.0,
            yref="paper",
            text=content.text(BOOK, "budget"),
            showarrow=False,
            xanchor="left",
            yanchor="bottom",
            xshift=4,
            font=dict(color=BUDGET_COLOR, size=14),
            bgcolor="white",  # it may sit on the b* markers: an opaque box keeps it readable on any of them
        )


def _sizes(fig: go.Figure, analysis: dict, w: int, name: str) -> None:
    """Each model size of window w as a thin dotted line (seed mean at its own checkpoints): the frontier is
    their upper envelope."""
    for run in analysis["runs"].values():
        if run["window"] != w:
            continue
        label = content.text(BOOK, "size-name", name=name, width=run["width"], lr=f"{run['lr']:g}")
        fig.add_trace(
            go.Scatter(
                x=run["flops"],
                y=run["per_seed"].mean(0),
                mode="lines",
                legendgroup=name,
                showlegend=False,
                opacity=0.55,
                line=dict(color=window_color(w), width=1, dash="dot"),
                hovertemplate=content.text(BOOK, "size-hover", label=label) + "<extra></extra>",
            )
        )


def _crossing_mark(fig: go.Figure, analysis: dict, shown: list[int]) -> None:
    """Where the less-structured frontier of the two shown windows overtakes the other, seed range as a bar."""
    c = next((c for c in analysis["crossovers"] if [c["more_structure"], c["less_structure"]] == shown), None)
    if c is None or not c["flops_of_mean_curves"]:
        return
    x = c["flops_of_mean_curves"]
    y = float(np.interp(math.log10(x), np.log10(analysis["flops"]), analysis["curves"][shown[1]]["mean"]))
    bar = (
        dict(
            type="data",
            symmetric=False,
            array=[c["flops_max"] - x],
            arrayminus=[x - c["flops_min"]],
            color="#444444",
            thickness=2,
            width=6,
        )
        if c["flops_min"]
        else None
    )
    fig.add_trace(
        go.Scatter(
            x=[x],
            y=[y],
            mode="markers",
            name=content.text(BOOK, "crossover-name"),
            error_x=bar,
            marker=dict(size=14, symbol="diamond", color="#ffffff", line=dict(color="#222222", width=2)),
            hovertemplate=content.text(BOOK, "crossover-hover", crossed=c["seeds_with_crossover"], seeds=c["seeds"])
            + "<extra></extra>",
        )
    )


def frontier_curves(
    analysis: dict,
    budget: float | None = None,
    windows: list[int] | None = None,
    height: int = 560,
    badge_chars: int = BADGE_CHARS,
) -> go.Figure:
    """Slide 10 measured: each window's compute-optimal frontier (best model size at each compute, seed
    mean, band = seed min-max), its sizes as thin lines when two windows are shown, the closed-form
    ceilings and the crossing (`height`, `badge_chars`: a page's first screen passes smaller ones)."""
    fig = go.Figure()
    x = analysis["flops"]
    length = analysis["config"]["length"]
    shown = [w for w in analysis["windows"] if windows is None or w in windows]
    for w in shown:
        c, color = analysis["curves"][w], window_color(w)
        name = window_name(w, length)
        if len(shown) <= 2:
            _sizes(fig, analysis, w, name)
        fig.add_trace(
            go.Scatter(
                x=np.concatenate([x, x[::-1]]),
                y=np.concatenate([c["max"], c["min"][::-1]]),
                fill="toself",
                fillcolor=color,
                opacity=0.18,
                line=dict(width=0),
                hoverinfo="skip",
                showlegend=False,
                legendgroup=name,
            )
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=c["mean"],
                mode="lines",
                name=name,
                legendgroup=name,
                line=dict(color=color, width=4),
                customdata=[[d] for d in c["width"]],
                hovertemplate=content.text(BOOK, "frontier-hover", name=name) + "<extra></extra>",
            )
        )
        top = analysis["ceilings"][w]
        fig.add_trace(
            go.Scatter(
                x=[x[0], x[-1]],
                y=[top, top],
                mode="lines",
                legendgroup=name,
                showlegend=False,
                line=dict(color=color, width=2, dash="dash"),
                hovertemplate=content.text(BOOK, "ceiling-hover", name=name, top=top) + "<extra></extra>",
            )
        )
    if len(shown) == 2:
        _crossing_mark(fig, analysis, shown)
    fig.add_hline(
        y=analysis["chance"],
        line=dict(color="#888888", width=1, dash="dot"),
        annotation_text=content.text(BOOK, "chance"),
        annotation_position="bottom right",
    )
    _budget_line(fig, budget)
    fig.update_xaxes(
        type="log", exponentformat="power", title=content.text(BOOK, "axis-title"), range=_log_range(analysis)
    )
    fig.update_yaxes(title=content.text(BOOK, "y-title"), range=[0, 1.02])
    fig.update_layout(legend=dict(x=0.01, y=0.98, xanchor="left", yanchor="top", bgcolor="rgba(255,255,255,0.6)"))
    styled(
        fig,
        content.text(BOOK, "title-frontier"),
        Evidence(Kind.MEASURED, content.text(BOOK, "detail-frontier", detail=_detail(analysis)), also=(Kind.FORMULA,)),
        height=height,
        badge_chars=badge_chars,
    )
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
    fig = make_subplots(
        rows=2 if shares else 1,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        row_heights=[0.55, 0.45] if shares else None,
    )

    def confidence(r: dict) -> str:
        if r["confidence"] is None:
            return content.text(BOOK, "no-bootstrap")
        return content.text(BOOK, "on-top", share=r["confidence"])

    if clear:
        x, y = [r["flops"] for r in clear], [r["window"] for r in clear]
        fig.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="lines",
                line=dict(shape="hv", color="#555555", width=2),
                hoverinfo="skip",
                showlegend=False,
            ),
            row=1,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="markers",
                name=content.text(BOOK, "clear-winner"),
                marker=dict(size=12, color=[window_color(w) for w in y], line=dict(color="#222222", width=1)),
                customdata=[[r["lead"], confidence(r)] for r in clear],
                hovertemplate=content.text(BOOK, "clear-hover") + "<extra></extra>",
            ),
            row=1,
            col=1,
        )
    if unclear:
        fig.add_trace(
            go.Scatter(
                x=[r["flops"] for r in unclear],
                y=[r["window"] for r in unclear],
                mode="markers",
                name=content.text(BOOK, "unclear-name"),
                marker=dict(size=10, symbol="circle-open", color="#999999", line=dict(width=2)),
                customdata=[[r["lead"], confidence(r)] for r in unclear],
                hovertemplate=content.text(BOOK, "unclear-hover") + "<extra></extra>",
            ),
            row=1,
            col=1,
        )
    windows = analysis["windows"]
    if shares:
        length = analysis["config"]["length"]
        for w in windows:
            name = window_name(w, length)
            fig.add_trace(
                go.Scatter(
                    x=analysis["flops"],
                    y=shares[w],
                    mode="lines",
                    stackgroup="share",
                    name=name,
                    line=dict(color=window_color(w), width=0.5),
                    showlegend=False,
                    hovertemplate=content.text(BOOK, "share-hover", name=name) + "<extra></extra>",
                ),
                row=2,
                col=1,
            )
        fig.add_hline(
            y=boot["threshold"],
            line=dict(color="#222222", width=1.5, dash="dash"),
            row=2,
            col=1,
            annotation_text=content.text(BOOK, "clear-threshold", threshold=boot["threshold"]),
            annotation_position="top left",
        )
        fig.update_yaxes(title=content.text(BOOK, "share-title"), range=[0, 1], tickformat=".0%", row=2, col=1)
    _budget_line(fig, budget)
    fig.update_xaxes(type="log", exponentformat="power", range=_log_range(analysis))
    fig.update_xaxes(title=content.text(BOOK, "axis-title-r"), row=2 if shares else 1, col=1)
    fig.update_yaxes(
        type="log",
        title=content.text(BOOK, "bstar-title"),
        tickvals=windows,
        ticktext=[str(w) for w in windows],
        range=[math.log10(min(windows)) - 0.15, math.log10(max(windows)) + 0.15],
        row=1,
        col=1,
    )
    fig.update_layout(legend=dict(orientation="h", x=0.0, y=1.02, xanchor="left", yanchor="bottom"))
    design = (
        content.text(
            BOOK, "bootstrap-design", seeds=boot["seeds"], resamples=boot["resamples"], distinct=boot["distinct"]
        )
        if shares
        else content.text(BOOK, "no-bootstrap")
    )
    styled(
        fig,
        content.text(BOOK, "title-bstar"),
        Evidence(Kind.MEASURED, content.text(BOOK, "detail-bstar", detail=_detail(analysis), design=design)),
        height=560 if shares else 420,
    )
    return fig


LR_SYMBOLS = ("triangle-up", "square", "triangle-down", "cross")


def crossover_points(analysis: dict, budget: float | None = None) -> go.Figure:
    """Where each less-structured frontier overtakes each more-structured one: per seed (circles), their
    geometric mean with the seed range (diamond), and with one learning rate for every size (other symbols):
    how far the recipe moves the crossing."""
    fig = go.Figure()
    labels, missing, legend = [], [], set()
    for c in analysis["crossovers"]:
        pair = f"w={c['more_structure']} → w={c['less_structure']}"
        label = content.text(BOOK, "pair-label", pair=pair, crossed=c["seeds_with_crossover"], seeds=c["seeds"])
        by_lr = {lr: x for lr, x in c.get("by_lr", {}).items() if x["flops_of_mean_curves"]}
        if c["flops_mean"] is None and not by_lr:
            missing.append(pair)
            continue
        labels.append(label)
        for (lr, x), symbol in zip(by_lr.items(), LR_SYMBOLS):
            name = content.text(BOOK, "lr-every-size", lr=lr)
            fig.add_trace(
                go.Scatter(
                    x=[x["flops_of_mean_curves"]],
                    y=[label],
                    mode="markers",
                    name=name,
                    legendgroup=name,
                    showlegend=name not in legend,
                    marker=dict(size=11, symbol=symbol, color="#ffffff", line=dict(color="#333333", width=2)),
                    hovertemplate=content.text(BOOK, "lr-hover", name=name) + "<extra></extra>",
                )
            )
            legend.add(name)
        if c["flops_mean"] is None:
            continue
        found = [f for f in c["flops_per_seed"] if f is not None]
        fig.add_trace(
            go.Scatter(
                x=found,
                y=[label] * len(found),
                mode="markers",
                name=content.text(BOOK, "one-seed"),
                legendgroup="seed",
                showlegend="seed" not in legend,
                marker=dict(size=9, symbol="circle-open", color="#555555", line=dict(width=2)),
                hovertemplate=content.text(BOOK, "one-seed-hover") + "<extra></extra>",
            )
        )
        legend.add("seed")
        mean = c["flops_mean"]
        fig.add_trace(
            go.Scatter(
                x=[mean],
                y=[label],
                mode="markers",
                name=content.text(BOOK, "mean-name", recipe=recipe_name(analysis)),
                legendgroup="mean",
                showlegend="mean" not in legend,
                marker=dict(
                    size=14,
                    symbol="diamond",
                    color=window_color(c["less_structure"]),
                    line=dict(color="#222222", width=1),
                ),
                error_x=dict(
                    type="data",
                    symmetric=False,
                    array=[c["flops_max"] - mean],
                    arrayminus=[mean - c["flops_min"]],
                    color="#555555",
                    thickness=2,
                    width=0,
                ),
                hovertemplate=content.text(
                    BOOK, "mean-hover", label=label, crossed=c["seeds_with_crossover"], seeds=c["seeds"]
                )
                + "<extra></extra>",
            )
        )
        legend.add("mean")
    _budget_line(fig, budget, label=False)  # the rows would hide a label; the notice names the line
    fig.update_xaxes(
        type="log", exponentformat="power", title=content.text(BOOK, "points-axis"), range=_log_range(analysis)
    )
    fig.update_yaxes(title="", categoryorder="array", categoryarray=labels[::-1], type="category", automargin=True)
    fig.update_layout(legend=dict(orientation="h", x=0.0, y=-0.18, xanchor="left", yanchor="top"), margin=dict(b=130))
    if missing:
        fig.add_annotation(
            text=content.text(BOOK, "no-crossover", pairs=", ".join(missing)),
            xref="paper",
            yref="paper",
            x=0.0,
            y=-0.42,
            xanchor="left",
            showarrow=False,
            font=dict(size=13, color="#555555"),
        )
    if not labels:
        fig.add_annotation(
            text=content.text(BOOK, "no-pair"),
            xref="paper",
            yref="paper",
            x=0.5,
            y=0.5,
            showarrow=False,
            font=dict(size=16, color="#555555"),
        )
    styled(
        fig,
        content.text(BOOK, "title-points"),
        Evidence(Kind.MEASURED, _detail(analysis)),
        height=max(380, 200 + 40 * len(labels)),
    )
    return fig
