"""The length-asymmetry page's numbers (explorer.experiments.lengths.view): the first screen's takeaway quotes
what its figure draws, the verdict's decisions follow the tests, an on-demand plan knows what is shipped, and the
page's sentences, labels and file names are built from those numbers."""

import math

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


def _tops(fig) -> dict[str, float]:
    """The tallest box of each row's layers (the tokens they read), by its y axis; embeddings left out."""
    tops = {}
    for bar in fig.data:
        if bar.legendgroup in ("causal", "bidirectional"):
            tops[bar.yaxis] = max(tops.get(bar.yaxis, 0), max(bar.y))
    return tops


def test_the_token_axis_stays_fixed_while_lx_moves_so_the_boxes_that_read_the_input_move():
    """Fitted to Lx + Ly, the axis drew every length at full height; fixed, a longer input shows as taller boxes."""
    ranges, tops = [], []
    for lx in (16, 256, 2048):
        fig = figs.allocation_chart(ln.allocation(SHAPE, lx, 16), tokens_max=4096)
        ranges.append((tuple(fig.layout.yaxis.range), tuple(fig.layout.yaxis2.range)))
        assert fig.layout.yaxis.type == fig.layout.yaxis2.type == "log"
        tops.append(_tops(fig))
    assert ranges[0] == ranges[1] == ranges[2]
    top = 10 ** ranges[0][0][1]
    assert top >= 4096  # room for the longest setting: nothing is ever cut
    share = [math.log10(t["y"] / figs.TOKEN_FLOOR) / math.log10(top / figs.TOKEN_FLOOR) for t in tops]
    assert share[0] < 0.5 < share[1] < share[2] < 1  # the decoder-only row's height follows Lx + Ly
    assert [t["y"] for t in tops] == [32, 272, 2064]
    assert [t["y2"] for t in tops] == [16, 256, 2048]  # the encoder reads Lx alone


def test_the_slope_reading_needs_every_holding_slope_to_agree():
    def trend(slope: float, p: float) -> dict:
        return {"slope_mean": slope, "seed_holm_p": p}

    assert view.slope_reading([trend(0.1, 0.01), trend(0.2, 0.02), trend(-0.3, 0.9)], 0.05) == "reverse"
    assert view.slope_reading([trend(-0.1, 0.01)], 0.05) == "predicted"
    assert view.slope_reading([trend(-0.1, 0.01), trend(0.1, 0.01)], 0.05) == "mixed"
    assert view.slope_reading([trend(-0.1, 0.5)], 0.05) == "mixed"  # nothing holds


def test_named_rows_say_what_was_matched():
    rows = [{"lx": 12, "ly": 12, "matching": "parameters"}, {"lx": 4, "ly": 20, "matching": "flops"}]
    assert view.named(rows) == [{"ratio": "12→12", "matching": "parameters"}, {"ratio": "4→20", "matching": "FLOPs"}]


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


# --- the page's sentences, built from the numbers above ------------------------------------------------------------


def test_named_rows_and_slope_tests_read_as_a_list():
    rows = view.named([{"lx": 12, "ly": 12, "matching": "parameters"}, {"lx": 4, "ly": 20, "matching": "flops"}])
    assert view.named_text(rows) == "12→12 (same parameters), 4→20 (same FLOPs)"
    assert view.named_text([]) == "none"
    line = {
        "metric": "loss at the last step",
        "matching": "FLOPs",
        "slope": -1.25,
        "negative": 5,
        "n": 6,
        "p": "p = 0.031",
        "holm": "p = 0.125",
    }
    assert (
        view.trends_text([line, line]).splitlines()
        == [
            "- loss at the last step, same FLOPs: -1.2% per doubling of Lx/Ly on average, negative in 5",
            "  of 6 seeds (p = 0.031; Holm-corrected p = 0.125).",
        ]
        * 2
    )


@pytest.mark.skipif(ln.load_shipped("main") is None, reason="no shipped toy run")
def test_the_verdict_reads_what_holds_where_seeds_agree_the_slopes_and_what_it_cannot_say():
    verdict = view.verdict(ln.claims(ln.load_shipped("main")))
    paragraphs = view.verdict_text(verdict).split("\n\n")
    assert paragraphs[0].startswith("**What the toy can say, ratio by ratio.**")
    assert paragraphs[0].endswith(f"**{view.named_text(verdict['held'])}**.")
    for paragraph, agree in zip(paragraphs[1:], verdict["agree"]):  # one line per loss measure
        assert agree["metric"] in paragraph
        assert (view.named_text(agree["lower"]) in paragraph) == bool(agree["lower"] or agree["higher"])
    slopes = paragraphs[1 + len(verdict["agree"])]
    assert slopes.startswith("**Does the gap move") and slopes.endswith(view.trends_text(verdict["trends"]))
    assert paragraphs[-1].startswith("**What it cannot say.**") and len(paragraphs) == len(verdict["agree"]) + 4
    without = view.verdict_text({**verdict, "trends": []}).split("\n\n")  # no slope tests: no slope paragraphs
    assert len(without) == len(verdict["agree"]) + 2 and not any("Does the gap move" in p for p in without)


@pytest.mark.skipif(ln.load_shipped("matched") is None, reason="no shipped variant run")
def test_a_variant_reads_its_difficulty_its_slopes_direction_and_what_holds():
    claims = ln.claims(ln.load_shipped("matched"))
    found = view.variant(claims, "curve", 24.0)
    head, reading, held = view.variant_text("Matched difficulty", found).split("\n\n")
    assert head.startswith("**Matched difficulty.** Decoder-only loss averaged over the run: ")
    assert head.endswith(view.trends_text(found["trends"])) and "against 24× in the main run" in head
    assert reading.startswith(
        {
            "reverse": "Every slope that holds after the correction (by either loss measure) is positive",
            "predicted": "Every slope that holds after the correction (by either loss measure) is negative",
            "mixed": "After the correction, no slope",
        }[found["reading"]]
    )
    assert held.endswith(f"**{view.named_text(found['held'])}**.")
    rows = view.variant_rows("Matched difficulty", claims, "final")
    assert [r["variant"] for r in rows] == ["Matched difficulty"] * len(claims["by_metric"]["final"]["rows"])
    assert [{k: v for k, v in r.items() if k != "variant"} for r in rows] == view.rows_table(
        claims["by_metric"]["final"]
    )


@pytest.mark.skipif(ln.load_shipped("main") is None, reason="no shipped toy run")
def test_a_shipped_run_is_ready_at_once_and_a_refusal_says_what_would_fit():
    shipped = ln.load_shipped("main")
    cfg = view.run_settings(20, 4, 2, view.MAIN.steps)
    ready = view.ready_result(cfg, view.run_plan(cfg, shipped, 90))
    assert ready["stopped"] == "steps" and ready["config"] == cfg.to_dict() and len(ready["records"]) == 2 * 3
    slow = view.run_settings(24, 24, len(view.MAIN.seeds), 1200)
    need = view.run_plan(slow, shipped, 1)
    assert view.ready_result(slow, need) is None
    assert view.refused_text(need).startswith(f"Refused: {need['models']} models × 1200 steps would take about")
    assert view.refused_text(need).endswith("even 100 steps would not fit; use fewer seeds or a shorter Lx + Ly.")
    assert "With these seeds, 400 steps would fit." in view.refused_text({**need, "fits": 400})


def test_profiles_are_named_and_downloaded_by_their_source_and_an_upload_names_its_file_in_problems():
    profile = next(iter(ln.PROFILES))
    assert view.profile_label(profile, "x.csv") == view.source_name(profile)
    assert view.profile_label(view.TYPED, None) == "your typed pairs"
    assert view.profile_label(view.UPLOADED, "mine.csv") == "mine.csv"
    assert view.download_name("academic benchmark", None) == "lengths-academic-benchmark.csv"
    assert view.download_name(view.TYPED, "x.csv") == "lengths-your-typed-pairs.csv"
    assert view.download_name(view.UPLOADED, "my lengths.csv") == "lengths-my-lengths.csv.csv"
    assert view.problem_text("no pairs.", view.UPLOADED, "my*file.csv") == "`my*file.csv`: no pairs."
    assert view.problem_text("no pairs.", view.TYPED, "my*file.csv") == "no pairs."  # typed text names no file
    assert view.problem_text("no pairs.", view.UPLOADED, None) == "no pairs."
