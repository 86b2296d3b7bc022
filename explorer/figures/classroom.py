"""Class mode's figure: how the class answered a question, live, and after the reveal the answer the page's
figure supports (or the value it measured) drawn against the class's guesses."""

from __future__ import annotations

import plotly.graph_objects as go

from explorer import content
from explorer.classroom import Tally, lettered
from explorer.evidence import Evidence, Kind
from explorer.figures.theme import OKABE_ITO, styled, wrap_text

BOOK = "fig-class"  # content/<lang>/fig-class.md
CHOICE_COLOR, SUPPORTED_COLOR, VALUE_COLOR = OKABE_ITO[0], OKABE_ITO[2], OKABE_ITO[3]
LABEL_CHARS = 28  # a choice's label wraps onto lines this wide beside its bar


def answers_figure(title: str, choices: list[str], tally: Tally, correct: int | None = None,
                   value: float | None = None, unit: str = "") -> go.Figure:
    """Bars per choice (the supported one green once revealed), or for a number question every answer as a
    dot on one line with the revealed value as a vertical rule. `title` and `choices` may be typed by a
    lecturer: `explorer.classroom` has already taken markup out of them."""
    fig = go.Figure()
    if choices:
        labels = ["<br>".join(wrap_text(label, LABEL_CHARS)) for label in lettered(choices)]
        colors = [SUPPORTED_COLOR if i == correct else CHOICE_COLOR for i in range(len(choices))]
        fig.add_trace(go.Bar(y=labels, x=list(tally.counts), orientation="h", marker_color=colors,
                             text=[str(c) for c in tally.counts], textposition="outside", cliponaxis=False,
                             hovertemplate="%{y}: %{x}<extra></extra>", showlegend=False))
        fig.update_yaxes(autorange="reversed")
        fig.update_xaxes(title=content.text(BOOK, "axis-answers"), rangemode="tozero",
                         range=[0, max([1, *tally.counts]) * 1.15])
        height = 170 + 62 * len(choices)
    else:
        fig.add_trace(go.Box(x=list(tally.numbers), y=[""] * len(tally.numbers), boxpoints="all", jitter=0.6,
                             pointpos=0, fillcolor="rgba(0,0,0,0)", line_color="#999999",
                             marker=dict(color=CHOICE_COLOR, size=9, opacity=0.7), orientation="h",
                             name=content.text(BOOK, "legend-answers"), hovertemplate="%{x}<extra></extra>"))
        if value is not None:
            fig.add_vline(x=value, line=dict(color=VALUE_COLOR, width=3),
                          annotation=dict(text=content.text(BOOK, "revealed-value", value=f"{value:g}", unit=unit),
                                          font=dict(color=VALUE_COLOR, size=15)))
        fig.update_xaxes(title=content.text(BOOK, "axis-number", unit=unit).strip())
        fig.update_yaxes(visible=False)
        height = 340
    evidence = Evidence(Kind.MEASURED, content.text(BOOK, "evidence", n=tally.answers),
                        note=content.text(BOOK, "revealed") if correct is not None or value is not None else "")
    return styled(fig, title, evidence, height=height)
