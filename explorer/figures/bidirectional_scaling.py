"""Figures of slide 64, measured: the quality gap of bidirectional input against training compute, and the
serving cost it keeps in a chat. Pure functions: plain data in (`explorer.experiments.bidirectional_scaling`),
a Plotly figure out."""

from __future__ import annotations

import plotly.graph_objects as go

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.figures.theme import CONCEPT_COLORS, OKABE_ITO, styled
from explorer.formatting import plural, si

BOOK = "fig-bidirectional-scaling"  # every word these figures show: content/<lang>/fig-bidirectional-scaling.md

WIDTH_COLORS = (OKABE_ITO[5], OKABE_ITO[2], OKABE_ITO[4], OKABE_ITO[7], OKABE_ITO[3])  # by width, small to large
ZERO_COLOR = "#777777"


def _width_color(i: int) -> str:
    return WIDTH_COLORS[i % len(WIDTH_COLORS)]


def gap_vs_compute(points: list[dict], config: dict, height: int = 500) -> go.Figure:
    """The paired loss gap (decoder-only minus prefix-LM) against training FLOPs, one line per width.

    Above zero, bidirectional input helps; the bars run from the lowest to the highest seed's gap.
    """
    fig = go.Figure()
    widths = sorted({p["width"] for p in points})
    fig.add_hline(y=0.0, line=dict(color=ZERO_COLOR, dash="dash", width=1.5))
    for i, width in enumerate(widths):
        row = sorted((p for p in points if p["width"] == width), key=lambda p: p["flops"])
        fig.add_scatter(
            x=[p["flops"] for p in row],
            y=[p["gap"] for p in row],
            name=f"d = {width}",
            mode="lines+markers",
            line=dict(color=_width_color(i), width=2 + i),
            marker=dict(size=8 + 2 * i),
            error_y=dict(
                type="data",
                symmetric=False,
                array=[p["gap_high"] - p["gap"] for p in row],
                arrayminus=[p["gap"] - p["gap_low"] for p in row],
                thickness=1.5,
                width=4,
            ),
            customdata=[
                [p["steps"], p["gap_low"], p["gap_high"], p["decoder_loss"], p["prefix_lm_loss"], p["seeds"]]
                for p in row
            ],
            hovertemplate=content.text(BOOK, "gap-hover", width=width),
        )
    fig.update_xaxes(title=content.text(BOOK, "gap-x-axis"), type="log", dtick=1)  # decades only: readable on a phone
    fig.update_yaxes(title=content.text(BOOK, "gap-y-axis"), zeroline=False)
    # the legend under the plot, in one row: beside it, it would squeeze the plot on a phone
    fig.update_layout(
        legend=dict(
            title=content.text(BOOK, "gap-legend"), orientation="h", x=0.0, y=-0.22, xanchor="left", yanchor="top"
        )
    )
    seeds = max((p["seeds"] for p in points), default=0)
    task = config["task_name"]
    detail = content.text(
        BOOK,
        "gap-evidence",
        seeds=plural(seeds, "seed"),
        task=content.text(BOOK, "task-sort") if task == "sort" else task,
        length=config["length"],
        layers=plural(config["n_layers"], "layer"),
    )
    return styled(fig, content.text(BOOK, "gap-title"), Evidence(Kind.MEASURED, detail), height=height)


def serving_cost(rows: list[dict], width: int, layers: int, height: int = 420) -> go.Figure:
    """Cumulative FLOPs of a chat, turn by turn: bidirectional input re-encodes the whole chat every turn,
    causal input with a KV cache computes only the new tokens."""
    fig = go.Figure()
    turns = [r["turn"] for r in rows]
    for key, name, color, dash in (
        ("cum_reencode", content.text(BOOK, "serving-reencode"), CONCEPT_COLORS["bidirectional"], "solid"),
        ("cum_cached", content.text(BOOK, "serving-cached"), CONCEPT_COLORS["causal"], "dash"),
    ):
        fig.add_scatter(
            x=turns,
            y=[r[key] for r in rows],
            name=name,
            mode="lines+markers",
            line=dict(color=color, width=3, dash=dash),
            hovertemplate=content.text(BOOK, "serving-hover", name=name),
        )
    last = rows[-1]
    fig.add_annotation(
        x=last["turn"],
        y=last["cum_reencode"],
        text=content.text(BOOK, "serving-ratio", ratio=last["ratio"]),
        showarrow=True,
        arrowhead=2,
        ax=-90,
        ay=-10,
        font=dict(size=14),
    )
    fig.update_xaxes(title=content.text(BOOK, "serving-x-axis"), dtick=1)
    fig.update_yaxes(title=content.text(BOOK, "serving-y-axis"), rangemode="tozero")
    fig.update_layout(legend=dict(x=0.01, y=0.99, xanchor="left", yanchor="top"))
    detail = content.text(
        BOOK,
        "serving-evidence",
        width=width,
        layers=plural(layers, "layer"),
        m=last["m"],
        reencode=si(last["cum_reencode"]),
        cached=si(last["cum_cached"]),
        turns=last["turn"],
    )
    return styled(fig, content.text(BOOK, "serving-title"), Evidence(Kind.FORMULA, detail), height=height)
