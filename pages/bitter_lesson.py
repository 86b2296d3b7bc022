"""The Bitter Lesson (slides 8-9): hand-built features against the general Transformer, over data and compute."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import environment, results
from explorer import shipped as shipped_results
from explorer.experiments import bitter_lesson as bl
from explorer.figures import bitter_lesson as figs
from explorer.formatting import p_label, p_text, sci
from explorer.jobs import QUEUE
from ui import layout, params, render
from ui.frame import header, page_link
from ui.jobs import run_in_background, was_cut
from ui.text import say, t

TIME_LIMIT_S = 90  # an on-demand run may take this long on the shared server
QUICK = bl.PRESETS["quick"]
QUICK_SECONDS = 25  # the quick preset measured on 2 quiet cores, rounded up
AXES = {"data": "data", "compute": "flops"}  # the control's options -> the figure's axis
FIRST_SCREEN_HEIGHT = 500  # px: the curves and the takeaway under them on a 1440x900 screen
FIRST_SCREEN_BADGE = 64  # badge characters per line: the curves get three quarters of the width


@st.cache_data(show_spinner=False)
def shipped(mtime: float) -> dict | None:
    """The main preset's records, as written by `python -m explorer bitter-lesson --preset main`."""
    return shipped_results.load(bl.shipped_path())


def shipped_run() -> dict | None:
    path = bl.shipped_path()
    return shipped(path.stat().st_mtime if path.is_file() else 0.0)


def result_key(result: dict) -> str:
    """What names a result in the caches below (shared by every session): its date, or for an on-demand run,
    which has none, its losses (a run cut by the time limit differs from a whole one)."""
    return result.get("created") or repr([r["loss"] for r in result["runs"]])


@st.cache_data(show_spinner=False, max_entries=16)
def analysis_of(key: str, _result: dict) -> dict:
    return bl.analyse(_result)


@st.cache_data(show_spinner=False, max_entries=64)
def curves_figure(key: str, case: str, axis: str, _analysis: dict, _config: dict, first_screen: bool):
    size = dict(height=FIRST_SCREEN_HEIGHT, badge_chars=FIRST_SCREEN_BADGE) if first_screen else {}
    return figs.learning_curves(_analysis, _config, axis, **size)


def live_run() -> tuple[dict | None, bool]:
    """(the quick preset's result, whether it is training now): it trains only when the student presses the
    button, and its curves grow on screen meanwhile."""
    key = "bitter-" + results.result_key("bitter-run", QUICK.to_dict())
    if was_cut(key):
        st.warning(t("run-cut", limit=TIME_LIMIT_S))
    done = run_in_background(key, lambda progress: bl.run(QUICK, progress.part(reserve_s=3.0)),
                             t("run-label", case=QUICK.cases[0], seeds=len(QUICK.seeds), steps=QUICK.steps),
                             time_limit_s=TIME_LIMIT_S, button=f"Watch it learn: train here (about {QUICK_SECONDS} s)",
                             live=figs.live_curves)
    job = QUEUE.get(key)
    return done, done is None and job is not None and not job.finished


def takeaway(a: dict) -> None:
    small, large, c = a["tests"]["small"], a["tests"]["large"], a["crossover"]
    hand, general = a["methods"]["hand-built"]["mean"], a["methods"]["transformer"]["mean"]
    i = small["at"]
    if c is None:
        say("takeaway-none", large=large["data"], hand_large=hand[-1], general_large=general[-1], seeds=len(a["seeds"]))
        return
    low, high = c["data_range"] or (c["data"], c["data"])
    say("takeaway", small=small["data"], hand_small=hand[i], general_small=general[i], hand_leads=small["hand_leads"],
        seeds=len(a["seeds"]), data=c["data"], flops=sci(c["flops"], 2), data_low=low, data_high=high,
        crossed=c["seeds_crossed"], general_large=general[-1], floor=a["counts_floor"]["loss"])


def tests_table(analysis: dict) -> pd.DataFrame:
    return pd.DataFrame([{"comparison": t("test-row", case=case, data=test["data"]), "seeds": test["pairs"],
                          "mean gap (nats)": f"{test['mean_diff']:+.3f}",
                          "seed range": f"{test['low']:+.3f} to {test['high']:+.3f}",
                          "hand-built ahead": f"{test['hand_leads']} of {test['pairs']}",
                          "exact p": p_text(test["p"]), "Holm p": p_text(test["holm_p"])}
                         for case, a in analysis.items() for test in (a["tests"]["small"], a["tests"]["large"])])


def method_section(result: dict, analysis: dict) -> None:
    cfg = bl.BitterConfig.from_dict(result["config"])
    say("task", length=cfg.length, positive=", ".join(bl.POSITIVE), negative=", ".join(bl.NEGATIVE),
        neutral=", ".join(bl.NEUTRAL), not_rate=cfg.not_rate)
    st.markdown("\n".join(t("example", **e) for e in bl.examples(cfg, "order")))
    say("methods", hand_width=cfg.hand_width, hand_lr=cfg.hand_lr, hand_flops=cfg.flops_per_example("hand-built"),
        layers=cfg.n_layers, d_model=cfg.d_model, heads=cfg.n_heads, lr=cfg.lr,
        general_flops=cfg.flops_per_example("transformer"), batch=cfg.batch_size, steps=cfg.steps,
        eval_size=cfg.eval_size, checkpoints=len(cfg.checkpoint_steps()))
    floor = bl.counts_floor(cfg)
    say("floor", length=cfg.length, floor=floor["loss"], accuracy=floor["accuracy"])
    say("statistics", seeds=len(cfg.seeds), floor_p=2 / 2 ** len(cfg.seeds), small_budget=bl.SMALL_BUDGET,
        tests=2 * len(analysis))
    st.dataframe(tests_table(analysis), hide_index=True)


def counts_section(result: dict, analysis: dict, axis: str) -> None:
    a = analysis.get("counts")
    if a is None:
        st.info(t("missing-shipped", name=bl.shipped_path().name, seconds=QUICK_SECONDS))
        return
    render.figure(curves_figure(result_key(result), "counts", axis, a, result["config"], False), key="bitter-counts",
                  notice=t("counts-notice"))
    large, tost = a["tests"]["large"], a["tests"]["equivalence"]
    say("counts-verdict", large=large["data"], diff=large["mean_diff"], low=large["low"], high=large["high"],
        hand_leads=large["hand_leads"], seeds=large["pairs"], p=p_label(large["p"]), holm=p_label(large["holm_p"]),
        margin=bl.EQUIVALENCE_MARGIN, tost=p_label(tost["p"]), floor_p=1 / 2 ** large["pairs"])


def data_section(result: dict, analysis: dict) -> None:
    a = analysis["order"]
    hand, general = a["methods"]["hand-built"], a["methods"]["transformer"]
    st.dataframe(pd.DataFrame({"examples seen": a["data"].astype(int), "hand-built loss": hand["mean"],
                               "hand-built FLOPs": [sci(f, 2) for f in hand["flops"]],
                               "Transformer loss": general["mean"],
                               "Transformer FLOPs": [sci(f, 2) for f in general["flops"]]}).round(3), hide_index=True)
    st.caption(t("table-caption", seeds=len(a["seeds"])))
    say("sources", command="python -m explorer bitter-lesson --preset main", file="data/bitter_lesson/main.json")
    if "wall_seconds" in result:
        say("shipped-run", wall=result["wall_seconds"], cpus=result.get("cpus", "?"), load=result["load_average"][0],
            created=result.get("created", "?"),
            environment=environment.describe(shipped_results.environment_of(result) or {}))


header("bitter-lesson")
say("lead")
result = shipped_run()
if result is None:
    st.warning(t("missing-shipped", name=bl.shipped_path().name, seconds=QUICK_SECONDS))
figure_col, controls_col = layout.stage()
with controls_col:
    axis = AXES[params.choice("Axis", "axis", list(AXES), "data", help=t("help-axis"))]
with figure_col:  # the button, then while it trains the growing curves, where the finished ones will stand
    mine, training = live_run()
    if training:
        st.caption(t("live-notice"))
shown = mine or result
shown_key = result_key(shown) if shown is not None else ""
analysis = analysis_of(shown_key, shown) if shown is not None else {}
if training or "order" not in analysis:
    st.stop()
with figure_col:
    cfg = bl.BitterConfig.from_dict(shown["config"])
    ratio = cfg.flops_per_example("transformer") / cfg.flops_per_example("hand-built")
    render.figure(curves_figure(shown_key, "order", axis, analysis["order"], shown["config"], True),
                  key="bitter-curves", notice=t("curves-notice", ratio=ratio))
with controls_col:
    takeaway(analysis["order"])
    if mine is not None:
        st.caption(t("your-run", seeds=len(QUICK.seeds), steps=QUICK.steps, stopped=mine["stopped"]))

method_tab, counts_tab, limits_tab, data_tab = layout.sections(
    ["How it was measured", "Second case: only counts matter", "What the toy can and cannot test", "Data and sources"])
if method_tab:
    with method_tab:
        method_section(shown, analysis)
if counts_tab and result is not None:
    with counts_tab:
        counts_section(result, analysis_of(result_key(result), result), axis)
if limits_tab:
    with limits_tab:
        say("limits")
if data_tab:
    with data_tab:
        data_section(shown, analysis)

page_link("inductive-bias", "Inductive-bias crossover: the same race between structure levels of one model")
