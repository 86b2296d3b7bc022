"""Length asymmetry, the closed forms: parameter groups and token passes against hand counts, a real module and
`explorer.costs`; the equal-cost point; the synthetic profiles; typed pairs and upload validation."""

import math

import numpy as np
import pandas as pd
import pytest

from explorer.costs import check_size, parameter_count, sequence_forward_flops
from explorer.experiments import lengths as ln
from explorer.model import Transformer, TransformerConfig

TINY = ln.Shape(d_model=4, n_layers=1, vocab_size=10, d_ff=16, max_len=8)
FAMILIES = (ln.DECODER, ln.ENCDEC)


def _real(shape: ln.Shape, family: str) -> TransformerConfig:
    return TransformerConfig(
        arch=family,
        vocab_size=shape.vocab_size,
        d_model=shape.d_model,
        n_heads=1,
        n_layers=shape.n_layers,
        d_ff=shape.ff_width,
        max_len=shape.max_len,
    )


# --- allocation ------------------------------------------------------------------------------------------------


def test_hand_count_of_a_tiny_decoder_only_model():
    # d=4, d_ff=16, vocab 10, 8 positions, 1 layer; lengths 3 -> 2, so 5 tokens
    # parameters: embeddings 10*4 + 8*4 = 72; layer: LayerNorms 2*8 + attention 4*(16+4) + MLP (64+16+64+4) = 244;
    # head: LayerNorm 8 + 4*10 + 10 = 58
    groups = ln.parameter_groups(TINY, ln.DECODER, 3, 2)
    assert [g.parameters for g in groups] == [72, 244, 58]
    assert [g.tokens for g in groups] == [5, 5, 5]
    # FLOPs: projections 2*5*4*16 = 640, MLP 2*5*4*16*2 = 1280, attention 2*25*4*2 = 400, head 2*5*4*10 = 400
    alloc = ln.allocation(TINY, 3, 2)["families"][ln.DECODER]
    assert alloc["parameters"] == 374 and alloc["flops"] == 2720
    assert sum(g.flops for g in groups) == 2320 and ln.attention_flops(TINY, ln.DECODER, 3, 2) == 400


def test_hand_count_of_a_tiny_encoder_decoder():
    groups = {g.name.split(":")[0]: g for g in ln.parameter_groups(TINY, ln.ENCDEC, 3, 2)}
    assert groups["encoder"].parameters == 244 + 8 and groups["encoder"].tokens == 3  # + the final LayerNorm
    assert groups["decoder"].parameters == 244 and groups["decoder"].tokens == 2
    cross = [g for g in ln.parameter_groups(TINY, ln.ENCDEC, 3, 2) if g.role == "cross"]
    assert [(g.parameters, g.tokens) for g in cross] == [(2 * 20 + 8, 2), (2 * 20, 3)]  # Q,O (+LN) read y; K,V read x
    assert groups["output head (+ final LayerNorm)"].tokens == 2


@pytest.mark.parametrize(
    "shape",
    [
        ln.Shape(d_model=4, n_layers=1, vocab_size=10, d_ff=16, max_len=60),
        ln.Shape(d_model=32, n_layers=3, vocab_size=50, max_len=64),
        ln.Shape(d_model=64, n_layers=2, vocab_size=300, d_ff=100, max_len=128),
    ],
)
@pytest.mark.parametrize("lx, ly", [(1, 1), (7, 3), (2, 11), (30, 30)])
def test_groups_add_up_to_explorer_costs_and_to_a_real_module(shape, lx, ly):
    for family in FAMILIES:
        groups = ln.parameter_groups(shape, family, lx, ly)
        real = _real(shape, family)
        assert sum(g.parameters for g in groups) == parameter_count(real) == Transformer(real).num_parameters()
        flops = sum(g.flops for g in groups) + ln.attention_flops(shape, family, lx, ly)
        assert flops == sequence_forward_flops(real, lx, ly)
        # the count-only stand-in gives what explorer.costs gives for the real configuration
        assert parameter_count(shape.config(family)) == parameter_count(real)
        assert sequence_forward_flops(shape.config(family), lx, ly) == sequence_forward_flops(real, lx, ly)


def test_token_passes_follow_the_lengths():
    alloc = ln.allocation(ln.Shape(), 300, 5)
    dec = alloc["families"][ln.DECODER]["groups"]
    ed = {g["name"].split(":")[0]: g for g in alloc["families"][ln.ENCDEC]["groups"]}
    assert all(g["tokens"] == 305 for g in dec)
    assert ed["encoder"]["tokens"] == 300 and ed["decoder"]["tokens"] == 5
    assert ed["encoder"]["token_passes"] == ed["encoder"]["parameters"] * 300
    assert alloc["families"][ln.DECODER]["input_share_of_flops"] == pytest.approx(300 / 305)


def test_shapes_beyond_the_model_limit_are_counted_not_refused():
    big = ln.Shape(d_model=4096, n_layers=48, vocab_size=256_000)
    alloc = ln.allocation(big, 2048, 2048)
    assert alloc["families"][ln.ENCDEC]["parameters"] > 10**10
    with pytest.raises(ValueError):
        check_size(_real(big, ln.ENCDEC))  # building it is refused, with the limit named


def test_fractional_mean_lengths_use_the_group_sums():
    alloc = ln.allocation(TINY, 2.5, 1.5)
    fam = alloc["families"][ln.DECODER]
    groups = ln.parameter_groups(TINY, ln.DECODER, 2.5, 1.5)
    assert fam["flops"] == pytest.approx(sum(g.flops for g in groups) + ln.attention_flops(TINY, ln.DECODER, 2.5, 1.5))


@pytest.mark.parametrize("lx, ly", [(0, 3), (3, 0), (math.nan, 2)])
def test_lengths_below_one_token_are_refused(lx, ly):
    with pytest.raises(ValueError, match="at least 1 token"):
        ln.allocation(TINY, lx, ly)


def test_the_equal_cost_encoder_decoder_has_about_twice_the_parameters():
    shape = ln.Shape(d_model=1024, n_layers=12, vocab_size=64)
    for lx, ly in ((64, 64), (512, 8), (8, 512)):
        parity = ln.cost_parity(shape, lx, ly)
        eq, curves = parity["equal_cost"], parity["curves"][ln.ENCDEC]
        # both counts are affine in the layers: the second differences vanish
        assert np.all(np.diff(curves["flops"], 2) == 0) and np.all(np.diff(curves["parameters"], 2) == 0)
        # at the solved (fractional) layers the interpolated FLOPs equal the decoder-only FLOPs
        i = int(eq["layers_per_stack"]) - 1
        t = eq["layers_per_stack"] - (i + 1)
        flops = curves["flops"][i] + t * (curves["flops"][i + 1] - curves["flops"][i])
        assert flops == pytest.approx(parity["decoder"]["flops"], rel=1e-12)
        assert 1.6 < eq["parameter_ratio"] < 2.2, (lx, ly, eq)


# --- profiles ----------------------------------------------------------------------------------------------------


def test_profiles_have_the_shapes_the_lecture_describes():
    stats = {name: ln.profile_stats(ln.profile_pairs(name), TINY) for name in ln.PROFILES}
    assert stats["academic benchmark"]["ratio_of_means"] > 20
    assert 0.5 < stats["chat"]["ratio_of_means"] < 2
    assert stats["long-form writing"]["ratio_of_means"] < 0.1
    for s in stats.values():
        assert s["n"] == ln.PROFILE_PAIRS
        assert s["decoder_input_share"] == pytest.approx(s["mean_input"] / (s["mean_input"] + s["mean_target"]))


def test_profiles_are_deterministic_and_whole_tokens():
    a, b = ln.PROFILES["chat"].sample(), ln.PROFILES["chat"].sample()
    pd.testing.assert_frame_equal(a, b)
    assert a.dtypes.tolist() == [np.int64, np.int64] and (a >= 1).all().all()
    with pytest.raises(ValueError, match="profile must be one of"):
        ln.profile_pairs("nonsense")


def test_profile_stats_average_the_exact_flops_of_every_pair():
    pairs = pd.DataFrame({"input_len": [3, 3, 1, 6], "target_len": [2, 2, 1, 1]})
    stats = ln.profile_stats(pairs, TINY)
    assert stats["mean_input"] == 3.25 and stats["mean_target"] == 1.5 and stats["median_input"] == 3
    assert stats["share_longer_input"] == 0.75
    for family in FAMILIES:
        brute = np.mean([sequence_forward_flops(TINY.config(family), a, b) for a, b in pairs.itertuples(index=False)])
        assert stats["mean_flops"][family] == pytest.approx(brute, rel=1e-15)
    # attention is quadratic, so the mean FLOPs are not the FLOPs at the mean lengths
    at_means = ln.allocation(TINY, 3.25, 1.5)["families"][ln.DECODER]["flops"]
    assert stats["mean_flops"][ln.DECODER] > at_means


# --- typed pairs and uploads -----------------------------------------------------------------------------------


def test_typed_pairs_parse_with_any_separator():
    df = ln.parse_typed(" 300:4, 120:8;40:600  7:7 ")
    assert df.values.tolist() == [[300, 4], [120, 8], [40, 600], [7, 7]]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "at least one pair"),
        ("300-4", "is not a pair"),
        ("3.5:2", "is not a pair"),
        ("0:4", "from 1 to"),
        ("5:100001", "from 1 to"),
        (", ".join(["1:1"] * 51), "the limit here is 50"),
    ],
)
def test_bad_typed_pairs_say_what_is_wrong(text, message):
    with pytest.raises(ln.LengthsError, match=message):
        ln.parse_typed(text)


def test_an_upload_reads_with_aliases_and_a_bom():
    df = ln.read_pairs("\ufeffLx,Ly,note\n200,3,a\n\n50,900,b\n".encode())
    assert df.values.tolist() == [[200, 3], [50, 900]]
    assert ln.read_pairs(b"input_len,target_len\n1,100000\n").values.tolist() == [[1, 100000]]


@pytest.mark.parametrize(
    "raw, message",
    [
        (b"", "empty"),
        (b"  \n", "empty"),
        (b"PK\x03\x04rest", "not a CSV"),
        (b"a\x00b", "not a CSV"),
        (b"\xff\xfe\x00", "not a CSV"),
        (b"\xc3\x28,x\n", "not valid UTF-8"),
        (b"input,output_x\n1,2\n", "must name an input column"),
        (b"input_len,target_len\n", "0 data rows"),
        (b"input_len,target_len\n1,2\n3\n", "Line 3 has fewer fields"),
        (b"input_len,target_len\n1,two\n", "not a number"),
        (b"input_len,target_len\n0,2\n", "from 1 to 100,000"),
        (b"input_len,target_len\n2.5,2\n", "whole numbers"),
        (b"input_len,target_len\n200000,2\n", "from 1 to 100,000"),
        (b"input_len,target_len\nnan,2\n", "whole numbers"),
    ],
)
def test_bad_uploads_say_what_is_wrong(raw, message):
    with pytest.raises(ln.LengthsError, match=message):
        ln.read_pairs(raw)


def test_upload_limits_on_rows_and_bytes_are_stated():
    rows = b"input_len,target_len\n" + b"5,5\n" * (ln.MAX_ROWS + 1)
    with pytest.raises(ln.LengthsError, match=f"limit is {ln.MAX_ROWS:,} rows"):
        ln.read_pairs(rows)
    assert len(ln.read_pairs(b"input_len,target_len\n" + b"5,5\n" * ln.MAX_ROWS)) == ln.MAX_ROWS
    with pytest.raises(ln.LengthsError, match="bytes"):
        ln.read_pairs(b"x" * (ln.MAX_BYTES + 1))
