"""Figures of the attention page: masks (schematic), the combined [input ; target] view, the step-3/4
wiring, real attention weights and the embedding rows (measured). Pure functions: plain data in, Figure out.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.experiments.attention import CATEGORIES, Wiring
from explorer.figures import heatmaps
from explorer.figures.theme import CONCEPT_COLORS, styled

BOOK = "fig-attention"  # this module's words, in the run's language (content/<lang>/fig-attention.md)


def _mask_evidence() -> Evidence:
    return Evidence(Kind.SCHEMATIC, content.text(BOOK, "evidence-masks"))


def arch_name(arch: str) -> str:
    """An architecture's display name ("Encoder-decoder"), in the run's language."""
    return content.text(BOOK, f"arch-{arch.replace('_', '-')}")


def kind_name(kind: str) -> str:
    """A kind of attention (a legend entry: bidirectional, causal, cross, blocked)."""
    return content.text(BOOK, f"kind-{kind}")


def _used(codes: Sequence[np.ndarray]) -> tuple[list[np.ndarray], list[tuple[str, str]]]:
    """Renumber CATEGORIES codes to the kinds that occur, so the legend lists only what is drawn (-1 stays)."""
    present = sorted({int(c) for m in codes for c in np.unique(m) if c >= 0})
    index = np.full(len(CATEGORIES), -1)
    index[present] = np.arange(len(present))
    return (
        [np.where(m >= 0, index[np.maximum(m, 0)], -1) for m in codes],
        [(kind_name(CATEGORIES[c]), CONCEPT_COLORS[CATEGORIES[c]]) for c in present],
    )


def role_title(arch: str, role: str) -> str:
    if arch == "encoder_decoder":
        return content.text(BOOK, f"role-{role.replace('_', '-')}")
    return content.text(BOOK, f"single-{arch.replace('_', '-')}")


def _matrix_height(n_rows: int) -> int:
    return int(min(900, max(420, 200 + 22 * n_rows)))


def _tick_size(n: int) -> int:
    return 14 if n <= 20 else 11


def _two_lines(name: str) -> str:
    """A panel name over two lines, split at the space nearest its middle, so neighbouring panels' names do not
    collide."""
    spaces = [i for i, c in enumerate(name) if c == " "]
    if len(name) <= 16 or not spaces:
        return name
    cut = min(spaces, key=lambda i: abs(i - len(name) / 2))
    return f"{name[:cut]}<br>{name[cut + 1 :]}"


# The room under the panels for the key axis's tick labels and its title, set rather than found: Plotly's automargin
# on these square-celled panels redraws a figure three or four times (0.19 s in Chromium instead of 0.05 s, at
# every slider move), and the room a title needs is known from its lines.
KEY_TITLE_PX, TITLE_LINE_PX = 62, 22


def _matrix_grid(
    panels: Sequence[tuple[str, Sequence[str], Sequence[str]]], horizontal_spacing: float = 0.08
) -> go.Figure:
    """One row of square-celled matrix panels (name, rows, cols), widths in proportion to their key counts.

    A panel's name goes under it, with the key axis title: the space above the panels holds the evidence badge.
    """
    widths = [max(len(cols), 2) for _, _, cols in panels]
    fig = make_subplots(
        rows=1,
        cols=len(panels),
        column_widths=widths,
        horizontal_spacing=horizontal_spacing if len(panels) > 1 else 0.0,
    )
    for i, (name, rows, cols) in enumerate(panels, start=1):
        title = _two_lines(name) if len(panels) > 1 else name
        # one "query" title for the row: a second one would sit on the previous panel's edge
        key = content.text(BOOK, "axis-key")
        heatmaps.matrix_layout(
            fig,
            rows,
            cols,
            row=1,
            col=i,
            x_title=f"<b>{title}</b><br>{key}" if name else key,
            y_title=content.text(BOOK, "axis-query") if i == 1 else "",
        )
        fig.update_xaxes(tickfont=dict(size=_tick_size(len(cols))), constrain="domain", automargin=False, row=1, col=i)
        fig.update_yaxes(
            tickfont=dict(size=_tick_size(len(rows))),
            row=1,
            col=i,
            scaleanchor=f"x{'' if i == 1 else i}",
            constrain="domain",
        )
    lines = max(axis.title.text.count("<br>") + 1 for axis in fig.select_xaxes())
    fig.update_layout(margin=dict(b=KEY_TITLE_PX + TITLE_LINE_PX * lines))
    return fig


def mask_gallery(
    arch: str, roles: dict[str, np.ndarray], axes: dict[str, tuple[list[str], list[str]]], height: int | None = None
) -> go.Figure:
    """Every attention role's mask: coloured where a query may read a key (by kind), empty where not.

    `height` caps the figure's height (a page's first screen); by default it grows with the rows."""
    order = [r for r in ("encoder_self", "decoder_self", "cross") if r in roles]
    fig = _matrix_grid([(role_title(arch, r), *axes[r]) for r in order])
    codes, kinds = _used([roles[r] for r in order])
    for i, (role, z) in enumerate(zip(order, codes), start=1):
        rows, cols = axes[role]
        fig.add_trace(heatmaps.category_heatmap(z, kinds, rows, cols, showscale=i == len(order)), row=1, col=i)
    n_rows = max(len(axes[r][0]) for r in order)
    return styled(
        fig,
        content.text(BOOK, "masks-title", arch=arch_name(arch)),
        _mask_evidence(),
        height=min(_matrix_height(n_rows), height or _matrix_height(n_rows)),
    )


def combined_view(arch: str, codes: np.ndarray, labels: list[str], n_input: int) -> go.Figure:
    """The whole [input ; target] sequence in one matrix: bidirectional, causal, cross and blocked blocks."""
    fig = _matrix_grid([("", labels, labels)])
    (z,), kinds = _used([codes])
    fig.add_trace(heatmaps.category_heatmap(z, kinds, labels, labels), row=1, col=1)
    t = len(labels)
    if n_input < t:  # the input/target boundary, down and across
        edge, far = n_input - 0.5, t - 0.5
        for x0, x1, y0, y1 in ((edge, edge, -0.5, far), (-0.5, far, edge, edge)):
            fig.add_shape(type="line", x0=x0, x1=x1, y0=y0, y1=y1, line=dict(color="#222222", width=2))
    title = content.text(BOOK, f"combined-title-{'target' if n_input < t else 'input'}", arch=arch_name(arch))
    return styled(fig, title, _mask_evidence(), height=_matrix_height(t))


def _box(fig: go.Figure, x: float, y: float, text: str, color: str) -> None:
    fig.add_shape(
        type="rect",
        x0=x - 0.42,
        x1=x + 0.42,
        y0=y - 0.3,
        y1=y + 0.3,
        fillcolor=color,
        opacity=0.25,
        line=dict(color=color, width=2),
        layer="below",
    )
    fig.add_annotation(x=x, y=y, text=text, showarrow=False, font=dict(size=14))


def wiring_figure(w: Wiring) -> go.Figure:
    """Two stacks side by side; arrows show which encoder level each decoder layer's cross-attention reads."""
    fig = go.Figure()
    enc_kind = "causal" if w.causal_input else "bidirectional"
    L = w.n_layers
    for layer in range(L):
        _box(fig, 0, layer + 1, content.text(BOOK, f"encoder-layer-{enc_kind}", n=layer + 1), CONCEPT_COLORS[enc_kind])
        _box(fig, 2, layer + 1, content.text(BOOK, "decoder-layer", n=layer + 1), CONCEPT_COLORS["causal"])
    _box(fig, 0, L + 1, content.text(BOOK, f"encoder-output-{'unread' if w.layer_aligned else 'read'}"), "#777777")
    fig.add_annotation(
        x=0,
        y=0,
        text=content.text(BOOK, f"input-{'causal' if w.causal_input else 'plain'}"),
        showarrow=False,
        font=dict(size=14),
    )
    fig.add_annotation(
        x=2,
        y=0,
        text=content.text(BOOK, f"target-{'continue' if w.causal_input else 'restart'}"),
        showarrow=False,
        font=dict(size=14),
    )
    _box(fig, 2, L + 1, content.text(BOOK, "head-box"), "#777777")
    for stack_x in (0, 2):  # the residual stream flows up each stack
        for level in range(L + 1):
            fig.add_annotation(
                x=stack_x,
                y=level + 0.7,
                ax=stack_x,
                ay=level + 0.3,
                xref="x",
                yref="y",
                axref="x",
                ayref="y",
                showarrow=True,
                arrowhead=2,
                arrowwidth=1.5,
                arrowcolor="#888888",
                text="",
            )
    for layer, level in enumerate(w.reads):
        # standard: from the output box; layer-aligned: from the input of encoder layer `level`
        src_y = L + 1 if level == L else level + 0.7
        fig.add_annotation(
            x=1.55,
            y=layer + 1,
            ax=0.45,
            ay=src_y,
            xref="x",
            yref="y",
            axref="x",
            ayref="y",
            showarrow=True,
            arrowhead=3,
            arrowwidth=3,
            arrowcolor=CONCEPT_COLORS["cross"],
            text="",
        )
    fig.add_annotation(
        x=1,
        y=L + 1.75,
        text=content.text(BOOK, f"reads-{'aligned' if w.layer_aligned else 'final'}"),
        showarrow=False,
        font=dict(size=15, color=CONCEPT_COLORS["cross"]),
    )
    fig.update_xaxes(visible=False, range=[-0.6, 2.6])
    fig.update_yaxes(visible=False, range=[-0.4, L + 2.0])
    variant = {(False, False): "standard", (True, False): "causal", (False, True): "aligned", (True, True): "both"}[
        (bool(w.causal_input), bool(w.layer_aligned))
    ]
    title = content.text(BOOK, f"wiring-title-{variant}")
    fig.update_layout(margin=dict(b=10))
    return styled(
        fig, title, Evidence(Kind.SCHEMATIC, content.text(BOOK, "evidence-wiring")), height=140 + 95 * (L + 2)
    )


def attention_maps(read: dict, layer: int, head: int, detail: str) -> go.Figure:
    """The trained model's attention weights at one layer and head, one panel per role; masked cells empty."""
    arch = read["arch"]
    order = [r for r in ("encoder_self", "decoder_self", "cross") if r in read["roles"]]
    panels = [(role_title(arch, r), read["roles"][r]["rows"], read["roles"][r]["cols"]) for r in order]
    fig = _matrix_grid(panels)
    for i, role in enumerate(order, start=1):
        r = read["roles"][role]
        fig.add_trace(
            heatmaps.weights_heatmap(
                r["weights"][layer, head], r["allowed"], r["rows"], r["cols"], showscale=i == len(order)
            ),
            row=1,
            col=i,
        )
    n_rows = max(len(p[1]) for p in panels)
    return styled(
        fig,
        content.text(BOOK, "weights-title", arch=arch_name(arch), layer=layer + 1, head=head + 1),
        Evidence(Kind.MEASURED, detail),
        height=_matrix_height(n_rows),
    )


def embedding_figure(emb: dict, detail: str) -> go.Figure:
    """E[i_t], p_t and their sum h^(0)_t for each of the student's tokens (rows) over the model width."""
    titles = (content.text(BOOK, "embed-token"), content.text(BOOK, "embed-position"), content.text(BOOK, "embed-sum"))
    parts = (emb["token"], emb["position"], emb["sum"])
    zmax = float(max(np.abs(p).max() for p in parts)) or 1.0
    labels = emb["labels"]
    fig = make_subplots(rows=1, cols=3, shared_yaxes=True, horizontal_spacing=0.03)
    rows = np.asarray([f"{labels[t]} (t={t})" for t in range(len(labels))], dtype=object)
    for i, (z, name) in enumerate(zip(parts, titles), start=1):
        fig.add_trace(
            go.Heatmap(
                z=z,
                zmin=-zmax,
                zmax=zmax,
                zmid=0.0,
                colorscale="RdBu_r",
                showscale=i == 3,
                colorbar=dict(title=content.text(BOOK, "embed-value"), thickness=14),
                customdata=np.repeat(rows[:, None], z.shape[1], axis=1),
                hovertemplate=content.text(BOOK, "embed-hover"),
            ),
            row=1,
            col=i,
        )
        fig.update_xaxes(title=content.text(BOOK, "embed-axis", name=name), showgrid=False, row=1, col=i)
        fig.update_yaxes(autorange="reversed", showgrid=False, ticks="", row=1, col=i)
    fig.update_yaxes(
        heatmaps.token_axis(labels, content.text(BOOK, "embed-token-axis")),
        tickfont=dict(size=_tick_size(len(labels))),
        row=1,
        col=1,
    )
    return styled(
        fig, content.text(BOOK, "embed-title"), Evidence(Kind.MEASURED, detail), height=_matrix_height(len(labels))
    )


def head_overview(read: dict, role: str, detail: str) -> go.Figure:
    """Every layer (rows) and head (columns) of one role as small maps: where to look."""
    weights = read["roles"][role]["weights"]
    allowed = read["roles"][role]["allowed"]
    rows, cols = read["roles"][role]["rows"], read["roles"][role]["cols"]
    n_layers, n_heads = weights.shape[:2]
    fig = make_subplots(rows=n_layers, cols=n_heads, horizontal_spacing=0.02, vertical_spacing=0.06)
    bare = dict(showticklabels=False, ticks="", showgrid=False, showline=False, constrain="domain")
    axes = {}
    for layer in range(n_layers):
        for h in range(n_heads):
            fig.add_trace(
                heatmaps.weights_heatmap(weights[layer, h], allowed, rows, cols, showscale=False),
                row=layer + 1,
                col=h + 1,
            )
            k = _panel(layer, h, n_heads)
            axes[f"xaxis{k}"] = dict(
                bare, title=content.text(BOOK, "overview-head", n=h + 1) if layer == n_layers - 1 else None
            )
            axes[f"yaxis{k}"] = dict(
                bare,
                title=content.text(BOOK, "overview-layer", n=layer + 1) if h == 0 else None,
                autorange="reversed",
                scaleanchor=f"x{k}",
            )
    fig.update_layout(axes)  # one layout update: per-subplot calls cost more than the whole figure
    name = role_title(read["arch"], role)
    fig = styled(
        fig,
        content.text(BOOK, "overview-title", role=name[:1].upper() + name[1:]),
        Evidence(Kind.MEASURED, detail),
        height=140 + 170 * n_layers,
    )
    return fig


def _panel(layer: int, head: int, n_heads: int) -> str:
    """The axis suffix of one panel in a layers x heads grid: "" for the first, then "2", "3", ..."""
    k = layer * n_heads + head + 1
    return "" if k == 1 else str(k)
