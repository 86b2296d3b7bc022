"""Separate or shared parameters for input and target (slides 53-55), measured at matched parameter counts.

Slides 53-54: in translation the input and the target are different languages, so giving the encoder and the
decoder their own weights spends a small budget where the data differ. Slide 55: once the objective is general
knowledge that should serve both sides (and many languages), that separation looks less natural.

Two variants of the one configurable Transformer; step 1's sharing of cross- and self-attention projections is on
in both, so exactly one flag differs (`share_encoder_decoder`, step 2 of the four steps):
  shared    one stack of layers runs the input (bidirectionally) and the target (causally), width 64
  separate  an encoder stack and a decoder stack, narrowed to the shared model's parameter count: the widest
            multiple of the head count that stays below it, then the MLP's hidden width fills the rest
            (`separate_config`; the counts agree within 0.5%). Being narrower, it spends fewer FLOPs per token.
Token and position embeddings and the output head exist once in both (the model shares them by design).

Three tasks, all with the same 36 token ids, so both variants have the same size on every task:
  translation     the input is 8 symbols of language A; the target is the input reversed (word order changes)
                  with every word looked up in a fixed dictionary into language B (16 other symbols)
  one-vocabulary  the same rule, but the dictionary maps language A into itself: input and target share symbols
  transfer        one vocabulary of 32 symbols and one fact table f (a successor in one of two 16-cycles, A and
                  B). Training mixes two tasks, marked by the first input token: "map" (apply f to 7 input
                  symbols drawn from A and B) and "chain" (continue a chain s, f(s), f(f(s)), ...; the chains
                  start in cycle A only). So cycle B's facts are trained only with their argument in the input.
                  The test continues chains in cycle B: each target token must apply f to the previous target
                  token, a fact the model has met only as input. (Chains of 14 never revisit a symbol, so the
                  input cannot be copied.) The first target position, whose argument is the last input symbol,
                  is not scored; the same loss on cycle-A chains is the control.

Every run is scored on one fixed held-out set per task (the same examples for every variant and seed). A seed fixes
the batches, so the two variants of a seed see the same data and are compared seed by seed (exact sign-flip test,
Holm's correction over the family of tests); their initial weights differ because their shapes do.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

import numpy as np
import torch

from explorer import content, shipped
from explorer.costs import parameter_count
from explorer.formatting import p_label
from explorer.layouts import IGNORE, loss_and_accuracy, make_batch
from explorer.lab.reviewed import train_by_recipe
from explorer.lab.runner import Units
from explorer.lab.runner import run as run_units
from explorer.model import Transformer, TransformerConfig
from explorer.progress import SILENT, Progress
from explorer.recipe import Reviewable, check_seeds
from explorer.stats import holm, sign_flip_p, smallest_p, tost_sign_flip
from explorer.tasks import FIRST_SYMBOL

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "data" / "shared_params"
MESSAGES = "messages"  # a run's progress messages: content/<lang>/messages.md

# --- tasks ------------------------------------------------------------------------------------------------
HALF = 16  # symbols per language (translation) and per cycle (transfer)
SYMBOLS = 2 * HALF
MAP_MARK, CHAIN_MARK = FIRST_SYMBOL + SYMBOLS, FIRST_SYMBOL + SYMBOLS + 1  # the transfer task's markers
VOCAB = FIRST_SYMBOL + SYMBOLS + 2  # every task uses the same ids, so a variant has the same size on every task
LENGTH = 8  # input tokens of every task
TEST_SEED = 5_300_055  # the fixed held-out sets: no training batch uses this generator seed
TEST_SIZE = 1024
DICTIONARY = torch.randperm(HALF, generator=torch.Generator().manual_seed(53))  # word i of A -> word DICT[i]


def _successor() -> torch.Tensor:
    """f: symbol index -> symbol index, one random 16-cycle on each half (A = 0..15, B = 16..31)."""
    succ = torch.empty(SYMBOLS, dtype=torch.long)
    gen = torch.Generator().manual_seed(55)
    for offset in (0, HALF):
        order = torch.randperm(HALF, generator=gen) + offset
        succ[order] = order.roll(-1)
    return succ


SUCCESSOR = _successor()


@dataclass(frozen=True)
class DictionaryTask:
    """Reverse 8 words of language A and translate each by `DICTIONARY`, into language B (offset 16) or A (0)."""

    name: str
    target_offset: int
    input_len: ClassVar[int] = LENGTH
    target_len: ClassVar[int] = LENGTH
    vocab_size: ClassVar[int] = VOCAB

    def sample(self, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.randint(0, HALF, (batch_size, LENGTH), generator=generator)
        y = DICTIONARY[x.flip(1)] + self.target_offset
        return x + FIRST_SYMBOL, y + FIRST_SYMBOL

    def test_set(self) -> tuple[torch.Tensor, torch.Tensor, int]:
        """(x, y, first scored target position) of the fixed held-out set."""
        return (*self.sample(TEST_SIZE, torch.Generator().manual_seed(TEST_SEED)), 0)


@dataclass(frozen=True)
class TransferTask:
    """Train: half "map" (f on 7 input symbols of both cycles), half "chain" (continue a chain started in cycle
    A). Test: chains in cycle B, target positions after the first (`test_set`)."""

    name: str = "transfer"
    input_len: ClassVar[int] = LENGTH
    target_len: ClassVar[int] = LENGTH - 1
    vocab_size: ClassVar[int] = VOCAB

    @staticmethod
    def chains(starts: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """[CHAIN ; s, f(s), ..., f^6(s)] -> [f^7(s) .. f^13(s)] for each start index s."""
        seq = [starts]
        for _ in range(2 * (LENGTH - 1) - 1):
            seq.append(SUCCESSOR[seq[-1]])
        seq = torch.stack(seq, dim=1) + FIRST_SYMBOL  # [B, 14]
        mark = torch.full((len(starts), 1), CHAIN_MARK)
        return torch.cat([mark, seq[:, : LENGTH - 1]], dim=1), seq[:, LENGTH - 1 :]

    @staticmethod
    def maps(symbols: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """[MAP ; r1..r7] -> [f(r1) .. f(r7)]."""
        mark = torch.full((len(symbols), 1), MAP_MARK)
        return torch.cat([mark, symbols + FIRST_SYMBOL], dim=1), SUCCESSOR[symbols] + FIRST_SYMBOL

    def sample(self, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        is_chain = torch.rand(batch_size, generator=generator) < 0.5
        map_x, map_y = self.maps(torch.randint(0, SYMBOLS, (batch_size, LENGTH - 1), generator=generator))
        chain_x, chain_y = self.chains(torch.randint(0, HALF, (batch_size,), generator=generator))  # cycle A
        pick = is_chain[:, None]
        return torch.where(pick, chain_x, map_x), torch.where(pick, chain_y, map_y)

    def test_set(self, cycle: int = 1) -> tuple[torch.Tensor, torch.Tensor, int]:
        """Chains in cycle B (1, the transfer test) or A (0, the control); position 0 is not scored."""
        gen = torch.Generator().manual_seed(TEST_SEED + cycle)
        return (*self.chains(torch.randint(0, HALF, (TEST_SIZE,), generator=gen) + cycle * HALF), 1)


TASKS = {
    "translation": DictionaryTask("translation", HALF),
    "one-vocabulary": DictionaryTask("one-vocabulary", 0),
    "transfer": TransferTask(),
}
TASK_LABELS = {
    "translation": "translation (two vocabularies)",
    "one-vocabulary": "one vocabulary",
    "transfer": "transfer (facts met only as input)",
}


# --- variants ---------------------------------------------------------------------------------------------
VARIANTS = ("separate", "shared")
SEPARATE, SHARED = VARIANTS


def shared_config(width: int = 64, depth: int = 2, heads: int = 4) -> TransformerConfig:
    """One stack for input and target (steps 1 and 2 of the four steps)."""
    return TransformerConfig(
        arch="encoder_decoder",
        vocab_size=VOCAB,
        d_model=width,
        n_heads=heads,
        n_layers=depth,
        max_len=LENGTH,
        share_cross_self=True,
        share_encoder_decoder=True,
    )


def separate_config(shared: TransformerConfig) -> TransformerConfig:
    """Separate encoder and decoder stacks with the shared model's parameter count: the widest multiple of the
    heads whose model (MLP 4x) stays at or below it, then the MLP hidden width that brings it nearest."""
    target = parameter_count(shared)

    def at(width: int, ff: int | None = None) -> TransformerConfig:
        return replace(shared, share_encoder_decoder=False, d_model=width, d_ff=ff or 4 * width)

    h = shared.n_heads
    width = max((w for w in range(h, shared.d_model + 1, h) if parameter_count(at(w)) <= target), default=h)
    base = parameter_count(at(width))
    per_unit = parameter_count(at(width, 4 * width + 1)) - base
    return at(width, 4 * width + round((target - base) / per_unit))


def variant_config(variant: str, width: int = 64) -> TransformerConfig:
    shared = shared_config(width)
    return shared if variant == SHARED else separate_config(shared)


# --- runs -------------------------------------------------------------------------------------------------
MAX_SEEDS = 12
EQUIVALENCE_MARGIN = 0.05  # nats per target token: a smaller difference counts as none (declared before the runs)


@dataclass(frozen=True)
class SharedParamsConfig(Reviewable):
    SLICES: ClassVar[tuple[str, ...]] = ("seeds",)
    tasks: tuple[str, ...] = tuple(TASKS)
    variants: tuple[str, ...] = VARIANTS
    seeds: tuple[int, ...] = tuple(range(8))
    width: int = 64  # the shared model's width; the separate one is narrowed to its parameter count
    steps: int = 300
    batch_size: int = 32
    lr: float = 3e-3
    eval_every: int = 50
    eval_size: int = 256  # held-out examples per curve point (the final loss uses the fixed test set)

    def __post_init__(self) -> None:
        super().__post_init__()
        check_seeds(self.seeds, MAX_SEEDS)
        if not self.tasks or any(t not in TASKS for t in self.tasks):
            raise ValueError(f"tasks must be among {', '.join(TASKS)}, got {list(self.tasks)}")
        if not self.variants or any(v not in VARIANTS for v in self.variants):
            raise ValueError(f"variants must be among {', '.join(VARIANTS)}, got {list(self.variants)}")
        if not 1 <= self.steps <= 2000:
            raise ValueError(f"steps must lie in 1 .. 2000, got {self.steps}")
        variant_config(SHARED, self.width)  # a width the model refuses raises here


PRESETS = {
    "quick": SharedParamsConfig(seeds=(0, 1), steps=150, eval_every=25),  # the page's on-demand run, under a minute
    "main": SharedParamsConfig(),  # shipped: 8 paired seeds, 300 steps
}


def shipped_path(preset: str = "main") -> Path:
    return DATA_DIR / f"{preset}.json"


@torch.no_grad()
def test_loss(model: Transformer, x: torch.Tensor, y: torch.Tensor, first: int) -> dict:
    """Loss and token accuracy on a held-out set, scoring target positions from `first` on."""
    model.eval()
    batch = make_batch(model.cfg.arch, x, y)
    batch.labels[:, :first] = IGNORE
    loss, accuracy = loss_and_accuracy(batch.run(model).logits, batch.labels)
    return {"loss": float(loss), "accuracy": float(accuracy)}


def run_one(cfg: SharedParamsConfig, task: str, variant: str, seed: int, progress: Progress = SILENT) -> dict:
    """Train one variant on one task with one seed: its curve ([step, training FLOPs, held-out loss on the training
    distribution] per evaluation) and its loss on the task's fixed held-out set."""
    model_cfg, spec = variant_config(variant, cfg.width), TASKS[task]
    result = train_by_recipe(cfg.lab_recipe(), model_cfg, spec, cfg.train_config(seed), progress)
    run = {
        "task": task,
        "variant": variant,
        "seed": seed,
        "width": model_cfg.d_model,
        "d_ff": model_cfg.ff_width,
        "params": result.model.num_parameters(),
        "flops": result.flops,
        "steps_done": result.steps_done,
        "stopped": result.stopped,
        "seconds": result.seconds,
        "curve": [[row["step"], row["flops"], row["eval_loss"]] for row in result.history],
        **({"lr": result.lr} if cfg.recipe != "old" else {}),
        **test_loss(result.model, *spec.test_set()),
    }
    if task == "transfer":
        control = test_loss(result.model, *spec.test_set(cycle=0))
        run.update(control_loss=control["loss"], control_accuracy=control["accuracy"])
    return run


def run(cfg: SharedParamsConfig, progress: Progress = SILENT) -> dict:
    """Every (seed, task, variant), seeds outermost so a cut run keeps whole seeds. After each run the finished
    ones are shared with `progress` (a page draws them while the rest train)."""
    start = time.perf_counter()
    jobs = [(seed, task, variant) for seed in cfg.seeds for task in cfg.tasks for variant in cfg.variants]

    def said(job: tuple[int, str, str], i: int) -> dict:
        seed, task, variant = job
        return {
            "i": i,
            "total": len(jobs),
            "task": content.text(MESSAGES, f"sp-task-{task}"),
            "variant": content.text(MESSAGES, f"sp-variant-{variant}"),
            "seed": seed,
        }

    def one(job: tuple[int, str, str], part: Progress) -> dict:
        record = run_one(cfg, job[1], job[2], job[0], part)
        if record["stopped"] == "steps":
            done = jobs.index(job) + 1
            progress.update(
                done / len(jobs), content.text(MESSAGES, "sp-run-done", **said(job, done), loss=record["loss"])
            )
        return record

    outcome = run_units(
        Units(
            keys=jobs,
            train=one,
            label=lambda job, i, n: content.text(MESSAGES, "sp-run", **said(job, i)),
            publish=lambda records: {"config": cfg.to_dict(), "runs": [r for r in records if r["stopped"] == "steps"]},
        ),
        progress,
    )
    runs = [r for r in outcome.records if r["stopped"] == "steps"]  # a cut model is dropped, whole ones kept
    stopped = None if outcome.stopped == "steps" else outcome.stopped
    record = {
        "config": cfg.to_dict(),
        "runs": runs,
        "complete": stopped is None,
        "wall_seconds": time.perf_counter() - start,
        "threads": torch.get_num_threads(),
    }
    if stopped:
        record["stopped"] = stopped
    return {**record, **analyse(record)}


# --- statistics -------------------------------------------------------------------------------------------
INTERVAL = "seed range"  # loss_low / loss_high: the lowest and the highest seed's loss


def _by_cell(runs: list[dict], key: str = "loss") -> dict[tuple[str, str], dict[int, float]]:
    cells: dict[tuple[str, str], dict[int, float]] = {}
    for r in runs:
        cells.setdefault((r["task"], r["variant"]), {})[r["seed"]] = r[key]
    return cells


def rows(runs: list[dict]) -> list[dict]:
    """The CLI's `rows`: per task and variant the parameters, the seed-mean held-out loss and its seed range."""
    out = []
    for (task, variant), losses in _by_cell(runs).items():
        mine = [r for r in runs if (r["task"], r["variant"]) == (task, variant)]
        values = np.asarray(list(losses.values()))
        row = {
            "task": task,
            "variant": variant,
            "params": mine[0]["params"],
            "loss": float(values.mean()),
            "loss_low": float(values.min()),
            "loss_high": float(values.max()),
            "seeds": len(values),
            "accuracy": float(np.mean([r["accuracy"] for r in mine])),
            "width": mine[0]["width"],
            "d_ff": mine[0]["d_ff"],
            "flops": mine[0]["flops"],
        }
        if task == "transfer":
            control = np.asarray([r["control_loss"] for r in mine])
            row.update(
                control_loss=float(control.mean()), control_low=float(control.min()), control_high=float(control.max())
            )
        out.append(row)
    return out


def paired_gaps(runs: list[dict]) -> dict[str, dict[int, float]]:
    """Per task and seed, the separate model's held-out loss minus the shared one's (seeds that have both)."""
    cells = _by_cell(runs)
    return {
        task: {
            s: loss - cells[(task, SHARED)][s]
            for s, loss in sorted(by_seed.items())
            if s in cells.get((task, SHARED), {})
        }
        for (task, variant), by_seed in cells.items()
        if variant == SEPARATE and (task, SHARED) in cells
    }


def tests(runs: list[dict]) -> list[dict]:
    """Separate minus shared, seed by seed, per task (exact sign-flip p, equivalence within the declared margin),
    and whether that gap is larger on translation than on one vocabulary (the lecture's contrast, per seed); Holm's
    correction over all of them."""
    cells, gaps = _by_cell(runs), paired_gaps(runs)
    out = []
    for task, by_seed in gaps.items():
        separate = [cells[(task, SEPARATE)][s] for s in by_seed]
        shared = [cells[(task, SHARED)][s] for s in by_seed]
        out.append(
            {
                "test": task,
                "what": "separate minus shared",
                **_paired_test(list(by_seed.values())),
                "tost_p": tost_sign_flip(separate, shared, EQUIVALENCE_MARGIN)["p"],
            }
        )
    if "translation" in gaps and "one-vocabulary" in gaps:
        both = [s for s in gaps["translation"] if s in gaps["one-vocabulary"]]
        contrast = [gaps["translation"][s] - gaps["one-vocabulary"][s] for s in both]
        out.append(
            {
                "test": "contrast",
                "what": "(separate minus shared) on translation minus on one vocabulary",
                **_paired_test(contrast),
                "tost_p": float("nan"),
            }
        )
    for row, adjusted in zip(out, holm([r["p"] for r in out])):
        row["holm_p"] = adjusted
    return out


def _paired_test(diffs: list[float]) -> dict:
    return {
        "n": len(diffs),
        "positive": sum(d > 0 for d in diffs),
        "mean_diff": float(np.mean(diffs)) if diffs else float("nan"),
        "diff_low": float(min(diffs, default=float("nan"))),
        "diff_high": float(max(diffs, default=float("nan"))),
        "p": sign_flip_p(diffs) if len(diffs) >= 2 else float("nan"),
        "smallest_p": smallest_p(len(diffs)),
    }


def flop_matched_tests(runs: list[dict]) -> list[dict]:
    """The other matching, side by side with the parameter-matched `tests`: per task and seed, the separate model's
    last curve loss minus the shared model's at the checkpoint whose training FLOPs come nearest (the separate
    stacks are narrower, so they spend fewer FLOPs per step). Curve losses are on the training distribution.
    Exact sign-flip p, Holm's correction over the tasks. Runs of one recipe (the old one: the shared model's point
    is read mid-flight on a constant rate)."""
    out = []
    for task in dict.fromkeys(r["task"] for r in runs):
        mine = {v: {r["seed"]: r["curve"] for r in runs if (r["task"], r["variant"]) == (task, v)} for v in VARIANTS}
        diffs, step = [], None
        for seed in sorted(set(mine[SEPARATE]) & set(mine[SHARED])):
            separate, shared = np.asarray(mine[SEPARATE][seed]), np.asarray(mine[SHARED][seed])
            i = int(np.argmin(np.abs(shared[:, 1] - separate[-1, 1])))
            diffs.append(float(separate[-1, 2] - shared[i, 2]))
            step = int(shared[i, 0])
        if diffs:
            out.append(
                {
                    "test": task,
                    "what": "separate (final) minus shared at equal training FLOPs",
                    "shared_step": step,
                    **_paired_test(diffs),
                }
            )
    for row, adjusted in zip(out, holm([r["p"] for r in out])):
        row["holm_p"] = adjusted
    return out


def analyse(record: dict) -> dict:
    """What the CLI prints and the page reads: `rows`, `tests` (parameter-matched), `flop_matched` (the same pairs
    at equal training FLOPs), the declared margin and what the interval is."""
    return {
        "rows": rows(record["runs"]),
        "tests": tests(record["runs"]),
        "flop_matched": flop_matched_tests(record["runs"]),
        "margin": EQUIVALENCE_MARGIN,
        "interval": INTERVAL,
    }


def verdict(test: dict, alpha: float = 0.05) -> str:
    """One of: separate lower, shared lower, equivalent, no difference shown (Holm-corrected, declared margin)."""
    if test["holm_p"] < alpha:
        return "separate lower" if test["mean_diff"] < 0 else "shared lower"
    if test["tost_p"] < alpha:
        return "equivalent"
    return "no difference shown"


def verdict_text(verdict_: str) -> str:
    """A `verdict` as a student reads it, in the run's language (the English is the verdict itself)."""
    return content.text("four-steps", f"sp-verdict-{verdict_.replace(' ', '-')}")


def load(path: Path | None = None) -> dict | None:
    """The shipped main result, or None when missing or not of this shape."""
    record = shipped.load(path or shipped_path("main"))
    return record if record and all(k in record for k in ("config", "runs", "rows", "tests")) else None


TASK_KEYS = {"translation": "tr", "one-vocabulary": "ov", "transfer": "tf", "contrast": "ct"}  # content placeholders


def placeholders(record: dict) -> dict:
    """The numbers the page's finding quotes, named `<task key>_<what>` (`TASK_KEYS`), from a record's runs."""
    analysis = analyse(record)
    values: dict = {"margin": analysis["margin"], "steps": record["config"]["steps"]}
    cells = {(r["task"], r["variant"]): r for r in analysis["rows"]}
    for (task, variant), row in cells.items():
        prefix = f"{TASK_KEYS[task]}_{'sep' if variant == SEPARATE else 'sh'}"
        values.update(
            {
                prefix: row["loss"],
                f"{prefix}_low": row["loss_low"],
                f"{prefix}_high": row["loss_high"],
                f"{prefix}_acc": row["accuracy"],
            }
        )
        if task == "transfer":
            values[f"{prefix}_control"] = row["control_loss"]
    for test in analysis["tests"]:
        key = TASK_KEYS[test["test"]]
        values.update(
            {
                f"{key}_diff": test["mean_diff"],
                f"{key}_p": p_label(test["p"]),
                f"{key}_holm": p_label(test["holm_p"]),
                f"{key}_eq": p_label(test["tost_p"]),
                f"{key}_positive": test["positive"],
                f"{key}_verdict": verdict_text(verdict(test)),
            }
        )
        values.update(seeds=test["n"], smallest=smallest_p(test["n"]), tests=len(analysis["tests"]))
    for task, (separate, shared, step) in equal_flops(record["runs"]).items():
        values.update(
            {
                f"{TASK_KEYS[task]}_sep_final": separate,
                f"{TASK_KEYS[task]}_sh_same_flops": shared,
                "same_flops_step": step,
            }
        )
    both = next((task for task, _ in cells if (task, SEPARATE) in cells and (task, SHARED) in cells), None)
    if both is not None:  # sizes and FLOPs per step are the same on every task
        sep, sh = cells[(both, SEPARATE)], cells[(both, SHARED)]
        values.update(
            params_sep=f"{sep['params']:,}",
            params_sh=f"{sh['params']:,}",
            width_sep=sep["width"],
            dff_sep=sep["d_ff"],
            width_sh=sh["width"],
            mismatch=sep["params"] / sh["params"] - 1,
            flops_ratio=sep["flops"] / sh["flops"],
        )
    return values


def equal_flops(runs: list[dict]) -> dict[str, tuple[float, float, int]]:
    """Per task, at equal training FLOPs: the separate model's last curve loss (seed mean, training distribution),
    the shared model's at the checkpoint whose FLOPs come nearest, and that checkpoint's step."""
    out = {}
    for task in dict.fromkeys(r["task"] for r in runs):
        curves = {v: np.asarray([r["curve"] for r in runs if (r["task"], r["variant"]) == (task, v)]) for v in VARIANTS}
        if any(c.ndim != 3 for c in curves.values()):
            continue  # a variant missing, or curves of unequal length (a cut run)
        budget = curves[SEPARATE][0, -1, 1]
        i = int(np.argmin(np.abs(curves[SHARED][0, :, 1] - budget)))
        out[task] = (
            float(curves[SEPARATE][:, -1, 2].mean()),
            float(curves[SHARED][:, i, 2].mean()),
            int(curves[SHARED][0, i, 0]),
        )
    return out
