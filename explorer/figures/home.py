"""The home page's schematic: the lecture's argument as a chain of links."""

from __future__ import annotations

import re

import plotly.graph_objects as go

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.figures.theme import OKABE_ITO, keep_width, styled, wrap_text
from explorer.lecture_map import PAGES, STAGES, slides_label

BOOK = "fig-home"  # content/<lang>/fig-home.md
BOX_CHARS = 11  # a stage's name wraps at this many columns inside its box


def argument_chain() -> go.Figure:
    """Boxes for force -> bias -> architecture -> cost -> audit, each listing its slides."""
    fig = go.Figure()
    n = len(STAGES)
    width, gap = 1.0, 0.35
    for i, stage in enumerate(STAGES):
        x0 = i * (width + gap)
        color = OKABE_ITO[i % len(OKABE_ITO)]
        fig.add_shape(
            type="rect",
            x0=x0,
            x1=x0 + width,
            y0=0,
            y1=1,
            line=dict(color=color, width=3),
            fillcolor="rgba(255,255,255,0)",
        )
        title = "<br>".join(wrap_text(stage.title, BOX_CHARS))  # two short lines fit a box on a phone's 640 px
        fig.add_annotation(
            x=x0 + width / 2, y=0.72, text=f"<b>{title}</b>", showarrow=False, font=dict(size=15, color=color)
        )
        fig.add_annotation(
            x=x0 + width / 2,
            y=0.22,
            text=slides_label(stage.slides),
            showarrow=False,
            font=dict(size=14, color="#444444"),
        )
        if i < n - 1:
            fig.add_annotation(
                x=x0 + width + gap - 0.03,
                y=0.5,
                ax=x0 + width + 0.03,
                ay=0.5,
                xref="x",
                yref="y",
                axref="x",
                ayref="y",
                showarrow=True,
                arrowhead=3,
                arrowsize=1.4,
                arrowwidth=2,
                arrowcolor="#555555",
                text="",
            )
    fig.update_xaxes(visible=False, range=[-0.1, n * (width + gap) - gap + 0.1])
    fig.update_yaxes(visible=False, range=[-0.1, 1.1])
    # five boxes in a row: a phone scrolls them sideways instead of squeezing their names into each other
    return keep_width(
        styled(
            fig,
            content.text(BOOK, "chain-title"),
            Evidence(Kind.SCHEMATIC, content.text(BOOK, "chain-evidence")),
            height=260,
        )
    )


# the palette's green and vermilion a shade deeper, so the white stop numbers read on them (WCAG 4.5:1); an open
# stop is light grey with a dark number. A missed stop is also square, not round: not told by colour alone
MUTED_TEXT = "#767676"  # a term a search leaves out: the lightest grey that still reads on white (WCAG 4.5:1)
PATH_COLORS = {"open": "#BBBBBB", "right": "#007E5C", "wrong": "#C05500"}
PATH_SYMBOLS = {"open": "circle", "right": "circle", "wrong": "square"}


def path_progress(outcomes: list[str], current: int) -> go.Figure:
    """The learning path as a row of ten stops: grey before a prediction, a green circle when the figure agreed
    with it, an orange square when it did not; the current stop ringed."""
    n = len(outcomes)
    fig = go.Figure(
        go.Scatter(
            x=list(range(1, n + 1)),
            y=[0] * n,
            mode="markers+text",
            text=[str(i) for i in range(1, n + 1)],
            textposition="middle center",
            textfont=dict(size=15, color=["#222222" if o == "open" else "white" for o in outcomes]),
            hoverinfo="skip",
            showlegend=False,
            cliponaxis=False,  # the current stop's ring may reach past a short plot's edge: drawn whole, not cut
            marker=dict(
                size=[40 if i == current else 30 for i in range(1, n + 1)],
                color=[PATH_COLORS[o] for o in outcomes],
                symbol=[PATH_SYMBOLS[o] for o in outcomes],
                line=dict(width=[4 if i == current else 0 for i in range(1, n + 1)], color="#222222"),
            ),
        )
    )
    fig.add_shape(type="line", x0=1, x1=n, y0=0, y1=0, line=dict(color="#BBBBBB", width=2), layer="below")
    fig.update_xaxes(visible=False, range=[0.4, n + 0.6])
    fig.update_yaxes(visible=False, range=[-1, 1])
    done = sum(o != "open" for o in outcomes)
    right = sum(o == "right" for o in outcomes)
    return styled(
        fig,
        content.text(BOOK, "progress-title", current=current, total=n, done=done, right=right),
        Evidence(Kind.SCHEMATIC, content.text(BOOK, "progress-evidence")),
        height=230,
        badge_chars=60,
    )


MAP_LINE_UNITS = 84  # a row of the glossary map holds about this many character widths before it wraps
_WIDE = re.compile(r"[\u2e80-\u9fff\uff00-\uffef]")  # CJK and full-width characters: two widths each


def _units(text: str) -> int:
    return len(text) + len(_WIDE.findall(text))


def glossary_map(terms: list, matched: set[str] | None = None, line_units: int = MAP_LINE_UNITS) -> go.Figure:
    """The glossary as a map of the argument: one row per page (top to bottom in the argument's order), each
    term placed on its page's row in the run's language, coloured like its link of the chain; terms outside
    `matched` (keys) greyed. Hover shows both terms and the explanation; the CSV export carries them too.
    `line_units`: the character widths a row holds (a phone's is about a third of the page's)."""
    stage_color = {s.key: OKABE_ITO[i % len(OKABE_ITO)] for i, s in enumerate(STAGES)}
    pages = {p.slug: p for p in PAGES}
    slugs = list(dict.fromkeys(t.page for t in terms))
    xs, ys, texts, colors, custom, ticks = [], [], [], [], [], []
    line, widest = 0, line_units  # a term longer than a row widens the map rather than run past its edge
    for slug in slugs:
        ticks.append(line)
        used = 0
        for t in (t for t in terms if t.page == slug):
            width = _units(t.term) + 3
            if used and used + width > line_units:
                line, used = line + 1, 0
            xs.append(used + width / 2)
            ys.append(line)
            used += width
            widest = max(widest, used)
            texts.append(t.term)
            on = matched is None or t.key in matched
            colors.append(stage_color.get(pages[slug].stage, "#444444") if on else MUTED_TEXT)
            custom.append([t.term_zh, t.term_en, slug, t.explanation])
        line += 1
    fig = go.Figure(
        go.Scatter(
            x=xs,
            y=ys,
            mode="text",
            text=texts,
            textfont=dict(size=13, color=colors),
            customdata=custom,
            meta={"columns": ["term_zh", "term_en", "page", "explanation"]},
            showlegend=False,
            cliponaxis=False,
            hovertemplate="<b>%{customdata[0]}</b> · %{customdata[1]}<br>%{customdata[3]}<extra></extra>",
        )
    )
    fig.update_xaxes(visible=False, range=[0, widest])
    fig.update_yaxes(
        range=[line - 0.5, -0.5],
        tickvals=ticks,
        ticktext=[pages[s].title for s in slugs],
        showgrid=False,
        zeroline=False,
        ticks="",
    )
    for tick in ticks[1:]:
        fig.add_hline(y=tick - 0.5, line=dict(color="#DDDDDD", width=1))
    fig.update_layout(hoverlabel=dict(align="left"))
    return styled(
        fig,
        content.text(BOOK, "map-title"),
        Evidence(Kind.SCHEMATIC, content.text(BOOK, "map-evidence")),
        height=120 + 24 * line,
    )
