"""Figures of the attention page's "Real text" section: the four real-text models' attention on one sentence,
side by side, each over its own mask (measured). Pure functions: readings in, Figure out."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.figures import heatmaps
from explorer.figures.attention import arch_name
from explorer.figures.theme import styled
from explorer.realtext.reading import Reading

BOOK = "fig-attention"
BLOCKED = "#D9D9D9"  # a cell the mask forbids: darker than the theme's "blocked" so it shows under a light map


def layer_for(reading: Reading, layer: int, deepest: int) -> int:
    """The layer (0-based) of this model at the same relative depth as `layer` of the deepest model: the
    encoder-decoder has half as many layers per stack."""
    own = reading.attention.shape[0]
    return min(own - 1, (layer * own) // deepest)


def _mask_kind(reading: Reading) -> str:
    if reading.arch == "prefix_lm":
        return content.text(BOOK, "real-mask-prefix", n=reading.prefix_len)
    return content.text(BOOK, "kind-causal" if reading.arch == "decoder" else "kind-bidirectional")


def four_models(readings: Sequence[Reading], layer: int, head: int, detail: str) -> go.Figure:
    """One panel per model (2 x 2): head `head` of the layer at the depth of `layer`; grey cells are what the
    model's mask forbids, so each panel shows its mask and its weights at once."""
    deepest = max(r.attention.shape[0] for r in readings)
    titles = []
    for r in readings:
        own = layer_for(r, layer, deepest)
        titles.append(
            content.text(
                BOOK,
                "real-panel",
                arch=arch_name(r.arch),
                layer=own + 1,
                layers=r.attention.shape[0],
                head=head + 1,
                mask=_mask_kind(r),
            )
        )
    cols = 2
    rows = (len(readings) + cols - 1) // cols
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.12, vertical_spacing=0.16)
    for i, r in enumerate(readings):
        row, col = i // cols + 1, i % cols + 1
        own = layer_for(r, layer, deepest)
        blocked = np.where(r.allowed, np.nan, 1.0)
        fig.add_trace(
            go.Heatmap(
                z=blocked,
                colorscale=[[0, BLOCKED], [1, BLOCKED]],
                showscale=False,
                hoverinfo="skip",
                name=content.text(BOOK, "kind-blocked"),
            ),
            row=row,
            col=col,
        )
        trace = heatmaps.weights_heatmap(r.attention[own, head], r.allowed, r.labels, r.labels, showscale=i == 0)
        trace.name = f"{arch_name(r.arch)} L{own + 1} H{head + 1}"  # the CSV export names each panel by it
        fig.add_trace(trace, row=row, col=col)
        heatmaps.matrix_layout(
            fig,
            r.labels,
            r.labels,
            row=row,
            col=col,
            x_title=content.text(BOOK, "axis-key"),
            y_title=content.text(BOOK, "axis-query"),
        )
        size = 12 if len(r.labels) <= 24 else 8
        every = dict(tickvals=list(range(len(r.labels))), ticktext=r.labels)  # every character: none skipped
        fig.update_xaxes(every, tickfont=dict(size=size), tickangle=0, constrain="domain", row=row, col=col)
        fig.update_yaxes(
            every,
            tickfont=dict(size=size),
            constrain="domain",
            row=row,
            col=col,
            scaleanchor=f"x{'' if i == 0 else i + 1}",
        )
    fig.update_annotations(font=dict(size=13))
    fig.update_layout(margin=dict(l=60, r=20, b=50))
    # two rows of square panels in half the width each: the width, not the sentence, sets the height
    return styled(
        fig, content.text(BOOK, "real-title", head=head + 1), Evidence(Kind.MEASURED, detail), height=rows * 400 + 160
    )
