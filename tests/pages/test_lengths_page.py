"""AppTest of the length-asymmetry page: default view, every control at its extremes, each profile, typed and
uploaded pairs (good and bad), the shipped toy experiment, an on-demand run, URL restore and bad URL values."""

import pytest

from explorer.experiments import lengths as ln
from tests.conftest import ROOT
from tests.pages.conftest import (
    assert_clean,
    evidence_kinds,
    figure_heads,
    figures,
    press_train,
    run_page,
    train_buttons,
    untranslated,
    wait_for_jobs,
)

PAGE = "length_asymmetry.py"
TOY = "The toy test"  # the first section is words; this one holds the figures
SHIPPED = (ROOT / "data" / "lengths" / "main.json").is_file()
needs_shipped = pytest.mark.skipif(not SHIPPED, reason="no shipped length results")
PROFILES = "Your own lengths"  # the section with the length profiles, typed pairs and uploads


def _text(at) -> str:
    return " ".join(m.value for m in at.markdown) + " " + " ".join(c.value for c in at.caption)


def _titles(at) -> list[str]:
    return [f["layout"]["meta"]["title"] for f in figures(at)]


@needs_shipped
def test_default_view_opens_on_the_allocation_with_the_shipped_toy_experiment_below():
    at = run_page(PAGE, section=TOY)
    assert_clean(at)
    assert at.title[0].value == "Length asymmetry"
    assert evidence_kinds(at) == ["formula", "measured", "measured"]  # closed sections draw nothing
    titles = _titles(at)
    assert titles[0] == "Who reads how many tokens: Lx = 256 input, Ly = 16 target tokens"
    assert "toy scale, trained from scratch" in figures(at)[1]["layout"]["meta"]["evidence_detail"]
    assert "spends **94%** of its matmul work on the input" in _text(at)  # the takeaway under the figure
    verdict = " ".join(_text(at).split())
    assert "Does the gap move with the length ratio?" in verdict and "What it cannot say" in verdict
    # 6 paired seeds and 12 tests: the lowest exact p, and the lowest after Holm's correction, are stated
    assert "cannot give p below 0.031" in verdict and "none can come out below 0.375" in verdict
    assert "cannot give p below 0.333" in verdict  # three ratios as the units of the trend
    assert "opposite" not in verdict.lower()
    assert not at.warning
    table = at.dataframe[0].value
    assert len(table) == 6
    assert list(table["p, Holm-corrected"]) == ["0.375", "0.375", "1.000", "0.500", "0.375", "0.375"]
    assert any(b.label.startswith("Train 6 models") for b in at.button)  # the on-demand default waits for a click


VARIANTS = all((ROOT / "data" / "lengths" / f"{p}.json").is_file() for p in ("main", "matched", "split-vocab"))


@pytest.mark.skipif(not VARIANTS, reason="no shipped variant results")
@pytest.mark.parametrize("metric", ["averaged over the run", "at the last step"])
def test_the_two_variants_show_their_tests_and_their_limits(metric):
    at = run_page(PAGE, section=TOY, metric=metric)
    assert_clean(at)
    text = " ".join(_text(at).split())
    assert "Matched difficulty." in text and "Matched difficulty, separate target symbols." in text
    assert "so no lower than 0.031" in text  # 8 seeds, 4 slope tests: 4 x 2/2^8
    assert "none can come out below 0.062" in text  # 8 seeds, 8 per-ratio tests
    table = at.dataframe[1].value
    assert len(table) == 8 and set(table["variant"]) == {
        "Matched difficulty",
        "Matched difficulty, separate target symbols",
    }
    assert evidence_kinds(at) == ["formula", "measured", "measured"]  # words and a table: no extra figure


@needs_shipped
@pytest.mark.parametrize(
    "section, kinds",
    [
        ("Parameters and FLOPs", ["formula", "formula"]),
        ("Your own lengths", ["formula", "schematic", "formula"]),
        ("The lecture's claim", ["formula"]),
        ("How it was measured", ["formula"]),
    ],
)
def test_each_section_opens_from_the_url_and_draws_only_its_own_figures(section, kinds):
    at = run_page(PAGE, section=section)
    assert_clean(at)
    assert evidence_kinds(at) == kinds
    assert not at.warning and not train_buttons(at)
    if section == "Parameters and FLOPs":
        assert [m.label for m in at.metric] == [
            "Decoder-only params",
            "Encoder-decoder params",
            "Enc-dec / dec-only params",
            "Params at equal FLOPs",
        ]
    if section == "Your own lengths":
        assert "academic benchmark" in _titles(at)[1]
        assert "SYNTHETIC, ILLUSTRATIVE" in figure_heads(at)[1]
    if section == "The lecture's claim":
        assert "not reproduced here" in _text(at)
    if section == "How it was measured":
        assert len(at.dataframe) == 1 and len(at.dataframe[0].value) == 9  # the matched arms
        assert "Shipped run" in _text(at)


@pytest.mark.parametrize(
    "query",
    [
        dict(lx="1"),
        dict(lx="2048"),
        dict(ly="1"),
        dict(ly="2048"),
        dict(d="64"),
        dict(d="4096"),
        dict(layers="1"),
        dict(layers="48"),
        dict(vocab="64"),
        dict(vocab="256,000"),
        dict(lx="2048", ly="2048", d="4096", layers="48", vocab="256,000"),
        dict(lx="1", ly="1", d="64", layers="1", vocab="64"),
    ],
)
def test_allocation_controls_at_their_extremes(query):
    at = run_page(PAGE, section=TOY, sections="all", **query)
    assert_clean(at)
    assert figures(at)[0]["layout"]["meta"]["evidence"] == "formula"
    assert not [w for w in at.warning if "missing" not in w.value]


@pytest.mark.parametrize("profile", list(ln.PROFILES))
def test_each_profile_shows_its_means(profile):
    at = run_page(PAGE, profile=profile, section=PROFILES)
    assert_clean(at)
    stats = ln.profile_stats(ln.profile_pairs(profile), ln.Shape())
    assert at.metric[0].value == f"{stats['mean_input']:,.1f}" and at.metric[1].value == f"{stats['mean_target']:,.1f}"
    assert profile in _titles(at)[1]
    assert "synthetic, illustrative" in " ".join(c.value for c in at.caption)


def test_typed_pairs_good_and_bad():
    at = run_page(PAGE, profile="typed pairs", pairs="300:4, 100:2", section=PROFILES)
    assert_clean(at)
    assert at.metric[0].value == "200.0" and at.metric[1].value == "3.0"
    assert figures(at)[1]["layout"]["meta"]["evidence"] == "historical data"
    for bad, message in (
        ("300-4", "is not a pair"),
        ("0:3", "from 1 to"),
        ("", "at least one pair"),
        (" ".join(["2:2"] * 51), "the limit here is 50"),
    ):
        at.text_input(key="pairs").set_value(bad).run()
        assert_clean(at)
        assert any(message in w.value for w in at.warning), (bad, [w.value for w in at.warning])
        assert "Input and target lengths" not in " ".join(_titles(at))


def test_uploads_bad_and_good():
    at = run_page(PAGE, profile="uploaded CSV", section=PROFILES)
    assert_clean(at)
    assert any("Upload a CSV" in i.value for i in at.info)
    assert f"{ln.MAX_ROWS:,} rows" in at.file_uploader(key="upload").label
    bad = {
        "empty": (b"", "empty"),
        "zip": (b"PK\x03\x04xx", "not a CSV"),
        "columns": (b"year,value\n1,2\n", "must name an input column"),
        "zero": (b"lx,ly\n0,4\n", "from 1 to"),
        "many": (b"lx,ly\n" + b"1,1\n" * (ln.MAX_ROWS + 1), "limit is"),
    }
    for name, (raw, message) in bad.items():
        at.file_uploader(key="upload").set_value((f"{name}.csv", raw, "text/csv")).run()
        assert_clean(at)
        assert any(message in w.value and f"{name}.csv" in w.value for w in at.warning), name
    at.file_uploader(key="upload").set_value(("mine.csv", b"input_len,target_len\n50,5\n150,15\n", "text/csv")).run()
    assert_clean(at)
    assert at.metric[0].value == "100.0" and at.metric[1].value == "10.0"
    assert "mine.csv" in _titles(at)[1]


@needs_shipped
def test_the_last_step_metric_and_a_shipped_on_demand_setting():
    at = run_page(
        PAGE, section=TOY, metric="at the last step", run_lx="20", run_ly="4", run_seeds="6", run_steps="1200"
    )
    assert_clean(at)
    assert "held-out loss at the last step" in _text(at)
    assert len(at.dataframe) == 2 + VARIANTS and not train_buttons(at)  # main, the variants', on-demand
    assert len(at.dataframe[-1].value) == 2  # the on-demand table: one ratio, two matchings
    assert evidence_kinds(at)[-1] == "measured"  # the on-demand gap chart, straight from the shipped run


@needs_shipped
def test_too_large_a_run_is_refused_with_a_suggestion():
    at = run_page(PAGE, section=TOY, run_lx="24", run_ly="24", run_seeds="6", run_steps="1200")
    assert_clean(at)
    refusal = [w.value for w in at.warning if w.value.startswith("Refused")]
    assert refusal and "90 s" in refusal[0] and ("would fit" in refusal[0] or "would not fit" in refusal[0])


def test_an_on_demand_run_trains_after_a_click_and_then_comes_from_the_cache():
    query = dict(run_lx="3", run_ly="1", run_seeds="2", run_steps="100")
    at = run_page(PAGE, section=TOY, **query)
    assert_clean(at)
    at = wait_for_jobs(press_train(at), timeout=240)
    assert_clean(at)
    assert "3→1" in str(figures(at)[-1]["layout"]["xaxis"]["ticktext"])
    again = run_page(PAGE, section=TOY, **query)  # a new session: every model is in the result cache now
    assert_clean(again)
    assert "3→1" in str(figures(again)[-1]["layout"]["xaxis"]["ticktext"]) and not again.get("progress")


def test_url_restores_the_view():
    at = run_page(
        PAGE,
        section=TOY,
        sections="all",
        lx="1024",
        ly="4",
        d="512",
        layers="6",
        vocab="1,024",
        profile="chat",
        metric="at the last step",
        run_lx="5",
        run_ly="9",
        run_seeds="3",
        run_steps="800",
    )
    assert_clean(at)
    assert at.select_slider(key="lx").value == 1024 and at.select_slider(key="ly").value == 4
    assert at.select_slider(key="d").value == 512 and at.slider(key="layers").value == 6
    assert at.select_slider(key="vocab").value == 1024
    assert at.radio(key="profile").value == "chat"
    assert (at.slider(key="run_lx").value, at.slider(key="run_ly").value, at.slider(key="run_seeds").value) == (5, 9, 3)
    assert at.select_slider(key="run_steps").value == 800
    assert _titles(at)[0] == "Who reads how many tokens: Lx = 1,024 input, Ly = 4 target tokens"
    assert "d=512, 6 layers per stack" in figures(at)[0]["layout"]["meta"]["evidence_detail"]
    assert not any("URL parameter" in c.value for c in at.caption)


def test_bad_url_values_get_notices_not_tracebacks():
    at = run_page(
        PAGE,
        section=TOY,
        sections="all",
        lx="abc",
        ly="-5",
        d="77",
        layers="1000",
        vocab="x",
        profile="nonsense",
        metric="zzz",
        run_lx="99",
        run_ly="nan",
        run_seeds="0",
        run_steps="7",
        pairs="9" * 700,
    )
    assert_clean(at)
    notices = " ".join(c.value for c in at.caption)
    for key in (
        "`lx`",
        "`ly`",
        "`d`",
        "`layers`",
        "`vocab`",
        "`profile`",
        "`run_lx`",
        "`run_ly`",
        "`run_seeds`",
        "`run_steps`",
        "`pairs`",
    ):
        assert key in notices, key
    assert at.slider(key="layers").value == 48 and at.slider(key="run_lx").value == 24
    assert _titles(at)[0] == "Who reads how many tokens: Lx = 256 input, Ly = 16 target tokens"


@needs_shipped
def test_a_run_cut_by_its_limit_says_so_keeps_its_models_and_offers_the_rest():
    """The cut used to end in silence: no result, no message, only a new button for fewer models."""
    from dataclasses import replace

    from streamlit.testing.v1 import AppTest

    from explorer import results
    from explorer.progress import Progress
    from tests.pages.conftest import TIMEOUT
    from ui import jobs

    class CutAtTheFourthModel(Progress):  # what the 90 s limit does, one seed's three models in
        message = ""

        def report(self, fraction, message):
            self.message = message or self.message

        def time_left(self):
            return -1.0 if self.message.startswith("model 4 of") else float("inf")

    cfg = replace(ln.PRESETS["main"], ratios=((5, 3),), seeds=(0, 1), steps=100)
    cut = ln.run(cfg, ln.load_shipped(), use_cache=True, progress=CutAtTheFourthModel())
    assert cut["stopped"] == "cut" and len(cut["records"]) == 3
    at = AppTest.from_file(str(ROOT / "pages" / PAGE), default_timeout=TIMEOUT)
    for key, value in dict(run_lx="5", run_ly="3", run_seeds="2", run_steps="100", section=TOY).items():
        at.query_params[key] = value
    run_key = "lengths-" + results.result_key("lengths-run", cfg.to_dict())
    at.session_state[jobs._LAST + run_key] = cut  # this session watched that run end
    at.run()
    assert_clean(at)
    warning = next(w.value for w in at.warning if w.value.startswith("The run stopped at the 90 s limit"))
    assert "3 models still to train" in warning
    assert train_buttons(at)[0].label.startswith("Train 3 models (about ")
    assert any("5→3" in str(f["layout"]["xaxis"].get("ticktext")) for f in figures(at))  # the finished seeds' chart


# --- the Chinese edition -----------------------------------------------------------------------------------------


@needs_shipped
def test_the_chinese_page_opens_every_section_in_chinese_without_pressing_a_run_button():
    at = run_page(PAGE, lang="zh", sections="all")
    assert_clean(at)
    assert untranslated(at) == []
    assert "长度不对称" in at.title[0].value
    assert [m.label for m in at.metric][:4] == [
        "仅解码器参数",
        "编码器-解码器参数",
        "参数比：编码器-解码器 / 仅解码器",
        "FLOPs 相同时的参数比",
    ]
    assert any(b.label.startswith("训练 6 个模型") for b in at.button)  # shown, not pressed
    assert "谁读多少 token" in figures(at)[0]["layout"]["meta"]["title"]


def test_the_chinese_typed_pairs_say_what_is_wrong_in_chinese():
    at = run_page(PAGE, lang="zh", profile="手动输入的长度对", pairs="300-4", section="你自己的长度")
    assert_clean(at)
    assert any("不是一个长度对" in w.value for w in at.warning), [w.value for w in at.warning]
    assert untranslated(at) == []


def test_the_first_screen_keeps_its_token_axis_while_lx_moves():
    """Moving Lx changes the boxes, not the axis: the picture at Lx = 16 and at Lx = 2048 differ at a glance."""
    shown = {}
    for lx in ("16", "2048"):
        at = run_page(PAGE, lx=lx)
        assert_clean(at)
        layout = figures(at)[0]["layout"]
        shown[lx] = (
            layout["yaxis"]["range"],
            layout["yaxis2"]["range"],
            max(max(b["y"]) for b in figures(at)[0]["data"] if b.get("legendgroup") == "causal"),
        )
    assert shown["16"][:2] == shown["2048"][:2]  # the same axis
    assert shown["16"][2] == 32 and shown["2048"][2] == 2064  # decoder-only's layers read Lx + Ly
