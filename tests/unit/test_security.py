"""Security basics (issue 13), checked on the source tree: the server's settings, no HTML from user text, no
unpickling anywhere, no eval of data, a library free of Streamlit, spreadsheet-safe exports of student text."""

from __future__ import annotations

import ast
import csv
import io
import pickle
import re
import tomllib
from functools import lru_cache
from pathlib import Path

import pytest

from explorer import audit, results
from explorer.audit import Row
from tests.conftest import ROOT
from tests.unit.test_checkpoints import _Payload  # unpickling it would create a marker file

PRODUCT = ("app.py", "pages", "ui", "explorer", "deploy", "bench")  # code that runs in the app or next to it
SETTINGS_FILES = ("Makefile", ".ci", "deploy", "ui", "app.py")  # where a launch could override the config
UNPICKLING_MODULES = {"pickle", "cPickle", "dill", "cloudpickle", "joblib", "shelve", "marshal", "jsonpickle"}
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _sources(*roots: str) -> list[Path]:
    files = []
    for root in roots:
        path = ROOT / root
        files += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return files


@lru_cache(maxsize=None)
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def _trees(*roots: str) -> list[tuple[Path, ast.Module]]:
    return [(path, _parsed(path)) for path in _sources(*roots)]


def _calls(tree: ast.AST):
    return (node for node in ast.walk(tree) if isinstance(node, ast.Call))


def _name(func: ast.expr) -> str:
    """The name a call goes through: `torch.load` for a module's function, `eval` for a builtin, `.html` for a
    method of any object (its receiver unknown)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return f"{func.value.id}.{func.attr}" if isinstance(func.value, ast.Name) else f".{func.attr}"
    return ""


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{node.lineno}"


def _config() -> dict:
    return tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())


# --- the server ------------------------------------------------------------------------------------------------


def test_the_server_protects_against_cross_site_requests_and_hides_tracebacks():
    config = _config()
    assert config["server"]["enableXsrfProtection"] is True
    assert config["server"].get("enableCORS", True) is True  # CORS off conflicts with XSRF protection
    assert config["client"]["showErrorDetails"] == "none"  # a student sees a message, never a traceback


def test_uploads_have_a_size_limit_well_below_streamlits_default():
    limit = _config()["server"]["maxUploadSize"]
    assert isinstance(limit, int) and 1 <= limit <= 50, limit  # Streamlit's default is 200 MB


def test_no_launch_script_switches_the_protections_off():
    pattern = re.compile(r"(enable_?xsrf_?protection|enable_?cors)\W{0,4}(false|0)\b", re.IGNORECASE)
    offenders = []
    for root in SETTINGS_FILES:
        path = ROOT / root
        for file in [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]:
            if file.suffix not in (".pyc",) and pattern.search(file.read_text(errors="ignore")):
                offenders.append(str(file.relative_to(ROOT)))
    assert not offenders


# --- HTML and user text ------------------------------------------------------------------------------------------


def test_no_element_renders_unsafe_html():
    hits = [
        _where(path, call)
        for path, tree in _trees(*PRODUCT)
        for call in _calls(tree)
        if (value := _keyword(call, "unsafe_allow_html")) is not None
        and not (isinstance(value, ast.Constant) and value.value is False)
    ]
    assert not hits


def _module_constants(tree: ast.Module) -> dict[str, int]:
    """Names bound at module level to a string literal, with how often each name is bound anywhere."""
    literal = {
        t.id
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    bound = [
        t.id
        for node in ast.walk(tree)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(t, ast.Name)
    ]
    return {name: bound.count(name) for name in literal}


ESCAPING = {
    "header_html",
    "typed_text_html",
    "button_html",
    "switch_html",
}  # builders that escape every text they put in (tested below)


def test_html_is_only_ever_a_fixed_string_or_escaped():
    """st.html (and components' html) take a literal, a module constant bound once to one, or the output of a
    builder that escapes all text: never raw user text."""
    checked, bad = 0, []
    for path, tree in _trees(*PRODUCT):
        constants = _module_constants(tree)
        for call in _calls(tree):
            if _name(call.func).endswith(".html"):
                checked += 1
                arg = call.args[0] if call.args else _keyword(call, "body")
                fixed = (
                    (isinstance(arg, ast.Constant) and isinstance(arg.value, str))
                    or (isinstance(arg, ast.Name) and constants.get(arg.id) == 1)
                    or (isinstance(arg, ast.Call) and _name(arg.func) in ESCAPING)
                )
                if not fixed:
                    bad.append(_where(path, call))
    assert checked and not bad  # ui/lecture.py draws lecture mode's CSS this way


def test_class_mode_shows_typed_text_as_text():
    from ui.classroom import typed_text_html

    out = typed_text_html('<img src=x onerror=alert(1)> **bold** "quoted"')
    assert "<img" not in out and "&lt;img src=x onerror=alert(1)&gt; **bold** &quot;quoted&quot;" in out


def test_class_mode_buttons_escape_what_they_carry():
    from ui.classroom import button_html

    out = button_html('x" onmouseover="alert(1)', "<b>Join</b>", post=True)
    assert 'onmouseover="' not in out and "<b>" not in out and "&lt;b&gt;Join" in out


def test_a_figure_header_escapes_its_title_and_badge_and_keeps_plotly_formatting():
    from explorer.figures.theme import Header
    from ui.render import header_html

    out = header_html(
        Header(
            '<b>Attention</b> over "<img src=x onerror=alert(1)>"<br><sup>x</sup>',
            "<b>MEASURED</b> · <script>x</script>",
            "red;background:url(//host)",
        ),
        False,
    )
    assert "<img" not in out and "<script>" not in out and "url(" not in out
    assert "<b>Attention</b>" in out and "<br>" in out and "&lt;img" in out


# --- loading data ----------------------------------------------------------------------------------------------


def test_nothing_unpickles():
    hits = []
    for path, tree in _trees(*PRODUCT):
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            hits += [_where(path, node) for n in names if n.split(".")[0] in UNPICKLING_MODULES]
        for call in _calls(tree):
            name = _name(call.func)
            if name.endswith("read_pickle") or (
                name.endswith(".load")
                and name.split(".")[0] in ("np", "numpy")
                and not _is_false(_keyword(call, "allow_pickle"))
            ):
                hits.append(_where(path, call))
    assert not hits


def _is_false(node: ast.expr | None) -> bool:
    return node is None or (isinstance(node, ast.Constant) and node.value is False)


def test_every_torch_load_is_weights_only():
    """Model weights ship as safetensors (explorer/checkpoints.py); a torch.load must not run pickled code."""
    hits = [
        _where(path, call)
        for path, tree in _trees(*PRODUCT)
        for call in _calls(tree)
        if _name(call.func) == "torch.load"
        and not (isinstance(w := _keyword(call, "weights_only"), ast.Constant) and w.value is True)
    ]
    assert not hits


def test_no_eval_exec_or_shell_on_data():
    hits = [
        _where(path, call)
        for path, tree in _trees(*PRODUCT)
        for call in _calls(tree)
        if _name(call.func) in ("eval", "exec", "os.system", "yaml.load", "__import__")
        or (isinstance(s := _keyword(call, "shell"), ast.Constant) and s.value is True)
    ]
    assert not hits


def test_the_result_cache_is_json_and_never_unpickles(tmp_path, monkeypatch):
    """A pickle planted where a cached result lives is dropped as corrupt, and nothing in it runs."""
    import sqlalchemy as sa

    from explorer.store import db
    from explorer.store.schema import RESULTS

    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    marker = tmp_path / "unpickled"
    key = results.save("kind", {"a": 1}, {"value": 1})
    assert results.load("kind", {"a": 1}) == {"value": 1}
    with db.engine().begin() as conn:
        conn.execute(
            sa.update(RESULTS)
            .where(RESULTS.c.key == key)
            .values(record=pickle.dumps(_Payload(marker)).decode("latin-1"))
        )
    assert results.load("kind", {"a": 1}) is None and not marker.exists()
    with db.reads() as conn:
        assert conn.execute(sa.select(RESULTS).where(RESULTS.c.key == key)).first() is None


def test_the_library_never_imports_streamlit():
    hits = [
        _where(path, node)
        for path, tree in _trees("explorer")
        for node in ast.walk(tree)
        if (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "streamlit" for a in node.names))
        or (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "streamlit")
    ]
    assert not hits


# --- exports of student text -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "=1+1",
        "+1+1",
        "@SUM(A1)",
        "\t=1",
        "\r=1",
        '-HYPERLINK("http://x")',
        "-2+3+cmd|' /C calc'!A0",
        '=HYPERLINK("http://x","y")',
    ],
)
def test_the_workbook_csv_never_starts_a_cell_with_a_formula(text):
    """The bias audit exports student text to CSV: a spreadsheet must show it, not run it."""
    workbook = [Row(None, {"structure": text, "gain": text})]
    lines = list(csv.reader(io.StringIO(audit.to_csv(workbook, {}))))
    cells = [cell for line in lines[1:] for cell in line]
    assert f"'{text}" in cells and not [c for c in cells if c.startswith(FORMULA_STARTS)], cells


def test_plain_negative_numbers_stay_numbers_in_the_workbook_csv():
    workbook = [Row(None, {"structure": "-0.012", "gain": "-"})]
    cells = list(csv.reader(io.StringIO(audit.to_csv(workbook, {}))))[1]
    assert "-0.012" in cells and "-" in cells
