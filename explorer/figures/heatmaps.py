"""Heatmap building blocks shared by the mask, attention, four-steps and cache figures.

Axes are numeric positions with token labels as tick text, so repeated tokens stay separate rows.
Forbidden cells are NaN and render empty (the background shows through), never as a dark colour.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from explorer.figures.theme import SEQUENTIAL


def token_axis(labels: Sequence[str], title: str, max_ticks: int = 48) -> dict:
    """Axis settings that label positions with tokens (thinned when there are too many to read)."""
    step = max(1, int(np.ceil(len(labels) / max_ticks)))
    ticks = list(range(0, len(labels), step))
    return dict(title=title, tickmode="array", tickvals=ticks, ticktext=[labels[i] for i in ticks],
                showgrid=False, ticks="")


def weights_heatmap(weights: np.ndarray, allowed: np.ndarray | None, rows: Sequence[str], cols: Sequence[str],
                    *, zmax: float = 1.0, colorbar_title: str = "weight", hover_value: str = "weight",
                    showscale: bool = True) -> go.Heatmap:
    """A [queries, keys] matrix of values; cells where `allowed` is False are left empty."""
    z = np.where(allowed, weights, np.nan) if allowed is not None else np.asarray(weights, dtype=float)
    q_idx, k_idx = np.meshgrid(range(len(rows)), range(len(cols)), indexing="ij")
    custom = np.stack([np.asarray(rows, dtype=object)[q_idx], np.asarray(cols, dtype=object)[k_idx]], axis=-1)
    return go.Heatmap(
        z=z, zmin=0.0, zmax=zmax, colorscale=SEQUENTIAL, showscale=showscale, hoverongaps=False,
        customdata=custom, colorbar=dict(title=colorbar_title, thickness=14),
        hovertemplate="query %{customdata[0]} (row %{y})<br>key %{customdata[1]} (col %{x})<br>"
                      + hover_value + " %{z:.3f}<extra></extra>",
    )


def category_heatmap(codes: np.ndarray, categories: Sequence[tuple[str, str]], rows: Sequence[str],
                     cols: Sequence[str], showscale: bool = True) -> go.Heatmap:
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
    custom = np.stack([np.asarray(rows, dtype=object)[q_idx], np.asarray(cols, dtype=object)[k_idx],
                       names[np.where(codes < 0, n, codes)]], axis=-1)
    return go.Heatmap(
        z=z, zmin=0, zmax=n, colorscale=scale, showscale=showscale, hoverongaps=False, xgap=1, ygap=1,
        customdata=custom,
        colorbar=dict(tickmode="array", tickvals=[i + 0.5 for i in range(n)],
                      ticktext=[name for name, _ in categories], thickness=14),
        hovertemplate="query %{customdata[0]}<br>key %{customdata[1]}<br>%{customdata[2]}<extra></extra>",
    )


def matrix_layout(fig: go.Figure, rows: Sequence[str], cols: Sequence[str], row: int | None = None,
                  col: int | None = None, x_title: str = "key", y_title: str = "query") -> None:
    """Token tick labels on both axes, queries top to bottom, square cells."""
    fig.update_xaxes(token_axis(cols, x_title), row=row, col=col)
    fig.update_yaxes(token_axis(rows, y_title), autorange="reversed", row=row, col=col)
