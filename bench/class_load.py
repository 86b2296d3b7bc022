"""Class-mode load test: a lecturer and a class of students in real Streamlit sessions, across replicas.

Every simulated device speaks the app's own websocket protocol (`bench.loadtest.Session`) through nginx, as a
browser does: it opens the class link, keeps polling its `run_every` fragment at the interval the page asks
for, picks a choice and presses "Send my answer". The lecturer's session polls its live figure the same way.
Each device joins as a phone does, through the join link (`GET class/join`, which sets its device cookie), and
the lecturer's session carries the lecturer's cookie. Mid-class one replica is killed (SIGKILL); its devices
reconnect, as Streamlit's frontend does, with the cookies they hold, and any answer not yet acknowledged is
sent again. All devices come from one address here, so the replicas run with a join limit above the class size
(`EXPLORER_CLASS_JOINS_PER_MINUTE`, as docs/class-mode.md says a lecture hall behind one NAT address needs).

Reported: answers acknowledged and answers in the database (counted there), p50/p95 seconds from an
acknowledged answer to the lecturer's view counting it, errors, reconnects.

    python -m bench.class_load --students 200 --replicas 2 --db postgres
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
import urllib.request
from http.cookiejar import CookieJar

import sqlalchemy as sa
from streamlit.proto.WidgetStates_pb2 import WidgetState

from bench.loadtest import RunResult, Session, run_async
from bench.stats import percentiles
from deploy import serve
from explorer import classroom
from explorer.store import db
from explorer.store.schema import ANSWERS

PAGE = "class"
RECEIVED = "Answer received"  # the start of the student's acknowledgement (content/en/class.md `received`)
CHOICES = ["flops", "memory", "both"]


@dataclass
class Class:
    """What the devices share: the class's address, the clock of the test and what each device saw."""

    url: str
    code: str
    host: str
    answer_window_s: float
    started: float = field(default_factory=time.monotonic)
    acks: dict[int, float] = field(default_factory=dict)  # student -> when the answer was acknowledged
    tokens: dict[int, str] = field(default_factory=dict)  # student -> its device token (its cookie)
    seen: list[tuple[float, int]] = field(default_factory=list)  # lecturer: (when, answers counted)
    errors: list[str] = field(default_factory=list)
    runs: dict[str, list[float]] = field(default_factory=lambda: {"student": [], "lecturer": []})  # round trips
    reconnects: int = 0
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def now(self) -> float:
        return time.monotonic() - self.started


class CookieSession(Session):
    """A session whose browser already holds `held` cookies (the class's), and which enters through `entry`
    (the join link) the first time: the cookies that sets are held from then on."""

    def __init__(self, base_url: str, held: dict[str, str], entry: str) -> None:
        super().__init__(base_url)
        self.held, self.entry = held, entry

    def _cookies(self, path: str) -> str:
        jar = CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        request = urllib.request.Request(f"{self.base_url}/{self.entry or path}")
        if self.held:
            request.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in self.held.items()))
        opener.open(request, timeout=30).read()
        self.held.update({c.name: c.value for c in jar if c.name != "explorer_route"})  # nginx picks anew
        self.entry = ""
        return "; ".join(f"{k}={v}" for k, v in {**self.held, **{c.name: c.value for c in jar}}.items())


class Device:
    """One browser tab on the class page: reconnects with its cookies when its replica goes away."""

    def __init__(
        self, room: Class, query: str, role: str, cookies: dict[str, str] | None = None, entry: str = ""
    ) -> None:
        self.room, self.query, self.role, self.session = room, query, role, None
        self.cookies, self.entry = dict(cookies or {}), entry
        self.fragments: dict[str, float] = {}

    async def run(self, widgets: list[WidgetState] = (), fragment: str = "") -> RunResult:
        for attempt in range(6):
            try:
                if self.session is None:
                    self.session = CookieSession(self.room.url, self.cookies, self.entry)
                    await self.session.open(PAGE)
                    fragment, widgets = "", []  # a new session: the whole page runs first
                self.entry = self.session.entry  # joined once: a reconnect keeps the device's cookie
                result = await self.session.run(PAGE, self.query, widgets, fragment)
                self.room.runs[self.role].append(result.seconds)
                self.query = result.query if result.query is not None else self.query
                self.fragments.update(result.auto_reruns)
                return result
            except Exception:  # the replica went away: as the frontend does, connect again (nginx picks another)
                if self.session is not None:
                    await _quietly(self.session.close())
                self.session = None
                self.room.reconnects += 1
                await asyncio.sleep(0.5 * (attempt + 1))
        raise ConnectionError(f"no replica answered after 6 attempts: {self.query}")

    async def poll(self) -> RunResult:
        """What the page's `run_every` fragment does between a student's actions."""
        fragment, interval = next(iter(self.fragments.items()), ("", 2.0))
        await asyncio.sleep(interval)
        return await self.run(fragment=fragment)

    async def close(self) -> None:
        if self.session is not None:
            await _quietly(self.session.close())


async def _quietly(awaitable) -> None:
    try:
        await awaitable
    except Exception:  # closing a socket whose server died
        pass


def _texts(result: RunResult) -> list[str]:
    return [e.alert.body for e in result.elements if e.WhichOneof("type") == "alert"]


def _exceptions(result: RunResult) -> list[str]:
    return [e.exception.message for e in result.elements if e.WhichOneof("type") == "exception"]


def _form(result: RunResult) -> tuple | None:
    """(the radio, the submit button) when this run drew the answer form."""
    radios = [e.radio for e in result.elements if e.WhichOneof("type") == "radio"]
    buttons = [e.button for e in result.elements if e.WhichOneof("type") == "button" and e.button.is_form_submitter]
    return (radios[0], buttons[0]) if radios and buttons else None


def _received(result: RunResult) -> bool:
    return any(text.startswith(RECEIVED) for text in _texts(result))


async def student(room: Class, number: int) -> None:
    device = Device(room, f"class={room.code}&lang=en", "student", entry=f"class/join?class={room.code}&lang=en")
    rng = random.Random(number)
    try:
        result = await device.run()
        form = _form(result)
        answer_at = rng.uniform(1.0, room.answer_window_s)
        while room.now() < answer_at:  # the page's poll: a run that draws nothing until the lecturer acts
            form = _form(await device.poll()) or form
        while number not in room.acks:
            if form is None:
                room.errors.append(f"student {number}: no answer form ({_texts(result) or _exceptions(result)})")
                return
            radio, submit = form
            pick = WidgetState(id=radio.id, string_value=rng.choice(list(radio.options)))
            result = await device.run([pick, WidgetState(id=submit.id, trigger_value=True)])
            if _received(result):  # acknowledged, or (after a reconnect) found already stored
                _acknowledge(room, number, device)
            elif _exceptions(result):
                room.errors.append(f"student {number}: {_exceptions(result)[0]}")
                return
            else:  # a reconnect in between: the new session drew the form again
                form = _form(result)
        while not room.done.is_set():  # an open tab keeps polling until the class ends
            await device.poll()
    except Exception as err:  # reported, so the run shows every failure rather than stopping at the first
        room.errors.append(f"student {number}: {type(err).__name__}: {err}")
    finally:
        await device.close()


def _acknowledge(room: Class, number: int, device: Device) -> None:
    room.acks[number] = room.now()
    room.tokens[number] = device.cookies.get(f"explorer_device_{room.code}", "")


def _counted(result: RunResult) -> int | None:
    for element in result.elements:
        if element.WhichOneof("type") == "plotly_chart":
            spec = json.loads(element.plotly_chart.spec)
            return int(sum(spec["data"][0]["x"]))
    return None


async def lecturer(room: Class) -> None:
    device = Device(room, f"class={room.code}&lang=en", "lecturer", cookies={f"explorer_host_{room.code}": room.host})
    try:
        await device.run()
        while not room.done.is_set():
            counted = _counted(await device.poll())
            if counted is not None:
                room.seen.append((room.now(), counted))
    except Exception as err:
        room.errors.append(f"lecturer: {type(err).__name__}: {err}")
    finally:
        await device.close()


def latencies(acks: list[float], seen: list[tuple[float, int]]) -> list[float]:
    """Seconds from each acknowledged answer (in order) until the lecturer's view first counted that many."""
    out = []
    for k, acked in enumerate(sorted(acks), start=1):
        shown = next((when for when, counted in seen if counted >= k and when >= acked), None)
        if shown is not None:
            out.append(shown - acked)
    return out


async def _kill_when_half_answered(room: Class, students: int, pid: int, killed: dict) -> None:
    while len(room.acks) < students // 2 and not room.done.is_set():
        await asyncio.sleep(0.2)
    os.killpg(pid, signal.SIGKILL)
    killed.update(at_s=room.now(), answers_before=len(room.acks))


async def class_session(room: Class, students: int, kill_pid: int | None, ramp_s: float) -> dict:
    killed: dict = {}
    watcher = asyncio.create_task(lecturer(room))
    killer = asyncio.create_task(_kill_when_half_answered(room, students, kill_pid, killed)) if kill_pid else None
    tasks = []
    for i in range(students):  # devices arrive over `ramp_s` seconds, as a class opens the link
        tasks.append(asyncio.create_task(student(room, i)))
        await asyncio.sleep(ramp_s / students)
    deadline = time.monotonic() + room.answer_window_s + 60
    while len(room.acks) + len(room.errors) < students and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    await asyncio.sleep(3)  # the lecturer's view catches up with the last answers
    room.done.set()
    if killer:
        killer.cancel()
    await asyncio.gather(watcher, *tasks, return_exceptions=True)
    return killed


@contextlib.contextmanager
def _database(url: str):
    """The store of the deployment under test, for this process, for as long as the block runs."""
    before = os.environ.get("EXPLORER_DB_URL")
    os.environ["EXPLORER_DB_URL"] = url
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("EXPLORER_DB_URL", None)
        else:
            os.environ["EXPLORER_DB_URL"] = before


def secrets_in_logs(logs: Path, secrets_: list[str]) -> int:
    """How many of `secrets_` (the lecturer's token, the devices') appear in any log under `logs` (nginx's error
    log with a replica down included): none may."""
    text = "".join(p.read_text(errors="replace") for p in logs.rglob("*") if p.is_file())
    return sum(1 for secret in secrets_ if secret and secret in text)


def run_class(
    url: str,
    db_url: str,
    students: int,
    answer_window_s: float,
    kill_pid: int | None = None,
    ramp_s: float = 15.0,
    logs: Path | None = None,
) -> dict:
    """One class against a running deployment; the class is made in its database, as the lecturer's Start does.
    With `logs` (the deployment's log folder), also counts the class's secrets found in its logs."""
    with _database(db_url):
        room_row, token = classroom.start()
        question = classroom.ask_own(room_row, "Re-encoding a chat: what grows with (n+m)^2?", CHOICES, poll=True)
        room = Class(url, room_row.code, token, answer_window_s)
        cpu_before = time.process_time()
        killed = run_async(class_session(room, students, kill_pid, ramp_s))
        generator_cpu = time.process_time() - cpu_before
        with db.reads() as conn:
            stored = set(
                conn.execute(sa.select(ANSWERS.c.student).where(ANSWERS.c.question_id == question.id)).scalars()
            )
    ready = latencies(list(room.acks.values()), room.seen)
    p50, p95 = percentiles(ready, 50, 95) if ready else (float("nan"), float("nan"))
    last = max(room.acks.values(), default=0.0)
    runs = {
        f"{role}_run_p{q}_s": value
        for role, times in room.runs.items()
        for q, value in zip((50, 95), percentiles(times, 50, 95) if times else (float("nan"),) * 2)
    }
    return {
        "students": students,
        "acknowledged": len(room.acks),
        "stored": len(stored),
        "acknowledged_but_lost": len(set(room.tokens.values()) - stored),
        "answers_within_s": last,
        "view_p50_s": p50,
        "view_p95_s": p95,
        "errors": len(room.errors),
        "error_samples": room.errors[:5],
        "reconnects": room.reconnects,
        "killed": killed,
        "runs": len(room.runs["student"]) + len(room.runs["lecturer"]),
        **runs,
        "wall_s": room.now(),
        "generator_cpu_s": generator_cpu,
        "secrets_in_logs": secrets_in_logs(logs, [room.host, *room.tokens.values()]) if logs else None,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.class_load", description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--db", default="postgres", help="sqlite, postgres (a private local one) or a URL")
    parser.add_argument("--window", type=float, default=40.0, help="students answer within this many seconds")
    parser.add_argument("--no-kill", action="store_true", help="keep every replica up")
    args = parser.parse_args(argv)
    os.environ.setdefault("EXPLORER_CLASS_JOINS_PER_MINUTE", str(max(60, 2 * args.students)))  # one address here
    with tempfile.TemporaryDirectory(prefix="class-load-") as tmp:
        state = serve.start(args.replicas, serve._free_port(), Path(tmp), Path(tmp) / "cache", db=args.db)
        try:
            db_url = state["db_url"] or f"sqlite:///{Path(tmp) / 'cache' / 'explorer.sqlite3'}"
            victim = None if args.no_kill else state["replica_pids"][-1]
            result = run_class(state["url"], db_url, args.students, args.window, victim, logs=Path(tmp) / "logs")
        finally:
            serve.stop(Path(tmp), keep_database=False)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
