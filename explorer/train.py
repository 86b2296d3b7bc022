"""A bounded, seeded trainer with FLOP accounting.

Bounded: it stops at `steps`, or between steps when its `Progress` says to (cancelled or out of time),
or when the recipe's own `time_budget_s` runs out. Seeded: the seed fixes the initial weights, the training data and the
held-out data, so the same call returns the same history. Every evaluation row records the training
FLOPs spent so far, the compute axis of the crossover page.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import torch

from explorer import content
from explorer.costs import TRAIN_FLOPS_PER_FORWARD, sequence_forward_flops
from explorer.lab import device as lab_device
from explorer.lab.fit import FitPlan, fit
from explorer.lab.schedule import Schedule
from explorer.lab.tasks import SeqTask
from explorer.layouts import Batch, positions_needed
from explorer.model import Transformer, TransformerConfig
from explorer.progress import SILENT, Progress
from explorer.tasks import Seq2SeqTask

EVAL_SEED_OFFSET = 1_000_003  # held-out data uses a generator no training batch ever uses


@dataclass(frozen=True)
class TrainConfig:
    steps: int = 200  # optimizer steps at most
    batch_size: int = 32
    lr: float = 3e-3  # Adam peak learning rate
    warmup: int = 20  # linear warm-up steps, then constant
    seed: int = 0
    eval_every: int = 25  # steps between held-out evaluations (the last step is always evaluated)
    eval_size: int = 256  # fresh held-out examples per evaluation
    grad_clip: float = 1.0
    time_budget_s: float | None = None  # a recipe's own wall-clock bound; None = steps only (a run's deadline
    # comes from its Progress; this field stays so that recorded configs read back)

    def __post_init__(self) -> None:
        if self.steps < 1 or self.batch_size < 1 or self.eval_every < 1 or self.eval_size < 1:
            raise ValueError("steps, batch_size, eval_every and eval_size must be >= 1")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError(f"lr must be a positive number, got {self.lr}")


@dataclass
class TrainResult:
    model: Transformer
    history: list[dict] = field(default_factory=list)  # one row per evaluation
    stopped: str = "steps"  # "steps", "time_budget" or "cancelled"
    steps_done: int = 0
    flops: float = 0.0
    tokens: int = 0
    seconds: float = 0.0
    readouts: dict[int, dict] = field(default_factory=dict)  # budget -> its readout (`explorer.lab.fit`)

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else float("nan")

    def summary(self) -> dict:
        return {
            "stopped": self.stopped,
            "steps_done": self.steps_done,
            "flops": self.flops,
            "tokens": self.tokens,
            "seconds": self.seconds,
            "tokens_per_second": self.tokens_per_second,
            "final": self.history[-1] if self.history else None,
        }


@torch.no_grad()
def evaluate(model: Transformer, task: Seq2SeqTask, size: int, seed: int) -> dict:
    """Held-out loss and token accuracy on `size` fresh examples drawn with `seed`."""
    device = next(model.parameters()).device
    model.eval()
    numbers = SeqTask(task, model.cfg.arch).readout(model, held_out(task, model.cfg.arch, size, seed, device))
    model.train()
    return numbers


def held_out(task: Seq2SeqTask, arch: str, size: int, seed: int, device: torch.device | str = "cpu") -> Batch:
    """The scoring set of a seed: `size` examples from a generator no training batch ever uses."""
    return SeqTask(task, arch).batches(
        size, torch.Generator().manual_seed(seed + EVAL_SEED_OFFSET), torch.device(device)
    )


def train(
    model_cfg: TransformerConfig,
    task: Seq2SeqTask,
    cfg: TrainConfig = TrainConfig(),
    progress: Progress = SILENT,
    schedule: Schedule | None = None,
    budgets: tuple[int, ...] | None = None,
    readout_k: int = 1,
    device: torch.device | str | None = None,
) -> TrainResult:
    """Train a fresh `Transformer(model_cfg)` on `task` through the lab's one loop (`explorer.lab.fit`),
    reporting to `progress` after each evaluation. By default the old recipe (warm-up, then constant; read at
    every `eval_every` steps); pass a WSD `schedule` and `budgets` for decayed readouts at each budget.
    Trains on `device` (default: `explorer.lab.device.current()`, the CPU unless the CLI said otherwise); the
    model comes back on the CPU, so whatever reads it afterwards needs no device of its own."""
    device = torch.device(device or lab_device.current())
    needed = positions_needed(model_cfg, task.input_len, task.target_len)
    if needed > model_cfg.max_len:
        raise ValueError(f"the task needs {needed} positions; the model has max_len={model_cfg.max_len}")
    torch.manual_seed(cfg.seed)
    model = Transformer(model_cfg)
    data = torch.Generator().manual_seed(cfg.seed)
    seq = SeqTask(task, model_cfg.arch)
    flops_per_step = (
        TRAIN_FLOPS_PER_FORWARD * cfg.batch_size * sequence_forward_flops(model_cfg, task.input_len, task.target_len)
    )
    budgets = budgets or (cfg.steps,)
    plan = FitPlan(
        budgets=budgets,
        lr=cfg.lr,
        schedule=schedule or Schedule("constant", cfg.warmup),
        batch_size=cfg.batch_size,
        grad_clip=cfg.grad_clip,
        flops_per_step=flops_per_step,
        eval_steps=frozenset(range(cfg.eval_every, max(budgets) + 1, cfg.eval_every)),
        readout_k=readout_k,
        time_budget_s=cfg.time_budget_s,
    )

    def report(row: dict, fraction: float) -> None:
        progress.report(
            fraction,
            content.text(
                "common",
                "train-step",
                step=row["step"],
                steps=max(budgets),
                loss=row["eval_loss"],
                accuracy=row["eval_accuracy"],
            ),
        )

    fitted = fit(
        model,
        seq,
        plan,
        data,
        held_out(task, model_cfg.arch, cfg.eval_size, cfg.seed, device),
        device,
        progress,
        report,
    )
    per_batch = seq.tokens(seq.batches(1, torch.Generator().manual_seed(0), torch.device("cpu"))) * cfg.batch_size
    keep = ("step", "flops", "train_loss", "eval_loss", "eval_accuracy", "seconds")
    return TrainResult(
        model=fitted.model.to("cpu"),
        history=[{k: row[k] for k in keep} for row in fitted.history],
        stopped=fitted.stopped,
        steps_done=fitted.steps_done,
        flops=fitted.steps_done * flops_per_step,
        tokens=fitted.steps_done * per_batch,
        seconds=fitted.seconds,
        readouts=fitted.readouts,
    )


def config_dict(model_cfg: TransformerConfig, task: Seq2SeqTask, cfg: TrainConfig) -> dict:
    """The full configuration of a run, as plain data (the result-cache key and the CLI's echo)."""
    return {"model": model_cfg.to_dict(), "task": asdict(task), "train": asdict(cfg)}
