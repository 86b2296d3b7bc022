"""Load test: many real Streamlit sessions, over websockets, against N replicas behind nginx.

Each simulated student opens a page the way a browser does (GET, then the app's websocket with the
cookies it was given), waits for the script to finish ("page ready"), moves the page's first slider
and waits again ("rerun"). Sessions spread over every page and run `--concurrency` at a time; each
session's messages are the app's own protobufs, so the server does exactly the work a browser causes,
without a browser's own CPU cost on this small machine.

    python -m bench.loadtest --replicas 1 2 --sessions 100 --concurrency 20
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from bench.memory import PeakMemory
from bench.stats import percentiles
from deploy import serve
from explorer.lecture_map import available_pages

RUN_TIMEOUT_S = 120.0
FINISHED = (
    ForwardMsg.FINISHED_SUCCESSFULLY,
    ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
    ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
)


@dataclass
class RunResult:
    seconds: float
    charts: int = 0
    exceptions: list[str] = field(default_factory=list)
    sliders: list = field(default_factory=list)  # Slider protos, in page order
    elements: list = field(default_factory=list)  # every new element's proto, in the order it came
    query: str | None = None  # the page's new query string, when the script changed it
    auto_reruns: dict[str, float] = field(default_factory=dict)  # fragment id -> seconds: what a browser polls


class Session:
    """One browser-like session: the page's cookies, then the app's websocket."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.ws = None

    def _cookies(self, path: str) -> str:
        jar = CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        opener.open(f"{self.base_url}/{path}", timeout=30).read()
        return "; ".join(f"{c.name}={c.value}" for c in jar)

    async def open(self, path: str) -> None:
        cookie = await asyncio.to_thread(self._cookies, path)
        url = self.base_url.replace("http", "ws", 1) + "/_stcore/stream"
        self.ws = await websockets.connect(
            url,
            subprotocols=["streamlit"],
            max_size=None,
            open_timeout=60,
            additional_headers={"Cookie": cookie, "Origin": self.base_url},
        )

    async def run(self, page: str, query: str = "", widgets: list[WidgetState] = (), fragment: str = "") -> RunResult:
        """Ask for a script run (as a page load or a widget change does; of one fragment when `fragment` is its
        id, as a browser's `run_every` poll does) and read until it finishes."""
        msg = BackMsg()
        msg.rerun_script.query_string = query
        msg.rerun_script.page_name = page
        msg.rerun_script.widget_states.widgets.extend(widgets)
        if fragment:
            msg.rerun_script.fragment_id = fragment
            msg.rerun_script.is_auto_rerun = True
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        result = RunResult(0.0)
        while True:
            fm = ForwardMsg.FromString(await asyncio.wait_for(self.ws.recv(), RUN_TIMEOUT_S))
            kind = fm.WhichOneof("type")
            if kind == "page_info_changed":
                result.query = fm.page_info_changed.query_string
            elif kind == "auto_rerun":
                result.auto_reruns[fm.auto_rerun.fragment_id] = fm.auto_rerun.interval
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                element = fm.delta.new_element
                result.elements.append(element)
                name = element.WhichOneof("type")
                if name == "plotly_chart":
                    result.charts += 1
                elif name == "exception":
                    result.exceptions.append(element.exception.message)
                elif name == "slider":
                    result.sliders.append(element.slider)
            elif kind == "script_finished" and fm.script_finished in FINISHED:
                result.seconds = time.perf_counter() - start
                return result

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


def slider_move(slider) -> WidgetState:
    """A new value for a slider: one step from its current value, inside its range."""
    state = WidgetState(id=slider.id)
    current = (slider.value or slider.default or [slider.min])[0]
    if slider.options:  # a select_slider: the browser sends the option's label
        index = int(current)
        state.string_array_value.data.append(slider.options[index - 1 if index > 0 else 1])
    else:
        step = slider.step or 1
        state.double_array_value.data.append(current + step if current + step <= slider.max else current - step)
    return state


async def one_student(base_url: str, slug: str) -> dict:
    page = "" if slug == "home" else slug
    session = Session(base_url)
    try:
        await session.open(page)
        ready = await session.run(page)
        row = {"page": slug, "ready_s": ready.seconds, "charts": ready.charts, "errors": list(ready.exceptions)}
        if ready.sliders:
            moved = await session.run(page, widgets=[slider_move(ready.sliders[0])])
            row["rerun_s"] = moved.seconds
            row["errors"] += moved.exceptions
        if not ready.charts:
            row["errors"].append("no chart rendered")
        return row
    except Exception as err:  # a refused or timed-out session is a result of the test, not a crash of it
        return {"page": slug, "errors": [f"{type(err).__name__}: {err}"]}
    finally:
        await session.close()


def figure_pages() -> list[str]:
    """The pages a crowd visits: those that open on a figure (class mode has its own load test)."""
    return [p.slug for p in available_pages() if p.slide_figure]


async def crowd(base_url: str, sessions: int, concurrency: int) -> list[dict]:
    slugs = figure_pages()
    gate = asyncio.Semaphore(concurrency)

    async def limited(i: int) -> dict:
        async with gate:
            return await one_student(base_url, slugs[i % len(slugs)])

    return await asyncio.gather(*(limited(i) for i in range(sessions)))


def run_async(coroutine):
    """Run `coroutine` on its own event loop in its own thread, so it also runs where a loop is already running
    (beside Playwright's sync API in the browser tests, or in a notebook)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def run_crowd(base_url: str, sessions: int, concurrency: int) -> list[dict]:
    return run_async(crowd(base_url, sessions, concurrency))


def summarize(rows: list[dict], wall_s: float) -> dict:
    ready = percentiles([r["ready_s"] for r in rows if "ready_s" in r], 50, 95)
    rerun = percentiles([r["rerun_s"] for r in rows if "rerun_s" in r], 50, 95)
    return {
        "sessions": len(rows),
        "errors": sum(len(r["errors"]) for r in rows),
        "wall_s": wall_s,
        "ready_p50_s": ready[0],
        "ready_p95_s": ready[1],
        "rerun_p50_s": rerun[0],
        "rerun_p95_s": rerun[1],
        "error_samples": [e for r in rows for e in r["errors"]][:5],
    }


def load_test(replicas: int, sessions: int, concurrency: int, cache_dir: Path) -> dict:
    """Start `replicas` behind nginx, warm every page once, then run the crowd; always stop the deployment."""
    with tempfile.TemporaryDirectory(prefix="loadtest-") as tmp:
        state = serve.start(replicas, serve._free_port(), Path(tmp), cache_dir)
        try:
            slugs = figure_pages()
            run_crowd(state["url"], len(slugs) * replicas, len(slugs))  # warm-up, not counted
            with contextlib.ExitStack() as watching:
                memory = [watching.enter_context(PeakMemory(pid)) for pid in state["replica_pids"]]
                start = time.perf_counter()
                rows = run_crowd(state["url"], sessions, concurrency)
                wall = time.perf_counter() - start
            return {
                "replicas": replicas,
                **summarize(rows, wall),
                "peak_rss_mb": max(m.peak_kb for m in memory) / 1024,
                "peak_extra_mb": max(m.extra_mb for m in memory),
            }
        finally:
            serve.stop(Path(tmp))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.loadtest", description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--cache-dir", type=Path, default=None, help="result cache (default: a fresh one)")
    args = parser.parse_args(argv)
    print(f"{args.sessions} sessions over {len(figure_pages())} pages, {args.concurrency} at a time")
    print(
        f"{'replicas':>8} {'errors':>6} {'ready p50':>9} {'ready p95':>9} {'rerun p50':>9} {'rerun p95':>9} {'wall':>7}"
        f" {'peak RSS':>9} {'(rise)':>8}"
    )
    with tempfile.TemporaryDirectory(prefix="loadtest-cache-") as cache:
        for n in args.replicas:
            r = load_test(n, args.sessions, args.concurrency, args.cache_dir or Path(cache))
            print(
                f"{n:>8} {r['errors']:>6} {r['ready_p50_s']:>8.2f}s {r['ready_p95_s']:>8.2f}s "
                f"{r['rerun_p50_s']:>8.2f}s {r['rerun_p95_s']:>8.2f}s {r['wall_s']:>6.1f}s"
                f" {r['peak_rss_mb']:>6.0f} MB {r['peak_extra_mb']:>+5.0f} MB"
            )
            for sample in r["error_samples"]:
                print(f"         error: {sample}")


if __name__ == "__main__":
    main()
