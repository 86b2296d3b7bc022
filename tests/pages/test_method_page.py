"""AppTest of the method page: the first screen, each section from the URL, each object, every control at its
extremes, URL state, bad URLs."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer import physics
from explorer.lecture_map import page
from tests.conftest import ROOT
from tests.pages.conftest import TIMEOUT, assert_clean, evidence_kinds, figures, run_page, untranslated

PAGE = "method.py"
GRAVITY = "When gravity alone is enough"  # the first section is words; this one holds the figures
KINDS = ["simulation"] * 4 + ["fit"] * 2  # fall, error, heights, horizons; prediction, errors (every section)
FIRST = ["simulation"] * 3  # the fall on the first screen, the error and the heights in the open section
FORCES = "More forces, less predictability"
ARGUMENT = "The method in the lecture"
SLIDERS = ["v0", "rho", "mass_pen", "area_pen", "cd_pen", "forces", "fit_s", "wind"]
SELECT_SLIDERS = ["height", "tol_cm", "tol_pct", "tol_m"]


def _option(text: str) -> int | float:
    """A select-slider option back from its label (the page's options are ints where whole)."""
    x = float(text)
    return int(x) if x.is_integer() else x


def _markdown(at: AppTest) -> str:
    """The page's Markdown as one line: content files wrap their text."""
    return " ".join(" ".join(m.value for m in at.markdown).split())


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_default_view_opens_on_the_pen_with_the_fall_in_numbers_below():
    at = run_page(PAGE, section=GRAVITY)
    assert_clean(at)
    assert evidence_kinds(at) == FIRST  # closed sections draw nothing
    assert figures(at)[0]["layout"]["meta"]["figure_id"] == "method-fall"  # the slide-4 figure comes first
    metrics = _metrics(at)
    assert metrics["Formula off by 1 cm after"] == "59.6 cm"
    assert metrics["Formula off by 1% after"] == "35.6 cm"
    assert metrics["Terminal speed"] == "10.8 m/s"
    assert "White, Fluid Mechanics" in " ".join(c.value for c in at.caption)
    takeaway = _markdown(at)  # the lecture's case: a half-metre drop, where the note and slide 4 ignore drag
    assert "Dropped from 50 cm" in takeaway and "1 cm off only after 59.6 cm of fall" in takeaway
    assert "drag may be ignored, as the lecture does" in takeaway and "cannot" not in takeaway
    assert "hard to tell apart" in " ".join(c.value for c in at.caption) + takeaway  # the note above agrees


def test_the_takeaway_follows_the_drop_and_the_air():
    at = run_page(PAGE, section=GRAVITY, height="2")  # the pen is 1 cm off after 59.6 cm: a 2 m drop is beyond
    assert_clean(at)
    assert "1 cm off after 59.6 cm of fall" in _markdown(at) and "cannot be ignored" in _markdown(at)
    at = run_page(PAGE, section=GRAVITY, rho="0")
    assert_clean(at)
    assert "for any drop up to" in _markdown(at)


@pytest.mark.parametrize("section, kinds", [(FORCES, ["simulation"] * 2 + ["fit"] * 2), (ARGUMENT, ["simulation"])])
def test_each_section_opens_from_the_url_and_draws_only_its_own_figures(section, kinds):
    at = run_page(PAGE, section=section)
    assert_clean(at)
    assert evidence_kinds(at) == kinds
    if section == FORCES:
        assert _metrics(at)["Horizon with 4 forces"] == "0.13 s"
        bars = figures(at)[1]["data"][0]
        assert bars["orientation"] == "h"  # one bar per row, its horizon along x
        assert bars["text"][0].startswith("≥") and bars["x"][1] > bars["x"][2] > bars["x"][3]
    if section == ARGUMENT:
        assert "energy" in _markdown(at) and not at.metric


@pytest.mark.parametrize("name", list(physics.OBJECTS))
def test_each_object_renders_with_its_own_textbook_values(name):
    at = run_page(PAGE, section=GRAVITY, object=name)
    assert_clean(at)
    assert len(figures(at)) == 3
    obj = physics.OBJECTS[name]
    assert at.slider(key=f"mass_{name}").value == pytest.approx(obj.mass * 1000)
    assert at.slider(key=f"cd_{name}").value == pytest.approx(obj.cd)
    assert obj.source[:40] in " ".join(c.value for c in at.caption)
    expected = physics.tolerance_height(obj, 0.01)
    assert figures(at)[2]["data"][0]["y"][list(physics.OBJECTS).index(name)] == pytest.approx(expected.height)


def test_every_control_at_its_extremes_renders_cleanly():
    at = run_page(PAGE, section=GRAVITY, sections="all")
    for key in SLIDERS:
        widget = at.slider(key=key)
        default = widget.value
        for value in (widget.min, widget.max):
            at.slider(key=key).set_value(value).run()
            assert_clean(at)
            assert len(figures(at)) == 6, (key, value)
        at.slider(key=key).set_value(default).run()
    for key in SELECT_SLIDERS:
        widget = at.select_slider(key=key)
        default = widget.value
        for value in (widget.options[0], widget.options[-1]):
            at.select_slider(key=key).set_value(_option(value)).run()
            assert_clean(at)
            assert len(figures(at)) == 6, (key, value)
        at.select_slider(key=key).set_value(default).run()


def test_the_stiffest_corner_renders_cleanly():
    """Lightest, largest, draggiest feather in dense air, thrown down fast from the top, in the strongest wind."""
    at = run_page(
        PAGE,
        section=GRAVITY,
        object="feather",
        mass_feather="0.003",
        area_feather="200",
        cd_feather="2.5",
        rho="1.5",
        v0="20",
        height="1000",
        wind="10",
        fit_s="0.1",
        tol_m="0.01",
        sections="all",
    )
    assert_clean(at)
    assert evidence_kinds(at) == KINDS
    assert _metrics(at)["Terminal speed"] == "0.028 m/s"


@pytest.mark.parametrize("key", ["cd_pen", "rho"])
def test_without_drag_the_formula_is_never_off(key):
    at = run_page(PAGE, section=GRAVITY, sections="all", **{key: "0"})
    assert_clean(at)
    metrics = _metrics(at)
    assert metrics["Terminal speed"] == "none (no drag)"
    assert metrics["Formula off by 1 cm after"].startswith("never")
    assert metrics["Horizon with 4 forces"].startswith("≥")  # nothing but gravity acts


def test_object_choice_switches_the_edited_values():
    at = run_page(PAGE, section=GRAVITY)
    at.segmented_control(key="object").set_value("feather").run()
    assert_clean(at)
    assert at.slider(key="mass_feather").value == pytest.approx(0.03)
    assert _metrics(at)["Terminal speed"] == "0.434 m/s"


def test_url_restores_a_view():
    at = run_page(
        PAGE,
        object="ball",
        height="100",
        v0="5",
        rho="0.6",
        mass_ball="100",
        cd_ball="0.3",
        tol_cm="5",
        tol_pct="2",
        forces="2",
        fit_s="1",
        tol_m="0.5",
        wind="8",
        section=FORCES,
    )
    assert_clean(at)
    assert not at.caption[0].value.startswith(":orange")  # no URL notice: every value was usable
    assert at.segmented_control(key="object").value == "ball"
    assert at.select_slider(key="height").value == 100
    assert at.slider(key="mass_ball").value == pytest.approx(100.0)
    assert at.slider(key="forces").value == 2 and at.slider(key="fit_s").value == pytest.approx(1.0)
    metrics = _metrics(at)
    assert "Horizon with 2 forces" in metrics
    assert "dropped from 100 m, the ball" in _markdown(at).lower()  # the takeaway
    at = run_page(PAGE, section=GRAVITY, object="ball", height="100", tol_cm="5", tol_pct="2")
    assert "Time to fall 100 m" in _metrics(at)
    assert "Formula off by 5 cm after" in _metrics(at) and "Formula off by 2% after" in _metrics(at)


def test_bad_url_values_are_refused_or_clamped_with_a_notice():
    at = run_page(
        PAGE,
        section=GRAVITY,
        mass_pen="-5",
        area_pen="0",
        cd_pen="abc",
        height="1e9",
        object="rocket",
        forces="99",
        fit_s="nan",
        rho="-1",
        wind="1e6",
        tol_cm="0",
        v0="fast",
        sections="all",
    )
    assert_clean(at)
    assert len(figures(at)) == 6
    notices = " ".join(c.value for c in at.caption)
    for key in ("mass_pen", "area_pen", "cd_pen", "height", "object", "forces", "fit_s", "rho", "wind", "tol_cm", "v0"):
        assert f"`{key}`" in notices, key
    assert at.slider(key="mass_pen").value == pytest.approx(at.slider(key="mass_pen").min)  # clamped, > 0
    assert at.slider(key="mass_pen").min > 0 and at.slider(key="area_pen").min > 0
    assert at.slider(key="forces").value == len(physics.FORCES)
    assert (
        at.select_slider(key="height").value == 0.5
    )  # not an offered height: the default (the lecture's half-metre drop)


def test_hidden_controls_keep_the_url_state():
    at = run_page(PAGE, section=GRAVITY, controls="hidden", object="paper", forces="3", sections="all")
    assert_clean(at)
    assert not at.slider and len(figures(at)) == 6
    assert "Horizon with 3 forces" in _metrics(at)


def test_the_argument_section_quotes_the_compute_rate_and_links_through_the_router():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.query_params["sections"] = "all"  # not section=...: the home page's open tab, same key, would win (AppTest)
    at.switch_page("pages/method.py").run()
    assert_clean(at)
    text = _markdown(at)
    links = {link.proto.page for link in at.get("page_link")}

    def linked(slug: str) -> bool:  # AppTest names a page by its file, the browser by its url_path
        info = page(slug)
        return bool(links & {info.slug, Path(info.file).stem})

    if page("compute").exists:
        assert "10× every" in text and "depends on the window" in text
        assert linked("compute")
    if page("inductive-bias").exists:
        assert linked("inductive-bias")
    assert "energy" in text and "re-model" in text


def test_the_chinese_page_speaks_chinese_everywhere():
    """?lang=zh with every section open: labels, options, tiles, notices and the six figures in Chinese."""
    at = run_page(PAGE, lang="zh", sections="all")
    assert_clean(at)
    assert untranslated(at) == []
    assert at.title[0].value == "方法：笔的下落"  # a falling pen; "落笔" would be "putting pen to paper"
    assert len(figures(at)) == 6 and "终端速度" in _metrics(at)
    assert at.segmented_control(key="object").value == "pen"  # the option stays the URL's word; shown translated
    assert "钢笔" in _markdown(at)
    at.segmented_control(key="object").set_value("feather").run()
    assert_clean(at)
    assert untranslated(at) == [] and "羽毛" in " ".join(c.value for c in at.caption)
    at = run_page(PAGE, lang="zh", sections="all", object="羽毛")  # a link made on the Chinese page
    assert_clean(at)
    assert at.segmented_control(key="object").value == "feather"


def test_the_english_and_chinese_object_sources_match_the_physics_module():
    from explorer import content

    for name, obj in physics.OBJECTS.items():
        assert content.text("method", f"object-source-{name}", lang="en") == obj.source
