"""Prose lives in content files: every page's file parses, every section a page asks for exists and is used,
and no page file holds a paragraph (a string longer than a label)."""

import ast
import re
import unicodedata
from pathlib import Path

import pytest

from explorer import content
from explorer.lecture_map import ROOT, available_pages

MAX_LABEL_CHARS = 100  # a slider label, a tab name, a short status line; anything longer is prose
TEXT_CALLS = {"t", "say"}  # ui.text's two readers
PAGES = {p.slug: ROOT / p.file for p in available_pages()}
SECTIONS = {slug: ROOT / "ui" / "sections" / path.name for slug, path in PAGES.items()}  # they read the page's book


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


def _pattern(name: ast.AST) -> str | re.Pattern | None:
    """A section name as asked: a literal, or an f-string such as f"q{n}-why" as a pattern."""
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        return name.value
    if isinstance(name, ast.JoinedStr):
        return re.compile(
            "".join(re.escape(v.value) if isinstance(v, ast.Constant) else "[a-z0-9-]+" for v in name.values)
        )
    return None


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level NAME = "text" assignments (a module that names its content book once)."""
    return {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _asked_in(path: Path, page_slug: str | None) -> list[tuple[str, str | re.Pattern]]:
    """(book, section) pairs a Python file asks for: a page's t()/say() read its own book, common() the shared
    one, and content.text("<book>", ...) any book."""
    tree = ast.parse(path.read_text())
    consts, found = _constants(tree), []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in TEXT_CALLS and page_slug:
            book, name = page_slug, node.args[0]
        elif isinstance(func, ast.Name) and func.id == "common":
            book, name = "common", node.args[0]
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "text"
            and isinstance(func.value, ast.Name)
            and func.value.id == "content"
            and len(node.args) >= 2
        ):
            first = node.args[0]
            book = first.value if isinstance(first, ast.Constant) else consts.get(getattr(first, "id", ""))
            name = node.args[1]
        else:
            continue
        pattern = _pattern(name)
        if isinstance(book, str) and pattern is not None:
            found.append((book, pattern))
    return found


def _all_asked() -> dict[str, tuple[set[str], list[re.Pattern]]]:
    """Every book's asked sections, over the pages, ui/ and explorer/."""
    by_file = {path: slug for slug, path in [*PAGES.items(), *SECTIONS.items()]}
    files = sorted({*PAGES.values(), ROOT / "app.py", *(ROOT / "ui").rglob("*.py"), *(ROOT / "explorer").rglob("*.py")})
    asked: dict[str, tuple[set[str], list[re.Pattern]]] = {}
    for path in files:
        for book, name in _asked_in(path, by_file.get(path)):
            names, patterns = asked.setdefault(book, (set(), []))
            (names.add(name) if isinstance(name, str) else patterns.append(name))
    return asked


ASKED = _all_asked()
BOOKS = sorted(p.stem for p in (content.ROOT / "en").glob("*.md"))


@pytest.mark.parametrize("slug", sorted(PAGES))
def test_a_page_file_holds_labels_not_paragraphs(slug):
    for path in [p for p in (PAGES[slug], SECTIONS[slug]) if p.is_file()]:  # the page and its sections module
        tree = ast.parse(path.read_text())
        docs = _docstrings(tree)
        long = [
            (node.lineno, _literal_length(node))
            for node in ast.walk(tree)
            if id(node) not in docs and _literal_length(node) > MAX_LABEL_CHARS
        ]
        assert not long, (
            f"{path.name}: strings longer than a label at (line, chars) {long}; move them to content/en/{slug}.md"
        )


@pytest.mark.parametrize("book", BOOKS)
def test_every_section_the_code_asks_for_exists_and_every_section_is_asked_for(book):
    names, patterns = ASKED.get(book, (set(), []))
    present = set(content.sections(book))
    assert names <= present, f"missing in content/en/{book}.md: {sorted(names - present)}"
    unused = {name for name in present if name not in names and not any(p.fullmatch(name) for p in patterns)}
    assert not unused, f"never shown (dead text) in content/en/{book}.md: {sorted(unused)}"


def test_every_book_the_code_asks_for_exists():
    assert set(ASKED) <= set(BOOKS), f"no content/en file for {sorted(set(ASKED) - set(BOOKS))}"


def test_placeholders_fill_with_format_specs_and_leave_latex_alone():
    template = r"$C(t) = C_0 \cdot 10^{t/5}$: {{years:.2f}} years, {{name}}"
    assert content.placeholders(template) == {"years", "name"}
    assert (
        content.fill(template, {"years": 4.951, "name": "Nordhaus"})
        == r"$C(t) = C_0 \cdot 10^{t/5}$: 4.95 years, Nordhaus"
    )
    with pytest.raises(content.ContentError, match="no value for name"):
        content.fill(template, {"years": 1})


def test_chinese_lines_of_one_paragraph_join_without_a_space_and_markdown_blocks_stay():
    """A soft line break shows as a space, which Chinese text has none of: "的变化。 双向注意力"."""
    notice = content.text("cache", "chat-notice", lang="zh")
    assert "只需计算新的一轮。双向注意力" in notice and "悬停在格子上，可以看到" in notice and "\n" not in notice
    assert content.text("cache", "chat-notice", lang="en").count("\n") >= 1  # English keeps its breaks (spaces)
    body = "甲\n乙，\n**丙**\n- 一\n- 二\n\n段落\n| 表 |\n| 格 |\n数字\n16 个\nKV 缓存"
    assert content._join_wide_lines(body) == "甲乙，**丙**\n- 一\n- 二\n\n段落\n| 表 |\n| 格 |\n数字\n16 个\nKV 缓存"


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


def _punctuation(char: str) -> bool:
    return unicodedata.category(char)[0] in "PS"


@pytest.mark.parametrize("path", sorted((ROOT / "content").glob("*/*.md")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_bold_text_renders_where_chinese_runs_on_after_it(path: Path) -> None:
    """CommonMark closes `**` after punctuation only before a space or more punctuation: "**结论：**它" shows its
    asterisks. A space after the closing pair ("**结论：** 它") renders bold."""
    broken = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for m in re.finditer(r"\*\*(?!\s)(.+?)\*\*", line):
            after = line[m.end()] if m.end() < len(line) else " "
            if _punctuation(m.group(1)[-1]) and not (after.isspace() or _punctuation(after)):
                broken.append(line[max(0, m.start() - 5) : m.end() + 5])
    assert not broken
