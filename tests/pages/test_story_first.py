"""The plain story first (issue 34): every measured tab of the four-steps, lengths, depth and cache pages opens
with one sentence of what was found, read from the shipped results; no p-value, Holm correction or equivalence
test stands between a tab's top and its first figure (they wait in the collapsed "For the reviewer" part)."""

import re

import pytest

from explorer import content
from tests.pages.conftest import assert_clean, run_page, untranslated

PAGES = {
    "four-steps": "four_steps.py",
    "lengths": "length_asymmetry.py",
    "depth": "depth.py",
    "cache": "cache_reuse.py",
}
FINDING_TABS = {
    "four-steps": ["tab-check", "tab-ablation", "tab-shared"],
    "lengths": ["tab-toy", "tab-cost"],
    "depth": ["tab-results", "tab-depths", "tab-control", "tab-lr", "tab-curves", "tab-errors"],
    "cache": ["tab-cost", "tab-drift", "tab-stale", "tab-scaling"],
}
STATISTICS = re.compile(r"\bp\s*[=<>≤]|\bHolm\b|\bTOST\b|p-value|sign-flip|p 值")
# tabs that are about method, where a test is the subject: how it was measured, and four-steps' table of the
# test that would isolate each structure
METHOD_TABS = {("lengths", "tab-how"), ("depth", "tab-how"), ("four-steps", "tab-why")}
TEXT_KINDS = {"markdown", "caption", "info", "warning", "success", "subheader", "header", "metric"}


def _tabs(book: str) -> list[str]:
    return [name for name in content.sections(book, "en") if name.startswith("tab-")]


def _shown(node, in_expander: bool = False) -> list[tuple[str, str, bool]]:
    """(kind, text, inside an expander) of everything under `node`, in page order; figures as ('figure', '')."""
    found = []
    children = getattr(node, "children", None) or {}
    for key in sorted(children) if isinstance(children, dict) else range(len(children)):
        child = children[key]
        kind = getattr(child, "type", "")
        if kind == "plotly_chart":
            found.append(("figure", "", in_expander))
        elif kind in TEXT_KINDS:
            text = f"{child.label} {child.value}" if kind == "metric" else str(child.value)
            if "figure-head" not in text:
                found.append((kind, text, in_expander))
        found += _shown(child, in_expander or kind == "expander")
    return found


def _open_tab(book: str, tab: str, lang: str = "en") -> list[tuple[str, str, bool]]:
    label = content.sections(book, lang)[tab]
    at = run_page(PAGES[book], section=label, lang=lang)
    assert_clean(at)
    (opened,) = [t for t in at.tabs if t.label == label]
    if lang != "en":
        assert untranslated(at) == [], (book, tab)
    return _shown(opened)


def _before_first_figure(shown: list[tuple[str, str, bool]]) -> list[str]:
    """The text a reader meets, outside any expander, before the tab's first figure (the whole tab without one)."""
    out = []
    for kind, text, hidden in shown:
        if kind == "figure" and not hidden:
            break
        if kind != "figure" and not hidden:
            out.append(text)
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("book,tab", [(b, t) for b, tabs in FINDING_TABS.items() for t in tabs])
def test_a_measured_tab_opens_with_what_it_found_then_its_figure(book, tab, lang):
    shown = _open_tab(book, tab, lang)
    texts = [text for kind, text, _ in shown if kind != "figure"]
    assert texts and texts[0].startswith(f"**{content.text('common', 'found', lang=lang)}**"), (book, tab, texts[:2])
    assert re.search(r"\d", texts[0]), texts[0]  # one number at least, from the shipped results
    if any(STATISTICS.search(text) for _, text, _ in shown):  # a tab with tests keeps them for the reviewer
        assert any(hidden and STATISTICS.search(text) for _, text, hidden in shown), f"{book}/{tab}"
    first_figure = next((i for i, (kind, _, hidden) in enumerate(shown) if kind == "figure" and not hidden), None)
    if first_figure is not None:  # the finding leads the figure; nothing but it and a control's label between
        assert [k for k, _, h in shown[:first_figure] if not h] == ["markdown"], (book, tab, shown[:first_figure])


@pytest.mark.parametrize("book,tab", [(b, t) for b in PAGES for t in _tabs(b) if (b, t) not in METHOD_TABS])
def test_no_statistics_stand_above_a_tabs_first_figure(book, tab):
    above = _before_first_figure(_open_tab(book, tab))
    assert not [text for text in above if STATISTICS.search(text)], (book, tab, above)
