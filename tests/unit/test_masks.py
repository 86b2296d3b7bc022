import math

import pytest
import torch

from explorer import masks


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_causal_mask_is_zero_on_and_below_the_diagonal_and_minus_inf_above(n):
    m = masks.causal(n)
    for i in range(n):
        for j in range(n):
            assert m[i, j] == (0.0 if j <= i else -math.inf)


def test_bidirectional_mask_is_all_zero():
    assert torch.equal(masks.bidirectional(4, 6), torch.zeros(4, 6))


def test_causal_mask_after_a_cache_lets_new_queries_read_all_old_keys():
    m = masks.allowed(masks.causal(2, 5))  # queries are positions 3 and 4
    assert m.tolist() == [[True, True, True, True, False], [True] * 5]


def test_prefix_lm_is_bidirectional_in_the_prefix_and_causal_after():
    m = masks.allowed(masks.prefix_lm(3, 5))
    assert m[:3, :3].all() and not m[:3, 3:].any()
    assert m[3].tolist() == [True, True, True, True, False]
    assert m[4].all()


def test_local_window_keeps_the_last_w_positions_under_a_causal_mask():
    m = masks.allowed(masks.local_window(masks.causal(6), 2))
    assert m[5].tolist() == [False, False, False, False, True, True]
    assert m.sum(dim=1).tolist() == [1, 2, 2, 2, 2, 2]


def test_joint_mask_reads_all_input_and_the_causal_target_prefix():
    m = masks.allowed(masks.joint(3, 2))
    assert m.tolist() == [[True, True, True, True, False], [True] * 5]


def test_window_must_be_positive():
    with pytest.raises(ValueError, match="window"):
        masks.local_window(masks.causal(3), 0)
