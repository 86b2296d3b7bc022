from dataclasses import replace

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from explorer.costs import attention_entries, kv_cache_bytes, sequence_forward_flops, stack_forward_flops
from explorer.model import KVCache, Transformer, TransformerConfig
from explorer.steps import step_config

CFG = TransformerConfig(vocab_size=20, d_model=32, n_heads=4, n_layers=2, max_len=40)


# FlopCounterMode has no formula for the fused CPU attention kernel, so the counts run the explicit
# softmax path (need_weights=True), which a test in test_model.py shows computes the same function.


def _counted(fn) -> int:
    with FlopCounterMode(display=False) as counter:
        with torch.no_grad():
            fn()
    return counter.get_total_flops()


@pytest.mark.parametrize("arch", ["decoder", "encoder", "prefix_lm"])
def test_single_stack_flops_match_torch_flop_counter(arch):
    cfg = replace(CFG, arch=arch)
    model = Transformer(cfg).eval()
    x = torch.ones(2, 11, dtype=torch.long)
    counted = _counted(lambda: model(x, prefix_len=5 if arch == "prefix_lm" else 0, need_weights=True))
    assert counted == 2 * stack_forward_flops(cfg, 11, 11)


@pytest.mark.parametrize("step", range(6))
def test_encoder_decoder_flops_match_torch_flop_counter_at_every_step(step):
    cfg = step_config(CFG, step)
    model = Transformer(cfg).eval()
    x, y = torch.ones(1, 9, dtype=torch.long), torch.ones(1, 4, dtype=torch.long)
    assert _counted(lambda: model(x, y, need_weights=True)) == sequence_forward_flops(cfg, 9, 4)


def test_cached_step_flops_match_torch_flop_counter():
    model = Transformer(CFG).eval()
    cache = KVCache(CFG, 1)
    with torch.no_grad():
        model(torch.ones(1, 30, dtype=torch.long), cache=cache)
    counted = _counted(lambda: model(torch.ones(1, 3, dtype=torch.long), cache=cache, need_weights=True))
    assert counted == stack_forward_flops(CFG, 3, 33)


def test_causal_only_entries_count_the_lower_triangle():
    assert attention_entries(4, 4, causal=True) == 10
    assert attention_entries(2, 5, causal=True) == 4 + 5
    assert attention_entries(2, 5, causal=False) == 10


def test_kv_cache_bytes_formula():
    assert kv_cache_bytes(CFG, 100) == 2 * 2 * 100 * 32 * 4


def test_the_size_refusal_speaks_the_language_of_the_page():
    from explorer import i18n
    from explorer.costs import check_size

    big = TransformerConfig(vocab_size=20, d_model=2048, n_heads=8, n_layers=12, max_len=40)
    with pytest.raises(ValueError, match=r"^this model would have [\d,]+ parameters; the limit here is 50,000,000$"):
        check_size(big)
    with i18n.using("zh"), pytest.raises(ValueError, match=r"^这个模型会有 [\d,]+ 个参数，而这里的上限是 50,000,000$"):
        check_size(big)
