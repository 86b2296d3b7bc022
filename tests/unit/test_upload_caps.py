"""Caps on held uploads (ui/upload_caps.py), the client-address rule they share with the run queue, and the
upload location of the nginx template."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from starlette.exceptions import HTTPException
from streamlit.runtime.uploaded_file_manager import UploadedFileRec

from deploy.serve import TEMPLATE, nginx_config
from ui import upload_caps
from ui.jobs import address_from
from ui.upload_caps import MB, Caps, CappedUploadManager


class World:
    """The sessions a manager sees: who is connected, from which address, and the time."""

    def __init__(self) -> None:
        self.address = {"tab-1": "10.0.0.1", "tab-2": "10.0.0.1", "tab-3": "10.0.0.2"}
        self.gone: set[str] = set()
        self.now = 1000.0
        self.reruns: list[str] = []

    def manager(self, **caps) -> CappedUploadManager:
        return CappedUploadManager(
            "/_stcore/upload_file",
            Caps(**caps),
            address_of=self.address.__getitem__,
            is_connected=lambda s: s not in self.gone,
            on_refused=self.reruns.append,
            clock=lambda: self.now,
        )


def put(store: CappedUploadManager, session: str, file_id: str, size: int) -> None:
    store.add_file(session, UploadedFileRec(file_id, f"{file_id}.csv", "text/csv", b"7" * size))


def refused(store: CappedUploadManager, session: str, file_id: str, size: int) -> str:
    with pytest.raises(HTTPException) as err:
        put(store, session, file_id, size)
    assert err.value.status_code == 429
    return err.value.detail


def test_a_tab_holds_at_most_its_files_and_bytes_and_is_told_which_limit():
    world = World()
    store = world.manager(tab_files=4, tab_bytes=10 * MB)
    for i in range(4):
        put(store, "tab-1", f"f{i}", 1000)
    assert "(4 files or 10 MB held at once)" in refused(store, "tab-1", "f4", 1000)
    assert store.held("tab-1") == (4, 4000)  # the refused file is not kept
    assert world.reruns == ["tab-1"]  # its page reruns to show the notice
    assert store.take_refusal("tab-1").scope == "tab" and store.take_refusal("tab-1") is None  # shown once
    put(store, "tab-1", "f0", 2000)  # the same file sent again replaces itself
    assert store.held("tab-1") == (4, 5000)
    other = world.manager(tab_bytes=10 * MB)
    put(other, "tab-1", "big", 6 * MB)
    assert "10 MB" in refused(other, "tab-1", "big-2", 5 * MB)


def test_an_address_is_capped_across_its_tabs_held_bytes_and_files_per_window():
    world = World()
    store = world.manager(tab_bytes=20 * MB, address_bytes=24 * MB, address_files=5, window_s=600)
    put(store, "tab-1", "a", 12 * MB)
    put(store, "tab-2", "b", 11 * MB)  # the same address, another tab: 23 MB held
    detail = refused(store, "tab-2", "c", 2 * MB)
    assert "your address" in detail and "24 MB" in detail and "100" not in detail
    put(store, "tab-3", "c", 2 * MB)  # another address is not held back
    small = world.manager(address_files=5, window_s=600)
    for i in range(5):
        put(small, "tab-1" if i % 2 else "tab-2", f"f{i}", 10)
        small.remove_file("tab-1" if i % 2 else "tab-2", f"f{i}")  # removed again: sending still counts
    assert "5 files in 10 minutes" in refused(small, "tab-1", "f5", 10)
    world.now += 601  # the window has moved on
    put(small, "tab-1", "f5", 10)


def test_the_server_holds_at_most_its_files_and_bytes():
    world = World()
    world.address.update({f"s{i}": f"10.1.0.{i}" for i in range(6)})
    store = world.manager(server_files=5, server_bytes=256 * MB)
    for i in range(5):
        put(store, f"s{i}", "f", 100)
    assert "5 files or 256 MB in all" in refused(store, "s5", "f", 100)
    assert store.held() == (5, 500)


def test_the_files_of_a_tab_that_has_gone_are_freed_and_no_longer_count():
    world = World()
    store = world.manager(address_bytes=10 * MB)
    put(store, "tab-1", "a", 6 * MB)
    refused(store, "tab-2", "b", 6 * MB)
    world.gone.add("tab-1")  # its tab closed: freed at the next upload, not two minutes later
    put(store, "tab-2", "b", 6 * MB)
    assert store.held("tab-1") == (0, 0) and store.held() == (1, 6 * MB)
    world.gone.add("tab-2")
    store.drop_departed()  # what a page's notice() does on every run
    assert store.held() == (0, 0)


def test_refusals_are_named_in_both_languages():
    for scope in ("tab", "address", "server"):
        refusal = upload_caps.Refusal(scope, 7, 12.5, 10)
        en, zh = refusal.message("en"), refusal.message("zh")
        assert "7" in en and "12.5 MB" in en and "7" in zh and "12.5 MB" in zh and en != zh
    assert "10 minutes" in upload_caps.Refusal("address", 100, 24, 10).message("en")


def test_caps_come_from_the_environment_when_set():
    caps = Caps.from_env({"EXPLORER_UPLOAD_TAB_FILES": "1", "EXPLORER_UPLOAD_WINDOW_S": "30"})
    assert caps == Caps(tab_files=1, window_s=30.0)
    assert Caps.from_env({}) == Caps() and Caps().tab_files == 4 and Caps().server_bytes == 256 * MB


def test_install_makes_the_server_keep_uploads_in_the_capped_store(monkeypatch):
    import streamlit.web.server.server as server

    monkeypatch.setattr(server, "MemoryUploadedFileManager", server.MemoryUploadedFileManager)
    upload_caps.install()
    assert server.MemoryUploadedFileManager is CappedUploadManager


@pytest.mark.parametrize(
    "peer, forwarded, address",
    [
        (None, "203.0.113.9", "203.0.113.9"),  # behind the deployment's nginx
        ("127.0.0.1", "6.6.6.6, 203.0.113.9", "203.0.113.9"),  # what a client wrote before nginx's entry is ignored
        ("::1", None, "this machine"),
        ("198.51.100.7", "6.6.6.6", "198.51.100.7"),  # a remote peer cannot choose its address with a header
        (None, "", "this machine"),
    ],
)
def test_the_client_address_rule(peer, forwarded, address):
    assert address_from(peer, forwarded) == address


def _location(config: str, path: str) -> str:
    match = re.search(r"location " + re.escape(path) + r" \{(.*?)\n        \}", config, re.S)
    assert match, f"no location {path}"
    return match.group(1)


def test_nginx_limits_the_upload_route():
    config = nginx_config(8080, [8601, 8602])
    upload = _location(config, "/_stcore/upload_file/")
    assert re.search(r"^\s*client_max_body_size 6m;", upload, re.M)
    assert re.search(r"^\s*limit_req zone=uploads burst=30 nodelay;", upload, re.M)
    assert re.search(r"^\s*limit_req_status 429;", upload, re.M)
    assert re.search(r"^\s*proxy_pass http://explorer_replicas;", upload, re.M)
    zone = re.search(r"limit_req_zone \$binary_remote_addr zone=uploads:\w+ rate=(\d+)r/s;", config)
    assert zone and zone.group(1) == "1"
    # the upload's max body (6 MB) leaves room for the app's 5 MB file and its form framing, no more
    app_mb = int(
        re.search(r"maxUploadSize = (\d+)", (TEMPLATE.parent.parent / ".streamlit" / "config.toml").read_text()).group(
            1
        )
    )
    assert app_mb < 6 <= app_mb + 1
    assert "explorer_route=" in upload  # an upload reaches the replica that holds its session


@pytest.mark.skipif(shutil.which("nginx") is None, reason="no nginx here to check the whole file")
def test_nginx_accepts_the_generated_file(tmp_path):
    for folder in ("logs", "tmp"):
        (tmp_path / folder).mkdir()
    (tmp_path / "nginx.conf").write_text(nginx_config(18080, [18601]))
    out = subprocess.run(
        ["nginx", "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr


@pytest.mark.skipif(shutil.which("nginx") is None, reason="no nginx here to run")
def test_nginx_answers_a_burst_of_uploads_past_30_with_429_and_a_large_body_with_413(tmp_path):
    """A real nginx in front of a replica that is not there (502): the limits act before any replica would."""
    import socket
    import urllib.error
    import urllib.request

    for folder in ("logs", "tmp"):
        (tmp_path / folder).mkdir()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "nginx.conf").write_text(nginx_config(port, [1]))
    subprocess.run(["nginx", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")], check=True)
    try:

        def status(path: str, size: int) -> int:
            request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=b"7" * size, method="PUT")
            try:
                return urllib.request.urlopen(request, timeout=10).status
            except urllib.error.HTTPError as err:
                return err.code

        statuses = [status(f"/_stcore/upload_file/s/{i}", 100) for i in range(60)]
        assert 429 not in statuses[:31] and statuses.count(429) >= 1  # one, then a burst of 30, then refused
        assert status("/_stcore/upload_file/s/big", 7 * 2**20) in (413, 429)  # over 6 MB, if not already 429
        assert status("/other", 100) == 502  # the rate is the upload route's alone
    finally:
        subprocess.run(["nginx", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-s", "stop"])
