"""The depth page's sections under its first screen: the results at a depth, the gap across depths, the control
task, the learning-rate check, training curves, probes, errors, the task and how it was measured. Each runs
only while its tab is open; the cached loaders of the shipped runs and their analyses live here too."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import findings
from explorer.experiments import depth as dp
from explorer.experiments import depth_view as view
from explorer.experiments import layer_aligned
from explorer.figures import depth as figs
from ui import layout, render
from ui.text import say, t


@st.cache_data(show_spinner=False)
def shipped(stamp: tuple[float, ...]) -> dict:
    """The shipped runs and what the page reads from them (`view.load_shipped`), reloaded when a file changes."""
    return view.load_shipped()


@st.cache_data(show_spinner=False, max_entries=64)
def analysis_of(steps: int, n_seeds: int, width: int, ready: tuple, stamp: tuple[float, ...]) -> dict:
    """Analysis of the runs shipped or cached for these settings (`ready` and `stamp` only key the cache)."""
    return dp.analyse(dp.available(view.settings(steps, n_seeds, width), shipped(stamp)["runs"])[0])


def preset_analysis(name: str, stamp: tuple[float, ...]) -> dict:
    """The analysis of a shipped preset's sweep."""
    return analysis_of(*view.preset_key(name), stamp)


def _measured(name: str, analysis: dict, key: tuple, depth: int):
    """`figs.<name>(analysis, depth)`, built once per analysis (`key`) and depth."""
    return render.built_once((name, key, depth), lambda: getattr(figs, name)(analysis, depth))


def _cells(analysis: dict, depth: int) -> dict:
    """Both wirings' cells at `depth`; when there are none, says so in the open section."""
    cells = analysis["cells"].get(depth, {})
    if not cells:
        st.info(t("no-cells", depth=depth))
    return cells


def results(analysis: dict, here: dict | None, cfg: dp.DepthConfig, depth: int, meanwhile: bool) -> None:
    """What was found at the chosen depth in one sentence, its tiles and sentences, under what these settings have
    trained; the exact test for the reviewer."""
    if here is not None:
        layout.finding(t("found-results", **here))
    for note in view.coverage_notes(analysis, cfg, meanwhile):
        st.caption(note)
    if here is not None:
        *plain, test = view.tiles(here)  # the last tile is the exact test's p
        for col, (label, value, delta, help_text) in zip(st.columns(len(plain)), plain):
            col.metric(label, value, delta, help=help_text)
        st.markdown(view.wins_text(here))
        say("anatomy-sentence", **here)
        with layout.for_reviewer():
            st.metric(test[0], test[1], test[2], help=test[3])
    elif analysis["depths"]:
        st.info(t("not-measured", depth=depth))


def depths(analysis: dict, key: tuple, depth: int) -> None:
    """The gap between the wirings as depth grows: in one sentence, as a figure, and as a table of tests."""
    if (gaps := findings.depth_gaps(analysis, view.at_depth)) is not None:
        layout.finding(t("found-depths", **gaps))
    render.figure(
        _measured("outcome_vs_depth", analysis, key, depth), key="depth-outcome", notice=view.outcome_notice(analysis)
    )
    if rows := view.depth_table(analysis):
        with layout.for_reviewer():
            st.dataframe(pd.DataFrame(rows), hide_index=True)
            st.caption(view.table_caption(analysis))


def control(found: dict | None, stamp: tuple[float, ...]) -> None:
    """The shipped control task (sorting) beside the main task, and how step 3 on the four-steps page fits."""
    if found is None:
        st.info(t("control-missing"))
        return
    main = preset_analysis("main", stamp)
    numbers = view.control_numbers(main, found)
    said = {"main": view.gap_list(main), "control": view.gap_list(found)}
    if (both := findings.depth_control(main, found, view.at_depth)) is not None:
        layout.finding(t("found-control", **both))
    tasks = {view.RECIPE.task_name: main, dp.PRESETS["control"].task_name: found}
    render.figure(
        render.built_once(("depth-control", stamp), lambda: figs.gap_by_task(tasks)),
        key="depth-control",
        notice=t("control-notice", **said),
    )
    say("control-intro", **numbers)
    with layout.for_reviewer():
        table = view.gap_table(tasks)
        st.dataframe(pd.DataFrame(table), hide_index=True)
        st.caption(t("control-caption", **numbers, tests=len(table)))
        say("control-verdict", **{**numbers, **said, "seeds": numbers["main_seeds"]})
        if (evidence := render.built_once(layer_aligned.stamp(), layer_aligned.evidence)) is not None:
            say("reconcile", **layer_aligned.placeholders(evidence))  # four-steps' step 3


def learning_rate(lr: dict | None, stamp: tuple[float, ...]) -> None:
    """The learning-rate check: each wiring at its best rate, so the shared rate does not make the gap."""
    if lr is None:
        st.info(t("lr-missing"))
        return
    numbers = view.lr_numbers(lr)
    layout.finding(t("found-lr", **numbers))
    render.figure(
        render.built_once(("depth-lr", stamp), lambda: figs.lr_check(lr)), key="depth-lr", notice=t("lr-notice")
    )
    say("lr-intro", **{**numbers, "seeds": numbers["n_seeds"]})
    if numbers["rates"]:
        say("lr-by-accuracy", rates=numbers["rates"], gap=numbers["other_gap"])
    with layout.for_reviewer():
        say("lr-verdict", **numbers)
        if numbers["edge"]:
            st.caption(t("lr-edge", wirings=numbers["edge"]))


def curves(analysis: dict, key: tuple, depth: int, cfg: dp.DepthConfig, runs: list[dict]) -> None:
    """Training curves at `depth`, with a caveat (and a longer run to try) when a wiring was still improving."""
    if not (cells := _cells(analysis, depth)):
        return
    late = view.late_drops(cells)
    layout.finding(t("found-curves", depth=depth, said=late["said"]))
    render.figure(
        _measured("training_curves", analysis, key, depth),
        key="depth-curves",
        notice=t("curves-notice", drops=late["said"]),
    )
    if late["wirings"]:
        st.info(t("caveat", depth=depth, **late, hint=view.more_training_hint(cfg, depth, runs)))


def probes(analysis: dict, key: tuple, depth: int) -> None:
    """What linear probes read at each level of both wirings."""
    if not (cells := _cells(analysis, depth)):
        return
    say("probes-intro")
    render.figure(_measured("probe_profile", analysis, key, depth), key="depth-probes", notice=t("probes-notice"))
    st.markdown(view.probe_text(cells))


def errors(analysis: dict, depth: int) -> None:
    """Which kind of error each wiring makes at `depth`."""
    if not (cells := _cells(analysis, depth)):
        return
    if (here := view.at_depth(analysis, depth)) is not None:
        layout.finding(t("found-errors", **here))
    st.dataframe(pd.DataFrame(view.anatomy_table(cells)), hide_index=True)
    st.caption(t("anatomy-caption"))


def task() -> None:
    """The majority-shifted copy task, with examples."""
    say("intro")
    say("why-input")
    say("task", **view.task_numbers())
    st.markdown(view.examples_text())


def how(analysis: dict, depth: int, by_preset: dict[str, dict], stamp: tuple[float, ...]) -> None:
    """The recipe, the long run against the main one, and how each shipped run was made."""
    long_vs_main = (preset_analysis("long", stamp), preset_analysis("main", stamp)) if "long" in by_preset else None
    st.markdown(view.how_text(analysis, depth, by_preset, long_vs_main))
