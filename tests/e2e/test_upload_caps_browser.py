"""Uploads in a real Chromium against a real server: what one upload at the limits costs the server's resident
memory, and a tab that sends more files than it may hold (as a script with the page's own session and XSRF
token can) gets HTTP 429 while its page says which limit it met."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from bench.bench_uploads import compute_csv, compute_wide
from bench.memory import PeakMemory
from tests.e2e.conftest import assert_no_exception, shoot, wait_for_app
from tests.e2e.test_compute_browser import open_more_settings
from ui.upload_caps import Caps

UPLOAD_BUDGET_MB = 50  # issue 36: any upload within the limits costs at most this much extra peak memory

# PUT one small file to the upload endpoint as the page's own script would, with its session and XSRF token
PUT = """async ([url, token, name]) => {
    const form = new FormData();
    form.append(name, new Blob(["year,value\\n2000,5\\n2010,50\\n"], {type: "text/csv"}), name);
    const response = await fetch(url, {method: "PUT", body: form, headers: {"X-Xsrftoken": token},
                                       credentials: "same-origin"});
    return [response.status, await response.text()];
}"""


def _upload(page, path) -> dict:
    """Choose `path` in the compute page's uploader; the PUT request the browser sent for it."""
    chooser = page.locator('[data-testid="stFileUploader"] input[type="file"]')
    with page.expect_request(lambda r: "/_stcore/upload_file/" in r.url and r.method == "PUT") as sent:
        chooser.set_input_files(str(path))
    return {"url": sent.value.url, "headers": sent.value.headers}


def test_uploads_at_the_limits_stay_within_the_memory_budget(page, app_url, server_pid, tmp_path):
    page.goto(f"{app_url}/compute")
    wait_for_app(page, "Years per 10×")
    open_more_settings(page)
    for name, raw in (("rows-10000.csv", compute_csv()), ("columns-64.csv", compute_wide())):
        (tmp_path / name).write_bytes(raw)
        with PeakMemory(server_pid) as memory:
            _upload(page, tmp_path / name)
            wait_for_app(page, "fitted on its own")
        assert_no_exception(page)
        print(f"\n{name} ({len(raw) / 1e6:.2f} MB): the server's resident peak rose {memory.extra_mb:.1f} MB")
        assert memory.extra_mb < UPLOAD_BUDGET_MB, f"{name}: +{memory.extra_mb:.1f} MB"


def test_a_tab_past_its_upload_cap_gets_429_and_the_page_names_the_limit(page, app_url, tmp_path):
    caps = Caps.from_env()
    page.goto(f"{app_url}/compute")
    wait_for_app(page, "Years per 10×")
    open_more_settings(page)
    (tmp_path / "mine.csv").write_bytes(compute_csv(20))
    first = _upload(page, tmp_path / "mine.csv")
    wait_for_app(page, "fitted on its own")
    endpoint = first["url"].rsplit("/", 1)[0]  # .../upload_file/<session id>
    token = first["headers"]["x-xsrftoken"]
    statuses = [
        page.evaluate(PUT, [f"{endpoint}/{uuid.uuid4()}", token, f"extra-{i}.csv"]) for i in range(caps.tab_files)
    ]  # the tab holds its one file and these, up to the cap, then one more
    assert [s for s, _ in statuses[:-1]] == [204] * (caps.tab_files - 1)
    status, body = statuses[-1]
    assert status == 429 and f"({caps.tab_files} files or" in body, body  # the detail, as plain text
    notice = page.locator('[data-testid="stAlert"]').filter(has_text="past its limit for uploads")
    expect(notice).to_be_visible()  # shown without a click: the refusal reran the page
    assert f"({caps.tab_files} files or {caps.tab_bytes / 1e6:g} MB held at once)" in notice.inner_text()
    assert_no_exception(page)
    notice.scroll_into_view_if_needed()
    shoot(page, tmp_path / "upload-cap-tab.png")
