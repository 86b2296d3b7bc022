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


PATH_COLORS = {"open": "#BBBBBB", "right": OKABE_ITO[2], "wrong": OKABE_ITO[3]}


def path_progress(outcomes: list[str], current: int) -> go.Figure:
    """The learning path as a row of ten stops: grey before a prediction, green when the figure agreed with
    it, orange when it did not; the current stop ringed."""
    n = len(outcomes)
    fig = go.Figure(go.Scatter(
        x=list(range(1, n + 1)), y=[0] * n, mode="markers+text", text=[str(i) for i in range(1, n + 1)],
        textposition="middle center", textfont=dict(size=15, color="white"), hoverinfo="skip", showlegend=False,
        cliponaxis=False,  # the current stop's ring may reach past a short plot's edge: drawn whole, not cut
        marker=dict(size=[40 if i == current else 30 for i in range(1, n + 1)],
                    color=[PATH_COLORS[o] for o in outcomes],
                    line=dict(width=[4 if i == current else 0 for i in range(1, n + 1)], color="#222222"))))
    fig.add_shape(type="line", x0=1, x1=n, y0=0, y1=0, line=dict(color="#BBBBBB", width=2), layer="below")
    fig.update_xaxes(visible=False, range=[0.4, n + 0.6])
    fig.update_yaxes(visible=False, range=[-1, 1])
    done = sum(o != "open" for o in outcomes)
    right = sum(o == "right" for o in outcomes)
    return styled(fig, f"Question {current} of {n} · {done} answered, {right} as the figures show",
                  Evidence(Kind.SCHEMATIC, "your predictions on this path; green: the figure agreed"), height=230,
                  badge_chars=60)
