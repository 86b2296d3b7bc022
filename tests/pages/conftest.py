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
        closed = [
            key
            for key in (f"share-{f['layout']['meta']['figure_id']}" for f in figures(at))
            if not (key in at.session_state and at.session_state[key])
        ]
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


# --- the Chinese edition: what a page shows in English when it should speak Chinese ------------------------------

_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[A-Za-z]{3,}")
# words a Chinese page keeps as they are: names, units, file formats and the notes' own English terms
KEPT_ENGLISH = {
    "transformer",
    "transformers",
    "kv",
    "flops",
    "flop",
    "token",
    "tokens",
    "gpu",
    "gpus",
    "cpu",
    "cpus",
    "csv",
    "svg",
    "png",
    "html",
    "url",
    "avx",
    "mlp",
    "lstm",
    "rnn",
    "cnn",
    "bert",
    "gpt",
    "relu",
    "adam",
    "softmax",
    "prefix",
    "the",
    "and",
    "nats",
    "bits",
    "log",
    "nordhaus",
    "epoch",
    "moravec",
    "top500",
    "fp32",
    "fp16",
    "bf16",
    "tf32",
    "int8",
    "iframe",
    "seed",
    "seeds",
    "holm",
    "bootstrap",
    "nan",
    "inf",
    "chung",
    "hyung",
    "won",
    "sutton",
    "bitter",
    "lesson",
    "streamlit",
    "plotly",
    "pytorch",
    "torch",
    "json",
    "xlsx",
    "ops",
    "usd",
}


def _texts_of_figure(fig: dict) -> list[str]:
    """A figure's words: title, axis titles, trace names, annotations, hover templates, tick labels given as text."""
    layout, found = fig.get("layout", {}), []
    title = layout.get("title")
    found.append(title.get("text", "") if isinstance(title, dict) else title or "")
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            t = axis.get("title")
            found.append(t.get("text", "") if isinstance(t, dict) else t or "")
            found += [str(x) for x in axis.get("ticktext", [])]
    found += [a.get("text", "") for a in layout.get("annotations", [])]
    for trace in fig.get("data", []):
        found += [str(trace.get("name") or ""), str(trace.get("hovertemplate") or "")]
        text = trace.get("text")
        if isinstance(text, str):
            found.append(text)
    return found


def _texts_of_page(at: AppTest) -> list[str]:
    found = [
        e.value
        for kind in ("markdown", "caption", "info", "warning", "error", "success", "title", "header", "subheader")
        for e in at.get(kind)
        if isinstance(e.value, str)
    ]
    found += [m.label for m in at.metric] + [e.label for e in at.expander] + [t.label for t in at.tabs]
    for kind in (
        "slider",
        "select_slider",
        "selectbox",
        "radio",
        "multiselect",
        "toggle",
        "button",
        "text_input",
        "checkbox",
        "number_input",
    ):
        for w in at.get(kind):
            found.append(getattr(w, "label", "") or "")
            found += [str(o) for o in getattr(w, "options", []) or []]
    found += [h.proto.body for h in at.get("html") if 'class="figure-head"' in h.proto.body]
    for fig in figures(at):
        found += _texts_of_figure(fig)
    return found


def untranslated(at: AppTest) -> list[str]:
    """Texts a Chinese page shows with English words and no Chinese character: what a translation missed
    (code spans, tags, numbers and the kept English terms do not count)."""
    missed = []
    for text in _texts_of_page(at):
        plain = re.sub(r"<[^>]+>|`[^`]*`|\$[^$]*\$|%\{[^}]*\}|https?://\S+", " ", text)
        words = [w for w in _WORD.findall(plain) if w.lower() not in KEPT_ENGLISH]
        if len(words) >= 2 and not _CJK.search(plain):
            missed.append(text.strip()[:120])
    return sorted(set(missed))
