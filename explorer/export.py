"""Figures to files for slides: SVG, PNG and PDF at 16:9, standalone HTML, and the data as CSV.

Images come from kaleido, which drives the system Chromium; one long-lived kaleido server (started on
first use, MathJax off so nothing is fetched) makes each image take a fraction of a second instead of
several. HTML files embed plotly.js, so a deck that takes HTML works offline. The CSV holds every
trace's numbers with a provenance header: page, figure, evidence kind, the config or source behind it.
"""

from __future__ import annotations

import atexit
import base64
import csv
import io
import re
import threading
from datetime import date

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from explorer import __version__, content
from explorer.figures.theme import SLIDE_SIZE

IMAGE_FORMATS = ("svg", "png", "pdf")
FORMATS = (*IMAGE_FORMATS, "html", "csv")
_server_lock = threading.Lock()
_server_started = False


def _kaleido():
    global _server_started
    import kaleido

    with _server_lock:
        if not _server_started:
            kaleido.start_sync_server(mathjax=False, silence_warnings=True)
            atexit.register(kaleido.stop_sync_server, silence_warnings=True)
            _server_started = True
    return kaleido


def for_slide(fig: go.Figure, size: tuple[int, int] = SLIDE_SIZE) -> go.Figure:
    """A copy sized for a 16:9 slide (the page's figure keeps its own height)."""
    out = go.Figure(fig)
    out.update_layout(width=size[0], height=size[1])
    return out


def image_bytes(fig: go.Figure, fmt: str, size: tuple[int, int] = SLIDE_SIZE) -> bytes:
    """SVG, PNG or PDF of `fig` at slide size."""
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"image format must be one of {IMAGE_FORMATS}, got {fmt!r}")
    opts = {"format": fmt, "width": size[0], "height": size[1]}
    spec = for_slide(fig, size).to_dict()
    try:
        return _kaleido().calc_fig_sync(spec, opts=opts)
    except Exception as err:  # kaleido's JavascriptError (a private class): retried once, only for a cold tab
        if "kaleido_scopes is not defined" not in str(err):
            raise
        # on a busy machine a fresh kaleido tab may be asked before its script has loaded (seen once in a
        # fresh-clone test run); the same call then succeeds
        return _kaleido().calc_fig_sync(spec, opts=opts)


def html_bytes(fig: go.Figure, size: tuple[int, int] = SLIDE_SIZE) -> bytes:
    """A standalone interactive page with plotly.js inside (no CDN, no network)."""
    return for_slide(fig, size).to_html(include_plotlyjs=True, full_html=True, config={"displaylogo": False}).encode()


def provenance(fig: go.Figure, page: str = "", figure_id: str = "") -> list[str]:
    """Header lines that say where the numbers come from and what kind of evidence they are."""
    meta = fig.layout.meta or {}
    kinds = meta.get("evidence_kinds") or [meta.get("evidence", "unknown")]
    return [
        f"figure: {fig.layout.title.text or figure_id}",
        f"page: {page}" + (f" · figure id: {figure_id}" if figure_id else ""),
        f"evidence: {' + '.join(kinds)}",
        f"config / source: {meta.get('evidence_detail', '')}",
        f"exported: {date.today().isoformat()} by Transformer History Explorer {__version__}",
    ]


def _array(values) -> np.ndarray | None:
    """Trace data as an array, whether a list, an array, or Plotly's typed-array JSON ({dtype, bdata, shape})."""
    if values is None:
        return None
    if isinstance(values, dict) and "bdata" in values:
        flat = np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"]))
        shape = values.get("shape")
        return flat.reshape([int(n) for n in str(shape).split(",")]) if shape else flat
    return np.asarray(values, dtype=object)


def _columns(trace) -> dict[str, list]:
    """The numbers of one trace as named columns (heatmaps are flattened to row, column, value)."""
    data = {axis: _array(getattr(trace, axis, None)) for axis in ("x", "y", "z")}
    z = data["z"]
    if trace.type == "heatmap" and z is not None and z.ndim == 2:
        xs = data["x"] if data["x"] is not None else np.arange(z.shape[1])
        ys = data["y"] if data["y"] is not None else np.arange(z.shape[0])
        rows, cols = np.indices(z.shape)
        return {"y": list(ys[rows.ravel()]), "x": list(xs[cols.ravel()]), "z": list(z.ravel())}
    return {axis: list(values) for axis, values in data.items() if values is not None}


def _named_custom(trace) -> tuple[list[str], np.ndarray | None]:
    """A trace's per-point details (customdata) with the names its figure gave them in `meta["columns"]`."""
    names = (trace.meta or {}).get("columns") if isinstance(trace.meta, dict) else None
    custom = _array(getattr(trace, "customdata", None))
    if not names or custom is None or custom.ndim != 2:
        return [], None
    return list(names), custom


_TAG = re.compile(r"<[^>]+>")  # Plotly's own markup in a trace name (<b>, <sup>); its line breaks go first


def data_rows(fig: go.Figure) -> tuple[list[str], list[list]]:
    """Every trace's numbers in long form (trace, x, y, z, then the details a figure names for its points, such
    as a machine's name and source): the CSV download and the page's data table behind the figure."""
    extra = list(dict.fromkeys(n for trace in fig.data for n in _named_custom(trace)[0]))
    rows = []
    for i, trace in enumerate(fig.data):
        name = _TAG.sub("", content.unbreak(trace.name)) if trace.name else f"{trace.type} {i}"
        cols = _columns(trace)
        names, custom = _named_custom(trace)
        n = max((len(v) for v in cols.values()), default=0)
        for row in range(n):
            details = dict(zip(names, custom[row])) if custom is not None and row < len(custom) else {}
            rows.append(
                [
                    name,
                    *(cols[a][row] if a in cols and row < len(cols[a]) else "" for a in "xyz"),
                    *(details.get(c, "") for c in extra),
                ]
            )
    return ["trace", "x", "y", "z", *extra], rows


def data_table(fig: go.Figure) -> pd.DataFrame:
    """`data_rows` as a table to read on the page: rows without a number (a legend-only entry) and empty columns
    left out; numbers stay numbers (they sort), and a column that mixes them with words is shown as written."""
    header, rows = data_rows(fig)
    table = pd.DataFrame(rows, columns=header).replace("", None)
    table = table.dropna(subset=["x", "y", "z"], how="all").dropna(axis=1, how="all").infer_objects()
    for column in table.select_dtypes(include=["object", "str"]).columns:
        table[column] = table[column].map(lambda v: "" if pd.isna(v) else str(v))
    return table


def csv_bytes(fig: go.Figure, page: str = "", figure_id: str = "") -> bytes:
    """`data_rows` after `#` provenance lines."""
    out = io.StringIO()
    for line in provenance(fig, page, figure_id):
        out.write(f"# {line}\n")
    header, rows = data_rows(fig)
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode()


def render(fig: go.Figure, fmt: str, page: str = "", figure_id: str = "") -> bytes:
    """The file contents of `fig` in format `fmt` (one of FORMATS)."""
    if fmt in IMAGE_FORMATS:
        return image_bytes(fig, fmt)
    if fmt == "html":
        return html_bytes(fig)
    if fmt == "csv":
        return csv_bytes(fig, page, figure_id)
    raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
