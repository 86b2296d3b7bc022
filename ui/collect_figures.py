"""Render every page's default view, every section open (`sections=all`), with Streamlit's own test runner;
print its figures as one JSON list.

`python -m explorer export` runs this in a child process (the explorer library itself never imports
Streamlit), so exported slides are exactly the figures the app draws, page code and all.
"""

from __future__ import annotations

import json
import sys

from streamlit.testing.v1 import AppTest

from explorer.jobs import QUEUE
from explorer.lecture_map import ROOT, available_pages

WAIT_FOR_JOBS_S = 300  # a page's default view may start a background measurement (the cache page does)


def _open(file: str, lang: str) -> AppTest:
    """The page run once, every section open. Not run twice: between runs AppTest words a control's value with
    its format function outside the page, so in English, and a Chinese option list does not hold it."""
    at = AppTest.from_file(str(ROOT / file), default_timeout=180)
    at.query_params["sections"] = "all"
    at.query_params["lang"] = lang
    return at.run()


def collect(slugs: list[str] | None = None, lang: str = "en") -> list[dict]:
    figures = []
    for info in available_pages():
        if slugs and info.slug not in slugs:
            continue
        _open(info.file, lang)
        QUEUE.wait_idle(WAIT_FOR_JOBS_S)
        at = _open(info.file, lang)  # a fresh run: a rerun would word the controls' values in English (see _open)
        if at.exception:
            raise RuntimeError(f"page {info.slug} raised: {at.exception[0].value}")
        for chart in at.get("plotly_chart"):
            spec = json.loads(chart.proto.spec)
            figures.append({"page": info.slug, "figure_id": spec["layout"]["meta"]["figure_id"], "spec": spec})
    return figures


if __name__ == "__main__":
    args = sys.argv[1:]
    language = args[args.index("--lang") + 1] if "--lang" in args else "en"
    pages = [a for i, a in enumerate(args) if a != "--lang" and (i == 0 or args[i - 1] != "--lang")]
    json.dump(collect(pages or None, language), sys.stdout)
