"""Length asymmetry (slides 56-58): who reads how many tokens, length profiles, and what a toy test can say."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from explorer import results
from explorer.csv_upload import inline_code
from explorer.formatting import plural
from explorer.experiments import lengths as ln
from explorer.experiments.lengths import view
from explorer.figures import lengths as figs
from ui import layout, params, render
from ui.frame import header, page_link
from ui.jobs import run_in_background, was_cut
from ui.text import say, t

LENGTHS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048]
TYPED, UPLOADED = view.TYPED, view.UPLOADED
TIME_LIMIT_S = 90
FIRST_SCREEN_HEIGHT = 520  # px: the allocation chart and its legend whole on a 1440x900 screen
METRICS = {"averaged over the run": "curve", "at the last step": "final"}  # options (URL values) -> loss measure
VARIANTS = ("matched", "split-vocab")


@st.cache_data(show_spinner=False)
def _shipped(preset: str = "main") -> dict | None:
    return ln.load_shipped(preset)


@st.cache_data(show_spinner=False)
def _claims(preset: str = "main") -> dict | None:
    data = _shipped(preset)
    return None if data is None else ln.claims(data)


def _named(items: list[dict]) -> str:
    return ", ".join(t("named-item", **i) for i in items) or t("named-none")


def _tiles(tiles: list[tuple[str, str, str]], helps: tuple) -> None:
    """Metrics with a grey second line (a fact, not a change: no arrow, no colour)."""
    for col, tile, help_text in zip(st.columns(len(tiles)), tiles, helps):
        col.metric(*tile, delta_color="off", delta_arrow="off", help=help_text)


def _table(rows: list[dict]) -> None:
    st.dataframe(pd.DataFrame(rows), hide_index=True)


def _trends(lines: list[dict]) -> str:
    return "\n".join(t("trend-line", **line) for line in lines)


def _profiles(shape: ln.Shape) -> None:
    """The length profiles: a source picked, typed or uploaded, its mean lengths and what each family spends."""
    say("profiles-intro")
    with st.container(border=True):
        c1, c2 = st.columns([2, 3])
        source = params.choice(t("label-source"), "profile", [*ln.PROFILES, TYPED, UPLOADED], "academic benchmark",
                               where=c1, widget="radio", format_func=view.source_name)
        typed = params.text(t("label-typed", limit=ln.MAX_TYPED), "pairs",
                            "300:4, 250:2, 180:12, 120:8, 60:400", 600, where=c2, help=t("help-pairs"))
        uploaded = None if params.controls_hidden() else c2.file_uploader(
            t("upload-label", rows=f"{ln.MAX_ROWS:,}", mb=f"{ln.MAX_BYTES / 1e6:g}"), type=["csv", "txt"],
            max_upload_size=math.ceil(ln.MAX_BYTES / 2 ** 20), key="upload",
            help=t("upload-help", longest=f"{ln.MAX_LENGTH:,}"))
        if source in ln.PROFILES:
            st.caption(t("profile-caption", name=view.source_name(source),
                         story=t(f"story-{source.replace(' ', '-')}")))
    raw = uploaded.getvalue() if uploaded is not None and source == UPLOADED else None
    pairs, problem = render.built_once(("pairs", source, typed, raw), lambda: view.pairs_from(source, typed, raw))
    if problem:
        st.warning((f"{inline_code(uploaded.name, 60)}: " if source == UPLOADED and uploaded else "") + problem)
    elif source == UPLOADED and raw is None:
        st.info(t("upload-prompt", rows=f"{ln.MAX_ROWS:,}"))
    if pairs is None:
        return
    stats = render.built_once(("stats", source, typed, raw, shape), lambda: ln.profile_stats(pairs, shape))
    label = view.source_name(source) if source in ln.PROFILES else (t("your-typed") if source == TYPED
                                                                     else uploaded.name)
    _tiles(view.profile_tiles(stats), (None, None, None, t("help-profile-flops")))
    render.figure(render.built_once(("distribution", source, typed, raw, label), lambda: figs.distribution_chart(
        pairs, ln.length_stats(pairs), label, synthetic=source in ln.PROFILES)), key="lengths-distribution",
        notice=t("distribution-notice"))
    mx, my = round(stats["mean_input"], 1), round(stats["mean_target"], 1)
    title = t("mean-title", label=label, lx=stats["mean_input"], ly=stats["mean_target"])
    render.figure(render.built_once(("allocation", shape, mx, my, title), lambda: figs.allocation_chart(
        ln.allocation(shape, mx, my), title=title)), key="lengths-profile-allocation",
        notice=t("profile-allocation-notice", share=stats["decoder_input_share"]))
    name = source if source in ln.PROFILES else ("your typed pairs" if source == TYPED else uploaded.name)
    st.download_button(t("label-download"), pairs.to_csv(index=False).encode(),
                       file_name=f"lengths-{name.replace(' ', '-')}.csv", mime="text/csv")


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
    done = {"config": run_cfg.to_dict(), "records": need["ready"], "stopped": "steps"} if not need["models"] else None
    models = plural(need["models"], "model")
    if need["too_slow"]:
        hint = t("hint-fits", steps=need["fits"]) if need["fits"] else t("hint-none")
        st.warning(t("refused", **need, hint=hint))
    elif need["models"]:
        cut = was_cut(run_key)  # a cut run: its finished models are shown, and the button offers the rest
        done = run_in_background(
            run_key, lambda progress: ln.run(run_cfg, data, use_cache=True, progress=progress),
            t("run-label", ratio=view.ratio_label(int(run_lx), int(run_ly)), models=models),
            time_limit_s=TIME_LIMIT_S, button=t("run-button", models=models, seconds=need["seconds"])) or cut
    if done is None:
        return
    if done.get("stopped") != "steps":
        st.warning(t("run-cut", limit=TIME_LIMIT_S, models=models))
    analysis = render.built_once(("run", run_key, str(done.get("stopped")), len(done["records"])),
                      lambda: ln.claims(done))["by_metric"][metric]
    if not analysis["rows"]:
        st.info(t("no-seed-finished"))
        return
    _table(view.rows_table(analysis))
    render.figure(figs.gap_chart(analysis), key="lengths-run-gaps", notice=t("run-gaps-notice"))
    if len(run_cfg.seeds) < 2:
        st.info(t("one-seed"))


# ----------------------------------------------------------------------------------------------- page

header("lengths")
say("lead")
figure_col, controls_col = layout.stage()
with controls_col:
    lx = int(params.select_slider(t("label-lx"), "lx", LENGTHS, 256))
    ly = int(params.select_slider(t("label-ly"), "ly", LENGTHS, 16))
    d_model = params.select_slider(t("label-width"), "d", [64, 128, 256, 512, 768, 1024, 2048, 4096], 768)
    with st.expander(t("label-more")):
        layers = params.slider(t("label-layers"), "layers", 1, 48, 12)
        vocab = params.select_slider(t("label-vocab"), "vocab", [64, 1024, 32_000, 256_000], 32_000,
                                     format_func=lambda v: f"{v:,}")
        st.caption(t("shape-caption", positions=f"{ln.POSITIONS:,}"))
shape = ln.Shape(d_model=int(d_model), n_layers=int(layers), vocab_size=int(vocab))
numbers = render.built_once(("numbers", shape, lx, ly), lambda: view.first_screen(shape, lx, ly))
with figure_col:
    render.figure(render.built_once(("allocation", shape, lx, ly, FIRST_SCREEN_HEIGHT), lambda: figs.allocation_chart(
        ln.allocation(shape, lx, ly), height=FIRST_SCREEN_HEIGHT)), key="lengths-allocation",
        notice=t("allocation-notice", **numbers))
    say("takeaway", **numbers)

claim_tab, toy_tab, cost_tab, profile_tab, how_tab = layout.sections(
    [t("tab-claim"), t("tab-toy"), t("tab-cost"), t("tab-profiles"), t("tab-how")])
if toy_tab:
    with toy_tab:
        c_claim, c_here = st.columns(2)
        c_claim.info(t("claim-box"), icon=None)
        c_here.success(t("measured-box", seeds=len(view.MAIN.seeds)), icon=None)
        data, metric = _shipped(), "curve"
        if data is None:
            st.warning(t("missing-shipped", name=ln.shipped_path("main").name))
        else:
            metric = METRICS[params.choice(t("label-metric"), "metric", list(METRICS), "averaged over the run",
                                           help=t("help-metric"), format_func=lambda o: t(f"metric-{METRICS[o]}"))]
            claims = _claims()
            analysis, v = claims["by_metric"][metric], view.verdict(claims)
            lines = [t("verdict-per-ratio", **{**v, "held": _named(v["held"])})]
            lines += [t("verdict-agree", metric=a["metric"], lower=_named(a["lower"]), higher=_named(a["higher"]))
                      if a["lower"] or a["higher"] else t("verdict-agree-none", **a) for a in v["agree"]]
            if v["trends"]:
                lines += [t("verdict-trend", tests=v["trend_tests"]) + "\n" + _trends(v["trends"]),
                          t("verdict-ratios", ratios=v["ratios"], smallest=v["ratio_smallest"])]
            st.markdown("\n\n".join([*lines, t("verdict-cannot", **v)]))
            _table(view.rows_table(analysis))
            st.caption(t("table-caption", metric_text=t(f"metric-text-{metric}"), eval_size=f"{view.MAIN.eval_size:,}",
                         tests=v["tests"]))
            render.figure(render.built_once(("gaps", metric), lambda: figs.gap_chart(analysis)), key="lengths-toy-gaps",
                          notice=t("gaps-notice"))
            render.figure(render.built_once(("curves",), lambda: figs.curves_chart(ln.learning_curves(data), data["config"])),
                          key="lengths-toy-curves", notice=t("curves-notice"))
            st.subheader(t("variants-head"))
            say("variants-intro", **view.variants_intro())
            tables = []
            for preset in VARIANTS:
                name = t(f"variant-{preset}")
                if (found := _claims(preset)) is None:
                    st.info(t("missing-variant", name=ln.shipped_path(preset).name, preset=preset))
                    continue
                w = view.variant(found, metric, claims["design"]["difficulty"][metric]["span"])
                reading = {"reverse": t("variant-reverse"), "predicted": t("variant-predicted")}
                st.markdown("\n\n".join([t("variant-head", name=name, **w) + "\n" + _trends(w["trends"]),
                                         reading.get(w["reading"]) or t("variant-mixed"),
                                         t("variant-held", tests=w["ratio_tests"], smallest=w["ratio_smallest"],
                                           held=_named(w["held"]))]))
                tables += [{t("col-variant"): name, **row} for row in view.rows_table(found["by_metric"][metric])]
            if tables:
                _table(tables)
                st.caption(t("variants-caption", **view.variants_intro()))
        st.subheader(t("train-another"))
        _train_another(data, metric)
if cost_tab:
    with cost_tab:
        _tiles(view.cost_tiles(numbers), (t("help-decoder"), t("help-encdec"), t("help-ratio"), t("help-equal")))
        render.figure(render.built_once(("parity", shape, lx, ly), lambda: figs.parity_chart(
            ln.cost_parity(shape, lx, ly), lx, ly, ln.allocation(shape, lx, ly)["shape"])), key="lengths-parity",
            notice=t("parity-notice", ratio=numbers["equal_ratio"]))
if profile_tab:
    with profile_tab:
        _profiles(shape)
if claim_tab:
    with claim_tab:
        say("claim")
        st.subheader(t("published-head"))
        say("published")
if how_tab:
    with how_tab:
        _table(view.arms())
        say("how-measured", **view.how_numbers())
        if (shipped_run := _shipped()) is not None:
            say("shipped-run", wall=shipped_run.get("wall_seconds", 0), torch=shipped_run.get("torch", "?"),
                created=shipped_run.get("created", "?"))

st.divider()
page_link("four-steps", t("link-four-steps"))
page_link("cache", t("link-cache"))
