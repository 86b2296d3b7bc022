"""Figures of the four-steps page: pure functions, plain data in, a Plotly figure out.

Each ends with `theme.styled(..., Evidence(...))`: the table, wiring and masks are schematics drawn from
the model configuration; parameter counts, logit differences and losses are measured.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.experiments.four_steps import (
    ALL_VARIANTS,
    DECODER,
    FINAL_STEP,
    MATCHED,
    VARIANTS,
    WeightTile,
    Wiring,
    aspect_label,
    cause_label,
    list_sep,
    variant_short,
    weight_blocks,
)
from explorer.figures.heatmaps import category_heatmap, matrix_layout
from explorer.figures.readability import LABELLED
from explorer.figures.theme import CONCEPT_COLORS, FOOT_LEGEND, OKABE_ITO, styled

CURRENT = OKABE_ITO[0]  # the step being looked at
OTHER = "#BBBBBB"
REFERENCE = CONCEPT_COLORS["data"]  # decoder-only, the destination
HIGHLIGHT = "#FCE7B2"  # a changed row of the table
BOOK = "fig-four-steps"  # this module's words, in the run's language (content/<lang>/fig-four-steps.md)
HALF_WIDTH_BADGE = 48  # badge characters per line for the wiring and parameter figures, drawn side by side
F32, F64 = OKABE_ITO[0], OKABE_ITO[1]
BELOW = dict(orientation="h", x=0, y=-0.18, yanchor="top")  # legends under the plot, clear of the badge
EPS = {"f32": float(np.finfo(np.float32).eps), "f64": float(np.finfo(np.float64).eps)}


def _from_config() -> str:
    return content.text(BOOK, "from-config")


def _sizes(cfg: dict) -> str:
    return content.text(BOOK, "sizes", d=cfg["d_model"], L=cfg["n_layers"], heads=cfg["n_heads"])


def diff_table(rows: list[dict], step: int, step_name: str) -> go.Figure:
    """The comparison of slides 42-51 at `step`: changed rows shaded, a tick where it equals decoder-only."""
    header = [
        "",
        content.text(BOOK, "col-previous"),
        f"<b>{step_name}</b>",
        variant_short(DECODER),
        content.text(BOOK, "col-matches"),
    ]
    fill = [HIGHLIGHT if r["changed"] and step else "white" for r in rows]
    cells = [
        [f"<b>{aspect_label(r['aspect'])}</b>" for r in rows],
        [r["previous"] for r in rows],
        [r["value"] for r in rows],
        [r["decoder_only"] for r in rows],
        ["✓" if r["as_decoder_only"] else "" for r in rows],
    ]
    widths = [2.2, 2.6, 2.9, 2.6, 1.0]
    if not step:  # nothing before the start: drop the previous-step column
        header, cells, widths = header[:1] + header[2:], cells[:1] + cells[2:], widths[:1] + widths[2:]
    fig = go.Figure(
        go.Table(
            columnwidth=widths,
            header=dict(values=header, fill_color="#F2F2F2", align="left", font=dict(size=15), height=34),
            cells=dict(values=cells, fill_color=[fill] * len(cells), align="left", font=dict(size=14), height=42),
        )
    )
    fig.update_layout(margin=dict(l=10, r=10, t=90, b=10))
    changed = [aspect_label(r["aspect"]) for r in rows if r["changed"]] if step else []
    what = list_sep().join(changed).lower()
    title = (
        content.text(BOOK, f"table-title-{'final' if step == FINAL_STEP else 'step'}", step=step, what=what)
        if changed
        else content.text(BOOK, "table-title-start")
    )
    return styled(fig, title, Evidence(Kind.SCHEMATIC, _from_config()), height=150 + 58 * len(rows))


def parameter_bars(counts: dict[str, int], current: str, model_cfg: dict) -> go.Figure:
    """Distinct parameters of every variant's instantiated model, the current step highlighted."""
    order = list(VARIANTS)
    colors = [REFERENCE if v == DECODER else CURRENT if v == current else OTHER for v in order]
    ref = counts[DECODER]
    text = [
        f"{counts[v]:,}" + (f"  (+{counts[v] - ref:,})" if v != DECODER and counts[v] != ref else "") for v in order
    ]
    fig = go.Figure(
        go.Bar(
            x=[counts[v] for v in order],
            y=[variant_short(v) for v in order],
            orientation="h",
            marker_color=colors,
            text=text,
            textposition="outside",
            cliponaxis=False,
            hovertemplate=content.text(BOOK, "params-hover"),
        )
    )
    fig.add_vline(x=ref, line=dict(color=REFERENCE, width=1.5))
    fig.update_yaxes(autorange="reversed", title=None)
    fig.update_xaxes(
        title=content.text(BOOK, "params-axis"), range=[0, max(counts.values()) * 2.3]
    )  # room for the labels at half width
    fig.update_layout(margin=dict(l=130, t=130))
    steps = [v for v in VARIANTS if v != DECODER]

    def name(v: str) -> str:
        return content.text(BOOK, "the-final-change") if v == str(len(steps) - 1) else variant_short(v)

    moved = [name(b) for a, b in zip(steps, steps[1:]) if counts[a] != counts[b]]
    still = [name(b) for a, b in zip(steps, steps[1:]) if counts[a] == counts[b]]
    title = content.text(BOOK, "params-title", moved=_and(moved)) + (
        content.text(BOOK, "params-title-rewire", still=_and(still)) if still else ""
    )
    return styled(
        fig,
        title,
        Evidence(Kind.MEASURED, content.text(BOOK, "params-evidence", sizes=_sizes(model_cfg))),
        height=420,
        badge_chars=HALF_WIDTH_BADGE,
    )


def _and(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return content.text(BOOK, "and", first=list_sep().join(items[:-1]), last=items[-1])


def _box(fig: go.Figure, x: float, y: float, text: str, color: str, width: float = 0.5) -> None:
    fig.add_shape(
        type="rect",
        x0=x - width / 2,
        x1=x + width / 2,
        y0=y - 0.34,
        y1=y + 0.34,
        line=dict(color=color, width=2),
        fillcolor="white",
        layer="below",
    )
    fig.add_annotation(x=x, y=y, text=text, showarrow=False, font=dict(size=14, color="#222222"))


def wiring(w: Wiring, title: str) -> go.Figure:
    """Encoder layers on the left, decoder layers on the right, an arrow per decoder layer from the encoder
    level it reads (level k = after k encoder layers; level 0 = the embeddings)."""
    fig = go.Figure()
    enc_x, dec_x = 0.0, 1.0
    enc_color = CONCEPT_COLORS[w.input_mask]
    link = CONCEPT_COLORS["joint" if w.joint else "cross"]
    left = content.text(BOOK, f"left-{'input-tokens' if w.decoder_only else 'encoder'}")
    right = content.text(BOOK, f"right-{'target-tokens' if w.decoder_only else 'decoder'}")
    for layer in range(w.depth):
        y = layer + 1
        name = content.text(
            BOOK, f"layer-{'shared' if w.shared_stacks and not w.decoder_only else 'plain'}", n=layer + 1
        )
        _box(fig, enc_x, y, name if w.shared_stacks else content.text(BOOK, "enc", n=layer + 1), enc_color)
        _box(
            fig, dec_x, y, name if w.shared_stacks else content.text(BOOK, "dec", n=layer + 1), CONCEPT_COLORS["causal"]
        )
    _box(fig, enc_x, 0, content.text(BOOK, "embed", start="0"), "#888888")
    _box(fig, dec_x, 0, content.text(BOOK, "embed", start="n" if w.positions_continue else "0"), "#888888")
    for layer, level in enumerate(w.reads):
        # the level sits between boxes: level k is the output of layer k, the input of layer k + 1
        fig.add_annotation(
            x=dec_x - 0.25,
            y=layer + 1,
            ax=enc_x + 0.25,
            ay=level + 0.5,
            xref="x",
            yref="y",
            axref="x",
            ayref="y",
            showarrow=True,
            arrowhead=3,
            arrowsize=1.2,
            arrowwidth=2.2,
            arrowcolor=link,
            text="",
        )
        fig.add_trace(
            go.Scatter(
                x=[enc_x + 0.25],
                y=[level + 0.5],
                mode="markers",
                showlegend=False,
                marker=dict(size=9, color=link),
                hovertemplate=content.text(BOOK, "reads-hover", layer=layer + 1, level=level),
            )
        )
    top = w.depth + 1.15
    fig.add_annotation(
        x=enc_x,
        y=top,
        text=content.text(BOOK, f"stack-head-{w.input_mask}", name=left),
        showarrow=False,
        font=dict(size=15, color=enc_color),
    )
    fig.add_annotation(
        x=dec_x,
        y=top,
        text=content.text(BOOK, "stack-head-causal", name=right),
        showarrow=False,
        font=dict(size=15, color=CONCEPT_COLORS["causal"]),
    )
    roles = content.text(BOOK, f"roles-{'joint' if w.joint else 'shared' if w.shared_roles else 'own'}")
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line=dict(color=link, width=3), name=roles))
    fig.update_xaxes(visible=False, range=[-0.3, 1.3])
    fig.update_yaxes(visible=False, range=[-0.6, w.depth + 1.6])
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.02, yanchor="top"), margin=dict(l=10, r=10, b=40))
    return styled(
        fig,
        title,
        Evidence(Kind.SCHEMATIC, _from_config()),
        height=max(380, 170 + 70 * w.depth),
        badge_chars=HALF_WIDTH_BADGE,
    )


# whose weights a block runs (Paul Tol's colour-blind-safe set, apart from the attention kinds' colours)
OWNER_COLORS = {"decoder": "#332288", "encoder": "#88CCEE", "cross": "#DDCC77"}
OWNER_TEXT = {"decoder": "#FFFFFF", "encoder": "#222222", "cross": "#222222"}
TILE_X = {
    ("encoder", "self"): 0.0,
    ("encoder", "mlp"): 1.0,
    ("decoder", "cross"): 2.7,
    ("decoder", "self"): 3.7,
    ("decoder", "mlp"): 4.7,
}
TILE_W, TILE_H = 0.88, 0.64


def _pale(color: str, share: float = 0.45) -> str:
    """`color` mixed with white: a fill that reads as paler on a light and on a dark page alike."""
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(share * c + (1 - share) * 255):02X}" for c in rgb)


def _tile(fig: go.Figure, x0: float, x1: float, y: float, tile: WeightTile, text: str) -> None:
    """A weight block: its owner's colour, pale with a dashed edge where it runs another block's weights."""
    color = OWNER_COLORS[tile.owner]
    fill = _pale(color) if tile.borrowed else color
    fig.add_shape(
        type="rect",
        x0=x0,
        x1=x1,
        y0=y - TILE_H / 2,
        y1=y + TILE_H / 2,
        fillcolor=fill,
        layer="below",
        line=dict(color=color if not tile.borrowed else "#555555", width=2, dash="dash" if tile.borrowed else "solid"),
    )
    fig.add_annotation(
        x=(x0 + x1) / 2,
        y=y,
        text=text,
        showarrow=False,
        font=dict(size=14, color="#222222" if tile.borrowed else OWNER_TEXT[tile.owner]),
        bgcolor=fill,  # the tile's own colour: says what the label is read against (figures.readability)
    )


def _owner(tile: WeightTile) -> str:
    return content.text(BOOK, f"owner-{tile.owner}", n=tile.owner_layer)


def weights(
    tiles: Sequence[WeightTile], w: Wiring, step: str, decoder_blocks: int, same: str, height: int = 460
) -> go.Figure:
    """Every attention and MLP block of both stacks, coloured by whose weights it runs, and an arrow per decoder
    layer from the encoder level its cross-attention reads. Steps 1 and 2 change no mask: they change which
    weights the blocks run; step 3 moves the arrows; the final change merges each decoder layer's two attentions.
    `step` names the step, `decoder_blocks` counts decoder-only's weight blocks, `same` says how much already
    matches decoder-only (`four_steps_view.weights`)."""
    fig = go.Figure()
    merged = any(t.merged for t in tiles)
    link = CONCEPT_COLORS["causal" if merged else "cross"]
    for tile in tiles:
        if tile.merged and tile.role == "cross":
            continue  # drawn with the self-attention, as one block
        x = TILE_X[(tile.stack, tile.role)]
        x0, x1 = x - TILE_W / 2, x + TILE_W / 2
        if tile.merged and tile.role == "self":
            x0 = TILE_X[("decoder", "cross")] - TILE_W / 2
        label = ("= " if tile.borrowed else "") + _owner(tile)
        _tile(fig, x0, x1, tile.layer, tile, label)
        fig.add_trace(
            go.Scatter(
                x=[(x0 + x1) / 2],
                y=[tile.layer],
                mode="markers",
                marker=dict(size=24, opacity=0),
                showlegend=False,
                hovertemplate=content.text(
                    BOOK,
                    f"tile-hover-{'borrowed' if tile.borrowed else 'own'}",
                    block=content.text(
                        BOOK, f"block-{tile.stack}-{'joint' if tile.merged else tile.role}", n=tile.layer
                    ),
                    owner=content.text(BOOK, f"owner-long-{tile.owner}", n=tile.owner_layer),
                ),
            )
        )
    top = w.depth
    enc_left, enc_right = TILE_X[("encoder", "self")] - TILE_W / 2, TILE_X[("encoder", "mlp")] + TILE_W / 2
    dec_left, dec_right = TILE_X[("decoder", "cross")] - TILE_W / 2, TILE_X[("decoder", "mlp")] + TILE_W / 2
    for (left, right), text in (
        ((enc_left, enc_right), content.text(BOOK, "embed", start="0")),
        ((dec_left, dec_right), content.text(BOOK, "embed", start="n" if w.positions_continue else "0")),
    ):
        fig.add_shape(
            type="rect",
            x0=left,
            x1=right,
            y0=-TILE_H / 2,
            y1=TILE_H / 2,
            fillcolor="#EEEEEE",
            line=dict(color="#888888", width=1.5),
            layer="below",
        )
        fig.add_annotation(x=(left + right) / 2, y=0, text=text, showarrow=False, font=dict(size=13, color="#222222"))
    for layer, level in enumerate(w.reads, start=1):
        # level k sits between encoder rows k and k + 1: the output of layer k, the input of layer k + 1
        fig.add_annotation(
            x=dec_left,
            y=layer,
            ax=enc_right,
            ay=level + 0.5,
            xref="x",
            yref="y",
            axref="x",
            ayref="y",
            showarrow=True,
            arrowhead=3,
            arrowsize=1.1,
            arrowwidth=2.2,
            arrowcolor=link,
            text="",
        )
        fig.add_trace(
            go.Scatter(
                x=[enc_right],
                y=[level + 0.5],
                mode="markers",
                showlegend=False,
                marker=dict(size=9, color=link),
                hovertemplate=content.text(BOOK, "reads-hover", layer=layer, level=level),
            )
        )
    heads = [
        (TILE_X[k], content.text(BOOK, f"column-{k[0]}-{k[1]}"))
        for k in TILE_X
        if not (merged and k == ("decoder", "cross"))
    ]
    if merged:
        heads = [
            (x, h)
            if x != TILE_X[("decoder", "self")]
            else ((TILE_X[("decoder", "cross")] + x) / 2, content.text(BOOK, "column-decoder-joint"))
            for x, h in heads
        ]
    for x, text in heads:
        fig.add_annotation(
            x=x, y=top + 0.45, text=text, showarrow=False, yanchor="bottom", font=dict(size=13, color="#555555")
        )
    for (left, right), name in (
        ((enc_left, enc_right), content.text(BOOK, "weights-input")),
        ((dec_left, dec_right), content.text(BOOK, "weights-target")),
    ):
        fig.add_annotation(
            x=(left + right) / 2,
            y=top + 0.95,
            text=f"<b>{name}</b>",
            showarrow=False,
            yanchor="bottom",
            font=dict(size=15, color="#222222"),
        )
    for owner in ("decoder", "encoder", "cross"):
        if any(t.owner == owner for t in tiles):
            fig.add_trace(
                go.Scatter(
                    x=[None],
                    y=[None],
                    mode="markers",
                    name=content.text(BOOK, f"legend-{owner}"),
                    marker=dict(symbol="square", size=14, color=OWNER_COLORS[owner]),
                    meta=LABELLED,  # each tile carries its owner's letter
                )
            )
    if any(t.borrowed for t in tiles):
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=content.text(BOOK, "legend-borrowed"),
                marker=dict(
                    symbol="square",
                    size=14,
                    color=_pale(OWNER_COLORS["decoder"]),
                    line=dict(color="#555555", width=1.5),
                ),
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[None], y=[None], mode="lines", line=dict(color=link, width=3), name=content.text(BOOK, "legend-reads")
        )
    )
    fig.update_xaxes(visible=False, range=[enc_left - 0.15, dec_right + 0.15])
    fig.update_yaxes(visible=False, range=[-0.55, top + 1.55])
    fig.update_layout(
        legend=dict(orientation="h", x=0, y=-0.02, yanchor="top", font=dict(size=13)), margin=dict(l=10, r=10, b=80)
    )
    title = content.text(
        BOOK,
        "weights-title",
        step=step,
        blocks=weight_blocks(tiles),
        decoder=decoder_blocks,
        same=content.text(BOOK, f"weights-same-{same}"),
    )
    return styled(
        fig,
        title,
        Evidence(Kind.SCHEMATIC, content.text(BOOK, "weights-evidence")),
        height=height,
        badge_chars=HALF_WIDTH_BADGE,
    )


MASK_FOOT_PX = 92  # the masks' slanted token labels ("x4", "y3") and their one-line key title
LEGEND_ROWS_PX = 66  # three rows of a legend under them


def combined_masks(panels: Sequence[tuple[str, dict]], height: int = 560) -> go.Figure:
    """Side-by-side [input ; target] masks; a cell's colour is the attention that lets the row read the column.

    Each panel is (title, `explorer.experiments.four_steps.combined_mask` output); blocked cells are empty.
    `height`: a page's first screen passes a smaller one; exports keep the default.
    """
    fig = make_subplots(rows=1, cols=len(panels), horizontal_spacing=0.12)
    for i, (panel, mask) in enumerate(panels, start=1):
        categories = [(content.text(BOOK, f"kind-{name}"), CONCEPT_COLORS[name]) for name in mask["categories"]]
        labels = mask["labels"]
        fig.add_trace(
            category_heatmap(mask["codes"], categories, labels, labels, showscale=i == len(panels)), row=1, col=i
        )
        matrix_layout(
            fig,
            labels,
            labels,
            row=1,
            col=i,
            x_title=content.text(BOOK, "mask-key", panel=panel),
            y_title=content.text(BOOK, "mask-query") if i == 1 else "",
        )
        n = sum(1 for label in labels if label.startswith("x"))
        for kind in ("x", "y"):  # the input | target boundary
            line = dict(type="line", line=dict(color="#444444", width=1.5), xref=f"x{i}", yref=f"y{i}")
            if kind == "x":
                fig.add_shape(**line, x0=n - 0.5, x1=n - 0.5, y0=-0.5, y1=len(labels) - 0.5)
            else:
                fig.add_shape(**line, y0=n - 0.5, y1=n - 0.5, x0=-0.5, x1=len(labels) - 0.5)
    # room for the slanted labels and the key title, set: automargin here costs Chromium a second redraw at
    # every step move (0.08 s instead of 0.05 s)
    fig.update_xaxes(tickangle=-60, tickfont=dict(size=12), automargin=False)
    fig.update_yaxes(tickfont=dict(size=12))
    fig.update_layout(margin=dict(l=90, b=MASK_FOOT_PX))
    return styled(
        fig,
        content.text(BOOK, "masks-title"),
        Evidence(Kind.SCHEMATIC, f"{_from_config()} · explorer.masks"),
        height=height,
    )


def mask_against_decoder(panel: str, mask: dict, decoder: dict, height: int = 460) -> go.Figure:
    """One step's [input ; target] mask in one panel, marked where decoder-only differs: × on a cell the step
    lets a token read and decoder-only does not, an open square on a cell decoder-only reads and the step does
    not. A cell's colour is the attention that reads it, in decoder-only's colour where it is the same softmax.

    One panel, not two side by side, so that it keeps its cells readable in half a page's width."""
    categories = [(content.text(BOOK, f"kind-{name}"), CONCEPT_COLORS[name]) for name in mask["categories"]]
    labels = mask["labels"]
    fig = go.Figure(category_heatmap(mask["codes"], categories, labels, labels, showscale=False))
    matrix_layout(
        fig,
        labels,
        labels,
        x_title=content.text(BOOK, "mask-key", panel=panel),
        y_title=content.text(BOOK, "mask-query"),
    )
    n = sum(1 for label in labels if label.startswith("x"))
    line = dict(type="line", line=dict(color="#444444", width=1.5))
    fig.add_shape(**line, x0=n - 0.5, x1=n - 0.5, y0=-0.5, y1=len(labels) - 0.5)
    fig.add_shape(**line, y0=n - 0.5, y1=n - 0.5, x0=-0.5, x1=len(labels) - 0.5)
    here, there = mask["codes"] >= 0, decoder["codes"] >= 0
    for cells, symbol, name in ((here & ~there, "x-thin", "extra"), (~here & there, "square-open", "missing")):
        rows, cols = np.nonzero(cells)
        if len(rows):
            fig.add_trace(
                go.Scatter(
                    x=cols,
                    y=rows,
                    mode="markers",
                    name=content.text(BOOK, f"mask-{name}"),
                    marker=dict(symbol=symbol, size=14, color="#222222", line=dict(width=2.5)),
                    hovertemplate=content.text(BOOK, f"mask-{name}-hover"),
                )
            )
    used = sorted({int(c) for c in np.unique(mask["codes"]) if c >= 0})
    for code in used:  # the kinds of attention in this mask, as legend entries (no colour bar: no width to spare)
        name, color = categories[code]
        fig.add_trace(
            go.Scatter(
                x=[None], y=[None], mode="markers", name=name, marker=dict(symbol="square", size=14, color=color)
            )
        )
    differ = int((here != there).sum())
    same_kind = differ == 0 and np.array_equal(mask["codes"], decoder["codes"])
    kind = "same" if same_kind else "cells-same" if differ == 0 else "differ"
    sub = content.text(
        BOOK,
        f"mask-{kind}",
        n=differ,
        positions=content.text(BOOK, "mask-positions") if mask["labels"] != decoder["labels"] else "",
    )
    fig.update_xaxes(tickangle=-60, tickfont=dict(size=13), automargin=False)
    fig.update_yaxes(tickfont=dict(size=13))
    # the legend under the key's title, in rows that wrap to the width (beside the cells it squeezed them on a
    # phone); room for three rows
    fig.update_layout(
        margin=dict(l=90, b=MASK_FOOT_PX + LEGEND_ROWS_PX),
        showlegend=True,  # also with one kind
        legend=dict(orientation="h", x=0, y=0, yref="container", yanchor="bottom", font=dict(size=13)),
    )
    return styled(
        fig,
        content.text(BOOK, "mask-title", panel=panel, sub=sub),
        Evidence(Kind.SCHEMATIC, f"{_from_config()} · explorer.masks"),
        height=height,
        badge_chars=HALF_WIDTH_BADGE,
    )


def _floor(values: list[float], floor: float) -> list[float]:
    return [v if v > floor else floor for v in values]


def _exact(v: float, floor: float) -> str:
    return content.text(BOOK, "exact-zero") if v == 0 else f"≤{floor:.0e}" if v <= floor else f"{v:.2g}"


def logit_check(check: dict, current: int) -> go.Figure:
    """Max |logit difference| to decoder-only after transplanting its weights, per step, on a log axis."""
    steps = check["steps"]
    names = [variant_short(str(r["step"])) for r in steps]
    floor = 1e-17  # exact zeros are drawn at this floor and labelled
    fig = go.Figure()
    for dtype, suffix, color in (("f32", "", F32), ("f64", "_f64", F64)):
        values = [r[f"max_abs_logit_diff{suffix}"] for r in steps]
        fig.add_trace(
            go.Bar(
                x=names,
                y=_floor(values, floor),
                name="float32" if dtype == "f32" else "float64",
                marker_color=color,
                marker_opacity=[1.0 if r["step"] == current else 0.45 for r in steps],
                text=[_exact(v, floor) for v in values],
                textposition="outside",
                cliponaxis=False,
                hovertemplate="%{x}: %{text}<extra>" + dtype + "</extra>",
            )
        )
        rounding = EPS[dtype] * check["max_abs_logit"]
        fig.add_trace(
            go.Scatter(
                x=[names[0], names[-1]],
                y=[rounding, rounding],
                mode="lines",
                line=dict(color=color, width=1.5, dash="dot"),
                hoverinfo="skip",
                name=content.text(BOOK, "rounding", dtype=dtype, rounding=rounding),
            )
        )
    fig.update_yaxes(type="log", title=content.text(BOOK, "logit-axis"), range=[-17.3, 2.5], exponentformat="power")
    fig.update_layout(barmode="group", legend=BELOW, margin=dict(l=100, b=110))
    s = check["settings"]
    detail = content.text(
        BOOK, "check-evidence", steps=s["train_steps"], seed=s["seed"], batch=s["batch"], sizes=_sizes(s["model"])
    )
    return styled(fig, content.text(BOOK, "check-title"), Evidence(Kind.MEASURED, detail), height=470)


def causes(check: dict) -> go.Figure:
    """What each difference left after step 4 costs on its own, put back into the exact model."""
    final = check["steps"][-1]
    labels = [cause_label(c["cause"]) for c in check["causes"]] + [content.text(BOOK, "none-left")]
    f32 = [c["f32"] for c in check["causes"]] + [final["max_abs_logit_diff"]]
    f64 = [c["f64"] for c in check["causes"]] + [final["max_abs_logit_diff_f64"]]
    floor = 1e-17
    fig = go.Figure()
    for name, values, color in (("float32", f32, F32), ("float64", f64, F64)):
        fig.add_trace(
            go.Bar(
                y=labels,
                x=_floor(values, floor),
                orientation="h",
                name=name,
                marker_color=color,
                text=[_exact(v, floor) for v in values],
                textposition="outside",
                cliponaxis=False,
                hovertemplate="%{y}: %{text}<extra>" + name + "</extra>",
            )
        )
    fig.update_xaxes(type="log", title=content.text(BOOK, "causes-axis"), range=[-17.3, 3], exponentformat="power")
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(barmode="group", legend=dict(x=1.01, y=0.5), margin=dict(l=290, r=120))
    detail = content.text(BOOK, "causes-evidence", sizes=_sizes(check["settings"]["model"]))
    return styled(fig, content.text(BOOK, "causes-title"), Evidence(Kind.MEASURED, detail), height=380)


def _ablation_detail(settings: dict, n_seeds: int) -> str:
    return content.text(
        BOOK,
        "ablation-evidence",
        task=settings["task"],
        length=settings["length"],
        seeds=n_seeds,
        steps=settings["steps"],
        batch=settings["batch_size"],
        d=settings["width"],
        L=settings["depth"],
        heads=settings["heads"],
    )


def _present(runs: list[dict]) -> list[str]:
    return [v for v in ALL_VARIANTS if any(r["variant"] == v for r in runs)]


def ablation(record: dict, highlight: Sequence[str] = ("4", DECODER)) -> go.Figure:
    """Held-out loss of every variant: one faint line per seed joining its variants (a seed is paired across
    them: same initial weights and batches), and the mean with ± one seed standard deviation."""
    order = _present(record["runs"])
    x = {v: i for i, v in enumerate(order)}
    fig = go.Figure()
    seeds = sorted({r["seed"] for r in record["runs"]})
    for j, seed in enumerate(seeds):
        runs = sorted((r for r in record["runs"] if r["seed"] == seed), key=lambda r: x[r["variant"]])
        fig.add_trace(
            go.Scatter(
                x=[x[r["variant"]] for r in runs],
                y=[r["eval_loss"] for r in runs],
                mode="lines+markers",
                name=content.text(BOOK, "one-seed-joined", n=len(seeds)),
                showlegend=j == 0,
                legendgroup="seeds",
                line=dict(color=OTHER, width=1),
                marker=dict(size=6, color=OTHER),
                opacity=0.6,
                hovertemplate=content.text(BOOK, "seed-hover", seed=seed),
            )
        )
    summary = {v["variant"]: v for v in record["summary"]["variants"]}
    means = [summary[v]["mean"] for v in order]
    sds = [0.0 if summary[v]["sd"] != summary[v]["sd"] else summary[v]["sd"] for v in order]
    fig.add_trace(
        go.Scatter(
            x=[x[v] + 0.2 for v in order],
            y=means,
            mode="markers",
            name=content.text(BOOK, "mean-sd"),
            error_y=dict(type="data", array=sds, thickness=2, width=8, color=REFERENCE),
            marker=dict(symbol="diamond", size=13, color=[CURRENT if v in highlight else REFERENCE for v in order]),
            hovertemplate=content.text(BOOK, "mean-hover"),
        )
    )
    fig.update_xaxes(
        tickmode="array",
        tickvals=list(range(len(order))),
        ticktext=[variant_short(v) for v in order],
        title=None,
        tickangle=-30,
    )
    fig.update_yaxes(title=content.text(BOOK, "loss-axis"))
    fig.update_layout(legend=FOOT_LEGEND, margin=dict(b=110))
    return styled(
        fig,
        content.text(BOOK, "ablation-title"),
        Evidence(Kind.MEASURED, _ablation_detail(record["settings"], len(seeds))),
        height=500,
    )


def ablation_curves(record: dict) -> go.Figure:
    """Held-out loss during training, mean over seeds, one line per variant."""
    fig = go.Figure()
    for v in _present(record["runs"]):
        curves = [np.asarray(r["curve"]) for r in record["runs"] if r["variant"] == v]
        length = min(len(c) for c in curves)
        mean = np.mean([c[:length, 1] for c in curves], axis=0)
        step = MATCHED.get(v, v)  # a matched step wears its step's colour, dashed
        color = REFERENCE if v == DECODER else OKABE_ITO[int(step) % (len(OKABE_ITO) - 1)]
        fig.add_trace(
            go.Scatter(
                x=curves[0][:length, 0],
                y=mean,
                mode="lines+markers",
                name=variant_short(v),
                line=dict(
                    color=color, width=3 if v in ("4", DECODER) else 1.8, dash="dash" if v in MATCHED else "solid"
                ),
                hovertemplate=content.text(BOOK, "curve-hover", name=variant_short(v)),
            )
        )
    fig.update_xaxes(title=content.text(BOOK, "step-axis"))
    fig.update_yaxes(title=content.text(BOOK, "loss-axis"))
    seeds = len({r["seed"] for r in record["runs"]})
    return styled(
        fig,
        content.text(BOOK, "curves-title"),
        Evidence(Kind.MEASURED, _ablation_detail(record["settings"], seeds)),
        height=440,
    )


def functions(record: dict, summary: dict) -> go.Figure:
    """How far each trained model predicts from decoder-only of its seed: agreement and KL per seed, with the
    band two decoder-only models of different seeds span (the yardstick)."""
    runs = [r for r in record["runs"] if "agreement" in r]
    order = _present(runs)
    x = {v: i for i, v in enumerate(order)}
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.14)  # room for the right panel's two-line title
    base = summary["baseline"]
    for col, key in ((1, "agreement"), (2, "kl")):
        fig.add_trace(
            go.Scatter(
                x=[x[r["variant"]] for r in runs],
                y=[r[key] for r in runs],
                mode="markers",
                showlegend=col == 1,
                name=content.text(BOOK, "one-seed"),
                marker=dict(size=8, color=CURRENT, opacity=0.55),
                customdata=[r["seed"] for r in runs],
                hovertemplate=content.text(BOOK, "one-seed-hover"),
            ),
            row=1,
            col=col,
        )
        means = {v["variant"]: v[key] for v in summary["variants"]}
        fig.add_trace(
            go.Scatter(
                x=[x[v] + 0.22 for v in order],
                y=[means[v] for v in order],
                mode="markers",
                showlegend=col == 1,
                name=content.text(BOOK, "mean-over-seeds"),
                marker=dict(symbol="diamond", size=12, color=REFERENCE),
                hovertemplate=content.text(BOOK, "mean-hover"),
            ),
            row=1,
            col=col,
        )
        if base:
            fig.add_hrect(
                y0=base[f"{key}_min"],
                y1=base[f"{key}_max"],
                fillcolor=OTHER,
                opacity=0.35,
                line_width=0,
                row=1,
                col=col,
            )
            fig.add_trace(
                go.Scatter(
                    x=[-0.5, len(order) - 0.5],
                    y=[base[key]] * 2,
                    mode="lines",
                    showlegend=col == 1,
                    name=content.text(BOOK, "baseline", n=base["n"]),
                    line=dict(color=REFERENCE, dash="dot", width=2),
                    hoverinfo="skip",
                ),
                row=1,
                col=col,
            )
        fig.update_xaxes(
            tickmode="array",
            tickvals=list(range(len(order))),
            ticktext=[variant_short(v) for v in order],
            tickangle=-40,
            row=1,
            col=col,
        )
    fig.update_yaxes(tickformat=".0%", title=content.text(BOOK, "agreement-axis"), row=1, col=1)
    fig.update_yaxes(title=content.text(BOOK, "kl-axis"), row=1, col=2)
    fig.update_layout(legend=FOOT_LEGEND, margin=dict(b=90))
    seeds = len({r["seed"] for r in runs})
    return styled(
        fig,
        content.text(BOOK, "functions-title"),
        Evidence(
            Kind.MEASURED,
            content.text(
                BOOK,
                "functions-evidence",
                detail=_ablation_detail(record["settings"], seeds),
                n=record["settings"]["eval_size"],
            ),
        ),
        height=520,
    )
