"""The attention page's computations: masks as the model builds them, weights that respect them, the task,
and shipped demo models that still measure what their sidecars claim."""

import numpy as np
import pytest
import torch

from explorer import checkpoints, tokenizer
from explorer.experiments import attention as att
from explorer.model import Transformer, TransformerConfig
from explorer.tasks import BOS, PAD

TEXT = "hello, world"
IDS = tuple(tokenizer.encode(TEXT).ids)


def _shipped(arch: str):
    path = att.find_demo(arch, (att.SHIPPED_DIR,))
    assert path is not None, f"data/demo_models/{arch} is missing: run `python -m explorer demo-models`"
    return checkpoints.load(path)


def _check_rows(read: dict) -> None:
    """Every attention row is a softmax over exactly the keys its mask allows."""
    for role, r in read["roles"].items():
        w, allowed = r["weights"], r["allowed"]
        assert w.shape[-2:] == allowed.shape == (len(r["rows"]), len(r["cols"])), role
        assert np.all(w[..., ~allowed] == 0.0), f"{role}: weight on a masked key"
        np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-5, err_msg=role)
        assert np.all(w >= 0)


@pytest.mark.parametrize("arch", att.ARCHS)
def test_trained_weights_rows_sum_to_one_and_masked_entries_are_exactly_zero(arch):
    model, _ = _shipped(arch)
    read = att.read_text(model, IDS)
    _check_rows(read)
    assert set(read["roles"]) == set(att.role_masks(arch, 1, 1))
    for r in read["roles"].values():
        assert r["weights"].shape[:2] == (model.cfg.n_layers, model.cfg.n_heads)


@pytest.mark.parametrize(
    "flags", [dict(causal_encoder=True), dict(layer_aligned=True), dict(causal_encoder=True, layer_aligned=True)]
)
def test_the_step_4_variants_mask_what_the_page_draws(flags):
    torch.manual_seed(0)
    model = Transformer(
        TransformerConfig(
            arch="encoder_decoder",
            vocab_size=tokenizer.VOCAB_SIZE,
            d_model=32,
            n_heads=2,
            n_layers=2,
            max_len=2 * att.MAX_CHARS,
            **flags,
        )
    ).eval()
    read = att.read_text(model, IDS)
    _check_rows(read)
    drawn = att.role_categories("encoder_decoder", len(IDS), len(IDS), model.cfg.causal_encoder)
    for role, r in read["roles"].items():
        assert np.array_equal(drawn[role] >= 0, r["allowed"]), role
    encoder_allowed = read["roles"]["encoder_self"]["allowed"]
    assert np.array_equal(
        encoder_allowed,
        np.tril(np.ones_like(encoder_allowed)) if model.cfg.causal_encoder else np.ones_like(encoder_allowed),
    )


@pytest.mark.parametrize("arch", att.ARCHS)
def test_the_drawn_masks_are_the_masks_the_model_uses(arch):
    model, _ = _shipped(arch)
    read = att.read_text(model, IDS)
    x_ids, target_side = att.expected_layout(arch, IDS)
    drawn = att.role_categories(arch, len(x_ids), len(target_side))
    for role, r in read["roles"].items():
        assert np.array_equal(drawn[role] >= 0, r["allowed"]), role
    assert read["input_labels"][: len(IDS)] == [tokenizer.label(i) for i in IDS]


def test_combined_view_blocks_for_an_encoder_decoder():
    n, m = 3, 4
    codes = att.combined_categories("encoder_decoder", n, m)
    assert np.all(codes[:n, :n] == att.BI) and np.all(codes[:n, n:] == att.BLOCKED)
    assert np.all(codes[n:, :n] == att.CROSS)
    target = codes[n:, n:]
    assert np.array_equal(target == att.CAUSAL, np.tril(np.ones((m, m), bool)))
    assert np.all(target[np.triu_indices(m, 1)] == att.BLOCKED)
    causal = att.combined_categories("encoder_decoder", n, m, causal_input=True)[:n, :n]
    assert np.array_equal(causal == att.CAUSAL, np.tril(np.ones((n, n), bool)))


def test_combined_view_of_the_single_stacks():
    n, m = 3, 4  # decoder-only: [x ; <bos> ; y[:-1]] has n + m positions
    t = n + m
    lower = np.tril(np.ones((t, t), bool))
    assert np.array_equal(att.combined_categories("decoder", n, m) == att.CAUSAL, lower)
    prefix = att.combined_categories("prefix_lm", n, m)
    assert np.all(prefix[: n + 1, : n + 1] == att.BI)  # x and <bos> read each other
    assert np.all(prefix[n + 1 :, : n + 1] == att.CAUSAL) and np.all(prefix[: n + 1, n + 1 :] == att.BLOCKED)
    assert np.all(att.combined_categories("encoder", 5, 0) == att.BI)


def test_wiring_standard_and_layer_aligned():
    assert att.wiring(3, layer_aligned=False, causal_input=False).reads == (3, 3, 3)
    aligned = att.wiring(3, layer_aligned=True, causal_input=True)
    assert aligned.reads == (0, 1, 2) and aligned.layer_aligned and aligned.causal_input


def test_the_task_reverses_with_one_length_per_batch_and_is_seeded():
    task = att.ReverseTask(max_chars=8)
    seen = set()
    for seed in range(20):
        x, y = task.sample(5, torch.Generator().manual_seed(seed))
        assert x.shape == y.shape and 1 <= x.shape[1] <= 8
        assert torch.equal(y, x.flip(dims=[1])) and int(x.min()) >= tokenizer.FIRST_SYMBOL
        seen.add(x.shape[1])
    assert len(seen) > 3
    a = task.sample(4, torch.Generator().manual_seed(3))
    b = task.sample(4, torch.Generator().manual_seed(3))
    assert all(torch.equal(u, v) for u, v in zip(a, b))


def test_the_encoder_window_pads_and_reverses_the_whole_window():
    x, y = att.ReverseTask(max_chars=8, window=True).sample(64, torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (64, 8) and torch.equal(y, x.flip(dims=[1]))
    lengths = (x != PAD).sum(1)
    assert torch.all(x[:, 0] != PAD) and lengths.min() >= 1 and len(set(lengths.tolist())) > 3
    assert torch.all((x != PAD) == (torch.arange(8) < lengths[:, None]))  # text first, then padding
    padded = att.model_input("encoder", [5, 6, 7])
    assert padded.shape == (1, att.MAX_CHARS) and padded[0, :3].tolist() == [5, 6, 7] and padded[0, 3:].eq(PAD).all()


@pytest.mark.parametrize("arch", att.ARCHS)
def test_shipped_models_still_measure_the_accuracy_their_sidecars_claim(arch):
    model, sidecar = _shipped(arch)
    claimed = sidecar["meta"]["accuracy"]
    again = att.reversal_accuracy(model)
    # the same held-out strings and one thread: identical on this machine; the margin covers other CPUs
    assert again["char_accuracy"] == pytest.approx(claimed["char_accuracy"], abs=0.002)
    assert again["exact_match"] == pytest.approx(claimed["exact_match"], abs=0.01)
    assert claimed["char_accuracy"] >= 0.95, "the page presents these models as working reversers"
    assert sidecar["config"] == att.demo_spec(arch).model.to_dict()


def test_shipped_models_are_small():
    total = sum(att.demo_path(a, att.SHIPPED_DIR).stat().st_size for a in att.ARCHS)
    assert total < 5_000_000


def test_the_model_output_and_the_expected_output_are_reported():
    model, _ = _shipped("decoder")
    read = att.read_text(model, IDS)
    assert read["expected"] == TEXT[::-1]
    assert len(read["output_ids"]) == len(IDS)
    assert read["wrong_positions"] == [i for i, (a, b) in enumerate(zip(read["output"], read["expected"])) if a != b]
    assert read["target_labels"][0] == tokenizer.label(BOS)


@pytest.mark.parametrize("ids, message", [((), "empty"), ((5,) * (att.MAX_CHARS + 1), "at most")])
def test_text_the_models_cannot_read_is_refused_with_a_message(ids, message):
    model, _ = _shipped("encoder")
    with pytest.raises(ValueError, match=message):
        att.read_text(model, ids)


def test_embedding_rows_are_token_plus_position():
    model, _ = _shipped("decoder")
    emb = att.embedding_rows(model, IDS)
    np.testing.assert_allclose(emb["sum"], emb["token"] + emb["position"], atol=1e-6)
    l1, l2 = IDS.index(tokenizer.encode("l").ids[0]), len(IDS) - 1 - IDS[::-1].index(tokenizer.encode("l").ids[0])
    np.testing.assert_array_equal(emb["token"][l1], emb["token"][l2])  # same character, same row of E
    assert not np.allclose(emb["sum"][l1], emb["sum"][l2])  # different positions, different input vectors


def test_figures_leave_masked_cells_empty_and_carry_their_evidence():
    from explorer.figures import attention as figs

    model, sidecar = _shipped("prefix_lm")
    read = att.read_text(model, IDS)
    fig = figs.attention_maps(read, 1, 3, att.config_text(sidecar))
    (trace,) = fig.data
    allowed = read["roles"]["decoder_self"]["allowed"]
    assert np.array_equal(np.isnan(np.asarray(trace.z, dtype=float)), ~allowed)
    assert fig.layout.meta["evidence"] == "measured" and "8000 steps" in fig.layout.meta["evidence_detail"]
    overview = figs.head_overview(read, "decoder_self", "detail")
    assert len(overview.data) == model.cfg.n_layers * model.cfg.n_heads
    last = overview.data[-1]  # layer 2, head 4: the last panel, titled by its head and drawn from its weights
    assert last.xaxis == f"x{model.cfg.n_layers * model.cfg.n_heads}"
    assert np.allclose(
        np.nan_to_num(np.asarray(last.z, dtype=float)), np.nan_to_num(read["roles"]["decoder_self"]["weights"][-1, -1])
    )
    x_ids, target_side = att.expected_layout("prefix_lm", IDS)
    inputs, targets, axes = att.layout_labels("prefix_lm", x_ids, target_side)
    gallery = figs.mask_gallery("prefix_lm", att.role_categories("prefix_lm", len(inputs), len(targets)), axes)
    assert gallery.layout.meta["evidence"] == "schematic"
    assert list(gallery.data[0].colorbar.ticktext) == ["bidirectional", "causal"]  # only the kinds drawn
