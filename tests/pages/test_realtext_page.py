"""AppTest of the attention page's Real text tab: the four shipped real-text models read the default sentence, a
student's English and Chinese sentences, layer and head extremes, unknown characters and empty text."""

import numpy as np
import pytest

from tests.pages.conftest import assert_clean, evidence_kinds, figures, page_downloads, run_page, untranslated
from tests.pages.test_attention_page import _array, _text

PAGE = "attention.py"
TAB = {"en": "Real text: four models", "zh": "真实文本：四个模型"}


def _real_figure(at) -> dict:
    (fig,) = [f for f in figures(at) if f["layout"]["meta"]["figure_id"] == "attention-real-text"]
    return fig


def _weights(fig: dict) -> list[np.ndarray]:
    """The four panels' weights (every second trace; the first of each pair draws the mask's forbidden cells)."""
    return [_array(trace["z"]) for trace in fig["data"][1::2]]


@pytest.mark.parametrize(
    "text, n", [(None, 54), ("The LORD is my shepherd; I shall not want.", 42), ("床前明月光，疑是地上霜。", 12)]
)
def test_four_models_read_the_sentence_each_under_its_mask(text, n):
    at = run_page(PAGE, section=TAB["en"], **({"rt_text": text} if text else {}))
    assert_clean(at)
    fig = _real_figure(at)
    assert fig["layout"]["meta"]["evidence"] == "measured"
    panels = _weights(fig)
    assert len(panels) == 4 and all(z.shape == (n, n) for z in panels)
    for z in panels:  # each row a softmax over the keys its mask allows
        np.testing.assert_allclose(np.nansum(z, axis=1), 1.0, atol=1e-4)
    decoder, encoder, prefix, _ = panels
    assert np.isnan(decoder[0, 1]) and not np.isnan(encoder).any()  # causal vs bidirectional
    assert not np.isnan(prefix[0, n // 2 - 1]) and np.isnan(prefix[0, n // 2])  # the first half reads both ways
    said = _text(at)
    assert "right" in said and "Continuation" in said  # the encoder's and the decoder's guesses
    assert any("CSV" in label for label in page_downloads(at))
    assert "measured" in evidence_kinds(at)


def test_layer_and_head_extremes_and_the_chinese_edition():
    at = run_page(PAGE, section=TAB["en"], rt_layer="4", rt_head="4")
    assert_clean(at)
    assert "layer 2/2, head 4" in " ".join(a["text"] for a in _real_figure(at)["layout"]["annotations"])
    zh = run_page(PAGE, section=TAB["zh"], lang="zh")
    assert_clean(zh)
    assert _weights(_real_figure(zh))[0].shape == (16, 16)  # the Chinese default sentence
    assert not [u for u in untranslated(zh) if "Real" in u or "real" in u]


def test_unknown_characters_and_empty_text_are_explained_not_raised():
    at = run_page(PAGE, section=TAB["en"], rt_text="Let there be 😀 light 42")
    assert_clean(at)
    assert "<unk>" in _text(at) and "😀" in _text(at)
    empty = run_page(PAGE, section=TAB["en"], rt_text="")
    assert_clean(empty)
    assert "no text to read" in _text(empty) and not [
        f for f in figures(empty) if f["layout"]["meta"]["figure_id"] == "attention-real-text"
    ]
