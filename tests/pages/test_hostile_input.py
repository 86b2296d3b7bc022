"""Hostile input on every page (issue 13): every URL-bound control and every lecture-mode parameter gets every
class of bad value, and each page answers with a notice or a clamped value, never a traceback.

The controls are not listed by hand: each page's default view (plus the views in VIEWS, which draw controls
the default hides) is run once, and its sliders, select sliders, choices, toggles, multiselects and text inputs
are read off by key, with their ranges and options. Every run then sets every key to one hostile value at once
(each key is read on its own, so one run checks them all; a value too long for Streamlit's query-string limit
is spread over several runs). Caches are cleared once for the module, not before every test, so most runs are
warm.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass

import plotly.graph_objects as go
import pytest
import streamlit as st
from streamlit.runtime.state.query_params import CLIENT_STATE_QUERY_STRING_MAX_LENGTH

from explorer import export
from explorer.content import ContentError
from explorer.jobs import QUEUE
from explorer.lecture_map import PAGES
from tests.pages.conftest import figures, run_page
from tests.pages.test_lecture_mode import EMBED_FIGURES
from ui.lecture import HEIGHT_RANGE

FILES = {p.slug: p.file.removeprefix("pages/") for p in PAGES if p.exists and p.slide_figure}
# Views that draw controls the default view hides, or read a text input the default view ignores; their own keys
# stay as given while those controls and every text input turn hostile.
VIEWS = {"lengths": ({"profile": "typed pairs"},), "audit": ({"xsrc": "my own numbers"},)}
EXTRA_KEYS = {"audit": ("wb",), "path": ("p1", "p5", "p10")}  # URL parameters a page reads that are not widgets
ALL = {"sections": "all"}  # every tab of a page open, so every control of every section is fed
KINDS = ("slider", "select_slider", "selectbox", "radio", "segmented_control", "toggle", "multiselect", "text_input")
LECTURE = ("height", "presentation", "controls", "embed", "embed_options", "section", "lang")

HOSTILE = {
    "empty": "",
    "1 character, not a number": "a",
    "10,000 characters": "y" * 10_000,
    "100 kB": "x" * 100_000,
    "huge 1e300": "1e300",
    "5000 digits": "9" * 5000,
    "NaN": "nan",
    "-inf": "-inf",  # "inf": the 5000 digits read as one
    "negative": "-7",
    "superscript digit": "²",
    "padded number": " 5 ",
    "too big for int64": "99999999999999999999:1",
    "emoji, RTL override, zero-width": "🧪👩‍🔬\u202eabc\u200b\u200d\ufeff",
    "control characters": "a\x00b\x1b[31mc\x07\r\n",
    "HTML and markdown": "<script>alert(1)</script><img src=x onerror=alert(1)> **bold** [x](javascript:alert(1)) "
    "`tick` ]{x} :red[hi] $x$",
}
# what must never reach a rendered text element as live markup (outside a code span, unescaped)
MARKUP = ("<script", "<img", "javascript:", "**bold**", ":red[hi]", "\x00", "\x1b")
# the lecture-mode parameters are compared as text, except the height, which is parsed as a number
LECTURE_CLASSES = ("empty", "5000 digits", "negative", "superscript digit", "HTML and markdown")
HIDDEN_CLASSES = ("huge 1e300", "NaN", "too big for int64", "10,000 characters", "HTML and markdown")


@pytest.fixture(scope="module", autouse=True)
def _caches_cleared_once():
    st.cache_data.clear()
    st.cache_resource.clear()
    yield


@pytest.fixture(autouse=True)
def _fresh_streamlit_caches():
    """Replaces tests/pages/conftest.py's clearing before every test: these tests are about input, not cold starts,
    and several hundred runs stay fast only if each page's models and figures are built once for the module.

    A hostile value can land on settings that fit a page's time limit, and such a run starts at once (the
    inductive-bias and depth pages train, the cache page times): each test cancels what it started."""
    yield
    QUEUE.cancel_all()
    QUEUE.wait_idle(60)


@dataclass(frozen=True)
class Control:
    kind: str
    key: str
    lo: float | None = None
    hi: float | None = None
    options: tuple[str, ...] = ()
    max_chars: int = 0


def _controls(at) -> dict[str, Control]:
    """The URL-bound widgets drawn (a widget not bound to the URL, such as a prediction, is not a control)."""
    found = {}
    for kind in KINDS:
        for w in at.get(kind):
            if not w.proto.query_param_key:
                continue
            if kind == "slider":
                found[w.key] = Control(kind, w.key, float(w.min), float(w.max))
            elif kind == "text_input":
                found[w.key] = Control(kind, w.key, max_chars=w.max_chars)
            else:
                found[w.key] = Control(kind, w.key, options=tuple(getattr(w, "options", ())))
    return found


def _views() -> list[tuple[str, dict]]:
    return [(slug, view) for slug in sorted(FILES) for view in ({}, *VIEWS.get(slug, ()))]


def _view_id(case) -> str:
    slug, view = case
    return slug + "".join(f"-{v}" for v in view.values()).replace(" ", "_")


def _chunks(keys: list[str], value: str) -> list[list[str]]:
    """Keys grouped so that each run's query string stays within Streamlit's limit (it drops longer ones)."""
    per_run = max(1, (CLIENT_STATE_QUERY_STRING_MAX_LENGTH - 1000) // (len(value) + 40))
    return [keys[i : i + per_run] for i in range(0, len(keys), per_run)] or [[]]


def _expects_notice(c: Control, raw: str) -> bool:
    """Whether the raw URL value cannot be used as it is (so the page must say what it did instead)."""
    if c.kind == "slider":
        try:
            x = float(raw)
        except ValueError:
            return True
        return not (c.lo <= x <= c.hi)  # NaN compares false: a notice too
    if c.kind == "text_input":
        return len(raw) > c.max_chars
    if c.kind == "toggle":
        return raw.lower() not in ("true", "1", "yes", "on", "false", "0", "no", "off")
    if c.kind == "multiselect" and raw == "":
        return False  # `?key=` is Streamlit's link to an emptied multiselect: a choice, not a bad value
    return raw not in c.options


def _shown(value) -> set[str]:
    return {str(value), f"{value:,}", f"{value:g}"} if isinstance(value, (int, float)) else {str(value)}


def _label_of(widget, value) -> set[str]:
    """The label a widget shows for `value` (its option's text in the page's language). A format_func that reads
    the page's own text works only inside a page run; outside one the raw value is all there is to compare."""
    try:
        return {widget.format_func(value)} if getattr(widget, "format_func", None) else set()
    except ContentError:
        return set()


def _check_values(at, what: str) -> dict[str, Control]:
    """Every URL-bound widget drawn holds a value inside its range or options; returns the controls drawn."""
    drawn = _controls(at)
    for kind in KINDS:
        for w in at.get(kind):
            if w.key not in drawn:
                continue
            c, v = drawn[w.key], w.value
            if kind == "slider":  # its range now: it may follow another control (the cache page's layer)
                assert c.lo <= v <= c.hi and not (isinstance(v, float) and math.isnan(v)), (what, w.key, v)
            elif kind == "multiselect":
                assert all((_shown(x) | _label_of(w, x)) & set(c.options) for x in v), (what, w.key, v)
            elif kind == "toggle":
                assert isinstance(v, bool), (what, w.key, v)
            elif kind == "text_input":
                assert v is not None and len(v) <= c.max_chars, (what, w.key, len(v or ""))
            else:  # an empty `?key=` included: the control shows the default the notice names, not nothing picked
                labels = _shown(v) | _label_of(w, v)
                assert labels & set(c.options), (what, w.key, v, c.options)
    return drawn


def _texts(at) -> list[str]:
    return [e.value for kind in ("markdown", "caption", "info", "warning", "success", "error") for e in at.get(kind)]


def _live(md: str) -> str:
    """Markdown with its code spans and backslash-escaped characters taken out: what could still be markup."""
    return re.sub(r"\\.", "", re.sub(r"`[^`\n]*`", "", md))


def _label_closes_at_end(md: str) -> bool:
    """A `:orange[...]` notice keeps all of its text inside the label. Streamlit's directive parser counts every
    bracket, code spans included, so one in an echoed value would end the label early and free the rest."""
    depth = 0
    for i in range(md.index("["), len(md)):
        depth += {"[": 1, "]": -1}.get(md[i], 0)
        if depth == 0:
            return i == len(md) - 1
    return False


def _check_echo(at, what: str) -> None:
    """Text from the URL is echoed only where it cannot render as markup, a link or a control character."""
    for text in _texts(at):
        assert not [m for m in MARKUP if m in _live(text)], (what, text[:300])
        if re.match(r":\w+\[", text):
            assert _label_closes_at_end(text), (what, text[:300])


def _run(slug: str, query: dict, what: str):
    at = run_page(FILES[slug], **{**ALL, **query})
    assert not at.exception, (what, [e.value for e in at.exception])
    assert not at.error, (what, [e.value for e in at.error])
    _check_echo(at, what)
    return at


def _hostile_runs(slug: str, view: dict, keys: list[str]) -> None:
    for name, raw in HOSTILE.items():
        for chunk in _chunks([*keys, "zzz"], raw):  # zzz: a parameter no page knows
            what = f"{slug} {view} {name}"
            at = _run(slug, {**view, **{k: raw for k in chunk}}, what)
            drawn = _check_values(at, what)
            notices = " ".join(c.value for c in at.caption)
            for key in chunk:
                if key in drawn and _expects_notice(drawn[key], raw):
                    assert f"URL parameter `{key}`" in notices, (what, key, notices[:500])


def _clamping_runs(slug: str, controls: dict[str, Control]) -> None:
    """Numbers just outside each slider's range land on its end; repeated parameters resolve to one valid value."""
    sliders = {k: c for k, c in controls.items() if c.kind == "slider"}
    for side, raw_of in (
        ("above", lambda c: c.hi + max(1.0, c.hi - c.lo)),
        ("below", lambda c: c.lo - max(1.0, c.hi - c.lo)),
    ):
        raws = {k: raw_of(c) for k, c in sliders.items()}
        at = _run(slug, {k: f"{x:g}" for k, x in raws.items()}, f"{slug} {side}")
        for w in at.slider:
            if w.key in raws:  # clamped into the range the slider has now
                assert w.value == min(max(raws[w.key], w.min), w.max), (side, w.key, w.value)
    repeated = {
        k: [f"{c.lo:g}", f"{c.hi:g}"]
        if c.kind == "slider"
        else ["true", "false"]
        if c.kind == "toggle"
        else ["first", "last"]
        if c.kind == "text_input"
        else list(c.options[:1] + c.options[-1:])
        for k, c in controls.items()
    }
    _check_values(_run(slug, {**repeated, "zzz": ["1", "2"]}, f"{slug} repeated"), f"{slug} repeated")


@pytest.mark.parametrize("case", _views(), ids=_view_id)
def test_every_control_gets_every_hostile_class_without_a_traceback(case):
    slug, view = case
    controls = {k: c for k, c in _controls(_run(slug, view, f"{slug} {view} default")).items() if k not in view}
    if view:  # the controls this view draws or reads differently: the rest had their turn in the default view
        default = _controls(run_page(FILES[slug], **ALL))
        controls = {k: c for k, c in controls.items() if k not in default or c.kind == "text_input"}
        _hostile_runs(slug, view, list(controls))
    else:
        _hostile_runs(slug, view, [*controls, *EXTRA_KEYS.get(slug, ())])
        _clamping_runs(slug, controls)


@pytest.mark.parametrize("slug", sorted(FILES))
def test_lecture_mode_and_hidden_controls_take_hostile_values_without_a_traceback(slug):
    """The lecture-mode parameters (a real figure id, every other one hostile), an unknown figure id, and
    hostile control values with controls=hidden, where no widget is drawn to clamp anything."""
    figure_id = EMBED_FIGURES[slug]
    for name in LECTURE_CLASSES:
        raw = HOSTILE[name]
        at = _run(slug, {"figure": figure_id, **{k: raw for k in LECTURE}}, f"{slug} lecture {name}")
        shown = figures(at)
        assert [f["layout"]["meta"]["figure_id"] for f in shown] == [figure_id], name
        height = shown[0]["layout"].get("height")
        assert height is None or HEIGHT_RANGE[0] <= height <= HEIGHT_RANGE[1], (name, height)
        if name == "HTML and markdown":
            assert not figures(_run(slug, {"figure": raw + "\x00\u202e"}, f"{slug} figure={name}"))
    keys = [*_controls(run_page(FILES[slug], **ALL)), *EXTRA_KEYS.get(slug, ())]
    for name in HIDDEN_CLASSES:
        _run(slug, {"controls": "hidden", **{k: HOSTILE[name] for k in keys}}, f"{slug} hidden {name}")


def _formula_cells(fig: dict) -> list[str]:
    """Data cells of a figure's CSV export that a spreadsheet would run (the `#` provenance lines are comments)."""
    rows = csv.reader(line for line in export.csv_bytes(go.Figure(fig)).decode().splitlines() if line[:1] != "#")
    cells = [cell for row in rows for cell in row]
    return [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r") and not _is_number(c)]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


TEXT_VIEWS = [("attention", {}), ("lengths", {"profile": "typed pairs"}), ("audit", {"xsrc": "my own numbers"})]


@pytest.mark.parametrize("case", TEXT_VIEWS, ids=_view_id)
def test_figure_csv_exports_hold_no_spreadsheet_formula_from_typed_text(case):
    """Every figure's CSV download, with a formula typed into every text input of the view."""
    slug, view = case
    keys = [k for k, c in _controls(_run(slug, view, f"{slug} default")).items() if c.kind == "text_input"]
    at = _run(slug, {**view, **{k: '=HYPERLINK("http://x")' for k in keys}}, f"{slug} formula")
    assert keys and figures(at)
    assert not [cells for fig in figures(at) if (cells := _formula_cells(fig))]


# --- the attacks of issue 36: one link or one cache row must not blank a page for everyone -------------------


def _packed_state(doc: str) -> str:
    import base64
    import zlib

    return base64.urlsafe_b64encode(zlib.compress(doc.encode(), 9)).decode().rstrip("=")


def test_a_short_audit_link_holding_a_5000_digit_number_shows_a_notice_and_the_prefilled_workbook():
    from explorer.audit.workbook import VERSION

    state = _packed_state('{"v":%d,"r":[%s]}' % (VERSION, "9" * 5000))
    assert len(f"/audit?wb={state}") < 100  # a link short enough to paste anywhere
    at = run_page(FILES["audit"], wb=state)
    assert not at.exception and not at.error, [e.value for e in at.exception]
    assert any("could not be read" in w.value and "over 100 digits" in w.value for w in at.warning)
    assert len(at.data_editor[0].value) == 5  # the pre-filled workbook


@pytest.mark.parametrize("trick", ["in a cell", "in the controls", "as a row id"])
def test_an_audit_import_holding_a_5000_digit_number_is_refused_with_a_message(trick):
    from explorer.audit.workbook import FORMAT, VERSION

    big = "9" * 5000
    rows = (
        '[{"id":"separate","cells":{"gain":{"text":%s,"source":"typed"}}}]' % big
        if trick == "in a cell"
        else '[{"id":%s,"cells":{}}]' % big
        if trick == "as a row id"
        else "[]"
    )
    controls = '{"budget":%s}' % big if trick == "in the controls" else "{}"
    raw = ('{"format":"%s","version":%d,"rows":%s,"controls":%s}' % (FORMAT, VERSION, rows, controls)).encode()
    at = run_page(FILES["audit"], section="Export, import and share")
    at.file_uploader[0].set_value(("big.json", raw, "application/json")).run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    assert any("over 100 digits" in w.value for w in (*at.warning, *at.info, *at.caption, *at.markdown)), trick


def _small_depth_settings():
    """The depth page's settings these tests open (depth 2, 300 steps, one seed, width 32), as its config."""
    from dataclasses import replace

    from explorer.experiments import depth as dp

    return replace(dp.PRESETS["main"], steps=300, seeds=(0,), d_model=32)


def _shipped_depth_run(wiring: str) -> dict:
    """A shipped depth-2 run of `wiring` at these settings' step count: a well-formed record to start from."""
    from explorer.experiments import depth as dp

    run = next(r for r in dp.load_shipped()["runs"] if (r["depth"], r["wiring"], r["seed"]) == (2, wiring, 0))
    return {**{k: v for k, v in run.items() if k != "source"}, "steps_done": 300}


def _depth_records(aligned_record: str) -> str:
    """The depth page's cached runs at small settings: a usable one, and `aligned_record` planted as raw text in
    place of the other; the planted row's key."""
    import sqlalchemy as sa

    from explorer import results
    from explorer.experiments import depth as dp
    from explorer.store import db
    from explorer.store.schema import RESULTS

    cfg = _small_depth_settings()
    results.save(dp.CACHE_KIND, dp.run_key(cfg, 2, "final", 0), _shipped_depth_run("final"))
    key = results.save(dp.CACHE_KIND, dp.run_key(cfg, 2, "aligned", 0), _shipped_depth_run("aligned"))
    with db.engine().begin() as conn:
        conn.execute(sa.update(RESULTS).where(RESULTS.c.key == key).values(record=aligned_record))
    return key


def _row_exists(key: str) -> bool:
    import sqlalchemy as sa

    from explorer.store import db
    from explorer.store.schema import RESULTS

    with db.reads() as conn:
        return conn.execute(sa.select(RESULTS.c.key).where(RESULTS.c.key == key)).first() is not None


@pytest.mark.parametrize("planted", ["100k brackets", "NaN record"])
def test_a_poisoned_depth_result_row_renders_with_a_message_and_the_row_is_gone(planted):
    import json as json_module

    from explorer.experiments import depth as dp

    if not dp.SHIPPED_PATH.is_file():
        pytest.skip("no shipped depth results")
    if planted == "100k brackets":
        text = "[" * 100_000
    else:  # a well-formed run whose every number is NaN, with the right config: it passed the old shape check

        def nan(row: dict) -> dict:
            return {k: (float("nan") if isinstance(v, float) else v) for k, v in row.items()}

        run = _shipped_depth_run("aligned")
        nan_run = {**nan(run), "history": [nan(h) for h in run["history"]]}
        text = json_module.dumps(
            {"kind": dp.CACHE_KIND, "config": dp.run_key(_small_depth_settings(), 2, "aligned", 0), "result": nan_run}
        )
        assert "NaN" in text
    key = _depth_records(text)
    at = run_page(FILES["depth"], depth="2", steps="300", seeds="1", width="32", sections="all")
    assert not at.exception and not at.error, [e.value for e in at.exception]
    assert any(
        w.value.startswith("1 cached result for these settings could not be used and was removed") for w in at.warning
    )
    assert not _row_exists(key)  # deleted: read once, never again on every run
    measured = [
        *(e.value for kind in ("markdown", "caption", "info", "success") for e in at.get(kind)),
        *(f"{m.label} {m.value}" for m in at.metric),
    ]
    assert not [t for t in measured if re.search(r"\bnan\b", t, re.IGNORECASE)]  # never shown as measured
    again = run_page(FILES["depth"], depth="2", steps="300", seeds="1", width="32")
    assert not again.exception and not any("could not be used" in w.value for w in again.warning)
