"""AppTest of the "Does it hold at scale?" tabs added for the paired claims: each opens from the URL on its
claim's page, clean, names how its ladder is made when none is shipped, and offers the quick ladder (nothing
trains until it is pressed)."""

import pytest

from explorer import content
from explorer.ladder import registry, verdict
from explorer.ladder import run as ladder
from tests.pages.conftest import assert_clean, evidence_kinds, run_page, train_buttons

TABS = [
    ("four_steps.py", "four-steps", "tab-ladder", "four-steps"),
    ("four_steps.py", "four-steps", "tab-ladder-shared", "shared-params"),
    ("depth.py", "depth", "tab-ladder", "depth"),
    ("cache_reuse.py", "cache", "tab-ladder", "bidirectional"),
    ("inductive_bias.py", "inductive-bias", "tab-ladder", "crossover"),
    ("bitter_lesson.py", "bitter-lesson", "tab-ladder", "bitter-lesson"),
]


@pytest.mark.parametrize("page, book, tab, claim", TABS)
def test_the_ladder_tab_opens_from_the_url_with_its_claim(page: str, book: str, tab: str, claim: str) -> None:
    at = run_page(page, section=content.text(book, tab))
    assert_clean(at)
    text = "\n".join([m.value for m in at.markdown] + [i.value for i in at.info])
    assert content.text("ladder", "quick-lead") in text
    found = ladder.load_shipped(claim)
    if found is None:
        assert f"ladder {claim} --preset main --save" in text
    else:  # the shipped ladder: its measured figure, and its verdict in a sentence naming the top rung
        assert "measured" in evidence_kinds(at)
        assert any(f"{found['rungs'][-1]['params']:,}" in m.value for m in at.markdown)
        reading = verdict.lecture_reading(found["rungs"], registry.get(claim).lecture_sign)
        said = content.text("ladder", f"lecture-{reading}", prediction=content.text("ladder", f"prediction-{claim}"))
        assert said in text  # whether the largest size goes the lecture's way, in words
        assert content.text("ladder", f"reading-{claim}") in text  # what its sizes show beyond the rule
    assert train_buttons(at)
