"""Depth and cross-attention (slides 59-63): does reading only the final encoder layer slow deep models down?

Standard cross-attention lets every decoder layer read the encoder's final layer ("final"). The lecture's
alternative, step 3 of the four steps, lets decoder layer l read what encoder layer l reads ("aligned",
the model's `layer_aligned` flag). Both wirings have the same parameters and the same FLOPs, so we train
both from the same initial weights on the same batches and compare held-out numbers as depth grows.

The task, *majority-shifted copy*, needs two granularities at once. The input is `length` (odd) symbols out
of `n_symbols`; the upper half of the symbols are "large". Output t is input symbol t (low level: token
identity at one position), written in a second symbol set when most input symbols are large (high level:
one bit about the whole sequence).

That design favours layer-aligned reading (its first decoder layer reads the unmixed embeddings), so two
checks sit beside it: a control task, *sorting*, whose outputs depend on the whole input and on no position in
particular (all a decoder needs is the fully encoded input), and a learning-rate grid at the deepest depth, so
each wiring can be compared at its own best rate.

Linear probes then ask, per encoder layer, how well a layer's states predict each granularity: a closed-form
ridge classifier per layer, fitted on the states of one set of sequences and scored on another (held-out).

Conventions follow `explorer.train` (a seed fixes initial weights, batches and held-out data) and the
crossover sweep: training runs in one intra-op thread so numbers reproduce exactly, one record per
(settings, depth, wiring, seed) is cached on disk, and the shipped main preset serves the page at once.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
from torch.utils.flop_counter import FlopCounterMode

from explorer import content, planning
from explorer import shipped as shipped_results
from explorer.costs import TRAIN_FLOPS_PER_FORWARD, check_size, sequence_forward_flops, stack_forward_flops
from explorer.formatting import colon
from explorer.layouts import loss_and_accuracy, make_batch
from explorer.lab.reviewed import train_by_recipe
from explorer.lab.runner import Units
from explorer.lab.runner import run as run_units
from explorer.model import Transformer, TransformerConfig
from explorer.planning import Plan
from explorer.progress import SILENT, Progress
from explorer.recipe import Reviewable, check_seeds
from explorer.stats import compare_unpaired, sign_flip_p, smallest_p
from explorer.tasks import FIRST_SYMBOL
from explorer.train import EVAL_SEED_OFFSET

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "data" / "depth"  # presets' results, written by the CLI
SHIPPED_PRESETS = ("main", "long", "control")  # the presets whose sweeps are shipped
SHIPPED_PATH = SHIPPED_DIR / "main.json"  # the page's default view
CACHE_KIND = "depth-run"  # one cached record per (settings, depth, wiring, seed)
MESSAGES = "messages"  # a run's progress messages: content/<lang>/messages.md
_PROBE = {"token": [float], "majority": [float]}
RUN_SHAPE = {  # what a cached run must hold before the page analyses it (`explorer.shapes`)
    "depth": int,
    "wiring": str,
    "seed": int,
    "parameters": int,
    "flops_per_step": int,
    "steps_done": int,
    "stopped": str,
    "seconds": float,
    "eval_loss": float,
    "eval_accuracy": float,
    "history": [{"step": int, "flops": float, "train_loss": float, "eval_loss": float, "eval_accuracy": float}],
    "anatomy": {"symbol_first": float, "symbol_rest": float, "set_first": float, "set_rest": float},
    "probes": {"trained": _PROBE, "untrained": _PROBE},
}
WIRINGS = ("final", "aligned")
WIRING_NAMES = {"final": "final layer only (standard)", "aligned": "layer-aligned (step 3)"}
PROBE_SEED_OFFSET = 2_000_003  # probe data uses generators that neither training nor evaluation uses
TARGETS = ("token", "majority")  # what the probes predict: low level, high level
MAX_DEPTH = 16
MAX_STEPS = 4800
MAX_SEEDS = 8
RIDGE = 1e-3  # probe regularisation, relative to the mean feature variance (features are standardised)


# --- the task ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MajorityShiftedCopy:
    """Copy each input symbol; shift the copy into a second symbol set when most input symbols are large.

    Ids: input symbols are FIRST_SYMBOL + s for s in 0..n_symbols-1 ("large" when s >= n_symbols / 2);
    a shifted output symbol is FIRST_SYMBOL + n_symbols + s.
    """

    length: int = 9  # odd, so there is always a strict majority
    n_symbols: int = 16  # even, so half of them are large

    def __post_init__(self) -> None:
        if self.length < 1 or self.length % 2 == 0:
            raise ValueError(f"length must be odd and >= 1 (a strict majority), got {self.length}")
        if self.n_symbols < 2 or self.n_symbols % 2:
            raise ValueError(f"n_symbols must be even and >= 2 (half of them large), got {self.n_symbols}")

    @property
    def vocab_size(self) -> int:
        return FIRST_SYMBOL + 2 * self.n_symbols  # input set and shifted set

    # what `explorer.train` needs of a task besides `sample` and `vocab_size`: input and target lengths
    input_len = property(lambda self: self.length)
    target_len = property(lambda self: self.length)

    def symbols(self, x: torch.Tensor) -> torch.Tensor:
        return x - FIRST_SYMBOL  # [B, n] symbol index 0..n_symbols-1

    def majority(self, x: torch.Tensor) -> torch.Tensor:
        """[B] bool: more than half of the input symbols are large."""
        large = (self.symbols(x) >= self.n_symbols // 2).sum(dim=1)
        return large > self.length // 2

    def target(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.n_symbols * self.majority(x).long()[:, None]  # [B, n]

    def sample(self, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.randint(FIRST_SYMBOL, FIRST_SYMBOL + self.n_symbols, (batch_size, self.length), generator=generator)
        return x, self.target(x)

    def single_token_ceiling(self) -> float:
        """Best accuracy at guessing the majority bit from one input symbol alone (Bayes, closed form).

        Knowing that one symbol is large, the bit is 1 when at least half of the other (length - 1) are large.
        """
        others = self.length - 1
        return sum(math.comb(others, k) for k in range(others // 2, others + 1)) / 2**others


@dataclass(frozen=True)
class SortedInput(MajorityShiftedCopy):
    """The control task: output the input symbols in ascending order.

    Output t is the t-th smallest input symbol, which depends on every input position and on no position in
    particular, so a decoder gains nothing from one position's unmixed embedding: what it needs is the fully
    encoded input. The vocabulary is the main task's (the shifted set is never a target), so both tasks train
    models with the same parameters and FLOPs.
    """

    def target(self, x: torch.Tensor) -> torch.Tensor:
        return x.sort(dim=1).values  # [B, n]


TASKS = {"majority-copy": MajorityShiftedCopy, "sort": SortedInput}
TASK_NAMES = {"majority-copy": "majority-shifted copy", "sort": "sorting (control)"}
MAIN_TASK = "majority-copy"


def symbol_text(task: MajorityShiftedCopy, token: int) -> str:
    """A readable name: small symbols a, b, c, ..., large ones A, B, C, ...; the shifted set gets a prime."""
    s = int(token) - FIRST_SYMBOL
    shifted, s = divmod(s, task.n_symbols)
    half = task.n_symbols // 2
    name = chr(ord("a") + s) if s < half else chr(ord("A") + s - half)
    return name + "′" * shifted


def examples(task: MajorityShiftedCopy, n: int, seed: int = 0) -> list[dict]:
    """`n` sampled (input, target) pairs in readable symbols, shifted and unshifted ones taking turns."""
    x, y = task.sample(64 * n, torch.Generator().manual_seed(seed))
    large = (task.symbols(x) >= task.n_symbols // 2).sum(dim=1)
    shifted = task.majority(x)
    kinds = [torch.nonzero(shifted == flag).flatten().tolist() for flag in (True, False)]
    picked = [kinds[i % 2][i // 2] for i in range(n)]

    def text(tokens: torch.Tensor) -> str:
        return " ".join(symbol_text(task, t) for t in tokens)

    return [
        {"input": text(x[i]), "target": text(y[i]), "large": int(large[i]), "shifted": bool(shifted[i])} for i in picked
    ]


# --- settings --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DepthConfig(Reviewable):
    depths: tuple[int, ...] = (2, 4, 8)  # layers per stack (encoder and decoder alike)
    wirings: tuple[str, ...] = WIRINGS
    seeds: tuple[int, ...] = (0, 1, 2)
    steps: int = 600
    length: int = 9
    n_symbols: int = 16
    d_model: int = 32
    n_heads: int = 4
    batch_size: int = 32
    lr: float = 3e-3  # Adam, constant after a linear warm-up
    warmup: int = 20
    eval_every: int = 50
    eval_size: int = 512  # held-out sequences per seed, the same set at every evaluation and for both wirings
    probe_train: int = 1024  # sequences whose states fit the probes
    probe_test: int = 512  # other sequences on which the probes are scored
    task_name: str = MAIN_TASK  # a key of TASKS

    SLICES = ("depths", "wirings", "seeds")

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "depths", tuple(sorted(set(int(d) for d in self.depths))))
        object.__setattr__(self, "wirings", tuple(w for w in WIRINGS if w in set(self.wirings)))
        object.__setattr__(self, "seeds", check_seeds(self.seeds, MAX_SEEDS))
        if self.task_name not in TASKS:
            raise ValueError(f"task_name must be one of {', '.join(TASKS)}, got {self.task_name!r}")
        self.task  # validates length and symbols
        if not self.depths or self.depths[0] < 1 or self.depths[-1] > MAX_DEPTH:
            raise ValueError(f"depths must lie in 1 .. {MAX_DEPTH}, got {self.depths}")
        if not self.wirings:
            raise ValueError(f"wirings must be among {', '.join(WIRINGS)}")
        if not 1 <= self.steps <= MAX_STEPS:
            raise ValueError(f"steps must lie in 1 .. {MAX_STEPS}, got {self.steps}")
        for name in ("batch_size", "eval_every", "eval_size", "warmup", "probe_train", "probe_test"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        check_size(self.model_config(self.depths[-1], self.wirings[0]))  # refuse sizes before any training

    def to_dict(self) -> dict:
        """As `Recipe.to_dict`, without `task_name` for the main task: files written before the control task
        existed keep reading as the same recipe."""
        out = super().to_dict()
        if out["task_name"] == MAIN_TASK:
            del out["task_name"]
        return out

    @property
    def task(self) -> MajorityShiftedCopy:
        return TASKS[self.task_name](self.length, self.n_symbols)

    def model_config(self, depth: int, wiring: str) -> TransformerConfig:
        if wiring not in WIRINGS:
            raise ValueError(f"wiring must be one of {', '.join(WIRINGS)}, got {wiring!r}")
        task = self.task
        return TransformerConfig(
            arch="encoder_decoder",
            vocab_size=task.vocab_size,
            d_model=self.d_model,
            n_heads=self.n_heads,
            n_layers=depth,
            max_len=task.input_len + task.target_len,
            layer_aligned=wiring == "aligned",
        )

    def flops_per_step(self, depth: int, wiring: str) -> int:
        task = self.task
        per_example = sequence_forward_flops(self.model_config(depth, wiring), task.input_len, task.target_len)
        return TRAIN_FLOPS_PER_FORWARD * self.batch_size * per_example

    def runs(self) -> list[tuple[int, str, int]]:
        """Every (depth, wiring, seed), seeds outermost and wirings paired, so a cut run stays balanced."""
        return [(d, w, s) for d in self.depths for s in self.seeds for w in self.wirings]


PRESETS = {
    "main": DepthConfig(seeds=tuple(range(8))),
    # the control: the same models on a task that needs only the fully encoded input (depth 4 left out for time)
    "control": DepthConfig(depths=(2, 8), seeds=tuple(range(8)), task_name="sort"),
    # the deepest models trained four times longer: does final-only catch up, or only learn more slowly?
    "long": DepthConfig(depths=(8,), steps=2400),
    # the learning-rate check: the deepest depth, trained at each rate of LR_GRID (`lr_sweep`)
    "lr": DepthConfig(depths=(8,)),
    # small enough for a test: two shallow depths, two seeds, a few dozen steps
    "quick": DepthConfig(
        depths=(1, 2), seeds=(0, 1), steps=20, eval_every=10, eval_size=64, probe_train=128, probe_test=64
    ),
}
LR_PRESET = "lr"  # the preset `lr_sweep` trains at every rate of LR_GRID
LR_GRID = (1e-3, 3e-3, 1e-2)  # around the main rate, a factor of about 3 each way


def run_key(cfg: DepthConfig, depth: int, wiring: str, seed: int) -> dict:
    """The cache key of one run: every setting, with only this depth, wiring and seed."""
    return replace(cfg, depths=(depth,), wirings=(wiring,), seeds=(seed,)).to_dict()


# --- probes ------------------------------------------------------------------------------------------


def ridge_fit(
    features: np.ndarray, targets: np.ndarray, ridge: float = RIDGE
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Closed-form ridge regression on standardised features (float64).

    Returns (mean, scale, weights) with weights [d + 1, k] (the last row is the bias, not penalised).
    """
    x = np.asarray(features, np.float64)
    mean, scale = x.mean(0), x.std(0)
    scale = np.where(scale > 1e-12, scale, 1.0)
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    penalty = ridge * len(x) * np.eye(z.shape[1])
    penalty[-1, -1] = 0.0
    weights = np.linalg.solve(z.T @ z + penalty, z.T @ np.asarray(targets, np.float64))
    return mean, scale, weights


def ridge_predict(model: tuple[np.ndarray, np.ndarray, np.ndarray], features: np.ndarray) -> np.ndarray:
    mean, scale, weights = model
    z = (np.asarray(features, np.float64) - mean) / scale
    return z @ weights[:-1] + weights[-1]


def probe_accuracies(
    fit_x: np.ndarray,
    fit_labels: dict[str, np.ndarray],
    test_x: np.ndarray,
    test_labels: dict[str, np.ndarray],
    classes: dict[str, int],
    ridge: float = RIDGE,
) -> dict[str, float]:
    """Held-out accuracy of a linear probe per target: ridge regression onto one-hot labels, then argmax.

    The targets share one solve (their one-hot blocks side by side), so each probe is what it would be alone.
    """
    names = list(classes)
    onehot = np.hstack([np.eye(classes[n])[np.asarray(fit_labels[n])] for n in names])
    scores = ridge_predict(ridge_fit(fit_x, onehot, ridge), test_x)
    out, start = {}, 0
    for n in names:
        block = scores[:, start : start + classes[n]]
        out[n] = float((block.argmax(1) == np.asarray(test_labels[n])).mean())
        start += classes[n]
    return out


@torch.no_grad()
def encoder_states(model: Transformer, x: torch.Tensor) -> list[np.ndarray]:
    """Per level 0..L (embeddings, then after each encoder layer): states [B * n, d] of every input token."""
    task_target = torch.full_like(x[:, :1], FIRST_SYMBOL)  # the decoder's input does not affect the encoder
    states = model(x, task_target, return_states=True).states["encoder"]
    return [h.reshape(-1, h.shape[-1]).double().numpy() for h in states]


def probe_labels(task: MajorityShiftedCopy, x: torch.Tensor) -> dict[str, np.ndarray]:
    """Per input token: its symbol (low level) and its sequence's majority bit (high level)."""
    bit = task.majority(x).long()[:, None].expand_as(x)
    return {"token": task.symbols(x).reshape(-1).numpy(), "majority": bit.reshape(-1).numpy()}


def probe_model(model: Transformer, cfg: DepthConfig, seed: int) -> dict[str, list[float]]:
    """Held-out probe accuracy per encoder level for each target (fitted and scored on different sequences)."""
    task = cfg.task
    gen = torch.Generator().manual_seed(seed + PROBE_SEED_OFFSET)
    fit_x, _ = task.sample(cfg.probe_train, gen)
    test_x, _ = task.sample(cfg.probe_test, gen)
    fit_states, test_states = encoder_states(model, fit_x), encoder_states(model, test_x)
    fit_labels, test_labels = probe_labels(task, fit_x), probe_labels(task, test_x)
    classes = {"token": task.n_symbols, "majority": 2}
    levels = [probe_accuracies(a, fit_labels, b, test_labels, classes) for a, b in zip(fit_states, test_states)]
    return {t: [level[t] for level in levels] for t in TARGETS}


# --- one run and the sweep -----------------------------------------------------------------------------


@torch.no_grad()
def error_anatomy(model: Transformer, cfg: DepthConfig, seed: int) -> dict[str, float]:
    """On the held-out set: how often the output has the right symbol (low level) and the right symbol set
    (high level), at the first output position and at the others (teacher forcing shows later positions the
    set of the previous target token)."""
    task = cfg.task
    x, y = task.sample(cfg.eval_size, torch.Generator().manual_seed(seed + EVAL_SEED_OFFSET))
    batch = make_batch("encoder_decoder", x, y)
    predicted = batch.run(model).logits.argmax(-1) - FIRST_SYMBOL  # [B, n] output symbol 0..2K-1
    wanted = y - FIRST_SYMBOL  # [B, n] the target symbol 0..2K-1
    k = task.n_symbols
    right_symbol = (predicted % k == wanted % k).float()
    right_set = ((predicted >= k) == (wanted >= k)).float()
    return {
        "symbol_first": float(right_symbol[:, 0].mean()),
        "symbol_rest": float(right_symbol[:, 1:].mean()),
        "set_first": float(right_set[:, 0].mean()),
        "set_rest": float(right_set[:, 1:].mean()),
    }


def run_one(cfg: DepthConfig, depth: int, wiring: str, seed: int, progress: Progress = SILENT) -> dict:
    """Train one model and measure it: history, final numbers, error anatomy, probes (trained and at init)."""
    model_cfg = cfg.model_config(depth, wiring)
    torch.manual_seed(seed)
    initial = Transformer(model_cfg).eval()  # the very weights `train` starts from (it seeds the same way)
    result = train_by_recipe(cfg.lab_recipe(), model_cfg, cfg.task, cfg.train_config(seed), progress)
    probes = {"trained": probe_model(result.model, cfg, seed), "untrained": probe_model(initial, cfg, seed)}
    anatomy = error_anatomy(result.model, cfg, seed)
    final = result.history[-1]
    return {
        "depth": depth,
        "wiring": wiring,
        "seed": seed,
        "parameters": result.model.num_parameters(),
        "flops_per_step": cfg.flops_per_step(depth, wiring),
        "steps_done": result.steps_done,
        "stopped": result.stopped,
        "seconds": result.seconds,
        "eval_loss": final["eval_loss"],
        "eval_accuracy": final["eval_accuracy"],
        "history": [
            {k: row[k] for k in ("step", "flops", "train_loss", "eval_loss", "eval_accuracy")} for row in result.history
        ],
        "anatomy": anatomy,
        "probes": probes,
        **({"lr": result.lr} if cfg.recipe != "old" else {}),
    }


def unread_layer_backward_flops(cfg: DepthConfig, depth: int) -> int:
    """Per example: the backward FLOPs a layer-aligned model skips, twice the forward of its unread top encoder
    layer (one encoder layer = a one-layer stack without the output head)."""
    layer = replace(cfg.model_config(depth, "final"), n_layers=1)
    return 2 * (stack_forward_flops(layer, cfg.length, cfg.length) - 2 * cfg.length * layer.d_model * layer.out_size)


def counted_flops(cfg: DepthConfig, depth: int, wiring: str, batch_size: int = 2) -> dict[str, int]:
    """Matmul FLOPs that torch's FlopCounterMode counts for one forward, and one forward + backward, per example.

    The accounting (`flops_per_step`) charges 3 x forward for both wirings; the counted backward of the
    layer-aligned model is smaller, since no gradient flows through its unread top encoder layer.
    """
    torch.manual_seed(0)
    model = Transformer(cfg.model_config(depth, wiring))
    batch = make_batch("encoder_decoder", *cfg.task.sample(batch_size, torch.Generator().manual_seed(0)))
    with FlopCounterMode(display=False) as forward, torch.no_grad():
        batch.run(model, need_weights=True)  # the explicit-softmax path: the counter has no rule for the fused one
    with FlopCounterMode(display=False) as both:
        loss_and_accuracy(batch.run(model, need_weights=True).logits, batch.labels)[0].backward()
    return {"forward": forward.get_total_flops() // batch_size, "train": both.get_total_flops() // batch_size}


def shipped_path(preset: str) -> Path:
    """Where `python -m explorer depth --preset <preset>` writes a shipped preset's results."""
    return SHIPPED_DIR / f"{preset}.json"


def load_shipped(path: Path | None = None) -> dict | None:
    """A shipped preset's results as written by the CLI (default: main; None when missing or unreadable)."""
    return shipped_results.load(path or SHIPPED_PATH)


def load_all_shipped() -> list[dict]:
    """Every shipped preset's results that can be read."""
    return [s for s in (load_shipped(shipped_path(p)) for p in SHIPPED_PRESETS) if s is not None]


Shipped = dict | list[dict] | None  # one shipped sweep, several, or none


def from_shipped(cfg: DepthConfig, depth: int, wiring: str, seed: int, shipped: Shipped) -> dict | None:
    """The run's record from a shipped sweep (or any of several) with the same settings, else None."""
    for sweep_result in shipped if isinstance(shipped, list) else [shipped]:
        if not sweep_result or not cfg.same_settings(sweep_result["config"]):
            continue
        record = next(
            (
                r
                for r in sweep_result["runs"]
                if (r["depth"], r["wiring"], r["seed"]) == (depth, wiring, seed) and r["steps_done"] == cfg.steps
            ),
            None,
        )
        if record is not None:
            return record
    return None


def plan(cfg: DepthConfig, shipped: Shipped = None, use_cache: bool = True) -> Plan[tuple[int, str, int]]:
    """Which (depth, wiring, seed) runs are ready (shipped or cached) and which are still to train."""
    return planning.plan(
        cfg.runs(),
        lambda run: from_shipped(cfg, *run, shipped),
        (CACHE_KIND, lambda run: run_key(cfg, *run)) if use_cache else None,
        RUN_SHAPE,
    )


def sweep(cfg: DepthConfig, shipped: Shipped = None, use_cache: bool = True, progress: Progress = SILENT) -> dict:
    """Every run of `cfg`: reused from `shipped` or the cache where possible, the rest trained now.

    When `progress` says to stop (cancelled or out of time), the model in training stops at its next step:
    that run is kept (marked) but not cached, and the runs after it are skipped.
    """
    start = time.perf_counter()
    planned = plan(cfg, shipped, use_cache)
    missing = planned.missing

    def label(run: tuple[int, str, int], i: int, n: int) -> str:
        depth, wiring, seed = run
        return content.text(
            MESSAGES,
            "depth-run",
            depth=depth,
            seed=seed,
            i=missing.index(run) + 1,
            total=len(missing),
            wiring=content.text(MESSAGES, f"depth-wiring-{wiring}"),
        )

    units = Units(
        keys=cfg.runs(),
        train=lambda run, part: run_one(cfg, *run, part),
        label=label,
        from_shipped=lambda run: from_shipped(cfg, *run, shipped),
        cache=(CACHE_KIND, lambda run: run_key(cfg, *run)) if use_cache else None,
        shape=RUN_SHAPE,
    )
    outcome = run_units(units, progress, content.text(MESSAGES, "done"))
    sources = outcome.plan.sources
    ready = [{**r, "source": sources.get((r["depth"], r["wiring"], r["seed"]), "trained")} for r in outcome.records]
    return {
        "config": cfg.to_dict(),
        "runs": ready,
        "stopped": outcome.stopped,
        "trained": len(missing),
        "seconds": time.perf_counter() - start,
    }


def lr_sweep(
    cfg: DepthConfig, lrs: tuple[float, ...] = LR_GRID, shipped: Shipped = None, progress: Progress = SILENT
) -> dict:
    """`cfg` trained at each learning rate of `lrs` (every run tagged with its `lr`), so each wiring can be
    compared at its own best rate: a gap that one shared rate makes would vanish there. Runs that `shipped`
    holds with the same settings (the main sweep, at its rate) are taken from it, marked as such."""
    runs, stopped, start = [], "steps", time.perf_counter()
    for i, lr in enumerate(lrs):
        prefix = content.text(MESSAGES, "lr", lr=lr) + colon()
        swept = sweep(
            replace(cfg, lr=lr),
            shipped,
            use_cache=False,
            progress=progress.part(i / len(lrs), (i + 1) / len(lrs), prefix),
        )
        runs += [{**r, "lr": lr} for r in swept["runs"]]
        stopped = swept["stopped"]
        if stopped != "steps":
            break
    return {
        "config": cfg.to_dict(),
        "lrs": list(lrs),
        "runs": runs,
        "stopped": stopped,
        "seconds": time.perf_counter() - start,
    }


def available(cfg: DepthConfig, shipped: Shipped = None) -> tuple[dict, list[tuple]]:
    """What can be shown for `cfg` without training: a sweep-shaped dict of the ready runs (with `rejected`: why
    cached records that could not be used were removed), and the missing runs."""
    planned = plan(cfg, shipped)
    return (
        {
            "config": cfg.to_dict(),
            "runs": planned.records(),
            "stopped": "steps",
            "trained": 0,
            "seconds": 0.0,
            "rejected": list(planned.rejected.values()),
        },
        planned.missing,
    )


# --- analysis ------------------------------------------------------------------------------------------


def _spread(values: list[float]) -> dict:
    arr = np.asarray(values, float)
    return {
        "mean": float(arr.mean()),
        "sd": float(arr.std(ddof=1)) if len(arr) > 1 else float("nan"),
        "per_seed": [float(v) for v in arr],
    }


def _late_drop(history: list[dict], fraction: float = 1 / 6) -> float:
    """How much the held-out loss fell over the last `fraction` of training (positive: still improving)."""
    steps = [row["step"] for row in history]
    cut = steps[-1] * (1 - fraction)
    earlier = [row for row in history if row["step"] <= cut]
    return float(earlier[-1]["eval_loss"] - history[-1]["eval_loss"]) if earlier else float("nan")


def _paired_test(a: dict, b: dict, metric: str) -> dict:
    """Cell `a` minus cell `b` on `metric`, seed by seed: the exact sign-flip p (NaN under 2 shared seeds),
    the smallest p those seeds allow, and Welch's t with its detectable difference for planning."""
    first = dict(zip(a["seeds"], a[metric]["per_seed"]))
    second = dict(zip(b["seeds"], b[metric]["per_seed"]))
    shared = sorted(set(first) & set(second))
    out = compare_unpaired(a[metric]["per_seed"], b[metric]["per_seed"])
    out["welch_p"] = out["p"]
    diffs = [first[s] - second[s] for s in shared]
    out.update(
        p=sign_flip_p(diffs) if len(shared) >= 2 else float("nan"),
        diffs=diffs,
        pairs=len(shared),
        smallest_p=smallest_p(len(shared)),
        test="exact sign-flip test, paired by seed",
    )
    return out


def analyse(swept: dict) -> dict:
    """Per depth and wiring: final numbers with seed spread, curves, probes; per depth an exact paired test.

    A seed gives both wirings the same initial weights, batches and held-out set, so the wirings are compared
    seed by seed: the p-value is the exact sign-flip test of the per-seed differences, which with n seeds
    cannot go below 2 / 2**n (0.25 for 3). Welch's t (`welch_p`) and its smallest detectable difference are
    kept for planning how many seeds a question needs.

    Only complete runs (trained for every step) count; `incomplete` lists the others.
    """
    cfg = DepthConfig.from_dict(swept["config"])
    complete = [r for r in swept["runs"] if r["steps_done"] == cfg.steps]
    cells: dict[int, dict[str, dict]] = {}
    for depth in cfg.depths:
        for wiring in cfg.wirings:
            runs = sorted(
                (r for r in complete if r["depth"] == depth and r["wiring"] == wiring), key=lambda r: r["seed"]
            )
            if not runs:
                continue
            steps = [row["step"] for row in runs[0]["history"]]
            cells.setdefault(depth, {})[wiring] = {
                "seeds": [r["seed"] for r in runs],
                "parameters": runs[0]["parameters"],
                "flops_per_step": runs[0]["flops_per_step"],
                "accuracy": _spread([r["eval_accuracy"] for r in runs]),
                "loss": _spread([r["eval_loss"] for r in runs]),
                "late_drop": _spread([_late_drop(r["history"]) for r in runs]),
                "steps": steps,
                "curves": {
                    key: np.array([[row[key] for row in r["history"]] for r in runs])
                    for key in ("eval_loss", "eval_accuracy", "train_loss")
                },
                "anatomy": {key: _spread([r["anatomy"][key] for r in runs]) for key in runs[0]["anatomy"]},
                "probes": {
                    when: {t: np.array([r["probes"][when][t] for r in runs]) for t in TARGETS}
                    for when in ("trained", "untrained")
                },
                "seconds": float(sum(r["seconds"] for r in runs)),
            }
    tests = {}
    for depth, by_wiring in cells.items():
        if len(by_wiring) == 2:
            final, aligned = by_wiring["final"], by_wiring["aligned"]
            with warnings.catch_warnings():  # a wiring that solves the task in every seed has (near) zero spread
                warnings.simplefilter("ignore", RuntimeWarning)
                tests[depth] = {
                    "loss": _paired_test(final, aligned, "loss"),
                    "accuracy": _paired_test(aligned, final, "accuracy"),
                }
    task = cfg.task
    return {
        "config": swept["config"],
        "depths": sorted(cells),
        "cells": cells,
        "tests": tests,
        "seeds": sorted({r["seed"] for r in complete}),
        "chance": {"token": 1 / task.n_symbols, "majority": 0.5},
        "single_token_ceiling": task.single_token_ceiling(),
        "incomplete": [
            {k: r[k] for k in ("depth", "wiring", "seed", "steps_done")}
            for r in swept["runs"]
            if r["steps_done"] != cfg.steps
        ],
        "stopped": swept.get("stopped", "steps"),
    }


def analyse_lr(swept: dict) -> dict:
    """Per wiring and learning rate: held-out loss and accuracy over seeds; each wiring's best rate (lowest mean
    loss; `most_accurate`: highest mean accuracy, which can differ), whether the best lies at an edge of the
    grid, and the exact paired tests at the two best rates."""
    cfg = DepthConfig.from_dict(swept["config"])
    (depth,) = cfg.depths
    complete = [r for r in swept["runs"] if r["steps_done"] == cfg.steps and r["depth"] == depth]
    cells: dict[str, dict[float, dict]] = {}
    for wiring in cfg.wirings:
        for lr in swept["lrs"]:
            runs = sorted((r for r in complete if r["wiring"] == wiring and r["lr"] == lr), key=lambda r: r["seed"])
            if runs:
                cells.setdefault(wiring, {})[lr] = {
                    "seeds": [r["seed"] for r in runs],
                    "accuracy": _spread([r["eval_accuracy"] for r in runs]),
                    "loss": _spread([r["eval_loss"] for r in runs]),
                }
    best = {w: min(by_lr, key=lambda lr: by_lr[lr]["loss"]["mean"]) for w, by_lr in cells.items()}
    most_accurate = {w: max(by_lr, key=lambda lr: by_lr[lr]["accuracy"]["mean"]) for w, by_lr in cells.items()}
    out = {
        "config": swept["config"],
        "depth": depth,
        "lrs": swept["lrs"],
        "cells": cells,
        "best": best,
        "most_accurate": most_accurate,
        "at_edge": {w: lr in (min(swept["lrs"]), max(swept["lrs"])) for w, lr in best.items()},
        "seeds": sorted({r["seed"] for r in complete}),
        "tests": {},
    }
    if len(best) == 2:
        final, aligned = cells["final"][best["final"]], cells["aligned"][best["aligned"]]
        with warnings.catch_warnings():  # a wiring that solves the task in every seed has (near) zero spread
            warnings.simplefilter("ignore", RuntimeWarning)
            out["tests"] = {
                "loss": _paired_test(final, aligned, "loss"),
                "accuracy": _paired_test(aligned, final, "accuracy"),
            }
    return out


def gaps(analysis: dict) -> list[dict]:
    """Per depth with both wirings: the paired gaps layer-aligned minus final-only (accuracy; loss as final minus
    aligned, so positive favours layer-aligned too), their seed range, the exact p-values and the floor p."""
    rows = []
    for depth, test in sorted(analysis["tests"].items()):
        row = {"depth": depth, "seeds": test["accuracy"]["pairs"], "smallest_p": test["accuracy"]["smallest_p"]}
        for name in ("accuracy", "loss"):
            diffs = test[name]["diffs"]
            row.update(
                {
                    f"{name}_gap": float(np.mean(diffs)),
                    f"{name}_range": [min(diffs), max(diffs)],
                    f"p_{name}": test[name]["p"],
                }
            )
        rows.append(row)
    return rows


def table(analysis: dict) -> list[dict]:
    """One row per depth and wiring: the numbers of the page's table and the CLI's text."""
    rows = []
    for depth in analysis["depths"]:
        for wiring, cell in analysis["cells"][depth].items():
            test = analysis["tests"].get(depth, {})
            rows.append(
                {
                    "depth": depth,
                    "wiring": wiring,
                    "seeds": len(cell["seeds"]),
                    "accuracy_mean": cell["accuracy"]["mean"],
                    "accuracy_sd": cell["accuracy"]["sd"],
                    "loss_mean": cell["loss"]["mean"],
                    "loss_sd": cell["loss"]["sd"],
                    "late_drop_mean": cell["late_drop"]["mean"],
                    "p_loss": test.get("loss", {}).get("p", float("nan")),
                    "p_accuracy": test.get("accuracy", {}).get("p", float("nan")),
                    "parameters": cell["parameters"],
                    "flops_per_step": cell["flops_per_step"],
                }
            )
    return rows


# --- time estimates for on-demand runs -------------------------------------------------------------------

SECONDS_PER_STEP_FALLBACK = (0.004, 0.004)  # (fixed, per layer) seconds per training step, if nothing is measured


def step_time_model(sweeps: list[dict]) -> tuple[float, float]:
    """Seconds per training step as a + b * depth, least squares over the quickest run of each depth in the
    shipped sweeps: other work on a shared machine only ever slows a run down, so the quickest run is the
    least disturbed measurement of what this recipe costs."""
    quickest: dict[int, float] = {}
    for sweep in sweeps:
        for r in sweep.get("runs", []):
            if r.get("steps_done") and r.get("seconds") and r.get("source") != "shipped":
                per_step = r["seconds"] / r["steps_done"]
                quickest[r["depth"]] = min(per_step, quickest.get(r["depth"], math.inf))
    if len(quickest) < 2:
        return SECONDS_PER_STEP_FALLBACK
    b, a = np.polyfit(np.array(list(quickest), float), np.array(list(quickest.values())), 1)
    return max(float(a), 0.0), max(float(b), 1e-4)


def estimate_seconds(cfg: DepthConfig, missing: list[tuple], rate: tuple[float, float]) -> float:
    """Wall time to train `missing` runs of `cfg` here (wider models scale up, narrower ones do not down)."""
    a, b = rate
    width = max(1.0, cfg.d_model / PRESETS["main"].d_model)
    batch = max(1.0, cfg.batch_size / PRESETS["main"].batch_size)
    overhead = 1.0 + cfg.eval_size / (TRAIN_FLOPS_PER_FORWARD * cfg.batch_size * cfg.eval_every)
    return sum((a + b * depth) * cfg.steps * width * batch * overhead for depth, _, _ in missing)
