"""Lecture mode on every page: one figure alone, hidden controls, projector sizes, share links, exports."""

from urllib.parse import parse_qs, urlsplit

import plotly.graph_objects as go
import pytest

from explorer.figures.readability import colour_only, low_contrast
from explorer.figures.theme import for_dark
from explorer.lecture_map import PAGES
from tests.pages.conftest import assert_clean, figure_downloads, figures, open_shares, run_page

# One figure per page that a lecturer would embed; the browser test opens each of these alone.
EMBED_FIGURES = {
    "home": "chain",
    "method": "method-fall",
    "compute": "compute-trend",
    "bitter-lesson": "bitter-curves",
    "inductive-bias": "crossover-curves",
    "attention": "attention-weights",
    "four-steps": "four-steps-mask",
    "lengths": "lengths-allocation",
    "depth": "depth-outcome",
    "cache": "cache-chat",
    "audit": "audit-decision",
    "path": "path-progress",
    "glossary": "glossary-map",
}
FILES = {p.slug: p.file.removeprefix("pages/") for p in PAGES if p.exists and p.slide_figure}


def _ids(at) -> list[str]:
    return [f["layout"]["meta"]["figure_id"] for f in figures(at)]


def test_every_existing_page_has_an_embed_figure():
    assert set(FILES) == set(EMBED_FIGURES)


# The attention page's first section is the trained model's weights: its layer and head sliders rerun that
# section alone (a fragment), so they redraw its two figures, not the masks.
FIRST_VIEW_FIGURES = {"attention": 3}
FIRST_VIEW_FIGURES["depth"] = 2  # the wiring, and beside it the measured answer at that depth
FIRST_VIEW_FIGURES["four-steps"] = 2  # the weights (what steps 1-3 change) beside the mask (steps 4 and 5)


@pytest.mark.parametrize("slug", sorted(FILES))
def test_the_default_view_draws_the_first_screen_figure_and_words_below_it(slug):
    """What a control's rerun redraws: the slide's figure; the open first section is words and tiles."""
    at = run_page(FILES[slug])
    assert_clean(at)
    assert len(figures(at)) == FIRST_VIEW_FIGURES.get(slug, 1)


@pytest.mark.parametrize("slug", sorted(FILES))
def test_every_figure_with_every_section_open_has_an_id_its_exports_and_reads_for_everyone(slug):
    at = open_shares(run_page(FILES[slug], sections="all"))
    assert_clean(at)
    ids = _ids(at)
    assert EMBED_FIGURES[slug] in ids and len(ids) == len(set(ids))
    assert all(f["layout"]["meta"]["page"] == slug for f in figures(at))
    assert sorted(figure_downloads(at)) == sorted(f"{fmt}-{i}" for i in ids for fmt in ("svg", "png", "csv"))
    for spec in figures(at):  # and everyone can read it, in the light and the dark theme
        fig, name = go.Figure(spec), spec["layout"]["meta"]["figure_id"]
        assert colour_only(fig) == [], name
        assert low_contrast(fig) == [] and low_contrast(for_dark(fig)) == [], name


@pytest.mark.parametrize("slug", sorted(FILES))
def test_figure_mode_shows_that_figure_alone_without_controls(slug):
    figure_id = EMBED_FIGURES[slug]
    at = run_page(FILES[slug], figure=figure_id, controls="hidden", embed="true")
    assert_clean(at)
    assert _ids(at) == [figure_id]
    assert not at.slider and not at.toggle and not figure_downloads(at)


def test_share_links_carry_the_current_state_and_the_figure():
    at = open_shares(run_page(FILES["compute"], start="1960", series=["Epoch AI", "Nordhaus 2001"]))
    links = [c.value for c in at.code if "figure=compute-trend" in c.value and "<iframe" not in c.value]
    query = parse_qs(urlsplit(links[0]).query)
    assert urlsplit(links[0]).path == "/compute"
    assert query["start"] == ["1960"] and query["series"] == ["Epoch AI", "Nordhaus 2001"]
    assert query["embed"] == ["true"] and query["controls"] == ["hidden"]
    assert any("presentation=true" in link for link in links)
    assert any(c.value.startswith("<iframe src=") for c in at.code)


def test_presentation_mode_enlarges_the_type():
    plain = figures(run_page(FILES["compute"]))[0]["layout"]
    big = figures(run_page(FILES["compute"], presentation="true"))[0]["layout"]
    assert big["font"]["size"] > 16 and big["height"] > plain["height"]


@pytest.mark.parametrize("bad", ["no-such-figure", "<script>", "x" * 500])
def test_an_unknown_figure_id_shows_no_figure_and_no_traceback(bad):
    at = run_page(FILES["compute"], figure=bad)
    assert not at.exception and not figures(at)


def test_figure_height_from_the_url_is_clamped():
    """`height` is the iframe's: the title and badge written above the chart take their rows of it."""
    at = run_page(FILES["compute"], figure="compute-trend", height="99999")
    assert 2000 - 200 < figures(at)[0]["layout"]["height"] < 2000


def test_an_unknown_figure_id_says_which_figures_the_page_has():
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["figure"] = "no-such-figure"
    at.run()
    assert not at.exception and not figures(at)
    assert any("no figure `no-such-figure`" in i.value and "`chain`" in i.value for i in at.info)


def test_share_links_carry_only_the_pages_own_controls():
    at = open_shares(run_page(FILES["compute"], start="1960", zzz="junk" * 100))
    links = [c.value for c in at.code if "figure=compute-trend" in c.value]
    assert links and all("zzz" not in link for link in links) and all("start=1960" in link for link in links)
