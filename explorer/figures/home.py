"""The home page's schematic: the lecture's argument as a chain of links."""

from __future__ import annotations

import plotly.graph_objects as go

from explorer.evidence import Evidence, Kind
from explorer.figures.theme import OKABE_ITO, styled
from explorer.lecture_map import STAGES


def argument_chain() -> go.Figure:
    """Boxes for force -> bias -> architecture -> cost -> audit, each listing its slides."""
    fig = go.Figure()
    n = len(STAGES)
    width, gap = 1.0, 0.35
    for i, stage in enumerate(STAGES):
        x0 = i * (width + gap)
        color = OKABE_ITO[i % len(OKABE_ITO)]
        fig.add_shape(type="rect", x0=x0, x1=x0 + width, y0=0, y1=1, line=dict(color=color, width=3),
                      fillcolor="rgba(255,255,255,0)")
        fig.add_annotation(x=x0 + width / 2, y=0.78, text=f"<b>{stage.title}</b>", showarrow=False,
                           font=dict(size=18, color=color))
        fig.add_annotation(x=x0 + width / 2, y=0.28, text=f"slides {stage.slides}", showarrow=False,
                           font=dict(size=14, color="#444444"))
        if i < n - 1:
            fig.add_annotation(x=x0 + width + gap - 0.03, y=0.5, ax=x0 + width + 0.03, ay=0.5, xref="x", yref="y",
                               axref="x", ayref="y", showarrow=True, arrowhead=3, arrowsize=1.4, arrowwidth=2,
                               arrowcolor="#555555", text="")
    fig.update_xaxes(visible=False, range=[-0.1, n * (width + gap) - gap + 0.1])
    fig.update_yaxes(visible=False, range=[-0.1, 1.1])
    return styled(fig, "The argument: a driving force shifts which structure wins",
                  Evidence(Kind.SCHEMATIC, "the lecture's chain of reasoning"), height=260)
