"""The length-asymmetry page's numbers (explorer.experiments.lengths.view): the first screen's takeaway quotes
what its figure draws, the verdict's decisions follow the tests, and an on-demand plan knows what is shipped."""

import pytest

from explorer.experiments import lengths as ln
from explorer.experiments.lengths import view
from explorer.figures import lengths as figs
from explorer.formatting import plural

SHAPE = ln.Shape(d_model=768, n_layers=12, vocab_size=32_000)


def test_the_takeaway_quotes_the_parameters_its_figure_shows():
    numbers = view.first_screen(SHAPE, 256, 16)
    alloc = ln.allocation(SHAPE, 256, 16)
    dec, ed = (alloc["families"][f]["parameters"] for f in (ln.DECODER, ln.ENCDEC))
    assert numbers["ratio"] == pytest.approx(ed / dec) and numbers["layers"] == 12
    titles = [a.text for a in figs.allocation_chart(alloc).layout.annotations]
    assert any(numbers["decoder"] in t for t in titles) and any(numbers["encdec"] in t for t in titles)
    equal = ln.cost_parity(SHAPE, 256, 16)["equal_cost"]
    assert numbers["equal_ratio"] == equal["parameter_ratio"] and numbers["equal_ratio"] > numbers["ratio"]


def test_the_slope_reading_needs_every_holding_slope_to_agree():
    def trend(slope: float, p: float) -> dict:
        return {"slope_mean": slope, "seed_holm_p": p}
    assert view.slope_reading([trend(0.1, 0.01), trend(0.2, 0.02), trend(-0.3, 0.9)], 0.05) == "reverse"
    assert view.slope_reading([trend(-0.1, 0.01)], 0.05) == "predicted"
    assert view.slope_reading([trend(-0.1, 0.01), trend(0.1, 0.01)], 0.05) == "mixed"
    assert view.slope_reading([trend(-0.1, 0.5)], 0.05) == "mixed"  # nothing holds


def test_named_rows_say_what_was_matched():
    rows = [{"lx": 12, "ly": 12, "matching": "parameters"}, {"lx": 4, "ly": 20, "matching": "flops"}]
    assert view.named(rows) == [{"ratio": "12→12", "matching": "parameters"},
                                {"ratio": "4→20", "matching": "FLOPs"}]


def test_pairs_come_from_a_profile_typed_text_or_an_upload_and_bad_text_gets_a_message():
    pairs, problem = view.pairs_from(next(iter(ln.PROFILES)), "", None)
    assert problem is None and len(pairs) > 0
    typed, problem = view.pairs_from(view.TYPED, "300:4, 60:400", None)
    assert problem is None and list(typed.iloc[0]) == [300, 4]
    assert view.pairs_from(view.UPLOADED, "", None) == (None, None)  # nothing uploaded yet
    none, problem = view.pairs_from(view.TYPED, "300:x", None)
    assert none is None and problem


@pytest.mark.skipif(ln.load_shipped("main") is None, reason="no shipped toy run")
def test_a_shipped_ratio_needs_no_training_and_a_long_run_is_refused():
    shipped = ln.load_shipped("main")
    ready = view.run_plan(view.run_settings(20, 4, 2, view.MAIN.steps), shipped, 90)
    assert ready["models"] == 0 and not ready["too_slow"] and len(ready["ready"]) == 2 * 3  # 2 seeds, 3 arms
    slow = view.run_plan(view.run_settings(24, 24, len(view.MAIN.seeds), 1200), shipped, 1)
    assert slow["too_slow"] and slow["models"] == 3 * len(view.MAIN.seeds) and slow["fits"] is None


@pytest.mark.skipif(ln.load_shipped("main") is None, reason="no shipped toy run")
def test_the_verdict_counts_the_tests_of_the_shipped_design():
    claims = ln.claims(ln.load_shipped("main"))
    verdict = view.verdict(claims)
    assert verdict["tests"] == claims["design"]["ratio_tests"] and len(verdict["agree"]) == len(claims["by_metric"])
    assert len(view.rows_table(claims["by_metric"]["curve"])) == len(claims["by_metric"]["curve"]["rows"])


def test_the_chinese_edition_names_tiles_tables_and_errors_in_chinese():
    from explorer import i18n
    numbers = view.first_screen(ln.Shape(), 256, 16)
    with i18n.using("zh"):
        assert plural(2, "model") == "2 个模型" and view.source_name(view.UPLOADED) == "上传的 CSV"
        assert [label for label, _, _ in view.cost_tiles(numbers)][0] == "仅解码器参数"
        assert "不是一个长度对" in view.pairs_from(view.TYPED, "300-4", None)[1]
    assert plural(1, "model") == "1 model" and view.source_name(view.UPLOADED) == "uploaded CSV"
    assert "is not a pair" in view.pairs_from(view.TYPED, "300-4", None)[1]
