"""The length-asymmetry page's sections under its first screen: the published claim, what the toy test can say
(with a run of one more ratio on demand), the cost at equal FLOPs, the student's own length profiles, and how
it was measured. Each runs only while its tab is open."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from explorer import findings, results
from explorer.experiments import lengths as ln
from explorer.experiments.lengths import view
from explorer.figures import lengths as figs
from explorer.formatting import plural
from ui import layout, params, render, upload_caps
from ui.jobs import run_in_background, was_cut
from ui.text import say, t

TYPED, UPLOADED = view.TYPED, view.UPLOADED
TIME_LIMIT_S = 90
METRICS = {"averaged over the run": "curve", "at the last step": "final"}  # options (URL values) -> loss measure
VARIANTS = ("matched", "split-vocab")


@st.cache_data(show_spinner=False)
def _shipped(preset: str = "main") -> dict | None:
    return ln.load_shipped(preset)


@st.cache_data(show_spinner=False)
def _claims(preset: str = "main") -> dict | None:
    data = _shipped(preset)
    return None if data is None else ln.claims(data)


def _tiles(tiles: list[tuple[str, str, str]], helps: tuple) -> None:
    """Metrics with a grey second line (a fact, not a change: no arrow, no colour)."""
    for col, tile, help_text in zip(st.columns(len(tiles)), tiles, helps):
        col.metric(*tile, delta_color="off", delta_arrow="off", help=help_text)


def _table(rows: list[dict]) -> None:
    st.dataframe(pd.DataFrame(rows), hide_index=True)


def claim() -> None:
    """The claim the page tests, and what was published about it."""
    say("claim")
    st.subheader(t("published-head"))
    say("published")


def _verdict(data: dict, metric: str, first) -> dict:
    """The shipped run at `metric`: what it found in one sentence (into `first`), its figures, then what the
    tests can and cannot say, with its table, for the reviewer; its claims."""
    claims = _claims()
    analysis, verdict = claims["by_metric"][metric], view.verdict(claims)
    found = findings.length_toy(verdict, analysis)
    with first:
        layout.finding(t("found-toy", **found) + ("" if found["held"] else " " + t("found-toy-none")))
    render.figure(
        render.built_once(("gaps", metric), lambda: figs.gap_chart(analysis)),
        key="lengths-toy-gaps",
        notice=t("gaps-notice"),
    )
    render.figure(
        render.built_once(("curves",), lambda: figs.curves_chart(ln.learning_curves(data), data["config"])),
        key="lengths-toy-curves",
        notice=t("curves-notice"),
    )
    with layout.for_reviewer():
        st.markdown(view.verdict_text(verdict))
        _table(view.rows_table(analysis))
        st.caption(
            t(
                "table-caption",
                metric_text=t(f"metric-text-{metric}"),
                eval_size=f"{view.MAIN.eval_size:,}",
                tests=verdict["tests"],
            )
        )
    return claims


def _variants(metric: str, main_span: float) -> None:
    """The variants with matched difficulty: why they exist, then each one's paragraphs and one table of them
    all for the reviewer."""
    st.subheader(t("variants-head"))
    say("variants-intro", **view.variants_intro())
    with layout.for_reviewer():
        tables = []
        for preset in VARIANTS:
            if (found := _claims(preset)) is None:
                st.info(t("missing-variant", name=ln.shipped_path(preset).name, preset=preset))
                continue
            name = t(f"variant-{preset}")
            st.markdown(view.variant_text(name, view.variant(found, metric, main_span)))
            tables += view.variant_rows(name, found, metric)
        if tables:
            _table(tables)
            st.caption(t("variants-caption", **view.variants_intro()))


def toy() -> None:
    """What the shipped toy runs found (the loss measure picked), then one more ratio trained on demand."""
    first = st.container()  # the finding, above the loss measure's control
    data, metric = _shipped(), "curve"
    if data is None:
        st.warning(t("missing-shipped", name=ln.shipped_path("main").name))
    else:
        metric = METRICS[
            params.choice(
                t("label-metric"),
                "metric",
                list(METRICS),
                "averaged over the run",
                help=t("help-metric"),
                format_func=lambda o: t(f"metric-{METRICS[o]}"),
            )
        ]
        claims = _verdict(data, metric, first)
    c_claim, c_here = st.columns(2)
    c_claim.info(t("claim-box"), icon=None)
    c_here.success(t("measured-box", seeds=len(view.MAIN.seeds)), icon=None)
    if data is not None:
        _variants(metric, claims["design"]["difficulty"][metric]["span"])
    st.subheader(t("train-another"))
    _train_another(data, metric)


def _train_another(data: dict | None, metric: str) -> None:
    """One ratio: shipped or cached models at once, the rest trained on a click."""
    with st.container(border=True):
        c = st.columns(4)
        run_lx = params.slider(t("label-run-lx"), "run_lx", 1, 24, 24, where=c[0])
        run_ly = params.slider(t("label-run-ly"), "run_ly", 1, 24, 2, where=c[1])
        run_seeds = params.slider(t("label-run-seeds"), "run_seeds", 1, len(view.MAIN.seeds), 2, where=c[2])
        run_steps = params.select_slider(t("label-run-steps"), "run_steps", view.RUN_STEPS, 200, where=c[3])
        st.caption(t("run-caption", seeds=len(view.MAIN.seeds), steps=view.MAIN.steps, limit=TIME_LIMIT_S))
    try:
        run_cfg = view.run_settings(int(run_lx), int(run_ly), int(run_seeds), int(run_steps))
    except ValueError as err:
        st.warning(t("cannot-match", problem=err))
        return
    need = view.run_plan(run_cfg, data, TIME_LIMIT_S)
    run_key = "lengths-" + results.result_key("lengths-run", run_cfg.to_dict())
    done, models = view.ready_result(run_cfg, need), plural(need["models"], "model")
    if need["too_slow"]:
        st.warning(view.refused_text(need))
    elif need["models"]:
        cut = was_cut(run_key)  # a cut run: its finished models are shown, and the button offers the rest
        done = (
            run_in_background(
                run_key,
                lambda progress: ln.run(run_cfg, data, use_cache=True, progress=progress),
                t("run-label", ratio=view.ratio_label(int(run_lx), int(run_ly)), models=models),
                time_limit_s=TIME_LIMIT_S,
                button=t("run-button", models=models, seconds=need["seconds"]),
            )
            or cut
        )
    if done is None:
        return
    if done.get("stopped") != "steps":
        st.warning(t("run-cut", limit=TIME_LIMIT_S, models=models))
    analysis = render.built_once(
        ("run", run_key, str(done.get("stopped")), len(done["records"])), lambda: ln.claims(done)
    )["by_metric"][metric]
    if not analysis["rows"]:
        st.info(t("no-seed-finished"))
        return
    _table(view.rows_table(analysis))
    render.figure(figs.gap_chart(analysis), key="lengths-run-gaps", notice=t("run-gaps-notice"))
    if len(run_cfg.seeds) < 2:
        st.info(t("one-seed"))


def cost(shape: ln.Shape, lx: int, ly: int, numbers: dict) -> None:
    """Both families' parameters and FLOPs, and the parameters each would have at equal FLOPs."""
    layout.finding(t("found-cost", **numbers))
    render.figure(
        render.built_once(
            ("parity", shape, lx, ly),
            lambda: figs.parity_chart(ln.cost_parity(shape, lx, ly), lx, ly, ln.allocation(shape, lx, ly)["shape"]),
        ),
        key="lengths-parity",
        notice=t("parity-notice", ratio=numbers["equal_ratio"]),
    )
    _tiles(view.cost_tiles(numbers), (t("help-decoder"), t("help-encdec"), t("help-ratio"), t("help-equal")))


def profiles(shape: ln.Shape) -> None:
    """The length profiles: a source picked, typed or uploaded, its mean lengths and what each family spends."""
    say("profiles-intro")
    with st.container(border=True):
        c1, c2 = st.columns([2, 3])
        source = params.choice(
            t("label-source"),
            "profile",
            [*ln.PROFILES, TYPED, UPLOADED],
            "academic benchmark",
            where=c1,
            widget="radio",
            format_func=view.source_name,
        )
        typed = params.text(
            t("label-typed", limit=ln.MAX_TYPED),
            "pairs",
            "300:4, 250:2, 180:12, 120:8, 60:400",
            600,
            where=c2,
            help=t("help-pairs"),
        )
        uploaded = (
            None
            if params.controls_hidden()
            else c2.file_uploader(
                t("upload-label", rows=f"{ln.MAX_ROWS:,}", mb=f"{ln.MAX_BYTES / 1e6:g}"),
                type=["csv", "txt"],
                max_upload_size=math.ceil(ln.MAX_BYTES / 2**20),
                key="upload",
                help=t("upload-help", longest=f"{ln.MAX_LENGTH:,}"),
            )
        )
        with c2:
            upload_caps.notice()
        if source in ln.PROFILES:
            st.caption(
                t("profile-caption", name=view.source_name(source), story=t(f"story-{source.replace(' ', '-')}"))
            )
    upload_name = uploaded.name if uploaded is not None else None
    raw = uploaded.getvalue() if uploaded is not None and source == UPLOADED else None
    pairs, problem = render.built_once(("pairs", source, typed, raw), lambda: view.pairs_from(source, typed, raw))
    if problem:
        st.warning(view.problem_text(problem, source, upload_name))
    elif source == UPLOADED and raw is None:
        st.info(t("upload-prompt", rows=f"{ln.MAX_ROWS:,}"))
    if pairs is not None:
        _profile(shape, pairs, (source, typed, raw), view.profile_label(source, upload_name))
        st.download_button(
            t("label-download"),
            pairs.to_csv(index=False).encode(),
            file_name=view.download_name(source, upload_name),
            mime="text/csv",
        )


def _profile(shape: ln.Shape, pairs: pd.DataFrame, given: tuple, label: str) -> None:
    """One profile's tiles, its length distribution and what each family spends at its mean lengths (`given`:
    the source, typed text and uploaded bytes the pairs came from, so each figure is built once for them)."""
    source = given[0]
    stats = render.built_once(("stats", *given, shape), lambda: ln.profile_stats(pairs, shape))
    _tiles(view.profile_tiles(stats), (None, None, None, t("help-profile-flops")))
    render.figure(
        render.built_once(
            ("distribution", *given, label),
            lambda: figs.distribution_chart(pairs, ln.length_stats(pairs), label, synthetic=source in ln.PROFILES),
        ),
        key="lengths-distribution",
        notice=t("distribution-notice"),
    )
    mx, my = round(stats["mean_input"], 1), round(stats["mean_target"], 1)
    title = t("mean-title", label=label, lx=stats["mean_input"], ly=stats["mean_target"])
    render.figure(
        render.built_once(
            ("allocation", shape, mx, my, title),
            lambda: figs.allocation_chart(ln.allocation(shape, mx, my), title=title),
        ),
        key="lengths-profile-allocation",
        notice=t("profile-allocation-notice", share=stats["decoder_input_share"]),
    )


def how() -> None:
    """The toy's arms and recipe, and when and with what the shipped run was made."""
    _table(view.arms())
    say("how-measured", **view.how_numbers())
    if (shipped_run := _shipped()) is not None:
        say(
            "shipped-run",
            wall=shipped_run.get("wall_seconds", 0),
            torch=shipped_run.get("torch", "?"),
            created=shipped_run.get("created", "?"),
        )
