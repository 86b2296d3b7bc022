"""Heatmap building blocks shared by the mask, attention, four-steps and cache figures.

Axes are numeric positions with token labels as tick text, so repeated tokens stay separate rows.
Forbidden cells are NaN and render empty (the background shows through), never as a dark colour.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from explorer import content
from explorer.figures.theme import SEQUENTIAL

BOOK = "fig-heatmaps"  # hover words and default axis titles, in the run's language


def token_axis(labels: Sequence[str], title: str, max_ticks: int = 48) -> dict:
    """Axis settings that label positions with tokens (thinned when there are too many to read)."""
    step = max(1, int(np.ceil(len(labels) / max_ticks)))
    ticks = list(range(0, len(labels), step))
    return dict(
        title=title, tickmode="array", tickvals=ticks, ticktext=[labels[i] for i in ticks], showgrid=False, ticks=""
    )


def weights_heatmap(
    weights: np.ndarray,
    allowed: np.ndarray | None,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    zmax: float = 1.0,
    colorbar_title: str | None = None,
    hover_value: str | None = None,
    showscale: bool = True,
) -> go.Heatmap:
    """A [queries, keys] matrix of values; cells where `allowed` is False are left empty (the colour bar and the
    hover name the value "weight" unless told otherwise)."""
    colorbar_title = content.text(BOOK, "weight") if colorbar_title is None else colorbar_title
    hover_value = content.text(BOOK, "weight") if hover_value is None else hover_value
    z = np.where(allowed, weights, np.nan) if allowed is not None else np.asarray(weights, dtype=float)
    q_idx, k_idx = np.meshgrid(range(len(rows)), range(len(cols)), indexing="ij")
    custom = np.stack([np.asarray(rows, dtype=object)[q_idx], np.asarray(cols, dtype=object)[k_idx]], axis=-1)
    return go.Heatmap(
        z=z,
        zmin=0.0,
        zmax=zmax,
        colorscale=SEQUENTIAL,
        showscale=showscale,
        hoverongaps=False,
        customdata=custom,
        colorbar=dict(title=colorbar_title, thickness=14),
        hovertemplate=content.text(BOOK, "hover-weights", value=hover_value),
    )


def category_heatmap(
    codes: np.ndarray,
    categories: Sequence[tuple[str, str]],
    rows: Sequence[str],
    cols: Sequence[str],
    showscale: bool = True,
) -> go.Heatmap:
    """A [queries, keys] matrix of category indices, each drawn in its concept colour.

    `categories` is a list of (name, colour); code i means categories[i]; code -1 renders empty.
    """
    n = len(categories)
    scale = []
    for i, (_, color) in enumerate(categories):
        scale += [[i / n, color], [(i + 1) / n, color]]
    z = np.where(codes < 0, np.nan, codes + 0.5).astype(float)
    names = np.array([name for name, _ in categories] + [""], dtype=object)
    q_idx, k_idx = np.meshgrid(range(len(rows)), range(len(cols)), indexing="ij")
    custom = np.stack(
        [
            np.asarray(rows, dtype=object)[q_idx],
            np.asarray(cols, dtype=object)[k_idx],
            names[np.where(codes < 0, n, codes)],
        ],
        axis=-1,
    )
    return go.Heatmap(
        z=z,
        zmin=0,
        zmax=n,
        colorscale=scale,
        showscale=showscale,
        hoverongaps=False,
        xgap=1,
        ygap=1,
        customdata=custom,
        colorbar=dict(
            tickmode="array",
            tickvals=[i + 0.5 for i in range(n)],
            ticktext=[name for name, _ in categories],
            thickness=14,
        ),
        hovertemplate=content.text(BOOK, "hover-category"),
    )


def matrix_layout(
    fig: go.Figure,
    rows: Sequence[str],
    cols: Sequence[str],
    row: int | None = None,
    col: int | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
) -> None:
    """Token tick labels on both axes, queries top to bottom, square cells (axes titled key and query unless
    told otherwise)."""
    x_title = content.text(BOOK, "key") if x_title is None else x_title
    y_title = content.text(BOOK, "query") if y_title is None else y_title
    fig.update_xaxes(token_axis(cols, x_title), row=row, col=col)
    fig.update_yaxes(token_axis(rows, y_title), autorange="reversed", row=row, col=col)
