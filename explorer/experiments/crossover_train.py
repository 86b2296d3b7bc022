"""Training the crossover sweep's runs: one run = one window, one width, one learning rate, every seed.

A seed fixes the initial weights (the same for every window and learning rate of a width: the window
changes no parameter shape), the training batches and the held-out set (the same for every run). The
seeds of a run train as one batched model through `torch.func` (stacked parameters, `vmap` over
`functional_call`); `batched=False` trains them one by one, for the benchmark. Runs are interleaved step
by step, so a time limit or a cancellation cuts every run at the same step. At each checkpoint the
records so far are shared with `progress.share`, so a page can draw the curves while they grow.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch.func import functional_call, stack_module_state, vmap

from explorer import content
from explorer.lab import device as lab_device
from explorer.model import Transformer
from explorer.progress import SILENT, Progress
from explorer.recall import IGNORE, per_lag_accuracy
from explorer.train import EVAL_SEED_OFFSET

BOOK = "inductive-bias"  # the page's content book: the progress message a run shows

if TYPE_CHECKING:
    from explorer.experiments.crossover import Run, SweepConfig


def _clip_stacked(grads: list[torch.Tensor], max_norm: float) -> None:
    """Per-model gradient clipping for parameters stacked along dim 0 (one row per model)."""
    norms = torch.stack([g.pow(2).flatten(1).sum(1) for g in grads]).sum(0).sqrt()  # [S]
    scale = (max_norm / (norms + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(scale.view(-1, *([1] * (g.dim() - 1))))


class RunModels:
    """The models of one run, one per seed, trained in lockstep on their own seeded data."""

    def __init__(self, cfg: SweepConfig, run: Run) -> None:
        self.cfg, self.run, self.task = cfg, run, cfg.task
        self.device = device = torch.device(lab_device.current())  # data is drawn on the CPU, then moved
        model_cfg = cfg.model_config(run.window, run.width)
        models = []
        for seed in cfg.seeds:
            torch.manual_seed(seed)  # same initial weights for every window and lr of this seed and width
            model = Transformer(model_cfg).train()
            if cfg.pos_init_std is not None:
                torch.nn.init.normal_(model.pos_emb.weight, std=cfg.pos_init_std)
            models.append(model.to(device))
        self.data = [torch.Generator().manual_seed(seed) for seed in cfg.seeds]  # same batches for every run
        held_out = [
            self.task.sample(cfg.eval_size, torch.Generator().manual_seed(seed + EVAL_SEED_OFFSET))
            for seed in cfg.seeds
        ]
        eval_x = torch.stack(held_out)  # [S, N, T]
        self.eval_x, self.eval_y = eval_x.to(device), self.task.labels(eval_x).to(device)  # [S, N, T, J]
        if cfg.batched:
            params, buffers = stack_module_state(models)  # each [S, ...]
            base = models[0]

            def one(p: dict, b: dict, x: torch.Tensor) -> torch.Tensor:
                # the explicit-softmax path: plain matmuls that vmap batches (the fused CPU kernel has no rule)
                return functional_call(base, (p, b), (x,), {"need_weights": True}).logits

            self._logits = lambda x: vmap(one)(params, buffers, x)  # [S, B, T, J*V]
            # evaluation needs no gradient: one model at a time through the fused attention kernel
            self._eval_logits = lambda x: torch.stack(
                [
                    functional_call(base, ({k: v[i] for k, v in params.items()}, buffers), (xi,)).logits
                    for i, xi in enumerate(x)
                ]
            )
            self._params = list(params.values())
            self._clip = lambda: _clip_stacked([p.grad for p in self._params], cfg.grad_clip)
        else:
            self._logits = self._eval_logits = lambda x: torch.stack([m(xi).logits for m, xi in zip(models, x)])
            self._params = [p for m in models for p in m.parameters()]
            self._clip = lambda: [torch.nn.utils.clip_grad_norm_(m.parameters(), cfg.grad_clip) for m in models]
        self.opt = torch.optim.Adam(self._params, lr=run.lr)  # elementwise: stacked Adam = one Adam per model
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lambda s: min(1.0, (s + 1) / cfg.warmup))

    def _loss(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """[S] loss per model: cross-entropy averaged per lag over labelled positions, then over lags."""
        v = self.task.n_symbols
        ce = F.cross_entropy(logits.reshape(-1, v), labels.reshape(-1), ignore_index=IGNORE, reduction="none")
        ce = ce.view(labels.shape)  # [S, B, T, J], 0 where unlabelled
        per_lag = ce.sum(dim=(1, 2)) / (labels != IGNORE).sum(dim=(1, 2))  # [S, J]
        return per_lag.mean(dim=1)

    def step(self) -> torch.Tensor:
        x = torch.stack([self.task.sample(self.cfg.batch_size, g) for g in self.data])  # [S, B, T]
        labels = self.task.labels(x).to(self.device)
        loss = self._loss(self._logits(x.to(self.device)), labels)
        self.opt.zero_grad(set_to_none=True)
        loss.sum().backward()  # models are independent: each gets the gradient of its own loss
        self._clip()
        self.opt.step()
        self.sched.step()
        return loss.detach()

    @torch.no_grad()
    def evaluate(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Held-out per-lag accuracy [S, J] and loss [S]."""
        logits = self._eval_logits(self.eval_x)
        s, n, t, _ = logits.shape
        predictions = logits.view(s, n, t, len(self.cfg.lags), self.cfg.n_symbols).argmax(-1)
        return per_lag_accuracy(predictions, self.eval_y), self._loss(logits, self.eval_y)


def _snapshot(cfg: SweepConfig, records: dict, step: int) -> dict:
    """What a page can draw while the run goes on: a sweep result of the checkpoints so far (copied)."""
    runs = {
        key: {
            **r,
            "steps": list(r["steps"]),
            "per_lag_accuracy": [list(s) for s in r["per_lag_accuracy"]],
            "eval_loss": [list(s) for s in r["eval_loss"]],
        }
        for key, r in records.items()
    }
    return {"config": cfg.to_dict(), "runs": runs, "stopped": "running", "steps_done": step}


def train_runs(cfg: SweepConfig, runs: list[Run], progress: Progress = SILENT) -> dict:
    """Train every seed of each of `runs` and record held-out accuracy per lag and loss at the checkpoints.

    Reports to `progress` every few steps and shares the records at each checkpoint; when it says to stop,
    the models are evaluated and the run ends (`stopped` says why). Returns {"runs": {run.key: record},
    "steps_done", "stopped", "seconds"}.
    """
    checkpoints = set(cfg.checkpoints())
    start = time.perf_counter()
    groups = [RunModels(cfg, run) for run in runs]
    records = {
        run.key: {
            "window": run.window,
            "width": run.width,
            "lr": run.lr,
            "seeds": list(cfg.seeds),
            "steps": [],
            "per_lag_accuracy": [[] for _ in cfg.seeds],
            "eval_loss": [[] for _ in cfg.seeds],
        }
        for run in runs
    }
    stopped, step = "steps", 0
    for step in range(1, cfg.steps + 1):
        for group in groups:
            group.step()
        stop = progress.should_stop()
        if step in checkpoints or stop:
            for group in groups:
                acc, loss = group.evaluate()
                rec = records[group.run.key]
                rec["steps"].append(step)
                for i in range(len(cfg.seeds)):
                    rec["per_lag_accuracy"][i].append([float(a) for a in acc[i]])
                    rec["eval_loss"][i].append(float(loss[i]))
            progress.share(_snapshot(cfg, records, step))
        if stop:
            stopped = progress.stop_reason()
            break
        if step % 5 == 0 or step == cfg.steps:
            progress.update(
                step / cfg.steps,
                content.text(
                    BOOK,
                    "progress",
                    step=step,
                    steps=cfg.steps,
                    runs=len(runs),
                    seeds=len(cfg.seeds),
                    seconds=time.perf_counter() - start,
                ),
            )
    return {"runs": records, "steps_done": step, "stopped": stopped, "seconds": time.perf_counter() - start}
