"""The cache page's sections under its first screen: the cost of every turn, timings on this server, drift, the
stale cache, slide 64's measurement at scale and the limits. Each runs only while its tab is open, and what
times or trains only on a press."""

from __future__ import annotations

from typing import Callable

import streamlit as st

from explorer import findings
from explorer.experiments import bidirectional_scaling as scaling
from explorer.experiments import cache as exp
from explorer.experiments import cache_view as view
from explorer.experiments import stale_cache
from explorer.figures import bidirectional_scaling as scaling_figs
from explorer.figures import cache as figs
from ui import jobs, layout, params, render
from ui.lecture import controls_hidden
from ui.text import say, t

SCALING_TIME_LIMIT_S = 180.0  # the quick preset takes under a minute on two busy cores
SWEEP_TIME_LIMIT_S = 300.0  # the overhead sweep, timed once per server


def figure(key: str, deps: tuple, build: Callable, notice: str, slides: str | None = None) -> None:
    """Figure `key`, built once per `deps` (all it is drawn from), with its notice."""
    render.figure(render.built_once((key, *deps), build), key=key, notice=notice, slides=slides)


@st.cache_resource(show_spinner=False)
def _drift_models() -> tuple[dict, dict | None]:
    """The drift models (the shipped encoder when there is one) and the shipped encoder's training info."""
    trained, info = exp.load_encoder() or (None, None)
    return exp.drift_models(trained), info


def cost(n: int, m: int, turns: int, depth: int) -> None:
    """What each turn recomputes and costs both ways, and the causal cache's memory."""
    history = exp.history_at(n, m, turns)
    table = render.built_once(("turns", n, m, turns, depth), lambda: exp.turn_table(n, m, turns, depth))
    curves = render.built_once(("curves", m, depth), lambda: exp.cost_curves(m, depth, max_history=view.MAX_HISTORY))
    sizes = (n, m, turns, depth)
    layout.finding(t("found-cost", **table.iloc[-1].to_dict()))
    figure("cache-recompute-turns", sizes, lambda: figs.recompute_across_turns(table), t("recompute-notice"))
    figure(
        "cache-cost-per-turn",
        sizes,
        lambda: figs.cost_per_turn(curves, table.iloc[-1].to_dict(), m, depth),
        t("per-turn-notice"),
    )
    figure("cache-cost-cumulative", sizes, lambda: figs.cumulative_cost(table), t("cumulative-notice"))
    figure(
        "cache-kv-memory",
        (m, depth, history + m),
        lambda: figs.kv_memory(curves, depth, history + m),
        t("memory-notice"),
    )


def _pressed(key: str, label: str) -> bool:
    """Whether this session asked for the quick timing `key`: a press of its button, remembered for the session.
    Opening the tab (or `sections=all`, or a link) times nothing; a lecture embed without controls neither."""
    asked = f"_timed-{key}"
    if st.session_state.get(asked):
        return True
    if controls_hidden() or not st.button(label, key=f"start-{key}", type="primary"):
        return False
    st.session_state[asked] = True
    return True


def _measure(history: int, m: int, depth: int, plan: dict) -> dict | None:
    """One turn timed both ways once a person presses: inline when quick, else in the background (None until
    then, or if refused). `plan`: `view.timing_plan` of these sizes."""
    if plan["problem"]:
        st.warning(t("not-measured", problem=plan["problem"]))
        return None
    key = f"cache-measure-{history}-{m}-{depth}"
    if plan["inline"]:
        if not _pressed(key, t("time-button")):
            return None
        return render.built_once(("measure", history, m, depth), lambda: exp.measure(history, m, depth))
    st.info(t("background", planned=plan["planned"], inline=exp.INLINE_SECONDS))
    return jobs.run_in_background(
        key,
        lambda progress: exp.measure(
            history, m, depth, budget_s=min(exp.MAX_MEASURE_SECONDS / 4, plan["planned"]), progress=progress
        ),
        label=t("timing-label", n=history, m=m, depth=depth),
        time_limit_s=exp.MAX_MEASURE_SECONDS * 2,
        button=t("time-button-long", seconds=plan["planned"]),
    )


def _sweep() -> dict | None:
    """The overhead sweep: read from the result cache when this server has timed it, else timed on a press."""
    stored = view.stored_sweep()
    if stored is not None:
        return stored
    return jobs.run_in_background(
        "cache-overhead-sweep",
        view.overhead_sweep,
        label=t("sweep-label"),
        time_limit_s=SWEEP_TIME_LIMIT_S,
        button=t("sweep-button", seconds=SWEEP_TIME_LIMIT_S),
    )


def measured(n: int, m: int, turns: int, depth: int) -> None:
    """The current turn timed both ways on this server, and why the speedup is not the FLOP ratio. Like every
    other run, nothing is timed until a person presses (a link to this tab must not fill the queue)."""
    history = exp.history_at(n, m, turns)
    say("measured-intro", depth=depth, total=history + m, m=m, history=history)
    plan = view.timing_plan(history, m, depth)
    timed = _measure(history, m, depth, plan)
    sweep = _sweep()
    if (timed is None or sweep is None) and not plan["problem"] and not controls_hidden():
        st.caption(t("press-to-time"))
    fit = sweep["fit"] if sweep else None
    if timed is not None:
        tiles = view.measured_tiles(timed)
        for i, (col, (label, value)) in enumerate(zip(st.columns(5), tiles)):
            col.metric(
                label, value, help=t("help-logit", largest=timed["max_abs_logit"]) if i == len(tiles) - 1 else None
            )
        figure("cache-measured-times", (timed, fit), lambda: figs.measured_times(timed, fit), t("times-notice"))
    if sweep is not None:
        if timed is not None:
            st.markdown(view.why_paragraph(timed, sweep, history, m, depth))
        figure("cache-overhead-fit", (sweep,), lambda: figs.overhead_fit(sweep), t("fit-notice"))
        figure(
            "cache-speedup-vs-ratio", (sweep, timed), lambda: figs.speedup_vs_ratio(sweep, timed), t("speedup-notice")
        )


def drift(n: int, m: int) -> None:
    """How far a bidirectional encoder's old states move when new tokens arrive: in one sentence, then layer by
    layer, then the sizes and the training behind it."""
    models, info = _drift_models()
    sizes = view.drift_numbers(n, m)
    n_d, m_d = sizes["n_d"], sizes["m_d"]
    table = render.built_once(("drift", n_d, m_d), lambda: exp.drift_table(models, n_d, m_d))
    if (moved := findings.drift(table)) is not None:
        layout.finding(t("found-drift", **moved, **sizes))
    figure("cache-drift-layers", (n_d, m_d), lambda: figs.drift_per_layer(table, n_d, m_d), t("drift-notice"))
    figure(
        "cache-drift-fraction", (), lambda: figs.drift_vs_fraction(exp.drift_vs_fraction(models)), t("fraction-notice")
    )
    if sizes["scaled"]:
        st.caption(t("drift-sizes", **sizes))
    if info is None:
        st.info(t("no-encoder"))
    else:
        st.caption(t("trained", **view.trained_numbers(info)))


def stale() -> None:
    """What a stale cache costs the shipped models: in one sentence, then accuracy and KL against re-encoding."""
    record = render.built_once(("stale",), stale_cache.load)
    if record is None:
        say("stale-intro")
        st.info(t("no-stale"))
        return
    headline = stale_cache.headline(record)
    if (found := findings.stale(headline)) is not None:
        layout.finding(t("found-stale", **found))
    summary = render.built_once(("stale-summary",), lambda: stale_cache.summary(record["runs"]))
    stale_ns = stale_cache.histories(record)
    stale_n = params.select_slider(t("label-stale-n"), "stale_n", stale_ns, stale_ns[-1])
    figure(
        "cache-stale-accuracy", (stale_n,), lambda: figs.stale_accuracy(summary, stale_n), t("stale-accuracy-notice")
    )
    figure("cache-stale-kl", (), lambda: figs.stale_kl(summary), t("stale-kl-notice"))
    say("stale-intro")
    if (findings_text := view.stale_findings(headline)) is not None:
        with layout.for_reviewer():
            say("stale-findings", **findings_text)
    with st.expander(t("stale-data")):
        st.dataframe(view.shown_table(summary), hide_index=True)


def _scaling_live(partial: dict):
    """The quick run's gaps so far, redrawn at every poll while it trains."""
    return scaling_figs.gap_vs_compute(scaling.points(partial), partial["config"], height=420)


def _scaling_watch(shipped_record: dict | None) -> None:
    """Train the quick preset here and watch its gaps appear, pair by pair."""
    quick = scaling.PRESETS["quick"]
    numbers = view.scaling_watch(quick, shipped_record)
    say("scaling-watch", **numbers)
    cut = jobs.was_cut(numbers["key"])
    run = (
        jobs.run_in_background(
            numbers["key"],
            lambda progress: scaling.sweep(quick, progress=progress.part(reserve_s=2.0)),
            label=t("scaling-run-label"),
            time_limit_s=SCALING_TIME_LIMIT_S,
            live=_scaling_live,
            button=t("scaling-button", models=numbers["models"], seconds=numbers["seconds"]),
        )
        or cut
    )
    if run is not None and run["stopped"] != "steps":
        st.warning(t("scaling-cut", limit=SCALING_TIME_LIMIT_S, done=len(run["runs"]), models=numbers["models"]))
    if run is not None:
        render.figure(
            _scaling_live(run),
            key="cache-bidirectional-quick",
            notice=t("scaling-quick-notice", seconds=run["seconds"], seeds=len(quick.seeds)),
        )


def _scaling_shipped(shipped: dict) -> None:
    """The shipped slide-64 sweep: what it found in one sentence, the gap bidirectional input buys against
    compute, the reading and tests for the reviewer, and its serving cost."""
    data = render.built_once(("scaling",), lambda: scaling.analyse(shipped))
    cfg = data["config"]
    if (found := findings.scaling(data["points"])) is not None:
        layout.finding(t("found-scaling", **found))
    figure(
        "cache-bidirectional-gap",
        (),
        lambda: scaling_figs.gap_vs_compute(data["points"], cfg),
        t("scaling-gap-notice"),
        slides="64",
    )
    say("scaling-intro", **view.scaling_sizes(data))
    with layout.for_reviewer():
        for paragraph in view.scaling_paragraphs(data):
            st.markdown(paragraph)
    figure(
        "cache-bidirectional-serving",
        (),
        lambda: scaling_figs.serving_cost(data["serving"], cfg["widths"][-1], cfg["n_layers"]),
        t("scaling-serving-notice"),
        slides="64-66",
    )
    with st.expander(t("scaling-data")):
        st.dataframe(view.shown_table(data["points"]), hide_index=True)
    say("scaling-limits", **view.scaling_sizes(data))


def bidirectional_at_scale() -> None:
    """Slide 64, measured: the shipped sweep when there is one, and the quick run a student can train here."""
    shipped = render.built_once(("scaling-shipped",), scaling.load_shipped)
    if shipped is None:
        st.info(t("no-scaling"))
    else:
        _scaling_shipped(shipped)
    _scaling_watch(shipped)
