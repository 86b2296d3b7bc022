"""Figures of the cache-reuse page (slides 64-66): pure functions, plain data in, a Plotly figure out."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer import content
from explorer.costs import kv_cache_bytes
from explorer.evidence import Evidence, Kind
from explorer.experiments.cache import (
    DRIFT_BATCH,
    DRIFT_SEED,
    FRACTION_BATCH,
    LARGE_MODEL,
    model_config,
    predict_seconds,
    turn_flops,
)
from explorer.figures.heatmaps import category_heatmap, matrix_layout
from explorer.figures.theme import CONCEPT_COLORS, OKABE_ITO, below_badge, keep_width, styled
from explorer.formatting import plural, si

BOOK = "fig-cache"  # every word these figures show: content/<lang>/fig-cache.md

CAUSAL, BIDIR = CONCEPT_COLORS["causal"], CONCEPT_COLORS["bidirectional"]
UNCHANGED_COLOR = "#F3B58F"  # a pale "recomputed": the value did not change, the work was done anyway
CELL_COLORS = (CONCEPT_COLORS["reused"], CONCEPT_COLORS["recomputed"], CONCEPT_COLORS["blocked"], UNCHANGED_COLOR)
DRIFT_STYLE = {  # model -> (colour, dash, symbol)
    "bidirectional, trained": (BIDIR, "solid", "circle"),
    "bidirectional, untrained": (BIDIR, "dot", "circle-open"),
    "causal, trained": (CAUSAL, "solid", "square"),
    "causal, untrained": (CAUSAL, "dot", "square-open"),
}


def _sizes(n: int, m: int, depth: int) -> str:
    return content.text(BOOK, "sizes", n=n, m=m, layers=plural(depth, "layer"))


def cell_names() -> list[str]:
    """The reuse heatmaps' categories (`explorer.experiments.cache.CELL_NAMES`, in that order), as shown."""
    return [content.text(BOOK, f"cell-{name}") for name in ("reused", "computed", "masked", "unchanged")]


def quantity(i: int, count: int) -> str:
    """The chat's i-th drift quantity (`chat_cache.quantities`) of `count`: a layer's keys and values, or the
    output state (the last)."""
    return (
        content.text(BOOK, "quantity-output") if i == count - 1 else content.text(BOOK, "quantity-layer", layer=i + 1)
    )


def _bytes(x: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if x >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x:.0f} B"


def _mark(fig: go.Figure, xs: list[float], ys: list[float], text: str, where: str = "middle right") -> None:
    """Mark the chosen setting with black markers and a label (a trace, so it sits right on log axes)."""
    fig.add_scatter(
        x=xs,
        y=ys,
        mode="markers+text",
        text=[text] + [""] * (len(xs) - 1),
        textposition=where,
        textfont=dict(size=15),
        showlegend=False,
        hoverinfo="skip",
        marker=dict(color="#000000", size=12, symbol="x-thin", line=dict(width=3)),
    )


def _legend_right(fig: go.Figure) -> None:
    fig.update_layout(legend=dict(x=1.02, y=1.0, xanchor="left", yanchor="top", font=dict(size=14)))


def _iqr(median, q1, q3, **style) -> dict:
    """Asymmetric error bars from the first to the third quartile."""
    median, q1, q3 = (np.asarray(v, dtype=float) for v in (median, q1, q3))
    return dict(type="data", symmetric=False, array=q3 - median, arrayminus=median - q1, **style)


def _log_axes(fig: go.Figure, x_title: str, y_title: str, decades: bool = False) -> None:
    """Log axes labelled at 1, 2 and 5 times each power of ten, or only at powers of ten (`decades`) where
    an axis spans so many that the in-between labels would crowd it."""
    dtick = 1 if decades else "D2"
    fig.update_xaxes(type="log", title=x_title, dtick=dtick)
    fig.update_yaxes(type="log", title=y_title, dtick=dtick)


# --- 0. the lecture's chat (slide 66) ------------------------------------------------------------

CHAT_CELLS = (  # (name, colour) of the chat figure's cells; code i = CHAT_CELLS[i]; names in fig-cache.md
    ("new", CONCEPT_COLORS["recomputed"]),
    ("kept", CONCEPT_COLORS["reused"]),
    ("redone", UNCHANGED_COLOR),  # pale: the same work as new, on tokens that were there before
)
NEW, KEPT, REDONE = range(3)
MAX_CHAT_CELLS = 40  # tokens drawn as cells; a longer chat gets one block per turn
MAX_ROW_LABEL = 16  # characters of a turn's text beside its row
MAX_CHAT_HEIGHT = 560  # px: the chat figure whole on a 1440x900 screen under the page's title and lead


def _short(text: str, limit: int = MAX_ROW_LABEL) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _chat_columns(chat: dict) -> tuple[list[str], list[tuple[int, int]]]:
    """Column labels and each column's token range: one column per token, or per turn when there are many."""
    if len(chat["tokens"]) <= MAX_CHAT_CELLS:
        return chat["tokens"], [(i, i + 1) for i in range(len(chat["tokens"]))]
    return (
        [content.text(BOOK, "chat-turn-column", turn=t["turn"]) for t in chat["turns"]],
        [(t["start"], t["end"]) for t in chat["turns"]],
    )


def _chat_cell(
    turn: dict, what: str, lo: int, hi: int, role: str, shown: int, names: list[str], limit: int
) -> tuple[float, str, str]:
    """(category, text, hover) of one model's row `turn` in the column `what` (tokens lo..hi); NaN: not yet typed."""
    if lo >= turn["end"]:
        return np.nan, "", ""
    if lo >= turn["start"]:
        return (
            NEW + 0.5,
            content.text(BOOK, "chat-cell-new-count", count=hi - lo) if hi - lo > 1 else "",
            content.text(BOOK, "chat-hover-new", what=what, turn=turn["turn"]),
        )
    if role == "causal":
        drift = turn["drift"]
        rounding = (
            " " + content.text(BOOK, "chat-hover-rounding", largest=float(np.max(drift["causal"]))) if drift else ""
        )
        return KEPT + 0.5, "", content.text(BOOK, "chat-hover-kept", what=what, rounding=rounding)
    if turn["drift"] is None:
        return REDONE + 0.5, "", content.text(BOOK, "chat-hover-unmeasured", what=what, limit=limit)
    moved = np.asarray(turn["drift"]["bidirectional"])[:, lo:hi].mean(axis=1)
    each = "<br>".join(f"{name}: {v:.0%}" for name, v in zip(names, moved))
    return REDONE + 0.5, f"{moved[shown]:.0%}", content.text(BOOK, "chat-hover-moved", what=what, each=each)


def chat_reuse(chat: dict, shown: int, height: int | None = None) -> go.Figure:
    """Slide 66 turn by turn: for the causal and the bidirectional model, which tokens each turn computes or
    reuses, and (bidirectional) how far each old token's state `chat["quantities"][shown]` (a layer's keys and
    values, or the output) moved when the turn came.

    `chat` is `explorer.experiments.chat_cache.chat_reuse`'s output; a chat of more than `MAX_CHAT_CELLS`
    tokens is drawn with one block per turn (its drift the mean over the block's tokens).
    """
    labels, spans = _chat_columns(chat)
    turns = chat["turns"]
    rows = [f"{t['turn']} {_short(t['text'])}" for t in turns]
    measured = [t for t in turns if t["drift"] is not None]
    names = [quantity(i, len(chat["quantities"])) for i in range(len(chat["quantities"]))]
    titles = (
        content.text(BOOK, "chat-causal-title"),
        content.text(BOOK, "chat-bidirectional-title")
        + (" " + content.text(BOOK, "chat-bidirectional-moved", quantity=names[shown]) if measured else ""),
    )
    fig = make_subplots(rows=2, cols=1, subplot_titles=titles, vertical_spacing=0.3)
    cell_names = [content.text(BOOK, f"chat-cell-{name}") for name, _ in CHAT_CELLS]
    scale = []
    for i, (_, color) in enumerate(CHAT_CELLS):
        scale += [[i / len(CHAT_CELLS), color], [(i + 1) / len(CHAT_CELLS), color]]
    for row, role in ((1, "causal"), (2, "bidirectional")):
        cells = [
            [
                _chat_cell(turn, f"'{label}'" if hi - lo == 1 else label, lo, hi, role, shown, names, chat["limit"])
                for label, (lo, hi) in zip(labels, spans)
            ]
            for turn in turns
        ]
        z = [[c[0] for c in line] for line in cells]
        kinds = [[cell_names[int(code)] if code == code else "" for code in line] for line in z]
        fig.add_heatmap(
            z=z,
            x=list(range(len(spans))),
            y=rows,
            zmin=0,
            zmax=len(CHAT_CELLS),
            colorscale=scale,
            showscale=False,
            xgap=2,
            ygap=2,
            hoverongaps=False,
            text=[[c[1] for c in line] for line in cells],
            texttemplate="%{text}",
            textfont=dict(size=13 if len(spans) <= 20 else 10),
            hovertext=[[c[2] for c in line] for line in cells],
            hovertemplate="%{hovertext}<extra></extra>",
            customdata=[[(name, label, kind) for label, kind in zip(labels, line)] for name, line in zip(rows, kinds)],
            row=row,
            col=1,
        )
        fig.update_xaxes(
            tickmode="array",
            tickvals=list(range(len(spans))),
            ticktext=labels,
            showgrid=False,
            ticks="",
            tickfont=dict(size=15 if len(spans) <= 20 else 11),
            row=row,
            col=1,
        )
        fig.update_yaxes(
            type="category",
            autorange="reversed",
            showgrid=False,
            ticks="",
            tickfont=dict(size=14),
            tickmode="array",
            tickvals=rows,
            row=row,
            col=1,
        )
    for name, (_, color) in zip(cell_names, CHAT_CELLS):  # a legend of the cell colours (a heatmap has none)
        fig.add_scatter(
            x=[None],
            y=[None],
            mode="markers",
            name=name,
            marker=dict(symbol="square", size=16, color=color),
        )
    fig.update_xaxes(
        title=content.text(BOOK, "chat-axis-tokens")
        if len(spans) == len(chat["tokens"])
        else content.text(BOOK, "chat-axis-turns"),
        row=2,
        col=1,
    )
    fig.update_layout(
        legend=dict(orientation="h", x=0, y=-0.3, xanchor="left", yanchor="top", font=dict(size=14)),
        margin=dict(l=150, b=80),
    )
    below_badge(fig, 0.9)
    last = turns[-1]
    title = content.text(BOOK, "chat-title", turn=last["turn"], new=plural(last["new"], "new token"), total=last["end"])
    if measured:
        detail = content.text(BOOK, "chat-evidence", limit=chat["limit"])
        evidence = Evidence(Kind.MEASURED, detail, also=(Kind.BY_CONSTRUCTION,))
    else:
        why = (
            content.text(BOOK, "chat-why-no-models")
            if not chat["models"]
            else content.text(BOOK, "chat-why-too-long", limit=chat["limit"])
        )
        evidence = Evidence(Kind.BY_CONSTRUCTION, content.text(BOOK, "chat-evidence-unmeasured", why=why))
    keep_width(fig)  # two stacked panels of token cells: a phone scrolls them rather than squeezing the cells
    return styled(fig, title, evidence, height=height or min(MAX_CHAT_HEIGHT, 380 + 40 * len(turns)))


# --- 1. reuse heatmaps --------------------------------------------------------------------------


def _turn_axis(labels: list[str], starts: list[float], title: str, max_ticks: int = 10) -> dict:
    """Token labels at most `max_ticks`, never two closer than a tick's share of the axis: the current
    turn's first token first, then the opening's, the earlier turns' starts, then evenly spread ones.

    At a large history the turn starts crowd the axis's end; the ones too close to a kept label go
    unlabelled (their lines stay). A block of tokens is labelled by its first token; the hover keeps the range.
    """
    gap = max(1.0, len(labels) / max_ticks)
    firsts = [r for r in (int(round(b)) for b in starts) if r < len(labels)]  # a start may round up past the end
    spread = range(0, len(labels), max(1, int(np.ceil(gap))))
    ticks: list[int] = []
    for t in [*firsts[-1:], *firsts[:-1], *spread]:
        if all(abs(t - kept) >= gap * 0.75 for kept in ticks):
            ticks.append(t)
    ticks.sort()
    return dict(
        title=title,
        tickmode="array",
        tickvals=ticks,
        ticktext=[labels[i].split("–")[0] for i in ticks],
        showgrid=False,
        ticks="",
        tickfont=dict(size=13),
        automargin=True,
    )


def reuse_heatmaps(p: dict, height: int = 720) -> go.Figure:
    """The current turn's query x key matrix, causal beside bidirectional, each entry by what happens to it;
    a page's first screen passes a smaller `height`."""
    c = p["counts"]
    titles = (
        content.text(BOOK, "heatmap-causal-title", computed=si(c["causal_computed"])),
        content.text(BOOK, "heatmap-bidirectional-title", recomputed=si(c["bidirectional_recomputed"])),
    )
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles, horizontal_spacing=0.1)
    categories = list(zip(cell_names(), CELL_COLORS))
    labels = p["labels"]
    starts = [0.0] + list(p["boundaries"])
    edge = len(labels) - 0.5
    for col, key in ((1, "causal"), (2, "bidirectional")):
        fig.add_trace(category_heatmap(p[key], categories, labels, labels, showscale=col == 2), row=1, col=col)
        matrix_layout(fig, labels, labels, row=1, col=col)  # token axes, queries top to bottom
        fig.update_xaxes(
            _turn_axis(labels, starts, content.text(BOOK, "heatmap-key-axis")), tickangle=-60, row=1, col=col
        )
        fig.update_yaxes(
            _turn_axis(labels, starts, content.text(BOOK, "heatmap-query-axis") if col == 1 else ""), row=1, col=col
        )
        for b in p["boundaries"]:  # a thin line where each chat turn starts
            pos = b - 0.5
            for x0, y0, x1, y1 in ((pos, -0.5, pos, edge), (-0.5, pos, edge, pos)):
                fig.add_shape(
                    type="line", x0=x0, y0=y0, x1=x1, y1=y1, line=dict(color="#333333", width=1), row=1, col=col
                )
    fig.data[-1].colorbar.update(
        orientation="h", x=0.5, xanchor="center", y=-0.32, yanchor="top", len=1.0, thickness=16, tickfont=dict(size=15)
    )
    fig.update_xaxes(constrain="domain")
    fig.update_yaxes(scaleanchor="x", constrain="domain", row=1, col=1)
    fig.update_yaxes(scaleanchor="x2", constrain="domain", row=1, col=2)
    below_badge(fig, 0.9)
    fig.update_layout(margin=dict(b=150))
    block = p["block"]
    detail = content.text(BOOK, "heatmap-block", block=block) if block > 1 else content.text(BOOK, "heatmap-one-entry")
    title = content.text(BOOK, "heatmap-title", turn=p["turns"], history=p["history"], m=p["m"], layer=p["layer"])
    return styled(fig, title, Evidence(Kind.SCHEMATIC, detail, note=content.text(BOOK, "heatmap-exact")), height=height)


def recompute_across_turns(table: pd.DataFrame) -> go.Figure:
    """Attention entries per layer that each turn computes, and what the causal model reuses instead."""
    t = table[table["turn"] >= 1]
    fig = go.Figure()
    fig.add_bar(
        x=t["turn"],
        y=t["bidirectional_recomputed"],
        name=content.text(BOOK, "turns-bidirectional"),
        marker=dict(
            color=CONCEPT_COLORS["recomputed"],
            line=dict(color=BIDIR, width=3),
            pattern=dict(shape="/", fgcolor=BIDIR, fillmode="overlay"),
        ),
        offsetgroup="bidirectional",
    )
    fig.add_bar(
        x=t["turn"],
        y=t["causal_computed"],
        name=content.text(BOOK, "turns-causal-computed"),
        marker_color=CONCEPT_COLORS["recomputed"],
        offsetgroup="causal",
    )
    fig.add_bar(
        x=t["turn"],
        y=t["causal_reused"],
        name=content.text(BOOK, "turns-causal-reused"),
        marker_color=CONCEPT_COLORS["reused"],
        offsetgroup="causal",
        base=t["causal_computed"],
    )
    total_bi, total_c = t["bidirectional_recomputed"].sum(), t["causal_computed"].sum()
    fig.update_layout(barmode="group")
    _legend_right(fig)
    fig.update_xaxes(title=content.text(BOOK, "axis-chat-turn"), dtick=1)
    fig.update_yaxes(title=content.text(BOOK, "turns-y-axis"))
    title = content.text(
        BOOK,
        "turns-title",
        turns=plural(len(t), "turn"),
        recomputed=si(total_bi),
        computed=si(total_c),
        ratio=total_bi / total_c,
    )
    return styled(fig, title, Evidence(Kind.FORMULA, content.text(BOOK, "turns-evidence")), height=460)


# --- 2. cost model ------------------------------------------------------------------------------


def cost_per_turn(curves: pd.DataFrame, point: dict, m: int, depth: int, d_model: int = 64) -> go.Figure:
    """FLOPs of one turn against the history length: exact counts next to the lecture's leading terms."""
    fig = go.Figure()
    h = curves["history"]
    fig.add_scatter(
        x=h, y=curves["flops_reencode"], name=content.text(BOOK, "cost-reencode"), line=dict(color=BIDIR, width=3)
    )
    fig.add_scatter(
        x=h, y=curves["flops_cached"], name=content.text(BOOK, "cost-cached"), line=dict(color=CAUSAL, width=3)
    )
    fig.add_scatter(
        x=h,
        y=curves["flops_cached_causal_only"],
        name=content.text(BOOK, "cost-cached-skipped"),
        line=dict(color=CAUSAL, width=2, dash="dashdot"),
    )
    fig.add_scatter(
        x=h,
        y=curves["lecture_reencode"],
        name=content.text(BOOK, "cost-lecture-reencode"),
        line=dict(color=BIDIR, width=2, dash="dot"),
    )
    fig.add_scatter(
        x=h,
        y=curves["lecture_cached"],
        name=content.text(BOOK, "cost-lecture-cached"),
        line=dict(color=CAUSAL, width=2, dash="dot"),
    )
    h = int(point["history"])
    _mark(
        fig,
        [h, h],
        [point["flops_reencode"], point["flops_cached"]],
        content.text(BOOK, "cost-mark", history=h, ratio=point["flops_reencode"] / point["flops_cached"]),
        "top left",
    )
    _log_axes(fig, content.text(BOOK, "cost-x-axis"), content.text(BOOK, "cost-y-axis"), decades=True)
    _legend_right(fig)
    title = content.text(BOOK, "cost-title", m=m, layers=plural(depth, "layer"), d=d_model)
    return styled(fig, title, Evidence(Kind.FORMULA, content.text(BOOK, "cost-evidence")))


def cumulative_cost(table: pd.DataFrame) -> go.Figure:
    """Running total of FLOPs over the conversation (turn 0 is the opening, encoded once by both)."""
    fig = go.Figure()
    fig.add_scatter(
        x=table["turn"],
        y=table["cum_flops_reencode"],
        name=content.text(BOOK, "cumulative-reencode"),
        mode="lines+markers",
        line=dict(color=BIDIR, width=3),
    )
    fig.add_scatter(
        x=table["turn"],
        y=table["cum_flops_cached"],
        name=content.text(BOOK, "cumulative-cached"),
        mode="lines+markers",
        line=dict(color=CAUSAL, width=3),
    )
    last = table.iloc[-1]
    fig.update_xaxes(title=content.text(BOOK, "cumulative-x-axis"), dtick=1)
    fig.update_yaxes(title=content.text(BOOK, "cumulative-y-axis"), rangemode="tozero")
    _legend_right(fig)
    title = content.text(
        BOOK,
        "cumulative-title",
        turn=int(last["turn"]),
        reencode=si(last["cum_flops_reencode"]),
        cached=si(last["cum_flops_cached"]),
        ratio=last["cum_flops_reencode"] / last["cum_flops_cached"],
    )
    return styled(fig, title, Evidence(Kind.FORMULA, content.text(BOOK, "cumulative-evidence")))


def kv_memory(curves: pd.DataFrame, depth: int, total: int, d_model: int = 64) -> go.Figure:
    """What the cache costs instead: 2 x layers x tokens x width x bytes, for this model and a large one."""
    tokens = curves["total"]
    fig = go.Figure()
    fig.add_scatter(
        x=tokens,
        y=curves["kv_cache_bytes"],
        name=content.text(BOOK, "memory-this-model", layers=plural(depth, "layer"), d=d_model),
        line=dict(color=CAUSAL, width=3),
    )
    fig.add_scatter(
        x=tokens,
        y=curves["kv_cache_bytes_large"],
        name=content.text(BOOK, "memory-large-model", layers=LARGE_MODEL.n_layers, d=LARGE_MODEL.d_model),
        line=dict(color=OKABE_ITO[7], width=3),
    )
    here = kv_cache_bytes(model_config(depth, total), total)
    _mark(fig, [total], [here], content.text(BOOK, "memory-mark", total=total, size=_bytes(here)))
    _log_axes(fig, content.text(BOOK, "memory-x-axis"), content.text(BOOK, "memory-y-axis"), decades=True)
    _legend_right(fig)
    return styled(
        fig,
        content.text(BOOK, "memory-title"),
        Evidence(Kind.FORMULA, content.text(BOOK, "memory-evidence")),
        height=420,
    )


# --- 3. measured --------------------------------------------------------------------------------


def measured_times(r: dict, fit: dict | None = None) -> go.Figure:
    """Median time of the two ways to serve one turn, with the interquartile range (bars) and min-max."""
    fig = go.Figure()
    rows = []
    for name, key, color in (
        (content.text(BOOK, "mode-reencode"), "spread_reencode_ms", BIDIR),
        (content.text(BOOK, "mode-cached"), "spread_cached_ms", CAUSAL),
    ):
        s = r[key]
        row = f"{name}: {s['median']:.3g} ms"
        rows.append(row)
        fig.add_scatter(
            x=[s["median"]],
            y=[row],
            mode="markers",
            name=content.text(BOOK, "times-median", name=name),
            marker=dict(color=color, size=18),
            error_x=_iqr([s["median"]], [s["q1"]], [s["q3"]], thickness=3, width=12),
        )
        fig.add_scatter(
            x=[s["min"], s["max"]],
            y=[row, row],
            mode="lines+markers",
            showlegend=False,
            line=dict(color=color, width=1),
            marker=dict(symbol="line-ns-open", size=14, color=color),
            hovertemplate=content.text(BOOK, "times-min-max-hover"),
        )
    if fit is not None:
        pred = [
            predict_seconds(fit, r["flops_reencode"], r["depth"]) * 1e3,
            predict_seconds(fit, r["flops_cached"], r["depth"]) * 1e3,
        ]
        fig.add_scatter(
            x=pred,
            y=rows,
            mode="markers",
            name=content.text(BOOK, "times-fit"),
            marker=dict(color=CONCEPT_COLORS["fit"], symbol="diamond-open", size=16, line=dict(width=3)),
        )
    fig.update_xaxes(type="log", title=content.text(BOOK, "times-x-axis"))
    fig.update_yaxes(title="", autorange="reversed", automargin=True, tickfont=dict(size=17))
    _legend_right(fig)
    title = content.text(
        BOOK, "times-title", speedup=r["speedup"], ratio=r["flop_ratio"], sizes=_sizes(r["n"], r["m"], r["depth"])
    )
    detail = content.text(BOOK, "times-evidence", repeats=r["repeats"], seed=r["seed"])
    also = (Kind.FIT,) if fit is not None else ()
    return styled(fig, title, Evidence(Kind.MEASURED, detail, also=also), height=380)


def overhead_fit(sweep: dict) -> go.Figure:
    """Measured time against FLOPs for every size of the sweep, and the fitted a·FLOPs + b·layers + c."""
    rows = pd.DataFrame(sweep["rows"])
    fit = sweep["fit"]
    fig = go.Figure()
    symbols = {1: "circle", 2: "square", 4: "diamond"}
    for mode, color, label in (
        ("reencode", BIDIR, content.text(BOOK, "mode-reencode")),
        ("cached", CAUSAL, content.text(BOOK, "mode-cached")),
    ):
        for depth, g in rows[rows["mode"] == mode].groupby("depth"):
            fig.add_scatter(
                x=g["flops"],
                y=g["median_ms"],
                mode="markers",
                legendgroup=mode,
                name=f"{label}, {plural(int(depth), 'layer')}",
                marker=dict(color=color, size=11, symbol=symbols.get(depth, "circle")),
                error_y=_iqr(g["median_ms"], g["q1_ms"], g["q3_ms"]),
            )
    flops = np.logspace(np.log10(rows["flops"].min() / 2), np.log10(rows["flops"].max() * 2), 80)
    for i, depth in enumerate(sorted(rows["depth"].unique())):
        fig.add_scatter(
            x=flops,
            y=[predict_seconds(fit, f, int(depth)) * 1e3 for f in flops],
            mode="lines",
            name=content.text(BOOK, "fit-line", layers=plural(int(depth), "layer")),
            legendgroup="fit",
            line=dict(color=CONCEPT_COLORS["fit"], dash="dash", width=1 + i),
        )
    _log_axes(fig, content.text(BOOK, "fit-x-axis"), content.text(BOOK, "fit-y-axis"))
    _legend_right(fig)
    title = content.text(
        BOOK, "fit-title", gflops=fit["gflops_per_s"], per_layer=fit["b_s_per_layer"] * 1e3, fixed=fit["c_s"] * 1e3
    )
    detail = content.text(BOOK, "fit-evidence", error=fit["median_rel_error"])
    return styled(fig, title, Evidence(Kind.FIT, detail, also=(Kind.MEASURED,)), height=520)


def speedup_vs_ratio(sweep: dict, measured: dict | None = None) -> go.Figure:
    """Measured speedup against the FLOP ratio (n+m)/m: the ideal diagonal, the data and the overhead model."""
    rows = pd.DataFrame(sweep["rows"])
    fit = sweep["fit"]
    pivot = rows.pivot_table(index=["depth", "history", "m"], columns="mode", values=["median_ms", "flops"])
    pairs = pd.DataFrame(
        {
            "ratio": pivot[("flops", "reencode")] / pivot[("flops", "cached")],
            "speedup": pivot[("median_ms", "reencode")] / pivot[("median_ms", "cached")],
        }
    ).reset_index()
    fig = go.Figure()
    top = max(pairs["ratio"].max(), (measured or {}).get("flop_ratio", 1)) * 1.5
    fig.add_scatter(
        x=[1, top],
        y=[1, top],
        mode="lines",
        name=content.text(BOOK, "speedup-diagonal"),
        line=dict(color="#999999", width=2, dash="dot"),
    )
    palette = {1: OKABE_ITO[2], 2: OKABE_ITO[4], 4: OKABE_ITO[3]}
    symbols = {1: "circle", 8: "square"}
    histories = np.unique(np.round(np.logspace(0, np.log10(pairs["history"].max()), 40)))  # the fitted range
    for depth in sorted(pairs["depth"].unique()):
        color = palette.get(int(depth), OKABE_ITO[7])
        for m in sorted(pairs["m"].unique()):
            g = pairs[(pairs["depth"] == depth) & (pairs["m"] == m)]
            fig.add_scatter(
                x=g["ratio"],
                y=g["speedup"],
                mode="markers",
                legendgroup=f"d{depth}",
                name=content.text(BOOK, "speedup-measured", layers=plural(int(depth), "layer"), m=m),
                marker=dict(color=color, size=12, symbol=symbols.get(int(m), "diamond")),
                customdata=g["history"],
                hovertemplate=content.text(BOOK, "speedup-measured-hover", m=m),
            )
            cfg = model_config(int(depth), int(histories[-1]) + int(m))
            flops = [turn_flops(cfg, int(h), int(m)) for h in histories]
            last = depth == pairs["depth"].max()  # label each family of curves once, at its end
            fig.add_scatter(
                x=[f["flops_reencode"] / f["flops_cached"] for f in flops],
                y=[
                    predict_seconds(fit, f["flops_reencode"], depth) / predict_seconds(fit, f["flops_cached"], depth)
                    for f in flops
                ],
                mode="lines+text",
                text=[""] * (len(flops) - 1) + [f" m={m}" if last else ""],
                textposition="middle right",
                textfont=dict(size=15),
                legendgroup=f"d{depth}",
                showlegend=bool(m == pairs["m"].min()),
                name=content.text(BOOK, "speedup-model", layers=plural(int(depth), "layer")),
                line=dict(color=color, dash="dash" if m == pairs["m"].min() else "longdash", width=2),
                hovertemplate=content.text(BOOK, "speedup-model-hover", m=m),
            )
    if measured is not None:
        fig.add_scatter(
            x=[measured["flop_ratio"]],
            y=[measured["speedup"]],
            mode="markers",
            name=content.text(BOOK, "speedup-yours", sizes=_sizes(measured["n"], measured["m"], measured["depth"])),
            marker=dict(color="#000000", symbol="star", size=20),
        )
    _log_axes(fig, content.text(BOOK, "speedup-x-axis"), content.text(BOOK, "speedup-y-axis"))
    _legend_right(fig)
    return styled(
        fig,
        content.text(BOOK, "speedup-title"),
        Evidence(
            Kind.MEASURED,
            content.text(BOOK, "speedup-evidence", sizes=len(pairs), repeats=sweep["repeats"]),
            also=(Kind.FIT,),
        ),
        height=540,
    )


# --- 4. drift -----------------------------------------------------------------------------------


def model_name(model: str) -> str:
    """A drift model's name (`explorer.experiments.cache.drift_models`: 'bidirectional, trained', ...) as shown;
    an unknown name as it is."""
    if model not in DRIFT_STYLE:
        return model
    return content.text(BOOK, f"model-{model.replace(', ', '-')}")


def _layer_text(layer: str) -> str:
    """A drift table's layer ('1', '2', ..., 'output') as shown on the category axis."""
    return content.text(BOOK, "drift-output-layer") if layer == "output" else layer


def drift_per_layer(table: pd.DataFrame, n: int, m: int) -> go.Figure:
    """Relative change of old tokens' hidden states and keys/values, per layer, per model."""
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(content.text(BOOK, "drift-state-panel"), content.text(BOOK, "drift-kv-panel")),
        horizontal_spacing=0.1,
    )
    for col, quantity in ((1, "hidden state"), (2, "keys & values")):
        for model, g in table[table["quantity"] == quantity].groupby("model", sort=False):
            color, dash, symbol = DRIFT_STYLE.get(model, ("#333333", "solid", "circle"))
            name = model_name(model)
            fig.add_scatter(
                x=[_layer_text(layer) for layer in g["layer"]],
                y=100 * g["relative_change"],
                name=name,
                legendgroup=model,
                showlegend=col == 1,
                mode="lines+markers",
                line=dict(color=color, dash=dash, width=3),
                marker=dict(symbol=symbol, size=11),
                hovertemplate=content.text(BOOK, "drift-layer-hover", name=name),
                row=1,
                col=col,
            )
        fig.update_xaxes(title=content.text(BOOK, "drift-x-axis"), type="category", row=1, col=col)
    fig.update_yaxes(title=content.text(BOOK, "drift-y-axis"), rangemode="tozero", row=1, col=1)
    fig.update_yaxes(rangemode="tozero", row=1, col=2)
    below_badge(fig, 0.86)
    _legend_right(fig)
    causal = table[table["model"].str.startswith("causal")]["relative_change"]
    title = content.text(BOOK, "drift-title", m=m, n=n, largest=causal.max())
    detail = content.text(BOOK, "drift-evidence", batch=DRIFT_BATCH, seed=DRIFT_SEED)
    return styled(fig, title, Evidence(Kind.MEASURED, detail, also=(Kind.BY_CONSTRUCTION,)), height=500)


def drift_vs_fraction(df: pd.DataFrame) -> go.Figure:
    """Drift of the last layer's keys/values against the share of the sequence that was appended."""
    fig = go.Figure()
    for model, g in df.groupby("model", sort=False):
        color, dash, symbol = DRIFT_STYLE.get(model, ("#333333", "solid", "circle"))
        name = model_name(model)
        fig.add_scatter(
            x=g["fraction"],
            y=100 * g["kv_last_layer"],
            name=name,
            mode="lines+markers",
            line=dict(color=color, dash=dash, width=2),
            marker=dict(symbol=symbol, size=8),
            customdata=np.stack([g["n"], g["m"]], -1),
            hovertemplate="n=%{customdata[0]}, m=%{customdata[1]}: %{y:.3g} %<extra>" + name + "</extra>",
        )
    fig.update_xaxes(title=content.text(BOOK, "fraction-x-axis"), range=[0, 1], tickformat=".0%")
    fig.update_yaxes(title=content.text(BOOK, "fraction-y-axis"), rangemode="tozero")
    _legend_right(fig)
    total = int((df["n"] + df["m"]).iloc[0])
    return styled(
        fig,
        content.text(BOOK, "fraction-title", total=total),
        Evidence(
            Kind.MEASURED,
            content.text(BOOK, "fraction-evidence", batch=FRACTION_BATCH, seed=DRIFT_SEED),
            also=(Kind.BY_CONSTRUCTION,),
        ),
        height=460,
    )


# --- 5. the stale cache: what reusing old keys and values costs a bidirectional model ---------------------


def _seed_range(df: pd.DataFrame, metric: str) -> dict:
    """Error bars from the lowest to the highest seed."""
    return dict(
        type="data",
        symmetric=False,
        array=df[f"{metric}_high"] - df[metric],
        arrayminus=df[metric] - df[f"{metric}_low"],
        thickness=1.5,
        width=4,
    )


def _task_panels(tasks: list[str]) -> go.Figure:
    """One panel per task on one shared y scale, so a task's small error reads as small beside a large one."""
    titles = [
        content.text(BOOK, "task-panel", task=task_name(task), reads=content.text(BOOK, f"task-reads-{task}"))
        if task in TASKS
        else f"<b>{task}</b>: "
        for task in tasks
    ]
    return make_subplots(rows=1, cols=len(tasks), subplot_titles=titles, horizontal_spacing=0.07, shared_yaxes=True)


TASKS = ("sort", "copy", "reverse")  # the tasks whose names and reading are in fig-cache.md


def task_name(task: str) -> str:
    """A task's name as shown ('sort' stays the data's value); an unknown task as it is."""
    return content.text(BOOK, f"task-{task}") if task in TASKS else task


def _seeds_detail(summary: pd.DataFrame) -> str:
    seeds = int(summary["seeds"].min())
    return content.text(BOOK, "stale-seeds", seeds=plural(seeds, "seed"))


def stale_accuracy(summary: pd.DataFrame, n: int) -> go.Figure:
    """Token accuracy of the m new positions, re-encoded vs read off the stale cache, against m, per task."""
    rows = summary[(summary["arch"] == "bidirectional") & (summary["n"] == n)]
    tasks = list(dict.fromkeys(rows["task"]))
    fig = _task_panels(tasks)
    for col, task in enumerate(tasks, start=1):
        g = rows[rows["task"] == task].sort_values("m")
        for metric, name, dash, symbol in (
            ("accuracy_reencode", content.text(BOOK, "stale-reencode"), "solid", "circle"),
            ("accuracy_stale", content.text(BOOK, "stale-reuse"), "dash", "circle-open"),
        ):
            fig.add_scatter(
                x=g["m"],
                y=g[metric],
                name=name,
                legendgroup=name,
                showlegend=col == 1,
                mode="lines+markers",
                error_y=_seed_range(g, metric),
                line=dict(color=BIDIR, dash=dash, width=3),
                marker=dict(symbol=symbol, size=11),
                hovertemplate=f"{task_name(task)}, m=%{{x}}: %{{y:.3f}}<extra>{name}</extra>",
                row=1,
                col=col,
            )
        fig.update_xaxes(title=content.text(BOOK, "stale-x-axis"), type="log", tickvals=sorted(g["m"]), row=1, col=col)
    fig.update_yaxes(range=[0, 1.05], tickformat=".0%")
    fig.update_yaxes(title=content.text(BOOK, "stale-accuracy-y-axis"), row=1, col=1)
    below_badge(fig, 0.86)
    _legend_right(fig)
    title = content.text(BOOK, "stale-accuracy-title", n=n)
    return styled(fig, title, Evidence(Kind.MEASURED, _seeds_detail(summary)), height=480)


def stale_kl(summary: pd.DataFrame) -> go.Figure:
    """KL(re-encoded || stale) per new position against m, one line per history n, per task; causal at zero."""
    tasks = list(dict.fromkeys(summary["task"]))
    fig = _task_panels(tasks)
    bidir = summary[summary["arch"] == "bidirectional"]
    causal = summary[summary["arch"] == "causal"]
    for col, task in enumerate(tasks, start=1):
        # the causal zero first, so the measured bidirectional lines stay visible where they lie on it (copy)
        c = causal[causal["task"] == task].groupby("m", as_index=False)["kl"].max()
        fig.add_scatter(
            x=c["m"],
            y=[0.0] * len(c),
            name=content.text(BOOK, "stale-causal"),
            legendgroup="causal",
            showlegend=col == 1,
            mode="lines+markers",
            line=dict(color=CAUSAL, width=3),
            marker=dict(symbol="square", size=9),
            customdata=c["kl"],
            hovertemplate=content.text(BOOK, "stale-causal-hover"),
            row=1,
            col=col,
        )
        for i, (n, g) in enumerate(bidir[bidir["task"] == task].groupby("n")):
            g = g.sort_values("m")
            name = content.text(BOOK, "stale-bidirectional", n=n)
            fig.add_scatter(
                x=g["m"],
                y=g["kl"],
                name=name,
                legendgroup=name,
                showlegend=col == 1,
                mode="lines+markers",
                error_y=_seed_range(g, "kl"),
                line=dict(color=BIDIR, width=1 + i, dash=("dot", "dash", "longdash", "solid")[i % 4]),
                marker=dict(size=6 + 2 * i),
                hovertemplate=f"{task_name(task)}, n={n}, m=%{{x}}: %{{y:.3g}} nats<extra></extra>",
                row=1,
                col=col,
            )
        fig.update_xaxes(title=content.text(BOOK, "stale-x-axis"), type="log", tickvals=sorted(c["m"]), row=1, col=col)
    fig.update_yaxes(title=content.text(BOOK, "stale-kl-y-axis"), rangemode="tozero", row=1, col=1)
    below_badge(fig, 0.86)
    _legend_right(fig)
    worst = causal["max_abs_logit_diff"].max()
    detail = content.text(BOOK, "stale-kl-evidence", seeds=_seeds_detail(summary), worst=worst)
    return styled(
        fig,
        content.text(BOOK, "stale-kl-title"),
        Evidence(Kind.MEASURED, detail, also=(Kind.BY_CONSTRUCTION,)),
        height=500,
    )
