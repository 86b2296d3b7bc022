"""ui.jobs' Train button in a real script run: a run its time limit cuts is said and the rest offered at once."""

import time

from streamlit.testing.v1 import AppTest

from explorer.jobs import QUEUE
from tests.conftest import ROOT

SCRIPT = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
import streamlit as st
from ui import jobs
KEY = "test-cut-run"
if jobs.was_cut(KEY):
    st.warning("cut: the rest is still to train")
result = jobs.run_in_background(KEY, lambda progress: {{"stopped": "time", "models": 1}}, "Training the test run",
                                button="Train the rest")
st.write(f"result: {{result}}")
"""


def test_a_run_cut_by_its_limit_is_said_and_its_button_offered_without_another_touch():
    """It used to end in silence: the run ended, the page took its result and drew no button until the
    student moved something (seen in the classroom load test, where a loaded server cut a depth run)."""
    at = AppTest.from_string(SCRIPT, default_timeout=30).run()
    assert [b.label for b in at.button] == ["Train the rest"] and not at.warning
    at.button[0].click().run()
    QUEUE.wait_idle(30)
    at.run()  # the poll's rerun after the run ended
    assert not at.exception
    assert [w.value for w in at.warning] == ["cut: the rest is still to train"]
    assert [b.label for b in at.button] == ["Train the rest"]
    assert at.markdown[-1].value == "result: None"


LIVE_SCRIPT = f"""
import sys, threading
sys.path.insert(0, {str(ROOT)!r})
import plotly.graph_objects as go
import streamlit as st
from ui import jobs
GATE = st.session_state.setdefault("gate", threading.Event())

def work(progress):
    progress.share({{"steps": [1, 2, 3], "loss": [3.0, 2.0, 1.5]}})
    GATE.wait(20)
    return {{"stopped": "steps"}}

def curve(partial):
    return go.Figure(go.Scatter(x=partial["steps"], y=partial["loss"]), layout={{"title": {{"text": "Loss so far"}}}})

result = jobs.run_in_background("test-live-run", work, "Training the live run", button="Train", live=curve)
st.write(f"result: {{result}}")
"""


def _wait_for_share(key: str, timeout_s: float = 20.0) -> None:
    """The worker thread shares on its own schedule; on a loaded CI machine it may not have started yet."""
    deadline = time.monotonic() + timeout_s
    while (QUEUE.get(key) is None or QUEUE.get(key).partial is None) and time.monotonic() < deadline:
        time.sleep(0.02)


def test_a_run_that_shares_its_curves_is_drawn_under_its_progress_bar_while_it_trains():
    at = AppTest.from_string(LIVE_SCRIPT, default_timeout=30).run()
    at.button[0].click().run()
    _wait_for_share("test-live-run")
    at.run()  # the progress panel's next poll: the run has shared its first curve and is waiting
    charts = at.get("plotly_chart")
    assert len(charts) == 1 and '"y":[3.0,2.0,1.5]' in charts[0].proto.spec.replace(" ", "")
    assert [b.label for b in at.button] == ["Cancel run"]
    at.session_state["gate"].set()
    QUEUE.wait_idle(30)
    at.run()
    assert at.markdown[-1].value == "result: {'stopped': 'steps'}" and not at.get("plotly_chart")
