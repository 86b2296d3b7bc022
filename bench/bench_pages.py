"""Every page: the server-side rerun time of a slider move with warm caches (AppTest), p50 and p95.

For each row below, a real slider (or select-slider) of the page moves back and forth between a few values.
A warm-up visits every value twice (models load, caches fill, background jobs of the view finish); then
`MOVES` moves are timed, each a full rerun of the page script as the server runs it: wall time (p50, p95,
max) and the process's CPU time per move (what a busy shared machine disturbs least). The first run of the
page (Streamlit caches cleared, imports already done) is printed for comparison. Target: p95 under 150 ms.

`python -m bench.bench_pages [slug ...]` times only the pages named. Quick mode (`python -m bench --quick`) moves
every row's control through its values once, without the warm-up: a control whose key has gone fails it.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import dataclass

import streamlit as st
import streamlit.logger
from streamlit.testing.v1 import AppTest

from bench.stats import percentiles
from explorer import content
from explorer.lecture_map import ROOT, available_pages, page
from tests.pages.conftest import wait_for_jobs
from ui.launch import preload

MOVES = 36
TARGET_S = 0.150


@dataclass(frozen=True)
class Move:
    page: str  # slug
    kind: str  # "slider" or "select_slider"; "" for a page without controls (a plain rerun)
    key: str
    values: tuple  # moved through in turn; each is cached after the warm-up
    query: tuple[tuple[str, str], ...] = ()  # URL parameters of the view, e.g. another architecture
    section: str = ""  # the content key of the tab the control lives in (a closed tab's controls are not drawn)

    @property
    def label(self) -> str:
        control = f"{self.kind.replace('_', '-')} {self.key}" if self.kind else "rerun (no controls)"
        shown = [value for _, value in self.query] + ([self.section] if self.section else [])
        return control + "".join(f", {value}" for value in shown)

    def params(self) -> tuple[tuple[str, str], ...]:
        """The URL parameters the page opens with: the view's, and the tab to open (by its English label)."""
        tab = (("section", content.text(self.page, self.section, lang="en")),) if self.section else ()
        return self.query + tab


# the page's main control first; a few pages get a second row where another control redraws other figures
ROWS = (
    Move("home", "", "", ()),
    Move("method", "select_slider", "height", (2, 5, 10)),
    Move("method", "slider", "forces", (4, 3, 2), section="tab-forces"),
    Move("compute", "slider", "start", (1950, 1960, 1970)),
    Move("inductive-bias", "slider", "budget", (9.8, 10.0, 10.2)),
    Move("attention", "slider", "head", (1, 2, 3)),
    Move("attention", "slider", "layer", (2, 1)),
    Move("attention", "slider", "head", (1, 2, 3), (("arch", "Decoder-only"),)),
    Move("four-steps", "slider", "step", (0, 3, 5)),
    Move("four-steps", "select_slider", "width", (64, 32, 128)),
    Move("lengths", "select_slider", "lx", (256, 512, 1024)),
    Move("depth", "select_slider", "depth", (4, 2, 8)),
    Move("cache", "select_slider", "chat_state", ("output state", "layer 1 keys & values", "layer 2 keys & values")),
    Move("cache", "select_slider", "n", (48, 64, 96), (("view", "Any size (n, m, T)"),)),
    Move("cache", "slider", "turns", (3, 4, 5), (("view", "Any size (n, m, T)"),)),
    Move("audit", "select_slider", "n", (48, 64, 96)),
    Move("audit", "slider", "deploy", (9.6, 9.8, 10.0)),
)


def _failure(at: AppTest) -> str | None:
    return str(at.exception[0].value)[:120] if at.exception else None


def timed_moves(at: AppTest, move: Move, values) -> list[float]:
    """Seconds of each rerun after setting the control to each of `values` in turn."""
    times = []
    for value in values:
        if move.kind:
            getattr(at, move.kind)(key=move.key).set_value(value)
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
        if _failure(at):
            raise RuntimeError(_failure(at))
    return times


def measure(move: Move, moves: int = MOVES, quick: bool = False) -> dict:
    """p50 and p95 of `moves` warm reruns, and the page's first run with Streamlit's caches cleared; `quick`: each
    value once, no warm-up."""
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(ROOT / page(move.page).file), default_timeout=300)
    for key, value in move.params():
        at.query_params[key] = value
    start = time.perf_counter()
    at.run()
    first = time.perf_counter() - start
    try:
        if _failure(at):
            raise RuntimeError(_failure(at))
        wait_for_jobs(at, 600)
        values = move.values or (None,)
        for value in () if quick else values * 2:  # warm-up: every value computed and cached
            timed_moves(at, move, [value])
            wait_for_jobs(at, 600)
        cpu = time.process_time()
        times = timed_moves(at, move, [values[i % len(values)] for i in range(moves)])
        cpu = (time.process_time() - cpu) / moves
    except (RuntimeError, KeyError) as err:  # the page failed, or it has no control of that key
        return {"first": first, "error": f"{type(err).__name__}: {err}"}
    p50, p95 = percentiles(times, 50, 95)
    return {"first": first, "p50": p50, "p95": p95, "max": max(times), "cpu": cpu, "n": len(times)}


def _print_table(results: list[tuple[Move, dict]], moves: int) -> None:
    print(f"warm rerun after a slider move, AppTest, {moves} moves per row (target p95 < {TARGET_S * 1000:.0f} ms):")
    print(
        f"  {'page':15s} {'control':34s} {'p50 ms':>7s} {'p95 ms':>7s} {'max ms':>7s} {'CPU ms':>7s} "
        f"{'p95/target':>10s} {'first run s':>11s}"
    )
    for move, r in results:
        if "error" in r:
            print(f"  {move.page:15s} {move.label:34s} FAILED: {r['error']}")
            continue
        flag = "" if r["p95"] < TARGET_S else "  over"
        print(
            f"  {move.page:15s} {move.label:34s} {r['p50'] * 1000:7.0f} {r['p95'] * 1000:7.0f} "
            f"{r['max'] * 1000:7.0f} {r['cpu'] * 1000:7.0f} {r['p95'] / TARGET_S:9.2f}x {r['first']:11.2f}{flag}"
        )


def main(slugs: list[str] | None = None, quick: bool = False) -> dict[str, dict]:
    """Print the table; return the main row of each page (its first control), by slug. A row whose control is
    gone or whose page fails raises after the table is printed."""
    os.environ.setdefault("EXPLORER_CACHE_DIR", tempfile.mkdtemp(prefix="bench-pages-"))
    streamlit.logger.set_log_level("error")  # AppTest's "no runtime" warnings, once per page
    preload()  # as `python -m ui.launch` does before serving
    known = {p.slug for p in available_pages()}
    rows = [m for m in ROWS if m.page in known and (not slugs or m.page in slugs)]
    moves = 3 if quick else MOVES
    results = [(move, measure(move, moves, quick)) for move in rows]
    _print_table(results, moves)
    main_rows: dict[str, dict] = {}
    for move, r in results:
        main_rows.setdefault(move.page, {**r, "control": move.label})
    failed = [f"{move.page} {move.label}: {r['error']}" for move, r in results if "error" in r]
    if failed:
        raise RuntimeError("bench_pages: " + "; ".join(failed))
    return main_rows


if __name__ == "__main__":
    main(sys.argv[1:])
