"""Class mode's cookie routes (ui/class_routes.py), called as the server calls them (an ASGI request in, a
response out), on SQLite and PostgreSQL: the lecturer's and the device's secrets leave only as HttpOnly
cookies, never in a URL; refusals go back to the page by name; a cross-site form post is refused."""

from http.cookies import SimpleCookie
from urllib.parse import parse_qs, urlsplit

import pytest

from bench.loadtest import run_async
from explorer import classroom
from ui import class_routes


def _call(
    handler,
    method: str,
    path: str,
    query: str = "",
    headers: dict | None = None,
    body: bytes = b"",
    client: str = "203.0.113.7",
):
    """Run one route handler on a request as Starlette builds it; returns the response."""
    from starlette.requests import Request

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": query.encode(),
        "scheme": "http",
        "server": ("testserver", 80),
        "client": (client, 5000),
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in {"host": "testserver", **(headers or {})}.items()],
    }
    sent = [False]

    async def receive():
        if sent[0]:
            return {"type": "http.disconnect"}
        sent[0] = True
        return {"type": "http.request", "body": body, "more_body": False}

    return run_async(handler(Request(scope, receive)))  # its own loop: a browser test's Playwright holds this one


def _cookies(response) -> dict[str, SimpleCookie]:
    found = {}
    for key, value in response.raw_headers:
        if key == b"set-cookie":
            cookie = SimpleCookie(value.decode())
            found.update({name: cookie for name in cookie})
    return found


def _target(response) -> dict:
    location = response.headers["location"]
    assert location.startswith("../class?")
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def test_starting_a_class_sets_the_lecturers_cookie_and_no_url_holds_it(store):
    response = _call(class_routes.start, "POST", "/class/start", "lang=zh", body=b"")
    assert response.status_code == 303
    target = _target(response)
    room = classroom.find(target["class"])
    assert room is not None and target["lang"] == "zh" and set(target) == {"class", "lang"}
    ((name, cookie),) = _cookies(response).items()
    morsel = cookie[name]
    assert name == f"explorer_host_{room.code}" and classroom.is_host(room, morsel.value)
    assert morsel["httponly"] and morsel["samesite"].lower() == "lax" and morsel["path"] == "/"
    assert morsel.value not in response.headers["location"]


def test_a_form_post_from_another_site_starts_nothing(store):
    response = _call(class_routes.start, "POST", "/class/start", headers={"origin": "https://evil.example"})
    assert response.status_code == 403 and not _cookies(response)
    same = _call(class_routes.start, "POST", "/class/start", headers={"origin": "http://testserver:8501"})
    assert same.status_code == 303  # the same host (behind nginx the port differs): allowed


def test_joining_sets_a_device_cookie_and_a_rejoin_keeps_it(store):
    room, _ = classroom.start()
    response = _call(class_routes.join, "GET", "/class/join", f"class={room.code.lower()}&lang=en")
    assert _target(response) == {"class": room.code, "lang": "en"}
    ((name, cookie),) = _cookies(response).items()
    token = cookie[name].value
    assert name == f"explorer_device_{room.code}" and classroom.is_student(room, token) and cookie[name]["httponly"]
    again = _call(class_routes.join, "GET", "/class/join", f"class={room.code}", headers={"cookie": f"{name}={token}"})
    assert not _cookies(again) and classroom.joined(room) == 1  # the same device: no second seat


def test_refusals_go_back_to_the_page_by_name(store):
    room, _ = classroom.start()
    classroom.set_joining(room, False)
    closed = _call(class_routes.join, "GET", "/class/join", f"class={room.code}")
    assert _target(closed) == {"class": room.code, "refused": "joining-closed"} and not _cookies(closed)
    unknown = _call(class_routes.join, "GET", "/class/join", "class=<script>")
    assert _target(unknown) == {"class": "SCRIPT"}  # the page then says there is no such class


def test_joins_from_one_address_are_limited_and_other_addresses_are_not(store):
    room, _ = classroom.start()
    for _ in range(classroom.JOINS_PER_MINUTE):
        assert _cookies(_call(class_routes.join, "GET", "/class/join", f"class={room.code}", client="198.51.100.1"))
    refused = _call(class_routes.join, "GET", "/class/join", f"class={room.code}", client="198.51.100.1")
    assert _target(refused)["refused"] == "join-rate"
    assert _cookies(_call(class_routes.join, "GET", "/class/join", f"class={room.code}", client="198.51.100.2"))


@pytest.mark.parametrize(
    "peer, forwarded, seen",
    [
        ("127.0.0.1", "6.6.6.6, 198.51.100.9", "198.51.100.9"),  # behind the deployment's nginx: what nginx saw
        ("198.51.100.3", "6.6.6.6", "198.51.100.3"),  # a remote peer cannot pick its address
        ("127.0.0.1", "", class_routes.LOCAL),
    ],
)
def test_the_client_address_is_the_one_a_client_cannot_forge(peer, forwarded, seen):
    from starlette.requests import Request

    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    request = Request(
        {"type": "http", "method": "GET", "path": "/", "headers": headers, "client": (peer, 1), "query_string": b""}
    )
    assert class_routes.client_address(request) == seen


def test_the_routes_sit_in_front_of_streamlits_own(monkeypatch):
    from streamlit.web.server.starlette import starlette_app

    monkeypatch.setattr(starlette_app, "create_streamlit_routes", lambda runtime: ["streamlit's own routes"])
    class_routes.install()
    class_routes.install()  # twice: still one set
    built = starlette_app.create_streamlit_routes(None)
    assert [r.path for r in built[:2]] == ["/class/start", "/class/join"] and built[2:] == ["streamlit's own routes"]
    assert [r.path for r in class_routes.routes("course/")] == ["/course/class/start", "/course/class/join"]
