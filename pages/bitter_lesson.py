"""The Bitter Lesson (slides 8-9): hand-built features against the general Transformer, over data and compute."""

from __future__ import annotations

import streamlit as st

from explorer import environment, i18n, results
from explorer import shipped as shipped_results
from explorer.experiments import bitter_lesson as bl
from explorer.experiments import bitter_lesson_view as view
from explorer.figures import bitter_lesson as figs
from explorer.jobs import QUEUE
from ui import layout, params, render
from ui.frame import header, page_link
from ui.jobs import run_in_background, was_cut
from ui.sections import ladder
from ui.text import say, t

TIME_LIMIT_S = 90  # an on-demand run may take this long on the shared server
QUICK = bl.PRESETS["quick"]
QUICK_SECONDS = 25  # the quick preset measured on 2 quiet cores, rounded up
FIRST_SCREEN_HEIGHT = 500  # px: the curves and the takeaway under them on a 1440x900 screen
FIRST_SCREEN_BADGE = 64  # badge characters per line: the curves get three quarters of the width


@st.cache_data(show_spinner=False)
def shipped(mtime: float) -> dict | None:
    """The main preset's records, as written by `python -m explorer bitter-lesson --preset main`."""
    return shipped_results.load(bl.shipped_path())


def shipped_run() -> dict | None:
    path = bl.shipped_path()
    return shipped(path.stat().st_mtime if path.is_file() else 0.0)


def result_key(result: dict) -> str:
    """What names a result in the caches below (shared by every session): its date, or for an on-demand run,
    which has none, its losses (a run cut by the time limit differs from a whole one)."""
    return result.get("created") or repr([r["loss"] for r in result["runs"]])


@st.cache_data(show_spinner=False, max_entries=16)
def analysis_of(key: str, _result: dict) -> dict:
    return bl.analyse(_result)


@st.cache_data(show_spinner=False, max_entries=64)
def curves_figure(key: str, case: str, axis: str, _analysis: dict, _config: dict, first_screen: bool, lang: str):
    size = dict(height=FIRST_SCREEN_HEIGHT, badge_chars=FIRST_SCREEN_BADGE) if first_screen else {}
    return figs.learning_curves(_analysis, _config, axis, **size)


def live_run() -> tuple[dict | None, bool]:
    """(the quick preset's result, whether it is training now): it trains only when the student presses the
    button, and its curves grow on screen meanwhile."""
    key = "bitter-" + results.result_key("bitter-run", QUICK.to_dict())
    if was_cut(key):
        st.warning(t("run-cut", limit=TIME_LIMIT_S))
    done = run_in_background(
        key,
        lambda progress: bl.run(QUICK, progress.part(reserve_s=3.0)),
        t("run-label", case=view.case_name(QUICK.cases[0]), seeds=len(QUICK.seeds), steps=QUICK.steps),
        time_limit_s=TIME_LIMIT_S,
        button=t("run-button", seconds=QUICK_SECONDS),
        live=figs.live_curves,
    )
    job = QUEUE.get(key)
    return done, done is None and job is not None and not job.finished


def counts_section(result: dict, analysis: dict, axis: str) -> None:
    a = analysis.get("counts")
    if a is None:
        st.info(t("missing-shipped", name=bl.shipped_path().name, seconds=QUICK_SECONDS))
        return
    render.figure(
        curves_figure(result_key(result), "counts", axis, a, result["config"], False, i18n.current()),
        key="bitter-counts",
        notice=t("counts-notice"),
    )
    st.markdown(view.counts_verdict(a))


def data_section(result: dict, analysis: dict) -> None:
    st.dataframe(view.data_table(analysis["order"]), hide_index=True)
    st.caption(t("table-caption", seeds=len(analysis["order"]["seeds"])))
    say("sources", command="python -m explorer bitter-lesson --preset main", file="data/bitter_lesson/main.json")
    if "wall_seconds" in result:
        say(
            "shipped-run",
            wall=result["wall_seconds"],
            cpus=result.get("cpus", "?"),
            load=result["load_average"][0],
            created=result.get("created", "?"),
            environment=environment.describe(shipped_results.environment_of(result) or {}),
        )


header("bitter-lesson")
say("lead")
result = shipped_run()
if result is None:
    st.warning(t("missing-shipped", name=bl.shipped_path().name, seconds=QUICK_SECONDS))
figure_col, controls_col = layout.stage()
with controls_col:
    axis = view.FIGURE_AXIS[
        params.choice(
            t("axis-label"), "axis", list(view.AXES), "data", help=t("help-axis"), format_func=view.axis_label
        )
    ]
with figure_col:  # the button, then while it trains the growing curves, where the finished ones will stand
    mine, training = live_run()
    if training:
        st.caption(t("live-notice"))
shown = mine or result
shown_key = result_key(shown) if shown is not None else ""
analysis = analysis_of(shown_key, shown) if shown is not None else {}
if training or "order" not in analysis:
    st.stop()
with figure_col:
    render.figure(
        curves_figure(shown_key, "order", axis, analysis["order"], shown["config"], True, i18n.current()),
        key="bitter-curves",
        notice=t("curves-notice", ratio=view.flops_ratio(shown["config"])),
    )
with controls_col:
    st.markdown(view.takeaway(analysis["order"]))
    if mine is not None:
        st.caption(t("your-run", seeds=len(QUICK.seeds), steps=QUICK.steps, stopped=view.stop_reason(mine["stopped"])))

method_tab, counts_tab, limits_tab, data_tab, ladder_tab = layout.sections([*view.section_labels(), t("tab-ladder")])
if method_tab:
    with method_tab:
        for paragraph in view.method_texts(shown["config"], analysis):
            st.markdown(paragraph)
        st.dataframe(view.tests_table(analysis), hide_index=True)
if counts_tab and result is not None:
    with counts_tab:
        counts_section(result, analysis_of(result_key(result), result), axis)
if limits_tab:
    with limits_tab:
        say("limits")
if data_tab:
    with data_tab:
        data_section(shown, analysis)

if ladder_tab:
    with ladder_tab:
        ladder.hold_at_scale("bitter-lesson")

page_link("inductive-bias", t("link-inductive-bias"))
