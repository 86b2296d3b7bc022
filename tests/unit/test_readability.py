"""Figures everyone can read (explorer.figures.readability): text contrast, and colour never the only channel.
The page tests run both checks over every figure of every page; here each rule and each mend on small figures."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from bench.contrast import low_contrast as drawn_low_contrast
from explorer.evidence import Evidence, Kind
from explorer.figures.heatmaps import category_heatmap
from explorer.figures.readability import (
    TEXT_CONTRAST,
    colour_only,
    contrast,
    label_categories,
    low_contrast,
    readable_colour,
    rgb_of,
    second_channel,
)
from explorer.figures.theme import CONCEPT_COLORS, EVIDENCE_COLORS, for_dark, styled


def test_contrast_is_wcags_ratio():
    assert contrast((255, 255, 255), (0, 0, 0)) == pytest.approx(21.0)
    assert contrast(rgb_of("#777777"), rgb_of("white")) == pytest.approx(4.48, abs=0.01)  # just under 4.5
    assert rgb_of("rgba(255, 255, 255, 0.85)") == (255, 255, 255) and rgb_of(["#000000"]) is None


def test_every_evidence_badge_reads_as_white_text_on_its_colour():
    for kind, color in EVIDENCE_COLORS.items():
        assert contrast((255, 255, 255), rgb_of(color)) >= TEXT_CONTRAST, kind


def test_an_orange_note_is_flagged_and_styling_deepens_it_to_a_readable_orange():
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]))
    fig.add_annotation(x=0, y=0, text="today's budget", font=dict(color=CONCEPT_COLORS["bidirectional"]))
    assert low_contrast(fig) == ['note "today\'s budget": #E69F00 on white is 2.25:1 (needs 4.5:1)']
    shown = styled(go.Figure(fig), "t", Evidence(Kind.MEASURED, "d"))
    note = next(a for a in shown.layout.annotations if a.name != "evidence")
    r, g, b = rgb_of(note.font.color)
    assert low_contrast(shown) == [] and r > g > b  # still an orange, a shade deeper
    assert low_contrast(for_dark(shown)) == []  # and a paler one on the dark panel


def test_readable_colour_keeps_a_colour_that_already_reads():
    assert readable_colour("#0072B2", "#FFFFFF") == "#0072B2"
    assert contrast(rgb_of(readable_colour("#0072B2", "#0E1117")), rgb_of("#0E1117")) >= TEXT_CONTRAST


def _two_lines(**second) -> go.Figure:
    fig = go.Figure()
    fig.add_scatter(x=[0, 1], y=[0, 1], mode="lines", name="causal", line=dict(color="#0072B2"))
    fig.add_scatter(x=[0, 1], y=[1, 0], mode="lines", name="bidirectional", line=dict(color="#E69F00", **second))
    fig.add_scatter(x=[0, 1], y=[1, 1], mode="lines", line=dict(color="#E69F00"), showlegend=False)
    return fig


def test_two_legend_entries_that_differ_only_in_colour_are_flagged_and_marked_apart():
    fig = _two_lines()
    assert colour_only(fig) == ["colour alone tells apart: causal | bidirectional"]
    second_channel(fig)
    assert colour_only(fig) == []
    assert fig.data[0].mode == "lines"  # the first keeps its look
    assert fig.data[1].mode == "lines+markers" and fig.data[1].marker.symbol == "square"
    assert fig.data[1].marker.maxdisplayed == 12  # a few marks on a line, not one per point
    assert fig.data[2].mode == "lines"  # a trace without a legend entry is left alone


def test_entries_told_apart_by_dash_or_labelled_on_the_plot_pass():
    assert colour_only(_two_lines(dash="dash")) == []
    fig = _two_lines()
    fig.add_annotation(x=1, y=0, text="bidirectional", showarrow=False)
    assert colour_only(fig) == []


def test_a_new_symbol_or_pattern_is_one_the_figure_does_not_use_yet():
    fig = go.Figure()
    for name, color in (("a", "#0072B2"), ("b", "#E69F00"), ("c", "#009E73")):
        fig.add_bar(x=[name], y=[1], name=name, marker=dict(color=color))
    fig.add_bar(x=["d"], y=[1], name="d", marker=dict(color="#777777", pattern=dict(shape="/")))
    second_channel(fig)
    shapes = [t.marker.pattern.shape for t in fig.data]
    assert shapes[0] is None and len(set(shapes)) == 4 and colour_only(fig) == []


def test_each_category_of_a_mask_is_named_once_inside_its_own_cells():
    n = 6
    causal = np.where(np.tril(np.ones((n, n), bool)), 0, 1)  # 0 causal, 1 blocked
    categories = [("causal", CONCEPT_COLORS["causal"]), ("blocked", CONCEPT_COLORS["blocked"])]
    labels = [str(i) for i in range(n)]
    fig = go.Figure(category_heatmap(causal, categories, labels, labels))
    assert colour_only(fig) == ["category 'blocked' only by its colour", "category 'causal' only by its colour"]
    label_categories(fig)
    assert colour_only(fig) == []
    placed = {a.text: (int(a.y), int(a.x)) for a in fig.layout.annotations}
    assert sorted(placed) == ["blocked", "causal"]
    assert all(causal[cell] == (0 if name == "causal" else 1) for name, cell in placed.items())


def test_a_category_whose_cells_carry_their_own_numbers_gets_no_label():
    kinds = [("new", "#D55E00"), ("redone", "#F3B58F")]
    fig = go.Figure(category_heatmap(np.array([[0, 1]]), kinds, ["r"], ["a", "b"]))
    fig.data[0].text = [["", "12%"]]
    label_categories(fig)
    assert [a.text for a in fig.layout.annotations] == ["new"] and colour_only(fig) == []


def test_drawn_contrast_reads_the_ground_from_the_pixels_around_a_text():
    image = np.full((40, 200, 3), 255, dtype=np.uint8)
    image[:, 100:] = (0x0E, 0x11, 0x17)  # the right half: the dark panel
    grey = {"fill": "rgb(150, 150, 150)", "alpha": 1.0, "size": 13, "y": 10, "w": 40, "h": 14}
    texts = [{**grey, "text": "on white", "x": 20}, {**grey, "text": "on dark", "x": 130}]
    image[14:20, 30:34] = 150  # a glyph's stroke inside the first box: not its ground
    assert drawn_low_contrast(texts, image) == ["'on white' 2.96:1"]  # 7.1:1 on the dark panel passes


def test_more_look_alike_entries_than_symbols_repeat_symbols_rather_than_fail():
    from explorer.figures.readability import SYMBOLS

    fig = go.Figure()
    for i in range(len(SYMBOLS) + 3):
        fig.add_scatter(x=[0, 1], y=[i, i], mode="lines", name=f"d{i}", line=dict(color=f"#{i:02X}5080"))
    second_channel(fig)
    looks = [t.marker.symbol for t in fig.data]
    assert looks[0] is None and looks[1 : len(SYMBOLS) + 1] == list(SYMBOLS)  # each distinct while they last
    assert looks[len(SYMBOLS) + 1] == SYMBOLS[0]


def test_a_legend_key_that_stands_for_shapes_gets_no_mark_and_the_check_asks_for_labels():
    from explorer.figures.readability import LABELLED

    fig = go.Figure()
    for name, color in (("decoder (D)", "#332288"), ("encoder (E)", "#88CCEE")):
        fig.add_scatter(x=[None], y=[None], mode="markers", name=name, marker=dict(symbol="square", color=color))
    second_channel(fig)
    assert [t.marker.symbol for t in fig.data] == ["square", "square"]  # a mark here would show on no tile
    assert colour_only(fig) == ["colour alone tells apart: decoder (D) | encoder (E)"]
    fig.update_traces(meta=LABELLED)  # the tiles carry "D1", "E1"
    assert colour_only(fig) == []
