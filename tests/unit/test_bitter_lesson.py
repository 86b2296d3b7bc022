"""The Bitter Lesson experiment: the task's rule and its closed-form floor, honest FLOP counts, real small training
runs (a shorter run is a slice of a longer one; a deadline stops it with what it finished; the curves are shared
as they grow), the crossover read between curves, and the CLI's keys."""

import json
from dataclasses import replace

import numpy as np
import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from explorer.cli import main
from explorer.experiments import bitter_lesson as bl
from explorer.progress import Deadline, Progress
from explorer.stats import smallest_p
from explorer.tasks import BOS, FIRST_SYMBOL

TINY = replace(bl.PRESETS["quick"], seeds=(0, 1), steps=32, eval_size=128)
NOT = len(bl.WORDS) - 1


def _binary_entropy(p: torch.Tensor) -> torch.Tensor:
    p = p.double().clamp(1e-12, 1 - 1e-12)
    return -(p * p.log() + (1 - p) * (1 - p).log())


def test_in_the_first_case_a_leading_not_flips_the_lexicon_vote_and_nothing_else_does():
    words, labels = bl.sample(TINY, "order", 4000, torch.Generator().manual_seed(0))
    positive = (words < 4).sum(1)
    negative = ((words >= 4) & (words < 8)).sum(1)
    assert torch.equal(labels, ((positive > negative) ^ (words[:, 0] == NOT)).long())
    assert abs((words == NOT).float().mean().item() - TINY.not_rate) < 0.01


def test_the_counts_floor_is_the_mean_entropy_of_the_flip_and_the_second_case_flips_at_those_odds():
    cfg = bl.PRESETS["main"]
    words, labels = bl.sample(cfg, "counts", 60_000, torch.Generator().manual_seed(1))
    nots = (words == NOT).sum(1)
    floor = bl.counts_floor(cfg)
    assert _binary_entropy(nots / cfg.length).mean().item() == pytest.approx(floor["loss"], abs=0.005)
    flipped = labels != (bl.features(words)[:, 0] > 0).long()
    for k in (0, 1, 2, 3):
        assert flipped[nots == k].float().mean().item() == pytest.approx(k / cfg.length, abs=0.012)
    assert floor["accuracy"] == pytest.approx(0.9, abs=1e-3)  # 1 - E[k]/L while k <= L/2: not_rate
    assert bl.floors(cfg, "order") == {"hand-built": floor["loss"], "transformer": 0.0}


def test_training_flops_per_example_match_a_flop_counter_for_both_methods():
    cfg = bl.PRESETS["main"]
    words, _ = bl.sample(cfg, "order", 1, torch.Generator().manual_seed(0))
    hand = bl.build(cfg, "hand-built", 0)
    with FlopCounterMode(display=False) as counter:
        hand(words)
    counting = 2 * cfg.length + 1  # an add per word for each feature and one comparison: no matmul
    assert 3 * counter.get_total_flops() + counting == cfg.flops_per_example("hand-built")
    general = bl.build(cfg, "transformer", 0).transformer
    tokens = torch.cat([torch.full((1, 1), BOS), words + FIRST_SYMBOL], dim=1)
    with FlopCounterMode(display=False) as counter:  # the explicit softmax: the counter has no rule for the fused one
        general(tokens, need_weights=True)
    assert 3 * counter.get_total_flops() == cfg.flops_per_example("transformer")
    assert cfg.flops_per_example("transformer") > 1000 * cfg.flops_per_example("hand-built")


def test_a_shorter_run_is_a_slice_of_a_longer_one_and_both_methods_see_the_same_held_out_reviews():
    long = bl.train_one(replace(TINY, steps=32), "order", "transformer", 0)
    short = bl.train_one(replace(TINY, steps=16), "order", "transformer", 0)
    n = len(short["loss"])
    assert short["data"] == long["data"][:n] == [s * TINY.batch_size for s in TINY.checkpoint_steps()[:n]]
    assert short["loss"] == long["loss"][:n]
    assert set(replace(TINY, steps=16).checkpoint_steps()) <= set(bl.PRESETS["main"].checkpoint_steps())
    hand = bl.train_one(TINY, "order", "hand-built", 0)
    assert hand["data"] == long["data"] and hand["flops"][-1] * 3000 < long["flops"][-1]


class Recording(Progress):
    """A progress that keeps what a run shares (the page draws these while it trains)."""

    def __init__(self) -> None:
        self.shared: list[dict] = []

    def share(self, partial: dict) -> None:
        self.shared.append(json.loads(json.dumps(partial)))


def test_a_run_shares_its_growing_curves_and_a_deadline_cuts_it_with_what_it_finished():
    progress = Recording()
    done = bl.run(TINY, progress)
    assert done["stopped"] == "steps" and len(done["runs"]) == 2 * len(TINY.seeds)
    assert [r["method"] for r in done["runs"][:2]] == ["hand-built", "transformer"]
    sizes = [sum(len(r["loss"]) for r in p["runs"]) for p in progress.shared]
    assert sizes == sorted(sizes)
    assert [r["loss"] for r in progress.shared[-1]["runs"]] == [r["loss"] for r in done["runs"]]
    cut = bl.run(TINY, Deadline(0.0))  # the lab's runner starts no model once the time is up
    assert cut["stopped"] == "time_budget" and cut["runs"] == []


def test_the_crossing_is_read_in_log_x_and_is_none_when_the_curves_do_not_cross():
    x = np.array([1.0, 10.0, 100.0])
    assert bl.crossing(x, np.full(3, 0.5), np.array([0.7, 0.6, 0.3])) == pytest.approx(10 ** (1 + 1 / 3))
    assert bl.crossing(x, np.full(3, 0.5), np.array([0.7, 0.4, 0.6])) is None  # ends behind
    assert bl.crossing(x, np.full(3, 0.5), np.array([0.4, 0.3, 0.2])) is None  # ahead from the start
    assert bl.crossing(x, np.full(3, 0.5), np.array([0.7, 0.4, 0.45])) == pytest.approx(10 ** (2 / 3))
    # on the compute axis the hand-built method's last loss stands past its last checkpoint
    assert list(bl.hand_at(np.array([1.0, 2.0]), np.array([0.6, 0.3]), np.array([1.5, 50.0]))) == [0.6, 0.3]


def test_the_analysis_pairs_seeds_tests_two_declared_budgets_and_holm_corrects_across_cases():
    result = bl.run(replace(TINY, cases=bl.CASES, steps=48))
    analysis = bl.analyse(result)
    assert set(analysis) == set(bl.CASES)
    for a in analysis.values():
        assert a["seeds"] == [0, 1] and a["methods"]["transformer"]["loss"].shape == (2, len(a["data"]))
        small, large = a["tests"]["small"], a["tests"]["large"]
        assert small["data"] == 1024 and large["data"] == 48 * TINY.batch_size  # first at or past 1,000 examples
        for test in (small, large):
            assert test["p"] >= smallest_p(2) and test["holm_p"] >= test["p"]
        assert a["crossover"] is None or set(a["crossover"]) >= {"flops", "data"}


def test_the_cli_prints_curves_per_method_and_the_crossover_key(capsys):
    assert main(["bitter-lesson", "--preset", "quick", "--steps", "16", "--seeds", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["curves"]) == set(bl.METHODS) and "crossover" in out
    point = out["curves"]["transformer"][0]
    assert {"data", "flops", "loss", "seed"} <= set(point) and point["data"] == 128
    assert {p["seed"] for p in out["curves"]["hand-built"]} == {0, 1}
    assert out["cases"]["order"]["floor"]["loss"] == pytest.approx(bl.counts_floor(bl.PRESETS["quick"])["loss"])


@pytest.mark.parametrize("bad", [dict(seeds=()), dict(steps=0), dict(cases=("words",)), dict(not_rate=0.7)])
def test_bad_settings_get_a_clear_message(bad):
    with pytest.raises(ValueError):
        replace(TINY, **bad)


def test_the_cli_refuses_bad_settings_in_one_line(capsys):
    assert main(["bitter-lesson", "--steps", "0"]) == 2
    assert "steps must be 1 to" in capsys.readouterr().err
