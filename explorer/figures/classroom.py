"""Class mode's figure: how the class answered a question, live, and after the reveal the right answer (or the
right value) drawn against the class's guesses. Its evidence kind is "class answers": these are opinions
counted, never a measurement, even when the question's answer comes from a measured figure."""

from __future__ import annotations

import plotly.graph_objects as go

from explorer import content
from explorer.classroom import Tally, lettered
from explorer.evidence import Evidence, Kind
from explorer.figures.theme import OKABE_ITO, styled, wrap_text

BOOK = "fig-class"  # content/<lang>/fig-class.md
CHOICE_COLOR, RIGHT_COLOR, VALUE_COLOR = OKABE_ITO[0], OKABE_ITO[2], OKABE_ITO[3]
LABEL_CHARS = 28  # a choice's label wraps onto lines this wide beside its bar
NICE_STEPS = (1, 2, 5)
LARGE_FONT = 26  # px: read from the back of a lecture hall at 1080p


def count_step(most: int, ticks: int = 5) -> int:
    """A whole-number tick step that puts at most about `ticks` ticks on a count axis up to `most`: 1, 2, 5,
    10, 20, 50, ... (a count of answers has no halves)."""
    scale = 1
    while True:
        for step in NICE_STEPS:
            if step * scale * ticks >= most:
                return step * scale
        scale *= 10


def answers_figure(
    title: str,
    choices: list[str],
    tally: Tally,
    correct: int | None = None,
    value: float | None = None,
    unit: str = "",
    mine: int | None = None,
    revealed: bool = False,
    height: int | None = None,
    letters_only: bool = False,
    large: bool = False,
) -> go.Figure:
    """Bars per choice (the right one green once revealed; `mine`, this device's choice, outlined), or for a
    number question every answer as a dot on one line with the revealed value as a vertical rule. `title` and
    `choices` may be typed by a lecturer: `explorer.classroom` has already taken markup out of them.
    `letters_only` labels the bars A, B, C (a phone, whose page lists the choices in words); `large` sets type
    for a projector (24 px and more at 1080p)."""
    fig = go.Figure()
    if choices:
        labels = [
            label[:1] if letters_only else "<br>".join(wrap_text(label, LABEL_CHARS)) for label in lettered(choices)
        ]
        colors = [RIGHT_COLOR if i == correct else CHOICE_COLOR for i in range(len(choices))]
        outline = [4 if i == mine else 0 for i in range(len(choices))]
        fig.add_trace(
            go.Bar(
                y=labels,
                x=list(tally.counts),
                orientation="h",
                marker_color=colors,
                marker_line=dict(width=outline, color="#D55E00"),
                text=[str(c) for c in tally.counts],
                textposition="outside",
                cliponaxis=False,
                hovertemplate="%{y}: %{x}<extra></extra>",
                showlegend=False,
            )
        )
        most = max([1, *tally.counts])
        fig.update_yaxes(autorange="reversed")
        fig.update_xaxes(
            title=content.text(BOOK, "axis-answers"),
            range=[0, most * 1.15],
            tickmode="linear",
            tick0=0,
            dtick=count_step(most),
            tickformat="d",
        )
        lines = sum(label.count("<br>") + 1 for label in labels)  # a row of bars must hold its label's lines
        needed = (
            170
            + (44 if letters_only else 62) * len(choices)
            + (lines - len(choices)) * (LARGE_FONT * 1.3 if large else 18)
        )
        height = max(height or 0, int(needed))
    else:
        fig.add_trace(
            go.Box(
                x=list(tally.numbers),
                y=[""] * len(tally.numbers),
                boxpoints="all",
                jitter=0.6,
                pointpos=0,
                fillcolor="rgba(0,0,0,0)",
                line_color="#999999",
                marker=dict(color=CHOICE_COLOR, size=9, opacity=0.7),
                orientation="h",
                name=content.text(BOOK, "legend-answers"),
                hovertemplate="%{x}<extra></extra>",
            )
        )
        if value is not None:
            fig.add_vline(
                x=value,
                line=dict(color=VALUE_COLOR, width=3),
                annotation=dict(
                    text=content.text(BOOK, "revealed-value", value=f"{value:g}", unit=unit),
                    font=dict(color=VALUE_COLOR, size=15),
                ),
            )
        fig.update_xaxes(title=content.text(BOOK, "axis-number", unit=unit).strip())
        fig.update_yaxes(visible=False)
        height = height or 340
    evidence = Evidence(
        Kind.CLASS_ANSWERS,
        content.text(BOOK, "evidence", n=tally.answers),
        note=content.text(BOOK, "revealed") if revealed else "",
    )
    fig = styled(fig, title, evidence, height=height)
    if large:
        fig.update_layout(font=dict(size=LARGE_FONT))
        fig.update_xaxes(tickfont=dict(size=LARGE_FONT), title_font=dict(size=LARGE_FONT))
        fig.update_yaxes(tickfont=dict(size=LARGE_FONT))
        fig.update_traces(textfont=dict(size=LARGE_FONT + 4), selector=dict(type="bar"))
    return fig
