"""Every figure of every page in the four renderings, measured in Chromium from the DOM and Plotly's layout.

Frames: the page (1440x900), a phone (390x844), embeds (960x600, 640x360) and a projector (1920x1080). Each page
is opened with every section at once (`sections=all`); the embeds and the projector add `embed=true` and
`controls=hidden` (and `presentation=true`), so each of the page's figures is drawn as its figure-mode link would
draw it: header text, then a chart as tall as the frame leaves. The frame is detected by the page itself
(ui.appearance), as a student's browser does. Per figure:
- plot share: the plot areas (Plotly's drag rectangles; a table's box) over the viewport's area (the projector's
  target is 60%, where the figure's aspect allows: a square heatmap cannot pass it on a 16:9 screen);
- the smallest tick label in px (projector: at least 24 at 1080 lines);
- the legend cut (outside the chart's box) or covering a plot area;
- any text outside the chart's box, past the viewport's right edge, or past its table cell;
- any text under WCAG's contrast against the pixels it is drawn on (bench.contrast);
- and per page: whether anything scrolls sideways (the page, or a frame inside it).

`python -m bench.bench_renderings [--lang en|zh|both] [--theme light|dark] [slug ...]`; prints one line per figure
and frame and a summary, and writes the rows as JSON to `--out` if given. Quick mode (`python -m bench --quick`):
the first page, in the page frame, in English.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.contrast import chart_low_contrast
from explorer.figures.frames import frame_of, legend_row_px
from explorer.lecture_map import available_pages, page as lecture_page
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

FRAMES = {  # name: (width, height, extra query)
    "page": (1440, 900, ""),
    "phone": (390, 844, ""),
    "embed": (960, 600, "&embed=true&controls=hidden"),
    "embed-small": (640, 360, "&embed=true&controls=hidden"),
    "projector": (1920, 1080, "&embed=true&controls=hidden&presentation=true"),
}
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
TIMEOUT_MS = 240_000
FRAMED_MS = 60_000  # after the first chart: until every chart is drawn for the frame the page detected
PROJECTOR_SHARE = 0.60
PROJECTOR_TICK_PX = 24
LEGEND_GAP_ROWS = 2  # legend rows the layout may over-reserve between two stacked legends (it estimates text widths)

# Runs in the page: one record per drawn chart (a chart in a closed tab has no size and is left out).
MEASURE_JS = """
(kind) => {
  const vw = window.innerWidth, vh = window.innerHeight;
  const box = e => e.getBoundingClientRect();
  const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
                            Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const charts = [];
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const G = box(gd);
    if (G.width < 2 || G.height < 2) continue;
    const meta = (gd.layout && gd.layout.meta) || {};
    const plots = [...gd.querySelectorAll('.nsewdrag')].map(box).filter(r => r.width > 1 && r.height > 1);
    let area = plots.reduce((a, r) => a + r.width * r.height, 0);
    const table = gd.querySelector('.table');
    if (!plots.length && table) { const r = box(table); area = r.width * r.height; plots.push(r); }
    const ticks = [...gd.querySelectorAll('.xtick text, .ytick text')]
      .filter(t => t.textContent.trim() && box(t).width > 0)
      .map(t => parseFloat(getComputedStyle(t).fontSize));
    const cut = [];
    for (const t of gd.querySelectorAll('svg text')) {
      const s = t.textContent.trim();
      if (!s) continue;
      const r = box(t);
      if (r.width === 0 && r.height === 0) continue;
      if (r.left < G.left - 2 || r.right > G.right + 2 || r.top < G.top - 2 || r.bottom > G.bottom + 2 ||
          r.right > vw + 1) cut.push(s.slice(0, 40));
    }
    for (const cell of gd.querySelectorAll('g.column-cell')) {
      const rect = cell.querySelector('rect.cell-rect'), text = cell.querySelector('text.cell-text');
      if (!rect || !text || !text.textContent.trim()) continue;
      const R = box(rect), T = box(text);
      if (R.width > 0 && (T.right > R.right + 2 || T.left < R.left - 2))
        cut.push('cell: ' + text.textContent.trim().slice(0, 30));
    }
    let legendCut = false, legendCovers = false, legendHitsNote = false, legendGap = 0, shown = [];
    const legends = [...gd.querySelectorAll('g[class^="legend"]')]
      .filter(g => /^legend[0-9]*$/.test(g.getAttribute('class')));
    for (const legend of legends) {
      const bg = legend.querySelector(':scope > rect.bg') || legend;  // the legend's visible box (a long one scrolls)
      if (box(bg).width <= 0) continue;
      const L = box(bg);
      legendCut = legendCut || L.left < G.left - 2 || L.right > G.right + 2 || L.top < G.top - 2 ||
                  L.bottom > G.bottom + 2 || L.right > vw + 1;
      legendCovers = legendCovers || plots.some(p => overlap(L, p) > 0.02 * L.width * L.height);
      legendHitsNote = legendHitsNote || [...gd.querySelectorAll('g.annotation')].some(a => overlap(L, box(a)) > 4);
      shown.push(L);
    }
    shown.sort((a, b) => a.top - b.top);  // legends in rows one under another: the empty band between two
    for (let i = 1; i < shown.length; i++) legendGap = Math.max(legendGap, shown[i].top - shown[i - 1].bottom);
    charts.push({id: meta.figure_id || '?', frame: meta.frame || 'page', width: Math.round(G.width),
                 height: Math.round(G.height), share: area / (vw * vh), chart_share: area / (G.width * G.height),
                 min_tick: ticks.length ? Math.min(...ticks) : null, legend_cut: legendCut,
                 legend_covers: legendCovers, legend_hits_note: legendHitsNote, legend_gap: Math.round(legendGap),
                 cut: cut});
  }
  const main = document.querySelector('[data-testid="stMain"]');
  const scrollers = [...document.querySelectorAll('[class*="st-key-scroll-"]')]
    .filter(e => e.scrollWidth > e.clientWidth + 1);
  const sideways = (main && main.scrollWidth > main.clientWidth + 1) ||
                   document.documentElement.scrollWidth > vw + 1 || scrollers.length > 0;
  const fits = !main || main.scrollHeight <= main.clientHeight + 2;
  return {charts, sideways, fits};
}
"""

# Scrolls the i-th drawn chart's header (the title and badge above it) to the top of the screen.
SCROLL_TO_JS = """
(i) => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].filter(g => g.getBoundingClientRect().width > 2)[i];
  let el = gd.closest('[data-testid="stElementContainer"]');
  const head = el && el.previousElementSibling;
  (head && head.querySelector('.figure-head') ? head : el || gd).scrollIntoView({block: 'start'});
}
"""


@dataclass
class Row:
    """One figure in one frame."""

    page: str
    lang: str
    frame: str
    id: str
    drawn_as: str
    width: int
    height: int
    share: float
    chart_share: float
    min_tick: float | None
    legend_cut: bool
    legend_covers: bool
    legend_hits_note: bool
    legend_gap: int = 0  # px of empty band between two legends stacked above the plot
    low_contrast: list[str] = field(default_factory=list)  # texts under WCAG's contrast as drawn (bench.contrast)
    cut: list[str] = field(default_factory=list)
    sideways: bool = False
    fits: bool = True  # the page's content fits the viewport's height (what a figure-mode embed needs)

    def problems(self) -> list[str]:
        """What is wrong with it in its frame (the projector's share is reported, not counted: see `summary`)."""
        found = []
        if self.legend_cut:
            found.append("legend cut")
        if self.frame != "page" and (self.legend_covers or self.legend_hits_note):
            found.append("legend on the data" if self.legend_covers else "legend on a note")
        if self.frame != "page" and self.legend_gap > legend_gap_limit(self.frame):
            found.append(f"{self.legend_gap} px empty between legends")
        if self.cut:
            found.append(f"text cut: {', '.join(self.cut[:3])}")
        if self.low_contrast:
            found.append(f"low contrast: {', '.join(self.low_contrast[:3])}")
        if self.drawn_as != {"embed-small": "embed"}.get(self.frame, self.frame):
            found.append(f"drawn for {self.drawn_as}")
        if self.sideways:
            found.append("scrolls sideways")
        if self.frame == "projector" and self.min_tick is not None and self.min_tick < PROJECTOR_TICK_PX:
            found.append(f"tick {self.min_tick:.0f} px")
        return found


def legend_gap_limit(frame: str) -> float:
    """The empty band between two legends stacked above a plot that still reads as one key: two rows of the
    frame's legend type."""
    width, height, extra = FRAMES[frame]
    shown = frame_of(width, height, "embed=true" in extra, "presentation=true" in extra)
    return LEGEND_GAP_ROWS * legend_row_px(shown.tick_px)


def query(slug: str, lang: str, frame: str) -> str:
    return f"/{'' if slug == 'home' else slug}?lang={lang}&sections=all{FRAMES[frame][2]}"


def measure(
    browser,
    url: str,
    slug: str,
    lang: str,
    frame: str,
    shots: Path | None = None,
    address: str | None = None,
    theme: str = "light",
) -> list[Row]:
    """Open one page in one frame (at `address`, default: the whole page, see `query`) and measure each of its
    drawn charts."""
    width, height, _ = FRAMES[frame]
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=theme)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        pg = context.new_page()
        pg.goto(url + (address or query(slug, lang, frame)))
        if lecture_page(slug).slide_figure:
            pg.wait_for_selector(".js-plotly-plot .main-svg", state="visible")
        wait_drawn_for(pg, frame)
        data = pg.evaluate(MEASURE_JS, frame)
        for i, chart in enumerate(data["charts"]):
            chart["low_contrast"] = chart_low_contrast(pg, i)
        if shots:
            for i, chart in enumerate(data["charts"]):
                pg.evaluate(SCROLL_TO_JS, i)
                pg.wait_for_timeout(150)
                pg.screenshot(path=str(shots / f"{slug}-{chart['id']}-{frame}-{lang}.png"))
    finally:
        context.close()
    return [
        Row(
            page=slug,
            lang=lang,
            frame=frame,
            drawn_as=c.pop("frame"),
            sideways=data["sideways"],
            fits=data["fits"],
            **c,
        )
        for c in data["charts"]
    ]


def measure_page(
    browser, url: str, slug: str, lang: str, frame: str, shots: Path | None = None, theme: str = "light"
) -> list[Row]:
    """`measure` of the whole page; in an embed or on a projector, a chart the page draws in a column (beside
    another) is measured again through its own figure-mode link, which is how a slide shows it."""
    rows = measure(browser, url, slug, lang, frame, shots, theme=theme)
    if frame in ("page", "phone"):
        return rows
    width = FRAMES[frame][0]
    out = []
    for row in rows:
        if row.width < 0.8 * width and row.id != "?":
            link = f"/{'' if slug == 'home' else slug}?figure={row.id}&lang={lang}{FRAMES[frame][2]}"
            alone = measure(browser, url, slug, lang, frame, shots, address=link, theme=theme)
            alone = [r for r in alone if r.id == row.id]
            out += alone[:1] or [row]
        else:
            out.append(row)
    return out


def wait_drawn_for(pg, frame: str) -> None:
    """Until the app is idle and every drawn chart was styled for this frame (the page reruns once the browser
    has reported its size)."""
    kind = {"embed-small": "embed"}.get(frame, frame)
    pg.wait_for_selector(IDLE)
    script = """(kind) => [...document.querySelectorAll('.js-plotly-plot')]
        .filter(gd => gd.getBoundingClientRect().width > 2)
        .every(gd => ((gd.layout && gd.layout.meta && gd.layout.meta.frame) || 'page') === kind)"""
    try:
        pg.wait_for_function(script, arg=kind, timeout=FRAMED_MS)
    except Exception:  # noqa: BLE001 - a chart left as drawn for the page is reported (`drawn_as`), not waited on
        pass
    pg.wait_for_selector(IDLE)
    pg.wait_for_timeout(400)


SHOT_FIGURES = {"compute": "compute-trend", "cache": "cache-recompute-turns", "four-steps": "four-steps-wiring"}


def shoot_renderings(browser, url: str, out: Path, figures: dict[str, str] = SHOT_FIGURES, lang: str = "en") -> None:
    """Screenshots of each page's slide figure in the four renderings, light and dark: the page at 1440x900, a
    390 px phone (scrolled to the figure), an embed at 960x600 and a projector at 1920x1080 (figure-mode links)."""
    out.mkdir(parents=True, exist_ok=True)
    for slug, figure in figures.items():
        link = f"/{slug}?figure={figure}&embed=true&controls=hidden&lang={lang}"
        views = {
            "page": (f"/{slug}?lang={lang}", "page"),
            "phone": (f"/{slug}?lang={lang}", "phone"),
            "embed": (link, "embed"),
            "projector": (link + "&presentation=true", "projector"),
        }
        for name, (address, frame) in views.items():
            for theme in ("light", "dark"):
                width, height, _ = FRAMES[frame]
                context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=theme)
                context.set_default_timeout(TIMEOUT_MS)
                try:
                    pg = context.new_page()
                    pg.goto(url + address)
                    pg.wait_for_selector(".js-plotly-plot .main-svg", state="visible")
                    wait_drawn_for(pg, frame)
                    if name == "phone":
                        pg.evaluate(SCROLL_TO_JS, 0)
                        pg.wait_for_timeout(300)
                    pg.screenshot(path=str(out / f"{slug}-{name}-{width}x{height}-{theme}-{lang}.png"))
                finally:
                    context.close()


def summary(rows: list[Row]) -> dict:
    """The projector's plot shares (distribution), the smallest ticks, and the problems per frame."""
    projector = [r for r in rows if r.frame == "projector"]
    shares = sorted(r.share for r in projector)
    out = {"figures": len({(r.page, r.id) for r in rows}), "rows": len(rows)}
    if shares:
        out["projector_share"] = {
            "min": round(shares[0], 3),
            "median": round(statistics.median(shares), 3),
            "max": round(shares[-1], 3),
            "under_60": sorted(f"{r.page}/{r.id} {r.share:.0%}" for r in projector if r.share < PROJECTOR_SHARE),
        }
        ticks = [r.min_tick for r in projector if r.min_tick is not None]
        out["projector_min_tick"] = min(ticks) if ticks else None
    out["problems"] = {f"{r.page}/{r.id} [{r.frame}, {r.lang}]": r.problems() for r in rows if r.problems()}
    return out


def main(argv: list[str] | None = None, quick: bool = False) -> dict:
    """Print one line per figure and frame and the summary; return the summary ({"skipped": why} without
    Chromium). `argv` as on the command line (none: every page, frame and figure in English)."""
    from playwright.sync_api import sync_playwright

    from tests.load.server import app_server

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*")
    parser.add_argument("--lang", default="en", choices=["en", "zh", "both"])
    parser.add_argument("--frames", default=",".join(FRAMES))
    parser.add_argument("--theme", default="light", choices=["light", "dark"], help="the browser's colour scheme")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--shots", type=Path, help="a screenshot of every measured chart, into this folder")
    parser.add_argument(
        "--renderings",
        type=Path,
        help="only the slide figures' screenshots in the four renderings, light and dark, into this folder",
    )
    args = parser.parse_args(argv or [])
    if not Path(CHROMIUM).exists():
        print(f"renderings: skipped, no Chromium at {CHROMIUM}")
        return {"skipped": f"no Chromium at {CHROMIUM}"}
    slugs = args.slugs or [p.slug for p in available_pages() if p.slide_figure]
    if quick:
        slugs, args.frames, args.lang = slugs[:1], "page", "en"
    langs = ["en", "zh"] if args.lang == "both" else [args.lang]
    if args.shots:
        args.shots.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        app_server(Path(tmp), Path(tmp) / "server.log") as url,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        if args.renderings:
            for lang in langs:
                shoot_renderings(browser, url, args.renderings, lang=lang)
            return {"screenshots": str(args.renderings)}
        for lang in langs:
            for slug in slugs:
                for frame in args.frames.split(","):
                    try:
                        got = measure_page(browser, url, slug, lang, frame, args.shots, args.theme)
                    except Exception as err:  # noqa: BLE001 - one page's failure is reported, the rest measured
                        print(f"{slug} {frame} {lang}: FAILED {type(err).__name__}: {str(err)[:200]}", flush=True)
                        continue
                    rows += got
                    for r in got:
                        print(
                            f"{slug:14} {frame:11} {lang} {r.id:28} share {r.share:5.1%} tick {r.min_tick} "
                            f"{'; '.join(r.problems())}",
                            flush=True,
                        )
        browser.close()
    result = summary(rows)
    print(json.dumps(result, indent=1, ensure_ascii=False))
    if args.out:
        args.out.write_text(
            json.dumps({"summary": result, "rows": [asdict(r) for r in rows]}, indent=1, ensure_ascii=False)
        )
    if not rows:
        raise RuntimeError("renderings: no figure measured")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
