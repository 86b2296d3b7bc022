"""AppTest of the attention page: the masks on the first screen, each section from the URL, every architecture,
layer and head extremes, text edge cases, URL state, bad URL values, and a model trained on demand when its file
is missing."""

import base64

import numpy as np
import pytest

from explorer import i18n
from explorer.experiments import attention as att
from explorer.figures import attention as figs
from explorer.jobs import QUEUE
from tests.pages.conftest import (
    assert_clean,
    evidence_kinds,
    figures,
    press_train,
    run_page,
    untranslated,
    wait_for_jobs,
)

PAGE = "attention.py"
N_LAYERS = att.demo_spec("decoder").model.n_layers
N_HEADS = att.demo_spec("decoder").model.n_heads
FIRST = ["schematic", "measured", "measured"]  # the masks; the open section's head overview and weights
SEQUENCE = "One sequence, one matrix"
TOKENS = "Text, tokens and vectors"


def _array(value) -> np.ndarray:
    """A figure array from its JSON: a plain nested list, or Plotly's typed form {dtype, bdata, shape}."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        return flat.reshape([int(d) for d in str(shape).split(",")]) if shape else flat
    return np.array([[np.nan if v is None else v for v in row] for row in value], dtype=float)


def _weights_figure(at) -> dict:
    return next(f for f in figures(at) if "attention weights" in f["layout"]["meta"]["title"])


def _text(at) -> str:
    """Every message and paragraph as one line: content files wrap their text."""
    return " ".join(
        " ".join(e.value for kind in ("info", "warning", "caption", "markdown") for e in getattr(at, kind)).split()
    )


@pytest.mark.parametrize("arch", att.ARCHS)
def test_each_architecture_shows_masks_and_measured_weights_that_sum_to_one(arch):
    at = run_page(PAGE, arch=att.ARCH_NAMES[arch], text="hello world")
    assert_clean(at)
    assert evidence_kinds(at) == FIRST
    assert figures(at)[0]["layout"]["meta"]["figure_id"] == "attention-masks"  # the slide's picture comes first
    assert figures(at)[0]["layout"]["height"] <= 520  # whole on the first screen
    weights = _weights_figure(at)
    assert weights["layout"]["meta"]["title"].startswith(att.ARCH_NAMES[arch])
    masked = 0
    for trace in weights["data"]:  # each row: a softmax over the allowed keys; masked cells are empty (NaN)
        z = _array(trace["z"])
        np.testing.assert_allclose(np.nansum(z, axis=1), 1.0, atol=1e-5)
        masked += int(np.isnan(z).sum())
    assert (masked > 0) == (arch != "encoder")  # every family but encoder-only hides something
    assert "right" in _text(at)  # the model's output, right or wrong, is reported
    assert "query-key pairs" in _text(at)  # the takeaway under the masks


def test_the_takeaway_counts_the_pairs_each_mask_allows():
    at = run_page(PAGE, text="hello world")  # 11 input tokens, 11 target positions
    assert "308 of the 484 query-key pairs over [input ; target] may be read (64%)" in _text(at)  # 121+121+66
    at = run_page(PAGE, arch=att.ARCH_NAMES["decoder"], text="hello world")
    assert "253 of the 484 query-key pairs" in _text(at)  # one causal triangle over 22 positions
    at = run_page(PAGE, text="hello world", causal_input="true")
    assert "253 of the 484 query-key pairs" in _text(at) and "with step 4" in _text(at)


@pytest.mark.parametrize("arch", att.ARCHS)
@pytest.mark.parametrize("section, kinds", [(SEQUENCE, None), (TOKENS, ["schematic", "measured"])])
def test_each_section_opens_from_the_url_and_draws_only_its_own_figures(arch, section, kinds):
    at = run_page(PAGE, arch=att.ARCH_NAMES[arch], text="hello world", section=section)
    assert_clean(at)
    if section == SEQUENCE:  # the combined view (no target: none for encoder-only), the wiring (encoder-decoder)
        ids = (
            ["attention-masks"]
            + (["attention-combined"] if arch != "encoder" else [])
            + (["attention-wiring"] if arch == "encoder_decoder" else [])
        )
        assert [f["layout"]["meta"]["figure_id"] for f in figures(at)] == ids
        assert evidence_kinds(at) == ["schematic"] * len(ids) and not at.slider
    if section == TOKENS:
        assert evidence_kinds(at) == kinds
        (table,) = at.dataframe
        assert list(table.value.loc["character"][:5]) == list("hello") and "Tokenizer:" in _text(at)


@pytest.mark.parametrize("layer, head", [(1, 1), (N_LAYERS, N_HEADS), (1, N_HEADS), (N_LAYERS, 1)])
def test_layer_and_head_extremes_from_the_url(layer, head):
    at = run_page(PAGE, arch=att.ARCH_NAMES["decoder"], layer=str(layer), head=str(head))
    assert_clean(at)
    assert f"layer {layer}, head {head}" in _weights_figure(at)["layout"]["meta"]["title"]


def test_moving_the_sliders_redraws_the_weights():
    at = run_page(PAGE)
    layer, head = at.slider[0], at.slider[1]
    head.set_value(N_HEADS).run()
    assert_clean(at)
    assert f"head {N_HEADS}" in _weights_figure(at)["layout"]["meta"]["title"]
    at.slider[0].set_value(1).run()
    assert_clean(at)
    assert f"layer 1, head {N_HEADS}" in _weights_figure(at)["layout"]["meta"]["title"]
    assert layer.min == head.min == 1 and layer.max == N_LAYERS and head.max == N_HEADS


def test_empty_text_asks_for_text_without_an_error():
    at = run_page(PAGE, text="")
    assert_clean(at)
    assert "type 1 to" in _text(at) and not figures(at)


def test_whitespace_only_text_is_still_text():
    at = run_page(PAGE, text="   ")
    assert_clean(at)
    assert evidence_kinds(at) == FIRST


def test_one_character_works():
    at = run_page(PAGE, arch=att.ARCH_NAMES["prefix_lm"], text="a")
    assert_clean(at)
    assert "single character" in _text(at) and evidence_kinds(at) == FIRST


def test_ten_thousand_characters_are_cut_to_the_limit_with_a_notice():
    at = run_page(PAGE, text="abc " * 2500)
    assert_clean(at)
    assert f"cut to {att.MAX_CHARS}" in _text(at)
    assert _array(_weights_figure(at)["data"][-1]["z"]).shape[1] == att.MAX_CHARS  # cross-attention keys: the input


def test_the_text_box_itself_refuses_more_than_the_limit():
    at = run_page(PAGE)
    box = at.text_input[0]
    assert box.max_chars == att.MAX_CHARS and str(att.MAX_CHARS) in box.label
    box.input("x" * 10_000).run()
    assert_clean(at)
    assert at.text_input[0].value == "hello world"  # like the browser, the widget keeps the last valid text


@pytest.mark.parametrize(
    "text, notice",
    [
        ("hi 😀👍🏽", "Not in the alphabet"),
        ("ΣΩ €", "Not in the alphabet"),
        ("Héllo WÖRLD", "lowercase"),
        ("\u200d\u200d", "no text"),
    ],
)
def test_text_outside_the_alphabet_gets_a_visible_fallback(text, notice):
    at = run_page(PAGE, arch=att.ARCH_NAMES["encoder"], text=text)
    assert_clean(at)
    assert notice in _text(at)


def test_a_url_restores_the_whole_view():
    at = run_page(PAGE, arch="Prefix-LM", text="abc", layer="1", head="3", causal_input="false")
    assert_clean(at)
    assert at.text_input[0].value == "abc"
    assert at.slider[0].value == 1 and at.slider[1].value == 3
    assert "Prefix-LM: attention weights, layer 1, head 3" == _weights_figure(at)["layout"]["meta"]["title"]
    assert at.query_params["arch"] == ["Prefix-LM"] or at.query_params["arch"] == "Prefix-LM"


def test_the_step_4_variants_redraw_the_masks_and_the_wiring():
    at = run_page(
        PAGE, arch=att.ARCH_NAMES["encoder_decoder"], causal_input="true", aligned="true", text="abcd", section=SEQUENCE
    )
    assert_clean(at)
    titles = [f["layout"]["meta"]["title"] for f in figures(at)]
    assert any("wiring: causal input, layer-aligned" in t for t in titles)
    masks = next(f for f in figures(at) if "who may read whom" in f["layout"]["meta"]["title"])
    encoder_mask = _array(masks["data"][0]["z"])
    assert np.isnan(encoder_mask[0, 1]) and not np.isnan(encoder_mask[1, 0])  # causal input: no reading ahead
    at = run_page(PAGE, arch=att.ARCH_NAMES["encoder_decoder"], causal_input="true", aligned="true", text="abcd")
    assert_clean(at)
    assert "standard encoder-decoder" in _text(at)  # the weights are said to come from the standard model


def test_variant_toggles_are_disabled_for_other_architectures():
    at = run_page(PAGE, arch=att.ARCH_NAMES["decoder"], causal_input="true", section=SEQUENCE)
    assert_clean(at)
    assert all(t.disabled for t in at.toggle)
    assert not any("wiring" in f["layout"]["meta"]["title"] for f in figures(at))


@pytest.mark.parametrize(
    "params",
    [dict(arch="gpt-5"), dict(layer="99", head="-3"), dict(head="abc"), dict(causal_input="maybe", aligned="2")],
)
def test_bad_url_values_get_a_notice_not_a_traceback(params):
    at = run_page(PAGE, **params)
    assert_clean(at)
    assert "URL parameter" in _text(at)
    assert evidence_kinds(at) == FIRST


def test_a_missing_model_is_trained_on_demand_with_progress(tmp_path, monkeypatch):
    monkeypatch.setattr(att, "SHIPPED_DIR", tmp_path / "none")
    monkeypatch.setattr(att, "on_demand_dir", lambda: tmp_path / "trained")
    quick = att.demo_spec
    monkeypatch.setattr(att, "demo_spec", lambda arch, **kw: quick(arch, steps=20, **kw))
    try:
        at = run_page(PAGE, arch=att.ARCH_NAMES["encoder"], text="abc")
        assert_clean(at)
        assert "not on disk" in _text(at)
        assert evidence_kinds(at) == ["schematic"]  # the masks need no model; the weights wait for it
        at = wait_for_jobs(press_train(at), timeout=120)
        assert_clean(at)
        assert evidence_kinds(at) == FIRST
        assert (tmp_path / "trained" / "encoder.safetensors").is_file()
        assert "right" in _text(at)  # a 20-step model: its output is shown, right or (mostly) wrong
    finally:  # the queue lives as long as the process: forget this run so no later test finds it
        QUEUE._jobs.pop("attention-demo-encoder", None)


@pytest.mark.parametrize("arch", ["encoder_decoder", "encoder"])
def test_the_chinese_page_leaves_no_english_in_any_section(arch):
    """?lang=zh: prose, widgets, notices, the output panel and every figure (all sections open) speak Chinese;
    the architecture keeps its URL value (the English label is read too)."""
    at = run_page(
        PAGE,
        lang="zh",
        arch=att.ARCH_NAMES[arch],
        text="hello world",
        causal_input="true",
        aligned="true",
        sections="all",
    )
    assert_clean(at)
    assert untranslated(at) == []
    assert "查询-键对" in _text(at) and len(figures(at)) >= 4
    with i18n.using("zh"):
        assert figures(at)[0]["layout"]["meta"]["title"].startswith(figs.arch_name(arch))
