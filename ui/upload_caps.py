"""Caps on the uploaded files a server holds in memory: per tab, per client address and in all.

Streamlit keeps every uploaded file's bytes in memory until its browser session ends, and takes as many
files as a session sends (a script can PUT them without ever drawing an uploader). `CappedUploadManager`
takes Streamlit's place as the store of uploads (`install`, called by `ui.launch` before the server starts)
and refuses a file, with HTTP 429 and a message naming the limit, when it would take:

- one tab (browser session) past TAB_FILES files or TAB_BYTES held at once;
- one client address (the rule of `ui.jobs.address_from`, so one visitor's many tabs count together) past
  ADDRESS_BYTES held at once, or past ADDRESS_FILES files sent in the last WINDOW_S seconds;
- the server past SERVER_FILES files or SERVER_BYTES held at once.

A refused file reruns its tab's page, whose uploader section then says which limit it met (`notice`). The
files of a tab whose connection has gone are dropped at the next upload or page run, not kept for the two
minutes Streamlit waits for a reconnect. Every number can be lowered or raised with an environment
variable (`EXPLORER_UPLOAD_TAB_FILES` and so on, see `Caps.from_env`); docs/limits.md lists them.
"""

from __future__ import annotations

import os
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass
from typing import Callable

import streamlit as st
from starlette.exceptions import HTTPException
from streamlit.runtime import Runtime
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.uploaded_file_manager import UploadedFileRec

from explorer import content
from ui.jobs import address_from

MB = 1_000_000
TOO_MANY_REQUESTS = 429


@dataclass(frozen=True)
class Caps:
    """The limits, in files and bytes."""

    tab_files: int = 4
    tab_bytes: int = 10 * MB
    address_files: int = 100  # sent per window
    address_bytes: int = 24 * MB  # held at once
    window_s: float = 600.0
    server_files: int = 1000
    server_bytes: int = 256 * MB

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "Caps":
        """The defaults, each replaced by EXPLORER_UPLOAD_<FIELD> (e.g. EXPLORER_UPLOAD_TAB_FILES=1) when set."""
        env = os.environ if env is None else env
        given = {f: env.get(f"EXPLORER_UPLOAD_{f.upper()}") for f in cls.__dataclass_fields__}
        return cls(**{f: type(getattr(cls, f))(v) for f, v in given.items() if v})


@dataclass(frozen=True)
class Refusal:
    """Which cap refused a file: `scope` is tab, address or server; `files` and `mb` the cap's numbers."""

    scope: str
    files: int
    mb: float
    minutes: float = 0.0  # the address's window for files sent; 0 for caps on what is held

    def message(self, lang: str | None = None) -> str:
        """The refusal in the page's words (content/<lang>/common.md, `upload-cap-<scope>`)."""
        return content.text(
            "common",
            f"upload-cap-{self.scope}",
            lang=lang,
            files=self.files,
            mb=f"{self.mb:g}",
            minutes=f"{self.minutes:g}",
        )


def session_address(session_id: str) -> str:
    """The client address of a browser session, from its websocket's peer and headers."""
    client = Runtime.instance().get_client(session_id) if Runtime.exists() else None
    context = getattr(client, "client_context", None)
    if context is None:
        return address_from(None, None)
    forwarded = [value for name, value in context.headers if name.lower() == "x-forwarded-for"]
    return address_from(context.remote_ip, forwarded[-1] if forwarded else None)


def _is_connected(session_id: str) -> bool:
    return Runtime.exists() and Runtime.instance().is_active_session(session_id)


def _rerun(session_id: str) -> None:
    """Rerun the session's page as it stands, so that its uploader section shows the refusal at once (the
    browser does not rerun after a failed upload). Best effort: without it the notice waits for the next run."""
    try:
        info = Runtime.instance()._session_mgr.get_active_session_info(session_id)
        info.session.request_rerun(info.session._client_state)
    except Exception:  # noqa: BLE001 - a rerun missed is a notice shown one interaction later, no more
        pass


class CappedUploadManager(MemoryUploadedFileManager):
    """Streamlit's in-memory upload store, with the caps above checked before a file is kept."""

    def __init__(
        self,
        upload_endpoint: str,
        caps: Caps | None = None,
        address_of: Callable[[str], str] = session_address,
        is_connected: Callable[[str], bool] = _is_connected,
        on_refused: Callable[[str], None] = _rerun,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(upload_endpoint)
        self.caps = caps or Caps.from_env()
        self._address_of, self._is_connected, self._on_refused, self._clock = (
            address_of,
            is_connected,
            on_refused,
            clock,
        )
        self._addresses: dict[str, str] = {}  # session id -> its client address, for the sessions holding files
        self._sent: dict[str, deque[float]] = defaultdict(deque)  # address -> when its recent files came
        self._refused: dict[str, Refusal] = {}  # session id -> the last refusal not yet shown
        self._caps_lock = threading.Lock()  # one check-and-add at a time

    def add_file(self, session_id: str, file: UploadedFileRec) -> None:
        """Keep `file`, or raise HTTP 429 naming the cap it would break."""
        with self._caps_lock:
            self.drop_departed()
            address = self._addresses.get(session_id) or self._address_of(session_id)
            refusal = self._check(session_id, address, file)
            if refusal is None:
                self._addresses[session_id] = address
                self._sent[address].append(self._clock())
                super().add_file(session_id, file)
                return
            self._refused[session_id] = refusal
        self._on_refused(session_id)
        raise HTTPException(status_code=TOO_MANY_REQUESTS, detail=refusal.message("en"))

    def _check(self, session_id: str, address: str, file: UploadedFileRec) -> Refusal | None:
        """The first cap `file` would break (tab, address, server), or None."""
        caps, size = self.caps, len(file.data)
        held: dict[str, tuple[int, int]] = {}  # session -> (files, bytes) it holds
        with self._lock:
            for sid, files in self.file_storage.items():
                kept = [f for fid, f in files.items() if (sid, fid) != (session_id, file.file_id)]  # sent again:
                held[sid] = (len(kept), sum(len(f.data) for f in kept))  # the new copy replaces the old

        def over(sessions, max_files: int, max_bytes: int, files_sent: int | None = None) -> bool:
            counts = [held.get(sid, (0, 0)) for sid in sessions]
            files, size_held = sum(c[0] for c in counts), sum(c[1] for c in counts)
            return (files if files_sent is None else files_sent) + 1 > max_files or size_held + size > max_bytes

        if over([session_id], caps.tab_files, caps.tab_bytes):
            return Refusal("tab", caps.tab_files, caps.tab_bytes / MB)
        self._forget_old_sends()
        if over(
            [sid for sid, a in self._addresses.items() if a == address],
            caps.address_files,
            caps.address_bytes,
            files_sent=len(self._sent.get(address, ())),
        ):
            return Refusal("address", caps.address_files, caps.address_bytes / MB, caps.window_s / 60)
        if over(held, caps.server_files, caps.server_bytes):
            return Refusal("server", caps.server_files, caps.server_bytes / MB)
        return None

    def _forget_old_sends(self) -> None:
        """Drop the sends older than the window, and the addresses left with none."""
        since = self._clock() - self.caps.window_s
        for address in list(self._sent):
            sent = self._sent[address]
            while sent and sent[0] <= since:
                sent.popleft()
            if not sent:
                del self._sent[address]

    def drop_departed(self) -> None:
        """Free the files of every session whose browser has gone (its tab closed or its connection lost)."""
        with self._lock:
            holders = list(self.file_storage)
        for session_id in holders:
            if not self._is_connected(session_id):
                self.remove_session_files(session_id)

    def remove_session_files(self, session_id: str) -> None:
        super().remove_session_files(session_id)
        self._addresses.pop(session_id, None)
        self._refused.pop(session_id, None)

    def take_refusal(self, session_id: str) -> Refusal | None:
        """The last refusal of this session's files not yet shown, forgotten once taken."""
        return self._refused.pop(session_id, None)

    def held(self, session_id: str | None = None) -> tuple[int, int]:
        """(files, bytes) held by one session, or by the whole server when `session_id` is None."""
        with self._lock:
            stores = (self.file_storage.get(session_id, {}),) if session_id else tuple(self.file_storage.values())
            files = [f for store in stores for f in store.values()]
        return len(files), sum(len(f.data) for f in files)


def install() -> None:
    """Make the next Streamlit server keep its uploads in a `CappedUploadManager` (call before it starts)."""
    import streamlit.web.server.server as server

    server.MemoryUploadedFileManager = CappedUploadManager


def manager() -> CappedUploadManager | None:
    """The running server's upload store when it is capped (None under AppTest or a plain `streamlit run`)."""
    store = Runtime.instance().uploaded_file_mgr if Runtime.exists() else None
    return store if isinstance(store, CappedUploadManager) else None


def notice() -> None:
    """Under a page's uploader: say which cap refused this tab's last file, if one did; and free the files of
    tabs that have gone."""
    store, ctx = manager(), get_script_run_ctx()
    if store is None or ctx is None:
        return
    store.drop_departed()
    if (refusal := store.take_refusal(ctx.session_id)) is not None:
        st.warning(refusal.message(), icon=":material/block:")
