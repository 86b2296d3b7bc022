"""Figures of the length-asymmetry page (slides 56-58): pure functions from `explorer.experiments.lengths`
data to Plotly figures.

Colours follow the app's concepts: the encoder (bidirectional) orange, every causal stack blue, cross-attention
green; parameter groups that do no matmul work (embedding lookups) are pale and hatched.
"""

from __future__ import annotations

import html

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.experiments.lengths import ARMS, DECODER, ENCDEC, MATCHINGS, percent
from explorer.experiments.lengths.view import ratio_label
from explorer.figures.theme import CONCEPT_COLORS, OKABE_ITO, below_badge, keep_width, styled, wrap_axis_title
from explorer.formatting import p_label, p_text, si

ROLE_COLORS = {
    "causal": CONCEPT_COLORS["causal"],
    "bidirectional": CONCEPT_COLORS["bidirectional"],
    "cross": CONCEPT_COLORS["cross"],
    "head": "#6B6B6B",  # dark enough for its white label (WCAG 4.5:1)
    "embedding": "#D9D9D9",
}
FAMILY_COLORS = {DECODER: CONCEPT_COLORS["causal"], ENCDEC: CONCEPT_COLORS["bidirectional"]}
ARM_COLORS = {
    "decoder": CONCEPT_COLORS["causal"],
    "encdec_params": CONCEPT_COLORS["bidirectional"],
    "encdec_flops": OKABE_ITO[4],
}
BOOK = "fig-lengths"
PANEL_TITLE_CHARS = 12  # display width of a y-axis title that fits one allocation panel on one line
MAX_POINTS = 2_000  # pairs drawn in the distribution scatter (the statistics use every pair)


def _family(family: str) -> str:
    """'decoder-only' or 'encoder-decoder' in the run's language."""
    return content.text(BOOK, f"family-{family.replace('_', '-')}")


def _arm(arm: str) -> str:
    """A toy arm's name (`ARM_NAMES`) in the run's language."""
    return content.text(BOOK, f"arm-{arm.replace('_', '-')}")


def _shape_text(shape: dict) -> str:
    ff = shape["d_ff"] or 4 * shape["d_model"]
    return content.text(
        BOOK, "shape", d=shape["d_model"], layers=shape["n_layers"], ff=ff, vocab=f"{shape['vocab_size']:,}"
    )


def _log_ticks(values: list[float]) -> dict:
    """Ticks at 1, 2 and 5 times powers of ten across the values, labelled 100M, 2G ... (no minor labels)."""
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    ticks = [
        m * 10.0**e
        for e in range(lo, hi + 1)
        for m in (1, 2, 5)
        if min(values) / 1.5 <= m * 10.0**e <= max(values) * 1.5
    ]
    return dict(type="log", tickvals=ticks, ticktext=[si(t) for t in ticks])


# ----------------------------------------------------------------------------------------------- allocation


def allocation_chart(
    alloc: dict, title: str | None = None, height: int = 620, tokens_max: float | None = None
) -> go.Figure:
    """Each parameter group as a box: width = its parameters, height = tokens per example it reads.

    The height is on a log axis fixed from 1 token to `tokens_max` (the page passes the most its length sliders
    reach), so moving a length moves the boxes that read it and nothing else; an axis fitted to Lx + Ly drew
    every setting at the same height. The FLOPs per example are in each row's title. One row per family, on
    shared axes.
    """
    lx, ly = alloc["lx"], alloc["ly"]
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.14,
        subplot_titles=[
            content.text(
                BOOK,
                "allocation-panel",
                family=_family(f),
                parameters=si(alloc["families"][f]["parameters"]),
                flops=si(alloc["families"][f]["flops"]),
            )
            for f in (DECODER, ENCDEC)
        ],
    )
    layers = alloc["shape"]["n_layers"]
    traces, rows = [], []
    for row, family in enumerate((DECODER, ENCDEC), start=1):
        groups = alloc["families"][family]["groups"]
        widths = [g["parameters"] / 1e6 for g in groups]
        lefts = np.concatenate([[0.0], np.cumsum(widths)[:-1]])
        for role in dict.fromkeys(g["role"] for g in groups):
            pick = [i for i, g in enumerate(groups) if g["role"] == role]
            lookup = role == "embedding"
            traces.append(
                go.Bar(
                    x=[lefts[i] + widths[i] / 2 for i in pick],
                    y=[groups[i]["tokens"] for i in pick],
                    width=[widths[i] for i in pick],
                    name=_role_name(role),
                    legendgroup=role,
                    showlegend=row == 2,  # every role of the first row appears in the second
                    marker=dict(
                        color=ROLE_COLORS[role],
                        line=dict(color="white", width=1.5),
                        pattern=dict(shape="/" if lookup else "", fgcolor="#999999"),
                    ),
                    text=[_group(groups[i], "short", layers) for i in pick],
                    textposition="inside",
                    insidetextanchor="middle",
                    textfont=dict(color="#222222" if lookup else "white", size=13),
                    customdata=[
                        [
                            _group(groups[i], "group", layers),
                            groups[i]["parameters"],
                            groups[i]["tokens"],
                            groups[i]["flops"],
                            _group(groups[i], "note", layers),
                        ]
                        for i in pick
                    ],
                    hovertemplate=content.text(BOOK, "allocation-hover"),
                )
            )
            rows.append(row)
    fig.add_traces(traces, rows=rows, cols=[1] * len(rows))
    groups = alloc["families"][ENCDEC]["groups"]
    target_side = [i for i, g in enumerate(groups) if g["reads"] == "target"]
    left = sum(g["parameters"] for g in groups[: target_side[0]]) / 1e6
    width = sum(groups[i]["parameters"] for i in target_side if i < target_side[0] + 2) / 1e6
    fig.add_annotation(
        x=left + width / 2,
        y=math.log10(ly),
        xref="x2",
        yref="y2",
        yanchor="bottom",
        showarrow=False,
        yshift=4,
        text=content.text(BOOK, "decoder-side", ly=_num(ly)),
        font=dict(size=14, color=ROLE_COLORS["causal"]),
    )
    for row, (text, y) in enumerate(((f"Lx + Ly = {_num(lx + ly)}", lx + ly), (f"Lx = {_num(lx)}", lx)), start=1):
        fig.add_hline(y=y, line=dict(color="#555555", dash="dot", width=1), row=row, col=1)
        fig.add_annotation(
            text=text,
            x=1.0,
            xref="x domain",
            y=math.log10(y),
            yref=f"y{'' if row == 1 else row}",
            xanchor="right",
            yanchor="bottom",
            showarrow=False,
            font=dict(size=13, color="#555555"),
        )
    top = max(tokens_max or 0, lx + ly)
    # each panel is about 100 px tall on the first screen: a longer title (Chinese) takes two lines, not two panels
    fig.update_yaxes(
        title_text=wrap_axis_title(content.text(BOOK, "tokens-read"), chars=PANEL_TITLE_CHARS), **token_axis(top)
    )
    fig.update_xaxes(title_text=content.text(BOOK, "allocation-x"), row=2, col=1)
    plot_px = height - 200  # about: the title and badge rows above the plot, the axis title below it
    fig.update_layout(
        bargap=0,
        uniformtext=dict(minsize=10, mode="hide"),  # legend 84 px under the plot
        legend=dict(orientation="h", x=0, y=-84 / plot_px, yanchor="top"),
    )
    fig.update_annotations(selector=dict(yref="paper", xanchor="center"), x=0.0, xanchor="left")
    below_badge(fig)
    keep_width(fig)  # the panel titles carry parameters and FLOPs: a phone scrolls them, not cuts them
    return styled(
        fig,
        title or content.text(BOOK, "allocation-title", lx=_num(lx), ly=_num(ly)),
        Evidence(Kind.FORMULA, content.text(BOOK, "costs-exact", shape=_shape_text(alloc["shape"]))),
        height=height,
    )


TOKEN_FLOOR = 0.8  # the foot of the token axis: a box that reads one token still has a height


def token_axis(top: float) -> dict:
    """A log axis of tokens from under 1 to above `top`, ticked at 1, 10, 100 ... (labels 1k, 10k beyond)."""
    ticks = [10**e for e in range(0, math.floor(math.log10(top)) + 1)]
    return dict(
        type="log",
        range=[math.log10(TOKEN_FLOOR), math.log10(top * 1.6)],
        tickvals=ticks,
        ticktext=[si(t) for t in ticks],
    )


def _num(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def _role_name(role: str) -> str:
    return content.text(BOOK, f"role-{role}")


def _group(group: dict, what: str, layers: int) -> str:
    """A parameter group's name (`what` = "group"), its short label in the box ("short") or its note ("note"),
    in the run's language: a group is known by its role and the tokens it reads."""
    return content.text(BOOK, f"{what}-{group['role']}-{group['reads']}", layers=layers)


def parity_chart(parity: dict, lx: int, ly: int, shape: dict) -> go.Figure:
    """FLOPs per example against parameters as layers vary, for both families, and the equal-cost point."""
    fig = go.Figure()
    dec, eq = parity["decoder"], parity["equal_cost"]
    for family in (DECODER, ENCDEC):
        c = parity["curves"][family]
        per = content.text(BOOK, "per-layers") if family == DECODER else content.text(BOOK, "per-layers-per-stack")
        fig.add_trace(
            go.Scatter(
                x=c["parameters"],
                y=c["flops"],
                mode="lines",
                name=_family(family),
                line=dict(color=FAMILY_COLORS[family], width=3),
                customdata=c["layers"],
                hovertemplate=content.text(BOOK, "parity-hover", per=per),
            )
        )
        i = shape["n_layers"] - 1
        fig.add_trace(
            go.Scatter(
                x=[c["parameters"][i]],
                y=[c["flops"][i]],
                mode="markers",
                showlegend=False,
                marker=dict(color=FAMILY_COLORS[family], size=13, line=dict(color="white", width=2)),
                hovertemplate=content.text(BOOK, "parity-this-shape", layers=shape["n_layers"], per=per),
            )
        )
    fig.add_hline(y=dec["flops"], line=dict(color="#555555", dash="dot", width=1.5))
    fig.add_trace(
        go.Scatter(
            x=[eq["parameters"]],
            y=[eq["flops"]],
            mode="markers",
            name=content.text(BOOK, "parity-same-flops"),
            marker=dict(symbol="star", size=18, color=FAMILY_COLORS[ENCDEC], line=dict(color="#222222", width=1.5)),
            hovertemplate=content.text(BOOK, "parity-star-hover", layers=eq["layers_per_stack"]),
        )
    )
    fig.add_annotation(
        x=math.log10(eq["parameters"]),
        y=math.log10(eq["flops"]),
        ax=40,
        ay=60,
        showarrow=True,
        arrowhead=2,
        xanchor="left",
        font=dict(size=14),
        text=content.text(BOOK, "parity-arrow", ratio=eq["parameter_ratio"]),
    )
    curves = parity["curves"].values()
    fig.update_xaxes(
        title_text=content.text(BOOK, "parameters"), **_log_ticks([p for c in curves for p in c["parameters"]])
    )
    fig.update_yaxes(
        title_text=content.text(BOOK, "forward-flops"), **_log_ticks([f for c in curves for f in c["flops"]])
    )
    fig.update_layout(legend=dict(x=0.01, y=0.99, xanchor="left", yanchor="top"))
    layers = parity["curves"][DECODER]["layers"]
    return styled(
        fig,
        content.text(BOOK, "parity-title", lx=lx, ly=ly, first=layers[0], last=layers[-1]),
        Evidence(Kind.FORMULA, content.text(BOOK, "costs-exact", shape=_shape_text(shape))),
        height=520,
    )


# ----------------------------------------------------------------------------------------------- distributions


def distribution_chart(pairs: pd.DataFrame, stats: dict, label: str, synthetic: bool) -> go.Figure:
    """Input vs target length per example (log axes), the diagonal Lx = Ly and the means."""
    shown = pairs
    if len(pairs) > MAX_POINTS:
        shown = pairs.sample(MAX_POINTS, random_state=0)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=shown["input_len"],
            y=shown["target_len"],
            mode="markers",
            name=content.text(BOOK, "one-example"),
            marker=dict(color=CONCEPT_COLORS["data"], size=5, opacity=0.35),
            hovertemplate="Lx = %{x:,}<br>Ly = %{y:,}<extra></extra>",
        )
    )
    lo = max(1, min(pairs["input_len"].min(), pairs["target_len"].min()))
    hi = max(pairs["input_len"].max(), pairs["target_len"].max())
    fig.add_trace(
        go.Scatter(
            x=[lo, hi],
            y=[lo, hi],
            mode="lines",
            name="Lx = Ly",
            line=dict(color="#777777", dash="dash", width=2),
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[stats["mean_input"]],
            y=[stats["mean_target"]],
            mode="markers",
            name=content.text(BOOK, "means"),
            marker=dict(symbol="x", size=18, color=OKABE_ITO[3], line=dict(width=2, color="white")),
            hovertemplate=content.text(BOOK, "means-hover"),
        )
    )
    fig.add_annotation(
        x=math.log10(stats["mean_input"]),
        y=math.log10(stats["mean_target"]),
        ax=30,
        ay=-40,
        showarrow=True,
        arrowhead=2,
        xanchor="left",
        font=dict(size=14, color=OKABE_ITO[3]),
        bgcolor="rgba(255,255,255,0.85)",
        text=f"E[Lx] = {stats['mean_input']:,.0f}, E[Ly] = {stats['mean_target']:,.0f}",
    )
    fig.update_xaxes(type="log", dtick=1, title_text=content.text(BOOK, "input-length"))
    fig.update_yaxes(type="log", dtick=1, title_text=content.text(BOOK, "target-length"))
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.2, yanchor="top"))
    drawn = content.text(BOOK, "drawn", n=f"{MAX_POINTS:,}") if len(pairs) > MAX_POINTS else ""
    if synthetic:
        evidence = Evidence(
            Kind.SCHEMATIC,
            content.text(BOOK, "pairs-generated", n=f"{stats['n']:,}", drawn=drawn),
            note=content.text(BOOK, "synthetic-note"),
        )
    else:
        evidence = Evidence(
            Kind.HISTORICAL,
            content.text(BOOK, "pairs-given", n=f"{stats['n']:,}", drawn=drawn),
            note=content.text(BOOK, "your-data-note"),
        )
    return styled(
        fig, content.text(BOOK, "distribution-title", label=html.escape(label)), evidence, height=500
    )  # a file name


# ----------------------------------------------------------------------------------------------- the toy experiment


def _toy_detail(cfg: dict, seeds: int) -> str:
    return content.text(BOOK, "toy-detail", layers=cfg["n_layers"], d=cfg["d_model"], seeds=seeds, steps=cfg["steps"])


def gap_chart(analysis: dict) -> go.Figure:
    """Per ratio and matching: the encoder-decoder's loss relative to decoder-only, per seed and the seed mean,
    with the exact p and, where the rows carry it, the Holm-corrected one."""
    matchings = [m for m in MATCHINGS if any(r["matching"] == m for r in analysis["rows"])]
    fig = make_subplots(
        rows=1,
        cols=len(matchings),
        shared_yaxes=True,
        horizontal_spacing=0.06,
        subplot_titles=[content.text(BOOK, f"matching-{m}") for m in matchings],
    )
    for col, matching in enumerate(matchings, start=1):
        rows = [r for r in analysis["rows"] if r["matching"] == matching]
        labels = [ratio_label(r["lx"], r["ly"]) for r in rows]
        color = ARM_COLORS[MATCHINGS[matching]]
        for i, r in enumerate(rows):
            jitter = np.linspace(-0.12, 0.12, len(r["gaps"])) if len(r["gaps"]) > 1 else np.zeros(1)
            fig.add_trace(
                go.Scatter(
                    x=i + jitter,
                    y=[percent(g) for g in r["gaps"]],
                    mode="markers",
                    name=content.text(BOOK, "one-seed"),
                    legendgroup="seed",
                    showlegend=col == 1 and i == 0,
                    marker=dict(color=color, size=9, opacity=0.55),
                    customdata=r["seeds"],
                    hovertemplate=content.text(BOOK, "seed-hover"),
                ),
                row=1,
                col=col,
            )
        fig.add_trace(
            go.Scatter(
                x=list(range(len(rows))),
                y=[percent(r["gap_mean"]) for r in rows],
                mode="markers",
                name=content.text(BOOK, "mean-over-seeds"),
                legendgroup="mean",
                showlegend=col == 1,
                marker=dict(color="#222222", size=13, symbol="diamond"),
                customdata=[[r["encdec_lower"], r["n"], p_text(r["p"]), p_text(r.get("holm_p"))] for r in rows],
                hovertemplate=content.text(BOOK, "mean-hover"),
            ),
            row=1,
            col=col,
        )
        for i, r in enumerate(rows):
            fig.add_annotation(
                x=i,
                y=0.0,
                xref=f"x{'' if col == 1 else col}",
                yref="paper",
                yanchor="bottom",
                text=content.text(BOOK, "p-under", p=p_label(r["p"]), holm=p_text(r.get("holm_p"))),
                showarrow=False,
                font=dict(size=13, color="#555555"),
                name="p-value",
            )
        fig.add_hline(y=0, line=dict(color="#555555", width=1.5), row=1, col=col)
        fig.update_xaxes(
            tickvals=list(range(len(rows))),
            ticktext=labels,
            range=[-0.5, len(rows) - 0.5],
            title_text=content.text(BOOK, "ratio-axis"),
            row=1,
            col=col,
        )
    fig.update_yaxes(title_text=content.text(BOOK, "gap-axis"), ticksuffix="%", row=1, col=1)
    shown = [percent(g) for r in analysis["rows"] for g in r["gaps"]] or [0.0]
    low, high = min(shown + [0.0]), max(shown + [0.0])
    span = (high - low) or 1.0
    fig.update_yaxes(range=[low - 0.3 * span, high + 0.08 * span])  # room under the points for the p-values
    below_badge(fig)
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.22, yanchor="top"))
    cfg = analysis["config"]
    n = max((len(r["seeds"]) for r in analysis["rows"]), default=0)
    return styled(fig, content.text(BOOK, "gap-title"), Evidence(Kind.MEASURED, _toy_detail(cfg, n)), height=560)


def _decade(exponent: int) -> str:
    """A log axis' tick: 0.1, 1, 10 as numbers, smaller and larger powers as 10⁻⁴ (short, so the axis title keeps
    clear of it)."""
    return f"{10.0**exponent:g}" if -1 <= exponent <= 2 else f"10<sup>{exponent}</sup>"


def curves_chart(curves: list[dict], cfg: dict) -> go.Figure:
    """Held-out loss against training step per ratio: the seed mean and the range over seeds, per arm."""
    present = {(c["lx"], c["ly"]) for c in curves}
    ratios = [tuple(r) for r in cfg["ratios"] if tuple(r) in present]
    fig = make_subplots(
        rows=1,
        cols=len(ratios),
        shared_yaxes=True,
        horizontal_spacing=0.04,
        subplot_titles=[content.text(BOOK, "ratio-panel", ratio=ratio_label(*r)) for r in ratios],
    )
    for col, ratio in enumerate(ratios, start=1):
        here = {c["arm"]: c for c in curves if (c["lx"], c["ly"]) == ratio}
        for c in (here[a] for a in ARMS if a in here):
            color = ARM_COLORS[c["arm"]]
            fig.add_trace(
                go.Scatter(
                    x=c["steps"] + c["steps"][::-1],
                    y=c["high"] + c["low"][::-1],
                    fill="toself",
                    fillcolor=color,
                    opacity=0.15,
                    line=dict(width=0),
                    showlegend=False,
                    hoverinfo="skip",
                ),
                row=1,
                col=col,
            )
            fig.add_trace(
                go.Scatter(
                    x=c["steps"],
                    y=c["mean"],
                    mode="lines+markers",
                    name=_arm(c["arm"]),
                    legendgroup=c["arm"],
                    showlegend=col == 1,
                    line=dict(color=color, width=2.5),
                    marker=dict(size=5),
                    hovertemplate=content.text(BOOK, "curve-hover", arm=_arm(c["arm"]), seeds=c["seeds"]),
                ),
                row=1,
                col=col,
            )
        fig.update_xaxes(title_text=content.text(BOOK, "training-step"), row=1, col=col)
    losses = [v for c in curves for v in c["low"] + c["high"] if v > 0]
    decades = range(math.floor(math.log10(min(losses))), math.ceil(math.log10(max(losses))) + 1)
    fig.update_yaxes(type="log", tickvals=[10.0**e for e in decades], ticktext=[_decade(e) for e in decades])
    fig.update_yaxes(title_text=content.text(BOOK, "loss-axis"), title_standoff=12, row=1, col=1)
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.3, yanchor="top"), margin=dict(b=130))  # under the titles
    below_badge(fig)
    seeds = max((c["seeds"] for c in curves), default=0)
    return styled(fig, content.text(BOOK, "curves-title"), Evidence(Kind.MEASURED, _toy_detail(cfg, seeds)), height=500)
