"""Figures of the depth page: pure functions from `explorer.experiments.depth` data to Plotly figures
(slides 59-63)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.evidence import Evidence, Kind
from explorer.experiments.depth import TASK_NAMES, WIRING_NAMES, WIRINGS
from explorer.figures.theme import CONCEPT_COLORS, keep_width, styled
from explorer.formatting import p_label

WIRING_COLORS = {"final": "#D55E00", "aligned": "#0072B2"}  # the two wirings, on every figure of the page
TASK_COLORS = {"majority-copy": "#000000", "sort": "#CC79A7"}  # the main task and the control
OFFSET = {"final": -0.06, "aligned": 0.06, "majority-copy": -0.05, "sort": 0.05}  # log2 offsets: bars apart
SELECTED = "rgba(230, 159, 0, 0.12)"
UNUSED = "#BBBBBB"
UNTRAINED = "#777777"
LEGEND_BELOW = dict(orientation="h", x=0, y=-0.3, yanchor="top")  # under the x-axis titles


def clipped_bars(means, sds, top: float = math.inf, thickness: float = 2, width: int = 6) -> dict:
    """Error bars of mean ± sd, clipped to the values the quantity can take (0 to `top`): a bar never reaches a
    value that no seed could have (an accuracy above 1, a loss below 0). An undefined sd draws no bar."""
    sds = [float(sd) if math.isfinite(sd) else 0.0 for sd in sds]
    return dict(type="data", symmetric=False, array=[min(sd, top - m) for m, sd in zip(means, sds)],
                arrayminus=[min(sd, m) for m, sd in zip(means, sds)], visible=True, thickness=thickness, width=width)


def sd_bars(cells: list[dict], metric: str) -> dict:
    """`clipped_bars` of a metric's seed mean and sd per cell: accuracy within 0 to 1, loss from 0."""
    return clipped_bars([c[metric]["mean"] for c in cells], [c[metric]["sd"] for c in cells],
                        1.0 if metric == "accuracy" else math.inf)


BAR_NOTE = {"accuracy": "mean ± sd over seeds, cut at 0 and 1", "loss": "mean ± sd over seeds, cut at 0"}


def detail(analysis: dict) -> str:
    """The config and seeds behind a measured figure, for its evidence badge."""
    cfg = analysis["config"]
    seeds = analysis["seeds"] or cfg["seeds"]
    seed_text = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {', '.join(map(str, seeds))}"
    return (f"d={cfg['d_model']}, {cfg['n_heads']} heads, {cfg['steps']} steps, batch {cfg['batch_size']}, "
            f"{seed_text}, held-out n={cfg['eval_size']}")


# --- the two wirings (schematic) ---------------------------------------------------------------------------

def _box(fig: go.Figure, x: float, y: float, text: str, color: str, dash: str = "solid") -> None:
    fig.add_shape(type="rect", x0=x - 0.3, x1=x + 0.3, y0=y - 0.34, y1=y + 0.34, fillcolor="#FFFFFF",
                  line=dict(color=color, width=2, dash=dash), layer="below")
    fig.add_annotation(x=x, y=y, text=text, showarrow=False, font=dict(size=14, color="#222222"))


def _input_of(wiring: str, level: int) -> str:
    """Why layer-aligned reads a level: it is the input of the encoder layer with the decoder layer's number."""
    return (f", the input of encoder layer {level + 1}: what layer {level + 1} of a decoder-only model attends to"
            if wiring == "aligned" else "")


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
            _box(fig, enc_x, layer + 1, f"enc {layer + 1}" + (" (unread)" if unused else ""),
                 UNUSED if unused else CONCEPT_COLORS["bidirectional"], "dot" if unused else "solid")
            _box(fig, dec_x, layer + 1, f"dec {layer + 1}", CONCEPT_COLORS["causal"])
        _box(fig, enc_x, 0, "embed x", "#888888")
        _box(fig, dec_x, 0, "embed y", "#888888")
        for layer, level in enumerate(reads):
            fig.add_annotation(x=dec_x - 0.3, y=layer + 1, ax=enc_x + 0.3, ay=level + 0.5, xref="x", yref="y",
                               axref="x", ayref="y", showarrow=True, arrowhead=3, arrowsize=1.1, arrowwidth=2,
                               arrowcolor=link, text="")
            fig.add_trace(go.Scatter(x=[enc_x + 0.3], y=[level + 0.5], mode="markers", showlegend=False,
                                     marker=dict(size=9, color=link),
                                     hovertemplate=f"{wiring}: decoder layer {layer + 1} reads encoder level "
                                                   f"{level}{_input_of(wiring, level)}<extra></extra>"))
        fig.add_annotation(x=(enc_x + dec_x) / 2, y=depth + 1.25, showarrow=False,
                           text=f"<b>{WIRING_NAMES[wiring]}</b>", font=dict(size=16, color=WIRING_COLORS[wiring]))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line=dict(color=link, width=3),
                             name="cross-attention: what a decoder layer reads"))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line=dict(color=UNUSED, width=3, dash="dot"),
                             name="computed, but no decoder layer reads its output"))
    fig.update_xaxes(visible=False, range=[-0.45, 3.85])
    fig.update_yaxes(visible=False, range=[-0.6, depth + 1.7])
    natural = max(400, 190 + 58 * depth)
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.02, yanchor="top"), margin=dict(l=10, r=10, b=50))
    keep_width(fig)  # two diagrams side by side on one canvas: a phone scrolls them, not cuts their titles
    return styled(fig, f"Who reads what at depth {depth}: {depth} decoder layers, {depth} encoder layers",
                  Evidence(Kind.SCHEMATIC, "drawn from the model's layer_aligned flag"),
                  height=natural if max_height is None else min(natural, max_height))


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
            fig.add_trace(go.Scatter(x=xs, y=[c[metric]["mean"] for c in cells], mode="lines+markers",
                                     name=WIRING_NAMES[wiring], legendgroup=wiring, showlegend=col == 1,
                                     line=dict(color=color, width=3), marker=dict(size=11, color=color),
                                     error_y=sd_bars(cells, metric),
                                     hovertemplate=f"{wiring}: %{{y:.3f}} ({BAR_NOTE[metric]})<extra></extra>"),
                          row=1, col=col)
            fig.add_trace(go.Scatter(x=dots_x, y=dots_y, mode="markers", legendgroup=wiring, showlegend=False,
                                     marker=dict(size=7, color=color, opacity=0.45, symbol="circle-open",
                                                 line=dict(width=2)),
                                     hovertemplate=f"{wiring}, one seed: %{{y:.3f}}<extra></extra>"), row=1, col=col)
    if selected in depths:
        for col in (1, 2):
            fig.add_vrect(x0=math.log2(selected) - 0.25, x1=math.log2(selected) + 0.25, fillcolor=SELECTED,
                          line_width=0, layer="below", row=1, col=col)
    labels = [f"{d}<br><span style='font-size:13px'>{p_label(analysis['tests'][d]['loss']['p'])}</span>"
              if d in analysis["tests"] else str(d) for d in depths]
    ticks = dict(tickmode="array", tickvals=[math.log2(d) for d in depths], ticktext=labels,
                 title="layers per stack (log scale)",
                 range=[math.log2(depths[0]) - 0.4, math.log2(depths[-1]) + 0.4] if depths else None)
    fig.update_xaxes(**ticks)
    fig.update_yaxes(title="held-out token accuracy", range=[0, 1.02], row=1, col=1)
    fig.update_yaxes(title="held-out loss (nats)", rangemode="tozero", row=1, col=2)
    fig.update_layout(legend=LEGEND_BELOW, margin=dict(b=150))
    return styled(fig, "Held-out accuracy and loss vs depth: same parameters, compute and steps",
                  Evidence(Kind.MEASURED, detail(analysis)), height=500)


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
                fig.add_trace(go.Scatter(x=steps, y=curve, mode="lines", legendgroup=wiring, showlegend=False,
                                         line=dict(color=color, width=1), opacity=0.45, customdata=flops,
                                         hovertemplate=f"{wiring}, seed {seed}: %{{y:.3f}} at step %{{x}} "
                                                       "(%{customdata:.2e} FLOPs)<extra></extra>"), row=1, col=col)
            fig.add_trace(go.Scatter(x=steps, y=curves.mean(0), mode="lines", name=WIRING_NAMES[wiring],
                                     legendgroup=wiring, showlegend=col == 1, line=dict(color=color, width=3.5),
                                     customdata=flops,
                                     hovertemplate=f"{wiring}, seed mean: %{{y:.3f}} at step %{{x}} "
                                                   "(%{customdata:.2e} FLOPs)<extra></extra>"), row=1, col=col)
    fig.update_xaxes(title="training step (equal FLOPs per step for both)", rangemode="tozero")
    fig.update_yaxes(title="held-out loss (nats)", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title="held-out token accuracy", range=[0, 1.02], row=1, col=2)
    fig.update_layout(legend=LEGEND_BELOW, margin=dict(b=130))
    return styled(fig, f"Training at depth {depth}: is the slower wiring still improving at the end?",
                  Evidence(Kind.MEASURED, detail(analysis)), height=470)


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
                fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines+markers", legendgroup=wiring,
                                         name=f"{WIRING_NAMES[wiring]}, trained", line=dict(color=color, width=3),
                                         marker=dict(size=11, color=color)), row=1, col=col)
            fig.add_trace(go.Scatter(
                x=levels, y=trained.mean(0), mode="lines+markers", name=f"{WIRING_NAMES[wiring]}, trained",
                legendgroup=wiring, showlegend=False, line=dict(color=color, width=3),
                marker=dict(size=11, color=[color if lv in read else "white" for lv in levels],
                            line=dict(color=color, width=2)),
                error_y=clipped_bars(trained.mean(0), sd, 1.0, thickness=1.5, width=4),
                hovertemplate=f"{wiring}, level %{{x}}: %{{y:.3f}}<extra></extra>"), row=1, col=col)
        if cells:  # a seed starts both wirings from the same weights, so "before training" is one curve
            untrained = next(iter(cells.values()))["probes"]["untrained"][target].mean(0)
            fig.add_trace(go.Scatter(x=levels, y=untrained, mode="lines", name="before training (both wirings)",
                                     legendgroup="untrained", showlegend=col == 1,
                                     line=dict(color=UNTRAINED, width=2, dash="dot"),
                                     hovertemplate="before training, level %{x}: %{y:.3f}<extra></extra>"),
                          row=1, col=col)
    fig.add_hline(y=analysis["chance"]["token"], line=dict(color="#888888", width=1, dash="dash"), row=1, col=1,
                  annotation_text="chance", annotation_position="top right")
    fig.add_hline(y=analysis["single_token_ceiling"], line=dict(color="#888888", width=1, dash="dash"), row=1, col=2,
                  annotation_text="best from one token alone", annotation_position="bottom right")
    fig.update_xaxes(title="encoder level (0 = embeddings, k = after layer k)", tickmode="array", tickvals=levels,
                     range=[-0.3, depth + 0.3])
    fig.update_yaxes(title="probe: token's own symbol", range=[0, 1.04], row=1, col=1)
    fig.update_yaxes(title="probe: sequence's majority bit", range=[0.45, 1.02], row=1, col=2)
    fig.update_layout(legend=LEGEND_BELOW, margin=dict(b=160))
    cfg = analysis["config"]
    return styled(fig, f"What each encoder level holds at depth {depth} (filled: a decoder layer reads it)",
                  Evidence(Kind.MEASURED, f"ridge probes, fit on {cfg['probe_train']} and scored on "
                                          f"{cfg['probe_test']} other sequences · {detail(analysis)}"),
                  height=500)


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
        fig.add_trace(go.Scatter(x=xs, y=means, mode="lines+markers+text", name=f"{TASK_NAMES[task]}, {n} seeds",
                                 legendgroup=task, line=dict(color=color, width=3), marker=dict(size=12, color=color),
                                 text=labels, textfont=dict(size=13, color=color),
                                 textposition=["bottom right"] * (len(labels) - 1) + ["bottom left"],  # inside
                                 hovertemplate=f"{TASK_NAMES[task]}: %{{y:+.1f}} points (seed mean, %{{text}})"
                                               "<extra></extra>"))
        fig.add_trace(go.Scatter(x=dots_x, y=dots_y, mode="markers", legendgroup=task, showlegend=False,
                                 marker=dict(size=7, color=color, opacity=0.45, symbol="circle-open",
                                             line=dict(width=2)),
                                 hovertemplate=f"{TASK_NAMES[task]}, one seed: %{{y:+.1f}} points<extra></extra>"))
    fig.add_hline(y=0, line=dict(color="#888888", width=1, dash="dash"))
    fig.update_xaxes(title="layers per stack (log scale)", tickmode="array", tickvals=[math.log2(d) for d in depths],
                     ticktext=[str(d) for d in depths],
                     range=[math.log2(depths[0]) - 0.4, math.log2(depths[-1]) + 0.4] if depths else None)
    fig.update_yaxes(title="accuracy gap (points)<br>layer-aligned − final-only", zeroline=False)
    fig.update_layout(legend=LEGEND_BELOW, margin=dict(b=130))
    first = next(iter(analyses.values()))
    return styled(fig, "When does layer-aligned reading help? Paired gap per seed, main task and control",
                  Evidence(Kind.MEASURED, f"p: exact sign-flip test, seeds paired · {detail(first)}"), height=500)


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
            fig.add_trace(go.Scatter(
                x=x, y=[c[metric]["mean"] for c in cells], mode="lines+markers", name=WIRING_NAMES[wiring],
                legendgroup=wiring, showlegend=col == 1, line=dict(color=color, width=3),
                marker=dict(size=[18 if lr == analysis["best"][wiring] else 10 for lr in rates], color=color,
                            symbol=["star" if lr == analysis["best"][wiring] else "circle" for lr in rates]),
                error_y=sd_bars(cells, metric),
                hovertemplate=f"{wiring}: %{{y:.3f}} ({BAR_NOTE[metric]})<extra></extra>"), row=1, col=col)
            fig.add_trace(go.Scatter(
                x=[xi for xi, c in zip(x, cells) for _ in c[metric]["per_seed"]],
                y=[v for c in cells for v in c[metric]["per_seed"]], mode="markers", legendgroup=wiring,
                showlegend=False, marker=dict(size=7, color=color, opacity=0.45, symbol="circle-open",
                                              line=dict(width=2)),
                hovertemplate=f"{wiring}, one seed: %{{y:.3f}}<extra></extra>"), row=1, col=col)
    fig.update_xaxes(title="learning rate (log scale)", tickmode="array",
                     tickvals=[math.log10(lr) for lr in lrs], ticktext=[f"{lr:g}" for lr in lrs],
                     range=[math.log10(min(lrs)) - 0.3, math.log10(max(lrs)) + 0.3])
    fig.update_yaxes(title="held-out token accuracy", range=[0, 1.02], row=1, col=1)
    fig.update_yaxes(title="held-out loss (nats)", rangemode="tozero", row=1, col=2)
    fig.update_layout(legend=LEGEND_BELOW, margin=dict(b=150))
    return styled(fig, f"Each wiring at its own learning rate, depth {analysis['depth']}",
                  Evidence(Kind.MEASURED, detail(analysis)), height=500)
