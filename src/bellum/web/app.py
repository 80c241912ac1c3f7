"""The ASGI application: routes, templates, errors and the guards in front of them.

Modelled on Datasette: :func:`create_app` returns a Starlette app (a router wrapped in
middleware); Jinja runs with autoescape on; every page has a JSON twin at the same path
plus ``.json``, built from the same dict; exceptions map to a status in one place
(:func:`error_response`).  The guards: only the loopback host names are served unless
the server was bound elsewhere, then every request needs the access token; unsafe
cross-origin requests are refused.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import math
import threading
from collections.abc import AsyncIterator
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import (
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Receive, Scope, Send

import bellum
from bellum.errors import BellumError, CommandError, InputError, UsageError
from bellum.web import _hexmap as hexmap
from bellum.web._page import (
    AppState,
    Endpoint,
    envelope,
    jsonable,
    respond,
    state,
    wants_json,
)
from bellum.web.games import EmpireGame, PanzerGame, Stopping, WorldChanged

log = logging.getLogger("bellum.web")

HERE = Path(__file__).parent
TOKEN_COOKIE = "bellum_token"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


# --------------------------------------------------------------------------- errors


#: What the page calls each input the core's errors name (``BellumError.field``): its
#: control (``mil.0,0``, ``unit.3``), or nothing where the message says enough.
CONTROL_NAMES = {
    "mil": "mil",
    "unit": "unit",
    "option": "options",
    "profile": "profile",
    "need": "force needed",
    "country": "as",
    "sector": "",
}


def _status_of(exc: BaseException) -> int:
    if isinstance(exc, WorldChanged):
        return 409
    if isinstance(exc, Stopping):
        return 503
    if isinstance(exc, InputError | UsageError):
        return 400
    if isinstance(exc, CommandError):
        return 422
    return 400


async def error_response(request: Request, exc: Exception) -> Response:
    """Every error, in one place: 4xx with the message for what a user can fix, 500 logged.

    A fragment request (made by the page's script) gets a one-line fragment it can put
    next to the control; a page gets ``error.html``; ``.json`` gets ``{"error": ...}``.
    """
    if isinstance(exc, HTTPException):
        status, message = exc.status_code, str(exc.detail)
    elif isinstance(exc, BellumError):
        status, message = _status_of(exc), exc.worded(CONTROL_NAMES, join=".")
    else:
        log.exception("unexpected error serving %s", request.url.path, exc_info=exc)
        status, message = 500, "internal error: the server's log has the details"
    if wants_json(request):
        request.scope["bellum.schema"] = "bellum.web.error"
        return envelope(request, {"error": message, "status": status}, status)
    fragment = request.headers.get("x-bellum-fragment") == "1"
    templates = state(request).templates
    name = "_error.html" if fragment else "error.html"
    return templates.TemplateResponse(
        request, name, {"message": message, "status": status}, status_code=status
    )


# --------------------------------------------------------------------------- guards


class Guard:
    """Host, token and cross-origin checks in front of every request (pure ASGI).

    * ``hosts``: the Host header names served (the loopback names unless bound elsewhere),
      which keeps a web page on another site from reaching the server by DNS rebinding.
    * ``token``: when set, each request needs it: ``?token=`` once (kept in a cookie,
      then redirected away from the address bar), the cookie, or ``Authorization: Bearer``.
    * A POST from another origin (``Origin`` or ``Sec-Fetch-Site``) is refused.
    """

    def __init__(self, app: ASGIApp, *, hosts: frozenset[str] | None, token: str | None) -> None:
        self.app = app
        self.hosts = hosts
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if self.hosts is not None and name.lower() not in self.hosts:
            await _plain(400, f"this server does not answer for the host {host!r}")(
                scope, receive, send
            )
            return
        if self.token is not None:
            response = self._check_token(scope, headers)
            if response is not None:
                await response(scope, receive, send)
                return
        if scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            origin = headers.get("origin")
            site = headers.get("sec-fetch-site", "")
            foreign = origin not in (None, "null") and urlsplit(origin).netloc != host
            if foreign or site == "cross-site" or origin == "null":
                await _plain(403, "cross-origin request refused")(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _check_token(self, scope: Scope, headers: dict[str, str]) -> Response | None:
        assert self.token is not None
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"))
        given = dict(query).get("token")
        if given is not None:
            if not hmac.compare_digest(given, self.token):
                return _plain(403, "wrong access token")
            rest = [(k, v) for k, v in query if k != "token"]
            target = scope["path"] + ("?" + urlencode(rest) if rest else "")
            response = RedirectResponse(target, status_code=303)
            response.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="strict")
            return response
        cookie = SimpleCookie(headers.get("cookie", ""))
        candidates = [cookie[TOKEN_COOKIE].value] if TOKEN_COOKIE in cookie else []
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            candidates.append(auth[7:].strip())
        if any(hmac.compare_digest(c, self.token) for c in candidates):
            return None
        return _plain(
            401, "this server needs the access token it printed when it started (?token=...)"
        )


class Compress:
    """Gzip for what a browser fetches (the Empire page with its map data is ten times
    smaller), but never for an event stream, which must reach the page as it is sent."""

    def __init__(self, app: ASGIApp) -> None:
        self.plain = app
        self.gzip = GZipMiddleware(app, minimum_size=1024)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        streaming = scope["type"] == "http" and scope["path"].endswith("/events")
        await (self.plain if streaming else self.gzip)(scope, receive, send)


def _plain(status: int, text: str) -> Response:
    return PlainTextResponse(f"bellum: {text}\n", status_code=status)


# --------------------------------------------------------------------------- the app


async def index(request: Request) -> Response:
    s = state(request)
    if wants_json(request):
        return envelope(
            request,
            {
                "version": bellum.__version__,
                "empire": None if s.empire is None else {"source": s.empire.label},
                "panzer": None if s.panzer is None else {"scenario": str(s.panzer.path)},
            },
        )
    if s.empire is not None and s.panzer is None:
        return RedirectResponse("/empire", status_code=303)
    if s.panzer is not None and s.empire is None:
        return RedirectResponse("/panzer", status_code=303)
    return respond(request, "index.html", {"empire": s.empire, "panzer": s.panzer})


def safe(endpoint: Endpoint, schema: str | None = None) -> Endpoint:
    """The endpoint with every exception turned into its response by :func:`error_response`;
    ``schema`` names what its JSON twin answers."""

    async def run(request: Request) -> Response:
        if schema is not None:
            request.scope["bellum.schema"] = schema
        try:
            return await endpoint(request)
        except Exception as exc:
            return await error_response(request, exc)

    run.__name__ = endpoint.__name__
    return run


#: Where a ``.json`` twin's ``schema`` is not its path with dots (``/empire/odds``:
#: ``bellum.web.empire.odds``).
SCHEMA_NAMES = {
    "/": "bellum.web.index",
    "/empire/history/{cid}": "bellum.web.empire.command",
    "/empire/history/{cid}/replay": "bellum.web.empire.replay",
}


def schema_name(path: str) -> str:
    return SCHEMA_NAMES.get(path) or "bellum.web" + path.replace("/", ".")


def _json_twins(routes: list[tuple[str, Endpoint, list[str]]]) -> list[BaseRoute]:
    out: list[BaseRoute] = []
    for path, endpoint, methods in routes:
        # The twin first: ``/empire/history/{cid}`` would take ``1.json`` for its cid.
        out.append(Route(path + ".json", safe(endpoint, schema_name(path)), methods=methods))
        out.append(Route(path, safe(endpoint), methods=methods))
    return out


def create_app(
    db: Path | None = None,
    *,
    world: Path | None = None,
    scenario: Path | None = None,
    token: str | None = None,
    hosts: frozenset[str] | None = LOOPBACK_HOSTS,
) -> Starlette:
    """The planning table as an ASGI app.

    ``db`` (an Empire world database) or ``world`` (a world file, served as a scratch
    copy), and/or ``scenario`` (a Panzer scenario); with none of them, ``./bellum.db``.
    ``token`` makes every request need it; ``hosts`` are the Host names answered
    (``None``: any, for a server bound to all interfaces behind its token).
    Bad files raise :class:`~bellum.errors.BellumError` here, before anything is served.
    """
    from bellum.web import calculator, empire_views, panzer_views

    if db is not None and world is not None:
        raise UsageError("give either --db or --world, not both")
    empire = None
    stopping = threading.Event()
    if db is not None or world is not None or scenario is None:
        empire = EmpireGame(db=db, world_file=world, stopping=stopping)
    panzer = PanzerGame(scenario) if scenario is not None else None

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = lambda p, digits=1: "–" if p is None else f"{100 * p:.{digits}f}%"
    env.filters["num"] = _num
    env.globals["version"] = bellum.__version__
    env.globals["tojson"] = lambda v: json.dumps(jsonable(v))
    env.globals["map_data"] = hexmap.empire_data
    env.globals["served"] = {"empire": empire is not None, "panzer": panzer is not None}
    templates = Jinja2Templates(env=env)

    routes = _json_twins(
        [("/", index, ["GET"]), *empire_views.ROUTES, *panzer_views.ROUTES, *calculator.ROUTES]
    )
    routes += [Route(path, safe(endpoint), methods=m) for path, endpoint, m in calculator.FILES]
    routes.append(Mount("/static", app=StaticFiles(directory=HERE / "static"), name="static"))

    async def on_error(request: Request, exc: Exception) -> Response:
        return await error_response(request, exc)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            app.state.bellum.stopping.set()
            if empire is not None:
                empire.close()

    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: on_error},
        lifespan=lifespan,
    )
    app.state.bellum = AppState(empire, panzer, templates, stopping)
    app.add_middleware(Compress)
    app.add_middleware(Guard, hosts=hosts, token=token)
    return app


def _num(x: float, digits: int = 2) -> str:
    if x is None:
        return "–"
    if isinstance(x, float) and not math.isfinite(x):
        return "∞"
    x = round(x, digits)  # 3080.0000000000005 is 3,080
    if float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:,.{digits}f}"
