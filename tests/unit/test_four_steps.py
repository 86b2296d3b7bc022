"""The four-steps experiment held to closed forms, to the model's own masks and to GUIDE.md section 3."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from explorer.costs import parameter_count
from explorer.experiments import four_steps as fs
from explorer.model import Transformer
from explorer.stats import minimum_detectable_effect
from explorer.steps import FINAL_STEP, decoder_only_config, step_config

SMALL = fs.base_config(depth=2, width=32, heads=4)


@pytest.mark.parametrize("depth,width,heads", [(1, 16, 1), (2, 64, 4), (3, 32, 8), (12, 256, 16)])
def test_instantiated_parameter_counts_match_the_closed_form(depth, width, heads):
    base = fs.base_config(depth, width, heads)
    counts = fs.parameter_counts(base)
    assert counts == {v: parameter_count(cfg) for v, cfg in fs.step_configs(base).items()}


def test_meta_device_counts_equal_a_real_model():
    cfg = step_config(SMALL, 0)
    assert fs.instantiated_parameters(cfg) == Transformer(cfg).num_parameters()


def test_only_steps_one_two_and_the_final_change_move_the_count():
    counts = fs.parameter_counts(SMALL)
    d, L = SMALL.d_model, SMALL.n_layers
    assert counts["0"] > counts["1"] > counts["2"] == counts["3"] == counts["4"] > counts["5"] > counts["decoder"]
    assert counts["4"] - counts["decoder"] == 2 * d * (L + 1)  # LayerNorms only (GUIDE 3)
    assert counts["5"] - counts["decoder"] == 2 * d  # the encoder's final LayerNorm, unused
    assert "2d × 3 LayerNorm" in fs.extra_parameters_explained(SMALL, 4, counts)


EXPECTED_CHANGES = {
    1: {fs.SHARED_ROLES, fs.PARAMETERS},
    2: {fs.SHARED_STACKS, fs.PARAMETERS},
    3: {fs.READS},
    4: {fs.INPUT_MASK, fs.POSITIONS},
    5: {fs.ROLES, fs.SOFTMAXES, fs.PARAMETERS},
}


@pytest.mark.parametrize("step", range(1, FINAL_STEP + 1))
def test_each_step_changes_exactly_its_own_rows_of_the_table(step):
    rows = fs.diff_table(SMALL, step, fs.parameter_counts(SMALL))
    assert [r["aspect"] for r in rows] == [*fs.ASPECTS, fs.PARAMETERS]
    assert {r["aspect"] for r in rows if r["changed"]} == EXPECTED_CHANGES[step]


def test_rows_approach_decoder_only_and_match_it_after_the_final_change():
    counts = fs.parameter_counts(SMALL)
    matched = [sum(r["as_decoder_only"] for r in fs.diff_table(SMALL, k, counts)) for k in range(FINAL_STEP + 1)]
    assert matched == sorted(matched) and matched[0] == 0
    final = fs.diff_table(SMALL, FINAL_STEP, counts)
    assert [r["aspect"] for r in final if not r["as_decoder_only"]] == [fs.PARAMETERS]
    assert fs.describe(step_config(SMALL, FINAL_STEP)) == fs.describe(decoder_only_config(SMALL))
    with pytest.raises(ValueError, match="step must be"):
        fs.diff_table(SMALL, 6, counts)


def test_the_table_is_generated_from_the_flags_not_the_step_number():
    cfg = replace(step_config(SMALL, 0), causal_encoder=True)  # step 4's flag alone
    described = fs.describe(cfg)
    assert described[fs.INPUT_MASK] == "causal" and described[fs.SHARED_STACKS].startswith("no")


def test_wiring_reads_the_final_level_then_the_matching_one():
    L = 3
    base = fs.base_config(L, 32, 4)
    assert fs.wiring(step_config(base, 2)).reads == (L, L, L)
    assert fs.wiring(step_config(base, 3)).reads == (0, 1, 2)
    assert fs.wiring(decoder_only_config(base)).reads == fs.wiring(step_config(base, FINAL_STEP)).reads
    assert not fs.wiring(step_config(base, 3)).positions_continue and fs.wiring(step_config(base, 4)).positions_continue


@pytest.mark.parametrize("step", [0, 3, 4, FINAL_STEP])
def test_combined_mask_blocks_exactly_what_the_model_gives_zero_weight(step):
    n, m = 5, 4
    cfg = step_config(SMALL, step)
    codes = fs.combined_mask(cfg, n, m)["codes"]
    torch.manual_seed(0)
    x, y = torch.randint(2, cfg.vocab_size, (2, n)), torch.randint(2, cfg.vocab_size, (2, m))
    out = Transformer(cfg).eval()(x, y, need_weights=True)
    seen = {"encoder_self": codes[:n, :n]}
    if cfg.joint_softmax:
        seen["joint"] = codes[n:, :]
    else:
        seen["cross"], seen["decoder_self"] = codes[n:, :n], codes[n:, n:]
    for role, expected in seen.items():
        permitted = (out.attentions[role][0] > 0).all(dim=(0, 1)).numpy()
        np.testing.assert_array_equal(permitted, expected >= 0, err_msg=role)
    assert (codes[:n, n:] == -1).all()  # the input never reads the target


def test_the_final_masks_allow_the_same_cells_as_decoder_only_and_positions_continue():
    final = fs.combined_mask(step_config(SMALL, FINAL_STEP), 4, 3)
    decoder = fs.combined_mask(decoder_only_config(SMALL), 4, 3)
    np.testing.assert_array_equal(final["codes"] >= 0, decoder["codes"] >= 0)
    assert final["labels"] == decoder["labels"] == ["x1@0", "x2@1", "x3@2", "x4@3", "BOS@4", "y1@5", "y2@6"]
    assert fs.combined_mask(step_config(SMALL, 3), 4, 3)["labels"][4:] == ["BOS@0", "y1@1", "y2@2"]


@pytest.fixture(scope="module")
def check():
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # on a shared 2-core machine one thread trains several times faster
    try:  # the default sizes and settings of the page and the CLI
        yield fs.numeric_check(fs.base_config(**fs.DEFAULT_SIZES))
    finally:
        torch.set_num_threads(before)


def test_numeric_check_reports_the_instantiated_counts(check):
    counts = fs.parameter_counts(fs.base_config(**fs.DEFAULT_SIZES))
    assert [r["params"] for r in check["steps"]] == [counts[str(k)] for k in range(FINAL_STEP + 1)]
    assert check["decoder_only_params"] == counts["decoder"]


def test_step_four_is_not_decoder_only_but_the_final_change_is_to_rounding(check):
    four, final = check["steps"][4], check["steps"][FINAL_STEP]
    assert four["relative_diff"] > 1e-3 and four["relative_diff_f64"] > 1e-3
    assert final["relative_diff"] <= 1e-4
    assert final["relative_diff_f64"] <= 1e-10
    assert check["max_abs_logit"] > 1.0  # trained: logits large enough for a relative comparison


def test_each_remaining_cause_alone_moves_the_logits_beyond_rounding(check):
    assert [c["cause"] for c in check["causes"]] == ["softmaxes", "layer_output", "positions"]
    for cause in check["causes"]:
        assert cause["f64"] / check["max_abs_logit"] > 1e-3, cause["cause"]
    assert check["causes"][0]["f64"] == check["steps"][4]["max_abs_logit_diff_f64"]  # two softmaxes = step 4


def test_sharing_copied_weights_leaves_the_function_unchanged(check):
    """Steps 1 and 2 only tie weights that the transplant made equal: the logits do not move."""
    diffs = [r["max_abs_logit_diff_f64"] for r in check["steps"][:3]]
    assert max(diffs) - min(diffs) <= 1e-9 * max(diffs)


def test_minimum_detectable_effect_matches_power_tables():
    assert minimum_detectable_effect(64, 64) == pytest.approx(0.50, abs=0.01)  # Cohen: d = 0.5 needs 64
    assert minimum_detectable_effect(20, 20) == pytest.approx(0.91, abs=0.01)
    assert minimum_detectable_effect(3, 3) > minimum_detectable_effect(5, 5) > 1.9
    assert np.isnan(minimum_detectable_effect(1, 5))


def _runs(losses: dict[str, list[float]]) -> list[dict]:
    return [{"variant": v, "seed": s, "eval_loss": x} for v, xs in losses.items() for s, x in enumerate(xs)]


def test_summary_keeps_welch_for_planning_and_the_same_seed_gap():
    losses = {
        "0": [0.10, 0.12, 0.11],
        "1": [0.20, 0.22, 0.21],
        "2": [0.30, 0.31, 0.29],
        "3": [0.40, 0.41, 0.42],
        "4": [0.11, 0.13, 0.12],
        "5": [0.111, 0.121, 0.131],
        "decoder": [0.111, 0.121, 0.131],
    }
    summary = fs.summarize(_runs(losses))
    verdict = summary["verdict"]
    assert verdict["p"] > 0.05 and verdict["n"] == [3, 3]
    assert verdict["mde"] == pytest.approx(verdict["mde_sd"] * verdict["pooled_sd"])
    assert summary["final_vs_decoder"] == {"max_same_seed_gap": 0.0, "seeds": 3}


def test_paired_analysis_compares_every_pair_seed_by_seed_and_never_beats_its_floor():
    losses = {
        "0": [0.10, 0.12, 0.11, 0.10, 0.12],
        "1": [0.20, 0.22, 0.21, 0.23, 0.20],
        "2": [0.30, 0.31, 0.29, 0.30, 0.32],
        "3": [0.40, 0.41, 0.42, 0.40, 0.41],
        "4": [0.11, 0.13, 0.12, 0.11, 0.13],
        "5": [0.111, 0.121, 0.131, 0.111, 0.121],
        "decoder": [0.111, 0.121, 0.131, 0.111, 0.121],
    }
    paired = fs.paired_analysis(_runs(losses))
    rows = {(r["a"], r["b"]): r for r in paired["pairs"]}
    assert len(rows) == 21 and paired["smallest_p"] == pytest.approx(2 / 32)
    assert rows[("0", "1")]["paired_p"] == pytest.approx(2 / 32)  # every seed one way: the exact floor
    assert rows[("0", "1")]["holm_p"] == pytest.approx(min(1.0, 21 * 2 / 32))
    assert rows[("5", "decoder")]["paired_p"] == pytest.approx(1.0)
    eq = paired["equivalence"]
    assert eq["margin"] == pytest.approx(0.1 * np.mean(losses["decoder"])) and eq["p"] >= eq["smallest_p"]
    assert fs.path_text(paired).startswith("The path is not monotone") and "p below 0.062" in fs.path_text(paired)
    assert "Equivalence within the declared margin" in fs.paired_text(paired)
    close = fs.paired_analysis(_runs({"4": [0.2 + 1e-4 * k for k in range(8)], "decoder": [0.2] * 8}))
    assert close["equivalence"]["p"] == pytest.approx(1 / 256) and "supported" in fs.paired_text(close)


def test_ablation_settings_refuse_what_they_cannot_run():
    with pytest.raises(ValueError, match="steps must lie"):
        fs.AblationSettings(steps=0)
    with pytest.raises(ValueError, match="distinct non-negative seeds"):
        fs.AblationSettings(seeds=(1, 1))
    with pytest.raises(ValueError, match="variants"):
        fs.AblationSettings(variants=("7",))
    with pytest.raises(ValueError, match="the limit here is"):
        fs.AblationSettings(depth=12, width=512)
    s = fs.AblationSettings(seeds=(0, 1, 2))
    assert fs.AblationSettings.from_dict(s.to_dict()) == s


@pytest.mark.parametrize("depth,width,heads", [(2, 64, 4), (1, 32, 2), (3, 128, 8)])
def test_matched_width_is_the_closest_count_among_all_widths_the_heads_allow(depth, width, heads):
    base = fs.base_config(depth, width, heads)
    target = fs.instantiated_parameters(decoder_only_config(base))
    for variant, step in fs.MATCHED.items():  # closed-form counts: they equal the instantiated ones (above)
        every = {
            w: parameter_count(step_config(replace(base, d_model=w), step)) for w in range(heads, width + 1, heads)
        }
        best = min(abs(n - target) for n in every.values())
        chosen = fs.matched_width(base, step)
        assert chosen % heads == 0 and abs(every[chosen] - target) == best
        assert fs.variant_config(base, variant).d_model == chosen


def test_the_matched_path_brings_steps_0_and_1_within_ten_percent_of_decoder_only():
    rows = {r["variant"]: r for r in fs.parameter_table(fs.base_config(**fs.DEFAULT_SIZES))}
    assert rows["0"]["vs_decoder"] > 1.0 and rows["1"]["vs_decoder"] > 0.9  # sharing halves the model
    assert (rows["0m"]["width"], rows["1m"]["width"]) == (40, 44)
    assert all(abs(rows[v]["vs_decoder"]) < 0.1 for v in ("0m", "1m", "2", "3", "4", "5", fs.DECODER))


def test_compare_functions_against_hand_computed_agreement_and_kl():
    p = torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]], dtype=torch.float64)
    q = torch.tensor([[0.5, 0.4, 0.1], [0.6, 0.2, 0.2]], dtype=torch.float64)
    got = fs.compare_functions(p.log(), q.log())
    kl = float((p * (p / q).log()).sum(-1).mean())
    assert got["agreement"] == 0.5 and got["kl"] == pytest.approx(kl, rel=1e-12)
    assert fs.compare_functions(p.log(), p.log()) == {"agreement": 1.0, "kl": 0.0}


def test_the_final_change_trains_into_decoder_only_and_other_seeds_are_the_yardstick():
    """The same function from the same weights: agreement 1 and KL at rounding; seeds compared in a ring."""
    settings = fs.AblationSettings(
        steps=6,
        eval_every=3,
        seeds=(0, 1, 2),
        depth=1,
        width=16,
        heads=2,
        eval_size=32,
        variants=("4", "5", "decoder", "0m"),
    )
    record = fs.run_ablation(settings)
    final = [r for r in record["runs"] if r["variant"] == "5"]
    assert all(r["agreement"] == 1.0 and r["kl"] < 1e-9 for r in final)
    assert all("agreement" not in r for r in record["runs"] if r["variant"] == fs.DECODER)
    assert [(b["seed"], b["other_seed"]) for b in record["seed_baseline"]] == [(0, 1), (1, 2), (2, 0)]
    assert all(0 <= b["agreement"] <= 1 and b["kl"] > 1e-6 for b in record["seed_baseline"])
    summary = fs.function_summary(record)
    assert [v["variant"] for v in summary["variants"]] == ["0m", "4", "5"] and summary["baseline"]["n"] == 3
    assert {r["width"] for r in record["runs"] if r["variant"] == "0m"} == {fs.matched_width(settings.base, 0)}
    assert "between decoder-only models of neighbouring seeds" in fs.function_text(summary, 6)
    early = fs.runs_at(record["runs"], 3)  # the curve's step-3 losses, as a 3-step run would end
    assert len(early) == 12 and all(
        r["eval_loss"] == next(c[1] for c in run["curve"] if c[0] == 3) for r, run in zip(early, record["runs"])
    )


def test_neighbour_pairs_make_every_seed_a_reference_once():
    assert fs.neighbour_pairs([4]) == [] and fs.neighbour_pairs([0, 1]) == [(0, 1)]
    assert fs.neighbour_pairs([0, 1, 2, 3]) == [(0, 1), (1, 2), (2, 3), (3, 0)]


def test_step_four_starts_from_decoder_onlys_weights_as_the_headline_says():
    """A seed gives step 4 every decoder-only weight; its extra LayerNorms start at their fixed 1 and 0."""
    models = {}
    for v in ("4", fs.DECODER):
        torch.manual_seed(3)
        models[v] = Transformer(fs.variant_config(SMALL, v)).state_dict()
    four, decoder = models["4"], models[fs.DECODER]
    assert all(torch.equal(four[k], decoder[k]) for k in decoder)
    assert all(four[k].eq(1.0 if k.endswith("weight") else 0.0).all() for k in set(four) - set(decoder))


def test_a_run_reports_its_progress_in_the_language_of_the_session(monkeypatch):
    from explorer import i18n
    from explorer.progress import Progress

    class Said(Progress):
        def __init__(self) -> None:
            self.said: list[str] = []

        def report(self, fraction: float, message: str) -> None:
            self.said.append(message)

    def stub(settings, variant, seed, progress):  # no training: one message, then the run is cut
        progress.update(0.5, "inner")
        return {"variant": variant, "seed": seed, "stopped": "cancelled"}, None

    monkeypatch.setattr(fs, "run_one", stub)
    settings = fs.AblationSettings(seeds=(3,), variants=("1m", fs.DECODER))
    english, chinese = Said(), Said()
    fs.run_ablation(settings, english)
    with i18n.using("zh"):
        fs.run_ablation(settings, chinese)
    # the lab's runner names the run as it starts, then the run reports inside it
    assert english.said == ["run 1/2: step 1 matched, seed 3", "run 1/2: step 1 matched, seed 3: inner"]
    assert chinese.said == [
        "第 1/2 次运行：第 1 步（参数匹配），随机种子 3",
        "第 1/2 次运行：第 1 步（参数匹配），随机种子 3：inner",
    ]
    run = {"variant": "0m", "seed": 3, "eval_loss": 1.23456}
    assert fs.run_message(2, 9, run) == "run 2/9: step 0 matched, seed 3, held-out loss 1.235"
    with i18n.using("zh"):
        assert fs.run_message(2, 9, run) == "第 2/9 次运行：第 0 步（参数匹配），随机种子 3，留出集损失 1.235"
    assert all(fs.variant_short(v) == short for v, short in fs.VARIANT_SHORT.items())  # English as before


def test_the_numeric_check_reports_its_progress_in_the_language_of_the_session():
    from explorer import i18n
    from explorer.progress import Progress

    class Said(Progress):
        def __init__(self) -> None:
            self.said: list[str] = []

        def report(self, fraction: float, message: str) -> None:
            self.said.append(message)

    english, chinese = Said(), Said()
    tiny = fs.base_config(depth=1, width=16, heads=1)
    fs.numeric_check(tiny, train_steps=1, batch=2, progress=english)
    with i18n.using("zh"):
        fs.numeric_check(tiny, train_steps=1, batch=2, progress=chinese)
    assert english.said[0].startswith("training decoder-only: step 1 of 1, held-out loss ")
    assert english.said[1:] == [f"comparing logits at step {k}" for k in range(FINAL_STEP + 1)]
    assert chinese.said[0].startswith("训练仅解码器模型：第 1/1 步，留出集损失 ")
    assert chinese.said[1:] == [f"比较第 {k} 步的 logits" for k in range(FINAL_STEP + 1)]


def _owners(cfg) -> dict:
    return {(t.stack, t.layer, t.role): (t.owner, t.owner_layer) for t in fs.weight_tiles(cfg)}


def test_weight_tiles_show_what_steps_1_and_2_share_which_no_mask_can():
    """Read from the built model by module identity: step 1 gives cross-attention its layer's self-attention
    weights, step 2 runs the input through the decoder's layers; from there the blocks are decoder-only's."""
    L = 3
    base = fs.base_config(L, 32, 4)
    step = {k: _owners(step_config(base, k)) for k in range(FINAL_STEP + 1)}
    assert step[0][("decoder", 2, "cross")] == ("cross", 2) and step[0][("encoder", 2, "self")] == ("encoder", 2)
    assert step[1][("decoder", 2, "cross")] == ("decoder", 2)  # step 1: the self-attention's projections
    assert step[1][("encoder", 2, "mlp")] == ("encoder", 2)
    assert step[2][("encoder", 2, "self")] == step[2][("encoder", 2, "mlp")] == ("decoder", 2)  # step 2
    blocks = [fs.weight_blocks(fs.weight_tiles(step_config(base, k))) for k in range(FINAL_STEP + 1)]
    assert blocks == [5 * L, 4 * L, 2 * L, 2 * L, 2 * L, 2 * L]
    decoder = fs.weight_tiles(decoder_only_config(base))
    assert fs.weight_blocks(decoder) == 2 * L and all(
        step[k] == _owners(decoder_only_config(base)) for k in (2, 3, 4, 5)
    )
    final = fs.weight_tiles(step_config(base, FINAL_STEP))
    assert final == decoder  # one attention per decoder layer (merged), as in decoder-only
    assert not any(t.merged for t in fs.weight_tiles(step_config(base, 4)))  # two softmaxes until the final change
    # the blocks counted agree with the parameters: of the four steps only 1 and 2 change the count (the final
    # change drops LayerNorms only)
    counts = fs.parameter_counts(base)
    assert [counts[str(k)] != counts[str(k - 1)] for k in range(1, FINAL_STEP)] == [
        blocks[k] != blocks[k - 1] for k in range(1, FINAL_STEP)
    ]


def test_the_final_mask_takes_decoder_onlys_kinds_not_a_colour_of_its_own():
    """One softmax over exactly decoder-only's cells is decoder-only's attention: the same codes, the same colour."""
    final = fs.combined_mask(step_config(SMALL, FINAL_STEP), 4, 3)
    decoder = fs.combined_mask(decoder_only_config(SMALL), 4, 3)
    np.testing.assert_array_equal(final["codes"], decoder["codes"])
    step4 = fs.combined_mask(step_config(SMALL, 4), 4, 3)
    assert set(np.unique(step4["codes"][4:, :4])) == {fs.MASK_CATEGORIES.index("cross")}  # two softmaxes still
