"""What every view uses: the game served, the request's fields, the response.

The app (:mod:`bellum.web.app`) builds the routes from the views; the views and the app
both take these from here, so neither imports the other.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.templating import Jinja2Templates

from bellum.numbers import shown, to_decimal, to_int
from bellum.web.games import EmpireGame, PanzerGame

#: Largest request body read, in bytes (plans and answers are a few hundred).
MAX_BODY = 64 * 1024

Endpoint = Callable[[Request], Awaitable[Response]]


class Bad(HTTPException):
    """A request the app refuses with a 4xx and a one-line reason."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(status, detail)


# --------------------------------------------------------------------------- state


@dataclasses.dataclass
class AppState:
    empire: EmpireGame | None
    panzer: PanzerGame | None
    templates: Jinja2Templates
    #: Set when the server is stopping: open event streams end and the planner's work in
    #: progress gives up, so Ctrl-C never waits for them.
    stopping: threading.Event = dataclasses.field(default_factory=threading.Event)


def state(request: Request) -> AppState:
    s: AppState = request.app.state.bellum
    return s


def empire_of(request: Request) -> EmpireGame:
    game = state(request).empire
    if game is None:
        raise Bad(404, "no Empire world is served (start with --db FILE or --world FILE)")
    return game


def panzer_of(request: Request) -> PanzerGame:
    game = state(request).panzer
    if game is None:
        raise Bad(404, "no Panzer scenario is served (start with --scenario FILE)")
    return game


# --------------------------------------------------------------------------- responses


def wants_json(request: Request) -> bool:
    return request.url.path.endswith(".json")


def jsonable(value: Any) -> Any:
    """Dataclasses, tuples, sets and non-finite floats as JSON can carry them."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value) if isinstance(value, set | frozenset) else value
        return [jsonable(v) for v in items]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


#: The version of every ``.json`` document's shape; a change of meaning bumps it.
JSON_VERSION = 1


def envelope(request: Request, body: Mapping[str, Any], status: int = 200) -> JSONResponse:
    """A ``.json`` answer: one object naming its kind in ``schema`` and its version in
    ``schema_version``, its first two keys, as the command line's ``--json`` documents do."""
    doc: dict[str, Any] = {
        "schema": request.scope.get("bellum.schema", "bellum.web.error"),
        "schema_version": JSON_VERSION,
    }
    doc.update((k, v) for k, v in jsonable(body).items() if k not in doc)
    return JSONResponse(doc, status_code=status)


def respond(
    request: Request, template: str, context: dict[str, Any], status: int = 200
) -> Response:
    """The page (or fragment) ``template`` rendered from ``context``, or its JSON twin."""
    if wants_json(request):
        return envelope(request, context, status)
    templates = state(request).templates
    return templates.TemplateResponse(request, template, context, status_code=status)


# --------------------------------------------------------------------------- request input


class Params:
    """A request's fields (query string or urlencoded body) with typed, checked reads."""

    def __init__(self, items: list[tuple[str, str]]) -> None:
        self.items = items

    @classmethod
    async def of(cls, request: Request) -> Params:
        items = list(request.query_params.multi_items())
        if request.method == "POST":
            kind = request.headers.get("content-type", "").split(";")[0].strip()
            if kind not in ("application/x-www-form-urlencoded", ""):
                raise Bad(415, f"send the form urlencoded, not as {kind}")
            body = b""
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_BODY:
                    raise Bad(413, f"request body over {MAX_BODY} bytes")
            try:
                text = body.decode()
            except UnicodeDecodeError:
                raise Bad(400, "the request body is not UTF-8") from None
            items += parse_qsl(text, keep_blank_values=True)
        return cls(items)

    def get(self, name: str, default: str = "") -> str:
        for k, v in reversed(self.items):
            if k == name:
                return v
        return default

    def all(self, name: str) -> list[str]:
        return [v for k, v in self.items if k == name]

    def has(self, name: str) -> bool:
        return any(k == name for k, _ in self.items)

    def prefixed(self, prefix: str) -> dict[str, str]:
        return {k[len(prefix) :]: v for k, v in self.items if k.startswith(prefix)}

    def integer(self, name: str, *, low: int = 0, high: int = 2**32 - 1) -> int | None:
        text = self.get(name).strip()
        if not text:
            return None
        return as_int(text, name, low=low, high=high)

    def ints(self, name: str) -> list[int]:
        return [as_int(v, name) for v in self.all(name) if v.strip()]


def as_int(text: str, name: str, *, low: int = 0, high: int = 2**32 - 1) -> int:
    n = to_int(text, signed=True)
    if n is None:
        raise Bad(400, f"{name}: expected a whole number, not '{shown(text.strip())}'")
    if not low <= n <= high:
        raise Bad(400, f"{name}: {n} is out of range ({low} to {high})")
    return n


def as_number(text: str, name: str, *, low: float = 0.0, high: float = 1e6) -> float:
    """A decimal number (``2.5``) from a field, within ``low`` and ``high``; else a 400."""
    x = to_decimal(text)
    if x is None:
        raise Bad(400, f"{name}: expected a number, not '{shown(text.strip())}'")
    if not low <= x <= high:
        raise Bad(400, f"{name}: {x:g} is out of range ({low:g} to {high:g})")
    return x
