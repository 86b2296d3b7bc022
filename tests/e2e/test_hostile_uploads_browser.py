"""Hostile input in a real Chromium: on every page that takes an upload, an empty file, a binary file with markup
in its name, a file over the page's stated limit and one over Streamlit's own upload limit each get a message,
never a traceback. The compute page is opened first with markup in its URL values (the notices quote them as
plain text) and with hostile lecture-mode parameters (the one figure asked for still shows)."""

import math
import re
import time
import tomllib
from urllib.parse import quote

from playwright.sync_api import expect

from explorer import audit, trend
from explorer.experiments import lengths as ln
from tests.conftest import ROOT
from bench.memory import PeakMemory
from tests.e2e.conftest import assert_no_exception, wait_for_app
from tests.e2e.test_compute_browser import open_more_settings

SERVER_MB = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
AUDIT_MB = math.ceil(audit.MAX_IMPORT_BYTES / 2**20)  # the uploaders' own max_upload_size, as the pages set it
LENGTHS_MB = math.ceil(ln.MAX_BYTES / 2**20)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01" * 10
MARKUP_NAME = "[x](https:evil.example) **bold** <img src=x>"  # a file name is the student's text too


def _files(ext: str, over_page_limit: bytes, server_mb: int) -> list[tuple[str, bytes]]:
    return [
        (f"empty.{ext}", b""),
        (f"{MARKUP_NAME}.{ext}", PNG),
        (f"over-the-limit.{ext}", over_page_limit),
        (f"huge.{ext}", b" " * (server_mb * 1024 * 1024 + 1)),
    ]


# path: (text once loaded, the limit its uploader's label states, [(file name, bytes)], the message each file gets).
# Streamlit refuses a file over its own limit with a red chip and the reason in a tooltip, so the label states it.
# The lengths and audit uploaders are set to the page's own limit, so the chip refuses a file just over it (the
# page's byte check behind it is unit-tested); the compute page's limit is in rows, checked by the page.
PAGES = {
    "/compute": (
        "Years per 10×",
        f"at most {trend.MAX_ROWS:,} rows and {SERVER_MB} MB",
        _files("csv", b"year,value\n" + b"2000,5\n" * (trend.MAX_ROWS + 1), SERVER_MB),
        [
            "The file is empty",
            "contains binary data",
            f"the limit is {trend.MAX_ROWS:,} rows",
            f"File must be {SERVER_MB:.1f}MB or smaller",
        ],
    ),
    "/lengths?section=Your%20own%20lengths&profile=uploaded%20CSV": (
        "Upload a CSV with columns",
        f"and {ln.MAX_BYTES / 1e6:g} MB",
        _files("csv", b"input_len,target_len\n" + b" " * ln.MAX_BYTES, LENGTHS_MB),
        [
            "The file is empty",
            "contains binary data",
            f"File must be {LENGTHS_MB:.1f}MB or smaller",
            f"File must be {LENGTHS_MB:.1f}MB or smaller",
        ],
    ),
    "/audit?section=Export%2C%20import%20and%20share": (
        "Import a workbook",
        f"at most {audit.MAX_IMPORT_BYTES / 1e6:g} MB",
        _files("json", b" " * (audit.MAX_IMPORT_BYTES + 1), AUDIT_MB),
        [
            "The file is empty",
            "binary file",
            f"File must be {AUDIT_MB:.1f}MB or smaller",
            f"File must be {AUDIT_MB:.1f}MB or smaller",
        ],
    ),
}


def _no_markup_rendered(page) -> None:
    # no link leads to the host in the markup (the sidebar's theme links carry the page's own address, the
    # hostile value percent-encoded in their query: they stay on this page)
    hosts = page.evaluate("[...document.querySelectorAll('a[href]')].map(a => new URL(a.href).hostname)")
    assert not [h for h in hosts if "evil" in h]
    assert page.locator("strong").filter(has_text=re.compile(r"^bold$")).count() == 0  # `**bold**` as markup
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0
    assert_no_exception(page)


def test_hostile_url_values_and_uploads_get_messages_not_tracebacks(page, app_url, tmp_path):
    hostile = {"start": "a]{x} [x](https:evil.example) **bold**", "series": "**bold** [y](https:evil.example)"}
    page.goto(f"{app_url}/compute?" + "&".join(f"{k}={quote(v)}" for k, v in hostile.items()))
    wait_for_app(page, "URL parameter")
    notices = page.locator('[data-testid="stCaptionContainer"]').filter(has_text="URL parameter")
    assert notices.count() == 2 and "is not a number" in notices.first.inner_text()
    _no_markup_rendered(page)
    lecture = {
        "figure": "compute-trend",
        "embed": "true",
        "embed_options": "<script>alert(1)</script>",
        "height": "²",
        "presentation": "\u202e",
        "controls": "hidden",
    }  # Streamlit reads embed_options itself
    page.goto(f"{app_url}/compute?" + "&".join(f"{k}={quote(v)}" for k, v in lecture.items()))
    page.wait_for_selector(".js-plotly-plot")
    expect(page.locator(".js-plotly-plot")).to_have_count(1)  # retried: a rerun may still be replacing charts
    _no_markup_rendered(page)

    for path, (ready, limit, files, messages) in PAGES.items():
        page.goto(f"{app_url}{path}")
        wait_for_app(page, ready)
        if path == "/compute":  # its uploader sits in the settings beside the chart
            open_more_settings(page)
        chooser = page.locator('[data-testid="stFileUploader"] input[type="file"]')
        assert limit in page.locator('[data-testid="stFileUploader"] [data-testid="stWidgetLabel"]').inner_text()
        for (name, data), message in zip(files, messages):
            (tmp_path / name).write_bytes(data)
            chooser.set_input_files(str(tmp_path / name))
            wait_for_app(page, message)
            _no_markup_rendered(page)
        page.locator('[data-testid="stFileUploader"]').scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / f"{path.strip('/').split('?')[0]}-hostile-uploads.png"))


def test_an_empty_url_value_leaves_a_segmented_control_on_its_default(page, app_url):
    """Streamlit reads `?precision=` as "nothing picked"; the page shows the default it uses, then binds again."""
    page.goto(f"{app_url}/compute?precision=")
    wait_for_app(page, "Years per 10×")
    open_more_settings(page)  # the control and its notice sit in the settings beside the chart
    expect(page.get_by_text("URL parameter").first).to_be_visible()
    control = page.locator('[data-testid="stButtonGroup"]').filter(has_text="best available")
    expect(control.get_by_role("radio", name="FP32")).to_have_attribute("aria-checked", "true")
    control.get_by_role("radio", name="best available").click()
    expect(control.get_by_role("radio", name="best available")).to_have_attribute("aria-checked", "true")
    wait_for_app(page, "Years per 10×")
    assert_no_exception(page)


def test_a_file_of_millions_of_lines_is_refused_at_once_without_growing_the_server(page, app_url, server_pid, tmp_path):
    """4.9 MB of one-character lines, within Streamlit's 5 MB: the row limit stops the parse at row 10,001."""
    rows = tmp_path / "millions.csv"
    rows.write_bytes(b"year,value\n" + b"1\n" * 2_450_000)
    page.goto(f"{app_url}/compute")
    wait_for_app(page, "Years per 10×")
    open_more_settings(page)
    chooser = page.locator('[data-testid="stFileUploader"] input[type="file"]')
    with PeakMemory(server_pid) as memory:
        start = time.perf_counter()
        chooser.set_input_files(str(rows))
        wait_for_app(page, f"more than {trend.MAX_ROWS:,} data rows")
        seconds = time.perf_counter() - start
    _no_markup_rendered(page)
    print(
        f"\n4.9 MB upload of 2,450,000 lines: refused {seconds:.2f} s after the file was chosen (upload included); "
        f"the server's peak resident memory rose {memory.extra_mb:.1f} MB above its {memory.start_kb / 1024:.0f} MB"
    )
    assert memory.extra_mb < 50, f"{memory.extra_mb:.1f} MB"
