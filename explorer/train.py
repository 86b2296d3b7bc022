"""A bounded, seeded trainer with FLOP accounting.

Bounded: it stops at `steps`, or between steps when its `Progress` says to (cancelled or out of time),
or when the recipe's own `time_budget_s` runs out. Seeded: the seed fixes the initial weights, the training data and the
held-out data, so the same call returns the same history. Every evaluation row records the training
FLOPs spent so far, the compute axis of the crossover page.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import torch

from explorer import content
from explorer.costs import TRAIN_FLOPS_PER_FORWARD, sequence_forward_flops
from explorer.layouts import loss_and_accuracy, make_batch, positions_needed
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

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else float("nan")

    def summary(self) -> dict:
        return {"stopped": self.stopped, "steps_done": self.steps_done, "flops": self.flops,
                "tokens": self.tokens, "seconds": self.seconds, "tokens_per_second": self.tokens_per_second,
                "final": self.history[-1] if self.history else None}


@torch.no_grad()
def evaluate(model: Transformer, task: Seq2SeqTask, size: int, seed: int) -> dict:
    """Held-out loss and token accuracy on `size` fresh examples drawn with `seed`."""
    model.eval()
    x, y = task.sample(size, torch.Generator().manual_seed(seed + EVAL_SEED_OFFSET))
    batch = make_batch(model.cfg.arch, x, y)
    loss, acc = loss_and_accuracy(batch.run(model).logits, batch.labels)
    model.train()
    return {"eval_loss": float(loss), "eval_accuracy": float(acc)}


def train(model_cfg: TransformerConfig, task: Seq2SeqTask, cfg: TrainConfig = TrainConfig(),
          progress: Progress = SILENT) -> TrainResult:
    """Train a fresh `Transformer(model_cfg)` on `task`, reporting to `progress` after each evaluation."""
    needed = positions_needed(model_cfg, task.input_len, task.target_len)
    if needed > model_cfg.max_len:
        raise ValueError(f"the task needs {needed} positions; the model has max_len={model_cfg.max_len}")
    torch.manual_seed(cfg.seed)
    model = Transformer(model_cfg)
    model.train()
    data = torch.Generator().manual_seed(cfg.seed)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, cfg.warmup)))
    flops_per_step = TRAIN_FLOPS_PER_FORWARD * cfg.batch_size * sequence_forward_flops(
        model_cfg, task.input_len, task.target_len)
    result = TrainResult(model=model)
    start = time.perf_counter()
    for step in range(1, cfg.steps + 1):
        x, y = task.sample(cfg.batch_size, data)
        batch = make_batch(model_cfg.arch, x, y)
        loss, _ = loss_and_accuracy(batch.run(model).logits, batch.labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        opt.step()
        sched.step()
        result.steps_done, result.flops = step, result.flops + flops_per_step
        result.tokens += batch.tokens.numel() + (batch.target.numel() if batch.target is not None else 0)
        result.seconds = time.perf_counter() - start
        over_budget = cfg.time_budget_s is not None and result.seconds >= cfg.time_budget_s
        stop = over_budget or progress.should_stop()
        if step % cfg.eval_every == 0 or step == cfg.steps or stop:
            row = {"step": step, "flops": result.flops, "train_loss": loss.item(), **evaluate(
                model, task, cfg.eval_size, cfg.seed), "seconds": result.seconds}
            result.history.append(row)
            progress.report(step / cfg.steps, content.text("common", "train-step", step=step, steps=cfg.steps,
                                                           loss=row["eval_loss"], accuracy=row["eval_accuracy"]))
        if stop:
            result.stopped = "time_budget" if over_budget else progress.stop_reason()
            break
    model.eval()
    return result


def config_dict(model_cfg: TransformerConfig, task: Seq2SeqTask, cfg: TrainConfig) -> dict:
    """The full configuration of a run, as plain data (the result-cache key and the CLI's echo)."""
    return {"model": model_cfg.to_dict(), "task": asdict(task), "train": asdict(cfg)}
