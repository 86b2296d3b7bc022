"""The method page's numbers, checked without the page: the slider ranges, the takeaway's three cases, the
tiles, and the horizons of the force system."""

import math

import pytest

from explorer import physics, physics_view as view
from explorer.figures.method import force_label


def _pen() -> physics.FallingObject:
    return view.custom_object(*view.textbook_units("pen"))


@pytest.mark.parametrize("name", list(physics.OBJECTS))
def test_each_object_slider_spans_a_tenth_to_ten_times_its_value_on_a_grid_that_holds_it(name):
    for default in view.textbook_units(name)[:2]:
        lo, hi, step, fmt = view.edit_range(default)
        assert lo <= default <= hi and hi == pytest.approx(10 * default) and lo >= default / 10 - 1e-12
        assert round(default / step) * step == pytest.approx(default)  # the default sits on the step grid
        assert fmt == f"%.{max(0, -round(math.log10(step)))}f"


def test_the_edited_object_in_page_units_is_the_listed_one_in_si():
    pen = physics.OBJECTS["pen"]
    assert (_pen().mass, _pen().area, _pen().cd) == pytest.approx((pen.mass, pen.area, pen.cd))


def test_the_takeaway_says_within_beyond_or_never_as_the_formula_leaves_the_tolerance():
    pen = _pen()
    fall = physics.simulate_fall(pen, 2.0)
    cross, _ = view.crossings(pen, physics.AIR_DENSITY, 0.0, 0.01, 0.01)
    kind, values = view.takeaway("pen", 2.0, fall, 0.01, cross)
    assert cross.height < 2.0 and kind == "beyond" and values["off"] == "59.6 cm"  # a 2 m drop: drag counts
    assert values["delay"] == view.delay_text(fall.t_land - fall.t_land_formula) == "18.0 ms"
    short = physics.simulate_fall(pen, 0.5)
    assert view.takeaway("pen", 0.5, short, 0.01, cross)[0] == "within"
    still = view.crossings(pen, 0.0, 0.0, 0.01, 0.01)  # no air: the formula is exact
    assert still == (None, None)
    kind, values = view.takeaway("pen", 2.0, physics.simulate_fall(pen, 2.0, rho=0.0), 0.01, None)
    assert kind == "never" and values["max"] == "10 km"


def test_the_default_view_is_the_lectures_case_where_drag_may_be_ignored():
    """The page opens where the lecture and the note above the figure stand: a short drop, drag ignorable."""
    obj = view.custom_object(*view.textbook_units(view.DEFAULT_OBJECT))
    tol = view.DEFAULT_TOL_CM / 100
    fall = physics.simulate_fall(obj, view.DEFAULT_HEIGHT_M)
    cross, _ = view.crossings(obj, physics.AIR_DENSITY, 0.0, tol, tol)
    kind, values = view.takeaway(view.DEFAULT_OBJECT, view.DEFAULT_HEIGHT_M, fall, tol, cross)
    assert kind == "within" and values["drop"] == "50 cm"
    assert fall.t_land - fall.t_land_formula < 0.005  # lands a few ms after the formula: hard to tell apart


def test_the_fall_tiles_name_no_terminal_speed_without_air_and_the_formula_tolerances():
    pen = _pen()
    fall = physics.simulate_fall(pen, 2.0, rho=0.0)
    tiles = view.fall_tiles(pen, 0.0, 2.0, fall, 0.01, 1, None, None)
    assert [t.value for t in tiles] == [
        "none (no drag)",
        f"{fall.t_land:.3f} s",
        "never within 10 km",
        "never within 10 km",
    ]
    assert tiles[1].delta == "+0.0 ms vs formula"
    assert [t.help for t in tiles] == ["terminal", None, "off-abs", "off-rel"]


def test_every_object_gets_its_heights_and_the_picked_one_is_the_edited_object():
    heavy = view.custom_object(5000, 1.0, 0.5)  # a 5 kg "pen": drag matters much later
    rows = view.object_heights("pen", heavy, physics.AIR_DENSITY, 0.0, 0.01, 0.01)
    assert [r.name for r in rows] == list(physics.OBJECTS)
    assert rows[0].absolute.height > view.crossings(_pen(), physics.AIR_DENSITY, 0.0, 0.01, 0.01)[0].height


def test_the_horizons_of_the_force_system_and_their_tiles():
    trajectories, horizons = view.horizons(_pen(), physics.AIR_DENSITY, 3.0, 0.5, 0.1)
    assert (
        [h.n_forces for h in horizons]
        == list(range(1, len(physics.FORCES) + 1))
        == [1 + i for i, _ in enumerate(trajectories)]
    )
    assert horizons[0].censored and horizons[0].acceleration[1] == pytest.approx(physics.G, abs=1e-6)  # gravity only
    tiles = view.horizon_tiles(horizons[-1])
    assert tiles[0].label == f"Horizon with {len(physics.FORCES)} forces" and tiles[0].values == {"duration": 5.0}
    gains = view.gains(horizons)
    assert all(
        part in [force_label(n) for n in range(2, len(physics.FORCES) + 1)] for part in gains.split(" and ") if part
    )


def test_forces_and_objects_are_named_in_the_run_language_and_the_english_names_are_the_modules():
    from explorer import i18n
    from explorer.figures.method import force_name, object_name

    assert view.forces_text(len(physics.FORCES)) == " + ".join(physics.FORCES)
    assert [object_name(name) for name in physics.OBJECTS] == list(physics.OBJECTS)
    with i18n.using("zh"):
        assert view.forces_text(2) == "重力 + 空气阻力" and object_name("pen") == "钢笔"
        assert force_label(3) == "+ 阵发性侧风"
        said = view.takeaway(
            "pen", 2.0, physics.simulate_fall(_pen(), 2.0), 0.01, physics.tolerance_height(_pen(), 0.01)
        )
        assert said[1]["name"] == "钢笔"
        tiles = view.fall_tiles(_pen(), 1.2, 2.0, physics.simulate_fall(_pen(), 2.0), 0.01, 1, None, None)
        assert tiles[0].label == "终端速度" and tiles[2].value.startswith("在 ")
    with pytest.raises(ValueError):
        force_name(len(physics.FORCES) + 1)
