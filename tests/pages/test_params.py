"""The URL-bound widgets of ui.params: good URL values are used, bad ones clamped or dropped with a notice."""

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

SCRIPT = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
import streamlit as st
from ui import params
n = params.slider("n", "n", 1, 100, 10)
arch = params.choice("arch", "arch", ["decoder", "encoder"], "decoder")
on = params.toggle("on", "on", False)
words = params.multiselect("w", "w", ["a", "b", "c"], ["a"])
text = params.text("t", "t", "hello", max_chars=20)
level = params.select_slider("lvl", "lvl", [2, 4, 8], 4)
st.write(repr((n, arch, on, words, text, level)))
"""


def _run(**qp):
    at = AppTest.from_string(SCRIPT, default_timeout=30)
    for k, v in qp.items():
        at.query_params[k] = v
    return at.run()


def _values(at):
    return at.markdown[-1].value


def test_defaults_without_url_parameters():
    at = _run()
    assert not at.exception
    assert _values(at) == "(10, 'decoder', False, ['a'], 'hello', 4)"


def test_valid_url_values_are_used():
    at = _run(n="55", arch="encoder", on="true", w=["b", "c"], t="hi", lvl="8")
    assert _values(at) == "(55, 'encoder', True, ['b', 'c'], 'hi', 8)"
    assert not at.caption


def test_out_of_range_numbers_are_clamped_with_a_notice():
    at = _run(n="5000")
    assert _values(at).startswith("(100,")
    assert "outside 1 to 100" in at.caption[0].value


def test_unusable_values_fall_back_to_defaults_with_a_notice():
    at = _run(n="abc", arch="gpt<script>", on="maybe", lvl="3", w=["zzz"])
    assert not at.exception
    assert _values(at) == "(10, 'decoder', False, ['a'], 'hello', 4)"
    notices = " ".join(c.value for c in at.caption)
    for key in ("`n`", "`arch`", "`on`", "`lvl`", "`w`"):
        assert key in notices


def test_overlong_text_is_cut_to_the_limit():
    at = _run(t="x" * 500)
    assert "'" + "x" * 20 + "'" in _values(at)
    assert "cut to 20" in at.caption[0].value


def test_hidden_controls_keep_url_state_and_draw_no_widgets():
    at = _run(controls="hidden", n="7", arch="encoder")
    assert _values(at).startswith("(7, 'encoder'")
    assert not at.slider and not at.toggle


def test_a_value_left_by_another_pages_widget_is_made_valid_here():
    """Session state is shared across pages; a same-named widget elsewhere may have left any value."""
    at = AppTest.from_string(SCRIPT, default_timeout=30)
    at.session_state["n"] = 5000  # another page's `n` ran to 5000
    at.session_state["arch"] = "gpt"  # and another page's `arch` had other options
    at.run()
    assert not at.exception
    assert _values(at).startswith("(100, 'decoder',")
