"""One reproduction check per shipped result: which slice to rerun, and which numbers the page concludes from.

Each `replay(record, quick, exact)` reruns through the experiment's own functions (what the CLI calls),
then returns the first bit-level difference and the comparisons the tolerance tier judges. Slices are
chosen to be seconds long and to end on a checkpoint the shipped run recorded, so the same numbers exist
on both sides. `exact` is True where the environment matches: the extra seeds that measure the spread of
a single-seed result are trained only when the tolerance tier needs them.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable

from explorer import shipped
from explorer.progress import SILENT
from explorer.reproduce import EXTRA_SEEDS, Check, Comparison, Replay, first_difference, seed_comparison
from explorer.stats import mean_sd, pooled_sd, rerun_tolerance

ROUNDING = 1e-4  # evaluating fixed weights on another CPU: relative rounding of a loss, declared in advance
QUICK_LAYER_STEPS = 600  # depth slices: layers x steps (300 steps of depth 2, 50 of depth 8: the eval grid)


def _row_at(history: list[dict], step: int) -> dict:
    return next(row for row in history if row["step"] == step)


def _timeless(history: list[dict]) -> list[dict]:
    """A training history without its wall-clock column, the one thing no rerun repeats."""
    return [{k: v for k, v in row.items() if k != "seconds"} for row in history]


def _grouped(
    shipped_runs: list[dict],
    reruns: list[dict],
    group: Callable[[dict], tuple],
    value: Callable[[dict], float],
    label: Callable[[tuple, int], str],
    resolution: float,
    pooled: bool = False,
) -> list[Comparison]:
    """Per group of runs (a cell of the page's table): rerun seed mean vs the same shipped seeds' mean. With
    `pooled`, the seed spread is pooled over every group (variants of one recipe), not each group's own."""
    spread = None
    if pooled:
        keys = dict.fromkeys(group(r) for r in shipped_runs)
        spread = pooled_sd([[value(r) for r in shipped_runs if group(r) == k] for k in keys])
    out = []
    for key in dict.fromkeys(group(r) for r in reruns):
        mine = [r for r in reruns if group(r) == key]
        seeds = {r["seed"] for r in mine}
        theirs = [r for r in shipped_runs if group(r) == key]
        out.append(
            seed_comparison(
                label(key, len(mine)),
                [value(r) for r in theirs],
                [value(r) for r in theirs if r["seed"] in seeds],
                [value(r) for r in mine],
                resolution,
                spread,
            )
        )
    return out


def _single_seed(
    what: str, shipped_value: float, rerun_value: float, extra: list[float], resolution: float
) -> Comparison:
    """A result trained with one seed: the spread comes from `extra` seeds trained by the check."""
    _, sd = mean_sd(extra)
    return Comparison(what, shipped_value, rerun_value, rerun_tolerance(sd, 1, resolution))


# --- inductive-bias crossover ----------------------------------------------------------------------------


def _crossover(record: dict, quick: bool, exact: bool) -> Replay:
    from explorer.experiments import crossover as cx

    cfg = cx.SweepConfig.from_dict(record["config"])
    if quick:  # window 2, the narrowest width at the fastest rate, every seed, to step 100: all three seeds
        # sit at its ceiling there (0.473-0.476), so the seed spread is tight and a wrong record shows
        cfg = replace(cfg, windows=(2,), widths=cfg.widths[:1], lrs=cfg.lrs[-1:], steps=100)
    rerun = cx.sweep(cfg, use_cache=False)
    difference, comparisons = "", []
    for run in cfg.runs:
        mine, stored = rerun["runs"][run.key], record["runs"][run.key]
        n = len(mine["steps"])
        cut = {
            "steps": stored["steps"][:n],
            **{k: [seed[:n] for seed in stored[k]] for k in ("per_lag_accuracy", "eval_loss")},
        }
        difference = difference or first_difference(cut, {k: mine[k] for k in cut}, run.key)
        theirs, ours = (
            cx.run_curves({"config": cfg.to_dict(), "runs": {run.key: r}})[run.key]["per_seed"][:, -1]
            for r in ({**stored, **cut}, mine)
        )
        comparisons.append(
            seed_comparison(
                f"w={run.window} score (d={run.width}, lr {run.lr:g}) at step "
                f"{mine['steps'][-1]} ({len(cfg.seeds)} seeds)",
                theirs,
                theirs,
                ours,
                1 / cfg.eval_size,
            )
        )
    if not quick:  # the page's claim: which frontiers cross, in how many seeds
        for a, b in zip(cx.analyse(record)["crossovers"], cx.analyse(rerun)["crossovers"]):
            comparisons.append(
                Comparison(
                    f"w={a['more_structure']} -> w={a['less_structure']}: seeds with a crossover",
                    a["seeds_with_crossover"],
                    b["seeds_with_crossover"],
                    0,
                )
            )
    return Replay(difference, comparisons, f"seed spread: the {len(cfg.seeds)} shipped seeds")


# --- depth ---------------------------------------------------------------------------------------------------

DEPTH_KEYS = ("history", "eval_loss", "eval_accuracy", "anatomy", "probes", "parameters", "flops_per_step")


def _depth(record: dict, quick: bool, exact: bool) -> Replay:
    from explorer.experiments import depth as dp

    cfg = dp.DepthConfig.from_dict(record["config"])
    if quick:  # seed 0 at the shallowest depth for its first steps: main's and the control's depth 2 layer-aligned
        # (every main seed at 100% by step 300, so a tight check), the long run's final-only depth 8
        wiring = "aligned" if cfg.depths[0] <= 2 else "final"
        cfg = replace(cfg, depths=cfg.depths[:1], wirings=(wiring,), seeds=(0,), steps=_quick_depth_steps(cfg))
    return _depth_replay(
        record,
        dp.sweep(cfg, use_cache=False)["runs"],
        cfg.steps,
        cfg.eval_size,
        lambda r: (f"depth {r['depth']}", r["wiring"]),
    )


def _quick_depth_steps(cfg) -> int:
    """The steps a quick depth slice trains: QUICK_LAYER_STEPS layer-steps of the shallowest depth, down to the
    evaluation grid (the shipped history has a row there to compare with)."""
    steps = min(cfg.steps, QUICK_LAYER_STEPS // cfg.depths[0])
    return max(cfg.eval_every, steps // cfg.eval_every * cfg.eval_every)


def _depth_replay(
    record: dict, reruns: list[dict], steps: int, eval_size: int, group: Callable[[dict], tuple]
) -> Replay:
    """Depth reruns against the shipped runs of the same `group` and seed: whole records when the rerun ran every
    step, else the history up to `steps`; each group's held-out accuracy at `steps` against its seed spread."""
    full_length = steps == record["config"]["steps"]
    key = lambda r: (*group(r), r["seed"])  # noqa: E731
    stored = {key(r): r for r in record["runs"]}
    difference = ""
    for run in reruns:
        old, where = stored[key(run)], f"{' '.join(group(run))} seed {run['seed']}"
        if full_length:
            difference = difference or first_difference(
                {k: old[k] for k in DEPTH_KEYS}, {k: run[k] for k in DEPTH_KEYS}, where
            )
        else:
            head = [row for row in old["history"] if row["step"] <= steps]
            difference = difference or first_difference(head, run["history"], f"{where} history")
    comparisons = _grouped(
        record["runs"],
        reruns,
        group,
        lambda r: _row_at(r["history"], steps)["eval_accuracy"],
        lambda g, n: f"{' '.join(g)}: held-out accuracy at step {steps} ({n} seed{'s' * (n > 1)})",
        1 / eval_size,
    )
    return Replay(difference, comparisons, "seed spread: the shipped seeds of each cell")


def _depth_lr(record: dict, quick: bool, exact: bool) -> Replay:
    """The learning-rate check: quick reruns the final-only model at the highest rate, seed 0, for its first
    steps; the full check retrains every rate and compares which rate is best for each wiring."""
    from explorer.experiments import depth as dp

    cfg, lrs = dp.DepthConfig.from_dict(record["config"]), tuple(record["lrs"])
    if quick:
        cfg, lrs = replace(cfg, wirings=("final",), seeds=(0,), steps=_quick_depth_steps(cfg)), lrs[-1:]
    reruns = dp.lr_sweep(cfg, lrs)
    replay = _depth_replay(record, reruns["runs"], cfg.steps, cfg.eval_size, lambda r: (r["wiring"], f"lr {r['lr']:g}"))
    if not quick:  # the page's claim: each wiring's best rate
        best, rerun_best = dp.analyse_lr(record)["best"], dp.analyse_lr(reruns)["best"]
        replay.comparisons += [Comparison(f"{w}: best learning rate", best[w], rerun_best[w], 0) for w in best]
    return replay


# --- length asymmetry ----------------------------------------------------------------------------------------


def _lengths(record: dict, quick: bool, exact: bool) -> Replay:
    from explorer.experiments import lengths as ln

    cfg = ln.ToyConfig.from_dict(record["config"])
    if quick:  # the first ratio (20->4), every arm, seed 0, up to the first evaluation
        cfg = replace(cfg, ratios=cfg.ratios[:1], seeds=(0,), steps=cfg.eval_every)
    reruns = ln.run(cfg, use_cache=False)["records"]
    key = lambda r: (r["lx"], r["ly"], r["arm"], r["seed"])  # noqa: E731
    stored = {key(r): r for r in record["records"]}
    difference = ""
    for rec in reruns:
        old = stored[key(rec)]
        cut = {
            "parameters": old["parameters"],
            "flops_per_example": old["flops_per_example"],
            "history": [row for row in old["history"] if row["step"] <= cfg.steps],
        }
        difference = difference or first_difference(
            cut, {k: rec[k] for k in cut}, f"{rec['lx']}->{rec['ly']} {rec['arm']}"
        )
    group = lambda r: (r["lx"], r["ly"], r["arm"])  # noqa: E731
    comparisons = _grouped(
        record["records"],
        reruns,
        group,
        lambda r: _row_at(r["history"], cfg.steps)["eval_loss"],
        lambda g, n: f"{g[0]}->{g[1]} {g[2]}: held-out loss at step {cfg.steps} ({n} seed{'s' * (n > 1)})",
        0.0,
    )
    if not quick:  # the whole run: the page's main measure, the loss averaged over the run, as well
        comparisons += _grouped(
            record["records"],
            reruns,
            group,
            lambda r: ln.loss_of(r, "curve"),
            lambda g, n: (
                f"{g[0]}->{g[1]} {g[2]}: held-out loss averaged over {cfg.steps} steps ({n} seed{'s' * (n > 1)})"
            ),
            0.0,
        )
    return Replay(difference, comparisons, f"seed spread: the {len(record['config']['seeds'])} shipped seeds")


# --- four steps ------------------------------------------------------------------------------------------------

CHECK_KEYS = ("steps", "causes", "decoder_only_params", "max_abs_logit", "decoder_eval_loss")


def _four_steps_check(record: dict, quick: bool, exact: bool) -> Replay:
    """The copied-weights check: counts are integers (exact anywhere); the page's conclusions are thresholds."""
    from explorer.experiments import four_steps as fs
    from explorer.model import TransformerConfig

    s = record["settings"]
    rerun = fs.numeric_check(
        TransformerConfig(**s["model"]), train_steps=s["train_steps"], seed=s["seed"], batch=s["batch"]
    )
    difference = first_difference({k: record[k] for k in CHECK_KEYS}, {k: rerun[k] for k in CHECK_KEYS})
    comparisons = [
        Comparison(f"{row['name']}: parameters", old["params"], row["params"], 0)
        for old, row in zip(record["steps"], rerun["steps"])
    ]
    four, final = rerun["steps"][4], rerun["steps"][-1]
    conclusions = {  # what the page says, as inequalities that must hold on any CPU
        "step 4 still differs from decoder-only (relative f64 gap > 1e-3)": four["relative_diff_f64"] > 1e-3,
        "the final change leaves rounding only (relative f32 gap <= 1e-4)": final["relative_diff"] <= 1e-4,
        "the final change leaves rounding only (relative f64 gap <= 1e-10)": final["relative_diff_f64"] <= 1e-10,
        **{
            f"putting back '{c['cause']}' alone moves the logits (f64 > 1e-3 relative)": c["f64"]
            / rerun["max_abs_logit"]
            > 1e-3
            for c in rerun["causes"]
        },
    }
    comparisons += [Comparison(what, 1.0, float(holds), 0) for what, holds in conclusions.items()]
    return Replay(difference, comparisons, "counts exact; conclusions as the page's thresholds")


def _four_steps_ablation(record: dict, quick: bool, exact: bool) -> Replay:
    from explorer.experiments import four_steps as fs

    settings = fs.AblationSettings.from_dict(record["settings"])
    if quick:  # step 4 and decoder-only, seed 0, their first 100 steps (the schedule is constant after warm-up,
        # so the shipped curves hold the same numbers): the comparison the page's verdict is about
        settings = replace(settings, variants=("4", "decoder"), seeds=(0,), steps=min(settings.steps, 100))
    reruns = fs.run_ablation(settings)["runs"]
    stored = {(r["variant"], r["seed"]): r for r in record["runs"]}
    keys = ("eval_loss", "eval_accuracy", "curve", "agreement", "kl")
    steps, difference = settings.steps, ""
    for run in reruns:
        old = stored[(run["variant"], run["seed"])]
        where = f"variant {run['variant']} seed {run['seed']}"
        if steps < old["steps_done"]:  # a prefix: the curve up to here is all both sides have
            head = [row for row in old["curve"] if row[0] <= steps]
            difference = difference or first_difference(head, run["curve"], where)
        else:
            difference = difference or first_difference(
                {k: old[k] for k in keys if k in old}, {k: run[k] for k in keys if k in old}, where
            )
    theirs, mine = fs.runs_at(record["runs"], steps), fs.runs_at(reruns, steps)
    comparisons = _grouped(
        theirs,
        mine,
        lambda r: (r["variant"],),
        lambda r: r["eval_loss"],
        lambda g, n: f"{fs.VARIANT_SHORT[g[0]]}: held-out loss at step {steps} ({n} seed{'s' * (n > 1)})",
        0.0,
        pooled=True,
    )
    comparisons += _paired_gaps(theirs, mine, "4", fs.DECODER)
    if steps == record["settings"]["steps"]:  # the page's headline: agreement with decoder-only, same seed
        resolution = 1 / (settings.eval_size * settings.length)  # one target token of the shared input set
        comparisons += _grouped(
            [r for r in record["runs"] if "agreement" in r],
            [r for r in reruns if "agreement" in r],
            lambda r: (r["variant"],),
            lambda r: r["agreement"],
            lambda g, n: f"{fs.VARIANT_SHORT[g[0]]}: agreement with decoder-only ({n} seed{'s' * (n > 1)})",
            resolution,
        )
    variants, seeds = len(record["settings"]["variants"]), len(record["settings"]["seeds"])
    # one variant's few seeds can understate its spread by half (step 4's sd is a third of the others'; on an
    # AVX2 AMD machine its seed 0 moved 5 of those sds): the losses use the spread pooled over all variants
    return Replay(
        difference, comparisons, f"seed spread: the {seeds} shipped seeds, losses pooled over the {variants} variants"
    )


def _paired_gaps(shipped_runs: list[dict], reruns: list[dict], a: str, b: str) -> list[Comparison]:
    """The page's verdict compares a and b seed by seed (same weights and batches): compare that gap."""

    def gaps(runs: list[dict]) -> dict[int, float]:
        loss = {(r["variant"], r["seed"]): r["eval_loss"] for r in runs}
        return {s: loss[(a, s)] - loss[(b, s)] for (v, s) in loss if v == a and (b, s) in loss}

    theirs, mine = gaps(shipped_runs), gaps(reruns)
    if not mine:
        return []
    return [
        seed_comparison(
            f"{a} minus {b}: paired held-out loss gap ({len(mine)} seed{'s' * (len(mine) > 1)})",
            list(theirs.values()),
            [theirs[s] for s in mine],
            list(mine.values()),
        )
    ]


# --- the Bitter Lesson -----------------------------------------------------------------------------------------

BITTER_QUICK_STEPS = 64  # a checkpoint of every run (2,048 examples): the hand-built method has levelled off there


def _bitter_lesson(record: dict, quick: bool, exact: bool) -> Replay:
    """Quick: both methods of the first case, seed 0, to step 64 (a shared checkpoint: the prefix of the shipped
    curves). Full: every run whole, then the page's conclusions: the crossover, and the gaps at both budgets."""
    from explorer.experiments import bitter_lesson as bl

    cfg = bl.BitterConfig.from_dict(record["config"])
    if quick:
        cfg = replace(cfg, cases=cfg.cases[:1], seeds=cfg.seeds[:1], steps=BITTER_QUICK_STEPS)
    rerun = bl.run(cfg)
    key = lambda r: (r["case"], r["method"], r["seed"])  # noqa: E731
    stored = {key(r): r for r in record["runs"]}
    difference = ""
    for run in rerun["runs"]:
        n = len(run["loss"])
        head = {k: stored[key(run)][k][:n] for k in ("data", "flops", "loss", "accuracy")}
        difference = difference or first_difference(head, {k: run[k] for k in head}, " ".join(map(str, key(run))))
    at = len(rerun["runs"][0]["loss"]) - 1  # the last checkpoint the rerun reached
    comparisons = _grouped(
        record["runs"],
        rerun["runs"],
        lambda r: (r["case"], r["method"]),
        lambda r: r["loss"][at],
        lambda g, n: (
            f"{g[0]}, {g[1]}: held-out loss at {rerun['runs'][0]['data'][at]:,} examples ({n} seed{'s' * (n > 1)})"
        ),
        1 / cfg.eval_size,
    )
    if not quick:
        theirs, ours = bl.analyse(record), bl.analyse(rerun)
        for case, a in theirs.items():
            b = ours[case]
            comparisons.append(
                Comparison(
                    f"{case}: the mean curves cross (1) or not (0)",
                    float(a["crossover"] is not None),
                    float(b["crossover"] is not None),
                    0,
                )
            )
            if a["crossover"] is not None and b["crossover"] is not None:
                crossed = [math.log10(c[1]) for c in a["per_seed"] if c[1] is not None]
                comparisons.append(
                    Comparison(
                        f"{case}: crossover, log10 examples",
                        math.log10(a["crossover"]["data"]),
                        math.log10(b["crossover"]["data"]),
                        rerun_tolerance(mean_sd(crossed)[1], len(crossed)),
                    )
                )
            for budget in ("small", "large"):
                comparisons.append(
                    seed_comparison(
                        f"{case}: Transformer minus hand-built at the {budget} budget",
                        _gaps(a, budget),
                        _gaps(a, budget),
                        _gaps(b, budget),
                    )
                )
    return Replay(difference, comparisons, f"seed spread: the {len(record['config']['seeds'])} shipped seeds")


def _gaps(analysis: dict, budget: str) -> list[float]:
    """The per-seed held-out loss gaps (Transformer minus hand-built) at the checkpoint a test was made."""
    i, methods = analysis["tests"][budget]["at"], analysis["methods"]
    return list(methods["transformer"]["loss"][:, i] - methods["hand-built"]["loss"][:, i])


# --- single-seed models: the attention page's demo models and the cache page's drift encoder ---------------------


def _demo_model(arch: str, retrain_slice: bool) -> Callable[[dict, bool, bool], Replay]:
    def replay(meta: dict, quick: bool, exact: bool) -> Replay:
        from explorer import checkpoints
        from explorer.experiments import attention as att

        model, _ = checkpoints.load(att.SHIPPED_DIR / f"{arch}.json")
        accuracy = att.reversal_accuracy(model)
        claimed = {k: meta["accuracy"][k] for k in ("char_accuracy", "exact_match")}
        difference = first_difference(claimed, {k: accuracy[k] for k in claimed}, "accuracy of the shipped weights")
        strings = accuracy["strings"]
        comparisons = [
            Comparison(
                "shipped weights: character accuracy", claimed["char_accuracy"], accuracy["char_accuracy"], 0.001
            ),
            Comparison("shipped weights: exact matches", claimed["exact_match"], accuracy["exact_match"], 2 / strings),
        ]
        spread = "shipped weights: near-ties may flip 0.1% of characters and 2 strings"
        if quick and not retrain_slice:
            return Replay(difference, comparisons, spread)
        steps = meta["history"][0]["step"] if quick else None
        history = att.train_demo(att.demo_spec(arch, steps=steps))[1]["history"]
        final = len(history) - 1
        difference = difference or first_difference(
            _timeless(meta["history"][: len(history)]), _timeless(history), "training history"
        )
        if not exact:
            extra = [_demo_seed(arch, steps, seed)[final]["eval_accuracy"] for seed in range(1, EXTRA_SEEDS + 1)]
            comparisons.append(
                _single_seed(
                    f"held-out token accuracy at step {history[final]['step']}",
                    meta["history"][final]["eval_accuracy"],
                    history[final]["eval_accuracy"],
                    extra,
                    1 / att.demo_spec(arch).train.eval_size,
                )
            )
            spread += f"; training: seed spread from {EXTRA_SEEDS} extra seeds trained here"
        return Replay(difference, comparisons, spread)

    return replay


def _demo_seed(arch: str, steps: int | None, seed: int) -> list[dict]:
    from explorer.experiments import attention as att
    from explorer.train import train

    spec = att.demo_spec(arch, steps=steps)
    return train(spec.model, spec.task, replace(spec.train, seed=seed)).history


def _drift_encoder(info: dict, quick: bool, exact: bool) -> Replay:
    from explorer.experiments import cache
    from explorer.train import TrainConfig, evaluate, train

    model, _ = cache.load_encoder()
    recipe = TrainConfig(**info["config"]["train"])
    last = info["history"][-1]
    now = evaluate(model, cache.DRIFT_TASK, recipe.eval_size, recipe.seed)
    difference = first_difference({k: last[k] for k in now}, now, "evaluation of the shipped weights")
    comparisons = [
        Comparison(
            "shipped weights: held-out loss", last["eval_loss"], now["eval_loss"], ROUNDING * abs(last["eval_loss"])
        ),
        Comparison(
            "shipped weights: held-out accuracy", last["eval_accuracy"], now["eval_accuracy"], 1 / recipe.eval_size
        ),
    ]
    spread = "shipped weights: rounding only"
    if quick:
        return Replay(difference, comparisons, spread)
    history = train(cache.DRIFT_MODEL, cache.DRIFT_TASK, recipe).history
    difference = difference or first_difference(_timeless(info["history"]), _timeless(history), "training history")
    if not exact:
        extra = [
            train(cache.DRIFT_MODEL, cache.DRIFT_TASK, replace(recipe, seed=recipe.seed + k)).history[-1][
                "eval_accuracy"
            ]
            for k in range(1, EXTRA_SEEDS + 1)
        ]
        comparisons.append(
            _single_seed(
                "retrained: final held-out accuracy",
                last["eval_accuracy"],
                history[-1]["eval_accuracy"],
                extra,
                1 / recipe.eval_size,
            )
        )
        spread += f"; training: seed spread from {EXTRA_SEEDS} extra seeds trained here"
    return Replay(difference, comparisons, spread)


# --- stale cache ------------------------------------------------------------------------------------------------

STALE_KL_RESOLUTION = 1e-3  # nats: a KL gap the page does not read (declared before the first rerun)


def _stale_cache(record: dict, quick: bool, exact: bool) -> Replay:
    """Quick: the local task (copy), seed 0, trained whole (a few hundred steps), scored at the largest size.
    Per task, each seed's accuracy lost to the stale cache and its KL, averaged over the sizes rerun, against the
    shipped seeds' spread; and the causal zero the page states."""
    from explorer.experiments import stale_cache as sc

    cfg = sc.StaleConfig.from_dict(record["config"])
    if quick:
        cfg = replace(
            cfg,
            tasks=("copy",),
            task_steps=(cfg.task_steps[cfg.tasks.index("copy")],),
            seeds=cfg.seeds[:1],
            sizes=(max(cfg.sizes),),
        )
    rerun = sc.run(cfg)
    key = lambda r: (r["task"], r["seed"], r.get("n"), r.get("m"), r.get("arch"))  # noqa: E731
    stored = {key(r): r for r in record["runs"] + record["models"]}
    difference = first_difference([stored[key(r)] for r in rerun["runs"]], rerun["runs"], "runs") or first_difference(
        _timeless([stored[key(r)] for r in rerun["models"]]), _timeless(rerun["models"]), "models"
    )
    sizes = {tuple(s) for s in cfg.sizes}
    theirs, mine = sc.seed_averages(record["runs"], sizes), sc.seed_averages(rerun["runs"], sizes)
    over = f"mean over {len(sizes)} size{'s' * (len(sizes) > 1)}"
    comparisons = []
    for metric, what, resolution in (
        ("gap", "accuracy lost to the stale cache", 1 / cfg.test_chats),
        ("kl", "KL(re-encoded || stale), nats", STALE_KL_RESOLUTION),
    ):
        comparisons += _grouped(
            theirs,
            mine,
            lambda r: (r["task"],),
            lambda r, k=metric: r[k],
            lambda g, n, w=what: f"{g[0]}: {w}, {over} ({n} seed{'s' * (n > 1)})",
            resolution,
        )
    causal = max(abs(r["kl"]) for r in rerun["runs"] if r["arch"] == "causal")
    comparisons.append(Comparison("causal twin: KL zero by construction (at most 1e-6)", 1.0, float(causal <= 1e-6), 0))
    return Replay(difference, comparisons, "seed spread: the shipped seeds of each task")


# --- bidirectional input at scale (slide 64) ---------------------------------------------------------------------


def _gap_rows(swept: dict, step: int) -> list[dict]:
    """Per width and seed, the paired gap (decoder-only minus prefix-LM loss) at `step`, as run-like rows."""
    from explorer.experiments import bidirectional_scaling as bs

    return [
        {"width": w, "seed": s, "gap": g}
        for (w, b), by_seed in bs.paired_gaps(swept).items()
        if b == step
        for s, g in by_seed.items()
    ]


def _bidirectional_scaling(record: dict, quick: bool, exact: bool) -> Replay:
    """Quick: the smallest width, both masks, seed 0, to the first budget (same checkpoints as shipped). The page
    concludes from the paired gaps and from the trend of the gap over widths: each against the shipped seeds."""
    from explorer.experiments import bidirectional_scaling as bs

    cfg = bs.ScalingConfig.from_dict(record["config"])
    if quick:
        cfg = replace(cfg, widths=cfg.widths[:1], budgets=cfg.budgets[:1], seeds=cfg.seeds[:1])
    rerun = bs.sweep(cfg, use_cache=False)
    key = lambda r: (r["width"], r["mask"], r["seed"])  # noqa: E731
    stored = {key(r): r for r in record["runs"]}
    difference = ""
    for run in rerun["runs"]:
        old = stored[key(run)]
        head = [row for row in old["history"] if row["step"] <= cfg.steps]
        difference = difference or first_difference(
            head, run["history"], f"d={run['width']} {run['mask']} seed {run['seed']}"
        )
    comparisons = _grouped(
        _gap_rows(record, cfg.steps),
        _gap_rows(rerun, cfg.steps),
        lambda r: (r["width"],),
        lambda r: r["gap"],
        lambda g, n: f"d={g[0]}: paired loss gap at step {cfg.steps} ({n} seed{'s' * (n > 1)})",
        0.0,
    )
    if not quick:  # the page's verdict: the slope of the gap over widths
        theirs, mine = bs.trend(record).get("width"), bs.trend(rerun).get("width")
        if theirs and mine:
            comparisons.append(
                seed_comparison(
                    f"slope of the gap per doubling of width ({mine['seeds']} seeds)",
                    theirs["slopes"],
                    theirs["slopes"],
                    mine["slopes"],
                )
            )
    return Replay(difference, comparisons, f"seed spread: the {len(record['config']['seeds'])} shipped seeds")


# --- separate or shared parameters (slides 53-55) ------------------------------------------------------------

SHARED_PARAMS_KEYS = ("curve", "loss", "accuracy", "params", "flops")


def _shared_params(record: dict, quick: bool, exact: bool) -> Replay:
    """Quick: translation, both variants, seed 0, to the first checkpoint (the schedule is constant after warm-up,
    so the shipped curves hold the same number). Full: every run, each cell's seed-mean held-out loss and each task's
    paired gap (separate minus shared), against the shipped seeds' spread."""
    from explorer.experiments import shared_params as sp

    cfg = sp.SharedParamsConfig.from_dict(record["config"])
    if quick:
        cfg = replace(cfg, tasks=("translation",), seeds=(0,), steps=cfg.eval_every)
    reruns = sp.run(cfg)["runs"]
    key = lambda r: (r["task"], r["variant"], r["seed"])  # noqa: E731
    stored = {key(r): r for r in record["runs"]}
    difference = ""
    for run in reruns:
        old, where = stored[key(run)], " ".join(map(str, key(run)))
        if quick:
            head = [row for row in old["curve"] if row[0] <= cfg.steps]
            difference = difference or first_difference(head, run["curve"], f"{where} curve")
        else:
            difference = difference or first_difference(
                {k: old[k] for k in SHARED_PARAMS_KEYS}, {k: run[k] for k in SHARED_PARAMS_KEYS}, where
            )

    def scored(runs: list[dict]) -> list[dict]:  # the loss the comparison reads: at cfg.steps (quick) or the test
        return [
            {**r, "value": next(row[2] for row in r["curve"] if row[0] == cfg.steps) if quick else r["loss"]}
            for r in runs
        ]

    what = f"held-out loss at step {cfg.steps}" if quick else "held-out loss"
    comparisons = _grouped(
        scored(record["runs"]),
        scored(reruns),
        lambda r: (r["task"], r["variant"]),
        lambda r: r["value"],
        lambda g, n: f"{g[0]}, {g[1]}: {what} ({n} seed{'s' * (n > 1)})",
        0.0,
    )
    if not quick:  # the page's tests: each task's paired gap (separate minus shared), seed by seed
        theirs, mine = sp.paired_gaps(record["runs"]), sp.paired_gaps(reruns)
        comparisons += [
            seed_comparison(
                f"{task}: separate minus shared, paired ({len(gaps)} seeds)",
                list(theirs[task].values()),
                [theirs[task][s] for s in gaps],
                list(gaps.values()),
            )
            for task, gaps in mine.items()
        ]
    return Replay(difference, comparisons, "seed spread: the shipped seeds of each task and variant")


def _sidecar_meta(path) -> dict | None:
    """What a shipped model's sidecar records about its training (the checkpoint's result part)."""
    from explorer import checkpoints

    try:
        return checkpoints.read_sidecar(path)["meta"]
    except (OSError, ValueError, KeyError):
        return None


def _encoder_info(path) -> dict | None:
    from explorer.experiments import cache

    loaded = cache.load_encoder(path)
    return loaded[1] if loaded else None


# --- real text: the four shipped language models and their tokenizer -------------------------------------------

LOSS_TOLERANCE = 1e-3  # nats: the same weights' forward pass on another CPU differs in the last bits only


def _realtext_model(arch: str) -> Callable[[dict, bool, bool], Replay]:
    """The shipped weights' held-out loss per language, computed here against the one the training run recorded.
    A retrain (500 steps, 30 CPU minutes each under load) is `python -m explorer real-text train --arch ARCH`."""

    def replay(meta: dict, quick: bool, exact: bool) -> Replay:
        from explorer.realtext import objectives, training

        model, _, tok = training.load(arch)
        now = objectives.held_out_loss(model, objectives.Streams(tok))
        claimed = {lang: meta["held_out_loss"][lang] for lang in ("en", "zh")}
        measured = {lang: now[lang] for lang in claimed}
        comparisons = [
            Comparison(f"shipped weights: held-out loss ({lang})", claimed[lang], measured[lang], LOSS_TOLERANCE)
            for lang in claimed
        ]
        return Replay(
            first_difference(claimed, measured, "held-out loss of the shipped weights"),
            comparisons,
            "shipped weights, one forward pass: arithmetic differences only",
        )

    return replay


def _realtext_tokenizer(record: dict, quick: bool, exact: bool) -> Replay:
    """The tokenizer learned again from the shipped corpus: the same symbols in the same order, on any machine."""
    from explorer.realtext import training

    again = training.train_tokenizer()
    return Replay(
        first_difference(record["digest"], again.digest(), "tokenizer symbols"),
        [Comparison("tokenizer: symbols", len(record["symbols"]), len(again.symbols), 0)],
        "deterministic: counting characters has no seed",
    )


def _realtext_tokenizer_record(path) -> dict | None:
    """The tokenizer file, with the environment of the run that learned it (the decoder's, made in the same run)."""
    record = shipped.load(path)
    meta = _sidecar_meta(path.parent / "decoder.json")
    return {**record, "environment": meta["environment"]} if record and meta else None


# --- scale ladders ----------------------------------------------------------------------------------------------


def _ladder(claim: str) -> Callable[[dict, bool, bool], Replay]:
    """A shipped ladder. Quick (`make test`): every rung's summary and the verdict derived again from the stored
    per-seed effects, bit for bit (each rung's retraining takes minutes with its learning-rate pilots, more than
    `make test` can spend on six ladders). Full: the lowest CPU rung trained again, every seed, each seed's effect
    against the shipped one, on top."""

    def replay(record: dict, quick: bool, exact: bool) -> Replay:
        from explorer.ladder import registry
        from explorer.ladder import run as ladder_run

        again = ladder_run.merge(None, record)  # the summaries and the verdict from the stored per-seed effects
        keys = ("effect", "low", "high", "seeds", "same_sign")
        difference = first_difference(
            {"verdict": record["verdict"], "rungs": [{k: r[k] for k in keys} for r in record["rungs"]]},
            {"verdict": again["verdict"], "rungs": [{k: r[k] for k in keys} for r in again["rungs"]]},
            "summaries",
        )
        comparisons = [
            Comparison("verdict derived again (1: the same)", 1.0, float(again["verdict"] == record["verdict"]), 0)
        ]
        for before, after in zip(record["rungs"], again["rungs"]):
            comparisons.append(
                Comparison(
                    f"{before['label']}: seeds with the shipped sign", before["same_sign"], after["same_sign"], 0
                )
            )
        ours = [r for r in record["rungs"] if r["device"] == "cpu"]
        if quick or not ours:  # a rung measured on an accelerator is not retrained here
            return Replay(difference, comparisons, "derived from the stored per-seed effects")
        shipped_rung = min(ours, key=lambda r: r["params"])
        c = registry.get(claim)
        rung = next(r for r in c.rungs(record.get("preset", "main")) if r.label == shipped_rung["label"])
        per_seed = {int(k): v for k, v in shipped_rung["per_seed"].items()}
        measured = c.measure(rung, tuple(sorted(per_seed)), "cpu", SILENT, False)
        difference = difference or first_difference(
            {str(s): v for s, v in per_seed.items()},
            {str(s): v for s, v in measured.effects.items()},
            shipped_rung["label"],
        )
        comparisons += [
            seed_comparison(
                f"{shipped_rung['label']}: effect ({len(measured.effects)} seeds)",
                list(per_seed.values()),
                [per_seed[s] for s in measured.effects],
                list(measured.effects.values()),
            ),
            Comparison(f"{shipped_rung['label']}: parameters", shipped_rung["params"], measured.params, 0),
        ]
        return Replay(
            difference, comparisons, f"seed spread: the {len(per_seed)} shipped seeds of {shipped_rung['label']}"
        )

    return replay


def _checks() -> list[Check]:
    from explorer.experiments import attention as att
    from explorer.experiments import bidirectional_scaling, cache, crossover, depth, four_steps, lengths, stale_cache
    from explorer.experiments import shared_params
    from explorer.experiments import bitter_lesson
    from explorer.ladder import registry as ladders
    from explorer.ladder import run as ladder_run
    from explorer.realtext import training as realtext

    return [
        Check("crossover/main", crossover.shipped_path("main"), _crossover),
        Check("depth/main", depth.shipped_path("main"), _depth),
        Check("depth/long", depth.shipped_path("long"), _depth),
        Check("depth/control", depth.shipped_path("control"), _depth),
        Check("depth/lr", depth.shipped_path(depth.LR_PRESET), _depth_lr),
        *(Check(f"lengths/{preset}", lengths.shipped_path(preset), _lengths) for preset in lengths.SHIPPED_PRESETS),
        Check("four_steps/check", four_steps.CHECK_PATH, _four_steps_check),
        Check("four_steps/ablation", four_steps.ABLATION_PATH, _four_steps_ablation),
        Check("four_steps/ablation_long", four_steps.shipped_path("long"), _four_steps_ablation),
        *(
            Check(
                f"demo_models/{arch}",
                att.SHIPPED_DIR / f"{arch}.json",
                _demo_model(arch, arch == "prefix_lm"),
                read=_sidecar_meta,
            )
            for arch in att.ARCHS
        ),
        Check("cache/encoder_sort", cache.ENCODER_PATH, _drift_encoder, read=_encoder_info),
        Check("cache/stale", stale_cache.SHIPPED_PATH, _stale_cache, read=stale_cache.load),
        Check(
            "bidirectional_scaling/main",
            bidirectional_scaling.shipped_path("main"),
            _bidirectional_scaling,
            read=bidirectional_scaling.load_shipped,
        ),
        Check("shared_params/main", shared_params.shipped_path("main"), _shared_params, read=shared_params.load),
        Check("bitter_lesson/main", bitter_lesson.shipped_path("main"), _bitter_lesson),
        *(
            Check(
                f"realtext/{arch}",
                realtext.weights_path(arch).with_suffix(".json"),
                _realtext_model(arch),
                read=_sidecar_meta,
            )
            for arch in realtext.ARCHS
        ),
        *(
            Check(f"ladder/{claim}", ladder_run.shipped_path(claim), _ladder(claim))
            for claim in ladders.NAMES
            if ladder_run.shipped_path(claim).exists()  # a claim whose CPU ladder has not shipped yet has none
        ),
        Check(
            "realtext/tokenizer",
            realtext.SHIPPED_DIR / realtext.TOKENIZER_FILE,
            _realtext_tokenizer,
            read=_realtext_tokenizer_record,
        ),
    ]


CHECKS = _checks()
