"""Class mode's two HTTP routes, beside Streamlit's own (installed by `ui.launch`): where the secrets of a class
are handed out as cookies, so that none of them ever sits in a URL (a projected address bar, a shared link, a
proxy's log line).

- `POST class/start` starts a class and sets the lecturer's cookie (`explorer_host_<CODE>`), then sends the
  browser to `class?class=CODE`, which the class page shows as the lecturer's view to that browser alone.
- `GET class/join?class=CODE` (the join link and its QR code) joins a device and sets its cookie
  (`explorer_device_<CODE>`), then sends it to the same page, which shows it the student's view.

Both cookies are HttpOnly (no script reads them) and SameSite=Lax, and live as long as a class. Refusals (a
full or closed class, too many joins or starts from one address) go back to the page as `refused=<reason>`,
which it shows as a message in the page's language. Nothing here logs a token.
"""

from __future__ import annotations

import ipaddress
from typing import Callable
from urllib.parse import urlencode, urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from explorer import classroom

HOST_COOKIE, DEVICE_COOKIE = "explorer_host_", "explorer_device_"
LOCAL = "this machine"  # as ui.jobs names a visitor on the server's own machine
LANGS = ("en", "zh")


def host_cookie(code: str) -> str:
    return f"{HOST_COOKIE}{code}"


def device_cookie(code: str) -> str:
    return f"{DEVICE_COOKIE}{code}"


def client_address(request: Request) -> str:
    """Where the request comes from. From a local peer (the deployment's own nginx) it is the last address of
    X-Forwarded-For, the one nginx saw; what a client wrote before it is ignored (as `ui.jobs` does)."""
    peer = request.client.host if request.client else ""
    try:
        local = not peer or ipaddress.ip_address(peer).is_loopback
    except ValueError:
        local = False
    if not local:
        return peer
    forwarded = request.headers.get("x-forwarded-for", "").split(",")[-1].strip()
    return forwarded or LOCAL


def _page(request: Request, **query: str) -> str:
    """The class page's address relative to this route (`.../class/join` -> `.../class?...`): right under any
    path prefix a proxy adds."""
    return "../class?" + urlencode({k: v for k, v in query.items() if v})


def _lang(value: str | None) -> str:
    return value if value in LANGS else ""


def _same_site(request: Request) -> bool:
    """A form post from another site is refused: its Origin (when the browser sends one) names this host."""
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return origin is None
    host = request.headers.get("x-forwarded-host") or request.headers.get("host", "")
    return urlsplit(origin).hostname == urlsplit(f"//{host}").hostname


def _secure(request: Request) -> bool:
    return request.url.scheme == "https" or request.headers.get("x-forwarded-proto", "") == "https"


def _set(response: Response, request: Request, name: str, value: str) -> None:
    response.set_cookie(
        name,
        value,
        max_age=classroom.CLASS_HOURS * 3600,
        path="/",
        httponly=True,
        samesite="lax",
        secure=_secure(request),
    )


async def start(request: Request) -> Response:
    if not _same_site(request):
        return PlainTextResponse("Refused: a class is started from this site's own class page.", status_code=403)
    lang = _lang(request.query_params.get("lang"))
    try:
        room, token = await run_in_threadpool(classroom.start, client_address(request))
    except classroom.ClassError as err:
        return RedirectResponse(_page(request, refused=err.reason, lang=lang), status_code=303)
    response = RedirectResponse(_page(request, **{"class": room.code, "lang": lang}), status_code=303)
    _set(response, request, host_cookie(room.code), token)
    return response


async def join(request: Request) -> Response:
    code = classroom.normalize_code(request.query_params.get("class", ""))
    lang = _lang(request.query_params.get("lang"))
    room = await run_in_threadpool(classroom.find, code)
    if room is None:
        return RedirectResponse(_page(request, **{"class": code, "lang": lang}), status_code=303)
    known = request.cookies.get(device_cookie(room.code))
    try:
        token = await run_in_threadpool(classroom.join, room, client_address(request), known)
    except classroom.ClassError as err:
        return RedirectResponse(
            _page(request, **{"class": room.code, "refused": err.reason, "lang": lang}), status_code=303
        )
    response = RedirectResponse(_page(request, **{"class": room.code, "lang": lang}), status_code=303)
    if token != known:
        _set(response, request, device_cookie(room.code), token)
    return response


def routes(base_path: str = "") -> list[Route]:
    """The routes under the server's base path (Streamlit's `server.baseUrlPath`)."""
    prefix = "/" + base_path.strip("/") if base_path.strip("/") else ""
    return [
        Route(f"{prefix}/class/start", start, methods=["POST"]),
        Route(f"{prefix}/class/join", join, methods=["GET"]),
    ]


def install() -> None:
    """Put the class routes in front of Streamlit's own, in every Starlette app the server builds."""
    from streamlit import config
    from streamlit.web.server.starlette import starlette_app

    original: Callable = starlette_app.create_streamlit_routes
    if getattr(original, "with_class_routes", False):
        return

    def with_class_routes(runtime, *args, **kwargs):
        return [*routes(config.get_option("server.baseUrlPath") or ""), *original(runtime, *args, **kwargs)]

    with_class_routes.with_class_routes = True
    starlette_app.create_streamlit_routes = with_class_routes
