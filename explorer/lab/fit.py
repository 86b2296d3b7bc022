"""The one training loop. Every experiment trains through `fit`, whatever its task, schedule or device.

Adam with gradient clipping; the rate per step comes from a `Schedule`. With the constant schedule this is the
project's old loop, step for step (a shipped result made with it reruns bit for bit). With `wsd` the trunk runs
to the last budget's branch point, and at each budget's branch point a copy of the model and optimizer (and of
the data stream, so a branch sees the batches the trunk would have) decays to that budget and is read there.

Readout, fixed before the run: for every budget, the mean of the last `readout_k` held-out evaluations of its
decay branch (with the constant schedule and `readout_k` 1: the evaluation at the budget, the old checkpoint).
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch
from torch import nn

from explorer.lab.protocol import Task
from explorer.lab.schedule import Schedule
from explorer.progress import SILENT, Progress


@dataclass(frozen=True)
class FitPlan:
    budgets: tuple[int, ...]  # optimizer steps at which the run is read; the last is its length
    lr: float  # peak Adam learning rate
    schedule: Schedule = Schedule()
    batch_size: int = 32
    eval_steps: frozenset[int] = frozenset()  # extra trunk evaluations (curves); budgets are always read
    readout_k: int = 1  # evaluations averaged per budget (spread over the decay branch's second half)
    grad_clip: float = 1.0
    flops_per_step: float = 0.0  # training FLOPs of one optimizer step (recorded with every row)
    time_budget_s: float | None = None  # a wall-clock bound of its own (besides the Progress deadline)

    def __post_init__(self) -> None:
        object.__setattr__(self, "budgets", tuple(sorted({int(b) for b in self.budgets})))
        if not self.budgets or self.budgets[0] < 1:
            raise ValueError(f"budgets must be positive step counts, got {list(self.budgets)}")
        if not self.lr > 0 or self.batch_size < 1 or self.readout_k < 1:
            raise ValueError("lr must be > 0, batch size and readout_k >= 1")

    def readout_steps(self, budget: int) -> list[int]:
        """The steps whose evaluations make a budget's readout: `readout_k` of them, ending at the budget."""
        d = self.schedule.decay_steps(budget)
        if d == 0 or self.readout_k == 1:
            return [budget]
        gap = max(1, (d // 2) // self.readout_k)  # within the second half of the decay
        return sorted({max(budget - j * gap, budget - d + 1) for j in range(self.readout_k)})


@dataclass
class FitResult:
    model: nn.Module  # the model read at the last budget (its decayed branch under WSD)
    history: list[dict] = field(default_factory=list)  # every evaluation: step, flops, losses, phase, budget
    readouts: dict[int, dict] = field(default_factory=dict)  # budget -> {step, flops, eval_loss, eval_accuracy, n}
    stopped: str = "steps"  # "steps", "time_budget" or "cancelled"
    steps_done: int = 0  # optimizer steps taken, branches included (the compute actually spent)
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        return self.stopped == "steps"


def _set_lr(opt: torch.optim.Optimizer, lr: float) -> None:
    for group in opt.param_groups:
        group["lr"] = lr


class _Loop:
    """One fit in progress: the clock, the stop test and the rows, shared by the trunk and its branches."""

    def __init__(
        self,
        task: Task,
        plan: FitPlan,
        held_out: Any,
        device: torch.device,
        progress: Progress,
        on_eval: Callable[[dict, float], None] | None,
    ) -> None:
        self.task, self.plan, self.held_out, self.device = task, plan, held_out, device
        self.progress, self.on_eval = progress, on_eval
        self.result: FitResult | None = None
        self.final: nn.Module | None = None  # the last budget's decayed branch (WSD)
        self.start = time.perf_counter()
        self.total = plan.schedule.total_steps(plan.budgets)

    def stop_reason(self) -> str | None:
        r = self.result
        r.seconds = time.perf_counter() - self.start
        if self.plan.time_budget_s is not None and r.seconds >= self.plan.time_budget_s:
            return "time_budget"
        return self.progress.stop_reason() if self.progress.should_stop() else None

    def step(self, model: nn.Module, opt: torch.optim.Optimizer, data: torch.Generator, factor: float) -> float:
        batch = self.task.batches(self.plan.batch_size, data, self.device)
        loss, _ = self.task.loss(model, batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), self.plan.grad_clip)
        _set_lr(opt, self.plan.lr * factor)
        opt.step()
        self.result.steps_done += 1
        return loss.item()

    def evaluate(self, model: nn.Module, step: int, train_loss: float, phase: str, budget: int | None) -> dict:
        model.eval()
        with torch.no_grad():
            numbers = self.task.readout(model, self.held_out)
        model.train()
        self.result.seconds = time.perf_counter() - self.start
        row = {
            "step": step,
            "flops": float(step * self.plan.flops_per_step),
            "train_loss": train_loss,
            **numbers,
            "seconds": self.result.seconds,
            "phase": phase,
            "budget": budget,
        }
        self.result.history.append(row)
        return row

    def emit(self, row: dict) -> None:
        """Hand `row` to the caller, once the readouts it completes are recorded (`row["readout"]`)."""
        if self.on_eval is not None:
            self.on_eval(row, self.result.steps_done / self.total)


def fit(
    model: nn.Module,
    task: Task,
    plan: FitPlan,
    data: torch.Generator,
    held_out: Any,
    device: torch.device | str = "cpu",
    progress: Progress = SILENT,
    on_eval: Callable[[dict, float], None] | None = None,
) -> FitResult:
    """Train `model` (already initialised) on `task` along `plan`, drawing batches from `data`, reading on
    `held_out` (a batch from `task.batches`). Stops early when `progress` says so; the result says where.
    `on_eval(row, fraction done)` sees every evaluation as it is made (progress lines, partial curves); a row
    that completes a budget's readout carries it as `row["readout"]`."""
    device = torch.device(device)
    model.to(device)
    model.train()
    loop = _Loop(task, plan, held_out, device, progress, on_eval)
    loop.result = result = FitResult(model=model)
    schedule, last = plan.schedule, plan.budgets[-1]
    opt = torch.optim.Adam(model.parameters(), lr=plan.lr * schedule.warm(1))
    branch_at: dict[int, list[int]] = {}
    for b in plan.budgets:
        if schedule.kind == "wsd":
            branch_at.setdefault(schedule.branch_start(b), []).append(b)
    trunk_end = schedule.branch_start(last) if schedule.kind == "wsd" else last
    constant_reads = (
        {
            s: [b for b in plan.budgets if s in plan.readout_steps(b)]
            for b in plan.budgets
            for s in plan.readout_steps(b)
        }
        if schedule.kind == "constant"
        else {}
    )
    collected: dict[int, list[dict]] = {}

    def read(row: dict, budgets: list[int]) -> None:
        for b in budgets:
            collected.setdefault(b, []).append(row)
            if row["step"] == b:
                rows = collected[b]
                means = {k: float(np.mean([r[k] for r in rows])) for k in rows[-1] if k.startswith("eval_")}
                row["readout"] = result.readouts[b] = {
                    "step": b,
                    "flops": float(b * plan.flops_per_step),
                    "n": len(rows),
                    **means,
                }

    def branches(after: int) -> str | None:
        for b in branch_at.get(after, []):
            why = _branch(loop, model, opt, data, after, b, read)
            if why:
                return why
        return None

    stopped = branches(0)
    step = 0
    while stopped is None and step < trunk_end:
        step += 1
        train_loss = loop.step(model, opt, data, schedule.warm(step))
        stopped = loop.stop_reason()
        if step in plan.eval_steps or step in constant_reads or step == trunk_end or stopped:
            row = loop.evaluate(model, step, train_loss, "trunk", None)
            read(row, constant_reads.get(step, []))
            loop.emit(row)
        if stopped is None and step in branch_at:
            stopped = branches(step)
    result.stopped = stopped or "steps"
    result.seconds = time.perf_counter() - loop.start
    model.eval()
    if loop.final is not None:
        result.model = loop.final
    return result


def _branch(
    loop: _Loop,
    trunk: nn.Module,
    trunk_opt: torch.optim.Optimizer,
    data: torch.Generator,
    start: int,
    budget: int,
    read: Callable[[dict, list[int]], None],
) -> str | None:
    """The decay branch from trunk step `start` to `budget`, on copies (the trunk goes on untouched)."""
    plan = loop.plan
    model = copy.deepcopy(trunk)
    opt = torch.optim.Adam(model.parameters(), lr=plan.lr)
    opt.load_state_dict(trunk_opt.state_dict())
    stream = torch.Generator().manual_seed(0)
    stream.set_state(data.get_state())
    reads = set(plan.readout_steps(budget))
    for step in range(start + 1, budget + 1):
        train_loss = loop.step(model, opt, stream, plan.schedule.factor(step, budget))
        why = loop.stop_reason()
        if step in reads or why:
            row = loop.evaluate(model, step, train_loss, "decay", budget)
            if step in reads:
                read(row, [budget])
            loop.emit(row)
        if why:
            return why
    model.eval()
    if budget == plan.budgets[-1]:
        loop.final = model
    return None
