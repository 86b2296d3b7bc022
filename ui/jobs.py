"""Show an on-demand run from `explorer.jobs` in a page: queue position, progress bar, Cancel."""

from __future__ import annotations

import uuid
from typing import Callable

import streamlit as st

from explorer.jobs import CANCELLED, DONE, FAILED, QUEUE
from explorer.progress import Progress

POLL_SECONDS = 0.5


def _owner() -> str:
    if "_job_owner" not in st.session_state:
        st.session_state["_job_owner"] = uuid.uuid4().hex
    return st.session_state["_job_owner"]


@st.fragment(run_every=POLL_SECONDS)
def _progress_panel(key: str) -> None:
    job = QUEUE.get(key)
    if job is None or job.finished:
        st.rerun(scope="app")  # the page picks up the result (or the failure) on a full rerun
        return
    position = QUEUE.position(job)
    text = f"{job.label}: {job.message}" if position == 0 else f"{job.label}: queued, {position} ahead"
    st.progress(job.fraction, text=text)
    if st.button("Cancel run", key=f"cancel-{key}"):
        job.cancel()
        st.session_state[f"_cancelled-{key}"] = True


def run_in_background(key: str, work: Callable[[Progress], dict], label: str,
                      time_limit_s: float = 90.0) -> dict | None:
    """Start or find the run for `key`; return its result once done, else draw its progress and return None."""
    cancelled_flag = f"_cancelled-{key}"
    job = QUEUE.get(key)
    if st.session_state.get(cancelled_flag) and (job is None or job.finished):
        st.info(f"{label}: cancelled.")
        if st.button("Start it again", key=f"restart-{key}"):
            st.session_state[cancelled_flag] = False
            st.rerun()
        return None
    try:
        job = QUEUE.submit(key, work, label=label, owner=_owner(), time_limit_s=time_limit_s)
    except RuntimeError as err:  # per-session limit
        st.warning(str(err))
        return None
    if job.state == DONE:
        return job.result
    if job.state == FAILED:
        st.error(f"{label} failed: {job.error}")
        return None
    if job.state == CANCELLED:
        st.info(f"{label}: cancelled by another session viewing the same settings.")
        return None
    _progress_panel(key)
    return None
