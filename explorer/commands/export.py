"""`python -m explorer export --all --out DIR [--lang zh]`: every figure of every page, default view, slide-sized
files, in English or Chinese.

The figures come from the pages themselves, rendered headless in a child process (ui/collect_figures.py),
so a slide shows exactly what the app shows; this process writes the files (explorer.export).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import plotly.graph_objects as go

from explorer import export, i18n
from explorer.lecture_map import ROOT, available_pages

DEFAULT_FORMATS = "svg,png,html"


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser("export", help="write every figure of every page (default view) as slide files")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--all", action="store_true", help="every page")
    which.add_argument("--pages", nargs="+", choices=[i.slug for i in available_pages()], help="these pages only")
    p.add_argument("--out", type=Path, required=True, help="folder to write into (one subfolder per page)")
    p.add_argument(
        "--lang",
        choices=list(i18n.LANGUAGES),
        default=i18n.DEFAULT,
        help="the language of the figures' text (en or zh; zh needs a CJK font, e.g. Debian's fonts-noto-cjk)",
    )
    p.add_argument(
        "--format",
        default=DEFAULT_FORMATS,
        help=f"comma-separated, from {', '.join(export.FORMATS)} (default {DEFAULT_FORMATS})",
    )
    p.set_defaults(handler=run)
    return [p]


def _formats(text: str) -> list[str]:
    formats = [f.strip().lower() for f in text.split(",") if f.strip()]
    unknown = [f for f in formats if f not in export.FORMATS]
    if unknown or not formats:
        raise ValueError(f"unknown format {', '.join(unknown) or '(none)'}; choose from {', '.join(export.FORMATS)}")
    return formats


def collect_figures(pages: list[str] | None, lang: str = i18n.DEFAULT) -> list[dict]:
    """The pages' default-view figures in `lang`, rendered by Streamlit's test runner in a child process."""
    out = subprocess.run(
        [sys.executable, "-m", "ui.collect_figures", "--lang", lang, *(pages or [])],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if out.returncode != 0:
        raise ValueError(f"rendering the pages failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout)


def _text(result: dict) -> str:
    lines = [f"{f['path']}  ({f['bytes']:,} bytes)" for f in result["files"]]
    lines.append(
        f"{len(result['files'])} files from {result['figures']} figures on {result['pages']} pages "
        f"in {result['seconds']:.1f} s"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict:
    formats = _formats(args.format)
    start = time.perf_counter()
    figures = collect_figures(None if args.all else args.pages, args.lang)
    files = []
    for item in figures:
        fig = go.Figure(item["spec"])
        folder = args.out / item["page"]
        folder.mkdir(parents=True, exist_ok=True)
        for fmt in formats:
            path = folder / f"{item['figure_id']}.{fmt}"
            path.write_bytes(export.render(fig, fmt, item["page"], item["figure_id"]))
            files.append(
                {
                    "path": str(path),
                    "page": item["page"],
                    "figure_id": item["figure_id"],
                    "format": fmt,
                    "bytes": path.stat().st_size,
                }
            )
    return {
        "files": files,
        "lang": args.lang,
        "figures": len(figures),
        "pages": len({f["page"] for f in figures}),
        "seconds": time.perf_counter() - start,
        "_text": _text,
    }
