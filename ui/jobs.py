"""Show an on-demand run from `explorer.jobs` in a page: the button that starts it, its place in the queue,
progress, Cancel, and afterwards what happened (done, cut, cancelled, failed): never nothing.

A run that shares its results so far (`Progress.share`) is drawn while it trains: the page passes `live`, a
figure function of that partial result, and the progress panel redraws it at every poll.

A run is tied to the browser session that asked for it: while the session is connected it counts as a
viewer, and a run whose viewers have all left is cancelled by the queue. A session keeps the results it has
collected, so a run cut by its time limit stays on this student's screen while the queue forgets it and the
next request can train what is missing.
"""

from __future__ import annotations

from typing import Callable

import plotly.graph_objects as go
import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from explorer import i18n
from explorer.jobs import ABANDONED, CANCELLED, DONE, FAILED, QUEUE, QueueFull
from explorer.progress import Progress
from ui.lecture import controls_hidden
from ui.render import live_figure
from ui.text import common

POLL_SECONDS = 0.5
_RESULT, _ENDED, _ASKED, _CANCELLED, _LAST = (
    "_run-result-",
    "_run-ended-",
    "_run-asked-",
    "_run-cancelled-",
    "_run-last-",
)
_LOCAL = "this machine"  # the address of visitors on the server's own machine (no proxy in front)
_LOOPBACK = ("127.0.0.1", "::1")  # a local peer (st.context.ip_address already gives None for these)


def _session() -> tuple[str, Callable[[], bool] | None]:
    """This browser session's id, and a check whether it is still connected (None outside a server)."""
    ctx = get_script_run_ctx()
    session_id = ctx.session_id if ctx is not None else "no-session"
    if not Runtime.exists():
        return session_id, None
    runtime = Runtime.instance()
    return session_id, lambda: runtime.is_active_session(session_id)


def address_from(peer: str | None, forwarded: str | None) -> str:
    """The client-address rule, from the connection's peer and its X-Forwarded-For header: behind the
    deployment's own nginx (a local peer) the last address in X-Forwarded-For, the one nginx itself saw;
    anything a client wrote before it is ignored, and the header is ignored from any other peer."""
    if peer is not None and peer not in _LOOPBACK:
        return peer  # a remote peer: whatever its header says is its own claim
    return (forwarded or "").split(",")[-1].strip() or _LOCAL


def client_address() -> str:
    """Where the visitor of this script run connects from (`address_from`)."""
    return address_from(st.context.ip_address, st.context.headers.get("X-Forwarded-For", ""))


def was_cut(key: str) -> dict | None:
    """This session's last result for `key` if its time limit cut it (`stopped` is not "steps"), forgotten, so
    the run's button trains what is still missing; else None."""
    earlier = st.session_state.get(_LAST + key)
    if earlier is None or _finished_all(earlier):
        return None
    forget(key)
    return earlier


def _finished_all(result: dict) -> bool:
    return result.get("stopped", "steps") == "steps"


def forget(key: str) -> None:
    """Let this session ask for `key` again (a run that failed or was cancelled, or one cut by its limit)."""
    for prefix in (_RESULT, _ASKED, _ENDED, _CANCELLED):
        st.session_state.pop(prefix + key, None)


@st.fragment(run_every=POLL_SECONDS)
def _progress_panel(key: str, live: Callable[[dict], go.Figure] | None = None) -> None:
    job = QUEUE.get(key)
    if job is None or job.finished:
        ctx = get_script_run_ctx()
        if ctx is not None and ctx.fragment_ids_this_run:  # a poll: the page picks up the result on a full rerun
            st.rerun(scope="app")
        return  # it ended during this very run (a cache hit): the next poll reruns the page, keeping this run's notices
    position = QUEUE.position(job)
    text = (
        common("run-progress", label=job.label, message=job.message)
        if position == 0
        else common("run-queued", label=job.label, ahead=position)
    )
    st.progress(job.fraction, text=text)
    if st.button(common("run-cancel"), key=f"cancel-{key}"):
        job.cancel()
        st.session_state[_CANCELLED + key] = True
    partial = job.partial
    if live is not None and partial is not None:
        live_figure(live(partial), key=f"live-{key}")


def _show_ended(key: str, label: str) -> bool:
    """Say how this session's run for `key` ended (cancelled or failed); whether the student starts it again."""
    state, message = st.session_state[_ENDED + key]
    if state == FAILED:
        st.error(common("run-failed", label=label, message=message))
    elif st.session_state.get(_CANCELLED + key):
        st.info(common("run-cancelled", label=label))
    elif message == ABANDONED:
        st.info(common("run-abandoned", label=label))
    else:
        st.info(common("run-cancelled-by-other", label=label))
    if controls_hidden() or not st.button(common("run-again"), key=f"again-{key}"):
        return False
    forget(key)
    return True


def _in_language(work: Callable[[Progress], dict], lang: str) -> Callable[[Progress], dict]:
    """`work` run in `lang`: a run's thread starts in English, and its progress messages should speak the
    language of the student who started it."""

    def run(progress: Progress) -> dict:
        with i18n.using(lang):
            return work(progress)

    return run


def run_in_background(
    key: str,
    work: Callable[[Progress], dict],
    label: str,
    time_limit_s: float = 90.0,
    button: str | None = None,
    live: Callable[[dict], go.Figure] | None = None,
) -> dict | None:
    """The result of the run for `key` once it is done; until then its button, or its progress, and None.

    `button`: the run starts only when a person presses it (every training run asks; a timing run may start
    by itself). A run going on for `key`, or just done, started by anyone, is joined without a press.
    The session keeps the result; a page asks `was_cut(key)` first, to say so and offer the rest. `live` draws
    what the run has shared so far (`Progress.share`) under its progress bar."""
    state = st.session_state
    if _RESULT + key in state:
        return state[_RESULT + key]
    again = _ENDED + key in state and _show_ended(key, label)
    if _ENDED + key in state and not again:
        return None
    session_id, alive = _session()
    job = QUEUE.get(key)
    if job is not None and job.finished and session_id in job.viewers and not again:
        result = _collect(job, session_id, label)  # this session's own run ended since the last rerun
        if result is not None and not _finished_all(result):
            st.rerun()  # cut by its limit: the page's next run says so (`was_cut`) and offers the rest at once
        return result
    joining = job is not None and job.state not in (FAILED, CANCELLED)
    if button and not joining and not again and not state.get(_ASKED + key):
        if controls_hidden() or not st.button(button, key=f"start-{key}", type="primary"):
            return None
    state[_ASKED + key] = True
    try:
        job = QUEUE.submit(
            key,
            _in_language(work, i18n.current()),
            label=label,
            owner=session_id,
            time_limit_s=time_limit_s,
            address=client_address(),
            alive=alive,
        )
    except QueueFull as err:
        state.pop(_ASKED + key, None)  # pressing again later retries
        st.warning(common("run-not-started", label=label, reason=err))
        return None
    if job.finished:
        return _collect(job, session_id, label)
    _progress_panel(key, live)
    return None


def _collect(job, session_id: str, label: str) -> dict | None:
    """Take a finished job's outcome into this session: its result, or how it ended (shown now)."""
    QUEUE.collected(job.key, session_id)
    if job.state == DONE:
        st.session_state[_RESULT + job.key] = st.session_state[_LAST + job.key] = job.result
        return job.result
    st.session_state[_ENDED + job.key] = (job.state, job.error if job.state == FAILED else job.message)
    _show_ended(job.key, label)
    return None
