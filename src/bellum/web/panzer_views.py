"""The Panzer Campaigns pages: the battlefield, explain, the exact outcome law, resolve.

An assault is given as ``target`` (a hex, ``col,row``) and ``unit`` (repeated ids); the
scenario's own ``[assault]`` is the default.  Nothing is written: a resolve shows the
state after the assault, the scenario file stays as it was.
"""

from __future__ import annotations

import re
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from bellum.errors import BellumError
from bellum.web import _charts as charts
from bellum.web import _hexmap as hexmap
from bellum.web._page import Bad, Endpoint, Params, panzer_of, respond
from bellum.web.games import PanzerGame

_HEX = re.compile(r"[0-9]{1,4},[0-9]{1,4}")


def _order(game: PanzerGame, p: Params) -> tuple[str, list[str]]:
    default_target, default_units = game.default_order()
    target = p.get("target", default_target).strip()
    if target and not _HEX.fullmatch(target):
        raise Bad(400, f"target: {target!r} is not a hex (col,row such as 4,4)")
    units = p.all("unit") if p.has("unit") or p.has("target") else default_units
    units = [u for u in units if u]
    if any(len(u) > 80 for u in units) or len(units) > 200:
        raise Bad(400, "unit: too many or too long")
    return target, units


#: Fortification features: drawn as a dashed rim, not as the hex's terrain.
FORTS = frozenset({"improved_position", "trench", "bunker", "pillbox"})
#: Hexside features drawn as water, as road, or as an obstacle.
WATER = frozenset({"river", "stream", "major_river", "canal"})
ROADS = frozenset({"road", "bridge", "railroad", "ferry", "ford"})
#: The pattern drawn over each terrain's fill (bellum.css gives the fills): every terrain
#: its own look, so the map reads without colour too.
TERRAIN_PATTERN = {
    "field": "rows", "vineyard": "rows", "orchard": "grove", "brush": "tufts",
    "forest": "trees", "jungle": "trees", "bocage": "hedges", "village": "houses",
    "town": "houses", "city": "blocks", "industrial": "blocks", "rough": "rocks",
    "broken": "rocks", "marsh": "reeds", "swamp": "reeds", "beach": "sand", "sand": "sand",
    "elevation": "contours",
}  # fmt: skip
#: A counter's size in SVG units (a hex is 24 wide, 20.8 high), and the gap of a spread stack.
COUNTER_W, COUNTER_H, SPREAD_GAP = 14.0, 10.4, 1.2


def board_context(
    game: PanzerGame, board: dict[str, Any], attackers: list[str], focus: str = ""
) -> dict[str, Any]:
    """Hexes, hexsides and stacks placed on the SVG; the view starts around ``focus``.

    Each hex holds at most one stack, inside it: the first unit's counter on top, a badge
    with the count when there are more, and all of them spread in a row above the hex for
    the page to show when the stack is clicked.
    """
    sides = board["sides"]
    hexes = []
    for h in board["hexes"]:
        cx, cy = hexmap.panzer_centre(h["col"], h["row"])
        terrain = h["terrain"]
        hexes.append(
            {
                **h,
                "cx": round(cx, 2),
                "cy": round(cy, 2),
                "main": next((t for t in terrain if t not in FORTS), "clear"),
                "fort": next((t for t in terrain if t in FORTS), ""),
                "pattern": TERRAIN_PATTERN.get(
                    next((t for t in terrain if t not in FORTS), "clear"), ""
                ),
                "label": " ".join(t.replace("_", " ") for t in terrain if t != "clear"),
            }
        )
    lines = []
    for s in board["hexsides"]:
        a = tuple(int(v) for v in s["a"].split(","))
        b = tuple(int(v) for v in s["b"].split(","))
        x1, y1, x2, y2 = hexmap.hexside_line(a, b)  # type: ignore[arg-type]
        features = set(s["features"])
        cls = ("water " if features & WATER else "") + ("road " if features & ROADS else "")
        cls += "major " if "major_river" in features else ""
        cls += "obstacle" if features - WATER - ROADS else ""
        lines.append({"x1": x1, "y1": y1, "x2": x2, "y2": y2, "cls": cls.strip(),
                      "label": f"{s['a']}|{s['b']}: {', '.join(s['features'])}"})  # fmt: skip
    by_hex: dict[str, list[dict[str, Any]]] = {}
    for u in board["units"]:
        by_hex.setdefault(u["hex"], []).append(u)
    stacks = []
    for key, units in by_hex.items():
        col, row = (int(v) for v in key.split(","))
        cx, cy = hexmap.panzer_centre(col, row)
        n = len(units)
        width = n * COUNTER_W + (n - 1) * SPREAD_GAP
        spread = [
            {**u, "x": round(-width / 2 + i * (COUNTER_W + SPREAD_GAP), 2),
             "attacking": u["id"] in attackers}
            for i, u in enumerate(units)
        ]  # fmt: skip
        stacks.append(
            {
                "hex": key,
                "cx": round(cx, 2),
                "cy": round(cy, 2),
                "top": spread[0],
                "units": spread,
                "count": n,
                "side_index": sides.index(units[0]["side"]) % 3,
                "attacking": any(u["attacking"] for u in spread),
                "spread_w": round(width + 2 * SPREAD_GAP, 2),
            }
        )
    layout = hexmap.panzer_layout(board["width"], board["height"])
    view = (0.0, 0.0, layout["w"], layout["h"])
    if _HEX.fullmatch(focus):
        fx, fy = hexmap.panzer_centre(*(int(v) for v in focus.split(",")))
        w = min(layout["w"], 7 * 1.5 * hexmap.R)
        h = min(layout["h"], 5 * hexmap.SQRT3 * hexmap.R)
        view = (round(fx - w / 2, 2), round(fy - h / 2, 2), round(w, 2), round(h, 2))
    return {
        **board,
        "hexes": hexes,
        "lines": lines,
        "stacks": stacks,
        "layout": layout,
        "view": view,
        "hex": hexmap.flat_hex(),
        "terrains": sorted({h["main"] for h in hexes}),
    }


async def page(request: Request) -> Response:
    game = panzer_of(request)
    p = await Params.of(request)
    target, units = _order(game, p)

    def build() -> dict[str, Any]:
        return {
            "name": game.name,
            "path": str(game.path),
            "board": board_context(game, game.board(), units, target),
            "target": target,
            "units": units,
            "terrain_pattern": TERRAIN_PATTERN,
        }

    return respond(request, "panzer.html", await run_in_threadpool(build))


async def plan(request: Request) -> Response:
    """Who may assault the target, and for the units chosen: explain and the exact odds."""
    game = panzer_of(request)
    p = await Params.of(request)
    target, units = _order(game, p)
    if not target:
        raise Bad(400, "target: which hex? (col,row)")

    def build() -> dict[str, Any]:
        candidates = game.candidates(target)
        if not p.has("unit") and p.get("pick") == "all":
            units[:] = [c["id"] for c in candidates if c["allowed"]]
        ctx: dict[str, Any] = {"target": target, "units": units, "candidates": candidates}
        ctx.update(explain=None, odds=None, odds_text="", why="", problem="")
        if units:
            ctx.update(study(game, target, units))
        return ctx

    return respond(request, "_pzplan.html", await run_in_threadpool(build))


def study(game: PanzerGame, target: str, units: list[str]) -> dict[str, Any]:
    """``game.study`` with the loss histograms drawn, or the rules' refusal as
    ``problem`` (shown where the result would be)."""
    try:
        out = game.study(target, units)
    except BellumError as exc:
        return {"problem": str(exc)}
    if out["odds"] is not None:
        out["charts"] = {side: charts.histogram(points(out["odds"], side))
                         for side in ("attacker", "defender")}  # fmt: skip
    return out


def points(odds: dict[str, Any], side: str) -> list[tuple[int, float]]:
    """A side's loss distribution from an odds document, as (loss, probability) pairs."""
    d = odds["distributions"][side]
    return list(zip(d["losses"], d["probabilities"], strict=True))


async def resolve(request: Request) -> Response:
    game = panzer_of(request)
    p = await Params.of(request)
    target, units = _order(game, p)
    if not target or not units:
        raise Bad(400, "choose the target hex and at least one assaulting unit")
    seed = p.integer("seed")

    def build() -> dict[str, Any]:
        done = game.resolve(target, units, seed)
        result = done["result"]
        board = board_context(game, done["board"], units, target)
        before = {u["id"]: u["hex"] for u in game.board()["units"]}
        arrows = []
        for u in result["units"]:
            to = u["hex_after"] or (u["fate"] or {}).get("destination")
            if to and to != before.get(u["id"]):
                a = hexmap.panzer_centre(*(int(v) for v in before[u["id"]].split(",")))
                b = hexmap.panzer_centre(*(int(v) for v in to.split(",")))
                kind = "advance" if u["role"] == "attacker" else "retreat"
                # Stop short of the destination, so the head shows beside its counters.
                x2, y2 = a[0] + 0.55 * (b[0] - a[0]), a[1] + 0.55 * (b[1] - a[1])
                arrows.append({"x1": a[0], "y1": a[1], "x2": x2, "y2": y2, "kind": kind,
                               "label": f"{u['id']} {kind}s to {to}"})  # fmt: skip
        board["arrows"] = arrows
        return {"result": result, "board": board, "target": target, "units": units}

    return respond(request, "_pzresult.html", await run_in_threadpool(build))


ROUTES: list[tuple[str, Endpoint, list[str]]] = [
    ("/panzer", page, ["GET"]),
    ("/panzer/plan", plan, ["GET"]),
    ("/panzer/resolve", resolve, ["GET"]),
]
