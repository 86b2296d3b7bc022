"""Multi-lag recall: the labels, the closed-form ceiling, and the oracle that attains it."""

from fractions import Fraction

import pytest
import torch

from explorer.model import Transformer, TransformerConfig
from explorer.recall import (
    IGNORE,
    LAGS,
    WEIGHTS,
    MultiLagRecall,
    ceiling,
    ceiling_exact,
    mix,
    oracle_predictions,
    per_lag_accuracy,
    receptive_field,
    solvable,
    weighted,
)

TASK = MultiLagRecall()


def test_labels_are_the_symbols_lag_positions_back_and_ignored_before_the_start():
    x = TASK.sample(3, torch.Generator().manual_seed(0))
    y = TASK.labels(x)
    assert y.shape == (3, 48, 5)
    for j, lag in enumerate(LAGS):
        assert (y[:, :lag, j] == IGNORE).all()
        for t in (lag, 20, 47):
            if t >= lag:
                assert torch.equal(y[:, t, j], x[:, t - lag])
    assert (TASK.labelled_positions() == torch.tensor([47, 45, 41, 33, 17])).all()
    assert int((y != IGNORE).sum()) == 3 * int(TASK.labelled_positions().sum())


def test_samples_are_seeded_and_cover_the_alphabet_uniformly():
    a = TASK.sample(4, torch.Generator().manual_seed(7))
    b = TASK.sample(4, torch.Generator().manual_seed(7))
    assert torch.equal(a, b) and a.dtype == torch.long
    big = TASK.sample(2000, torch.Generator().manual_seed(1))
    freq = torch.bincount(big.flatten(), minlength=8).double() / big.numel()
    assert big.min() == 0 and big.max() == 7
    assert (freq - 1 / 8).abs().max() < 0.005  # 96k draws: sd of a frequency is about 0.001


def test_ceilings_of_the_recipe_in_closed_form():
    w = [Fraction(2, 5)] + [Fraction(3, 20)] * 4
    exact = {window: ceiling_exact(TASK, w, window) for window in (1, 2, 4, 8, 16, 32, 48)}
    chance = Fraction(1, 8)
    assert exact[1] == chance  # sees only itself: every lag is a guess
    assert exact[2] == Fraction(2, 5) + Fraction(3, 5) * chance == Fraction(19, 40)
    assert exact[4] == Fraction(11, 20) + Fraction(9, 20) * chance
    assert exact[8] == Fraction(7, 10) + Fraction(3, 10) * chance
    assert exact[16] == Fraction(17, 20) + Fraction(3, 20) * chance
    assert exact[32] == exact[48] == 1
    assert ceiling(TASK, WEIGHTS, 2) == pytest.approx(0.475, abs=1e-15)
    assert ceiling(TASK, WEIGHTS, None) == 1.0


def test_a_lag_is_in_reach_exactly_when_it_is_at_most_window_minus_one_per_layer():
    assert solvable(TASK, 2) == (True, False, False, False, False)
    assert solvable(TASK, 3) == (True, False, False, False, False)
    assert solvable(TASK, 4) == (True, True, False, False, False)
    assert solvable(TASK, 16) == (True, True, True, True, False)
    assert solvable(TASK, 4, n_layers=2) == (True, True, False, False, False)  # reach 6
    assert solvable(TASK, 5, n_layers=2) == (True, True, True, False, False)  # reach 8: windows stack
    assert receptive_field(None, 1, 48) == 47 and receptive_field(48, 3, 48) == 47


@pytest.mark.parametrize("window", [1, 2, 3, 4, 8, 12, 16, 31, 32, 48])
def test_the_oracle_that_copies_the_lags_in_reach_attains_the_ceiling(window):
    x = TASK.sample(4000, torch.Generator().manual_seed(window))
    y = TASK.labels(x)
    acc = per_lag_accuracy(oracle_predictions(TASK, x, window), y)
    for ok, a, n in zip(solvable(TASK, window), acc, TASK.labelled_positions()):
        if ok:
            assert a == 1.0
        else:  # a fixed guess on an independent uniform symbol: binomial(4000 n, 1/8)
            sd = (1 / 8 * 7 / 8 / (4000 * int(n))) ** 0.5
            assert abs(float(a) - 1 / 8) < 5 * sd
    assert float(weighted(acc, WEIGHTS)) == pytest.approx(ceiling(TASK, WEIGHTS, window), abs=0.004)


def test_a_one_layer_window_model_cannot_see_beyond_its_ceiling():
    """The premise of the ceiling, checked on the project's model: with one layer and window w, the
    logits at position t do not move when a symbol w or more positions back changes."""
    window = 4
    torch.manual_seed(0)
    model = Transformer(
        TransformerConfig(
            arch="decoder", vocab_size=8, n_out=40, d_model=40, n_heads=5, n_layers=1, max_len=48, window=window
        )
    ).eval()
    x = TASK.sample(2, torch.Generator().manual_seed(3))
    changed = x.clone()
    changed[:, 10] = (changed[:, 10] + 1) % 8
    with torch.no_grad():
        diff = (model(x).logits - model(changed).logits).abs().amax(dim=(0, 2))  # per position
    assert diff[10 : 10 + window].min() > 0  # positions that read position 10
    assert diff[:10].max() == 0 and diff[10 + window :].max() == 0


def test_weighted_accuracy_and_the_mix():
    assert mix(0.6) == pytest.approx(WEIGHTS)
    assert mix(0.0) == (1.0, 0.0, 0.0, 0.0, 0.0)
    assert sum(mix(1.0)) == pytest.approx(1.0) and mix(1.0)[0] == 0.0
    assert float(weighted([1, 0, 0, 0, 0], WEIGHTS)) == pytest.approx(0.4)
    assert float(weighted([[1, 1, 1, 1, 1]], (2, 2, 2, 2, 2))[0]) == pytest.approx(1.0)  # weights normalised
    with pytest.raises(ValueError):
        mix(1.5)


@pytest.mark.parametrize(
    "kwargs", [dict(n_symbols=1), dict(lags=(3, 1)), dict(lags=(0, 2)), dict(lags=(1, 48)), dict(lags=())]
)
def test_bad_task_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        MultiLagRecall(**kwargs)


def test_bad_weights_are_refused():
    with pytest.raises(ValueError):
        ceiling(TASK, (1, 1), 4)
    with pytest.raises(ValueError):
        ceiling(TASK, (0, 0, 0, 0, 0), 4)
