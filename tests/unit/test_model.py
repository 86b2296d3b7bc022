"""The one Transformer held to closed forms and to the facts of GUIDE.md section 3."""

import itertools
from dataclasses import replace

import pytest
import torch

from explorer.costs import parameter_count
from explorer.layouts import make_batch
from explorer.model import ARCHITECTURES, STEP_FLAGS, KVCache, Transformer, TransformerConfig
from explorer.steps import FINAL_STEP, decoder_only_config, step_config, transplant
from explorer.tasks import make_task
from explorer.train import TrainConfig, train

BASE = TransformerConfig(vocab_size=20, d_model=32, n_heads=4, n_layers=3, max_len=24)


def _model(cfg, seed=0, dtype=torch.float32):
    torch.manual_seed(seed)
    return Transformer(cfg).to(dtype).eval()


def _inputs(cfg, n=6, m=5, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(2, cfg.vocab_size, (3, n), generator=g), torch.randint(2, cfg.vocab_size, (3, m), generator=g)


@pytest.mark.parametrize("flags", list(itertools.product([False, True], repeat=4)))
def test_parameter_count_of_every_flag_combination_matches_the_closed_form(flags):
    cfg = replace(BASE, arch="encoder_decoder", **dict(zip(STEP_FLAGS, flags)))
    assert Transformer(cfg).num_parameters() == parameter_count(cfg)


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_parameter_count_of_each_architecture_matches_the_closed_form(arch):
    cfg = replace(BASE, arch=arch, n_out=7)
    assert Transformer(cfg).num_parameters() == parameter_count(cfg)


def test_only_steps_one_and_two_change_the_parameter_count():
    counts = [parameter_count(step_config(BASE, k)) for k in range(5)]
    assert counts[0] > counts[1] > counts[2] == counts[3] == counts[4]


def test_after_four_steps_the_only_extra_parameters_are_layer_norms():
    d, L = BASE.d_model, BASE.n_layers
    extra = parameter_count(step_config(BASE, 4)) - parameter_count(decoder_only_config(BASE))
    assert extra == 2 * d * (L + 1)  # one LayerNorm before each cross-attention, one after the encoder


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_explicit_softmax_and_fused_attention_agree(arch):
    cfg = replace(BASE, arch=arch, window=3 if arch == "decoder" else None)
    model = _model(cfg)
    x, y = _inputs(cfg)
    kwargs = {"target": y} if arch == "encoder_decoder" else {"prefix_len": 4 if arch == "prefix_lm" else 0}
    fast = model(x, **kwargs).logits
    slow = model(x, need_weights=True, **kwargs).logits
    torch.testing.assert_close(fast, slow, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("step", range(FINAL_STEP + 1))
def test_attention_rows_sum_to_one_and_masked_entries_are_zero(step):
    cfg = step_config(BASE, step)
    x, y = _inputs(cfg)
    out = _model(cfg)(x, y, need_weights=True)
    for role, layers in out.attentions.items():
        assert len(layers) == cfg.n_layers
        for w in layers:
            torch.testing.assert_close(w.sum(-1), torch.ones(w.shape[:-1]))
    if step >= 4:  # causal encoder: nothing above the diagonal
        assert torch.all(torch.triu(out.attentions["encoder_self"][0], diagonal=1) == 0)


@pytest.fixture(scope="module")
def trained_decoder():
    """A decoder-only model trained briefly, so logits are large enough for relative comparisons."""
    task = make_task("sort", length=6, n_symbols=10)
    cfg = TransformerConfig(arch="decoder", vocab_size=task.vocab_size, d_model=32, n_heads=4, n_layers=2, max_len=12)
    result = train(cfg, task, TrainConfig(steps=120, batch_size=32, eval_every=120, seed=0))
    x, y = task.sample(16, torch.Generator().manual_seed(5))
    return result.model, x, y


def _max_relative_logit_gap(decoder, step, x, y, dtype):
    decoder = decoder.to(dtype)
    target = Transformer(step_config(decoder.cfg, step)).to(dtype).eval()
    transplant(target, decoder)
    ref = make_batch("decoder", x, y).run(decoder).logits[:, x.shape[1] :]
    batch = make_batch("encoder_decoder", x, y)
    got = batch.run(target).logits
    decoder.float()
    return ((got - ref).abs().max() / ref.abs().max()).item()


def test_joint_softmax_reproduces_decoder_only_in_float32_and_float64(trained_decoder):
    decoder, x, y = trained_decoder
    assert _max_relative_logit_gap(decoder, FINAL_STEP, x, y, torch.float32) <= 1e-4
    assert _max_relative_logit_gap(decoder, FINAL_STEP, x, y, torch.float64) <= 1e-10


def test_the_four_steps_alone_do_not_reach_decoder_only(trained_decoder):
    decoder, x, y = trained_decoder
    assert _max_relative_logit_gap(decoder, 4, x, y, torch.float64) > 1e-3


def test_kv_cache_over_three_turns_equals_full_recomputation():
    cfg = replace(BASE, max_len=32)
    model = _model(cfg)
    turns = [torch.randint(2, cfg.vocab_size, (2, m), generator=torch.Generator().manual_seed(m)) for m in (7, 4, 5)]
    cache = KVCache(cfg, batch_size=2)
    cached = torch.cat([model(t, cache=cache).logits for t in turns], dim=1)
    full = model(torch.cat(turns, dim=1)).logits
    assert cache.length == 16
    torch.testing.assert_close(cached, full, atol=1e-5, rtol=1e-5)


def test_kv_cache_refuses_to_overflow_and_bidirectional_models_refuse_it():
    cfg = replace(BASE, max_len=8)
    cache = KVCache(cfg, batch_size=1, capacity=4)
    with pytest.raises(ValueError, match="holds 4 tokens"):
        _model(cfg)(torch.ones(1, 5, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError, match="re-encode|bidirectional"):
        _model(replace(cfg, arch="encoder"))(torch.ones(1, 2, dtype=torch.long), cache=KVCache(cfg, 1))


def test_return_states_gives_a_state_per_layer_plus_the_final_one():
    out = _model(BASE)(torch.ones(1, 4, dtype=torch.long), return_states=True)
    assert len(out.states["decoder"]) == BASE.n_layers + 1
    assert len(out.keys_values["decoder"]) == BASE.n_layers


@pytest.mark.parametrize(
    "bad, message",
    [
        (dict(arch="gpt"), "arch must be"),
        (dict(d_model=30, n_heads=4), "divisible"),
        (dict(share_cross_self=True), "only apply"),
        (dict(arch="encoder_decoder", joint_softmax=True), "joint_softmax needs"),
        (dict(arch="encoder_decoder", layer_aligned_reads="middle", layer_aligned=True), "must be one of"),
        (dict(arch="encoder_decoder", layer_aligned_reads="output"), "only applies with layer_aligned"),
        (dict(arch="encoder_decoder", restart_target_positions=True), "only applies with causal_encoder"),
    ],
)
def test_bad_configurations_are_refused_with_a_reason(bad, message):
    with pytest.raises(ValueError, match=message):
        replace(BASE, **bad)


def test_a_model_beyond_the_size_limit_is_refused_before_it_is_built():
    big = replace(BASE, d_model=4096, n_layers=24)  # a configuration only: counting it costs nothing
    with pytest.raises(ValueError, match="the limit here is 50,000,000"):
        Transformer(big)


def test_put_back_options_appear_in_to_dict_only_when_set():
    final = step_config(BASE, FINAL_STEP)
    assert "layer_aligned_reads" not in final.to_dict() and "restart_target_positions" not in final.to_dict()
    put_back = replace(final, layer_aligned_reads="output", restart_target_positions=True)
    assert TransformerConfig(**put_back.to_dict()) == put_back


def test_positions_beyond_max_len_are_refused():
    with pytest.raises(ValueError, match="max_len=24"):
        _model(BASE)(torch.ones(1, 25, dtype=torch.long))
