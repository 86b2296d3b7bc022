"""Figures of the depth page: pure functions from `explorer.experiments.depth` data to Plotly figures
(slides 59-63)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer import content
from explorer.evidence import Evidence, Kind
from explorer.experiments.depth import WIRINGS
from explorer.experiments.depth_view import task_name, wiring_name
from explorer.figures.theme import CONCEPT_COLORS, styled
from explorer.formatting import p_label

WIRING_COLORS = {"final": "#D55E00", "aligned": "#0072B2"}  # the two wirings, on every figure of the page
TASK_COLORS = {"majority-copy": "#000000", "sort": "#CC79A7"}  # the main task and the control
OFFSET = {"final": -0.06, "aligned": 0.06, "majority-copy": -0.05, "sort": 0.05}  # log2 offsets: bars apart
SELECTED = "rgba(230, 159, 0, 0.12)"
UNUSED = "#BBBBBB"
UNTRAINED = "#777777"
LEGEND_BELOW = dict(orientation="h", x=0, y=-0.3, yanchor="top")  # under the x-axis titles
BOOK = "fig-depth"


def _short(wiring: str) -> str:
    """A wiring's key as hover text shows it ('final', 'aligned') in the run's language."""
    return content.text(BOOK, f"key-{wiring}")


def clipped_bars(means, sds, top: float = math.inf, thickness: float = 2, width: int = 6) -> dict:
    """Error bars of mean ± sd, clipped to the values the quantity can take (0 to `top`): a bar never reaches a
    value that no seed could have (an accuracy above 1, a loss below 0). An undefined sd draws no bar."""
    sds = [float(sd) if math.isfinite(sd) else 0.0 for sd in sds]
    return dict(
        type="data",
        symmetric=False,
        array=[min(sd, top - m) for m, sd in zip(means, sds)],
        arrayminus=[min(sd, m) for m, sd in zip(means, sds)],
        visible=True,
        thickness=thickness,
        width=width,
    )


def sd_bars(cells: list[dict], metric: str) -> dict:
    """`clipped_bars` of a metric's seed mean and sd per cell: accuracy within 0 to 1, loss from 0."""
    return clipped_bars(
        [c[metric]["mean"] for c in cells], [c[metric]["sd"] for c in cells], 1.0 if metric == "accuracy" else math.inf
    )


def _bar_note(metric: str) -> str:
    """What an error bar of `metric` shows (accuracy is cut at 0 and 1, loss at 0)."""
    return content.text(BOOK, f"bars-{metric}")


def detail(analysis: dict) -> str:
    """The config and seeds behind a measured figure, for its evidence badge."""
    cfg = analysis["config"]
    seeds = analysis["seeds"] or cfg["seeds"]
    seed_text = (
        content.text(BOOK, "one-seed-detail", seed=seeds[0])
        if len(seeds) == 1
        else content.text(BOOK, "seeds-detail", seeds=", ".join(map(str, seeds)))
    )
    return content.text(
        BOOK,
        "detail",
        d=cfg["d_model"],
        heads=cfg["n_heads"],
        steps=cfg["steps"],
        batch=cfg["batch_size"],
        seeds=seed_text,
        n=cfg["eval_size"],
    )


# --- the two wirings (schematic) ---------------------------------------------------------------------------


def _box(fig: go.Figure, x: float, y: float, text: str, color: str, dash: str = "solid", size: int = 13) -> None:
    fig.add_shape(
        type="rect",
        x0=x - 0.3,
        x1=x + 0.3,
        y0=y - 0.34,
        y1=y + 0.34,
        fillcolor="#FFFFFF",
        line=dict(color=color, width=2, dash=dash),
        layer="below",
    )
    fig.add_annotation(x=x, y=y, text=text, showarrow=False, font=dict(size=size, color="#222222"))


def _input_of(wiring: str, level: int) -> str:
    """Why layer-aligned reads a level: it is the input of the encoder layer with the decoder layer's number."""
    return content.text(BOOK, "input-of", layer=level + 1) if wiring == "aligned" else ""


def wiring_schematic(depth: int, max_height: int | None = None) -> go.Figure:
    """Both wirings at `depth`: encoder layers left, decoder layers right, an arrow per decoder layer from the
    encoder level it reads (level k = the residual stream after k encoder layers; 0 = the embeddings). The
    height grows with the depth, up to `max_height` px when given."""
    fig = go.Figure()
    link = CONCEPT_COLORS["cross"]
    for panel, wiring in enumerate(WIRINGS):
        enc_x, dec_x = panel * 2.3, panel * 2.3 + 1.1
        reads = [depth] * depth if wiring == "final" else list(range(depth))
        for layer in range(depth):
            unused = wiring == "aligned" and layer == depth - 1
            _box(
                fig,
                enc_x,
                layer + 1,
                content.text(BOOK, "enc", layer=layer + 1),  # unread: dotted, as in the legend
                UNUSED if unused else CONCEPT_COLORS["bidirectional"],
                "dot" if unused else "solid",
            )
            _box(fig, dec_x, layer + 1, content.text(BOOK, "dec", layer=layer + 1), CONCEPT_COLORS["causal"])
        _box(fig, enc_x, 0, content.text(BOOK, "embed-x"), "#888888", size=11)  # fits a phone's box
        _box(fig, dec_x, 0, content.text(BOOK, "embed-y"), "#888888", size=11)
        for layer, level in enumerate(reads):
            fig.add_annotation(
                x=dec_x - 0.3,
                y=layer + 1,
                ax=enc_x + 0.3,
                ay=level + 0.5,
                xref="x",
                yref="y",
                axref="x",
                ayref="y",
                showarrow=True,
                arrowhead=3,
                arrowsize=1.1,
                arrowwidth=2,
                arrowcolor=link,
                text="",
            )
            fig.add_trace(
                go.Scatter(
                    x=[enc_x + 0.3],
                    y=[level + 0.5],
                    mode="markers",
                    showlegend=False,
                    marker=dict(size=9, color=link),
                    hovertemplate=content.text(
                        BOOK,
                        "reads-hover",
                        wiring=_short(wiring),
                        layer=layer + 1,
                        level=level,
                        why=_input_of(wiring, level),
                    ),
                )
            )
        fig.add_annotation(
            x=(enc_x + dec_x) / 2,
            y=depth + 0.55,
            yanchor="bottom",
            showarrow=False,
            text=f"<b>{content.text(BOOK, f'panel-{wiring}')}</b>",  # two short lines: a phone's width
            font=dict(size=15, color=WIRING_COLORS[wiring]),
        )
    fig.add_trace(
        go.Scatter(
            x=[None], y=[None], mode="lines", line=dict(color=link, width=3), name=content.text(BOOK, "legend-cross")
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="lines",
            line=dict(color=UNUSED, width=3, dash="dot"),
            name=content.text(BOOK, "legend-unread"),
        )
    )
    fig.update_xaxes(visible=False, range=[-0.45, 3.85])
    fig.update_yaxes(visible=False, range=[-0.6, depth + 1.9])
    natural = max(400, 190 + 58 * depth)
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.02, yanchor="top"), margin=dict(l=10, r=10, b=50))
    # not `keep_width`: with its panel titles on two lines and short box labels, the two diagrams stay readable
    # side by side in a phone's 358 px column, where a sideways-scrolling frame would show only the first one
    return styled(
        fig,
        content.text(BOOK, "wiring-title", depth=depth),
        Evidence(Kind.SCHEMATIC, content.text(BOOK, "wiring-detail")),
        height=natural if max_height is None else min(natural, max_height),
    )


# --- the answer at one depth, seed by seed (measured) ----------------------------------------------------


def paired_pairs(analysis: dict, depth: int) -> list[tuple[int, float, float]]:
    """(seed, final-only accuracy, layer-aligned accuracy) for every seed trained with both wirings at `depth`:
    a seed is one pair (same initial weights and batches), the unit of the exact paired test."""
    cells = analysis["cells"][depth]
    acc = {w: dict(zip(cells[w]["seeds"], cells[w]["accuracy"]["per_seed"])) for w in WIRINGS}
    return [(s, acc["final"][s], acc["aligned"][s]) for s in sorted(set(acc["final"]) & set(acc["aligned"]))]


def paired_answer(analysis: dict, depth: int) -> dict:
    """The measured answer at `depth` as the first screen says it: mean paired accuracy gap in points, seeds,
    in how many the layer-aligned model scores higher, and the exact sign-flip p of the accuracy."""
    pairs = paired_pairs(analysis, depth)
    test = analysis["tests"][depth]["accuracy"]
    return {
        "depth": depth,
        "gap": test["mean_diff"] * 100,
        "n": len(pairs),
        "p": p_label(test["p"]),
        "higher": sum(a > f for _, f, a in pairs),
    }


def paired_seeds(analysis: dict, depth: int, height: int = 480) -> go.Figure:
    """Held-out accuracy of both wirings at `depth`, one line per seed joining its two models, and the means:
    the answer the page's question asks for, with every pair it rests on."""
    pairs = paired_pairs(analysis, depth)
    answer = paired_answer(analysis, depth)
    names = [content.text(BOOK, f"paired-{w}") for w in WIRINGS]
    fig = go.Figure()
    for seed, final, aligned in pairs:
        fig.add_trace(
            go.Scatter(
                x=names,
                y=[final, aligned],
                mode="lines+markers",
                showlegend=False,
                line=dict(color="#999999", width=1.5),
                marker=dict(size=9, color=[WIRING_COLORS[w] for w in WIRINGS]),
                hovertemplate=content.text(BOOK, "paired-hover", seed=seed),
            )
        )
    means = [sum(p[i] for p in pairs) / len(pairs) for i in (1, 2)]
    fig.add_trace(
        go.Scatter(
            x=names,
            y=means,
            mode="lines+markers+text",
            name=content.text(BOOK, "paired-mean"),
            line=dict(color="#222222", width=4),
            marker=dict(
                size=16,
                symbol="diamond",
                color=[WIRING_COLORS[w] for w in WIRINGS],
                line=dict(color="#222222", width=1.5),
            ),
            text=[f"{m:.0%}" for m in means],
            textposition=["middle left", "middle right"],
            textfont=dict(size=15),
            hovertemplate=content.text(BOOK, "mean-hover-paired"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="lines",
            line=dict(color="#999999", width=1.5),
            name=content.text(BOOK, "paired-one-seed"),
        )
    )
    fig.update_xaxes(range=[-0.45, 1.45])
    fig.update_yaxes(title=content.text(BOOK, "accuracy-axis"), range=[0, 1.04], tickformat=".0%")
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.1, yanchor="top"), margin=dict(l=70, r=20, b=70))
    return styled(
        fig,
        content.text(BOOK, "paired-title", **answer),
        Evidence(Kind.MEASURED, detail(analysis)),
        height=height,
        badge_chars=48,
    )


# --- outcome vs depth (measured) ------------------------------------------------------------------------


def outcome_vs_depth(analysis: dict, selected: int | None = None) -> go.Figure:
    """Held-out token accuracy and loss per depth and wiring: mean ± sd over seeds, each seed a dot, and the
    exact paired sign-flip p-value on the loss per depth."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1)
    depths = analysis["depths"]
    for col, metric in ((1, "accuracy"), (2, "loss")):
        for wiring in WIRINGS:
            xs, cells, dots_x, dots_y = [], [], [], []
            for depth in depths:
                cell = analysis["cells"][depth].get(wiring)
                if cell is None:
                    continue
                x = math.log2(depth) + OFFSET[wiring]
                xs.append(x)
                cells.append(cell)
                dots_x += [x] * len(cell[metric]["per_seed"])
                dots_y += cell[metric]["per_seed"]
            color = WIRING_COLORS[wiring]
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=[c[metric]["mean"] for c in cells],
                    mode="lines+markers",
                    name=wiring_name(wiring),
                    legendgroup=wiring,
                    showlegend=col == 1,
                    line=dict(color=color, width=3),
                    marker=dict(size=11, color=color),
                    error_y=sd_bars(cells, metric),
                    hovertemplate=content.text(BOOK, "mean-hover", wiring=_short(wiring), bars=_bar_note(metric)),
                ),
                row=1,
                col=col,
            )
            fig.add_trace(
                go.Scatter(
                    x=dots_x,
                    y=dots_y,
                    mode="markers",
                    legendgroup=wiring,
                    showlegend=False,
                    marker=dict(size=7, color=color, opacity=0.45, symbol="circle-open", line=dict(width=2)),
                    hovertemplate=content.text(BOOK, "seed-hover", wiring=_short(wiring)),
                ),
                row=1,
                col=col,
            )
    if selected in depths:
        for col in (1, 2):
            fig.add_vrect(
                x0=math.log2(selected) - 0.25,
                x1=math.log2(selected) + 0.25,
                fillcolor=SELECTED,
                line_width=0,
                layer="below",
                row=1,
                col=col,
            )
    labels = [
        f"{d}<br><span style='font-size:13px'>{p_label(analysis['tests'][d]['loss']['p'])}</span>"
        if d in analysis["tests"]
        else str(d)
        for d in depths
    ]
    ticks = dict(
        tickmode="array",
        tickvals=[math.log2(d) for d in depths],
        ticktext=labels,
        title=content.text(BOOK, "depth-axis"),
        range=[math.log2(depths[0]) - 0.4, math.log2(depths[-1]) + 0.4] if depths else None,
    )
    fig.update_xaxes(**ticks)
    fig.update_yaxes(title=content.text(BOOK, "accuracy-axis"), range=[0, 1.02], row=1, col=1)
    fig.update_yaxes(title=content.text(BOOK, "loss-axis"), rangemode="tozero", row=1, col=2)
    fig.update_layout(legend=LEGEND_BELOW, margin=dict(b=150))
    return styled(fig, content.text(BOOK, "outcome-title"), Evidence(Kind.MEASURED, detail(analysis)), height=500)


# --- training curves at one depth (measured) --------------------------------------------------------------


def training_curves(analysis: dict, depth: int) -> go.Figure:
    """Held-out loss and accuracy during training at `depth`: the seed mean bold, each seed thin."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1)
    cells = analysis["cells"].get(depth, {})
    for col, key in ((1, "eval_loss"), (2, "eval_accuracy")):
        for wiring, cell in cells.items():
            color, steps = WIRING_COLORS[wiring], cell["steps"]
            flops = [s * cell["flops_per_step"] for s in steps]
            curves = cell["curves"][key]
            for seed, curve in zip(cell["seeds"], curves):
                fig.add_trace(
                    go.Scatter(
                        x=steps,
                        y=curve,
                        mode="lines",
                        legendgroup=wiring,
                        showlegend=False,
                        line=dict(color=color, width=1),
                        opacity=0.45,
                        customdata=flops,
                        hovertemplate=content.text(BOOK, "curve-seed-hover", wiring=_short(wiring), seed=seed),
                    ),
                    row=1,
                    col=col,
                )
            fig.add_trace(
                go.Scatter(
                    x=steps,
                    y=curves.mean(0),
                    mode="lines",
                    name=wiring_name(wiring),
                    legendgroup=wiring,
                    showlegend=col == 1,
                    line=dict(color=color, width=3.5),
                    customdata=flops,
                    hovertemplate=content.text(BOOK, "curve-mean-hover", wiring=_short(wiring)),
                ),
                row=1,
                col=col,
            )
    fig.update_xaxes(title=content.text(BOOK, "step-axis"), rangemode="tozero")
    fig.update_yaxes(title=content.text(BOOK, "loss-axis"), rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title=content.text(BOOK, "accuracy-axis"), range=[0, 1.02], row=1, col=2)
    fig.update_layout(legend=LEGEND_BELOW, margin=dict(b=130))
    return styled(
        fig, content.text(BOOK, "curves-title", depth=depth), Evidence(Kind.MEASURED, detail(analysis)), height=470
    )


# --- probes per encoder level (measured) --------------------------------------------------------------------


def probe_profile(analysis: dict, depth: int) -> go.Figure:
    """Held-out linear-probe accuracy per encoder level for both targets, trained models (mean ± sd over seeds,
    filled where a decoder layer reads that level) and the same networks before training (dotted)."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1)
    cells = analysis["cells"].get(depth, {})
    levels = list(range(depth + 1))
    for col, target in ((1, "token"), (2, "majority")):
        for wiring, cell in cells.items():
            color = WIRING_COLORS[wiring]
            read = {depth} if wiring == "final" else set(range(depth))
            trained = cell["probes"]["trained"][target]
            sd = trained.std(0, ddof=1) if len(trained) > 1 else np.zeros(len(levels))
            if col == 1:  # the legend's sample: a filled marker, whatever level 0 shows
                fig.add_trace(
                    go.Scatter(
                        x=[None],
                        y=[None],
                        mode="lines+markers",
                        legendgroup=wiring,
                        name=content.text(BOOK, "trained", wiring=wiring_name(wiring)),
                        line=dict(color=color, width=3),
                        marker=dict(size=11, color=color),
                    ),
                    row=1,
                    col=col,
                )
            fig.add_trace(
                go.Scatter(
                    x=levels,
                    y=trained.mean(0),
                    mode="lines+markers",
                    name=content.text(BOOK, "trained", wiring=wiring_name(wiring)),
                    legendgroup=wiring,
                    showlegend=False,
                    line=dict(color=color, width=3),
                    marker=dict(
                        size=11,
                        color=[color if lv in read else "white" for lv in levels],
                        line=dict(color=color, width=2),
                    ),
                    error_y=clipped_bars(trained.mean(0), sd, 1.0, thickness=1.5, width=4),
                    hovertemplate=content.text(BOOK, "level-hover", wiring=_short(wiring)),
                ),
                row=1,
                col=col,
            )
        if cells:  # a seed starts both wirings from the same weights, so "before training" is one curve
            untrained = next(iter(cells.values()))["probes"]["untrained"][target].mean(0)
            fig.add_trace(
                go.Scatter(
                    x=levels,
                    y=untrained,
                    mode="lines",
                    name=content.text(BOOK, "untrained"),
                    legendgroup="untrained",
                    showlegend=col == 1,
                    line=dict(color=UNTRAINED, width=2, dash="dot"),
                    hovertemplate=content.text(BOOK, "untrained-hover"),
                ),
                row=1,
                col=col,
            )
    fig.add_hline(
        y=analysis["chance"]["token"],
        line=dict(color="#888888", width=1, dash="dash"),
        row=1,
        col=1,
        annotation_text=content.text(BOOK, "chance"),
        annotation_position="top right",
    )
    fig.add_hline(
        y=analysis["single_token_ceiling"],
        line=dict(color="#888888", width=1, dash="dash"),
        row=1,
        col=2,
        annotation_text=content.text(BOOK, "one-token"),
        annotation_position="bottom right",
    )
    fig.update_xaxes(
        title=content.text(BOOK, "level-axis"), tickmode="array", tickvals=levels, range=[-0.3, depth + 0.3]
    )
    fig.update_yaxes(title=content.text(BOOK, "probe-symbol"), range=[0, 1.04], row=1, col=1)
    fig.update_yaxes(title=content.text(BOOK, "probe-bit"), range=[0.45, 1.02], row=1, col=2)
    fig.update_layout(legend=LEGEND_BELOW, margin=dict(b=160))
    cfg = analysis["config"]
    return styled(
        fig,
        content.text(BOOK, "probes-title", depth=depth),
        Evidence(
            Kind.MEASURED,
            content.text(
                BOOK, "probes-detail", train=cfg["probe_train"], test=cfg["probe_test"], detail=detail(analysis)
            ),
        ),
        height=500,
    )


# --- the main task against the control (measured) ----------------------------------------------------------


def gap_by_task(analyses: dict[str, dict]) -> go.Figure:
    """Layer-aligned minus final-only held-out accuracy per depth, one line per task (`analyses`: task name ->
    analysis): each seed's paired difference a dot, the mean a marker labelled with its exact paired p."""
    fig = go.Figure()
    depths = sorted({d for a in analyses.values() for d in a["tests"]})
    for task, analysis in analyses.items():
        color, xs, means, labels, dots_x, dots_y = TASK_COLORS[task], [], [], [], [], []
        for depth in sorted(analysis["tests"]):
            test = analysis["tests"][depth]["accuracy"]
            x = math.log2(depth) + OFFSET[task]
            diffs = [100 * d for d in test["diffs"]]
            xs.append(x)
            means.append(float(np.mean(diffs)))
            labels.append(p_label(test["p"]))
            dots_x += [x] * len(diffs)
            dots_y += diffs
        n = len(analysis["seeds"])
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=means,
                mode="lines+markers+text",
                name=content.text(BOOK, "task-seeds", task=task_name(task), n=n),
                legendgroup=task,
                line=dict(color=color, width=3),
                marker=dict(size=12, color=color),
                text=labels,
                textfont=dict(size=13, color=color),
                textposition=["bottom right"] * (len(labels) - 1) + ["bottom left"],  # inside
                hovertemplate=content.text(BOOK, "task-mean-hover", task=task_name(task)),
            )
        )
        fig.add_trace(
            go.Scatter(
                x=dots_x,
                y=dots_y,
                mode="markers",
                legendgroup=task,
                showlegend=False,
                marker=dict(size=7, color=color, opacity=0.45, symbol="circle-open", line=dict(width=2)),
                hovertemplate=content.text(BOOK, "task-seed-hover", task=task_name(task)),
            )
        )
    fig.add_hline(y=0, line=dict(color="#888888", width=1, dash="dash"))
    fig.update_xaxes(
        title=content.text(BOOK, "depth-axis"),
        tickmode="array",
        tickvals=[math.log2(d) for d in depths],
        ticktext=[str(d) for d in depths],
        range=[math.log2(depths[0]) - 0.4, math.log2(depths[-1]) + 0.4] if depths else None,
    )
    fig.update_yaxes(title=content.text(BOOK, "gap-axis"), zeroline=False)
    fig.update_layout(legend=LEGEND_BELOW, margin=dict(b=130))
    first = next(iter(analyses.values()))
    return styled(
        fig,
        content.text(BOOK, "control-title"),
        Evidence(Kind.MEASURED, content.text(BOOK, "control-detail", detail=detail(first))),
        height=500,
    )


# --- the learning rate per wiring (measured) --------------------------------------------------------------------


def lr_check(analysis: dict) -> go.Figure:
    """Held-out accuracy and loss against the learning rate at one depth, per wiring (mean ± sd over seeds, each
    seed a dot); each wiring's best rate (lowest mean loss) drawn as a star."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1)
    lrs = analysis["lrs"]
    for col, metric in ((1, "accuracy"), (2, "loss")):
        for wiring, by_lr in analysis["cells"].items():
            color, rates = WIRING_COLORS[wiring], sorted(by_lr)
            cells = [by_lr[lr] for lr in rates]
            x = [math.log10(lr) + OFFSET[wiring] / 2 for lr in rates]
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=[c[metric]["mean"] for c in cells],
                    mode="lines+markers",
                    name=wiring_name(wiring),
                    legendgroup=wiring,
                    showlegend=col == 1,
                    line=dict(color=color, width=3),
                    marker=dict(
                        size=[18 if lr == analysis["best"][wiring] else 10 for lr in rates],
                        color=color,
                        symbol=["star" if lr == analysis["best"][wiring] else "circle" for lr in rates],
                    ),
                    error_y=sd_bars(cells, metric),
                    hovertemplate=content.text(BOOK, "mean-hover", wiring=_short(wiring), bars=_bar_note(metric)),
                ),
                row=1,
                col=col,
            )
            fig.add_trace(
                go.Scatter(
                    x=[xi for xi, c in zip(x, cells) for _ in c[metric]["per_seed"]],
                    y=[v for c in cells for v in c[metric]["per_seed"]],
                    mode="markers",
                    legendgroup=wiring,
                    showlegend=False,
                    marker=dict(size=7, color=color, opacity=0.45, symbol="circle-open", line=dict(width=2)),
                    hovertemplate=content.text(BOOK, "seed-hover", wiring=_short(wiring)),
                ),
                row=1,
                col=col,
            )
    fig.update_xaxes(
        title=content.text(BOOK, "lr-axis"),
        tickmode="array",
        tickvals=[math.log10(lr) for lr in lrs],
        ticktext=[f"{lr:g}" for lr in lrs],
        range=[math.log10(min(lrs)) - 0.3, math.log10(max(lrs)) + 0.3],
    )
    fig.update_yaxes(title=content.text(BOOK, "accuracy-axis"), range=[0, 1.02], row=1, col=1)
    fig.update_yaxes(title=content.text(BOOK, "loss-axis"), rangemode="tozero", row=1, col=2)
    fig.update_layout(legend=LEGEND_BELOW, margin=dict(b=150))
    return styled(
        fig,
        content.text(BOOK, "lr-title", depth=analysis["depth"]),
        Evidence(Kind.MEASURED, detail(analysis)),
        height=500,
    )
