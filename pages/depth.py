"""Depth and cross-attention (slides 59-63): final-layer-only vs layer-aligned reading, measured as depth grows."""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd
import streamlit as st

from explorer import environment, results
from explorer import shipped as shipped_results
from explorer.experiments import depth as dp
from explorer.experiments import layer_aligned
from explorer.figures import depth as figs
from explorer.formatting import p_label, p_text, plural, seed_list
from explorer.stats import holm, smallest_p
from explorer.tasks import FIRST_SYMBOL
from ui import layout, params, render
from ui.frame import header, page_link
from ui.jobs import run_in_background, was_cut
from ui.text import say, t

TIME_LIMIT_S = 90  # an on-demand run may take this long on the shared server
DEPTHS = (2, 4, 8)
STEP_OPTIONS = (150, 300, 600, 1200, 2400)
WIDTHS = (16, 32, 64)
MAX_SEEDS = dp.MAX_SEEDS
RECIPE = dp.PRESETS["main"]
SHORT = {"final": "final-only", "aligned": "layer-aligned"}
FIRST_SCREEN_HEIGHT = 520  # px: the deepest schematic and its legend whole on a 1440x900 screen
STILL_IMPROVING = 0.05  # nats the held-out loss still fell over the last sixth of training: not converged


# ----------------------------------------------------------------------------------------------- cached calls

def _mtimes() -> tuple[float, ...]:
    """Modification times of the shipped files (0 when missing): the caches below reload when one changes."""
    return tuple(dp.shipped_path(p).stat().st_mtime if dp.shipped_path(p).is_file() else 0.0
                 for p in (*dp.SHIPPED_PRESETS, dp.LR_PRESET))


@st.cache_data(show_spinner=False)
def _shipped(mtimes: tuple[float, ...]) -> list[dict]:
    return dp.load_all_shipped()


def shipped_runs() -> list[dict]:
    """Every shipped preset's results, as written by `python -m explorer depth --preset main|long`."""
    return _shipped(_mtimes())


def shipped() -> dict | None:
    """The main preset's results: the default view, the notes and the speed estimate."""
    return next((s for s in shipped_runs() if s["config"] == RECIPE.to_dict()), None)


def shipped_by_preset() -> dict[str, dict]:
    """The shipped results by preset name (those whose file the CLI wrote with its run's details)."""
    return {name: run for name in dp.SHIPPED_PRESETS for run in shipped_runs()
            if run["config"] == dp.PRESETS[name].to_dict() and "wall_seconds" in run and "load_average" in run}


@st.cache_data(show_spinner=False)
def control_analysis(mtimes: tuple[float, ...]) -> dict | None:
    """The analysis of the shipped control sweep (sorting), or None when it is not shipped."""
    run = shipped_by_preset().get("control")
    return dp.analyse(run) if run is not None else None


@st.cache_data(show_spinner=False)
def lr_analysis(mtimes: tuple[float, ...]) -> dict | None:
    """The analysis of the shipped learning-rate check, or None when it is not shipped."""
    run = dp.load_shipped(dp.shipped_path(dp.LR_PRESET))
    return dp.analyse_lr(run) if run is not None and run.get("lrs") else None


def main_key() -> tuple:
    """`analysis_of`'s arguments for the shipped main sweep."""
    return RECIPE.steps, len(RECIPE.seeds), RECIPE.d_model, tuple(RECIPE.runs()), _mtimes()


@st.cache_data(show_spinner=False)
def gap_figure(mtimes: tuple[float, ...]):
    main = analysis_of(*main_key())
    return figs.gap_by_task({RECIPE.task_name: main, dp.PRESETS["control"].task_name: control_analysis(mtimes)})


@st.cache_data(show_spinner=False)
def lr_figure(mtimes: tuple[float, ...]):
    return figs.lr_check(lr_analysis(mtimes))


def long_run_text() -> str:
    """One note on the shipped long run (depth 8, 4x the steps), if it is there."""
    run = shipped_by_preset().get("long")
    if run is None:
        return ""
    long = dp.PRESETS["long"]
    (depth,) = long.depths
    cells = analysis_of(long.steps, len(long.seeds), long.d_model, tuple(long.runs()), _mtimes())["cells"][depth]
    short = analysis_of(*main_key())
    main = short["cells"][depth]["final"]
    before = sum(a for s, a in zip(main["seeds"], main["accuracy"]["per_seed"]) if s in long.seeds) / len(long.seeds)
    return t("long-run", depth=depth, long_steps=long.steps, steps=RECIPE.steps, seeds=seed_list(long.seeds),
             n_seeds=len(long.seeds), final=cells["final"]["accuracy"]["mean"], before=before,
             aligned=cells["aligned"]["accuracy"]["mean"])


def settings(steps: int, n_seeds: int, width: int, depths: tuple[int, ...] = DEPTHS) -> dp.DepthConfig:
    return replace(RECIPE, depths=depths, steps=steps, seeds=tuple(range(n_seeds)), d_model=width)


@st.cache_data(show_spinner=False, max_entries=64)
def analysis_of(steps: int, n_seeds: int, width: int, ready: tuple, mtimes: tuple[float, ...]) -> dict:
    """Analysis of the runs shipped or cached for these settings (`ready` and `mtimes` only key the cache)."""
    swept, _ = dp.available(settings(steps, n_seeds, width), shipped_runs())
    return dp.analyse(swept)


@st.cache_data(show_spinner=False, max_entries=8)
def wiring_figure(depth: int):
    return figs.wiring_schematic(depth, max_height=FIRST_SCREEN_HEIGHT)


@st.cache_data(show_spinner=False, max_entries=256)
def measured_figure(name: str, analysis_key: tuple, depth: int, _analysis: dict):
    """`figs.<name>(analysis, depth)`, built once per view: `analysis_key` (analysis_of's arguments) keys the cache."""
    return getattr(figs, name)(_analysis, depth)


@st.cache_data(show_spinner=False)
def step_rate(mtimes: tuple[float, ...]) -> tuple[float, float]:
    return dp.step_time_model(shipped_runs())


@st.cache_data(show_spinner=False)
def examples() -> list[dict]:
    return dp.examples(RECIPE.task, 3, seed=3)


def seconds_to_train(cfg: dp.DepthConfig, depth: int, missing: list[tuple] | None = None) -> tuple[list[tuple], float]:
    """The runs at `depth` that neither the shipped results nor the cache hold (`missing`, if the caller has
    already looked), and the seconds to train them."""
    missing = [m for m in (dp.available(cfg, shipped_runs())[1] if missing is None else missing) if m[0] == depth]
    return missing, dp.estimate_seconds(cfg, missing, step_rate(_mtimes())) if missing else 0.0


def suggestion(cfg: dp.DepthConfig, depth: int) -> str:
    """What would fit into the time limit at this depth: fewer steps first, then fewer seeds."""
    n = len(cfg.seeds)
    fewer_steps = [(s, n) for s in sorted(STEP_OPTIONS, reverse=True) if s < cfg.steps]
    fewer_seeds = [(cfg.steps, k) for k in range(n - 1, 0, -1)]
    for steps, seeds in fewer_steps + fewer_seeds:
        trial = replace(cfg, steps=steps, seeds=tuple(range(seeds)))
        if seconds_to_train(trial, depth)[1] <= TIME_LIMIT_S:
            return t("suggestion", steps=steps, seeds=plural(seeds, "seed"))
    return t("suggestion-none")


def gaps(analysis: dict) -> str:
    """Per depth: layer-aligned minus final-only accuracy in points, with the exact paired p on loss."""
    parts = []
    for d in analysis["depths"]:
        cells = analysis["cells"][d]
        if len(cells) == 2:
            gap = (cells["aligned"]["accuracy"]["mean"] - cells["final"]["accuracy"]["mean"]) * 100
            p = p_text(analysis["tests"][d]["loss"]["p"])
            parts.append(f"depth {d}: {gap:+.1f} points (p {'= ' if p[0].isdigit() else ''}{p})")
    return "; ".join(parts) or "no depth has both wirings yet"


def pm(spread: dict, digits: int = 3) -> str:
    sd = spread["sd"]
    return f"{spread['mean']:.{digits}f}" + (f" ± {sd:.{digits}f}" if math.isfinite(sd) else "")


# ----------------------------------------------------------------------------------------------- page

def train_here(cfg: dp.DepthConfig, swept: dict, missing: list[tuple], depth: int) -> None:
    """The models at `depth` that these settings still lack: refused when too slow, else a button that
    trains them in the background (beside the controls that asked for them)."""
    rejected = swept["rejected"]
    if rejected:
        st.warning(t("rejected", records=plural(len(rejected), "cached result"),
                     verb="was" if len(rejected) == 1 else "were", first=rejected[0]))
    here, seconds = seconds_to_train(cfg, depth, missing)
    if not here:
        return
    if seconds > TIME_LIMIT_S:
        st.warning(t("refused", models=len(here), depth=depth, steps=cfg.steps, seconds=seconds, limit=TIME_LIMIT_S,
                     suggestion=suggestion(cfg, depth)))
        return
    one_depth = replace(cfg, depths=(depth,))
    key = "depth-" + results.result_key("depth-run", one_depth.to_dict())
    reuse = shipped_runs()

    def work(progress) -> dict:
        return dp.sweep(one_depth, reuse, progress=progress.part(reserve_s=5.0))

    if was_cut(key):
        st.warning(t("run-cut", limit=TIME_LIMIT_S, models=plural(len(here), "model")))
    run_in_background(key, work, f"Training depth {depth}: {plural(len(here), 'model')}, {cfg.steps} steps each",
                      time_limit_s=TIME_LIMIT_S, button=f"Train {plural(len(here), 'model')} (about {seconds:.0f} s)")


def paired_wins(cells: dict) -> tuple[int, int]:
    """(seeds where layer-aligned has the lower held-out loss, seeds both wirings share)."""
    loss = {w: dict(zip(c["seeds"], c["loss"]["per_seed"])) for w, c in cells.items()}
    paired = sorted(set(loss["final"]) & set(loss["aligned"]))
    return sum(loss["aligned"][s] < loss["final"][s] for s in paired), len(paired)


def control_gap(depth: int) -> dict | None:
    """The control task's paired gaps at `depth` (`dp.gaps` row), or None when not shipped there."""
    control = control_analysis(_mtimes())
    return next((row for row in dp.gaps(control) if row["depth"] == depth), None) if control else None


def takeaway(analysis: dict, depth: int, meanwhile: bool) -> None:
    """Two sentences under the schematic that follow the controls: the main task, then the control."""
    cells = analysis["cells"].get(depth, {})
    if len(cells) != 2:
        say("takeaway-none", depth=depth)
        return
    final, aligned = cells["final"]["accuracy"]["mean"], cells["aligned"]["accuracy"]["mean"]
    wins, n = paired_wins(cells)
    text = t("takeaway", depth=t("depth-shipped", depth=depth) if meanwhile else depth, gap=(aligned - final) * 100,
             aligned=aligned, final=final, wins=wins, seeds=plural(n, "seed"),
             p=p_label(analysis["tests"][depth]["accuracy"]["p"]))
    control = control_gap(depth)
    if control is not None:
        text += " " + t("takeaway-control", gap=signed(control["accuracy_gap"] * 100),
                        p=p_label(control["p_accuracy"]), seeds=plural(control["seeds"], "seed"))
    st.markdown(text)


def results_section(analysis: dict, cfg: dp.DepthConfig, depth: int, meanwhile: bool) -> None:
    """The default section: the numbers at this depth, in words and tiles (no figure: a slider move redraws one)."""
    if meanwhile:
        st.caption(t("meanwhile", steps=RECIPE.steps, seeds=len(RECIPE.seeds), width=RECIPE.d_model))
    else:
        untrained = [d for d in DEPTHS if d not in analysis["depths"]]
        if untrained:
            st.caption(t("untrained", depths=" and ".join(map(str, untrained)),
                         verb="has" if len(untrained) == 1 else "have"))
        if analysis["seeds"] != list(cfg.seeds):
            st.caption(t("seeds-shown", seeds=", ".join(map(str, analysis["seeds"]))))
    cells = analysis["cells"].get(depth, {})
    test = analysis["tests"].get(depth)
    if len(cells) == 2:
        final, aligned = cells["final"], cells["aligned"]
        m = st.columns(4)
        m[0].metric(f"Accuracy, final only (depth {depth})", f"{final['accuracy']['mean']:.1%}")
        m[1].metric("Accuracy, layer-aligned", f"{aligned['accuracy']['mean']:.1%}",
                    delta=f"{(aligned['accuracy']['mean'] - final['accuracy']['mean']) * 100:+.1f} points")
        m[2].metric("Loss, final only − aligned", f"{final['loss']['mean'] - aligned['loss']['mean']:+.3f} nats")
        m[3].metric(f"Exact p on loss ({plural(test['loss']['pairs'], 'paired seed')})", p_text(test["loss"]["p"]),
                    help=t("help-p", pairs=test["loss"]["pairs"], smallest=test["loss"]["smallest_p"]))
        wins, n = paired_wins(cells)
        power = (t("detectable", final=len(final["seeds"]), mde=test["loss"]["mde"])
                 if math.isfinite(test["loss"]["mde"]) else t("no-test"))
        st.markdown(t("wins", depth=depth, wins=wins, seeds=plural(n, "seed")) + " " + power)
        worse = min(cells, key=lambda w: cells[w]["accuracy"]["mean"])
        anatomy = cells[worse]["anatomy"]
        say("anatomy-sentence", wiring=SHORT[worse], set_first=anatomy["set_first"]["mean"],
            symbol_first=anatomy["symbol_first"]["mean"], symbol_rest=anatomy["symbol_rest"]["mean"])
    elif analysis["depths"]:
        st.info(t("not-measured", depth=depth))


def depths_section(analysis: dict, analysis_key: tuple, depth: int) -> None:
    """Both wirings at every depth: the figure and its table."""
    render.figure(measured_figure("outcome_vs_depth", analysis_key, depth, analysis), key="depth-outcome",
                  notice=t("outcome-notice", gaps=gaps(analysis), seeds=plural(len(analysis["seeds"]), "seed"),
                           smallest=smallest_p(len(analysis["seeds"]))))
    rows = dp.table(analysis)
    if not rows:
        return
    frame = pd.DataFrame([{
        "depth": r["depth"], "wiring": SHORT[r["wiring"]], "seeds": r["seeds"],
        "held-out accuracy": pm(analysis["cells"][r["depth"]][r["wiring"]]["accuracy"]),
        "held-out loss": pm(analysis["cells"][r["depth"]][r["wiring"]]["loss"]),
        "exact p, loss": p_text(r["p_loss"]), "exact p, accuracy": p_text(r["p_accuracy"]),
        "loss drop, last 1/6": f"{r['late_drop_mean']:+.3f}", "parameters": f"{r['parameters']:,}"}
        for r in rows])
    st.dataframe(frame, hide_index=True)
    flops = {r["depth"]: r["flops_per_step"] for r in rows}
    same = all(len({(r["parameters"], r["flops_per_step"]) for r in rows if r["depth"] == d}) == 1
               for d in analysis["depths"])
    caption = t("table-caption", seeds=len(analysis["seeds"]), smallest=smallest_p(len(analysis["seeds"])))
    if same:
        caption = t("same-cost", flops=", ".join(f"{v:.3g} at depth {d}" for d, v in flops.items())) + " " + caption
    st.caption(caption)


def longest_ready(cfg: dp.DepthConfig, depth: int) -> tuple[int, int] | None:
    """(steps, seeds) of the longest run at `depth` that is shipped or cached (more seeds first), or None."""
    for steps in sorted((s for s in STEP_OPTIONS if s > cfg.steps), reverse=True):
        for n in range(len(cfg.seeds), 0, -1):
            if not seconds_to_train(replace(cfg, steps=steps, seeds=tuple(range(n))), depth)[0]:
                return steps, n
    return None


def curves_section(analysis: dict, analysis_key: tuple, cfg: dp.DepthConfig, cells: dict, depth: int) -> None:
    drops = {w: c["late_drop"]["mean"] for w, c in cells.items()}
    render.figure(measured_figure("training_curves", analysis_key, depth, analysis), key="depth-curves",
                  notice=t("curves-notice", drops=" and ".join(f"{v:.3f} nats ({SHORT[w]})" for w, v in drops.items())))
    still = [w for w, v in drops.items() if v > STILL_IMPROVING]
    if still:
        ready = longest_ready(cfg, depth)
        hint = t("hint-ready", steps=ready[0], seeds=plural(ready[1], "seed")) if ready else t("hint-more")
        st.info(t("caveat", depth=depth, wirings=" and ".join(SHORT[w] for w in still),
                  drops=" and ".join(f"{drops[w]:.2f}" for w in still), hint=hint))


def probes_section(analysis: dict, analysis_key: tuple, cells: dict, depth: int) -> None:
    say("probes-intro")
    render.figure(measured_figure("probe_profile", analysis_key, depth, analysis), key="depth-probes",
                  notice=t("probes-notice"))
    lines = []
    for wiring, cell in cells.items():
        token = cell["probes"]["trained"]["token"].mean(0)
        bit = cell["probes"]["trained"]["majority"].mean(0)
        untrained = cell["probes"]["untrained"]["majority"].mean(0)
        best = int(bit.argmax())
        lines.append(t("probe-line", name=dp.WIRING_NAMES[wiring], token_first=token[0], token_top=token[-1],
                       token_min=token.min(), bit_first=bit[0], bit_best=bit[best], level=best, bit_top=bit[-1],
                       untrained=untrained[-1]))
    st.markdown("\n".join(lines))


def errors_section(cells: dict) -> None:
    anatomy = pd.DataFrame([{"wiring": dp.WIRING_NAMES[w],
                             "right symbol, first output": pm(c["anatomy"]["symbol_first"]),
                             "right symbol, later outputs": pm(c["anatomy"]["symbol_rest"]),
                             "right set (primed or not), first output": pm(c["anatomy"]["set_first"]),
                             "right set, later outputs": pm(c["anatomy"]["set_rest"])} for w, c in cells.items()])
    st.dataframe(anatomy, hide_index=True)
    st.caption(t("anatomy-caption"))


def gap_table(analyses: dict[str, dict]) -> pd.DataFrame:
    """Per task and depth: the paired gaps with their seed range, n and the exact p-values."""
    def span(row: dict, name: str, scale: float, digits: int) -> str:
        low, high = (signed(scale * v, digits) for v in row[f"{name}_range"])
        return f"{signed(scale * row[f'{name}_gap'], digits)} [{low}, {high}]"

    rows = [(task, r) for task, analysis in analyses.items() for r in dp.gaps(analysis)]
    corrected = holm([r["p_accuracy"] for _, r in rows])
    return pd.DataFrame([{"task": dp.TASK_NAMES[task], "depth": r["depth"], "seeds": r["seeds"],
                          "accuracy gap, points [seed range]": span(r, "accuracy", 100, 1),
                          "exact p, accuracy": p_text(r["p_accuracy"]), "Holm p, accuracy": p_text(adjusted),
                          "loss gap, nats [seed range]": span(r, "loss", 1, 3), "exact p, loss": p_text(r["p_loss"])}
                         for (task, r), adjusted in zip(rows, corrected)])


def signed(x: float, digits: int = 1) -> str:
    """`+1.5`, and `+0.0` rather than `-0.0` for a gap that rounds to zero."""
    return f"{round(x, digits) + 0.0:+.{digits}f}"


def gap_list(analysis: dict) -> str:
    """'depth 2: +25.0 points, p = 0.008; ...': the mean paired accuracy gap per depth with its exact p."""
    return "; ".join(t("gap-item", depth=r["depth"], gap=signed(r["accuracy_gap"] * 100), p=p_label(r["p_accuracy"]))
                     for r in dp.gaps(analysis))


def control_section() -> None:
    """The main task against the control task: the paired gap per depth for both, in a figure and a table."""
    control = control_analysis(_mtimes())
    if control is None:
        st.info(t("control-missing"))
        return
    main = analysis_of(*main_key())
    say("control-intro", length=RECIPE.length, depths=" and ".join(map(str, control["depths"])))
    render.figure(gap_figure(_mtimes()), key="depth-control", notice=t("control-notice", control=gap_list(control)))
    frame = gap_table({RECIPE.task_name: main, dp.PRESETS["control"].task_name: control})
    st.dataframe(frame, hide_index=True)
    seeds = len(control["seeds"])
    st.caption(t("control-caption", seeds=seeds, smallest=smallest_p(seeds), tests=len(frame)))
    widest = max(abs(v) for r in dp.gaps(control) for v in r["accuracy_range"]) * 100
    say("control-verdict", seeds=len(main["seeds"]), main=gap_list(main), control=gap_list(control), widest=widest)
    found = _layer_aligned(layer_aligned.stamp())
    if found is not None:  # the four-steps page's step 3, measured on sorting: why the two pages agree
        say("reconcile", **layer_aligned.placeholders(found))


@st.cache_data(show_spinner=False, max_entries=4)
def _layer_aligned(stamp: tuple) -> dict | None:
    return layer_aligned.evidence()


def lr_section() -> None:
    """Each wiring at its own best learning rate at the deepest depth, and the paired test there."""
    lr = lr_analysis(_mtimes())
    if lr is None:
        st.info(t("lr-missing"))
        return
    say("lr-intro", depth=lr["depth"], lrs=", ".join(f"{v:g}" for v in lr["lrs"]), seeds=len(lr["seeds"]),
        main=RECIPE.lr)
    render.figure(lr_figure(_mtimes()), key="depth-lr", notice=t("lr-notice"))
    best, test = lr["best"], lr["tests"]["accuracy"]
    final, aligned = lr["cells"]["final"][best["final"]], lr["cells"]["aligned"][best["aligned"]]
    edge = [SHORT[w] for w, at_edge in lr["at_edge"].items() if at_edge]
    say("lr-verdict", final_lr=f"{best['final']:g}", aligned_lr=f"{best['aligned']:g}",
        final=final["accuracy"]["mean"], aligned=aligned["accuracy"]["mean"], gap=test["mean_diff"] * 100,
        low=min(test["diffs"]) * 100, high=max(test["diffs"]) * 100, seeds=plural(test["pairs"], "seed"),
        p=p_label(test["p"]), smallest=test["smallest_p"])
    if edge:
        st.caption(t("lr-edge", wirings=" and ".join(edge)))
    other = {w: lr for w, lr in lr["most_accurate"].items() if lr != best[w]}
    if other:
        accuracy = {w: lr["cells"][w][rate]["accuracy"]["mean"] for w, rate in {**best, **other}.items()}
        rates = ", ".join(t("rate-item", wiring=SHORT[w], rate=f"{rate:g}", accuracy=accuracy[w])
                          for w, rate in other.items())
        say("lr-by-accuracy", rates=rates, gap=(accuracy["aligned"] - accuracy["final"]) * 100)


def task_section() -> None:
    say("intro")
    task = RECIPE.task
    say("task", length=task.length, symbols=task.n_symbols,
        last_small=dp.symbol_text(task, FIRST_SYMBOL + task.n_symbols // 2 - 1),
        last_large=dp.symbol_text(task, FIRST_SYMBOL + task.n_symbols - 1))
    st.markdown("\n".join(t("example", input=e["input"], target=e["target"], large=e["large"], length=task.length)
                          for e in examples()))


def how_section(analysis: dict, depth: int) -> None:
    c = analysis["config"]
    used = dp.DepthConfig.from_dict(c)
    saving = dp.unread_layer_backward_flops(used, depth) / (used.flops_per_step(depth, "final") / used.batch_size)
    parts = [t("how-measured", d_model=c["d_model"], heads=c["n_heads"], lr=c["lr"], warmup=c["warmup"],
               batch=c["batch_size"], steps=c["steps"], seeds=", ".join(map(str, c["seeds"])),
               eval_size=c["eval_size"], saving=saving, depth=depth, ridge=f"{dp.RIDGE:g}",
               probe_train=c["probe_train"], probe_test=c["probe_test"]), long_run_text()]
    parts += [t("shipped-run", name=name, wall=run["wall_seconds"], cpus=run.get("cpus", "?"),
                load=run["load_average"][0], created=run.get("created", "?"),
                environment=environment.describe(shipped_results.environment_of(run) or {}))
              for name, run in shipped_by_preset().items()]
    st.markdown("\n".join(p for p in parts if p))


# ----------------------------------------------------------------------------------------------- page

header("depth")
say("lead")
if shipped() is None:
    st.warning(t("missing-shipped", name=dp.SHIPPED_PATH.name))
figure_col, controls_col = layout.stage()
with controls_col:
    depth = params.select_slider("Layers per stack (encoder and decoder each)", "depth", DEPTHS, 4)
    steps = params.select_slider("Training steps per model", "steps", STEP_OPTIONS, RECIPE.steps)
    n_seeds = params.slider("Seeds per wiring", "seeds", 1, MAX_SEEDS, len(RECIPE.seeds))
    with st.expander("More settings: width, shipped runs"):
        width = params.select_slider("Width d_model", "width", WIDTHS, RECIPE.d_model,
                                     help=t("help-width", heads=RECIPE.n_heads))
        st.caption(t("settings-caption", steps=RECIPE.steps, long_steps=dp.PRESETS["long"].steps,
                     seeds=len(RECIPE.seeds), long_seeds=plural(len(dp.PRESETS["long"].seeds), "seed"),
                     width=RECIPE.d_model, limit=TIME_LIMIT_S))
    depth, steps, n_seeds, width = int(depth), int(steps), int(n_seeds), int(width)
    cfg = settings(steps, n_seeds, width)
    swept, missing = dp.available(cfg, shipped_runs())  # one look at the cache per run; it removes what cannot be used
    train_here(cfg, swept, missing, depth)
    ready_keys = tuple((r["depth"], r["wiring"], r["seed"]) for r in swept["runs"])
    analysis_key = (steps, n_seeds, width, ready_keys, _mtimes())
    analysis = None
    if ready_keys:
        with render.section("The analysis of the runs at these settings"):
            analysis = analysis_of(*analysis_key)

meanwhile = analysis is None or not analysis["depths"]
if meanwhile:
    analysis_key = main_key()
    analysis = analysis_of(*analysis_key) if shipped() is not None else None
cells = analysis["cells"].get(depth, {}) if analysis is not None else {}

with figure_col:
    render.figure(wiring_figure(depth), key="depth-wiring", notice=t("wiring-notice"))
    if analysis is not None:
        takeaway(analysis, depth, meanwhile)
if analysis is None:
    st.stop()

(results_tab, depths_tab, control_tab, lr_tab, curves_tab, probes_tab, errors_tab, task_tab,
 how_tab) = layout.sections(["Results at these settings", "Across depths", "Control task", "Learning rate",
                             "Training curves", "Probes", "Which kind of error", "The question and the task",
                             "How it was measured"])
if results_tab:
    with results_tab:
        results_section(analysis, cfg, depth, meanwhile)
if depths_tab:
    with depths_tab:
        depths_section(analysis, analysis_key, depth)
if control_tab:
    with control_tab:
        control_section()
if lr_tab:
    with lr_tab:
        lr_section()
if curves_tab:
    with curves_tab:
        if cells:
            curves_section(analysis, analysis_key, cfg, cells, depth)
        else:
            st.info(t("no-cells", depth=depth))
if probes_tab:
    with probes_tab:
        if cells:
            probes_section(analysis, analysis_key, cells, depth)
        else:
            st.info(t("no-cells", depth=depth))
if errors_tab:
    with errors_tab:
        if cells:
            errors_section(cells)
        else:
            st.info(t("no-cells", depth=depth))
if task_tab:
    with task_tab:
        task_section()
if how_tab:
    with how_tab:
        how_section(analysis, depth)

page_link("four-steps", "Four steps to decoder-only: layer-aligned reading is step 3")
