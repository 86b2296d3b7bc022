"""AppTest helpers: run a page file with URL parameters, read its Plotly figures as JSON."""

from __future__ import annotations

import json
import re

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from explorer.jobs import QUEUE
from tests.conftest import ROOT

TIMEOUT = 120  # seconds per script run: `import torch` alone takes a few


@pytest.fixture(autouse=True)
def _fresh_streamlit_caches():
    """st.cache_* persist across AppTests in one process; each test starts cold."""
    st.cache_data.clear()
    st.cache_resource.clear()
    yield


def run_page(name: str, **query_params: str | list[str]) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=TIMEOUT)
    for key, value in query_params.items():
        at.query_params[key] = value
    return at.run()


def figures(at: AppTest) -> list[dict]:
    """The Plotly figures on the page, as the JSON the browser receives."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def figure_heads(at: AppTest) -> list[str]:
    """The text written above each figure (its title, then its evidence badge), tags removed."""
    heads = [h.proto.body for h in at.get("html") if 'class="figure-head"' in h.proto.body]
    return [" ".join(re.sub(r"<[^>]+>", " ", body).split()) for body in heads]


def evidence_kinds(at: AppTest) -> list[str]:
    return [fig["layout"]["meta"]["evidence"] for fig in figures(at)]


def train_buttons(at: AppTest) -> list:
    """The buttons that start an on-demand run (`ui.jobs`): nothing trains until one is pressed."""
    return [b for b in at.button if (b.key or "").startswith("start-")]


def press_train(at: AppTest) -> AppTest:
    """Press the page's only run button and rerun (the run then goes on in the background)."""
    (button,) = train_buttons(at)
    return button.click().run()


def wait_for_jobs(at: AppTest, timeout: float = 300) -> AppTest:
    """Let background runs finish, then rerun the page so it shows their results."""
    QUEUE.wait_idle(timeout)
    return at.run()


def page_downloads(at: AppTest) -> list[str]:
    """Labels of the page's own download buttons (not the per-figure exports of ui.render)."""
    return [b.proto.label for b in at.get("download_button") if "-download-" not in b.proto.id]


def open_shares(at: AppTest) -> AppTest:
    """Open every figure's "Share / export" popover (built only while open) and rerun, again while a rerun shows
    figures whose popover is still closed (a background timing run that finished in between draws its own)."""
    for _ in range(3):
        closed = [key for key in (f"share-{f['layout']['meta']['figure_id']}" for f in figures(at))
                  if not (key in at.session_state and at.session_state[key])]
        if not closed:
            break
        for key in closed:
            at.session_state[key] = True
        at.run()
    return at


def figure_downloads(at: AppTest) -> list[str]:
    """Ids of the per-figure export buttons, e.g. 'download-svg-<figure id>'."""
    return [b.proto.id.split("-download-", 1)[1] for b in at.get("download_button") if "-download-" in b.proto.id]


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
