"""Figures of the separate-or-shared-parameters experiment (slides 53-55): pure functions, records in, figures out.

`losses` draws the held-out loss per task and variant with its seed range; `curves` draws the held-out loss while
training, one thin line per run, from a finished record or from the runs finished so far (the page's live view).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer import content, i18n
from explorer.evidence import Evidence, Kind
from explorer.experiments.shared_params import SEPARATE, SHARED, SYMBOLS, VARIANTS
from explorer.figures.theme import OKABE_ITO, styled
from explorer.formatting import seed_list, si

BOOK = "fig-shared-params"  # this module's words, in the run's language (content/<lang>/fig-shared-params.md)
COLORS = {SEPARATE: OKABE_ITO[3], SHARED: OKABE_ITO[0]}
BELOW = dict(orientation="h", x=0, y=-0.22, yanchor="top")  # legend under the panels, clear of the badge
AXES = ("step", "flops")  # what a curve is drawn against
LOG_TICKS = "D2"  # log axes label 1, 2 and 5 of each decade, not every digit


def _name(variant: str) -> str:
    """A variant's legend name: separate encoder and decoder, or one shared stack."""
    return content.text(BOOK, f"name-{variant}")


def _task(task: str) -> str:
    """A task's panel title."""
    return content.text(BOOK, f"task-{task}")


def _tasks(runs: list[dict]) -> list[str]:
    return list(dict.fromkeys(r["task"] for r in runs))


def _detail(record: dict, runs: list[dict]) -> str:
    cfg = record["config"]
    params = {r["variant"]: (r["params"], r["width"]) for r in runs}
    sizes = ("; " if i18n.current() == "en" else "；").join(
        content.text(BOOK, "sizes", variant=content.text(BOOK, f"short-{v}"), n=si(n), width=w)
        for v, (n, w) in params.items()
    )
    seeds = sorted({r["seed"] for r in runs})
    return content.text(
        BOOK, "detail", seeds=seed_list(seeds), steps=cfg["steps"], batch=cfg["batch_size"], sizes=sizes
    )


def losses(record: dict) -> go.Figure:
    """Per task (a panel each, own log axis): each variant's seed-mean held-out loss, its seed range as the bar,
    and every seed as a dot."""
    runs = record["runs"]
    tasks = _tasks(runs)
    fig = make_subplots(
        rows=1, cols=max(1, len(tasks)), subplot_titles=[_task(t) for t in tasks], horizontal_spacing=0.1
    )
    for col, task in enumerate(tasks, start=1):
        for i, variant in enumerate(VARIANTS):
            values = [r["loss"] for r in runs if (r["task"], r["variant"]) == (task, variant)]
            if not values:
                continue
            mean = float(np.mean(values))
            fig.add_trace(
                go.Scatter(
                    x=[i + 0.12] * len(values),
                    y=values,
                    mode="markers",
                    showlegend=False,
                    marker=dict(size=7, color=COLORS[variant], opacity=0.45),
                    hovertemplate=content.text(BOOK, "seed-hover", name=_name(variant)),
                ),
                row=1,
                col=col,
            )
            fig.add_trace(
                go.Scatter(
                    x=[i - 0.12],
                    y=[mean],
                    mode="markers",
                    name=content.text(BOOK, "mean-name", name=_name(variant)),
                    showlegend=col == 1,
                    legendgroup=variant,
                    marker=dict(size=13, symbol="diamond", color=COLORS[variant]),
                    error_y=dict(
                        type="data",
                        symmetric=False,
                        array=[max(values) - mean],
                        arrayminus=[mean - min(values)],
                        color=COLORS[variant],
                        thickness=2,
                        width=8,
                    ),
                    hovertemplate=content.text(BOOK, "mean-hover", name=_name(variant), n=len(values)),
                ),
                row=1,
                col=col,
            )
        if task == "transfer":  # its loss lies above what knowing nothing costs
            guess = content.text(BOOK, "guess")
            fig.add_trace(
                go.Scatter(
                    x=[-0.6, 1.6],
                    y=[math.log(SYMBOLS)] * 2,
                    mode="lines",
                    name=guess,
                    line=dict(color="#777777", dash="dot", width=2),
                    hovertemplate=content.text(BOOK, "guess-hover", guess=guess),
                ),
                row=1,
                col=col,
            )
        fig.update_xaxes(
            tickmode="array",
            tickvals=[0, 1],
            ticktext=[content.text(BOOK, f"short-{v}") for v in VARIANTS],
            range=[-0.6, 1.6],
            row=1,
            col=col,
        )
        fig.update_yaxes(type="log", dtick=LOG_TICKS, row=1, col=col)
    fig.update_yaxes(title=content.text(BOOK, "loss-axis"), row=1, col=1)
    fig.update_layout(legend=BELOW, margin=dict(b=120))
    return styled(fig, content.text(BOOK, "losses-title"), Evidence(Kind.MEASURED, _detail(record, runs)), height=500)


def curves(record: dict, axis: str = "step") -> go.Figure:
    """Held-out loss (on the training distribution) while training, per task, one thin line per run; `axis`:
    "step" or "flops" (the narrower separate model spends fewer FLOPs per step). Draws whatever runs `record`
    holds, so the page redraws it as runs finish."""
    if axis not in AXES:
        raise ValueError(f"axis must be one of {', '.join(AXES)}, got {axis!r}")
    runs = record.get("runs") or []
    tasks = _tasks(runs) or list(record["config"]["tasks"])
    fig = make_subplots(rows=1, cols=len(tasks), subplot_titles=[_task(t) for t in tasks], horizontal_spacing=0.08)
    shown = set()
    for col, task in enumerate(tasks, start=1):
        for run in (r for r in runs if r["task"] == task):
            curve = np.asarray(run["curve"])
            variant = run["variant"]
            fig.add_trace(
                go.Scatter(
                    x=curve[:, 0 if axis == "step" else 1],
                    y=curve[:, 2],
                    mode="lines",
                    name=_name(variant),
                    legendgroup=variant,
                    showlegend=variant not in shown,
                    line=dict(color=COLORS[variant], width=1.6),
                    hovertemplate=content.text(BOOK, "run-hover", name=_name(variant), seed=run["seed"]),
                ),
                row=1,
                col=col,
            )
            shown.add(variant)
        fig.update_xaxes(
            title=content.text(BOOK, f"axis-{axis}"),
            row=1,
            col=col,
            **(dict(type="log", dtick=LOG_TICKS) if axis == "flops" else {}),
        )
        fig.update_yaxes(type="log", dtick=LOG_TICKS, row=1, col=col)
    fig.update_yaxes(title=content.text(BOOK, "loss-axis"), row=1, col=1)
    fig.update_layout(legend={**BELOW, "y": -0.3}, margin=dict(b=140))
    done = content.text(BOOK, "runs", n=len(runs)) if runs else content.text(BOOK, "no-run")
    return styled(
        fig,
        content.text(BOOK, "curves-title"),
        Evidence(Kind.MEASURED, content.text(BOOK, "curves-evidence", done=done, steps=record["config"]["steps"])),
        height=460,
    )
