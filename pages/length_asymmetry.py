"""Length asymmetry (slides 56-58): who reads how many tokens, length profiles, and what a toy test can say."""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd
import streamlit as st

from explorer import results
from explorer.csv_upload import inline_code
from explorer.experiments import lengths as ln
from explorer.figures import lengths as figs
from explorer.formatting import p_label, p_text, plural, si
from ui import layout, params, render
from ui.frame import header, page_link
from ui.jobs import run_in_background, was_cut
from ui.text import say, t

LENGTHS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048]
WIDTHS = [64, 128, 256, 512, 768, 1024, 2048, 4096]
VOCABS = [64, 1024, 32_000, 256_000]
TYPED, UPLOADED = "typed pairs", "uploaded CSV"
SOURCES = [*ln.PROFILES, TYPED, UPLOADED]
TYPED_DEFAULT = "300:4, 250:2, 180:12, 120:8, 60:400"
TIME_LIMIT_S = 90
RUN_LENGTH = (1, 24)
RUN_STEPS = [100, 200, 400, 800, 1200]
MAIN = ln.PRESETS["main"]
VARIANTS = {"matched": "Matched difficulty", "split-vocab": "Matched difficulty, separate target symbols"}
FIRST_SCREEN_HEIGHT = 520  # px: the allocation chart and its legend whole on a 1440x900 screen
METRIC_LABELS = {"averaged over the run": "curve", "at the last step": "final"}
METRIC_NAMES = {metric: f"loss {label}" for label, metric in METRIC_LABELS.items()}


# ----------------------------------------------------------------------------------------------- cached calls


@st.cache_data(show_spinner=False, max_entries=256)
def _allocation(shape: ln.Shape, lx: float, ly: float) -> dict:
    return ln.allocation(shape, lx, ly)


@st.cache_data(show_spinner=False, max_entries=256)
def _parity(shape: ln.Shape, lx: int, ly: int) -> dict:
    return ln.cost_parity(shape, lx, ly)


# Figures take longer to build than to copy out of the cache, so each view's figures are built once.
@st.cache_data(show_spinner=False, max_entries=256)
def _allocation_figure(shape: ln.Shape, lx: float, ly: float, title: str | None = None, height: int = 620):
    return figs.allocation_chart(_allocation(shape, lx, ly), title=title, height=height)


@st.cache_data(show_spinner=False, max_entries=256)
def _parity_figure(shape: ln.Shape, lx: int, ly: int):
    return figs.parity_chart(_parity(shape, lx, ly), lx, ly, _allocation(shape, lx, ly)["shape"])


@st.cache_data(show_spinner=False, max_entries=32)
def _pairs(source: str, typed: str, raw: bytes | None) -> tuple[pd.DataFrame | None, str | None]:
    """(pairs, problem): a profile, the typed pairs or the uploaded file, or the message saying what is wrong."""
    try:
        if source in ln.PROFILES:
            return ln.profile_pairs(source), None
        if source == TYPED:
            return ln.parse_typed(typed), None
        if raw is None:
            return None, None
        return ln.read_pairs(raw), None
    except ln.LengthsError as err:
        return None, str(err)


@st.cache_data(show_spinner=False, max_entries=64)
def _stats(source: str, typed: str, raw: bytes | None, shape: ln.Shape) -> dict | None:
    pairs, _ = _pairs(source, typed, raw)
    return None if pairs is None else ln.profile_stats(pairs, shape)


@st.cache_resource(show_spinner=False, max_entries=32)
def _distribution_figure(source: str, typed: str, raw: bytes | None, label: str):
    pairs, _ = _pairs(source, typed, raw)
    return figs.distribution_chart(pairs, ln.length_stats(pairs), label, synthetic=source in ln.PROFILES)


@st.cache_data(show_spinner=False)
def _shipped(preset: str = "main") -> dict | None:
    return ln.load_shipped(preset)


@st.cache_data(show_spinner=False)
def _shipped_claims(preset: str = "main") -> dict | None:
    data = _shipped(preset)
    return None if data is None else ln.claims(data)


@st.cache_resource(show_spinner=False, max_entries=4)
def _shipped_figures(metric: str):
    """The shipped run's figures do not depend on the other controls: built once, shared read-only."""
    data = _shipped()
    return (figs.gap_chart(_shipped_claims()["by_metric"][metric]),
            figs.curves_chart(ln.learning_curves(data), data["config"]))


@st.cache_data(show_spinner=False, max_entries=16)
def _run_claims(run_key: str, _run: dict) -> dict:
    return ln.claims(_run)


# ----------------------------------------------------------------------------------------------- helpers



def _metric(where, label: str, value: str, sub: str, help: str | None = None) -> None:
    """A metric with a grey second line (a fact, not a change: no arrow, no colour)."""
    where.metric(label, value, sub, delta_color="off", delta_arrow="off", help=help)


def _rows_table(analysis: dict) -> pd.DataFrame:
    return pd.DataFrame([{
        "Lx → Ly": figs.ratio_label(r["lx"], r["ly"]),
        "matched in": "parameters" if r["matching"] == "parameters" else "FLOPs per example",
        "decoder-only loss": f"{r['decoder_mean']:.4f} ± {r['decoder_sd']:.4f}",
        "encoder-decoder loss": f"{r['encdec_mean']:.4f} ± {r['encdec_sd']:.4f}",
        "gap (enc-dec vs dec)": f"{ln.percent(r['gap_mean']):+.1f}%",
        "enc-dec lower in": f"{r['encdec_lower']} of {r['n']} seeds",
        "p (exact sign-flip)": p_text(r["p"]),
        "p, Holm-corrected": p_text(r["holm_p"]),
    } for r in analysis["rows"]])


def _matching_name(matching: str) -> str:
    return "parameters" if matching == "parameters" else "FLOPs"


def _named(rows: list[dict]) -> str:
    """`12→12 (same parameters), 4→20 (same FLOPs)`, or `none`."""
    return ", ".join(f"{figs.ratio_label(r['lx'], r['ly'])} (same {_matching_name(r['matching'])})"
                     for r in rows) or "none"


def _trend_line(tr: dict) -> str:
    return t("trend-line", metric=METRIC_NAMES[tr["metric"]], matching=_matching_name(tr["matching"]),
             slope=ln.percent(tr["slope_mean"]), negative=tr["negative"], n=tr["n_seeds"],
             p=p_label(tr["seed_p"]), holm=p_label(tr["seed_holm_p"]))


def _verdict(claims: dict) -> str:
    """What the shipped numbers can and cannot say, written from the numbers (not fixed text)."""
    d = claims["design"]
    rows = [r for a in claims["by_metric"].values() for r in a["rows"]]
    lines = [t("verdict-per-ratio", seeds=d["n_seeds"], smallest=p_text(d["ratio_smallest_p"]),
               tests=d["ratio_tests"], smallest_holm=p_text(d["ratio_smallest_holm_p"]),
               held=_named([r for r in rows if r["holm_p"] < d["alpha"]]))]
    for metric, analysis in claims["by_metric"].items():
        mine = [r for r in analysis["rows"] if r["n"] > 1]
        lower = [r for r in mine if r["encdec_lower"] == r["n"]]
        higher = [r for r in mine if r["encdec_lower"] == 0]
        if lower or higher:
            lines.append("\n" + t("verdict-agree", metric=METRIC_NAMES[metric], lower=_named(lower),
                                    higher=_named(higher)))
        else:
            lines.append("\n" + t("verdict-agree-none", metric=METRIC_NAMES[metric]))
    if claims["trends"]:
        lines.append("\n" + t("verdict-trend", tests=d["trend_tests"]))
        lines += [_trend_line(tr) for tr in claims["trends"]]
        lines.append("\n" + t("verdict-ratios", ratios=d["n_ratios"], smallest=p_text(d["trend_ratio_smallest_p"])))
    lines.append("\n" + t("verdict-cannot", span=d["difficulty"]["curve"]["span"],
                           symbols=claims["config"]["n_symbols"]))
    return "\n".join(lines)


def _slope_reading(trends: list[dict], alpha: float) -> str:
    """Which way the per-seed slopes point, over the tests (both loss measures) that hold after Holm."""
    signs = {tr["slope_mean"] > 0 for tr in trends if tr["seed_holm_p"] < alpha}
    if signs == {True}:
        return t("variant-reverse")
    if signs == {False}:
        return t("variant-predicted")
    return t("variant-mixed")


def _variants(metric: str, main_span: float) -> None:
    """Section part 'Two variants': the tasks' difficulty matched, then input and target symbols that differ."""
    st.subheader("Two variants: matched difficulty, separate vocabularies")
    cfg = ln.PRESETS["matched"]
    symbols = {(a, b): n for a, b, n in cfg.symbols_by_ratio}
    say("variants-intro", seeds=len(cfg.seeds), steps=cfg.steps, main_symbols=MAIN.n_symbols,
        summary_symbols=symbols[(20, 4)], expansion_symbols=symbols[(4, 20)])
    tables = []
    for preset, name in VARIANTS.items():
        claims = _shipped_claims(preset)
        if claims is None:
            st.info(t("missing-variant", name=ln.shipped_path(preset).name, preset=preset))
            continue
        d = claims["design"]
        rows = claims["by_metric"][metric]["rows"]
        losses = {(r["lx"], r["ly"]): r["decoder_mean"] for r in rows}
        lines = [t("variant-head", name=name, summary=losses[(20, 4)], expansion=losses[(4, 20)],
                   span=d["difficulty"][metric]["span"], main_span=main_span, metric=METRIC_NAMES[metric],
                   tests=d["trend_tests"], smallest=p_text(d["trend_seed_smallest_holm_p"]))]
        lines += [_trend_line(tr) for tr in claims["trends"] if tr["metric"] == metric]
        lines.append("\n" + _slope_reading(claims["trends"], d["alpha"]))
        lines.append("\n" + t("variant-held", tests=d["ratio_tests"], smallest=p_text(d["ratio_smallest_holm_p"]),
                       held=_named([r for a in claims["by_metric"].values() for r in a["rows"]
                                    if r["holm_p"] < d["alpha"]])))
        st.markdown("\n".join(lines))
        tables.append(_rows_table(claims["by_metric"][metric]).assign(variant=name))
    if tables:
        table = pd.concat(tables)
        st.dataframe(table[["variant", *table.columns[:-1]]], hide_index=True)
        st.caption(t("variants-caption", eval_size=f"{cfg.eval_size:,}"))


def _profiles(shape: ln.Shape) -> None:
    """The length profiles: a source picked, typed or uploaded, its mean lengths and what each family spends."""
    say("profiles-intro")
    with st.container(border=True):
        c1, c2 = st.columns([2, 3])
        source = params.choice("Lengths from", "profile", SOURCES, "academic benchmark", where=c1, widget="radio")
        typed = params.text(f"Typed pairs, input:target (at most {ln.MAX_TYPED})", "pairs", TYPED_DEFAULT, 600,
                            where=c2, help=t("help-pairs"))
        uploaded = None if params.controls_hidden() else c2.file_uploader(
            t("upload-label", rows=f"{ln.MAX_ROWS:,}", mb=f"{ln.MAX_BYTES / 1e6:g}"), type=["csv", "txt"],
            max_upload_size=math.ceil(ln.MAX_BYTES / 2 ** 20), key="upload",
            help=t("upload-help", longest=f"{ln.MAX_LENGTH:,}"))
        if source in ln.PROFILES:
            st.caption(t("profile-caption", name=source, story=ln.PROFILES[source].story))

    raw = uploaded.getvalue() if uploaded is not None and source == UPLOADED else None
    pairs, problem = _pairs(source, typed, raw)
    if problem:
        where = f"{inline_code(uploaded.name, 60)}: " if source == UPLOADED and uploaded is not None else ""
        st.warning(where + problem)
    elif source == UPLOADED and raw is None:
        st.info(t("upload-prompt", rows=f"{ln.MAX_ROWS:,}"))
    if pairs is None:
        return
    stats = _stats(source, typed, raw, shape)
    label = source if source in ln.PROFILES else ("your typed pairs" if source == TYPED else uploaded.name)
    s1, s2, s3, s4 = st.columns(4)
    _metric(s1, "E[Lx], mean input", f"{stats['mean_input']:,.1f}", f"median {stats['median_input']:,.0f}")
    _metric(s2, "E[Ly], mean target", f"{stats['mean_target']:,.1f}", f"median {stats['median_target']:,.0f}")
    _metric(s3, "E[Lx] / E[Ly]", f"{stats['ratio_of_means']:,.2f}",
            f"{stats['share_longer_input']:.0%} of pairs Lx > Ly")
    _metric(s4, "FLOPs, enc-dec / dec-only", f"{stats['flop_ratio']:.2f}×",
            f"{si(stats['mean_flops'][ln.ENCDEC])} vs {si(stats['mean_flops'][ln.DECODER])}",
            help=t("help-profile-flops"))
    render.figure(_distribution_figure(source, typed, raw, label), key="lengths-distribution",
                  notice=t("distribution-notice"))
    render.figure(
        _allocation_figure(shape, round(stats["mean_input"], 1), round(stats["mean_target"], 1),
                           title=f"At the mean lengths of {label}: Lx = {stats['mean_input']:,.1f}, "
                                 f"Ly = {stats['mean_target']:,.1f}"),
        key="lengths-profile-allocation", notice=t("profile-allocation-notice", share=stats["decoder_input_share"]))
    st.download_button("Download these pairs (CSV, usable as an upload template)",
                       pairs.to_csv(index=False).encode(), file_name=f"lengths-{label.replace(' ', '-')}.csv",
                       mime="text/csv")


def _train_another(data: dict | None, metric: str) -> None:
    """Section 'Train another setting': one ratio, shipped or cached models at once, the rest trained on a click."""
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns(4)
        run_lx = params.slider("Input length Lx", "run_lx", *RUN_LENGTH, 24, where=c1)
        run_ly = params.slider("Target length Ly", "run_ly", *RUN_LENGTH, 2, where=c2)
        run_seeds = params.slider("Seeds", "run_seeds", 1, len(MAIN.seeds), 2, where=c3)
        run_steps = params.select_slider("Steps per model", "run_steps", RUN_STEPS, 200, where=c4)
        st.caption(t("run-caption", seeds=len(MAIN.seeds), steps=MAIN.steps, limit=TIME_LIMIT_S))
    try:
        run_cfg = replace(MAIN, ratios=((int(run_lx), int(run_ly)),), seeds=tuple(range(int(run_seeds))),
                          steps=int(run_steps))
        ln.arm_table(run_cfg)  # the matched widths exist (raises ValueError otherwise)
    except ValueError as err:
        st.warning(t("cannot-match", problem=err))
        return
    planned = ln.plan(run_cfg, data)
    ready, missing = list(planned.ready.values()), planned.missing
    run_key = "lengths-" + results.result_key("lengths-run", run_cfg.to_dict())
    done = None
    if not missing:
        done = {"config": run_cfg.to_dict(), "records": ready, "stopped": "steps"}
    else:
        seconds = ln.estimate_seconds(run_cfg, missing, data)
        if seconds > TIME_LIMIT_S:
            fits = [s for s in RUN_STEPS
                    if ln.estimate_seconds(replace(run_cfg, steps=s), missing, data) <= TIME_LIMIT_S]
            hint = t("hint-fits", steps=max(fits)) if fits else t("hint-none")
            st.warning(t("refused", models=len(missing), steps=run_cfg.steps, seconds=seconds, limit=TIME_LIMIT_S,
                         hint=hint))
        else:
            done = was_cut(run_key)  # a cut run: its finished models are shown, and the button offers the rest

            def work(progress) -> dict:
                return ln.run(run_cfg, data, use_cache=True, progress=progress)

            done = run_in_background(run_key, work, f"Training {figs.ratio_label(int(run_lx), int(run_ly))}, "
                                                    f"{plural(len(missing), 'model')}", time_limit_s=TIME_LIMIT_S,
                                     button=f"Train {plural(len(missing), 'model')} (about {seconds:.0f} s)") or done
    if done is None:
        return
    if done.get("stopped") != "steps":
        st.warning(t("run-cut", limit=TIME_LIMIT_S, models=plural(len(missing), "model")))
    run_analysis = _run_claims(run_key, done)["by_metric"][metric]
    if not run_analysis["rows"]:
        st.info(t("no-seed-finished"))
        return
    st.dataframe(_rows_table(run_analysis), hide_index=True)
    render.figure(figs.gap_chart(run_analysis), key="lengths-run-gaps", notice=t("run-gaps-notice"))
    if len(run_cfg.seeds) < 2:
        st.info(t("one-seed"))


# ----------------------------------------------------------------------------------------------- page


header("lengths")
say("lead")
figure_col, controls_col = layout.stage()
with controls_col:
    lx = params.select_slider("Input length Lx (tokens)", "lx", LENGTHS, 256)
    ly = params.select_slider("Target length Ly (tokens)", "ly", LENGTHS, 16)
    d_model = params.select_slider("Width d_model", "d", WIDTHS, 768)
    with st.expander("More settings: layers, vocabulary"):
        layers = params.slider("Layers (per stack)", "layers", 1, 48, 12)
        vocab = params.select_slider("Vocabulary", "vocab", VOCABS, 32_000, format_func=lambda v: f"{v:,}")
        st.caption(t("shape-caption", positions=f"{ln.POSITIONS:,}"))

shape = ln.Shape(d_model=int(d_model), n_layers=int(layers), vocab_size=int(vocab))
alloc = _allocation(shape, int(lx), int(ly))
parity = _parity(shape, int(lx), int(ly))
dec, ed = alloc["families"][ln.DECODER], alloc["families"][ln.ENCDEC]
eq = parity["equal_cost"]

with figure_col:
    render.figure(_allocation_figure(shape, int(lx), int(ly), height=FIRST_SCREEN_HEIGHT), key="lengths-allocation",
                  notice=t("allocation-notice", total=f"{lx + ly:,}", share=dec["input_share_of_flops"],
                           lx=f"{lx:,}", ly=f"{ly:,}"))
    say("takeaway", lx=f"{lx:,}", ly=f"{ly:,}", share=dec["input_share_of_flops"], ratio=eq["parameter_ratio"])

claim_tab, toy_tab, cost_tab, profile_tab, how_tab = layout.sections(
    ["The lecture's claim", "The toy test", "Parameters and FLOPs", "Your own lengths", "How it was measured"])

if toy_tab:
    with toy_tab:
        c_claim, c_here = st.columns(2)
        c_claim.info(t("claim-box"), icon=None)
        c_here.success(t("measured-box", seeds=len(MAIN.seeds)), icon=None)
        data = _shipped()
        metric = "curve"
        if data is None:
            st.warning(t("missing-shipped", name=ln.shipped_path("main").name))
        else:
            metric = METRIC_LABELS[params.choice("Loss compared", "metric", list(METRIC_LABELS),
                                                 "averaged over the run", help=t("help-metric"))]
            claims = _shipped_claims()
            analysis = claims["by_metric"][metric]
            st.markdown(_verdict(claims))
            st.dataframe(_rows_table(analysis), hide_index=True)
            st.caption(t("table-caption", metric_text=analysis["metric_text"], eval_size=f"{MAIN.eval_size:,}",
                         tests=claims["design"]["ratio_tests"]))
            gap_figure, curves_figure = _shipped_figures(metric)
            render.figure(gap_figure, key="lengths-toy-gaps", notice=t("gaps-notice"))
            render.figure(curves_figure, key="lengths-toy-curves", notice=t("curves-notice"))
            _variants(metric, claims["design"]["difficulty"][metric]["span"])
        st.subheader("Train another setting")
        _train_another(data, metric)

if cost_tab:
    with cost_tab:
        m1, m2, m3, m4 = st.columns(4)
        _metric(m1, "Decoder-only params", si(dec["parameters"]), f"{si(dec['flops'])} FLOPs / example",
                help=t("help-decoder"))
        _metric(m2, "Encoder-decoder params", si(ed["parameters"]), f"{si(ed['flops'])} FLOPs / example",
                help=t("help-encdec"))
        _metric(m3, "Enc-dec / dec-only params", f"{alloc['parameter_ratio']:.2f}×",
                f"{alloc['flop_ratio']:.2f}× FLOPs", help=t("help-ratio"))
        _metric(m4, "Params at equal FLOPs", f"{eq['parameter_ratio']:.2f}×",
                f"{eq['layers_per_stack']:.1f} layers per stack", help=t("help-equal"))
        render.figure(_parity_figure(shape, int(lx), int(ly)), key="lengths-parity",
                      notice=t("parity-notice", ratio=eq["parameter_ratio"]))

if profile_tab:
    with profile_tab:
        _profiles(shape)

if claim_tab:
    with claim_tab:
        say("claim")
        st.subheader("The published FLAN numbers")
        say("published")

if how_tab:
    with how_tab:
        arms = pd.DataFrame(ln.arm_table(MAIN))
        arms["arm"] = arms["arm"].map(ln.ARM_NAMES)
        arms["Lx → Ly"] = [figs.ratio_label(a, b) for a, b in zip(arms["lx"], arms["ly"])]
        st.dataframe(arms[["Lx → Ly", "arm", "layers", "d_ff", "parameters", "flops_per_example"]], hide_index=True,
                     column_config={"layers": "layers per stack", "flops_per_example": "forward FLOPs per example"})
        say("how-measured", symbols=MAIN.n_symbols, layers=MAIN.n_layers, d_model=MAIN.d_model, heads=MAIN.n_heads,
            d_ff=MAIN.d_ff, half_layers=MAIN.n_layers // 2, param_tolerance=ln.PARAM_TOLERANCE,
            flop_tolerance=ln.FLOP_TOLERANCE, lr=MAIN.lr, warmup=MAIN.warmup, batch=MAIN.batch_size,
            steps=MAIN.steps, eval_every=MAIN.eval_every)
        shipped_run = _shipped()
        if shipped_run is not None:
            say("shipped-run", wall=shipped_run.get("wall_seconds", 0), torch=shipped_run.get("torch", "?"),
                created=shipped_run.get("created", "?"))

st.divider()
page_link("four-steps", "Four steps to decoder-only: what separates the two families, parameter by parameter")
page_link("cache", "Cache reuse in chat: why multi-turn chat favours a causal input")
