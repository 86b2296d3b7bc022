"""Prose lives in content files: every page's file parses, every section a page asks for exists and is used,
and no page file holds a paragraph (a string longer than a label)."""

import ast
import re
from pathlib import Path

import pytest

from explorer import content
from explorer.lecture_map import ROOT, available_pages

MAX_LABEL_CHARS = 100  # a slider label, a tab name, a short status line; anything longer is prose
TEXT_CALLS = {"t", "say"}  # ui.text's two readers
PAGES = {p.slug: ROOT / p.file for p in available_pages()}


def _literal_length(node: ast.AST) -> int:
    """Characters of a string literal or of an f-string's literal parts."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return len(node.value)
    if isinstance(node, ast.JoinedStr):
        return sum(len(v.value) for v in node.values if isinstance(v, ast.Constant))
    return 0


def _docstrings(tree: ast.Module) -> set[int]:
    found = set()
    for node in [tree, *ast.walk(tree)]:
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _asked(tree: ast.Module) -> tuple[set[str], list[re.Pattern]]:
    """The section names a page asks for: literal names, and f-strings such as f"q{n}-why" as patterns."""
    names, patterns = set(), []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in TEXT_CALLS
                and node.args):
            continue
        name = node.args[0]
        if isinstance(name, ast.Constant):
            names.add(name.value)
        elif isinstance(name, ast.JoinedStr):
            patterns.append(re.compile("".join(re.escape(v.value) if isinstance(v, ast.Constant) else "[a-z0-9-]+"
                                               for v in name.values)))
    return names, patterns


def _uses_content(path: Path) -> bool:
    return "from ui.text import" in path.read_text()


@pytest.mark.parametrize("slug", sorted(PAGES))
def test_a_page_file_holds_labels_not_paragraphs(slug):
    tree = ast.parse(PAGES[slug].read_text())
    docs = _docstrings(tree)
    long = [(node.lineno, _literal_length(node)) for node in ast.walk(tree)
            if id(node) not in docs and _literal_length(node) > MAX_LABEL_CHARS]
    assert not long, f"{PAGES[slug].name}: strings longer than a label at (line, chars) {long}; move them to " \
                     f"content/en/{slug}.md"


@pytest.mark.parametrize("slug", sorted(PAGES))
def test_every_section_a_page_asks_for_exists_and_every_section_is_asked_for(slug):
    if not _uses_content(PAGES[slug]):
        pytest.skip(f"{PAGES[slug].name} has no prose")
    names, patterns = _asked(ast.parse(PAGES[slug].read_text()))
    present = set(content.sections(slug))
    assert names <= present, f"missing in content/en/{slug}.md: {sorted(names - present)}"
    unused = {name for name in present if name not in names and not any(p.fullmatch(name) for p in patterns)}
    assert not unused, f"never shown (dead text) in content/en/{slug}.md: {sorted(unused)}"


def test_placeholders_fill_with_format_specs_and_leave_latex_alone():
    template = r"$C(t) = C_0 \cdot 10^{t/5}$: {{years:.2f}} years, {{name}}"
    assert content.placeholders(template) == {"years", "name"}
    assert content.fill(template, {"years": 4.951, "name": "Nordhaus"}) == \
        r"$C(t) = C_0 \cdot 10^{t/5}$: 4.95 years, Nordhaus"
    with pytest.raises(content.ContentError, match="no value for name"):
        content.fill(template, {"years": 1})


def test_a_section_name_used_twice_or_a_missing_section_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr(content, "ROOT", tmp_path)
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "twice.md").write_text("## a\none\n## b\ntwo\n## a\nthree\n")
    (tmp_path / "en" / "fine.md").write_text("<!-- a note -->\n## lead\nOne line\nand more.\n\n## end\nBye.\n")
    content.sections.cache_clear()
    try:
        with pytest.raises(content.ContentError, match="named twice: a"):
            content.sections("twice")
        assert content.sections("fine") == {"lead": "One line\nand more.", "end": "Bye."}
        with pytest.raises(content.ContentError, match="no section 'middle'"):
            content.text("fine", "middle")
        with pytest.raises(content.ContentError, match="no content file"):
            content.sections("absent")
    finally:
        content.sections.cache_clear()


def test_sections_are_named_in_lower_case_with_hyphens():
    for path in sorted(content.ROOT.glob("*/*.md")):
        for line in path.read_text().splitlines():
            if line.startswith("## "):
                assert re.fullmatch(r"## [a-z0-9][a-z0-9-]*", line.rstrip()), f"{path.name}: {line!r}"
