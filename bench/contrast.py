"""Text contrast as Chromium draws it: every text of a chart against the pixels around it.

The figure's own check (explorer.figures.readability) reads colours from the figure's layout; this one reads the
rendered chart, so it also sees what the layout cannot say: a label over a heatmap's cells, a bar's pattern, the
dark theme's panel, the page's own frame. Per text, the background is the colour most of its box's pixels have
(glyphs cover less of a box, grown by two pixels, than the ground does); the text's colour is the fill Chromium
computed for it.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from explorer.figures.readability import LARGE_TEXT_CONTRAST, LARGE_TEXT_PX, TEXT_CONTRAST, contrast, rgba_of

# Runs in the page: the visible texts of the i-th drawn chart, their boxes relative to the chart.
TEXTS_JS = """
(i) => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].filter(g => g.getBoundingClientRect().width > 2)[i];
  const G = gd.getBoundingClientRect();
  const out = [];
  for (const t of gd.querySelectorAll('svg text')) {
    const s = t.textContent.trim();
    const r = t.getBoundingClientRect();
    const style = getComputedStyle(t);
    if (!s || r.width < 2 || r.height < 2 || style.visibility === 'hidden' || parseFloat(style.opacity) === 0) continue;
    out.push({text: s.slice(0, 40), fill: style.fill, alpha: parseFloat(style.fillOpacity),
              size: parseFloat(style.fontSize), x: r.left - G.left, y: r.top - G.top, w: r.width, h: r.height});
  }
  return out;
}
"""
CHART_JS = """(i) => [...document.querySelectorAll('.js-plotly-plot')]
  .filter(g => g.getBoundingClientRect().width > 2)[i]"""


PAD_PX = 2  # the box grown by this much: a thin glyph ("l" at 10 px) fills most of its own box


def ground(pixels: np.ndarray) -> tuple[int, int, int]:
    """The colour most pixels of a text's box have: what the text sits on."""
    colors, counts = np.unique(pixels.reshape(-1, 3), axis=0, return_counts=True)
    return tuple(int(c) for c in colors[int(np.argmax(counts))])


def low_contrast(texts: list[dict], image: np.ndarray) -> list[str]:
    """Each text below WCAG's contrast against what it sits on in `image` (the chart's screenshot, RGB), as
    "text: ratio"."""
    found = []
    height, width, _ = image.shape
    for t in texts:
        x0, y0 = max(0, round(t["x"]) - PAD_PX), max(0, round(t["y"]) - PAD_PX)
        x1, y1 = min(width, round(t["x"] + t["w"]) + PAD_PX), min(height, round(t["y"] + t["h"]) + PAD_PX)
        color = rgba_of(t["fill"])
        if color is None or x1 - x0 < 2 or y1 - y0 < 2:
            continue
        under = ground(image[y0:y1, x0:x1])
        rgb, alpha = color
        alpha = alpha * (t["alpha"] if t["alpha"] == t["alpha"] else 1.0)  # NaN: no fill-opacity set
        shown = tuple(round(c * alpha + g * (1 - alpha)) for c, g in zip(rgb, under))
        need = LARGE_TEXT_CONTRAST if t["size"] >= LARGE_TEXT_PX else TEXT_CONTRAST
        ratio = contrast(shown, under)
        if ratio < need:
            found.append(f"{t['text']!r} {ratio:.2f}:1")
    return found


def chart_low_contrast(pg, index: int) -> list[str]:
    """`low_contrast` of the page's `index`-th drawn chart, screenshotted where it stands."""
    chart = pg.evaluate_handle(CHART_JS, index).as_element()
    chart.scroll_into_view_if_needed()
    pg.wait_for_timeout(100)
    shot = np.asarray(Image.open(io.BytesIO(chart.screenshot(animations="disabled"))).convert("RGB"))
    return low_contrast(pg.evaluate(TEXTS_JS, index), shot)
