"""The Bitter Lesson (slides 8-9): a method built on what we believe about the task against a general learner.

The task is a toy review: `length` words drawn independently, each positive, negative, neutral, or "not".
The review is positive when it holds more positive than negative words, and in the first case ("order") a
"not" as the very first word turns the whole verdict around. The belief a person would build in is that a
review is a bag of words: order does not matter, and a lexicon tells positive from negative words. The
hand-built method encodes exactly that: two hand-made features (the lexicon's vote and the number of "not"s)
and a small MLP on them. The general method is the project's one
Transformer (`explorer.model`), configured as an encoder that reads the raw words after a class token.

Counts cannot see whether the "not" came first, so the hand-built method has a ceiling, and its floor on the
held-out loss has a closed form (`counts_floor`): given k "not"s among `length` words, the first word is one
of them with probability k / length. The second case ("counts") keeps the words and the label rate but
flips the verdict with that same probability, by a coin: the label depends on the counts alone, a true
invariance, so the hand-built structure is right and the same floor binds every method.

Both methods train on the same stream of examples and are scored on the same held-out reviews for a seed
(paired by data; their weights differ by nature). Every checkpoint records the examples seen and the
training FLOPs spent, counted honestly for both: the Transformer's from `explorer.costs`, the hand-built
method's counting (one add per word) plus its MLP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from scipy import stats as sps
from torch import nn

from explorer import content
from explorer.costs import TRAIN_FLOPS_PER_FORWARD, sequence_forward_flops
from explorer.lab import device as lab_device
from explorer.lab.fit import FitPlan, fit
from explorer.lab.recipe import PILOT_SEED, choose_lr
from explorer.lab.runner import Units
from explorer.lab.runner import run as run_units
from explorer.model import Transformer, TransformerConfig
from explorer.progress import SILENT, Progress
from explorer.recipe import Reviewable, check_seeds
from explorer.stats import holm, sign_flip_p, smallest_p, tost_sign_flip
from explorer.tasks import BOS, FIRST_SYMBOL
from explorer.train import EVAL_SEED_OFFSET

BOOK = "bitter-lesson"  # the page's content book: the progress messages a run shows
SHIPPED_DIR = Path(__file__).resolve().parents[2] / "data" / "bitter_lesson"
POSITIVE = ("good", "great", "fine", "fun")
NEGATIVE = ("bad", "dull", "poor", "weak")
NEUTRAL = ("the", "plot", "film", "cast")
NOT = "not"
WORDS = (*POSITIVE, *NEGATIVE, *NEUTRAL, NOT)  # symbol s is token FIRST_SYMBOL + s
FEATURES = ("the lexicon's vote", "'not's")  # what the hand-built method sees
CASES = ("order", "counts")  # a "not" first flips the verdict / a coin with the same odds flips it
METHODS = ("hand-built", "transformer")
MAX_SEEDS = 8
MAX_STEPS = 6000
SMALL_BUDGET = 1000  # examples: the small budget tested, the first checkpoint at or past it (declared up front)
EQUIVALENCE_MARGIN = 0.02  # nats: "no better than the counts" in the second case, declared before any run
INIT_OFFSET = 7_919  # the hand-built method's initial weights come from a seed the Transformer's never use


@dataclass(frozen=True)
class BitterConfig(Reviewable):  # lr_grid is the Transformer's; the hand-built method's is HAND_LR_SCALE times it
    cases: tuple[str, ...] = CASES
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7)
    length: int = 16  # words per review
    not_rate: float = 0.1  # chance that a word is "not"; the others share the rest equally
    steps: int = 2000  # optimizer steps per model; examples seen = steps x batch_size
    batch_size: int = 32
    first_checkpoint: int = 4  # the step of the first held-out evaluation
    per_doubling: int = 2  # evaluations per doubling of the steps after it (and at the last step): a shorter run
    # evaluates at the same steps as a longer one, so it is a slice of it
    eval_size: int = 1024  # held-out reviews per seed, the same for both methods
    lr: float = 3e-3  # Adam, both methods, linear warm-up then constant
    warmup: int = 20
    grad_clip: float = 1.0
    d_model: int = 32  # the Transformer: an encoder read at its class token
    n_layers: int = 1
    n_heads: int = 4
    hand_width: int = 16  # hidden units of the hand-built method's MLP on counts
    hand_lr: float = 3e-2  # its Adam learning rate: a small model on counts takes larger steps

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "seeds", check_seeds(self.seeds, MAX_SEEDS))
        if not self.cases or any(c not in CASES for c in self.cases) or len(set(self.cases)) != len(self.cases):
            raise ValueError(f"cases must be distinct values among {CASES}, got {list(self.cases)}")
        if not 1 <= self.steps <= MAX_STEPS:
            raise ValueError(f"steps must be 1 to {MAX_STEPS}, got {self.steps}")
        if not 0 < self.not_rate < 0.5 or not 2 <= self.length <= 64:
            raise ValueError("a review needs 2 to 64 words and a 'not' rate between 0 and 0.5")

    def transformer(self) -> TransformerConfig:
        return TransformerConfig(
            arch="encoder",
            vocab_size=FIRST_SYMBOL + len(WORDS),
            n_out=2,
            d_model=self.d_model,
            n_heads=self.n_heads,
            n_layers=self.n_layers,
            max_len=self.length + 1,
        )

    def checkpoint_steps(self) -> list[int]:
        doublings = math.log2(max(self.steps / self.first_checkpoint, 1.0))
        grid = self.first_checkpoint * 2 ** (np.arange(int(doublings * self.per_doubling) + 1) / self.per_doubling)
        return sorted({int(round(s)) for s in grid if s <= self.steps} | {self.steps})

    def flops_per_example(self, method: str) -> int:
        """Training FLOPs per example: forward and backward (3x the forward, `explorer.costs`)."""
        if method == "transformer":
            n = self.length + 1  # the class token and the words
            return TRAIN_FLOPS_PER_FORWARD * sequence_forward_flops(self.transformer(), n, n)
        mlp = 2 * (len(FEATURES) * self.hand_width + self.hand_width * 2)
        counting = 2 * self.length + 1  # an add per word for each feature, one comparison; no backward
        return counting + TRAIN_FLOPS_PER_FORWARD * mlp


PRESETS = {
    "quick": BitterConfig(cases=("order",), seeds=(0, 1, 2), steps=800, eval_size=512),
    "main": BitterConfig(steps=1600),
}


def shipped_path(preset: str = "main") -> Path:
    return SHIPPED_DIR / f"{preset}.json"


# --- the task ------------------------------------------------------------------------------------------


def sample(cfg: BitterConfig, case: str, n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """n reviews as symbol indices [n, length] and their labels [n] (1 = positive)."""
    others = torch.randint(0, len(WORDS) - 1, (n, cfg.length), generator=generator)
    is_not = torch.rand((n, cfg.length), generator=generator) < cfg.not_rate
    words = torch.where(is_not, len(WORDS) - 1, others)
    vote, nots = features(words).T
    if case == "order":
        flip = words[:, 0] == len(WORDS) - 1
    else:  # the same odds as "a 'not' came first", drawn without looking at the order
        flip = torch.rand(n, generator=generator) < nots / cfg.length
    return words, ((vote > 0) ^ flip).long()


def features(words: torch.Tensor) -> torch.Tensor:
    """The hand-made features of reviews [B, length] -> [B, 2]: the lexicon's vote (+1 when positive words
    outnumber negative ones, else -1) and the number of "not"s."""
    positive = (words < len(POSITIVE)).sum(1)
    negative = ((words >= len(POSITIVE)) & (words < len(POSITIVE) + len(NEGATIVE))).sum(1)
    vote = torch.where(positive > negative, 1.0, -1.0)
    return torch.stack([vote, (words == len(WORDS) - 1).sum(1).float()], dim=1)


def counts_floor(cfg: BitterConfig) -> dict[str, float]:
    """The best held-out loss (nats) and accuracy any method on counts can reach, in closed form: given k "not"s
    the verdict is flipped with probability k / length, and nothing in the counts says more."""
    k = np.arange(cfg.length + 1)
    weight = sps.binom.pmf(k, cfg.length, cfg.not_rate)
    p = k / cfg.length
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = np.nan_to_num(-(p * np.log(p) + (1 - p) * np.log(1 - p)))
    return {"loss": float(weight @ entropy), "accuracy": float(weight @ np.maximum(p, 1 - p))}


def floors(cfg: BitterConfig, case: str) -> dict[str, float]:
    """Per method, the lowest held-out loss the task allows it (by construction)."""
    counts = counts_floor(cfg)["loss"]
    return {"hand-built": counts, "transformer": 0.0 if case == "order" else counts}


def examples(cfg: BitterConfig, case: str, seed: int = 11) -> list[dict]:
    """Three reviews to show: two as drawn, then the first drawn that starts with "not" (the rule at work)."""
    words, labels = sample(cfg, case, 200, torch.Generator().manual_seed(seed))
    found = [
        {"review": " ".join(WORDS[i] for i in row), "label": "positive" if y else "negative"}
        for row, y in zip(words.tolist(), labels.tolist())
    ]
    leading = [e for e in found if e["review"].startswith(NOT + " ")]
    return [e for e in found if e not in leading][:2] + leading[:1]


# --- the two methods --------------------------------------------------------------------------------------


class CountsModel(nn.Module):
    """The hand-built method: what a person believes, built in. A review is a bag of words (order does not
    matter), and a hand-written lexicon says which words are positive and negative; so let the lexicon vote,
    count the "not"s (the hand-made features), and let a small MLP learn the verdict from the two."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(len(FEATURES), width), nn.GELU(), nn.Linear(width, 2))

    def forward(self, words: torch.Tensor) -> torch.Tensor:
        return self.mlp(features(words))  # [B, 2]


class ReadsSequence(nn.Module):
    """The general method: the Transformer reads [class token ; words] and answers at the class token."""

    def __init__(self, cfg: TransformerConfig) -> None:
        super().__init__()
        self.transformer = Transformer(cfg)

    def forward(self, words: torch.Tensor) -> torch.Tensor:
        cls = torch.full((words.shape[0], 1), BOS, dtype=words.dtype)
        return self.transformer(torch.cat([cls, words + FIRST_SYMBOL], dim=1)).logits[:, 0]  # [B, 2]


def build(cfg: BitterConfig, method: str, seed: int) -> nn.Module:
    torch.manual_seed(seed if method == "transformer" else seed + INIT_OFFSET)
    return ReadsSequence(cfg.transformer()) if method == "transformer" else CountsModel(cfg.hand_width)


@dataclass(frozen=True)
class ReviewTask:
    """The reviews of one case under the lab's task protocol (`explorer.lab.protocol`): a verdict per review."""

    cfg: BitterConfig
    case: str

    def batches(self, n: int, generator: torch.Generator, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        words, labels = sample(self.cfg, self.case, n, generator)
        return words.to(device), labels.to(device)

    def loss(self, model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        logits = model(batch[0])
        return F.cross_entropy(logits, batch[1]), (logits.argmax(1) == batch[1]).float().mean()

    def readout(self, model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> dict[str, float]:
        loss, accuracy = self.loss(model, batch)
        return {"eval_loss": float(loss), "eval_accuracy": float(accuracy)}


def train_one(
    cfg: BitterConfig,
    case: str,
    method: str,
    seed: int,
    progress: Progress = SILENT,
    share=None,
    device: torch.device | str | None = None,
    lr: float | None = None,
) -> dict:
    """One model's learning curve: held-out loss and accuracy at each checkpoint, with examples and FLOPs,
    trained by the lab's one loop (under the reviewed recipe each checkpoint is a decayed branch's readout).
    Stops early (recording where) when `progress` says so; `share(run)` is called at every checkpoint."""
    model = build(cfg, method, seed)
    task, device = ReviewTask(cfg, case), torch.device(device or lab_device.current())
    recipe = cfg.lab_recipe()
    data = torch.Generator().manual_seed(seed)  # the same batches for both methods
    held_out = task.batches(cfg.eval_size, torch.Generator().manual_seed(seed + EVAL_SEED_OFFSET), device)
    per_example = cfg.flops_per_example(method)
    checkpoints = tuple(cfg.checkpoint_steps())
    reviewed = cfg.recipe == "reviewed"
    plan = FitPlan(
        budgets=checkpoints if reviewed else (cfg.steps,),
        lr=lr or (cfg.lr if method == "transformer" else cfg.hand_lr),
        schedule=recipe.schedule,
        batch_size=cfg.batch_size,
        grad_clip=cfg.grad_clip,
        eval_steps=frozenset() if reviewed else frozenset(checkpoints),
        readout_k=recipe.k,
        flops_per_step=cfg.batch_size * per_example,
    )
    run = {
        "case": case,
        "method": method,
        "seed": seed,
        "data": [],
        "flops": [],
        "loss": [],
        "accuracy": [],
        "stopped": "steps",
        **({"lr": plan.lr} if reviewed else {}),
    }

    def checkpoint(row: dict, fraction: float) -> None:
        if reviewed and "readout" not in row:
            return  # only a finished decay branch makes a point of the curve
        point = row.get("readout", row)
        seen = point["step"] * cfg.batch_size
        for key, value in (
            ("data", seen),
            ("flops", seen * per_example),
            ("loss", point["eval_loss"]),
            ("accuracy", point["eval_accuracy"]),
        ):
            run[key].append(value)
        if share is not None:
            share(run)
        progress.update(
            fraction,
            content.text(
                BOOK,
                "progress",
                method=content.text(BOOK, f"method-{method}"),
                seed=seed,
                seen=seen,
                loss=point["eval_loss"],
            ),
        )

    fitted = fit(model, task, plan, data, held_out, device, progress, checkpoint)
    run["stopped"], run["seconds"] = fitted.stopped, fitted.seconds
    return run


HAND_LR_SCALE = 10.0  # the hand-built MLP's grid: the Transformer's times this (the old rates: 3e-2 against 3e-3)


def choose_lrs(cfg: BitterConfig, device: str | None = None, progress: Progress = SILENT) -> dict[str, dict]:
    """Per method: {"lr", "pilots": {rate: selection loss}}. Reviewed: each method's rate from its grid by a pilot
    on the pilot seed (no reported run uses it; its held-out set is no scoring set), `pilot_fraction` of the run,
    on the first case. Old: the recipe's two fixed rates."""
    if cfg.recipe == "old":
        return {"transformer": {"lr": cfg.lr, "pilots": {}}, "hand-built": {"lr": cfg.hand_lr, "pilots": {}}}
    pilot = replace(cfg, steps=cfg.lab_recipe().pilot_steps(cfg.steps))
    out = {}
    for i, method in enumerate(METHODS):
        grid = cfg.lr_grid if method == "transformer" else tuple(v * HAND_LR_SCALE for v in cfg.lr_grid)
        part = progress.part(i / len(METHODS), (i + 1) / len(METHODS), f"pilots {method}: ")
        lr, losses = choose_lr(
            grid,
            lambda rate: (
                train_one(pilot, cfg.cases[0], method, PILOT_SEED, part, device=device, lr=rate)["loss"]
                or [float("nan")]
            )[-1],
        )
        out[method] = {"lr": lr, "pilots": {repr(k): v for k, v in losses.items()}}
    return out


def run(cfg: BitterConfig, progress: Progress = SILENT, device: str | None = None) -> dict:
    """Every case, seed and method of `cfg`, the hand-built method first in each seed, through the lab's runner.
    Publishes the runs so far through `progress.share` at every checkpoint, so a page can draw the curves as they
    grow."""
    device = device or lab_device.current()
    pilots_share = 0.1 if cfg.recipe == "reviewed" else 0.0
    choices = choose_lrs(cfg, device, progress.part(0.0, pilots_share))
    done: list[dict] = []

    def one(job: tuple[str, int, str], part: Progress) -> dict:
        case, seed, method = job
        record = train_one(
            cfg,
            case,
            method,
            seed,
            part,
            device=device,
            lr=choices[method]["lr"],
            share=lambda current: progress.share({"config": cfg.to_dict(), "runs": [*done, current]}),
        )
        done.append(record)
        return record

    units = Units(
        keys=[(case, seed, method) for case in cfg.cases for seed in cfg.seeds for method in METHODS],
        train=one,
        weight=lambda job: cfg.flops_per_example(job[2]),  # the Transformer's take nearly all
        label=lambda job, i, n: content.text(BOOK, "progress-case", case=content.text(BOOK, f"case-{job[0]}")),
    )
    outcome = run_units(units, progress.part(pilots_share, 1.0))
    recipe = cfg.lab_recipe().record(
        {m: c["lr"] for m, c in choices.items()}, pilots={m: c["pilots"] for m, c in choices.items()}
    )
    return {
        "config": cfg.to_dict(),
        "runs": outcome.records,
        "stopped": outcome.stopped,
        "recipe": recipe,
        "device": lab_device.label(device),
    }


# --- analysis ------------------------------------------------------------------------------------------------


def _runs(result: dict, case: str, method: str) -> list[dict]:
    return [r for r in result["runs"] if r["case"] == case and r["method"] == method and r["loss"]]


def curves(result: dict, case: str) -> dict[str, list[dict]]:
    """Per method, every checkpoint of every seed as {data, flops, loss, accuracy, seed} (the CLI's `curves`)."""
    keys = ("data", "flops", "loss", "accuracy")
    return {
        m: [
            {**dict(zip(keys, point)), "seed": r["seed"]}
            for r in _runs(result, case, m)
            for point in zip(*(r[k] for k in keys))
        ]
        for m in METHODS
    }


def crossing(x: np.ndarray, hand: np.ndarray, general: np.ndarray) -> float | None:
    """Where the general method's loss falls below the hand-built method's for good, interpolated in log x;
    None when it ends above (or level), or when it is below from the first point on (no crossing in range)."""
    gap = np.asarray(general, float) - np.asarray(hand, float)  # > 0: the hand-built method leads
    behind = np.nonzero(gap >= 0)[0]
    if gap[-1] >= 0 or not len(behind):
        return None
    i = behind[-1]
    t = gap[i] / (gap[i] - gap[i + 1])
    return float(np.exp(np.log(x[i]) + t * (np.log(x[i + 1]) - np.log(x[i]))))


def hand_at(hand_flops: np.ndarray, hand_loss: np.ndarray, flops: np.ndarray) -> np.ndarray:
    """The hand-built method's loss at each of `flops`: its last checkpoint at or below that compute. Past its
    last checkpoint it has seen every example the run gave it, and its last loss stands (the figure draws it
    dashed); `counts_floor` says how far more compute on the same features could take it."""
    at = np.searchsorted(hand_flops, flops, side="right") - 1
    return np.asarray(hand_loss)[np.clip(at, 0, None)]  # (its first loss below its first checkpoint: never
    # reached here, a Transformer example costs a thousand times more than a hand-built one)


def _crossover(data: np.ndarray, hand: dict, general: dict) -> tuple[float | None, float | None]:
    """(crossing compute, crossing data) of one pair of curves: FLOPs on the general method's axis."""
    on_data = crossing(data, hand["loss"], general["loss"])
    on_flops = crossing(general["flops"], hand_at(hand["flops"], hand["loss"], general["flops"]), general["loss"])
    return on_flops, on_data


def geometric_summary(values: list[float]) -> dict | None:
    """Per-seed crossings summarised: their geometric mean and a 95% t-interval on the log scale (None below two
    seeds). The crossing of the mean curves is not this: averaging curves first can move the crossing."""
    if not values:
        return None
    logs = np.log(np.asarray(values, float))
    mean = float(np.exp(logs.mean()))
    if len(logs) < 2:
        return {"geomean": mean, "low": None, "high": None, "seeds": len(logs)}
    half = float(sps.t.ppf(0.975, len(logs) - 1) * logs.std(ddof=1) / np.sqrt(len(logs)))
    return {
        "geomean": mean,
        "low": float(np.exp(logs.mean() - half)),
        "high": float(np.exp(logs.mean() + half)),
        "seeds": len(logs),
    }


def _paired(diffs: np.ndarray) -> dict:
    return {
        "mean_diff": float(diffs.mean()),
        "low": float(diffs.min()),
        "high": float(diffs.max()),
        "hand_leads": int((diffs > 0).sum()),
        "pairs": len(diffs),
        "p": sign_flip_p(diffs),
        "smallest_p": smallest_p(len(diffs)),
    }


def analyse_case(result: dict, case: str) -> dict | None:
    """Seed means and ranges per method, the crossover (mean curves, then its range over seeds) and the paired
    tests at a small and the largest budget. Seeds count only where both methods finished a checkpoint."""
    cfg = BitterConfig.from_dict(result["config"])
    by_method = {m: {r["seed"]: r for r in _runs(result, case, m)} for m in METHODS}
    seeds = sorted(set(by_method["hand-built"]) & set(by_method["transformer"]))
    if not seeds:
        return None
    n = min(len(by_method[m][s]["loss"]) for m in METHODS for s in seeds)
    data = np.asarray(by_method["transformer"][seeds[0]]["data"][:n], float)
    methods = {}
    for m in METHODS:
        loss = np.array([by_method[m][s]["loss"][:n] for s in seeds])  # [seeds, checkpoints]
        methods[m] = {
            "flops": data * cfg.flops_per_example(m),
            "loss": loss,
            "mean": loss.mean(0),
            "low": loss.min(0),
            "high": loss.max(0),
            "accuracy": np.array([by_method[m][s]["accuracy"][:n] for s in seeds]).mean(0),
        }
    per_seed = [
        _crossover(
            data,
            {"flops": methods["hand-built"]["flops"], "loss": methods["hand-built"]["loss"][i]},
            {"flops": methods["transformer"]["flops"], "loss": methods["transformer"]["loss"][i]},
        )
        for i in range(len(seeds))
    ]
    mean = _crossover(
        data,
        {"flops": methods["hand-built"]["flops"], "loss": methods["hand-built"]["mean"]},
        {"flops": methods["transformer"]["flops"], "loss": methods["transformer"]["mean"]},
    )
    crossed = [c for c in per_seed if c[0] is not None and c[1] is not None]
    crossover = (
        None
        if mean[0] is None or mean[1] is None
        else {
            "flops": mean[0],
            "data": mean[1],
            "seeds_crossed": len(crossed),
            "seeds": len(seeds),
            "flops_range": [min(c[0] for c in crossed), max(c[0] for c in crossed)] if crossed else None,
            "data_range": [min(c[1] for c in crossed), max(c[1] for c in crossed)] if crossed else None,
            **{
                f"{axis}_per_seed": geometric_summary([c[j] for c in crossed])
                for j, axis in ((0, "flops"), (1, "data"))
            },
        }
    )
    small = int(np.searchsorted(data, SMALL_BUDGET)) if data[-1] >= SMALL_BUDGET else 0
    gaps = methods["transformer"]["loss"] - methods["hand-built"]["loss"]  # > 0: the hand-built method leads
    tests = {
        "small": {"at": small, "data": float(data[small]), **_paired(gaps[:, small])},
        "large": {"at": len(data) - 1, "data": float(data[-1]), **_paired(gaps[:, -1])},
    }
    tests["equivalence"] = tost_sign_flip(
        methods["transformer"]["loss"][:, -1], methods["hand-built"]["loss"][:, -1], EQUIVALENCE_MARGIN
    )
    return {
        "case": case,
        "seeds": seeds,
        "data": data,
        "methods": methods,
        "crossover": crossover,
        "per_seed": per_seed,
        "tests": tests,
        "floors": floors(cfg, case),
        "counts_floor": counts_floor(cfg),
        "complete": result.get("stopped", "steps") == "steps" and n == len(cfg.checkpoint_steps()),
    }


def analyse(result: dict) -> dict[str, dict]:
    """Every case of a run, with Holm's correction over all the paired difference tests on the page."""
    cases = {c: a for c in result["config"]["cases"] if (a := analyse_case(result, c)) is not None}
    tests = [(c, k) for c in cases for k in ("small", "large")]
    for (c, k), adjusted in zip(tests, holm([cases[c]["tests"][k]["p"] for c, k in tests])):
        cases[c]["tests"][k]["holm_p"] = adjusted
    return cases
