"""Figure of the bias-audit workbook (slide 67): the decision rule drawn on one compute axis."""

from __future__ import annotations

import html
import math

import plotly.graph_objects as go

from explorer import content
from explorer.audit import Decision, sci
from explorer.evidence import Evidence, Kind
from explorer.figures.crossover import BUDGET_COLOR
from explorer.figures.theme import CONCEPT_COLORS, display_width, keep_width, styled

MEASURED_FILL = "rgba(0,158,115,0.10)"  # the evidence colour of "measured", faint
EXTRAPOLATION_PATTERN = dict(shape="/", fgcolor="rgba(85,85,85,0.35)", size=8)
BOOK = "fig-audit"  # every word this figure shows: content/<lang>/fig-audit.md
CASES = ("below", "inside", "above", "no-crossover", "extrapolation")  # `case-<case>`: the title's ending


def _wrap(name: str, width: int = 12) -> str:
    """A method's name broken into lines of about `width` characters at its spaces (Plotly does not wrap)."""
    lines: list[str] = []
    if " " not in name and not name.isascii() and display_width(name) > width:
        # Chinese: no spaces, and each character is two columns wide; even rows of characters
        rows = math.ceil(display_width(name) / width)
        per_row = math.ceil(len(name) / rows)
        return "<br>".join(name[i : i + per_row] for i in range(0, len(name), per_row))
    for word in name.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)


def _span(x: dict, budget: float) -> tuple[float, float]:
    """Log10 axis range: the measured range, the budget and the crossover, with a margin."""
    points = [*x["range"], budget] + [v for v in (x.get("crossover"), x.get("lo")) if v]
    if x.get("hi") and math.isfinite(x["hi"]):
        points.append(x["hi"])
    logs = [math.log10(p) for p in points]
    return min(logs) - 0.6, max(logs) + 0.6


def decision_rule(x: dict, budget: float, decision: Decision, typed: bool = False) -> go.Figure:
    """The measured range (shaded), the extrapolation beyond it (hatched), the crossover with its per-seed
    spread, and the budget; `x` is `explorer.audit.crossover_input` or the student's own numbers."""
    lo_axis, hi_axis = _span(x, budget)
    more, less = (html.escape(x[k], quote=False) for k in ("more", "less"))  # names may be the student's text
    r_lo, r_hi = x["range"]
    fig = go.Figure()
    fig.add_vrect(x0=r_lo, x1=r_hi, fillcolor=MEASURED_FILL, line_width=0, layer="below")
    fig.add_annotation(
        x=math.log10(r_lo),
        y=0.02,
        text=content.text(BOOK, "measured-range"),
        showarrow=False,
        xanchor="left",
        xshift=4,
        yanchor="bottom",
        font=dict(size=14, color="#007A5A"),
    )
    for a, b, anchor in ((10**lo_axis, r_lo, "right"), (r_hi, 10**hi_axis, "left")):
        if b > a:
            fig.add_trace(
                go.Scatter(
                    x=[a, b, b, a, a],
                    y=[0, 0, 1, 1, 0],
                    fill="toself",
                    mode="lines",
                    line=dict(width=0),
                    fillcolor="rgba(0,0,0,0)",
                    fillpattern=EXTRAPOLATION_PATTERN,
                    hoverinfo="skip",
                    showlegend=False,
                )
            )
            edge = b if anchor == "right" else a  # the label hugs the measured range from outside, never covering it
            fig.add_annotation(
                x=math.log10(edge),
                y=0.06,
                text=content.text(BOOK, "extrapolation"),
                showarrow=False,
                xanchor=anchor,
                xshift=-4 if anchor == "right" else 4,
                font=dict(size=13, color="#555555"),
                bgcolor="rgba(255,255,255,0.85)",
            )
    crossover = x.get("crossover")
    if crossover:
        lo, hi = x.get("lo") or crossover, x.get("hi") or crossover
        hi_drawn = hi if math.isfinite(hi) else 10**hi_axis
        fig.add_trace(
            go.Scatter(
                x=[crossover],
                y=[0.5],
                mode="markers",
                marker=dict(symbol="diamond", size=16, color=CONCEPT_COLORS["data"]),
                error_x=dict(
                    type="data",
                    symmetric=False,
                    array=[hi_drawn - crossover],
                    arrayminus=[crossover - lo],
                    thickness=2.5,
                    width=10,
                    color=CONCEPT_COLORS["data"],
                ),
                name=content.text(BOOK, "crossover"),
                hovertemplate=content.text(BOOK, "crossover-hover", crossover=sci(crossover), lo=sci(lo), hi=sci(hi)),
            )
        )
        if x.get("per_seed"):
            fig.add_trace(
                go.Scatter(
                    x=x["per_seed"],
                    y=[0.38] * len(x["per_seed"]),
                    mode="markers",
                    marker=dict(size=9, color="white", line=dict(width=2, color="#000000")),
                    name=content.text(BOOK, "per-seed"),
                    hovertemplate=content.text(BOOK, "per-seed-hover"),
                )
            )
        for text, anchor, shift in (
            (content.text(BOOK, "ship", method=_wrap(more)), "right", -14),
            (content.text(BOOK, "validate", method=_wrap(less)), "left", 14),
        ):
            # short lines, not one long one: a phone's narrow chart keeps them whole
            fig.add_annotation(
                x=math.log10(crossover),
                y=0.8,
                text=text,
                showarrow=False,
                xanchor=anchor,
                align=anchor,
                xshift=shift,
                font=dict(size=15),
                bgcolor="rgba(255,255,255,0.85)",
            )
    else:
        fig.add_annotation(
            x=math.log10(math.sqrt(r_lo * r_hi)),
            y=0.5,
            text=content.text(BOOK, "no-crossover"),
            showarrow=False,
            font=dict(size=15),
        )
    fig.add_vline(x=budget, line=dict(color=BUDGET_COLOR, width=3, dash="dot"))
    fig.add_annotation(
        x=math.log10(budget),
        y=0.2,
        text=content.text(BOOK, "budget", budget=sci(budget)),
        showarrow=False,
        xanchor="left",
        xshift=6,
        align="left",
        font=dict(color=BUDGET_COLOR, size=14),
        bgcolor="rgba(255,255,255,0.85)",
    )
    fig.update_xaxes(
        type="log", range=[lo_axis, hi_axis], title_text=content.text(BOOK, "x-axis"), exponentformat="power"
    )
    fig.update_yaxes(range=[0, 1], visible=False, fixedrange=True)
    fig.update_layout(
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0, bgcolor="rgba(0,0,0,0)"), margin=dict(b=80)
    )
    extrapolated = decision.evidence == "extrapolation"
    if typed:
        evidence = Evidence(
            Kind.SCHEMATIC, content.text(BOOK, "typed"), note=content.text(BOOK, "extrapolated") if extrapolated else ""
        )
    else:
        windows = x.get("windows", ())
        windows = (
            content.text(BOOK, "windows-pair", first=windows[0], second=windows[1])
            if len(windows) == 2
            else ", ".join(map(str, windows)) or "?"
        )
        evidence = Evidence(
            Kind.MEASURED,
            content.text(BOOK, "measured", windows=windows, seeds=x.get("seeds", "?")),
            also=(Kind.EXTRAPOLATION,) if extrapolated else (),
        )
    # its labels beside the crossover and the hatched bands need more than a phone's width: scroll it there
    return keep_width(
        styled(fig, content.text(BOOK, "title", case=content.text(BOOK, f"case-{decision.case}")), evidence, height=380)
    )
