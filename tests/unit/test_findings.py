"""The numbers of each measured tab's plain sentence, read from the shipped results (no mocks: the files the
app ships), and the cases where a sentence has nothing to stand on."""

from explorer import findings, shipped
from explorer.experiments import bidirectional_scaling as scaling
from explorer.experiments import cache
from explorer.experiments import depth as dp
from explorer.experiments import depth_view as dv
from explorer.experiments import four_steps as fs
from explorer.experiments import lengths as ln
from explorer.experiments import stale_cache
from explorer.experiments.lengths import view as lengths_view


def test_the_ablation_sentence_counts_the_pairs_and_the_seeds_of_the_shipped_record():
    record = shipped.load(fs.ABLATION_PATH)
    paired = fs.paired_analysis(record["runs"])
    found = findings.ablation(paired, record["settings"]["steps"])
    assert found["pairs"] == len(paired["pairs"]) and 0 <= found["held"] <= found["pairs"]
    assert found["seeds"] >= 2 and found["size"] >= 0 and found["steps"] == record["settings"]["steps"]
    assert findings.ablation({"pairs": [], "equivalence": None}, 250) is None


def test_the_length_sentence_reads_the_verdict_and_the_largest_gap():
    claims = ln.claims(ln.load_shipped("main"))
    verdict, analysis = lengths_view.verdict(claims), claims["by_metric"]["curve"]
    found = findings.length_toy(verdict, analysis)
    assert found["tests"] == verdict["tests"] and found["held"] == len(verdict["held"])
    assert 0 < found["largest"] < 1  # the gaps are fractions of the decoder-only loss


def test_the_depth_sentences_span_the_measured_depths_and_both_tasks():
    runs = dv.load_shipped()
    main = dp.analyse(dp.available(dv.settings(*dv.preset_key("main")[:3]), runs["runs"])[0])
    gaps = findings.depth_gaps(main, dv.at_depth)
    assert (gaps["first"], gaps["last"]) == (min(main["depths"]), max(main["depths"]))
    assert gaps["first_gap"] == dv.at_depth(main, gaps["first"])["gap"]
    both = findings.depth_control(main, runs["control"], dv.at_depth)
    assert both["depth"] in set(main["depths"]) & set(runs["control"]["depths"])
    assert findings.depth_gaps({**main, "depths": main["depths"][:1]}, dv.at_depth) is None


def test_the_cache_sentences_read_the_stale_headline_and_the_widest_and_narrowest_width():
    found = findings.stale(stale_cache.headline(stale_cache.load()))
    assert set(found) == {"sort_reencode", "sort_stale", "copy_reencode", "copy_stale"}
    assert findings.stale({"sort": {}}) is None
    points = scaling.analyse(scaling.load_shipped())["points"]
    found = findings.scaling(points)
    widths = {p["width"] for p in points}
    assert (found["first"], found["last"]) == (min(widths), max(widths))
    assert found["steps"] == max(p["steps"] for p in points) and findings.scaling([]) is None


def test_the_drift_sentence_reads_the_bidirectional_move_and_the_causal_rounding():
    trained, _ = cache.load_encoder() or (None, None)
    moved = findings.drift(cache.drift_table(cache.drift_models(trained), 27, 5))
    assert moved["bidirectional"] > 0.01 and moved["causal"] < 1e-5  # causal old tokens move by rounding only
