"""The quick slice of every shipped scale ladder (its lowest CPU rung, first seed, retrained; its summaries and
verdict derived again), in the tier its environment allows. A file of its own, so that `make test`'s two workers
run it beside the other shipped results' slices (tests/unit/test_reproduce.py) rather than after them."""

import pytest

from explorer import environment, shipped
from explorer.reproduce import judge
from tests.unit.test_reproduce import BY_NAME, LADDERS, assert_agrees_in_its_tier


@pytest.mark.parametrize("name", LADDERS)
def test_a_shipped_ladders_lowest_rung_retrains_and_its_verdict_follows_from_its_seeds(name: str) -> None:
    result = judge(BY_NAME[name], quick=True)
    assert_agrees_in_its_tier(result, environment.current(shipped.TRAINING_THREADS))
