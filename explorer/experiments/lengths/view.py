"""The length-asymmetry page's numbers: every value its sentences, tiles and tables quote, and the decisions
behind them (which differences hold, which way the slopes point, whether an on-demand run fits), computed from
`claims`, `allocation` and the run plan. The page lays them out with its content file."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from explorer import content
from explorer.csv_upload import inline_code
from explorer.experiments.lengths.accounting import Shape, allocation, cost_parity
from explorer.experiments.lengths.analysis import percent
from explorer.experiments.lengths.families import DECODER, ENCDEC
from explorer.experiments.lengths.profiles import PROFILES, LengthsError, parse_typed, profile_pairs, read_pairs
from explorer.experiments.lengths.runs import estimate_seconds, plan
from explorer.experiments.lengths.toy import FLOP_TOLERANCE, PARAM_TOLERANCE, PRESETS, ToyConfig, arm_table
from explorer.formatting import p_label, p_text, si

BOOK = "lengths"  # the page's content book: the labels, tiles and table headings below are the page's text
MAIN = PRESETS["main"]
METRIC_NAMES = {"curve": "loss averaged over the run", "final": "loss at the last step"}
RUN_STEPS = (100, 200, 400, 800, 1200)  # the on-demand run's steps slider
TYPED, UPLOADED = "typed pairs", "uploaded CSV"  # the length sources besides the profiles


def metric_name(metric: str) -> str:
    """`METRIC_NAMES[metric]` in the page's language."""
    return content.text(BOOK, f"metric-name-{metric}")


def matching_name(matching: str) -> str:
    """'parameters' or 'FLOPs' (what an encoder-decoder arm was matched in), in the page's language."""
    return content.text(BOOK, f"matching-{'parameters' if matching == 'parameters' else 'flops'}")


def arm_name(arm: str) -> str:
    """`ARM_NAMES[arm]` in the page's language."""
    return content.text(BOOK, f"arm-{arm.replace('_', '-')}")


def source_name(source: str) -> str:
    """A length source (a profile's name, TYPED or UPLOADED) as the page shows it."""
    return content.text(BOOK, f"source-{source.replace(' ', '-').lower()}")


def ratio_label(lx: int, ly: int) -> str:
    return f"{lx}→{ly}"


def pairs_from(source: str, typed: str, raw: bytes | None) -> tuple[pd.DataFrame | None, str | None]:
    """(pairs, problem): a profile by name, the typed pairs (TYPED) or an uploaded file's bytes (UPLOADED; None
    while nothing is uploaded), or the message saying what is wrong with them."""
    try:
        if source in PROFILES:
            return profile_pairs(source), None
        return (parse_typed(typed) if source == TYPED else None if raw is None else read_pairs(raw)), None
    except LengthsError as err:
        return None, str(err)


def problem_text(problem: str, source: str, upload_name: str | None) -> str:
    """What is wrong with the lengths (`pairs_from`'s problem), led by the uploaded file's name when it is a file's."""
    return (f"{inline_code(upload_name, 60)}: " if source == UPLOADED and upload_name else "") + problem


def profile_label(source: str, upload_name: str | None) -> str:
    """The lengths' name in the profile figures' titles: the profile's, the typed pairs', or the uploaded file's."""
    if source in PROFILES:
        return source_name(source)
    return content.text(BOOK, "your-typed") if source == TYPED else upload_name


def download_name(source: str, upload_name: str | None) -> str:
    """The file name a length profile downloads as (in English, whatever the page's language)."""
    name = source if source in PROFILES else ("your typed pairs" if source == TYPED else upload_name)
    return f"lengths-{name.replace(' ', '-')}.csv"


def first_screen(shape: Shape, lx: int, ly: int) -> dict:
    """What the allocation figure shows and its takeaway quotes: the input's share of the decoder-only model's
    work, both families' parameters and FLOPs at the same layers per stack (the figure's two rows), and the
    parameter ratio at equal FLOPs (the parity figure)."""
    alloc, parity = allocation(shape, lx, ly), cost_parity(shape, lx, ly)
    dec, ed, eq = alloc["families"][DECODER], alloc["families"][ENCDEC], parity["equal_cost"]
    return {
        "lx": f"{lx:,}",
        "ly": f"{ly:,}",
        "total": f"{lx + ly:,}",
        "share": dec["input_share_of_flops"],
        "layers": shape.n_layers,
        "ratio": alloc["parameter_ratio"],
        "flop_ratio": alloc["flop_ratio"],
        "decoder": si(dec["parameters"]),
        "encdec": si(ed["parameters"]),
        "decoder_flops": si(dec["flops"]),
        "encdec_flops": si(ed["flops"]),
        "equal_ratio": eq["parameter_ratio"],
        "equal_layers": eq["layers_per_stack"],
    }


def cost_tiles(numbers: dict) -> list[tuple[str, str, str]]:
    """(label, value, second line) of the four parameter and FLOP tiles, from `first_screen`'s numbers."""
    n = numbers
    return [
        (
            content.text(BOOK, "tile-decoder"),
            n["decoder"],
            content.text(BOOK, "tile-per-example", flops=n["decoder_flops"]),
        ),
        (
            content.text(BOOK, "tile-encdec"),
            n["encdec"],
            content.text(BOOK, "tile-per-example", flops=n["encdec_flops"]),
        ),
        (
            content.text(BOOK, "tile-ratio"),
            f"{n['ratio']:.2f}×",
            content.text(BOOK, "tile-flop-ratio", ratio=n["flop_ratio"]),
        ),
        (
            content.text(BOOK, "tile-equal"),
            f"{n['equal_ratio']:.2f}×",
            content.text(BOOK, "tile-equal-layers", layers=n["equal_layers"]),
        ),
    ]


def profile_tiles(stats: dict) -> list[tuple[str, str, str]]:
    """(label, value, second line) of a length profile's four tiles: mean lengths, their ratio, the FLOP ratio."""
    flops = stats["mean_flops"]
    return [
        (
            content.text(BOOK, "tile-mean-input"),
            f"{stats['mean_input']:,.1f}",
            content.text(BOOK, "tile-median", median=stats["median_input"]),
        ),
        (
            content.text(BOOK, "tile-mean-target"),
            f"{stats['mean_target']:,.1f}",
            content.text(BOOK, "tile-median", median=stats["median_target"]),
        ),
        (
            "E[Lx] / E[Ly]",
            f"{stats['ratio_of_means']:,.2f}",
            content.text(BOOK, "tile-longer-input", share=stats["share_longer_input"]),
        ),
        (
            content.text(BOOK, "tile-profile-flops"),
            f"{stats['flop_ratio']:.2f}×",
            content.text(BOOK, "tile-vs", a=si(flops[ENCDEC]), b=si(flops[DECODER])),
        ),
    ]


def rows_table(analysis: dict) -> list[dict]:
    """The per-ratio table: both families' losses, the gap, how many seeds agree, the exact and Holm p (short
    headings, so that the variants' table with its long names fits the page's width)."""
    col = {
        name: content.text(BOOK, f"col-{name}")
        for name in ("matched-in", "dec-loss", "encdec-loss", "gap", "lower-in", "exact-p", "holm-p")
    }
    return [
        {
            "Lx → Ly": ratio_label(r["lx"], r["ly"]),
            col["matched-in"]: matching_name(r["matching"]),
            col["dec-loss"]: f"{r['decoder_mean']:.4f} ± {r['decoder_sd']:.4f}",
            col["encdec-loss"]: f"{r['encdec_mean']:.4f} ± {r['encdec_sd']:.4f}",
            col["gap"]: f"{percent(r['gap_mean']):+.1f}%",
            col["lower-in"]: content.text(BOOK, "cell-lower-in", lower=r["encdec_lower"], n=r["n"]),
            col["exact-p"]: p_text(r["p"]),
            col["holm-p"]: p_text(r["holm_p"]),
        }
        for r in analysis["rows"]
    ]


def named(rows: list[dict]) -> list[dict]:
    """Each row's ratio and what was matched, for a list such as `12→12 (same parameters)`."""
    return [{"ratio": ratio_label(r["lx"], r["ly"]), "matching": matching_name(r["matching"])} for r in rows]


def named_text(items: list[dict]) -> str:
    """`named` rows as one list in a sentence ('none' when there are none)."""
    return ", ".join(content.text(BOOK, "named-item", **i) for i in items) or content.text(BOOK, "named-none")


def held(claims: dict) -> list[dict]:
    """The per-ratio differences (either loss measure) that hold after Holm's correction, `named`."""
    alpha = claims["design"]["alpha"]
    return named([r for a in claims["by_metric"].values() for r in a["rows"] if r["holm_p"] < alpha])


def trend_line(tr: dict) -> dict:
    """One per-seed slope test of the gap against log2(Lx/Ly)."""
    return {
        "metric": metric_name(tr["metric"]),
        "matching": matching_name(tr["matching"]),
        "slope": percent(tr["slope_mean"]),
        "negative": tr["negative"],
        "n": tr["n_seeds"],
        "p": p_label(tr["seed_p"]),
        "holm": p_label(tr["seed_holm_p"]),
    }


def trends_text(lines: list[dict]) -> str:
    """`trend_line`s as a Markdown list, one slope test a line."""
    return "\n".join(content.text(BOOK, "trend-line", **line) for line in lines)


def verdict(claims: dict) -> dict:
    """What the shipped numbers can and cannot say: the per-ratio design and what holds, per loss measure the
    ratios where every seed agrees, the slope tests, and the limits of three ratios and one symbol set."""
    d = claims["design"]
    agree = []
    for metric, analysis in claims["by_metric"].items():
        mine = [r for r in analysis["rows"] if r["n"] > 1]
        agree.append(
            {
                "metric": metric_name(metric),
                "lower": named([r for r in mine if r["encdec_lower"] == r["n"]]),
                "higher": named([r for r in mine if r["encdec_lower"] == 0]),
            }
        )
    return {
        "seeds": d["n_seeds"],
        "smallest": p_text(d["ratio_smallest_p"]),
        "tests": d["ratio_tests"],
        "smallest_holm": p_text(d["ratio_smallest_holm_p"]),
        "held": held(claims),
        "agree": agree,
        "trends": [trend_line(tr) for tr in claims["trends"]],
        "trend_tests": d["trend_tests"],
        "ratios": d["n_ratios"],
        "ratio_smallest": p_text(d["trend_ratio_smallest_p"]),
        "span": d["difficulty"]["curve"]["span"],
        "symbols": claims["config"]["n_symbols"],
    }


def verdict_text(v: dict) -> str:
    """A `verdict` as the toy section's paragraphs: what holds per ratio, where every seed agrees per loss
    measure, the slope tests and the limit of their few ratios (when there are slopes), then what it cannot say."""
    lines = [content.text(BOOK, "verdict-per-ratio", **{**v, "held": named_text(v["held"])})]
    lines += [
        content.text(
            BOOK, "verdict-agree", metric=a["metric"], lower=named_text(a["lower"]), higher=named_text(a["higher"])
        )
        if a["lower"] or a["higher"]
        else content.text(BOOK, "verdict-agree-none", **a)
        for a in v["agree"]
    ]
    if v["trends"]:
        lines += [
            content.text(BOOK, "verdict-trend", tests=v["trend_tests"]) + "\n" + trends_text(v["trends"]),
            content.text(BOOK, "verdict-ratios", ratios=v["ratios"], smallest=v["ratio_smallest"]),
        ]
    return "\n\n".join([*lines, content.text(BOOK, "verdict-cannot", **v)])


def slope_reading(trends: list[dict], alpha: float) -> str:
    """Which way the per-seed slopes point over the tests that hold after Holm: 'reverse' (all positive),
    'predicted' (all negative, the FLAN explanation's direction) or 'mixed' (neither, or none holds)."""
    signs = {tr["slope_mean"] > 0 for tr in trends if tr["seed_holm_p"] < alpha}
    return {frozenset({True}): "reverse", frozenset({False}): "predicted"}.get(frozenset(signs), "mixed")


def variants_intro() -> dict:
    """The variants' seeds, steps and symbol counts against the main run's."""
    cfg = PRESETS["matched"]
    symbols = {(a, b): n for a, b, n in cfg.symbols_by_ratio}
    return {
        "seeds": len(cfg.seeds),
        "steps": cfg.steps,
        "main_symbols": MAIN.n_symbols,
        "summary_symbols": symbols[(20, 4)],
        "expansion_symbols": symbols[(4, 20)],
        "eval_size": f"{cfg.eval_size:,}",
    }


def variant(claims: dict, metric: str, main_span: float) -> dict:
    """One variant's numbers: the decoder-only loss at the two ratios (how well difficulty was matched), its
    slope tests for `metric`, which way the slopes point, and the per-ratio differences that hold."""
    d = claims["design"]
    losses = {(r["lx"], r["ly"]): r["decoder_mean"] for r in claims["by_metric"][metric]["rows"]}
    return {
        "summary": losses[(20, 4)],
        "expansion": losses[(4, 20)],
        "span": d["difficulty"][metric]["span"],
        "main_span": main_span,
        "metric": metric_name(metric),
        "tests": d["trend_tests"],
        "smallest": p_text(d["trend_seed_smallest_holm_p"]),
        "ratio_tests": d["ratio_tests"],
        "ratio_smallest": p_text(d["ratio_smallest_holm_p"]),
        "held": held(claims),
        "trends": [trend_line(tr) for tr in claims["trends"] if tr["metric"] == metric],
        "reading": slope_reading(claims["trends"], d["alpha"]),
    }


def variant_text(name: str, w: dict) -> str:
    """A `variant` as its paragraphs: its difficulty and slope tests, which way the slopes point, and the
    per-ratio differences that hold."""
    reading = {"reverse": content.text(BOOK, "variant-reverse"), "predicted": content.text(BOOK, "variant-predicted")}
    return "\n\n".join(
        [
            content.text(BOOK, "variant-head", name=name, **w) + "\n" + trends_text(w["trends"]),
            reading.get(w["reading"]) or content.text(BOOK, "variant-mixed"),
            content.text(
                BOOK, "variant-held", tests=w["ratio_tests"], smallest=w["ratio_smallest"], held=named_text(w["held"])
            ),
        ]
    )


def variant_rows(name: str, claims: dict, metric: str) -> list[dict]:
    """A variant's `rows_table` for `metric`, each row led by the variant's name, for the variants' joint table."""
    return [{content.text(BOOK, "col-variant"): name, **row} for row in rows_table(claims["by_metric"][metric])]


def run_settings(lx: int, ly: int, seeds: int, steps: int) -> ToyConfig:
    """The main recipe at one ratio; ValueError when its arms cannot be matched in parameters or FLOPs."""
    cfg = replace(MAIN, ratios=((lx, ly),), seeds=tuple(range(seeds)), steps=steps)
    arm_table(cfg)  # the matched widths exist (raises ValueError otherwise)
    return cfg


def run_plan(cfg: ToyConfig, shipped: dict | None, limit_s: float) -> dict:
    """What `cfg` needs: the ready records, the missing models, their seconds, whether that is refused as too
    slow, and the most steps that would fit (None when even the fewest would not)."""
    planned = plan(cfg, shipped)
    missing = planned.missing
    seconds = estimate_seconds(cfg, missing, shipped) if missing else 0.0
    fits = (
        [s for s in RUN_STEPS if estimate_seconds(replace(cfg, steps=s), missing, shipped) <= limit_s]
        if seconds > limit_s
        else []
    )
    return {
        "ready": list(planned.ready.values()),
        "models": len(missing),
        "seconds": seconds,
        "too_slow": seconds > limit_s,
        "fits": max(fits) if fits else None,
        "steps": cfg.steps,
        "limit": limit_s,
    }


def refused_text(need: dict) -> str:
    """Why a `run_plan` too slow to run is refused, and the most steps that would fit (if any would)."""
    hint = content.text(BOOK, "hint-fits", steps=need["fits"]) if need["fits"] else content.text(BOOK, "hint-none")
    return content.text(BOOK, "refused", **need, hint=hint)


def ready_result(cfg: ToyConfig, need: dict) -> dict | None:
    """The run's result without training when `run_plan` found every model it needs shipped or cached (None
    while some are missing): it is shown at once, with no button."""
    return None if need["models"] else {"config": cfg.to_dict(), "records": need["ready"], "stopped": "steps"}


def arms(cfg: ToyConfig = MAIN) -> list[dict]:
    """The toy's arms per ratio: layers, MLP width, parameters and forward FLOPs per example."""
    col = {name: content.text(BOOK, f"col-{name}") for name in ("arm", "layers", "parameters", "flops")}
    return [
        {
            "Lx → Ly": ratio_label(a["lx"], a["ly"]),
            col["arm"]: arm_name(a["arm"]),
            col["layers"]: a["layers"],
            "d_ff": a["d_ff"],
            col["parameters"]: a["parameters"],
            col["flops"]: a["flops_per_example"],
        }
        for a in arm_table(cfg)
    ]


def how_numbers(cfg: ToyConfig = MAIN) -> dict:
    """The toy recipe, for how it was measured."""
    return {
        "symbols": cfg.n_symbols,
        "layers": cfg.n_layers,
        "d_model": cfg.d_model,
        "heads": cfg.n_heads,
        "d_ff": cfg.d_ff,
        "half_layers": cfg.n_layers // 2,
        "param_tolerance": PARAM_TOLERANCE,
        "flop_tolerance": FLOP_TOLERANCE,
        "lr": cfg.lr,
        "warmup": cfg.warmup,
        "batch": cfg.batch_size,
        "steps": cfg.steps,
        "eval_every": cfg.eval_every,
    }
