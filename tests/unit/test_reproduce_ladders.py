"""The quick check of every shipped scale ladder (its summaries and verdict derived again from the stored per-seed
effects; `make test-repro` retrains its lowest rung), in the tier its environment allows, and a tampered effect
caught. A file of its own, so that `make test`'s two workers
run it beside the other shipped results' slices (tests/unit/test_reproduce.py) rather than after them."""

import pytest

from explorer import environment, shipped
from explorer.reproduce import judge
from tests.unit.test_reproduce import BY_NAME, LADDERS, assert_agrees_in_its_tier


@pytest.mark.parametrize("name", LADDERS)
def test_a_shipped_ladders_summaries_and_verdict_follow_from_its_seeds(name: str) -> None:
    result = judge(BY_NAME[name], quick=True)
    assert_agrees_in_its_tier(result, environment.current(shipped.TRAINING_THREADS))


@pytest.mark.parametrize("name", LADDERS)
def test_a_tampered_seed_effect_is_caught(name: str) -> None:
    check = BY_NAME[name]
    record = check.record()
    top = record["rungs"][-1]
    first = next(iter(top["per_seed"]))
    top["per_seed"][first] = -top["per_seed"][first] * 10  # one seed's effect flipped and blown up
    replay = check.replay(record, True, True)
    assert replay.difference and not all(c.holds for c in replay.comparisons)
