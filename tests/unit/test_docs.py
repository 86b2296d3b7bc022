"""The README is one screen that links into docs/ (issue 34): every relative link in the READMEs and docs/
reaches a file (and a heading, when it names one), each English document has its Chinese twin, and the README's
first part carries the two commands, a picture and the findings."""

import re

import pytest

from tests.conftest import ROOT

DOCS = sorted([ROOT / "README.md", ROOT / "README.zh.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(path) -> set[str]:
    """GitHub's anchors for a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens."""
    heads = re.findall(r"^#+\s+(.+)$", path.read_text(), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in heads}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_reaches_its_file_and_heading(doc):
    for target in LINK.findall(doc.read_text()):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        file, _, anchor = target.partition("#")
        path = (doc.parent / file).resolve() if file else doc
        assert path.exists(), (doc.name, target)
        if anchor:
            assert anchor in _anchors(path), (doc.name, target)


def test_each_document_has_its_chinese_twin():
    english = {p.name for p in (ROOT / "docs").glob("*.md") if not p.name.endswith(".zh.md")}
    assert english >= {"findings.md", "performance.md", "serving.md", "development.md"}
    for name in english:
        assert (ROOT / "docs" / name.replace(".md", ".zh.md")).is_file(), name


@pytest.mark.parametrize("readme", ["README.md", "README.zh.md"])
def test_the_readme_opens_with_the_commands_a_picture_and_the_findings(readme):
    text = (ROOT / readme).read_text()
    first = text[: text.index("\n## ")]  # what comes before the first section
    assert "make run" in first and "make test" in first
    image = re.search(r"!\[[^\]]+\]\(([^)]+)\)", first)
    assert image and (ROOT / image.group(1)).is_file()
    assert len(re.findall(r"^- ", first, flags=re.M)) >= 4  # the short findings list
    assert len(text.split()) < 2000 and "docs/findings" in first
