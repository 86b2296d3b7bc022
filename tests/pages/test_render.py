"""ui.render's shortcuts give back exactly what they stand for: a figure out of `built_once` is the figure that
was built (subplot grid included), and a figure themed through the per-server memo is the one `for_dark` and
`split_header` and `for_frame` make directly, light or dark, in each of the four frames, small or past the memo's
size limit; an embed's or a projector's chart takes the height its header leaves."""

import json
import pickle
from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from plotly.subplots import make_subplots

from explorer.figures import attention as figs
from explorer.figures.frames import EMBED, PHONE, PROJECTOR, Frame, header_px
from explorer.figures.theme import Evidence, Kind, styled
from ui import render


def _grid() -> go.Figure:
    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Heatmap(z=np.arange(6.0).reshape(2, 3)), row=1, col=1)
    fig.add_trace(go.Scatter(x=[1, 2], y=[3, 4], marker=dict(color="#222222")), row=1, col=2)
    fig.add_annotation(text="a note", x=1, y=3, showarrow=True, font=dict(color="#0072B2"))
    return styled(fig, "A grid", Evidence(Kind.MEASURED, "seed 0"))


def _spec(fig: go.Figure) -> dict:
    """What st.plotly_chart sends the browser."""
    return json.loads(pio.to_json(fig, validate=False))


def test_a_cached_figure_comes_back_whole_and_keeps_its_subplot_grid():
    built = (_grid(), {"figure": _grid(), "n": 3}, [_grid()])
    back = render._unpacked(pickle.loads(pickle.dumps(render._packed(built))))  # what the cache does to it
    figure, inner, listed = back
    assert isinstance(inner["figure"], go.Figure) and isinstance(listed[0], go.Figure) and inner["n"] == 3
    assert figure.to_dict() == built[0].to_dict()
    figure.add_trace(go.Bar(x=[1], y=[2]), row=1, col=2)  # row and col still find their panel
    assert figure.data[-1].xaxis == "x2"


FRAMES = [Frame(), Frame(PHONE, 390, 844), Frame(EMBED, 960, 600), Frame(PROJECTOR, 1920, 1080)]


@pytest.mark.parametrize("dark", [False, True])
@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: f.kind)
def test_the_memo_themes_a_figure_as_the_theme_functions_do(dark, frame):
    fig = _grid()
    direct, direct_header = render._themed(fig, dark, frame)
    for _ in range(2):  # the first call fills the memo, the second reads it
        shown, header = render._as_shown(fig, dark, frame)
        assert _spec(shown) == _spec(direct) and header == direct_header
    assert fig.to_dict() == _grid().to_dict()  # the page's figure (the export's) is left as it was


def test_a_figure_past_the_memo_limit_is_themed_directly(monkeypatch):
    monkeypatch.setattr(render, "MEMO_MAX_CHARS", 100)
    fig = _grid()
    shown, header = render._as_shown(fig, True, FRAMES[3])
    direct, direct_header = render._themed(fig, True, FRAMES[3])
    assert _spec(shown) == _spec(direct) and header == direct_header


def test_an_embed_or_projector_chart_fills_what_its_header_leaves_of_the_frame():
    for frame in FRAMES[2:]:
        chart, header = render._themed(_grid(), False, frame)
        head = header_px(header.title, header.badge, frame, frame.width - 24)
        assert chart.layout.height == frame.height - head - render.FILL_CHROME_PX
        assert 0 < head < frame.height * 0.2
    chart, header = render._themed(_grid(), False, FRAMES[2], fill=333)  # an iframe's `height=` from the URL wins
    head = header_px(header.title, header.badge, FRAMES[2], FRAMES[2].width - 24)
    assert chart.layout.height == 333 - head - render.FILL_CHROME_PX


def test_matrix_panels_leave_room_for_every_line_of_their_key_title():
    fig = figs._matrix_grid(
        [
            ("encoder self-attention", list("abc"), list("abc")),
            ("cross-attention (target reads input)", list("ab"), list("abc")),
        ]
    )
    lines = max(axis.title.text.count("<br>") + 1 for axis in fig.select_xaxes())
    assert lines == 3 and not any(axis.automargin for axis in fig.select_xaxes())
    assert fig.layout.margin.b == figs.KEY_TITLE_PX + figs.TITLE_LINE_PX * lines


class Pair(NamedTuple):
    figure: go.Figure
    n: int


def test_a_named_tuple_built_once_comes_back_as_it_was():
    built = Pair(_grid(), 2)
    back = render._unpacked(pickle.loads(pickle.dumps(render._packed(built))))
    assert isinstance(back, Pair) and back.n == 2 and back.figure.to_dict() == built.figure.to_dict()


def test_a_page_draws_for_the_frame_its_url_names():
    """`frame=WxH` (what the browser's report stands for in AppTest): a phone's charts scroll no frame sideways, an
    embed's chart and its header fit the frame's height, a projector's ticks are 24 px."""
    from tests.pages.conftest import assert_clean, figures, run_page

    phone = run_page("compute_per_dollar.py", frame="390x844")
    assert_clean(phone)
    assert {f["layout"]["meta"]["frame"] for f in figures(phone)} == {"phone"}
    assert not [c for c in phone.get("flex_container") if "scroll-" in str(getattr(c.proto, "key", ""))]
    embed = figures(run_page("compute_per_dollar.py", figure="compute-trend", embed="true", frame="960x600"))
    assert embed[0]["layout"]["meta"]["frame"] == "embed" and 400 < embed[0]["layout"]["height"] < 600
    projector = figures(run_page("compute_per_dollar.py", figure="compute-trend", presentation="true"))[0]
    assert (
        projector["layout"]["meta"]["frame"] == "projector" and projector["layout"]["xaxis"]["tickfont"]["size"] == 24
    )
