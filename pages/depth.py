"""Depth and cross-attention (slides 59-63): final-layer-only vs layer-aligned reading, measured as depth grows."""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd
import streamlit as st

from explorer import environment, results
from explorer import shipped as shipped_results
from explorer.experiments import depth as dp
from explorer.figures import depth as figs
from explorer.formatting import p_text, plural
from explorer.stats import smallest_p
from explorer.tasks import FIRST_SYMBOL
from ui import params, render
from ui.frame import header, page_link
from ui.jobs import forget, last_result, run_in_background

TIME_LIMIT_S = 90  # an on-demand run may take this long on the shared server
DEPTHS = (2, 4, 8)
STEP_OPTIONS = (150, 300, 600, 1200, 2400)
WIDTHS = (16, 32, 64)
MAX_SEEDS = 5
RECIPE = dp.PRESETS["main"]
SHORT = {"final": "final-only", "aligned": "layer-aligned"}
STILL_IMPROVING = 0.05  # nats the held-out loss still fell over the last sixth of training: not converged


# ----------------------------------------------------------------------------------------------- cached calls

def _mtimes() -> tuple[float, ...]:
    """Modification times of the shipped files (0 when missing): the caches below reload when one changes."""
    return tuple(dp.shipped_path(p).stat().st_mtime if dp.shipped_path(p).is_file() else 0.0
                 for p in dp.SHIPPED_PRESETS)


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


def long_run_text() -> str:
    """One note on the shipped long run (depth 8, 4x the steps), if it is there."""
    run = shipped_by_preset().get("long")
    if run is None:
        return ""
    long = dp.PRESETS["long"]
    (depth,) = long.depths
    cells = analysis_of(long.steps, len(long.seeds), long.d_model, tuple(long.runs()), _mtimes())["cells"][depth]
    short = analysis_of(RECIPE.steps, len(RECIPE.seeds), RECIPE.d_model, tuple(RECIPE.runs()), _mtimes())
    before = short["cells"][depth]["final"]["accuracy"]["mean"]
    return (f"- **Trained longer**: at depth {depth} with {long.steps} steps instead of {RECIPE.steps}, final-only "
            f"reaches {cells['final']['accuracy']['mean']:.1%} held-out accuracy (from {before:.1%}) against "
            f"{cells['aligned']['accuracy']['mean']:.1%} for layer-aligned: here reading only the final layer slows "
            "learning down more than it caps it. Set the steps to "
            f"{long.steps} at depth {depth} to see those runs.\n")


def settings(steps: int, n_seeds: int, width: int, depths: tuple[int, ...] = DEPTHS) -> dp.DepthConfig:
    return replace(RECIPE, depths=depths, steps=steps, seeds=tuple(range(n_seeds)), d_model=width)


@st.cache_data(show_spinner=False, max_entries=64)
def analysis_of(steps: int, n_seeds: int, width: int, ready: tuple, mtimes: tuple[float, ...]) -> dict:
    """Analysis of the runs shipped or cached for these settings (`ready` and `mtimes` only key the cache)."""
    swept, _ = dp.available(settings(steps, n_seeds, width), shipped_runs())
    return dp.analyse(swept)


@st.cache_data(show_spinner=False, max_entries=8)
def wiring_figure(depth: int):
    return figs.wiring_schematic(depth)


@st.cache_data(show_spinner=False, max_entries=256)
def measured_figure(name: str, analysis_key: tuple, depth: int, _analysis: dict):
    """`figs.<name>(analysis, depth)`, built once per view: `analysis_key` (analysis_of's arguments) keys the cache."""
    return getattr(figs, name)(_analysis, depth)


@st.cache_data(show_spinner=False)
def step_rate(mtimes: tuple[float, ...]) -> tuple[float, float]:
    return dp.step_time_model(shipped())


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
            return f"{steps} steps with {seeds} seed{'s' if seeds > 1 else ''} fit."
    return "Pick fewer steps and seeds, or a shallower depth."


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

header("depth")
st.markdown(
    "In the standard encoder-decoder every decoder layer cross-attends to one thing: the encoder's **final** "
    "layer (slide 60). Deep networks tend to hold different kinds of information at different depths, fine "
    "detail low and more abstract features high (slide 61), so the first decoder layer gets only the most "
    "processed view of the input. The speaker found this harmless in the 24-layer models he worked with, but "
    "says he would be uneasy with networks ten or a thousand times deeper: a **concern, not an observation**. "
    "The alternative he sketches (slide 63, step 3 on the four-steps page) is **layer-aligned** reading: decoder "
    "layer l reads what encoder layer l reads. Both wirings have exactly the same parameters and the same "
    "forward FLOPs, so the concern can be put to a test here by training both, deeper and deeper.")

task = RECIPE.task
ex = examples()
st.markdown(
    f"**The task, majority-shifted copy.** The input is {task.length} symbols out of {task.n_symbols}: "
    f"a to {dp.symbol_text(task, FIRST_SYMBOL + task.n_symbols // 2 - 1)} are small, A to "
    f"{dp.symbol_text(task, FIRST_SYMBOL + task.n_symbols - 1)} are large. Output t repeats input symbol t "
    "(**low level**: one token's identity), primed when most input symbols are large (**high level**: one bit about "
    "the whole sequence). Every output needs both. For example:\n\n"
    + "\n".join(f"- `{e['input']}` → `{e['target']}` ({e['large']} of {task.length} large)" for e in ex))

with st.container(border=True):
    cols = st.columns([3, 2, 2, 2])
    depth = params.select_slider("Layers per stack (encoder and decoder each)", "depth", DEPTHS, 4, where=cols[0])
    steps = params.select_slider("Training steps per model", "steps", STEP_OPTIONS, RECIPE.steps, where=cols[1])
    n_seeds = params.slider("Seeds per wiring", "seeds", 1, MAX_SEEDS, len(RECIPE.seeds), where=cols[2])
    width = params.select_slider("Width d_model", "width", WIDTHS, RECIPE.d_model, where=cols[3],
                                 help=f"{RECIPE.n_heads} attention heads at every width.")
    st.caption(f"The shipped runs (depths 2, 4, 8 at {RECIPE.steps} steps, and depth 8 at "
               f"{dp.PRESETS['long'].steps}; up to {len(RECIPE.seeds)} seeds; width {RECIPE.d_model}) show at once. "
               "Other steps, seeds or widths offer a button that trains both "
               f"wirings at the chosen depth for real here, limited to {TIME_LIMIT_S} s, and caches them; depths "
               "already run at those settings join the depth chart.")

depth, steps, n_seeds, width = int(depth), int(steps), int(n_seeds), int(width)
render.figure(wiring_figure(depth), key="depth-wiring",
              notice="What to notice: on the left every decoder layer reads the same top level; on the right decoder "
                     "layer l reads encoder level l-1, the states encoder layer l takes in (slide 63). The right "
                     "wiring leaves the top encoder layer's output unread, so it uses less of its network, not more.")

if shipped() is None:
    st.warning(f"The shipped results ({dp.SHIPPED_PATH.name}) are missing or unreadable; run "
               "`python -m explorer depth --preset main` to produce them. Only on-demand runs work meanwhile.")

cfg = settings(steps, n_seeds, width)
swept, missing = dp.available(cfg, shipped_runs())  # one look at the cache per run; it removes what cannot be used
rejected = swept["rejected"]
if rejected:
    st.warning(f"{plural(len(rejected), 'cached result')} for these settings could not be used and "
               f"{'was' if len(rejected) == 1 else 'were'} removed ({rejected[0]}); those models count as not "
               "trained.")
here, seconds = seconds_to_train(cfg, depth, missing)
if here:
    if seconds > TIME_LIMIT_S:
        st.warning(f"Refused: training {len(here)} models at depth {depth} ({steps} steps each) would take about "
                   f"{seconds:.0f} s on this server; on-demand runs are limited to {TIME_LIMIT_S} s. "
                   f"{suggestion(cfg, depth)}")
    else:
        one_depth = replace(cfg, depths=(depth,))
        key = "depth-" + results.result_key("depth-run", one_depth.to_dict())
        reuse = shipped_runs()

        def work(progress) -> dict:
            return dp.sweep(one_depth, reuse, progress=progress.part(reserve_s=5.0))

        earlier = last_result(key)
        if earlier is not None and earlier["stopped"] != "steps":  # finished, yet models are missing: it was cut
            st.warning(f"Your last run at these settings reached the {TIME_LIMIT_S} s limit before all models "
                       f"finished; the finished ones are cached and shown, {plural(len(here), 'model')} still "
                       "to train.")
            forget(key)
        run_in_background(key, work, f"Training depth {depth}: {plural(len(here), 'model')}, {steps} steps each",
                          time_limit_s=TIME_LIMIT_S,
                          button=f"Train {plural(len(here), 'model')} (about {seconds:.0f} s)")

ready_keys = tuple((r["depth"], r["wiring"], r["seed"]) for r in swept["runs"])
analysis_key = (steps, n_seeds, width, ready_keys, _mtimes())
analysis = None
if ready_keys:
    with render.section("The analysis of the runs at these settings"):
        analysis = analysis_of(*analysis_key)
if analysis is None or not analysis["depths"]:
    if shipped() is None:
        st.stop()
    st.caption(f"Meanwhile: the shipped run ({RECIPE.steps} steps, {len(RECIPE.seeds)} seeds, width {RECIPE.d_model}).")
    analysis_key = (RECIPE.steps, len(RECIPE.seeds), RECIPE.d_model, tuple(RECIPE.runs()), _mtimes())
    analysis = analysis_of(*analysis_key)
else:
    untrained = [d for d in DEPTHS if d not in analysis["depths"]]
    if untrained:
        st.caption(f"At these settings depth {' and '.join(map(str, untrained))} "
                   f"{'has' if len(untrained) == 1 else 'have'} not been trained yet: move the depth slider there to "
                   "train it (if it fits the time limit).")
    if analysis["seeds"] != list(cfg.seeds):
        st.caption(f"Showing the seeds measured at these settings ({', '.join(map(str, analysis['seeds']))}); the "
                   "others have not been trained.")

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
                help="Two-sided exact sign-flip test of the per-seed loss differences (a seed gives both wirings "
                     f"the same weights and batches). With {test['loss']['pairs']} seeds it cannot go below "
                     f"{test['loss']['smallest_p']:.3g}.")
    loss = {w: dict(zip(c["seeds"], c["loss"]["per_seed"])) for w, c in cells.items()}
    paired = sorted(set(loss["final"]) & set(loss["aligned"]))
    wins = sum(loss["aligned"][s] < loss["final"][s] for s in paired)
    st.markdown(
        f"At depth {depth}, layer-aligned reading has the lower held-out loss in **{wins} of {len(paired)} "
        f"seed{'s' if len(paired) != 1 else ''}** (a seed gives both wirings the same initial weights and the same "
        "batches). "
        + (f"With {len(final['seeds'])} and {len(aligned['seeds'])} seeds the test finds a true difference of "
           f"{test['loss']['mde']:.3f} nats 80% of the time at the 5% level; smaller ones can go unseen."
           if math.isfinite(test["loss"]["mde"]) else "With one seed per wiring there is no test; add seeds."))
    worse = min(cells, key=lambda w: cells[w]["accuracy"]["mean"])
    anatomy = cells[worse]["anatomy"]
    st.markdown(
        f"Which granularity fails? The {SHORT[worse]} models put the first output in the right symbol set (the "
        f"whole-sequence bit) {anatomy['set_first']['mean']:.0%} of the time, and pick the right symbol (the token's "
        f"identity) {anatomy['symbol_first']['mean']:.0%} of the time at the first output and "
        f"{anatomy['symbol_rest']['mean']:.0%} at the later ones (details under *Which kind of error* below).")
elif analysis["depths"]:
    st.info(f"Depth {depth} has not been measured at these settings yet; the chart below shows the depths that "
            "have.")

render.figure(measured_figure("outcome_vs_depth", analysis_key, depth, analysis), key="depth-outcome",
              notice="What to notice: how the gap between the two wirings changes as depth grows, with the same "
                     "parameters, FLOPs per step and steps (slides 60-61). Here, layer-aligned minus final-only "
                     f"accuracy: {gaps(analysis)}. Dots are single seeds; bars are ± one standard deviation; p is an "
                     "exact sign-flip test on the held-out loss, seeds paired (with "
                     f"{plural(len(analysis['seeds']), 'seed')} it cannot go below "
                     f"{smallest_p(len(analysis['seeds'])):.3g}, however large the gap).")

rows = dp.table(analysis)
if rows:
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
    st.caption(("Both wirings have the same parameter count (counted on the models) and the same training FLOPs "
                "per step (closed form: " + ", ".join(f"{v:.3g} at depth {d}" for d, v in flops.items()) + "). "
                if same else "") + "Mean ± sd over seeds. The p-values are exact sign-flip tests over "
               f"{len(analysis['seeds'])} seeds paired by seed: with n seeds none can go below 2/2^n "
               f"({smallest_p(len(analysis['seeds'])):.3g} here), so a large gap that every seed shows still "
               "needs more seeds to be significant; a Welch t-test would print smaller p-values that three "
               "seeds cannot check.")

if cells:
    drops = {w: c["late_drop"]["mean"] for w, c in cells.items()}
    render.figure(measured_figure("training_curves", analysis_key, depth, analysis), key="depth-curves",
                  notice="What to notice: whether the lagging wiring is still improving at the last step. Here the "
                         "held-out loss fell over the last sixth of training by "
                         + " and ".join(f"{v:.3f} nats ({SHORT[w]})" for w, v in drops.items())
                         + ". A model still improving has learned more slowly; it has not shown a limit.")
    still = [w for w, v in drops.items() if v > STILL_IMPROVING]
    if still:
        ready_longer = [s for s in STEP_OPTIONS if s > steps and not seconds_to_train(replace(cfg, steps=s), depth)[0]]
        hint = (f"Set the training steps to {ready_longer[-1]}: that run is already measured and shows at once."
                if ready_longer else "More steps would show whether a gap closes (a real run, if it fits the time "
                                     "limit).")
        st.info(f"**Caveat.** At depth {depth} the held-out loss of the {' and '.join(SHORT[w] for w in still)} "
                "models still fell by "
                + " and ".join(f"{drops[w]:.2f}" for w in still) + " nats over the last sixth of training, so this "
                f"run measures how fast the wirings learn, not how much they can learn in the end. {hint}")

    st.subheader("Probes: what each encoder level holds")
    st.markdown(
        "Slide 61's picture says low layers hold fine detail and high layers abstract features. For the models "
        "trained above, a **linear probe** per encoder level reads off each input token's own symbol (low level) "
        "and its sequence's majority bit (high level); it is fitted on the states of one set of sequences and "
        "scored on others. The dotted line probes the same networks before training (a seed starts both wirings "
        "from the same weights): what random layers already mix in.")
    render.figure(measured_figure("probe_profile", analysis_key, depth, analysis), key="depth-probes",
                  notice="What to notice: whether the top level (all a final-only decoder reads) still holds the "
                         "token's own symbol, and from which level on the majority bit is readable. The bit needs "
                         "other positions, so level 0 cannot beat the grey line (one token alone).")
    lines = []
    for wiring, cell in cells.items():
        token = cell["probes"]["trained"]["token"].mean(0)
        bit = cell["probes"]["trained"]["majority"].mean(0)
        untrained = cell["probes"]["untrained"]["majority"].mean(0)
        best = int(bit.argmax())
        lines.append(f"- **{dp.WIRING_NAMES[wiring]}**: own symbol {token[0]:.0%} at the embeddings and "
                     f"{token[-1]:.0%} at the top level (lowest {token.min():.0%}); majority bit {bit[0]:.0%} at the "
                     f"embeddings, best {bit[best]:.0%} at level {best}, {bit[-1]:.0%} at the top "
                     f"({untrained[-1]:.0%} there before training).")
    st.markdown("\n".join(lines))

    with st.expander("Which kind of error does each wiring make?"):
        anatomy = pd.DataFrame([{"wiring": dp.WIRING_NAMES[w],
                                 "right symbol, first output": pm(c["anatomy"]["symbol_first"]),
                                 "right symbol, later outputs": pm(c["anatomy"]["symbol_rest"]),
                                 "right set (primed or not), first output": pm(c["anatomy"]["set_first"]),
                                 "right set, later outputs": pm(c["anatomy"]["set_rest"])} for w, c in cells.items()])
        st.dataframe(anatomy, hide_index=True)
        st.caption("On the held-out set at the last step, teacher-forced like training. An output can have the "
                   "right symbol in the wrong set or the reverse. Later outputs see the previous target token, "
                   "whose set gives the majority bit away, so only the first output must get the bit from the "
                   "encoder; the symbol at every position must come from the encoder.")

with st.expander("How this was measured, and what it does not show"):
    c = analysis["config"]
    used = dp.DepthConfig.from_dict(c)
    saving = dp.unread_layer_backward_flops(used, depth) / (used.flops_per_step(depth, "final") / used.batch_size)
    st.markdown(
        f"- **Models**: the project's one Transformer as an encoder-decoder, {c['d_model']} wide, {c['n_heads']} "
        f"heads, MLP 4x, pre-LayerNorm, the same number of layers in encoder and decoder. The only difference "
        "between the wirings is the `layer_aligned` flag. Adam, learning rate "
        f"{c['lr']}, {c['warmup']} warm-up steps, batch {c['batch_size']}, {c['steps']} steps, gradient "
        f"clipping at 1. Seeds {', '.join(map(str, c['seeds']))}: a seed fixes the initial weights, the batches "
        "and the held-out set, and both wirings of a seed share them.\n"
        f"- **Score**: teacher-forced token accuracy and cross-entropy on {c['eval_size']} held-out sequences per "
        "seed, at the last step. The statistical test is the exact two-sided sign-flip test of the per-seed "
        "differences, per depth (the seeds pair the wirings).\n"
        "- **Same parameters, same compute**: the flag only rewires which states cross-attention reads, so the "
        "parameter count is identical, and every layer runs in both wirings, so the forward FLOPs are too "
        "(counted with torch's FLOP counter in the tests). The training budget charges both 3x the forward. If "
        "anything the layer-aligned model gets less: its top encoder layer's attention and MLP feed no decoder "
        "layer, so they never learn, and the backward pass skips them "
        f"({saving:.0%} fewer training FLOPs at depth {depth}).\n"
        f"- **Probes**: a ridge-regression classifier (closed form, standardised states, penalty {dp.RIDGE:g} "
        f"per feature variance) per encoder level and target, fitted on {c['probe_train']} sequences and scored "
        f"on {c['probe_test']} others; the states are the residual stream between layers.\n"
        "- **Designed to need both granularities**: every output needs its token's own symbol, which the "
        "layer-aligned decoder's first layer finds unmixed in the embeddings. That is slide 61's point, but it "
        "also means this task favours the aligned wiring by construction; on a task that needs only the fully "
        "encoded input, the standard wiring may do as well.\n"
        "- **Not shown**: one synthetic task, tiny models and few steps. Slower learning at these depths is not "
        "evidence about 24-layer or 1000-layer language models, and the deep final-only models were often "
        "still improving when training stopped.\n"
        + long_run_text()
        + "".join(f"- **Shipped run**: `python -m explorer depth --preset {name}`, {run['wall_seconds']:.0f} s on "
                  f"a shared {run.get('cpus', '?')}-core server (load average {run['load_average'][0]:.1f} at the "
                  f"start: other work was running), {environment.describe(shipped_results.environment_of(run) or {})}, "
                  f"{run.get('created', '?')}.\n"
                  for name, run in shipped_by_preset().items()))

page_link("four-steps", "Four steps to decoder-only: layer-aligned reading is step 3")
