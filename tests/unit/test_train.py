import pytest

from explorer.model import TransformerConfig
from explorer.tasks import make_task
from explorer.progress import Deadline, Progress
from explorer.train import TrainConfig, train

TASK = make_task("copy", length=6, n_symbols=8)
MODEL = TransformerConfig(arch="decoder", vocab_size=TASK.vocab_size, d_model=32, n_heads=4, n_layers=2, max_len=12)


def test_training_lowers_held_out_loss_on_copy():
    result = train(MODEL, TASK, TrainConfig(steps=150, eval_every=10, seed=0))
    first, last = result.history[0], result.history[-1]
    assert last["eval_loss"] < 0.5 * first["eval_loss"]
    assert last["eval_accuracy"] > 0.9
    assert result.flops > 0 and result.tokens == 150 * 32 * 12


def test_the_same_seed_gives_the_same_numbers_twice():
    cfg = TrainConfig(steps=30, eval_every=10, seed=3)
    a, b = train(MODEL, TASK, cfg).history, train(MODEL, TASK, cfg).history
    strip = [{k: v for k, v in row.items() if k != "seconds"} for row in a]
    assert strip == [{k: v for k, v in row.items() if k != "seconds"} for row in b]


def test_a_different_seed_gives_different_numbers():
    a = train(MODEL, TASK, TrainConfig(steps=10, eval_every=10, seed=1)).history
    b = train(MODEL, TASK, TrainConfig(steps=10, eval_every=10, seed=2)).history
    assert a[-1]["eval_loss"] != b[-1]["eval_loss"]


class CancelAfterTwoReports(Progress):
    def __init__(self) -> None:
        self.seen: list[tuple[float, str]] = []

    def report(self, fraction: float, message: str) -> None:
        self.seen.append((fraction, message))

    @property
    def cancelled(self) -> bool:
        return len(self.seen) >= 2


def test_progress_reports_and_cancellation():
    progress = CancelAfterTwoReports()
    result = train(MODEL, TASK, TrainConfig(steps=100, eval_every=5), progress)
    assert result.stopped == "cancelled"
    assert [f for f, _ in progress.seen] == [0.05, 0.10, 0.11]  # the step after the request, evaluated
    assert progress.seen[0][1].startswith("step 5 of 100, held-out loss")
    assert result.steps_done == 11


def test_a_deadline_stops_training_between_steps():
    result = train(MODEL, TASK, TrainConfig(steps=100_000, eval_every=1000), Deadline(0.3))
    assert result.stopped == "time_budget" and result.steps_done < 100_000


def test_time_budget_stops_early():
    result = train(MODEL, TASK, TrainConfig(steps=100_000, eval_every=1000, time_budget_s=0.3))
    assert result.stopped == "time_budget" and result.steps_done < 100_000
    assert result.history[-1]["step"] == result.steps_done


def test_a_task_longer_than_the_model_is_refused():
    with pytest.raises(ValueError, match="max_len"):
        train(MODEL, make_task("copy", length=10), TrainConfig(steps=1))
