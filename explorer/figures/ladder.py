""" "Does it hold at scale?": a claim's paired effect per rung against parameters, measured. Pure function: the
ladder's JSON in (`explorer.ladder.run`), a Plotly figure out."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.figures.theme import OKABE_ITO, styled
from explorer.formatting import si

BOOK = "fig-ladder"  # every word this figure shows: content/<lang>/fig-ladder.md
DEVICE_COLORS = {"cpu": OKABE_ITO[0], "cuda": OKABE_ITO[3], "mps": OKABE_ITO[4]}  # which machine measured a rung
SEED_COLOR = "#999999"
ZERO_COLOR = "#777777"


def ladder_chart(ladder: dict, height: int = 460) -> go.Figure:
    """The effect's seed mean per rung (bars: lowest to highest seed, grey dots: each seed) against parameters on
    a log axis, coloured by the device that measured it, with each rung's count of seeds of the toy's sign."""
    fig = go.Figure()
    fig.add_hline(y=0.0, line=dict(color=ZERO_COLOR, dash="dash", width=1.5))
    rungs = ladder["rungs"]
    for r in rungs:
        seeds = list(r.get("per_seed", {}).values())
        fig.add_scatter(
            x=[r["params"]] * len(seeds),
            y=seeds,
            mode="markers",
            showlegend=False,
            marker=dict(color=SEED_COLOR, size=7, symbol="circle-open"),
            hoverinfo="skip",
        )
    for device in sorted({r["device"] for r in rungs}):
        row = [r for r in rungs if r["device"] == device]
        fig.add_scatter(
            x=[r["params"] for r in row],
            y=[r["effect"] for r in row],
            mode="markers+text",
            name=content.text(BOOK, "device", device=device),
            marker=dict(size=14, color=DEVICE_COLORS.get(device)),
            error_y=dict(
                type="data",
                symmetric=False,
                array=[r["high"] - r["effect"] for r in row],
                arrayminus=[r["effect"] - r["low"] for r in row],
                thickness=2,
                width=6,
            ),
            text=[content.text(BOOK, "same-sign", k=r["same_sign"], n=r["seeds"]) for r in row],
            textposition="middle right",
            textfont=dict(size=13),
            customdata=[[r["label"], si(r["flops"]), r["low"], r["high"], r["seeds"]] for r in row],
            hovertemplate=content.text(BOOK, "hover"),
        )
    if len(rungs) > 1:  # the rungs in order, so the eye follows the trend
        fig.add_scatter(
            x=[r["params"] for r in rungs],
            y=[r["effect"] for r in rungs],
            mode="lines",
            line=dict(color=ZERO_COLOR, width=1),
            showlegend=False,
            hoverinfo="skip",
        )
    # ticks at the rungs' own sizes (a log axis's default 2, 3, ... 9 between decades named no rung), and room on
    # the right for the last rung's seed count
    sizes = sorted({r["params"] for r in rungs})
    low, high = (math.log10(sizes[0]) - 0.25, math.log10(sizes[-1]) + 0.45) if sizes else (0, 1)
    fig.update_xaxes(
        title=content.text(BOOK, "x-axis"),
        type="log",
        range=[low, high],
        tickvals=sizes,
        ticktext=[si(v) for v in sizes],
    )
    fig.update_yaxes(title=content.text(BOOK, f"y-axis-{ladder['claim']}"))
    fig.update_layout(legend=dict(orientation="h", x=0.0, y=-0.2, xanchor="left", yanchor="top"))
    seeds = max((r["seeds"] for r in rungs), default=0)
    span = rungs[-1]["params"] / rungs[0]["params"] if len(rungs) > 1 else 1.0
    detail = content.text(BOOK, "evidence", seeds=seeds, rungs=len(rungs), span=f"{span:.0f}")
    return styled(fig, content.text(BOOK, f"title-{ladder['claim']}"), Evidence(Kind.MEASURED, detail), height=height)
