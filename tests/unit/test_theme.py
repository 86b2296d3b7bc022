"""The evidence badge: wrapped so that it never runs past a figure's edge, and never loses a word; on a page,
written above the chart as text. And the four renderings: each figure restyled for a phone, an embed and a projector
(explorer.figures.frames)."""

import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from explorer.evidence import Evidence, Kind
from explorer.figures.theme import BADGE_CHARS, BADGE_LINE_PX, TOP_MARGIN, badge_lines, below_badge, styled

LONG = Evidence(
    Kind.MEASURED,
    "1 layer, d=40, 5 heads, batch 16, 800 steps, seeds 0-2; band = seed min-max; dashed = closed-form ceiling",
    also=(Kind.FORMULA,),
)


def _plain(lines: list[str]) -> str:
    return " ".join(lines).replace("<b>", "").replace("</b>", "")


def test_a_long_badge_wraps_at_spaces_and_keeps_every_word():
    lines = badge_lines(LONG, 48)
    assert len(lines) > 1 and all(len(line.replace("<b>", "").replace("</b>", "")) <= 48 for line in lines)
    assert lines[0].startswith("<b>MEASURED + FORMULA</b> · ")
    assert _plain(lines) == f"{LONG.title.upper()} · {LONG.detail}"


def test_a_short_badge_stays_on_one_line_and_the_kind_is_never_split():
    assert badge_lines(Evidence(Kind.SCHEMATIC, "from the model config")) == [
        "<b>SCHEMATIC</b> · from the model config"
    ]
    kinds = Evidence(Kind.HISTORICAL, "", also=(Kind.FIT,))
    assert badge_lines(kinds, 10) == [f"<b>{kinds.title.upper()}</b>"]


def test_each_further_badge_line_moves_the_plot_down():
    one = styled(go.Figure(), "t", Evidence(Kind.SCHEMATIC, "short"))
    wrapped = styled(go.Figure(), "t", LONG, badge_chars=40)
    lines = badge_lines(LONG, 40)
    assert one.layout.margin.t == TOP_MARGIN
    assert wrapped.layout.margin.t == TOP_MARGIN + BADGE_LINE_PX * (len(lines) - 1)
    badge = next(a for a in wrapped.layout.annotations if a.name == "evidence")
    assert badge.text == "<br>".join(lines) and len(badge_lines(LONG)) <= len(lines) and BADGE_CHARS > 40


def test_panel_titles_move_below_the_badge_row_with_their_panels():
    fig = make_subplots(rows=2, cols=2, subplot_titles=("a", "b", "c", "d"), vertical_spacing=0.2)
    tops = sorted({a.y for a in fig.layout.annotations})
    below_badge(fig, 0.8)
    assert sorted({a.y for a in fig.layout.annotations}) == [y * 0.8 for y in tops]
    assert max(axis.domain[1] for axis in fig.select_yaxes()) == 0.8
    assert min(axis.domain[0] for axis in fig.select_yaxes()) == 0.0


def test_the_dark_copy_darkens_panels_and_type_and_leaves_the_export_light():
    from explorer.figures.theme import DARK, for_dark

    fig = styled(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])), "A title", Evidence(Kind.MEASURED, "seed 0"))
    dark = for_dark(fig)
    assert dark.layout.paper_bgcolor == dark.layout.plot_bgcolor == DARK["paper"]
    assert dark.layout.font.color == DARK["text"] and dark.layout.xaxis.gridcolor == DARK["grid"]
    assert fig.layout.paper_bgcolor is None  # the original keeps the light template (exports use it)
    assert dark.layout.meta["evidence"] == "measured" and dark.data[0].y == (3, 4)


def test_a_page_writes_the_title_and_badge_above_the_chart_and_the_export_keeps_them():
    from explorer.figures.theme import EVIDENCE_COLORS, HEADER_KEEP_PX, split_header

    fig = styled(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])), "What <sup>and why</sup>", LONG, badge_chars=40)
    chart, header = split_header(fig)
    assert header.title == "What <sup>and why</sup>" and header.color == EVIDENCE_COLORS[Kind.MEASURED]
    assert header.badge == " ".join(badge_lines(LONG, 40)) and "<br>" not in header.badge
    assert not chart.layout.title.text and not [a for a in chart.layout.annotations if a.name == "evidence"]
    assert chart.layout.margin.t == HEADER_KEEP_PX  # the rows the title and badge took are given up,
    assert (
        fig.layout.height - chart.layout.height == fig.layout.margin.t - HEADER_KEEP_PX
    )  # and the plot keeps its size
    assert chart.layout.meta["title"] == header.title and chart.layout.meta["evidence"] == "measured"
    assert fig.layout.title.text == header.title and len(fig.layout.annotations) == 1  # the export keeps both


def test_a_figure_with_more_room_on_top_keeps_the_extra():
    from explorer.figures.theme import HEADER_KEEP_PX, split_header

    fig = styled(go.Figure(), "t", Evidence(Kind.SCHEMATIC, "short"))
    fig.update_layout(margin=dict(t=TOP_MARGIN + 40))  # room for a legend above the plot
    assert split_header(fig)[0].layout.margin.t == HEADER_KEEP_PX + 40


def test_a_phone_scrolls_side_by_side_panels_and_marked_figures_and_squeezes_the_rest():
    from explorer.figures.theme import keep_width, needs_width

    assert not needs_width(go.Figure(go.Scatter(x=[1], y=[1])))
    assert needs_width(make_subplots(rows=2, cols=3))
    assert not needs_width(make_subplots(rows=3, cols=1))
    assert needs_width(keep_width(make_subplots(rows=3, cols=1)))


def test_the_dark_copy_lifts_black_and_dark_grey_marks_and_keeps_colours():
    from explorer.figures.theme import CONCEPT_COLORS, DARK, for_dark

    fig = go.Figure(
        go.Scatter(
            x=[1, 2],
            y=[3, 4],
            marker=dict(color=[CONCEPT_COLORS["data"], "#0072B2"]),
            line=dict(color=CONCEPT_COLORS["fit"]),
            error_y=dict(array=[1, 1], color="#000000"),
        )
    )
    fig.add_annotation(x=1, y=3, text="lands", font=dict(color="#222222"))
    fig.add_annotation(x=2, y=4, text="boxed", bgcolor="#FFFFFF")
    dark = for_dark(styled(fig, "t", Evidence(Kind.MEASURED, "seed 0")))
    assert list(dark.data[0].marker.color) == [DARK["text"], "#0072B2"]  # a mean marker reads on the dark panel
    assert dark.data[0].line.color == "#A7A7A7" and dark.data[0].error_y.color == DARK["text"]
    note = next(a for a in dark.layout.annotations if a.text == "lands")
    assert note.font.color == "#D9D9D9" and note.arrowcolor == "#B8B8B8"  # c -> 0xFA - c * 0xFA / 0xFF
    assert next(a for a in dark.layout.annotations if a.text == "boxed").bgcolor == "rgba(14,17,23,0.8)"
    assert fig.data[0].marker.color == (CONCEPT_COLORS["data"], "#0072B2")  # the export keeps black


def test_a_long_y_axis_title_wraps_at_its_middle_and_axes_make_room_for_their_labels():
    from explorer.figures.theme import AXIS_TITLE_CHARS, TEMPLATE_NAME, wrap_axis_title
    import plotly.io as pio

    fig = make_subplots(rows=1, cols=2)
    fig.update_yaxes(title="KL(decoder-only ‖ model), nats/token", row=1, col=2)
    fig.update_yaxes(title="loss (nats)", row=1, col=1)
    styled(fig, "t", Evidence(Kind.MEASURED, "seed 0"))
    assert fig.layout.yaxis2.title.text == "KL(decoder-only ‖<br>model), nats/token"
    assert fig.layout.yaxis.title.text == "loss (nats)" and len("loss (nats)") <= AXIS_TITLE_CHARS
    assert wrap_axis_title("a<br>b c d e f g h i j k l m n o p") == "a<br>b c d e f g h i j k l m n o p"
    axes = pio.templates[TEMPLATE_NAME].layout
    assert axes.xaxis.automargin and axes.yaxis.automargin  # tick labels and titles push the margin, not get cut


def test_the_dark_copy_lightens_label_text_that_would_be_too_dim_on_the_dark_panel():
    from explorer.figures.readability import TEXT_CONTRAST, contrast, rgb_of
    from explorer.figures.theme import CONCEPT_COLORS, DARK, for_dark

    fig = go.Figure()
    for color in (CONCEPT_COLORS["causal"], "#009E73", "#E69F00", "#FAFAFA"):
        fig.add_annotation(x=0, y=0, text=color, font=dict(color=color))
    dark = for_dark(fig)
    for light, shown in zip(fig.layout.annotations, dark.layout.annotations):
        ratio = contrast(rgb_of(shown.font.color), rgb_of(DARK["paper"]))
        assert ratio >= TEXT_CONTRAST, (light.font.color, shown.font.color, ratio)
    assert dark.layout.annotations[0].font.color != CONCEPT_COLORS["causal"]  # the blue label is lightened
    assert [a.font.color for a in dark.layout.annotations[2:]] == ["#E69F00", "#FAFAFA"]  # bright ones are kept
    assert fig.layout.annotations[0].font.color == CONCEPT_COLORS["causal"]  # the export keeps the palette


def test_the_dark_copy_veils_white_label_boxes_given_as_rgba():
    from explorer.figures.theme import for_dark

    fig = go.Figure(
        layout={
            "annotations": [
                {"text": "deploy", "bgcolor": "rgba(255,255,255,0.85)"},
                {"text": "keep", "bgcolor": "rgba(0,114,178,0.3)"},
            ]
        }
    )
    veiled, kept = for_dark(fig).layout.annotations
    assert veiled.bgcolor == "rgba(14,17,23,0.8)" and kept.bgcolor == "rgba(0,114,178,0.3)"


def test_chinese_text_wraps_between_characters_never_inside_a_number_or_before_a_comma():
    from explorer.figures.theme import display_width, wrap_axis_title, wrap_text

    lines = wrap_text("实测 · 3 个随机种子，每个 400 训练步，宽度 d = 16、32、64，学习率 0.003 和 0.01", 24)
    assert len(lines) > 1 and all(display_width(line) <= 26 for line in lines)
    assert "".join(lines).replace(" ", "") == "实测·3个随机种子，每个400训练步，宽度d=16、32、64，学习率0.003和0.01"
    assert not any(line.startswith(("，", "、")) for line in lines) and "0.003" in "".join(lines)
    assert wrap_axis_title("留出集损失（nats/token），越低越好").count("<br>") == 1
    assert wrap_text("loss (nats) per token", 12) == ["loss (nats)", "per token"]  # English as textwrap does


# --- four renderings (explorer.figures.frames) -----------------------------------------------------------------


def _legended() -> go.Figure:
    fig = go.Figure([go.Scatter(x=[1, 2], y=[i, i + 1], name=f"series {i} with a longer name") for i in range(4)])
    fig.update_layout(legend=dict(orientation="h", x=0, y=-0.3, yanchor="top"), margin=dict(b=170))
    return styled(fig, "t", LONG)


def test_a_viewport_is_a_phone_an_embed_a_projector_or_the_page():
    from explorer.figures.frames import EMBED, PAGE, PHONE, PROJECTOR, frame_of, parse_frame

    assert frame_of(390, 844, False, False).kind == PHONE and frame_of(390, 844, True, False).kind == PHONE
    assert frame_of(640, 360, True, False).kind == EMBED and frame_of(1440, 900, False, False).kind == PAGE
    assert frame_of(1280, 720, True, True).kind == PROJECTOR  # a presentation link whatever its size
    assert frame_of(None, None, False, True) == frame_of(1920, 1080, False, True)  # before the browser reports
    assert parse_frame("390x844") == (390, 844)
    for junk in ("", "390", "x", "390x", "3e2x800", "²x800", "99999999x1", "10x10", "390x844x1"):
        assert parse_frame(junk) is None, junk


def test_projector_type_reads_from_the_back_row_at_1080_lines_and_scales_with_the_frame():
    from explorer.figures.frames import PROJECTOR, PROJECTOR_TICK_PX, Frame, for_frame
    from explorer.figures.theme import split_header

    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Heatmap(z=[[1, 2], [3, 4]], texttemplate="%{z}", textfont=dict(size=10)), row=1, col=1)
    fig.update_xaxes(tickfont=dict(size=10), row=1, col=1)  # a dense heatmap's small labels
    chart, _ = split_header(styled(fig, "t", LONG))
    big = for_frame(chart, Frame(PROJECTOR, 1920, 1080), height=900)
    ticks = [axis.tickfont.size for axis in (*big.select_xaxes(), *big.select_yaxes())]
    assert min(ticks) == PROJECTOR_TICK_PX and big.data[0].textfont.size >= PROJECTOR_TICK_PX
    assert big.layout.height == 900 and big.layout.meta["frame"] == PROJECTOR
    small = for_frame(chart, Frame(PROJECTOR, 1280, 720), height=600)
    assert min(a.tickfont.size for a in small.select_xaxes()) == round(PROJECTOR_TICK_PX * 720 / 1080)
    assert fig.layout.xaxis.tickfont.size == 10  # the original (the export) is left as it was


def test_in_an_embed_the_legend_sits_in_rows_at_the_top_and_the_plot_below_it():
    from explorer.figures.frames import EMBED, Frame, _legend_rows, for_frame
    from explorer.figures.theme import split_header

    chart, _ = split_header(_legended())
    frame = Frame(EMBED, 640, 360)
    shown = for_frame(chart, frame, height=300)
    legend = shown.layout.legend
    assert (legend.orientation, legend.yref, legend.y, legend.yanchor) == ("h", "container", 1, "top")
    rows = _legend_rows(shown, frame, 612)["legend"]
    assert shown.layout.margin.t >= rows and shown.layout.margin.b < 20  # no foot margin left for a legend


def test_a_second_legend_goes_under_the_first():
    from explorer.figures.frames import PROJECTOR, Frame, for_frame
    from explorer.figures.theme import split_header

    fig = _legended()
    fig.add_scatter(x=[1], y=[1], name="shape", legend="legend2")
    fig.add_scatter(x=[1], y=[2], name="other shape", legend="legend2")
    shown = for_frame(split_header(fig)[0], Frame(PROJECTOR, 1920, 1080), height=800)
    assert shown.layout.legend.y == 1 and shown.layout.legend2.y < 1
    assert shown.layout.legend2.font.size == shown.layout.legend.font.size == 24


def test_a_phone_stacks_side_by_side_panels_in_reading_order_and_their_titles_move_with_them():
    from explorer.figures.frames import PHONE, Frame, for_frame

    fig = make_subplots(rows=1, cols=3, subplot_titles=("first", "second", "third"))
    for col in (1, 2, 3):
        fig.add_trace(go.Scatter(x=[1, 2], y=[col, col], name=str(col)), row=1, col=col)
    shown = for_frame(styled(fig, "t", LONG), Frame(PHONE, 390, 844))
    assert [tuple(a.domain) for a in shown.select_xaxes()] == [(0, 1)] * 3
    tops = [a.domain[1] for a in shown.select_yaxes()]
    assert tops == sorted(tops, reverse=True) and tops[0] == 1  # the first panel on top
    bottoms = [a.domain[0] for a in shown.select_yaxes()]
    assert all(b > t2 for b, t2 in zip(bottoms, tops[1:]))  # no two panels overlap
    titles = {a.text: a for a in shown.layout.annotations if a.text in ("first", "second", "third")}
    for name, axis in zip(("first", "second", "third"), shown.select_yaxes()):
        assert abs(titles[name].x - 0.5) < 1e-6 and abs(titles[name].y - axis.domain[1]) < 1e-6
    assert shown.layout.height > 3 * 240 and fig.layout.xaxis2.domain[0] > 0.3  # the original keeps its grid


def test_a_phone_wraps_long_category_labels_and_notes_and_gives_numeric_axes_fewer_ticks():
    from explorer.figures.frames import PHONE, Frame, for_frame

    names = ["published: Epoch AI (2022), all GPUs, 2006-2021", "pooled"]
    fig = go.Figure(go.Scatter(x=[3, 4], y=names, mode="markers"))
    fig.add_annotation(text="a note that is far too long for one line of a phone's narrow figure", x=3, y=0)
    shown = for_frame(styled(fig, "t", LONG), Frame(PHONE, 390, 844))
    assert shown.layout.yaxis.ticktext[0].count("<br>") >= 1 and shown.layout.yaxis.ticktext[1] == "pooled"
    assert list(shown.layout.yaxis.tickvals) == names  # the data is untouched, only its labels wrap
    assert "<br>" in shown.layout.annotations[-1].text and shown.layout.xaxis.nticks == 5


def test_the_page_frame_leaves_the_figure_as_drawn():
    from explorer.figures.frames import Frame, for_frame

    fig = _legended()
    assert for_frame(fig, Frame()) is fig and for_frame(fig, Frame(), height=300).layout.height == 300


def test_a_projected_grid_keeps_small_gaps_between_its_rows_and_its_titles_move_with_them():
    from explorer.figures.frames import PROJECTOR, Frame, for_frame

    fig = make_subplots(rows=2, cols=1, subplot_titles=("upper", "lower"), vertical_spacing=0.3)
    fig.add_trace(go.Bar(x=["a", "b"], y=[1, 2]), row=1, col=1)
    fig.add_trace(go.Bar(x=["a", "b"], y=[2, 1]), row=2, col=1)
    from explorer.figures.theme import split_header

    shown = for_frame(split_header(styled(fig, "t", LONG))[0], Frame(PROJECTOR, 1920, 1080), height=900)
    upper, lower = shown.layout.yaxis.domain, shown.layout.yaxis2.domain
    assert (upper[0] - lower[1]) * 900 < 0.3 * 900 * 0.6 and upper[1] == 1.0 and lower[0] == 0.0
    titles = {a.text: a.y for a in shown.layout.annotations}
    assert abs(titles["lower"] - lower[1]) < 1e-6 and abs(titles["upper"] - upper[1]) < 1e-6


def test_projected_square_heatmaps_fill_the_frame_and_reserve_no_room_for_a_legend_plotly_never_draws():
    """Four named heatmaps held square (as the attention pages draw them) leave most of a 16:9 screen blank."""
    from explorer.figures.frames import PROJECTOR, Frame, for_frame
    from explorer.figures.theme import split_header

    fig = make_subplots(rows=2, cols=2, vertical_spacing=0.16)
    for i in range(4):
        fig.add_trace(go.Heatmap(z=[[0, 1], [1, 0]], name=f"panel {i}", showscale=False), row=i // 2 + 1, col=i % 2 + 1)
        fig.update_yaxes(scaleanchor=f"x{'' if i == 0 else i + 1}", row=i // 2 + 1, col=i % 2 + 1)
    shown = for_frame(split_header(styled(fig, "t", LONG))[0], Frame(PROJECTOR, 1920, 1080), height=900)
    assert not any(axis.scaleanchor for axis in shown.select_yaxes())
    assert shown.layout.margin.t < 40  # no rows kept for four legend entries


def test_a_projected_axis_that_names_every_row_keeps_every_kth_name_where_rows_are_shorter_than_the_type():
    from explorer.figures.frames import EMBED, PROJECTOR, Frame, for_frame
    from explorer.figures.theme import split_header

    names = list("春风又绿江南岸，明月何时照我还。")
    fig = make_subplots(rows=2, cols=1)
    for row in (1, 2):
        fig.add_trace(go.Heatmap(z=[[0.5] * 16] * 16, showscale=False), row=row, col=1)
        fig.update_yaxes(tickvals=list(range(16)), ticktext=names, row=row, col=1)
    body = split_header(styled(fig, "t", LONG))[0]
    tall, short = (for_frame(body, Frame(PROJECTOR, 1920, 1080), height=h) for h in (2400, 600))
    assert list(tall.layout.yaxis.ticktext) == names  # rows taller than the type: every name
    kept = list(short.layout.yaxis.ticktext)
    assert 2 <= len(kept) < 16 and kept == names[:: names.index(kept[1])]  # evenly spaced, from the first

    def columns_named(square: bool) -> int:
        grid = go.Figure(go.Heatmap(z=[[0.5] * 54] * 54, showscale=False))
        words = dict(tickvals=list(range(54)), ticktext=[f"w{i}" for i in range(54)])
        grid.update_xaxes(words).update_yaxes(words, scaleanchor="x" if square else None)
        shown = for_frame(split_header(styled(grid, "t", LONG))[0], Frame(EMBED, 960, 600), height=450)
        return len(shown.layout.xaxis.ticktext)

    assert columns_named(square=True) < columns_named(square=False) < 54  # square cells are narrower than wide ones


@pytest.mark.parametrize("kind", ["phone", "embed", "projector"])
def test_a_table_a_heatmap_and_a_bar_chart_restyle_in_every_frame(kind):
    from explorer.figures.frames import Frame, for_frame

    frame = Frame(kind, 390 if kind == "phone" else 1280, 720)
    table = go.Figure(go.Table(header=dict(values=["a", "b"]), cells=dict(values=[[1, 2], [3, 4]])))
    heat = go.Figure(go.Heatmap(z=[[1, 2], [3, 4]], x=["x1", "x2"], y=["y1", "y2"]))
    bars = go.Figure([go.Bar(x=["a"], y=[1], name="one"), go.Bar(x=["a"], y=[2], name="two")])
    for fig in (table, heat, bars):
        shown = for_frame(styled(fig, "t", LONG), frame, height=None if kind == "phone" else 600)
        assert shown.layout.meta["frame"] == kind
    assert table.data[0].cells.font.size is None  # the export's figure is untouched


def test_projected_side_by_side_panels_keep_small_gaps_and_their_titles_stay_centred():
    from explorer.figures.frames import PROJECTOR, Frame, for_frame

    fig = make_subplots(rows=1, cols=3, subplot_titles=("a", "b", "c"), horizontal_spacing=0.15)
    for col in (1, 2, 3):
        fig.add_trace(go.Heatmap(z=[[1, 2], [3, 4]], showscale=False), row=1, col=col)
    shown = for_frame(styled(fig, "t", LONG), Frame(PROJECTOR, 1920, 1080), height=900)
    domains = [axis.domain for axis in shown.select_xaxes()]
    assert all(b[0] - a[1] < 0.15 for a, b in zip(domains, domains[1:])) and domains[0][0] == 0
    assert domains[-1][1] <= 1.0 and domains[0][1] - domains[0][0] > 0.9 / 3 * (1 - 0.3) / 0.9
    titles = sorted((a for a in shown.layout.annotations if a.text in "abc"), key=lambda a: a.text)
    for note, domain in zip(titles, domains):
        assert abs(note.x - (domain[0] + domain[1]) / 2) < 1e-4


def test_a_phone_table_gives_each_column_room_for_its_longest_word():
    from explorer.figures.frames import CHAR_EM, PHONE, Frame, for_frame

    fig = go.Figure(
        go.Table(
            columnwidth=[2.2, 2.9, 2.6, 1.0],
            header=dict(values=["", "step 0", "decoder-only", "matches decoder-only"], font=dict(size=15)),
            cells=dict(values=[["Parameters"], ["237,074 (+133,632)"], ["103,442"], ["✓"]], font=dict(size=14)),
        )
    )
    shown = for_frame(styled(fig, "t", LONG), Frame(PHONE, 390, 844))
    table = shown.data[0]
    widths = list(table.columnwidth)
    last = widths[-1] / sum(widths) * (390 - 24 - 8)
    assert last >= len("matches") * table.header.font.size * CHAR_EM  # "matches" fits its column
    assert fig.data[0].columnwidth == (2.2, 2.9, 2.6, 1.0)  # the export's table is untouched


def test_a_phone_drops_in_cell_numbers_that_are_wider_than_their_cells():
    from explorer.figures.frames import PHONE, Frame, for_frame

    wide = go.Figure(go.Heatmap(z=[list(range(16))], text=[[f"{v}51%" for v in range(16)]], texttemplate="%{text}"))
    narrow = go.Figure(go.Heatmap(z=[[1, 2]], text=[["1", "2"]], texttemplate="%{text}"))
    assert for_frame(styled(wide, "t", LONG), Frame(PHONE, 390, 844)).data[0].texttemplate == ""
    assert for_frame(styled(narrow, "t", LONG), Frame(PHONE, 390, 844)).data[0].texttemplate == "%{text}"


def test_a_heatmap_whose_values_plotly_packed_restyles_too():
    """A figure that came back from JSON carries numpy arrays packed ({"bdata", "shape"}); the phone's restyling
    reads the number of columns from the shape."""
    import numpy as np

    from explorer.figures.frames import PHONE, Frame, _columns_of, for_frame

    fig = go.Figure(go.Heatmap(z=np.arange(24.0).reshape(2, 12), texttemplate="%{z}"))
    packed = go.Figure(fig.to_dict())
    assert _columns_of(packed.data[0].z) == 12 and _columns_of([[1, 2, 3]]) == 3 and _columns_of(None) == 0
    assert for_frame(styled(packed, "t", LONG), Frame(PHONE, 390, 844)).layout.meta["frame"] == PHONE


def test_chinese_table_cells_break_into_lines_that_fit_their_column():
    from explorer.figures.frames import PHONE, Frame, for_frame
    from explorer.figures.theme import display_width

    fig = go.Figure(
        go.Table(
            columnwidth=[2, 3],
            header=dict(values=["", "<b>第 0 步</b>"]),
            cells=dict(values=[["<b>角色之间共享投影</b>"], ["否：交叉注意力有自己的 Q、K、V、O"]]),
        )
    )
    table = for_frame(styled(fig, "t", LONG), Frame(PHONE, 390, 844)).data[0]
    first = table.cells.values[0][0]
    assert all(line.startswith("<b>") and line.endswith("</b>") for line in first.split("<br>"))
    assert "".join(first.replace("<b>", "").replace("</b>", "").split("<br>")) == "角色之间共享投影"
    assert all(display_width(line) <= 40 for line in table.cells.values[1][0].split("<br>"))


def test_a_chinese_badge_shown_as_text_above_the_chart_keeps_its_words_whole():
    from explorer.figures.theme import split_header

    detail = "拟合：1950–2025 年窗口内的数据行 · 空心菱形：已发表的结果，按原作者的表述（悬停查看来源）" * 2
    fig = styled(go.Figure(go.Scatter(x=[1, 2], y=[1, 2])), "t", Evidence(Kind.FIT, detail))
    assert len(badge_lines(Evidence(Kind.FIT, detail))) > 1  # the export wraps it
    assert detail in split_header(fig)[1].badge  # the page shows it whole, with no space inside a word
