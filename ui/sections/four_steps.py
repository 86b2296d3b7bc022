"""The four-steps page's sections under its first screen: why each structure existed, the comparison at a step,
the numeric check, the ablation with its reruns and the shared-parameters test. Each runs only while its tab is
open."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from explorer import findings
from explorer import shipped as shipped_results
from explorer.experiments import four_steps as fs
from explorer.experiments import four_steps_view as view
from explorer.experiments import layer_aligned
from explorer.experiments import shared_params as sp
from explorer.figures import four_steps as figs
from explorer.figures import shared_params as sp_figs
from explorer.lecture_map import page as page_info
from explorer.model import TransformerConfig
from ui import layout, params, render
from ui.frame import page_link
from ui.jobs import run_in_background, was_cut
from ui.text import say, t

CHECK_TIME_LIMIT_S = 120.0
SP_SLIDES = "53-55"
SP_QUICK_KEY = "shared-params-quick"
SP_TIME_LIMIT_S = 240.0  # the quick preset: about 50 s of CPU; a busy classroom server gets room
WHY_WIDTHS = [1.2, 1.9, 1.9, 1.9, 1.9]


@st.cache_data(show_spinner=False)
def _shipped(path: str, mtime: float) -> dict | None:
    return shipped_results.load(Path(path))


def _shipped_file(path: Path) -> dict | None:
    """A shipped record, reloaded when its file changes; None when it is not there."""
    return _shipped(str(path), path.stat().st_mtime) if path.exists() else None


def _go_to(k: int) -> None:
    """A why row's button: show that step (the step slider reads its key)."""
    st.session_state["step"] = k


def comparison(
    step: int,
    base: TransformerConfig | None,
    counts: dict[str, int] | None,
    sizes: tuple[int, int, int],
    refused: str | None,
) -> None:
    """The table, wiring and parameters of `step` against decoder-only at these sizes (or why these sizes fail)."""
    say("intro")
    if refused:
        st.warning(refused)
        return
    table, wires, bars, extra = render.built_once(
        ("model-figures", step, *sizes),
        lambda: (
            figs.diff_table(fs.diff_table(base, step, counts), step, fs.step_title(step)),
            figs.wiring(fs.wiring(fs.step_config(base, step)), t("wiring-title", step=step)),
            figs.parameter_bars(counts, str(step), base.to_dict()),
            fs.extra_parameters_explained(base, step, counts),
        ),
    )
    render.figure(table, key="four-steps-table", notice=t("table-notice"))
    left, right = st.columns(2)
    with left:
        render.figure(wires, key="four-steps-wiring", notice=t("wiring-notice"))
    with right:
        render.figure(bars, key="four-steps-params", notice=t("params-notice", extra=extra))


def numeric_check(
    step: int, base: TransformerConfig | None, counts: dict[str, int] | None, refused: str | None
) -> None:
    """The logits of every step against decoder-only with copied weights: stored, or run here on a button press.
    What it found comes first, in one sentence, then its figure; how the check works and its numbers follow."""
    if refused:
        st.warning(refused)
        return
    check = view.stored_check(base, _shipped_file(fs.CHECK_PATH))
    if too_big := view.check_refusal(check, counts):
        st.info(too_big)
        return
    first = st.container()  # the finding and its figure, once there is a check to read them from
    st.subheader(t("check-heading"))
    say("check-intro")
    check = check or run_in_background(
        view.check_key(base),
        view.check_work(base),
        label=t("check-label"),
        time_limit_s=CHECK_TIME_LIMIT_S,
        button=t("check-button"),
    )
    if check is not None and check.get("timed_out"):
        st.warning(t("check-timed-out", limit=CHECK_TIME_LIMIT_S))
    if check is None or check.get("timed_out"):
        return
    numbers = view.check_numbers(check, step)
    logits, causes = render.built_once(
        ("check-figures", check, step), lambda: (figs.logit_check(check, step), figs.causes(check))
    )
    with first:
        layout.finding(t("found-check", **numbers["result"]))
        render.figure(logits, key="four-steps-check", notice=t("check-notice"))
    for col, (label, value, help_text) in zip(st.columns(3), numbers["tiles"]):
        col.metric(label, value, help=help_text)
    if numbers["sharing"]:
        say("check-sharing")
    say("check-result", **numbers["result"])
    say("causes-intro")
    render.figure(causes, key="four-steps-causes", notice=t("causes-notice"))


def show_ablation(record: dict, key: str, first=None, nested: bool = False, more=None) -> None:
    """One ablation record: what it found in a sentence (into `first` when given), its figures, then the function
    comparison, the paired tests and the tables for the reviewer (`nested`: already inside an expander; `more`:
    what else the reviewer's part shows)."""
    shown = render.built_once(
        ("ablation", record),
        lambda: view.analysis(record) | {"dots": figs.ablation(record), "curves": figs.ablation_curves(record)},
    )
    if stopped := view.stopped_note(record):
        st.warning(stopped)
    paired, functions = shown["paired"], shown["functions"]
    if (found := findings.ablation(paired, record["settings"]["steps"])) is not None:
        with first or st.container():
            layout.finding(t("found-ablation", **found))
    render.figure(shown["dots"], key=f"{key}-dots", notice=t("dots-notice"))
    render.figure(shown["curves"], key=f"{key}-curves", notice=t("curves-notice"))
    with layout.for_reviewer(nested):
        if functions["variants"]:
            say("functions", text=fs.function_text(functions, record["settings"]["steps"]))
            render.figure(
                render.built_once(("functions", record), lambda: figs.functions(record, functions)),
                key=f"{key}-functions",
                notice=t("functions-notice"),
            )
        say("verdict", text=fs.paired_text(paired))
        st.markdown(fs.path_text(paired))
        st.markdown(fs.confound_text(paired, shown["parameters"]))
        st.dataframe(view.pairs_table(paired), hide_index=True, height=240)
        st.caption(t("pairs-caption", smallest=paired["smallest_p"], pairs=len(paired["pairs"])))
        if same := view.same_function_note(record):
            st.markdown(same)
        st.dataframe(view.variants_table(record["summary"], shown["parameters"]), hide_index=True)
        st.caption(view.run_caption(record))
        if more:
            more()


def ablation(sizes: tuple[int, int, int]) -> None:
    """The shipped ablation at the chosen budget, how it squares with the depth page, and reruns on demand."""
    shipped = _shipped_file(fs.ABLATION_PATH)
    first = st.container()  # the finding goes above the budget control and the figures
    # the options are the presets, shown as budgets: the URL keeps the label (`ab_budget=250 steps`)
    preset = params.choice(
        t("label-budget"), "ab_budget", tuple(view.SHIPPED_BUDGETS.values()), "main", format_func=view.budget_label
    )
    record = shipped if preset == "main" else _shipped_file(fs.shipped_path(preset))
    # step 3 here against the depth page's layer-aligned results: why the two pages do not contradict
    found = render.built_once(("layer-aligned", layer_aligned.stamp()), layer_aligned.evidence)

    def more() -> None:
        say("budgets")
        if found is not None:
            say("reconcile", **layer_aligned.placeholders(found))

    if record is None:
        st.warning(t("no-shipped-ablation", path=fs.shipped_path(preset).relative_to(fs.ROOT), preset=preset))
    else:
        with render.section(t("shipped-ablation", budget=view.budget_label(preset))):
            show_ablation(record, view.ablation_key(preset), first, more=more)
    st.subheader(t("ablation-heading"))
    say("ablation-intro")
    with st.expander(t("rerun-expander")):
        rerun(shipped, sizes)


def rerun(shipped: dict | None, sizes: tuple[int, int, int]) -> None:
    """An ablation at the student's task, length, budget and seeds: stored, refused, or trained on a button."""
    st.caption(t("rerun-caption"))
    c1, c2, c3, c4 = st.columns(4)
    task = params.choice(t("label-task"), "ab_task", view.TASKS, "sort", where=c1, format_func=view.task_label)
    length = params.select_slider(t("label-length"), "ab_len", view.LENGTHS, 8, where=c2)
    budget = params.select_slider(t("label-steps"), "ab_steps", view.STEP_BUDGETS, 150, where=c3)
    n_seeds = params.slider(t("label-seeds"), "ab_seeds", 3, fs.MAX_SEEDS, 3, where=c4)
    try:
        settings = fs.AblationSettings(
            task=task,
            length=length,
            depth=sizes[0],
            width=sizes[1],
            heads=sizes[2],
            steps=budget,
            seeds=tuple(range(n_seeds)),
        )
    except ValueError as err:
        st.warning(t("rerun-refused", err=err))
        return
    step0 = render.built_once(
        ("step0", settings), lambda: fs.instantiated_parameters(fs.variant_config(settings.base, "0"))
    )
    plan = view.rerun_plan(settings, shipped, step0)
    if notice := view.rerun_notice(plan):
        st.info(notice)
    elif plan["kind"] == "stored":
        show_ablation(plan["record"], "four-steps-rerun", nested=True)
    elif record := run_in_background(
        plan["key"],
        view.ablation_work(settings),
        label=t("rerun-label"),
        time_limit_s=fs.ABLATION_TIME_LIMIT_S,
        button=t("rerun-button", runs=plan["runs"], seconds=plan["seconds"]),
    ):
        with render.section(t("rerun-section")):
            show_ablation(record, "four-steps-rerun", nested=True)


def why() -> None:
    """Each structure encoder-decoder adds: what it helped, what changed, the test and the shipped measurement."""
    shipped = _shipped_file(fs.ABLATION_PATH)
    st.subheader(t("why-heading"))
    say("why-intro")
    for col, heading in zip(st.columns(WHY_WIDTHS), view.why_header()):
        col.markdown(heading)
    for row in view.WHY:
        step = row["step"]
        st.divider()
        cols = st.columns(WHY_WIDTHS)
        for col, cell in zip(cols, view.why_cells(row, shipped)):
            col.markdown(cell)
        cols[4].button(t("go-to-step", step=step), key=f"why-{step}", on_click=_go_to, args=(step,))
        with cols[4]:
            page_link(row["related"], page_info(row["related"]).title)


def _sp_show(record: dict, key: str, shipped: bool = False) -> dict:
    """The figures of one shared-parameters record, led by what it found (the shipped one) and followed by its
    tests for the reviewer; its values for what follows."""
    shown = render.built_once(
        ("shared-params", record),
        lambda: {
            "values": sp.placeholders(record),
            "tests": view.shared_params_tests(record),
            "losses": sp_figs.losses(record),
            "curves": sp_figs.curves(record, "flops"),
        },
    )
    values = shown["values"]
    if shipped:
        layout.finding(t("found-shared", **values))
    render.figure(shown["losses"], key=f"{key}-losses", notice=t("sp-losses-notice"), slides=SP_SLIDES)
    render.figure(shown["curves"], key=f"{key}-curves", notice=t("sp-curves-notice", **values), slides=SP_SLIDES)
    with layout.for_reviewer():
        say("sp-finding", **values)
        st.dataframe(shown["tests"], hide_index=True)
        st.caption(t("sp-tests-caption", **values))
        if shipped:
            say("sp-reading", **values)
    return values


def shared_parameters() -> None:
    """Separate or shared parameters (slides 53-55): the shipped test, and its quick preset run here on demand."""
    shipped = _shipped_file(sp.shipped_path("main"))
    if shipped is None or not shipped.get("runs"):
        st.warning(t("sp-missing", path=sp.shipped_path("main").relative_to(sp.ROOT)))
    else:
        _sp_show(shipped, "shared-params", shipped=True)
    st.subheader(t("tab-shared"))
    say("sp-intro")
    say("sp-limits")
    st.markdown(t("sp-quick-heading"))
    say("sp-quick-intro")
    cut = was_cut(SP_QUICK_KEY)  # a run cut by its limit: its finished runs, and the button again
    quick = (
        run_in_background(
            SP_QUICK_KEY,
            lambda progress: sp.run(sp.PRESETS["quick"], progress),
            label=t("sp-quick-label"),
            time_limit_s=SP_TIME_LIMIT_S,
            live=sp_figs.curves,
            button=t("sp-quick-button"),
        )
        or cut
    )
    if quick is not None and quick["runs"]:
        if not quick["complete"]:
            st.warning(t("sp-quick-cut", runs=len(quick["runs"]), limit=SP_TIME_LIMIT_S))
        _sp_show(quick, "shared-params-quick")
