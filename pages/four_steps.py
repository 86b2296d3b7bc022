"""Four steps to decoder-only (slides 40-55): real models at every step, their differences measured."""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from explorer import results
from explorer import shipped as shipped_results
from explorer.experiments import four_steps as fs
from explorer.experiments import layer_aligned
from explorer.figures import four_steps as figs
from explorer.lecture_map import page as page_info
from explorer.formatting import p_text
from explorer.steps import FINAL_STEP
from ui import layout, params, render
from ui.frame import header
from ui.jobs import run_in_background
from ui.text import say, t

MASK_SIZE = (6, 6)  # input and target tokens drawn in the mask figure
TASKS = ("sort", "reverse", "copy")
LENGTHS = (4, 6, 8, 10, 12)
STEP_BUDGETS = (50, 100, 150, 200, 250, 300, 400, 600)
SHIPPED_BUDGETS = {"250 steps": "main", "500 steps": "long"}  # label -> shipped preset
CHECK_TIME_LIMIT_S = 120.0

FIRST_SCREEN_HEIGHT = 460  # px: the masks and the start of the takeaway on a 1440x900 screen

STEP_SLIDES = {0: "slide 40", 1: "slides 41-42", 2: "slides 44-45", 3: "slides 47-48", 4: "slides 50-51",
               5: "beyond the slides"}

# slides 52-55 (and 59-66): the three extra structures of encoder-decoder; `step` removes it, `compare` is the
# pair of shipped variants whose difference measures removing it here; their texts are `why-<step>-*` sections
WHY = (  # separate parameters: against step 0 at the matched width, so the model does not also shrink
    {"structure": "Separate parameters for input and target", "step": 2, "compare": ("2", "0m"), "related": "lengths"},
    {"structure": "Decoder reads only the encoder's final layer", "step": 3, "compare": ("3", "2"), "related": "depth"},
    {"structure": "Bidirectional input", "step": 4, "compare": ("4", "3"), "related": "cache"},
)


@st.cache_data(show_spinner=False, max_entries=64)
def _counts(depth: int, width: int, heads: int) -> dict[str, int]:
    return fs.parameter_counts(fs.base_config(depth, width, heads))


@st.cache_data(show_spinner=False, max_entries=256)
def _model_figures(step: int, depth: int, width: int, heads: int):
    """Table, wiring and parameter bars for one view: all from configs and instantiated counts."""
    base, counts = fs.base_config(depth, width, heads), _counts(depth, width, heads)
    cfg = fs.step_config(base, step)
    return (figs.diff_table(fs.diff_table(base, step, counts), step, fs.STEP_TITLES[step]),
            figs.wiring(fs.wiring(cfg), f"Wiring at step {step}"),
            figs.parameter_bars(counts, str(step), base.to_dict()), fs.extra_parameters_explained(base, step, counts))


@st.cache_data(show_spinner=False, max_entries=16)
def _mask_figure(step: int):
    """Who reads whom at `step` and in decoder-only: from the step's flags, which no size changes."""
    base = fs.base_config(**fs.DEFAULT_SIZES)
    n, m = MASK_SIZE
    panels = [(f"step {step}", fs.combined_mask(fs.step_config(base, step), n, m)),
              ("decoder-only", fs.combined_mask(fs.decoder_only_config(base), n, m))]
    return figs.combined_masks(panels, height=FIRST_SCREEN_HEIGHT)


@st.cache_data(show_spinner=False, max_entries=64)
def _check_figures(check: dict, step: int):
    return figs.logit_check(check, step), figs.causes(check)


@st.cache_data(show_spinner=False, max_entries=16)
def _ablation_figures(record: dict):
    return figs.ablation(record), figs.ablation_curves(record)


@st.cache_data(show_spinner=False, max_entries=16)
def _analysis(record: dict) -> dict:
    """The paired tests, the function comparison and the parameter table of one ablation record."""
    settings = fs.AblationSettings.from_dict(record["settings"])
    functions = fs.function_summary(record)
    return {"paired": fs.paired_analysis(record["runs"]), "functions": functions,
            "functions_figure": figs.functions(record, functions) if functions["variants"] else None,
            "parameters": fs.parameter_table(settings.base, settings.variants)}


@st.cache_data(show_spinner=False, max_entries=64)
def _step0_parameters(settings: fs.AblationSettings) -> int:
    return fs.instantiated_parameters(fs.variant_config(settings.base, "0"))


@st.cache_data(show_spinner=False)
def _shipped(path: str, mtime: float) -> dict | None:
    return shipped_results.load(Path(path))


def _shipped_file(path) -> dict | None:
    return _shipped(str(path), path.stat().st_mtime) if path.exists() else None


def _roundtrip(d: dict) -> dict:
    return json.loads(json.dumps(d, default=str))


def _stored_check(base) -> dict | None:
    """The check at these sizes: shipped (default sizes) or from the result cache."""
    settings = fs.check_settings(base)
    shipped = _shipped_file(fs.CHECK_PATH)
    if shipped and shipped.get("settings") == _roundtrip(settings):
        return shipped
    return results.load(fs.CHECK_KIND, settings, fs.CHECK_SHAPE)


def _check_work(depth: int, width: int, heads: int):
    base = fs.base_config(depth, width, heads)
    settings = fs.check_settings(base)

    def work(progress) -> dict:
        out = fs.numeric_check(base, progress=progress)
        if out.get("stopped"):
            return {"timed_out": True}
        results.save(fs.CHECK_KIND, settings, out)
        return out
    return work


def _ablation_work(settings: fs.AblationSettings):
    def work(progress) -> dict:
        record = fs.run_ablation(settings, progress)
        if record["complete"]:
            results.save(fs.ABLATION_KIND, settings.to_dict(), record)
        else:
            record["stopped"] = f"the {fs.ABLATION_TIME_LIMIT_S:.0f} s limit"
        return record
    return work


def _relative(r: float) -> str:
    return f"{r:.1f}× the largest logit" if r >= 1 else f"{r:.0%} of the largest logit"


def _link(info, where) -> None:
    try:
        where.page_link(info.file, label=info.title)
    except StreamlitPageNotFoundError:  # the page run on its own (AppTest): no navigation to resolve it in
        where.markdown(f"[{info.title}](/{info.slug})")


def _go_to(k: int) -> None:
    st.session_state["step"] = k


# --- sections ---------------------------------------------------------------------------------------
def comparison(step: int, sizes: tuple[int, int, int]) -> None:
    table, wires, bars, extra = _model_figures(step, *sizes)
    render.figure(table, key="four-steps-table", notice=t("table-notice"))
    left, right = st.columns(2)
    with left:
        render.figure(wires, key="four-steps-wiring", notice=t("wiring-notice"))
    with right:
        render.figure(bars, key="four-steps-params", notice=t("params-notice", extra=extra))


def _check_or_run(base, counts: dict[str, int], sizes: tuple[int, int, int]) -> dict | None:
    """The stored check for these sizes; else a button that runs it in the background (within the limit)."""
    check = _stored_check(base)
    if check is not None:
        return check
    key = f"four-steps-check-{results.result_key(fs.CHECK_KIND, fs.check_settings(base))}"
    if counts["0"] > fs.LIVE_PARAM_LIMIT:
        st.info(t("check-too-big", limit=f"{fs.LIVE_PARAM_LIMIT:,}", n=f"{counts['0']:,}"))
        return None
    check = run_in_background(key, _check_work(*sizes), label="Numeric check", time_limit_s=CHECK_TIME_LIMIT_S,
                              button="Train decoder-only for these sizes and run the check")
    if check is not None and check.get("timed_out"):
        st.warning(t("check-timed-out", limit=CHECK_TIME_LIMIT_S))
        return None
    return check


def numeric_check(base, counts: dict[str, int], step: int, sizes: tuple[int, int, int]) -> None:
    st.subheader("Numeric check: decoder-only weights at every step")
    say("check-intro")
    check = _check_or_run(base, counts, sizes)
    if check is None:
        return
    row = check["steps"][step]
    c1, c2, c3 = st.columns(3)
    c1.metric(f"max |logit difference| at step {step}, float32", f"{row['max_abs_logit_diff']:.3g}")
    c2.metric("float64", f"{row['max_abs_logit_diff_f64']:.3g}")
    c3.metric("relative to the largest logit", f"{row['relative_diff']:.2g}",
              help=t("help-largest", largest=check["max_abs_logit"]))
    diffs = [r["max_abs_logit_diff_f64"] for r in check["steps"]]
    if step <= 2 and max(diffs[:3]) - min(diffs[:3]) <= 1e-9 * max(diffs[:3]):
        say("check-sharing")
    four, final = check["steps"][4], check["steps"][FINAL_STEP]
    say("check-result", four=four["max_abs_logit_diff"], relative=_relative(four["relative_diff"]),
        final=final["max_abs_logit_diff"], final64=final["max_abs_logit_diff_f64"])
    logits, causes = _check_figures(check, step)
    render.figure(logits, key="four-steps-check", notice=t("check-notice"))
    say("causes-intro")
    render.figure(causes, key="four-steps-causes", notice=t("causes-notice"))


def show_ablation(record: dict, key: str) -> None:
    summary, analysis = record["summary"], _analysis(record)
    if not record.get("complete", True):
        st.warning(t("ablation-stopped", why=record.get("stopped", "incomplete"), runs=len(record["runs"])))
    paired, steps = analysis["paired"], record["settings"]["steps"]
    if analysis["functions_figure"] is not None:
        say("functions", text=fs.function_text(analysis["functions"], steps))
        render.figure(analysis["functions_figure"], key=f"{key}-functions", notice=t("functions-notice"))
    say("verdict", text=fs.paired_text(paired))
    st.markdown(fs.path_text(paired))
    st.markdown(fs.confound_text(paired, analysis["parameters"]))
    st.dataframe([{"a": fs.VARIANT_SHORT[r["a"]], "b": fs.VARIANT_SHORT[r["b"]], "seeds": r["n"],
                   "held-out loss, a − b": round(r["mean_diff"], 4), "exact paired p": p_text(r["paired_p"]),
                   "Holm p": p_text(r["holm_p"])} for r in paired["pairs"]], hide_index=True, height=240)
    st.caption(t("pairs-caption", smallest=paired["smallest_p"], pairs=len(paired["pairs"])))
    exact = summary.get("final_vs_decoder")
    if exact and exact["seeds"]:
        say("same-function", gap=exact["max_same_seed_gap"])
    dots, curves = _ablation_figures(record)
    render.figure(dots, key=f"{key}-dots", notice=t("dots-notice"))
    render.figure(curves, key=f"{key}-curves", notice=t("curves-notice"))
    params = {r["variant"]: r for r in analysis["parameters"]}
    table = [{"variant": v["name"], "width": params[v["variant"]]["width"],
              "parameters": f"{params[v['variant']]['params']:,}",
              "vs decoder-only": f"{params[v['variant']]['vs_decoder']:+.1%}", "seeds": v["n"],
              "held-out loss (mean)": round(v["mean"], 4), "sd": round(v["sd"], 4), "min": round(v["min"], 4),
              "max": round(v["max"], 4)} for v in summary["variants"]]
    st.dataframe(table, hide_index=True)
    wall = record.get("wall_seconds")
    st.caption(f"Measured: {len(record['runs'])} runs"
               + (f" in {wall:.0f} s wall time, {record.get('threads', 1)} thread" if wall else "")
               + (f", {record['date']}" if record.get("date") else "") + ".")


def ablation(shipped: dict | None, sizes: tuple[int, int, int]) -> None:
    st.subheader("Ablation: how different are the trained models?")
    say("ablation-intro")
    budget = params.choice("Training budget", "ab_budget", tuple(SHIPPED_BUDGETS), "250 steps")
    preset = SHIPPED_BUDGETS[budget]
    record = shipped if preset == "main" else _shipped_file(fs.shipped_path(preset))
    say("budgets")
    if record is None:
        st.warning(t("no-shipped-ablation", path=fs.shipped_path(preset).relative_to(fs.ROOT), preset=preset))
    else:
        with render.section(f"The shipped ablation, {budget}"):
            show_ablation(record, "four-steps-ablation" if preset == "main" else f"four-steps-ablation-{preset}")
    reconcile()
    with st.expander("Rerun the ablation with other settings"):
        rerun(shipped, sizes)


@st.cache_data(show_spinner=False, max_entries=4)
def _layer_aligned(stamp: tuple) -> dict | None:
    return layer_aligned.evidence()


def reconcile() -> None:
    """Step 3 here against the depth page's layer-aligned results: why the two pages do not contradict."""
    found = _layer_aligned(layer_aligned.stamp())
    if found is not None:
        say("reconcile", **layer_aligned.placeholders(found))


def rerun(shipped: dict | None, sizes: tuple[int, int, int]) -> None:
    st.caption(t("rerun-caption"))
    c1, c2, c3, c4 = st.columns(4)
    task = params.choice("Task", "ab_task", TASKS, "sort", where=c1)
    length = params.select_slider("Tokens per input", "ab_len", LENGTHS, 8, where=c2)
    budget = params.select_slider("Steps per run", "ab_steps", STEP_BUDGETS, 150, where=c3)
    n_seeds = params.slider("Seeds", "ab_seeds", 3, fs.MAX_SEEDS, 3, where=c4)
    depth, width, heads = sizes
    try:
        settings = fs.AblationSettings(task=task, length=length, depth=depth, width=width, heads=heads,
                                       steps=budget, seeds=tuple(range(n_seeds)))
    except ValueError as err:
        st.warning(t("rerun-refused", err=err))
        return
    if shipped and shipped["settings"] == settings.to_dict():
        st.info(t("rerun-shipped"))
        return
    stored = results.load(fs.ABLATION_KIND, settings.to_dict(), fs.ABLATION_SHAPE)
    if stored is not None:
        show_ablation(stored, "four-steps-rerun")
        return
    biggest = _step0_parameters(settings)
    estimate = fs.estimate_seconds(settings, shipped)
    runs = len(settings.seeds) * len(settings.variants)
    if biggest > fs.LIVE_PARAM_LIMIT:
        st.info(t("rerun-too-big", limit=f"{fs.LIVE_PARAM_LIMIT:,}", n=f"{biggest:,}"))
        return
    if estimate > fs.ABLATION_TIME_LIMIT_S:
        st.info(t("rerun-too-long", runs=runs, steps=budget, seconds=estimate, limit=fs.ABLATION_TIME_LIMIT_S))
        return
    key = f"four-steps-ablation-{results.result_key(fs.ABLATION_KIND, settings.to_dict())}"
    record = run_in_background(key, _ablation_work(settings), label="Ablation rerun",
                               time_limit_s=fs.ABLATION_TIME_LIMIT_S,
                               button=f"Run {runs} trainings (about {estimate:.0f} s)")
    if record is not None:
        with render.section("This ablation rerun"):
            show_ablation(record, "four-steps-rerun")


def _measured(shipped: dict | None, pair: tuple[str, str]) -> str:
    if shipped is None:
        return "no shipped results"
    losses = {v: [r["eval_loss"] for r in shipped["runs"] if r["variant"] == v] for v in pair}
    if not all(losses.values()):
        return "not in the shipped results"
    rows = {(r["a"], r["b"]): r for r in fs.paired_analysis(shipped["runs"])["pairs"]}
    row = rows.get(pair) or {**rows[pair[::-1]], "mean_diff": -rows[pair[::-1]]["mean_diff"]}
    return t("measured", a=fs.VARIANT_SHORT[pair[0]], b=fs.VARIANT_SHORT[pair[1]], diff=row["mean_diff"],
             p=row["paired_p"], n=row["n"])


def why(shipped: dict | None) -> None:
    st.subheader("Why each structure existed (slides 52-55)")
    say("why-intro")
    widths = [1.2, 1.9, 1.9, 1.9, 1.9]
    for col, label in zip(st.columns(widths), ("Structure", "Where it helped", "What changed", "The test",
                                               "Removed at")):
        col.markdown(f"**{label}**")
    for row in WHY:
        step = row["step"]
        st.divider()
        cols = st.columns(widths)
        cols[0].markdown(f"**{row['structure']}**")
        cols[1].markdown(t(f"why-{step}-helped"))
        cols[2].markdown(t(f"why-{step}-changed"))
        cols[3].markdown(t("why-test", test=t(f"why-{step}-test"), measured=_measured(shipped, row["compare"])))
        cols[4].button(f"Go to step {step}", key=f"why-{step}", on_click=_go_to, args=(step,))
        related = page_info(row["related"])
        if related.exists:
            _link(related, cols[4])


# --- page -----------------------------------------------------------------------------------------
header("four-steps")
say("lead")
figure_col, controls_col = layout.stage()
with controls_col:
    # plain numbers: Streamlit binds a select_slider with format_func to the URL by its label, not its value
    step = params.slider("Step (0 = encoder-decoder, 4 = after the four steps, 5 = the final change)", "step", 0,
                         FINAL_STEP, 0, help=" · ".join(fs.STEP_TITLES))
    with st.expander("More settings: model sizes"):
        depth = params.slider("Depth (layers per stack)", "depth", *fs.DEPTH_RANGE, fs.DEFAULT_SIZES["depth"])
        width = params.select_slider("Width d_model", "width", fs.WIDTHS, fs.DEFAULT_SIZES["width"])
        heads = params.select_slider("Heads", "heads", fs.HEADS, fs.DEFAULT_SIZES["heads"])
    sizes = (depth, width, heads)
    try:
        base, counts, refused = fs.base_config(*sizes), _counts(*sizes), None
    except ValueError as err:
        base = counts = None
        refused = t("sizes-refused", err=err)
        st.warning(refused)

with figure_col:
    render.figure(_mask_figure(step), key="four-steps-mask", notice=t("mask-notice"))
    say("takeaway", title=fs.STEP_TITLES[step].capitalize(), slides=STEP_SLIDES[step], text=t(f"step-{step}"))

why_tab, table_tab, check_tab, ablation_tab = layout.sections(
    ["Why each structure existed", "The comparison at this step", "Numeric check", "Ablation and statistics"])
shipped_ablation = _shipped_file(fs.ABLATION_PATH) if ablation_tab or why_tab else None
if table_tab:
    with table_tab:
        say("intro")
        if base is not None:
            comparison(step, sizes)
        else:
            st.warning(refused)
if check_tab:
    with check_tab:
        if base is not None:
            numeric_check(base, counts, step, sizes)
        else:
            st.warning(refused)
if ablation_tab:
    with ablation_tab:
        ablation(shipped_ablation, sizes)
if why_tab:
    with why_tab:
        why(shipped_ablation)
