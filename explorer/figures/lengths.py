"""Figures of the length-asymmetry page (slides 56-58): pure functions from `explorer.experiments.lengths`
data to Plotly figures.

Colours follow the app's concepts: the encoder (bidirectional) orange, every causal stack blue, cross-attention
green; parameter groups that do no matmul work (embedding lookups) are pale and hatched.
"""

from __future__ import annotations

import html

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.evidence import Evidence, Kind
from explorer.experiments.lengths import ARM_NAMES, ARMS, DECODER, ENCDEC, FAMILY_NAMES, MATCHINGS, percent
from explorer.experiments.lengths.view import ratio_label
from explorer.figures.theme import CONCEPT_COLORS, OKABE_ITO, below_badge, keep_width, styled
from explorer.formatting import p_label, p_text, si

ROLE_COLORS = {"causal": CONCEPT_COLORS["causal"], "bidirectional": CONCEPT_COLORS["bidirectional"],
               "cross": CONCEPT_COLORS["cross"], "head": "#777777", "embedding": "#D9D9D9"}
FAMILY_COLORS = {DECODER: CONCEPT_COLORS["causal"], ENCDEC: CONCEPT_COLORS["bidirectional"]}
ARM_COLORS = {"decoder": CONCEPT_COLORS["causal"], "encdec_params": CONCEPT_COLORS["bidirectional"],
              "encdec_flops": OKABE_ITO[4]}
MATCHING_TITLES = {"parameters": "same parameters (enc-dec: ½ the FLOPs)",
                   "flops": "same FLOPs (enc-dec: about 2× the parameters)"}
MAX_POINTS = 2_000  # pairs drawn in the distribution scatter (the statistics use every pair)


def _shape_text(shape: dict) -> str:
    ff = shape["d_ff"] or 4 * shape["d_model"]
    return f"d={shape['d_model']}, {shape['n_layers']} layers per stack, d_ff={ff}, vocab {shape['vocab_size']:,}"


def _log_ticks(values: list[float]) -> dict:
    """Ticks at 1, 2 and 5 times powers of ten across the values, labelled 100M, 2G ... (no minor labels)."""
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    ticks = [m * 10.0 ** e for e in range(lo, hi + 1) for m in (1, 2, 5) if min(values) / 1.5 <= m * 10.0 ** e
             <= max(values) * 1.5]
    return dict(type="log", tickvals=ticks, ticktext=[si(t) for t in ticks])


# ----------------------------------------------------------------------------------------------- allocation


def allocation_chart(alloc: dict, title: str | None = None, height: int = 620) -> go.Figure:
    """Each parameter group as a box: width = its parameters, height = tokens per example it reads.

    The area of a box is its parameter-token passes per example, so matmul FLOPs are about twice the
    coloured area. One row per family, on shared axes.
    """
    lx, ly = alloc["lx"], alloc["ly"]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.14,
                        subplot_titles=[f"{FAMILY_NAMES[f]}: {si(alloc['families'][f]['parameters'])} parameters, "
                                        f"{si(alloc['families'][f]['flops'])} FLOPs per example"
                                        for f in (DECODER, ENCDEC)])
    traces, rows = [], []
    for row, family in enumerate((DECODER, ENCDEC), start=1):
        groups = alloc["families"][family]["groups"]
        widths = [g["parameters"] / 1e6 for g in groups]
        lefts = np.concatenate([[0.0], np.cumsum(widths)[:-1]])
        for role in dict.fromkeys(g["role"] for g in groups):
            pick = [i for i, g in enumerate(groups) if g["role"] == role]
            lookup = role == "embedding"
            traces.append(go.Bar(
                x=[lefts[i] + widths[i] / 2 for i in pick], y=[groups[i]["tokens"] for i in pick],
                width=[widths[i] for i in pick], name=_role_name(role), legendgroup=role,
                showlegend=row == 2,  # every role of the first row appears in the second
                marker=dict(color=ROLE_COLORS[role], line=dict(color="white", width=1.5),
                            pattern=dict(shape="/" if lookup else "", fgcolor="#999999")),
                text=[_short(groups[i]["name"]) for i in pick], textposition="inside", insidetextanchor="middle",
                textfont=dict(color="#222222" if lookup else "white", size=13),
                customdata=[[groups[i]["name"], groups[i]["parameters"], groups[i]["tokens"], groups[i]["flops"],
                             groups[i]["note"]] for i in pick],
                hovertemplate="<b>%{customdata[0]}</b><br>%{customdata[1]:,} parameters<br>"
                              "%{customdata[2]:,.1f} tokens per example<br>%{customdata[3]:.3s} matmul FLOPs"
                              "<br>%{customdata[4]}<extra></extra>"))
            rows.append(row)
    fig.add_traces(traces, rows=rows, cols=[1] * len(rows))
    groups = alloc["families"][ENCDEC]["groups"]
    target_side = [i for i, g in enumerate(groups) if g["reads"] == "target"]
    left = sum(g["parameters"] for g in groups[:target_side[0]]) / 1e6
    width = sum(groups[i]["parameters"] for i in target_side if i < target_side[0] + 2) / 1e6
    fig.add_annotation(x=left + width / 2, y=ly, xref="x2", yref="y2", yanchor="bottom", showarrow=False, yshift=4,
                       text=f"decoder side reads Ly = {_num(ly)}", font=dict(size=14, color=ROLE_COLORS["causal"]))
    for row, (text, y) in enumerate(((f"Lx + Ly = {_num(lx + ly)}", lx + ly), (f"Lx = {_num(lx)}", lx)), start=1):
        fig.add_hline(y=y, line=dict(color="#555555", dash="dot", width=1), row=row, col=1)
        fig.add_annotation(text=text, x=1.0, xref="x domain", y=y, yref=f"y{'' if row == 1 else row}",
                           xanchor="right", yanchor="bottom", showarrow=False, font=dict(size=13, color="#555555"))
    top = (lx + ly) * 1.12
    fig.update_yaxes(title_text="tokens read", range=[0, top])
    fig.update_xaxes(title_text="parameters (millions); box area = parameter-token passes ≈ FLOPs / 2", row=2, col=1)
    plot_px = height - 200  # about: the title and badge rows above the plot, the axis title below it
    fig.update_layout(bargap=0, uniformtext=dict(minsize=10, mode="hide"),  # legend 84 px under the plot
                      legend=dict(orientation="h", x=0, y=-84 / plot_px, yanchor="top"))
    fig.update_annotations(selector=dict(yref="paper", xanchor="center"), x=0.0, xanchor="left")
    below_badge(fig)
    keep_width(fig)  # the panel titles carry parameters and FLOPs: a phone scrolls them, not cuts them
    return styled(fig, title or f"Who reads how many tokens: Lx = {_num(lx)} input, Ly = {_num(ly)} target tokens",
                  Evidence(Kind.FORMULA, "explorer.costs, exact · " + _shape_text(alloc["shape"])), height=height)


def _num(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def _role_name(role: str) -> str:
    return {"causal": "causal stack (decoder)", "bidirectional": "encoder (bidirectional)",
            "cross": "cross-attention", "head": "output head", "embedding": "embeddings (lookups, no FLOPs)"}[role]


def _short(name: str) -> str:
    return name.split(" (")[0].replace("self-attention + MLP", "attn + MLP")


def parity_chart(parity: dict, lx: int, ly: int, shape: dict) -> go.Figure:
    """FLOPs per example against parameters as layers vary, for both families, and the equal-cost point."""
    fig = go.Figure()
    dec, eq = parity["decoder"], parity["equal_cost"]
    for family in (DECODER, ENCDEC):
        c = parity["curves"][family]
        per = "layers" if family == DECODER else "layers per stack"
        fig.add_trace(go.Scatter(x=c["parameters"], y=c["flops"], mode="lines", name=FAMILY_NAMES[family],
                                 line=dict(color=FAMILY_COLORS[family], width=3), customdata=c["layers"],
                                 hovertemplate=f"%{{customdata}} {per}<br>%{{x:.3s}} parameters<br>"
                                               "%{y:.3s} FLOPs per example<extra></extra>"))
        i = shape["n_layers"] - 1
        fig.add_trace(go.Scatter(x=[c["parameters"][i]], y=[c["flops"][i]], mode="markers", showlegend=False,
                                 marker=dict(color=FAMILY_COLORS[family], size=13, line=dict(color="white", width=2)),
                                 hovertemplate=f"this shape: {shape['n_layers']} {per}<extra></extra>"))
    fig.add_hline(y=dec["flops"], line=dict(color="#555555", dash="dot", width=1.5))
    fig.add_trace(go.Scatter(x=[eq["parameters"]], y=[eq["flops"]], mode="markers",
                             name="same FLOPs as this decoder-only",
                             marker=dict(symbol="star", size=18, color=FAMILY_COLORS[ENCDEC],
                                         line=dict(color="#222222", width=1.5)),
                             hovertemplate=f"{eq['layers_per_stack']:.2f} layers per stack<br>%{{x:.3s}} parameters"
                                           "<extra>equal cost</extra>"))
    fig.add_annotation(x=math.log10(eq["parameters"]), y=math.log10(eq["flops"]), ax=40, ay=60, showarrow=True,
                       arrowhead=2, xanchor="left", font=dict(size=14),
                       text=f"same FLOPs: encoder-decoder with {eq['parameter_ratio']:.2f}× the parameters")
    curves = parity["curves"].values()
    fig.update_xaxes(title_text="parameters", **_log_ticks([p for c in curves for p in c["parameters"]]))
    fig.update_yaxes(title_text="forward FLOPs per example", **_log_ticks([f for c in curves for f in c["flops"]]))
    fig.update_layout(legend=dict(x=0.01, y=0.99, xanchor="left", yanchor="top"))
    layers = parity["curves"][DECODER]["layers"]
    return styled(fig, f"What each family costs at Lx = {lx}, Ly = {ly}, layers {layers[0]}-{layers[-1]}",
                  Evidence(Kind.FORMULA, "explorer.costs, exact · " + _shape_text(shape)), height=520)


# ----------------------------------------------------------------------------------------------- distributions


def distribution_chart(pairs: pd.DataFrame, stats: dict, label: str, synthetic: bool) -> go.Figure:
    """Input vs target length per example (log axes), the diagonal Lx = Ly and the means."""
    shown = pairs
    if len(pairs) > MAX_POINTS:
        shown = pairs.sample(MAX_POINTS, random_state=0)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=shown["input_len"], y=shown["target_len"], mode="markers", name="one example",
                             marker=dict(color=CONCEPT_COLORS["data"], size=5, opacity=0.35),
                             hovertemplate="Lx = %{x:,}<br>Ly = %{y:,}<extra></extra>"))
    lo = max(1, min(pairs["input_len"].min(), pairs["target_len"].min()))
    hi = max(pairs["input_len"].max(), pairs["target_len"].max())
    fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="Lx = Ly",
                             line=dict(color="#777777", dash="dash", width=2), hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=[stats["mean_input"]], y=[stats["mean_target"]], mode="markers", name="means",
                             marker=dict(symbol="x", size=18, color=OKABE_ITO[3], line=dict(width=2, color="white")),
                             hovertemplate="E[Lx] = %{x:,.1f}<br>E[Ly] = %{y:,.1f}<extra>means</extra>"))
    fig.add_annotation(x=math.log10(stats["mean_input"]), y=math.log10(stats["mean_target"]), ax=30, ay=-40,
                       showarrow=True, arrowhead=2, xanchor="left", font=dict(size=14, color=OKABE_ITO[3]),
                       bgcolor="rgba(255,255,255,0.85)",
                       text=f"E[Lx] = {stats['mean_input']:,.0f}, E[Ly] = {stats['mean_target']:,.0f}")
    fig.update_xaxes(type="log", dtick=1, title_text="input length Lx (tokens)")
    fig.update_yaxes(type="log", dtick=1, title_text="target length Ly (tokens)")
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.2, yanchor="top"))
    drawn = f", {MAX_POINTS:,} drawn" if len(pairs) > MAX_POINTS else ""
    if synthetic:
        evidence = Evidence(Kind.SCHEMATIC, f"{stats['n']:,} pairs{drawn}, generated (seeded log-normal)",
                            note="synthetic, illustrative: not measured from any dataset")
    else:
        evidence = Evidence(Kind.HISTORICAL, f"{stats['n']:,} pairs{drawn}, as given", note="your data, unchecked")
    return styled(fig, f"Input and target lengths: {html.escape(label)}", evidence, height=500)  # a file name


# ----------------------------------------------------------------------------------------------- the toy experiment


def _toy_detail(cfg: dict, seeds: int) -> str:
    return (f"toy scale, trained from scratch · decoder-only {cfg['n_layers']} layers, d={cfg['d_model']} · "
            f"{seeds} seeds × {cfg['steps']} steps")


def gap_chart(analysis: dict) -> go.Figure:
    """Per ratio and matching: the encoder-decoder's loss relative to decoder-only, per seed and the seed mean,
    with the exact p and, where the rows carry it, the Holm-corrected one."""
    matchings = [m for m in MATCHINGS if any(r["matching"] == m for r in analysis["rows"])]
    fig = make_subplots(rows=1, cols=len(matchings), shared_yaxes=True, horizontal_spacing=0.06,
                        subplot_titles=[MATCHING_TITLES[m] for m in matchings])
    for col, matching in enumerate(matchings, start=1):
        rows = [r for r in analysis["rows"] if r["matching"] == matching]
        labels = [ratio_label(r["lx"], r["ly"]) for r in rows]
        color = ARM_COLORS[MATCHINGS[matching]]
        for i, r in enumerate(rows):
            jitter = np.linspace(-0.12, 0.12, len(r["gaps"])) if len(r["gaps"]) > 1 else np.zeros(1)
            fig.add_trace(go.Scatter(
                x=i + jitter, y=[percent(g) for g in r["gaps"]], mode="markers", name="one seed",
                legendgroup="seed", showlegend=col == 1 and i == 0,
                marker=dict(color=color, size=9, opacity=0.55), customdata=r["seeds"],
                hovertemplate="seed %{customdata}: %{y:+.1f}%<extra></extra>"), row=1, col=col)
        fig.add_trace(go.Scatter(
            x=list(range(len(rows))), y=[percent(r["gap_mean"]) for r in rows], mode="markers",
            name="mean over seeds", legendgroup="mean", showlegend=col == 1,
            marker=dict(color="#222222", size=13, symbol="diamond"),
            customdata=[[r["encdec_lower"], r["n"], p_text(r["p"]), p_text(r.get("holm_p"))] for r in rows],
            hovertemplate="mean %{y:+.1f}%<br>encoder-decoder lower in %{customdata[0]} of %{customdata[1]} seeds"
                          "<br>exact sign-flip p: %{customdata[2]}<br>Holm-corrected: %{customdata[3]}"
                          "<extra></extra>"), row=1, col=col)
        for i, r in enumerate(rows):
            fig.add_annotation(x=i, y=0.0, xref=f"x{'' if col == 1 else col}", yref="paper", yanchor="bottom",
                               text=f"{p_label(r['p'])}<br>Holm {p_text(r.get('holm_p'))}", showarrow=False,
                               font=dict(size=13, color="#555555"), name="p-value")
        fig.add_hline(y=0, line=dict(color="#555555", width=1.5), row=1, col=col)
        fig.update_xaxes(tickvals=list(range(len(rows))), ticktext=labels, range=[-0.5, len(rows) - 0.5],
                         title_text="input → target tokens", row=1, col=col)
    fig.update_yaxes(title_text="encoder-decoder loss vs decoder-only (%)", ticksuffix="%", row=1, col=1)
    shown = [percent(g) for r in analysis["rows"] for g in r["gaps"]] or [0.0]
    low, high = min(shown + [0.0]), max(shown + [0.0])
    span = (high - low) or 1.0
    fig.update_yaxes(range=[low - 0.3 * span, high + 0.08 * span])  # room under the points for the p-values
    below_badge(fig)
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.22, yanchor="top"))
    cfg = analysis["config"]
    n = max((len(r["seeds"]) for r in analysis["rows"]), default=0)
    return styled(fig, "Encoder-decoder vs decoder-only, by length ratio (below 0: encoder-decoder better)",
                  Evidence(Kind.MEASURED, _toy_detail(cfg, n)), height=560)


def _decade(exponent: int) -> str:
    """A log axis' tick: 0.1, 1, 10 as numbers, smaller and larger powers as 10⁻⁴ (short, so the axis title keeps
    clear of it)."""
    return f"{10.0 ** exponent:g}" if -1 <= exponent <= 2 else f"10<sup>{exponent}</sup>"


def curves_chart(curves: list[dict], cfg: dict) -> go.Figure:
    """Held-out loss against training step per ratio: the seed mean and the range over seeds, per arm."""
    present = {(c["lx"], c["ly"]) for c in curves}
    ratios = [tuple(r) for r in cfg["ratios"] if tuple(r) in present]
    fig = make_subplots(rows=1, cols=len(ratios), shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=[f"{ratio_label(*r)} tokens" for r in ratios])
    for col, ratio in enumerate(ratios, start=1):
        here = {c["arm"]: c for c in curves if (c["lx"], c["ly"]) == ratio}
        for c in (here[a] for a in ARMS if a in here):
            color = ARM_COLORS[c["arm"]]
            fig.add_trace(go.Scatter(x=c["steps"] + c["steps"][::-1], y=c["high"] + c["low"][::-1], fill="toself",
                                     fillcolor=color, opacity=0.15, line=dict(width=0), showlegend=False,
                                     hoverinfo="skip"), row=1, col=col)
            fig.add_trace(go.Scatter(x=c["steps"], y=c["mean"], mode="lines+markers", name=ARM_NAMES[c["arm"]],
                                     legendgroup=c["arm"], showlegend=col == 1, line=dict(color=color, width=2.5),
                                     marker=dict(size=5),
                                     hovertemplate=f"{ARM_NAMES[c['arm']]}<br>step %{{x}}<br>loss %{{y:.3f}}"
                                                   f" (mean of {c['seeds']} seeds)<extra></extra>"), row=1, col=col)
        fig.update_xaxes(title_text="training step", row=1, col=col)
    losses = [v for c in curves for v in c["low"] + c["high"] if v > 0]
    decades = range(math.floor(math.log10(min(losses))), math.ceil(math.log10(max(losses))) + 1)
    fig.update_yaxes(type="log", tickvals=[10.0 ** e for e in decades], ticktext=[_decade(e) for e in decades])
    fig.update_yaxes(title_text="held-out loss (nats/token)", title_standoff=12, row=1, col=1)
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.3, yanchor="top"), margin=dict(b=130))  # under the titles
    below_badge(fig)
    seeds = max((c["seeds"] for c in curves), default=0)
    return styled(fig, "Held-out loss while training: seed mean, band = range over seeds",
                  Evidence(Kind.MEASURED, _toy_detail(cfg, seeds)), height=500)
