"""The Panzer Campaigns calculator: an assault built in a form, no TOML to write.

The form describes one assault: the target hex (terrain, fortification, elevation), its
defenders, the attacking units and the hex each comes from, the hexside each crosses, and
the rules' keys and Parameter Data with their documented defaults.  :func:`document`
turns its fields into a scenario document, which the service validates and solves like a
file (:func:`~bellum.web.games.calculator_game`); the page shows the odds and the
explain table as the form changes, saves the scenario as TOML and loads one.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from bellum.errors import BellumError
from bellum.numbers import shown
from bellum.web._page import Bad, Endpoint, Params, as_int, as_number, respond, state
from bellum.web.games import (
    CALC_SIZE,
    CALC_TARGET,
    DIRECTIONS,
    FORTS,
    calc_hex,
    calculator_choices,
    calculator_game,
    calculator_state,
    read_scenario,
    scenario_text,
)
from bellum.web.panzer_views import study

_ROW = re.compile(r"u\.([0-9]{1,4})\.[a-z]+")
#: The longest name, side or unit id the form takes.
MAX_TEXT = 80
#: Most units in one calculator assault (a hex holds a few; six hexes attack).
MAX_UNITS = 60

#: The assault the calculator starts from when the server has no scenario with one.
DEFAULT: dict[str, Any] = {
    "schema_version": 1,
    "name": "Calculator",
    "map": {"width": CALC_SIZE, "height": CALC_SIZE, "terrain": {"2,2": ["village"]}},
    "units": [
        {"id": "def-1", "side": "Defenders", "hex": "2,2", "kind": "personnel",
         "strength": 400, "assault": 6, "defense": 8, "quality": "C"},
        {"id": "att-1", "side": "Attackers", "hex": "2,1", "kind": "personnel",
         "strength": 600, "assault": 7, "defense": 6, "quality": "C"},
        {"id": "att-2", "side": "Attackers", "hex": "3,2", "kind": "vehicle",
         "strength": 14, "assault": 9, "defense": 8, "quality": "B"},
    ],
    "assault": {"target": "2,2", "units": ["att-1", "att-2"]},
}  # fmt: skip


def _text(p: Params, name: str, default: str) -> str:
    value = p.get(name, default).strip() or default
    if len(value) > MAX_TEXT:
        raise Bad(400, f"{name}: longer than {MAX_TEXT} characters")
    return value


def _one_of(p: Params, name: str, options: list[str] | tuple[str, ...], default: str) -> str:
    value = p.get(name, default)
    if value not in options:
        raise Bad(400, f"{name}: '{shown(value)}' is not one of {', '.join(options)}")
    return value


def _json(p: Params, name: str) -> Any:
    text = p.get(name)
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        raise Bad(400, f"{name}: not valid JSON") from None
    if not isinstance(value, dict):
        raise Bad(400, f"{name}: expected a JSON object")
    return value


def document(p: Params) -> tuple[dict[str, Any], list[str]]:
    """The scenario document the form's fields describe, and the assaulting units' ids.

    A malformed field is a 400 naming it; what the rules refuse (two units with one id,
    a unit that may not assault) is left to the scenario loader and the study.
    """
    choices = calculator_choices()
    att_side = _text(p, "att_side", "Attackers")
    def_side = _text(p, "def_side", "Defenders")
    if att_side == def_side:
        raise Bad(400, "att_side: the attackers' side must differ from the defenders'")
    terrain = [_one_of(p, "terrain", choices["terrain"], "clear")]
    fort = p.get("fort")
    if fort:
        terrain.append(_one_of(p, "fort", FORTS, ""))
    if p.get("elevation") == "true":
        terrain.append("elevation")
    target = str(CALC_TARGET)
    hexsides = []
    for d in DIRECTIONS:
        features = [
            _one_of(p, f"side.{d}.{what}", ["", *choices[kinds]], "")
            for what, kinds in (("feature", "features"), ("crossing", "crossings"))
        ]
        if any(features):
            hexsides.append({"between": [target, str(calc_hex(d))],
                             "features": [f for f in features if f]})  # fmt: skip
    rows = sorted({int(m.group(1)) for k, _ in p.items if (m := _ROW.fullmatch(k))})
    if len(rows) > MAX_UNITS:
        raise Bad(400, f"u: at most {MAX_UNITS} units")
    units, attackers = [], []
    for k in rows:
        f = f"u.{k}."
        role = _one_of(p, f + "role", ("attacker", "defender"), "")
        where = target
        if role == "attacker":
            where = str(calc_hex(_one_of(p, f + "from", DIRECTIONS, "")))
        uid = _text(p, f + "id", f"{role[:3]}-{k}")
        units.append(
            {
                **_json(p, f + "more"),
                "id": uid,
                "side": att_side if role == "attacker" else def_side,
                "hex": where,
                "kind": _one_of(p, f + "kind", choices["kinds"], "personnel"),
                "strength": as_int(
                    p.get(f + "strength") or "0", f + "strength", low=1, high=100_000
                ),
                "assault": as_number(p.get(f + "assault") or "0", f + "assault", high=1000),
                "defense": as_number(p.get(f + "defense") or "0", f + "defense", high=1000),
                "quality": _one_of(p, f + "quality", choices["qualities"], "C"),
                "fatigue": as_int(p.get(f + "fatigue") or "0", f + "fatigue", high=300),
                "mode": _one_of(p, f + "mode", choices["modes"], "deployed"),
                "state": _one_of(p, f + "state", choices["states"], "normal"),
            }
        )
        if role == "attacker":
            attackers.append(uid)
    params: dict[str, Any] = dict(_json(p, "tables"))
    for name, default in choices["params"].items():
        text = p.get(f"param.{name}").strip()
        if text and (x := as_number(text, f"param.{name}", high=1e6)) != default:
            params[name] = x
    raw: dict[str, Any] = {
        "schema_version": 1,
        "name": _text(p, "name", "Calculator"),
        "night": p.get("night") == "true",
        "map": {
            "width": CALC_SIZE,
            "height": CALC_SIZE,
            "terrain": {target: terrain},
            "hexsides": hexsides,
        },
        "rules": _rules(p, choices["rules"]),
        "units": units,
    }
    if params:
        raw["parameter_data"] = params
    if attackers:
        raw["assault"] = {"target": target, "units": attackers}
    return raw, attackers


def _rules(p: Params, keys: Any) -> dict[str, Any]:
    """The rules' keys the form sets to something other than their default."""
    out: dict[str, Any] = {}
    for key in keys:
        text = p.get(f"rule.{key.name}").strip()
        if not text:
            continue
        value: Any = text
        if isinstance(key.default, bool):
            value = text == "true"
        elif key.number_or_choice and text in key.choices:
            value = text
        elif key.number_or_choice or isinstance(key.default, int | float):
            value = as_number(text, f"rule.{key.name}", low=-1e9, high=1e9)
            if isinstance(key.default, int) and value.is_integer():
                value = int(value)
        if value != key.default:
            out[key.name] = value
    return out


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "assault"


# --------------------------------------------------------------------------- views


async def page(request: Request) -> Response:
    """The calculator, starting from the served scenario's assault (or ``target`` and
    ``unit``), else from a small default assault."""
    game = state(request).panzer
    p = await Params.of(request)

    def build() -> dict[str, Any]:
        if game is not None and (game.scenario.assault is not None or p.get("target")):
            calc = calculator_state(game.scenario, p.get("target").strip(), p.all("unit"))
        else:
            calc = calculator_state(calculator_game(DEFAULT).scenario)
        return {"calc": calc, "choices": calculator_choices()}

    return respond(request, "pzcalc.html", await run_in_threadpool(build))


async def odds(request: Request) -> Response:
    """The odds and the explain table of the form's assault (what the page shows live)."""
    p = await Params.of(request)
    raw, attackers = document(p)

    def build() -> dict[str, Any]:
        ctx: dict[str, Any] = {"explain": None, "odds": None, "odds_text": "", "why": "",
                               "problem": ""}  # fmt: skip
        try:
            game = calculator_game(raw)
        except BellumError as exc:  # the loader's refusal (an id twice...), in its words
            ctx["problem"] = str(exc)
            return ctx
        if not attackers:
            ctx["problem"] = "Add an attacking unit: the assault needs one."
        else:
            ctx.update(study(game, str(CALC_TARGET), attackers))
        return ctx

    return respond(request, "_pzcalc_result.html", await run_in_threadpool(build))


async def scenario_file(request: Request) -> Response:
    """The form's assault as a scenario file (a download): ``bellum panzer odds`` reads it."""
    p = await Params.of(request)
    raw, _ = document(p)
    game = await run_in_threadpool(calculator_game, raw)
    text = await run_in_threadpool(scenario_text, game)
    name = f"{_slug(raw['name'])}.toml"
    return Response(
        text,
        media_type="application/toml",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


async def load(request: Request) -> Response:
    """A scenario file's assault in the form (``toml``: the file's text, ``name``: its
    name, for messages); what the form cannot hold is listed in its notes."""
    p = await Params.of(request)
    name = _text(p, "name", "scenario.toml")
    text = p.get("toml")
    if not text.strip():
        raise Bad(400, f"{name}: the file is empty")

    def build() -> dict[str, Any]:
        scenario = read_scenario(text, name)
        return {"calc": calculator_state(scenario), "choices": calculator_choices()}

    return respond(request, "_pzcalc_form.html", await run_in_threadpool(build))


ROUTES: list[tuple[str, Endpoint, list[str]]] = [
    ("/panzer/calculator", page, ["GET"]),
    ("/panzer/calculator/odds", odds, ["GET"]),
    ("/panzer/calculator/load", load, ["POST"]),
]
#: Routes without a JSON twin: the scenario file.
FILES: list[tuple[str, Endpoint, list[str]]] = [
    ("/panzer/calculator/scenario.toml", scenario_file, ["GET"]),
]
