"""The Empire pages: the map, the target panel, odds, fights and the history.

Each view reads its fields (:class:`~bellum.web._page.Params`), calls
:class:`~bellum.web.games.EmpireGame` in a worker thread (the rules and SQLite block),
and renders one context as a page, a fragment for the page's script, or JSON.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from bellum.numbers import shown
from bellum.web import _charts as charts
from bellum.web._page import Bad, Params, as_int, empire_of, respond, state
from bellum.web.games import (
    COMMANDS,
    PLAY_RUNS,
    SUPPORT_KINDS,
    EmpireGame,
    Plan,
    UnknownCommand,
)

#: Highest mil a plan may name for one source (no world holds more in one sector).
MAX_MIL = 1_000_000


def _country(game: EmpireGame, p: Params) -> int:
    return game.country(game.world(), p.get("as") or None)


def plan_of(p: Params) -> Plan:
    """The plan the panel's controls describe; malformed fields are a 400 naming them."""
    command = p.get("command", "attack")
    if command not in COMMANDS:
        raise Bad(400, f"command: '{shown(command)}' is not one of {', '.join(COMMANDS)}")
    target = p.get("target").strip()
    if not target:
        raise Bad(400, "target: which sector, ship or unit? (x,y or a number)")
    if len(target) > 40 or not re.fullmatch(r"-?[0-9]+(,-?[0-9]+)?", target):
        raise Bad(400, f"target: '{shown(target)}' is neither a sector (x,y) nor a number")
    mil = {}
    for key, value in p.prefixed("mil.").items():
        if not re.fullmatch(r"-?[0-9]+,-?[0-9]+|ship:[0-9]{1,20}", key):
            raise Bad(400, f"mil.{shown(key)}: not a sector (x,y) or ship:N")
        mil[key] = as_int(value or "0", f"mil.{shown(key)}", high=MAX_MIL)
    support = (True, True, True, True)
    if p.has("support_given"):
        chosen = set(p.all("support"))
        unknown = chosen - set(SUPPORT_KINDS)
        if unknown:
            raise Bad(400, f"support: {sorted(unknown)[0]!r} is not one of {SUPPORT_KINDS}")
        support = tuple(k in chosen for k in SUPPORT_KINDS)  # type: ignore[assignment]
    options = [o for o in re.split(r"[\s,]+", p.get("options")) if o]
    source = p.get("source").strip()
    if len(source) > 40:
        raise Bad(400, "source: too long")
    units = set(p.ints("unit"))
    no_units = p.has("no_units")
    if no_units and units:
        raise Bad(400, "no_units: give the units that join or no units, not both")
    move_in_units: set[int] | None = set(p.ints("move_in_unit")) or None
    if p.has("no_move_in_units"):
        if move_in_units:
            raise Bad(400, "move_in_unit: give the units that move in or none, not both")
        move_in_units = set()
    return Plan(
        command=command,
        target=target,
        source=source,
        mil=mil,
        units=units,
        no_units=no_units,
        move_in=p.integer("move_in", high=MAX_MIL),
        move_in_units=move_in_units,
        yes=p.has("yes"),
        planes=p.ints("plane"),
        escorts=p.ints("escort"),
        support=support,
        profile=p.get("profile").strip() or None,
        options=options,
    )


def map_context(game: EmpireGame, cnum: int) -> dict[str, Any]:
    """The world as the country sees it (``map_view``); the page draws it from
    :func:`hexmap.empire_data`, its JSON twin lists every sector as an object."""
    return game.map_view(cnum)


async def page(request: Request) -> Response:
    """The planning table: the map as the chosen country sees it, and the side panel."""
    game = empire_of(request)
    p = await Params.of(request)

    def build() -> dict[str, Any]:
        world = game.world()
        cnum = game.country(world, p.get("as") or None)
        return {
            "source": game.label,
            "scratch": game.scratch,
            "countries": [
                (n.cnum, n.name) for n in sorted(world.nations.values(), key=lambda n: n.cnum)
            ],
            "map": map_context(game, cnum),
            "target": p.get("target"),
            "kind": p.get("kind") if p.get("kind") in ("ship", "unit") else "sector",
            "version": game.version(),
        }

    return respond(request, "empire.html", await run_in_threadpool(build))


async def map_fragment(request: Request) -> Response:
    """The map's data for the page's script (``/empire/map``), or as objects (``.json``)."""
    game = empire_of(request)
    p = await Params.of(request)

    def build() -> dict[str, Any]:
        return {"map": map_context(game, _country(game, p)), "version": game.version()}

    return respond(request, "_mapdata.html", await run_in_threadpool(build))


async def target(request: Request) -> Response:
    """The side panel: every way to take the sector, ship or unit clicked."""
    game = empire_of(request)
    p = await Params.of(request)
    kind = p.get("kind", "sector")
    ident = p.get("id").strip()
    if not ident:
        raise Bad(400, "id: which sector (x,y), ship or unit number?")

    def build() -> dict[str, Any]:
        cnum = _country(game, p)
        ctx = game.ways(cnum, kind, ident)
        ctx["as"] = cnum
        ctx["writes"] = not game.scratch  # a fight on a database asks to be confirmed
        ctx["others"] = _others_here(game, cnum, kind, ident)
        return ctx

    return respond(request, "_target.html", await run_in_threadpool(build))


def _others_here(game: EmpireGame, cnum: int, kind: str, ident: str) -> list[dict[str, Any]]:
    """Enemy ships and land units in the sector clicked: targets of their own."""
    if kind != "sector":
        return []
    view = game.map_view(cnum)
    key = ident.replace(" ", "")
    out = [{"kind": "ship", **s} for s in view["ships"] if s["key"] == key and s["owner"] != cnum]
    out += [
        {"kind": "unit", **u}
        for u in view["units"]
        if u["key"] == key and u["owner"] != cnum and not u["aboard"]
    ]
    return out


def with_charts(doc: dict[str, Any]) -> dict[str, Any]:
    """The odds document with its two loss histograms as bars."""
    losses = doc.get("losses", {})
    doc["hist_attacker"] = charts.histogram(losses.get("attacker", []))
    doc["hist_defender"] = charts.histogram(losses.get("defender", []))
    return doc


async def odds(request: Request) -> Response:
    """The plan's odds from the planner.  The page asks while a control moves (``live=1``)
    and again when it rests; both get the same numbers, kept per plan."""
    game = empire_of(request)
    p = await Params.of(request)
    plan = plan_of(p)

    def build() -> dict[str, Any]:
        return {"odds": with_charts(game.odds(_country(game, p), plan)), "plan": plan}

    return respond(request, "_odds.html", await run_in_threadpool(build))


async def need(request: Request) -> Response:
    """The least force for a 90 % chance, spread over the sources."""
    game = empire_of(request)
    p = await Params.of(request)
    plan = plan_of(p)

    def build() -> dict[str, Any]:
        return {"need": game.need(_country(game, p), plan), "plan": plan}

    return respond(request, "_need.html", await run_in_threadpool(build))


async def play(request: Request) -> Response:
    """Plays of the real command, to check what the planner says."""
    game = empire_of(request)
    p = await Params.of(request)
    plan = plan_of(p)
    runs = p.integer("runs", low=1, high=1000) or PLAY_RUNS
    seed = p.integer("seed") or 1

    def build() -> dict[str, Any]:
        return {"odds": with_charts(game.play(_country(game, p), plan, runs, seed)), "plan": plan}

    return respond(request, "_odds.html", await run_in_threadpool(build))


async def order(request: Request) -> Response:
    """The order a Fight sends, as typed, and its force: what the page asks the player
    to confirm before a fight is written to a database."""
    game = empire_of(request)
    p = await Params.of(request)
    plan = plan_of(p)

    def build() -> dict[str, Any]:
        _country(game, p)
        return {
            "order": plan.order().text(),
            "mil": {k: n for k, n in sorted(plan.mil.items()) if n},
            "units": sorted(plan.units),
            "answers": _answers(plan),
            "seed": p.integer("seed"),
            "writes": None if game.scratch else game.label,
            "version": game.version(),
        }

    return respond(request, "_confirm.html", await run_in_threadpool(build))


def _answers(plan: Plan) -> list[str]:
    """The command's other answers the plan gives, as the confirmation lists them."""
    out = []
    if plan.yes:
        out.append("yes to its yes-or-no questions")
    if plan.move_in is not None:
        out.append(f"{plan.move_in} mil move in")
    if plan.move_in_units is not None:
        ids = ", ".join(f"#{u}" for u in sorted(plan.move_in_units))
        out.append(f"units that move in: {ids or 'none'}")
    return out


async def fight(request: Request) -> Response:
    """Run the order for real (see :meth:`EmpireGame.fight`): a question, or the outcome."""
    game = empire_of(request)
    p = await Params.of(request)
    plan = plan_of(p)
    seed = p.integer("seed")
    base = p.integer("base", high=2**62)
    answers = p.all("answer")
    if len(answers) > 200 or any(len(a) > 200 for a in answers):
        raise Bad(400, "answer: too many or too long")

    def build() -> dict[str, Any]:
        cnum = _country(game, p)
        result = game.fight(cnum, plan, seed=seed, answers=answers, base=base)
        keep = [(k, v) for k, v in p.items if k not in ("answer", "seed", "base", "live")]
        return {"fight": result, "keep": keep, "as": cnum}

    # The page's script asks for the fragment; a browser without it gets a whole page.
    fragment = request.headers.get("x-bellum-fragment") == "1"
    return respond(
        request, "_fight.html" if fragment else "fight.html", await run_in_threadpool(build)
    )


#: How often an open page's event stream looks at the world, in seconds.
EVENTS_POLL = 1.0
#: A comment line this often keeps an idle stream's connection open through proxies.
EVENTS_KEEPALIVE = 15.0


async def events(request: Request) -> Response:
    """Server-sent events for an open page: ``world`` when the world changes (a fight in
    this page, another tab, or another program writing the database), with the history's
    length (``version``) and the country's money and BTUs.  The page redraws its map and
    header and marks its plans stale.  The stream ends when the server stops."""
    game = empire_of(request)
    p = await Params.of(request)
    cnum = await run_in_threadpool(_country, game, p)
    stopping = state(request).stopping

    def header() -> dict[str, Any]:
        version = game.version()
        nation = game.world().nations[cnum]
        return {"version": version, "as": cnum, "money": nation.money, "btu": nation.btu}

    if request.url.path.endswith(".json"):  # the twin: the state now, once
        return respond(request, "", await run_in_threadpool(header))

    async def stream() -> AsyncIterator[str]:
        yield "retry: 2000\n\n"
        last, quiet = -1, 0.0
        while not stopping.is_set():
            version = await run_in_threadpool(game.version)
            if version != last:
                doc = await run_in_threadpool(header)
                last, quiet = doc["version"], 0.0
                yield f"event: world\ndata: {json.dumps(doc)}\n\n"
            elif quiet >= EVENTS_KEEPALIVE:
                quiet = 0.0
                yield ": still here\n\n"
            await asyncio.sleep(EVENTS_POLL)
            quiet += EVENTS_POLL

    return StreamingResponse(
        stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"}
    )


async def turn_plan(request: Request) -> Response:
    """The turn planner's plan (docs/plan.md): each attack with its odds, to accept or
    reject, and the data the map draws its arrows from."""
    game = empire_of(request)
    p = await Params.of(request)

    def build() -> dict[str, Any]:
        return {"turnplan": game.turn_plan(_country(game, p))}

    return respond(request, "_turnplan.html", await run_in_threadpool(build))


async def threats(request: Request) -> Response:
    """The strongest strike on each of the country's own, for the map's heat map."""
    game = empire_of(request)
    p = await Params.of(request)

    def build() -> dict[str, Any]:
        return {"threats": game.threats(_country(game, p))}

    return respond(request, "_threats.html", await run_in_threadpool(build))


async def history(request: Request) -> Response:
    game = empire_of(request)
    rows = await run_in_threadpool(game.history)
    return respond(request, "history.html", {"history": rows, "source": game.label})


def _cid(request: Request) -> int:
    text = str(request.path_params["cid"])
    return as_int(text, "command id", low=1, high=2**62)


async def _from_history(game: EmpireGame, build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``build()`` in a worker thread; an id the history does not hold is a 404 that
    names the world as the user gave it (not the scratch copy a --world is served from)."""
    try:
        return await run_in_threadpool(build)
    except UnknownCommand as exc:
        raise Bad(404, f"no command {exc.cid} in the history of {game.label}") from None


async def command(request: Request) -> Response:
    """A command of the history; the page's script gets it as a fight's outcome."""
    game = empire_of(request)
    cid = _cid(request)
    page = await _from_history(game, lambda: {"command": game.command(cid), "replay": None})
    if request.headers.get("x-bellum-fragment") == "1" and not request.url.path.endswith(".json"):
        c = page["command"]
        done = {"state": "done", "order": c["order"], "seed": c["seed"], "id": c["id"],
                "outcome": c["outcome"], "world_changed": c["changes"] > 0,
                "transcript": c["transcript"]}  # fmt: skip
        return respond(request, "_fight.html", {"fight": done, "keep": [], "as": c["country"]})
    return respond(request, "command.html", page)


async def replay(request: Request) -> Response:
    game = empire_of(request)
    cid = _cid(request)
    page = await _from_history(
        game, lambda: {"command": game.command(cid), "replay": game.replay(cid)}
    )
    return respond(request, "command.html", page)


ROUTES = [
    ("/empire", page, ["GET"]),
    ("/empire/map", map_fragment, ["GET"]),
    ("/empire/target", target, ["GET"]),
    ("/empire/odds", odds, ["GET"]),
    ("/empire/need", need, ["GET"]),
    ("/empire/play", play, ["GET"]),
    ("/empire/order", order, ["GET"]),
    ("/empire/fight", fight, ["POST"]),
    ("/empire/events", events, ["GET"]),
    ("/empire/turnplan", turn_plan, ["GET"]),
    ("/empire/threats", threats, ["GET"]),
    ("/empire/history", history, ["GET"]),
    ("/empire/history/{cid}", command, ["GET"]),
    ("/empire/history/{cid}/replay", replay, ["GET"]),
]
