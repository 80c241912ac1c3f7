"""Threats: the strongest single strike the enemy can make this turn on each of your things.

For every other country not allied to you, the planner's candidates are
listed *as that country* (:mod:`.candidates`: the same commands, the same
checks), kept where the target is yours, and each is solved with everything
the command offers (every mil the prompts allow, every land unit): the
strongest single strike.  A target's threat is its likeliest strike.

What the enemy has is known only in a deity's view of the game.  In a
player's view (a world with :class:`~bellum.empire.world.Fog`) the enemy's
forces follow the fog-of-war rules (docs/fog.md): for each of the country's
things, :func:`~bellum.empire.intel.belief.believe` gives a distribution over
everything within reach that was not seen exactly (the enemy's mil, units,
ships and planes seen, rounded and aged; sectors never seen like those seen,
with their units), complete worlds are drawn from it, every enemy strike is
solved on each, and a strike's odds are their mixture, as ``bellum empire
odds`` mixes a player's odds.  Each threat lists what it assumed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from bellum.collector import fewer_collections
from bellum.empire.geometry import Coord
from bellum.empire.intel.belief import REACH, Assumptions, Input, believe
from bellum.empire.odds import Plan
from bellum.empire.odds.drawn import drawn_mixture_error
from bellum.empire.orders import Order
from bellum.empire.plan.candidates import candidates, strongest
from bellum.empire.plan.curves import (
    CURVE_VERSION,
    PLANNING,
    CurveCache,
    Point,
    Pool,
    Precision,
    rules_digest,
    solve_batches,
    solve_points,
)
from bellum.empire.plan.planner import prize, shown_target
from bellum.empire.plan.precision import THREAT_DRAWS
from bellum.empire.rules import Rules
from bellum.empire.world import Relation, World
from bellum.errors import BellumError

Progress = Callable[[str, float], None]


SCHEMA = "bellum.empire.threats"
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Threat:
    """The likeliest strike on one of the country's sectors, ships or land units."""

    target: str
    where: str
    enemy: int
    order: Order
    point: Point
    #: What the target is worth (the planner's prize formula): what is at risk.
    worth: float
    #: In a player's view: the worlds drawn, and the inputs that were not seen exactly
    #: (how each was treated).
    draws: int = 0
    assumed: tuple[Input, ...] = ()

    @property
    def risk(self) -> float:
        return self.worth * self.point.p


@dataclass(frozen=True)
class ThreatMap:
    country: int
    threats: tuple[Threat, ...]
    notes: tuple[str, ...]
    strikes: int
    seconds_solved: int


def enemy_view(world: World, country: int) -> tuple[World, tuple[str, ...]]:
    """The world the enemy's strikes are computed on, and what it assumes: a deity's view
    is the world; a player's view is drawn from its beliefs (:func:`_fog_threats`)."""
    if world.fog is None:
        return world, ()
    return world, (
        f"a player's view: the enemy's forces within {REACH} sectors of each of yours are drawn"
        f" from the fog-of-war priors (docs/fog.md), up to {THREAT_DRAWS} worlds each, and every"
        " strike is solved on each world; each threat lists what it assumed",
        "an enemy sector seen without its mil counts none; what was seen further away is"
        " taken as seen (units, ships and planes at 100 % and fully loaded)",
    )


def _owner(world: World, target: str) -> int:
    kind, _, ident = target.partition(":")
    if kind == "sector":
        x, y = (int(v) for v in ident.split(","))
        return world.sector((x, y)).owner
    if kind == "ship":
        return world.ships[int(ident)].owner
    return world.units[int(ident)].owner


def enemies_of(world: World, country: int) -> list[int]:
    return sorted(
        c
        for c, n in world.nations.items()
        if c not in (0, country) and n.active and world.rel(c, country) != Relation.ALLIED
    )


@fewer_collections()
def threat_map(
    world: World,
    country: int,
    *,
    seed: int = 1,
    pool: Pool | None = None,
    cache: CurveCache | None = None,
    version: str = "",
    progress: Progress | None = None,
    rules: Rules | None = None,
    draws: int = THREAT_DRAWS,
    precision: Precision = PLANNING,
) -> ThreatMap:
    """Every threatened sector, ship and land unit of ``country``, likeliest strike first,
    under ``rules`` (by default the world's own), each strike solved at ``precision``.

    With ``cache`` and ``version`` (the store's digest of the world, a player's view
    with what it has seen included) the map is kept, and the same question of the same
    world is answered from it (``solved`` 0): the web page's heat map asks again each
    time it is shown.
    """
    chosen = rules or Rules.of(world.options)
    where = f"{version}|threats"
    key = f"{CURVE_VERSION}|{country}|{seed}|{draws}|{rules_digest(chosen)}|{precision}"
    if cache is not None and version:
        known = cache.get_curves(where, [key])
        if key in known:
            return _loaded(country, known[key])
    tm = _threat_map(world, country, chosen, seed=seed, pool=pool, cache=cache,
                     version=version, progress=progress, draws=draws,
                     precision=precision)  # fmt: skip
    if cache is not None and version:
        cache.put_curves(where, {key: _kept(tm)})
    return tm


def _kept(tm: ThreatMap) -> str:
    """``tm`` as the cache keeps it."""
    return json.dumps(
        {
            "notes": list(tm.notes),
            "strikes": tm.strikes,
            "threats": [
                {
                    "target": t.target,
                    "where": t.where,
                    "enemy": t.enemy,
                    "order": [t.order.name, list(t.order.args), list(t.order.conditions)],
                    "point": asdict(t.point),
                    "worth": t.worth,
                    "draws": t.draws,
                    "assumed": [asdict(i) for i in t.assumed],
                }
                for t in tm.threats
            ],
        }
    )


def _loaded(country: int, text: str) -> ThreatMap:
    """The map :func:`_kept` kept (nothing solved now)."""
    d = json.loads(text)
    threats = tuple(
        Threat(
            t["target"],
            t["where"],
            t["enemy"],
            Order(t["order"][0], tuple(t["order"][1]), tuple(t["order"][2])),
            Point(**t["point"]),
            t["worth"],
            t["draws"],
            tuple(Input(**i) for i in t["assumed"]),
        )
        for t in d["threats"]
    )
    return ThreatMap(country, threats, tuple(d["notes"]), d["strikes"], 0)


def _threat_map(
    world: World,
    country: int,
    chosen: Rules,
    *,
    seed: int,
    pool: Pool | None,
    cache: CurveCache | None,
    version: str,
    progress: Progress | None,
    draws: int,
    precision: Precision,
) -> ThreatMap:
    view, notes = enemy_view(world, country)
    if view.fog is not None:
        return _fog_threats(view, country, notes, chosen, seed=seed, pool=pool, draws=draws,
                            progress=progress, precision=precision)  # fmt: skip
    best: dict[str, Threat] = {}
    strikes = solved = 0
    for enemy in enemies_of(view, country):

        def probed(f: float, enemy: int = enemy) -> None:
            if progress is not None:
                progress(f"orders of country {enemy}", f)

        def tick(f: float, enemy: int = enemy) -> None:
            if progress is not None:
                progress(f"strikes of country {enemy}", f)

        found = candidates(view, enemy, chosen, pool=pool, progress=probed)
        mine = [c for c in found if _owner(view, c.target) == country]
        plans = [Plan(c.order, rules=c.rules) for c in mine]
        strikes += len(plans)

        points, n = solve_points(view, enemy, plans, seed=seed, precision=precision,
                                 pool=pool, cache=cache, version=version,
                                 progress=tick)  # fmt: skip
        solved += n
        for c, pt in zip(mine, points, strict=True):
            if pt is None:
                continue
            old = best.get(c.target)
            if old is None or (pt.p, pt.defender) > (old.point.p, old.point.defender):
                where = shown_target(view, country, c.target)
                worth = prize(view, c.target, {})
                best[c.target] = Threat(c.target, where, enemy, c.order, pt, worth)
    ranked = sorted(best.values(), key=lambda t: (-t.point.p, -t.risk, t.target))
    return ThreatMap(country, tuple(ranked), notes, strikes, solved)


def _mine(view: World, country: int) -> list[tuple[str, Coord]]:
    """The country's sectors, ships and land units (not aboard), by key, with where."""
    out = [(f"sector:{x},{y}", (x, y)) for (x, y), s in view.sectors.items() if s.owner == country]
    out += [(f"ship:{k}", sh.xy) for k, sh in sorted(view.ships.items()) if sh.owner == country]
    out += [
        (f"unit:{k}", u.xy)
        for k, u in sorted(view.units.items())
        if u.owner == country and not u.loaded
    ]
    return out


def _enemy_near(view: World, country: int, xy: Coord, enemies: list[int]) -> Coord | None:
    """Where an enemy was seen within reach of ``xy``: the nearest thing of theirs seen
    (a sector before a unit, ship or plane as near), or ``None``."""
    geo = view.geometry
    best: tuple[int, int, Coord] | None = None
    for o in view.observations.values():
        owner = o.get("owner")
        if owner is None or owner.value not in enemies:
            continue
        at = o.ident if o.kind == "sector" else o.get("at")
        where = at if isinstance(at, str) else (at.value if at is not None else None)
        if not isinstance(where, str) or "," not in where:
            continue
        x, _, y = where.partition(",")
        seen = geo.norm(int(x), int(y))
        rank = (int(geo.mapdist(seen, xy)), o.kind != "sector", seen)
        if rank[0] <= REACH and (best is None or rank < best):
            best = rank
    return None if best is None else best[2]


#: Mobility a sector holds at most (the server's ``sect_mob_max``).
SECTOR_MOB_MAX = 127


def _armed(view: World, w: World, enemies: list[int], rules: Rules) -> list[Input]:
    """What the fog-of-war beliefs leave out and only the attacker needs, set in ``w`` as
    the strongest strike would have it: an enemy's BTUs, and the mobility of its sectors,
    where they were not seen.  Returns the inputs so assumed."""
    out = []
    for e in enemies:
        if view.nations[e].btu is None:
            w.nations[e].btu = rules.max_btus
            out.append(_most(f"nation#{e}.btu", rules.max_btus))
        blind = [
            sect for xy, sect in w.sectors.items()
            if sect.owner == e and not _seen_field(view, xy, "mob")
        ]  # fmt: skip
        for sect in blind:
            sect.mob = SECTOR_MOB_MAX
        if blind:
            out.append(_most(f"country#{e} sectors.mob", SECTOR_MOB_MAX))
    return out


def _most(name: str, value: int) -> Input:
    return Input(name, "unknown", None, None, None,
                 f"never shown: the most, {value} (the strongest strike)")  # fmt: skip


def _seen_field(view: World, xy: Coord, name: str) -> bool:
    o = view.observations.get(f"sector {xy[0]},{xy[1]}")
    return o is not None and o.get(name) is not None


#: In one drawn world: each enemy's job (its index) and the orders it solves.
_ByEnemy = dict[int, tuple[int, list[Order]]]


def _fog_threats(
    view: World,
    country: int,
    notes: tuple[str, ...],
    rules: Rules,
    *,
    seed: int,
    pool: Pool | None,
    draws: int,
    progress: Progress | None,
    precision: Precision = PLANNING,
) -> ThreatMap:
    """The threats of a player's view (module notes): for each of the country's things
    with an enemy seen within reach, worlds drawn from the belief centred on the enemy
    nearest it (so that the enemy's unseen land is filled in like what was seen of it),
    each enemy strike solved on each world, and the odds mixed with the draws' weights."""
    enemies = enemies_of(view, country)
    jobs: list[tuple[World, int, list[Plan]]] = []
    #: Per target: its inputs, its draws (weight, and the jobs of that world by enemy).
    drawn: dict[
        str, tuple[list[Input], list[tuple[float, dict[int, tuple[int, list[Order]]]]], bool]
    ] = {}
    mine = _mine(view, country)
    for n, (key, xy) in enumerate(mine):
        centre = _enemy_near(view, country, xy, enemies)
        if centre is None:
            continue
        # The belief takes its centre for a fight's target: that sector's mines are no
        # input of a strike on ours (0, and not listed).
        beside = f"{view.fmt(centre, country)}.mines" if centre != xy else ""
        try:
            fixed = Assumptions({beside: "0"} if beside else {})
            belief = believe(view, country, centre, assume=fixed)
        except BellumError:
            belief, beside = believe(view, country, xy), ""
        rows = list(belief.draws(draws, seed))
        worlds = []
        armed: list[Input] = []
        for values, weight in rows:
            w = belief.world(values)
            armed = _armed(view, w, enemies, rules)
            by_enemy: _ByEnemy = {}
            for enemy in enemies_of(w, country):
                cands = candidates(w, enemy, rules, {key})
                if cands:
                    by_enemy[enemy] = (len(jobs), [c.order for c in cands])
                    jobs.append((w, enemy, [strongest(c).plan for c in cands]))
            worlds.append((weight, by_enemy))
        inputs = [i for i in belief.inputs if i.name != beside] + armed
        drawn[key] = (inputs, worlds, belief.combinations() <= draws)
        if progress is not None:
            progress("drawing the enemy's forces", (n + 1) / len(mine))

    def tick(f: float) -> None:
        if progress is not None:
            progress(f"{sum(len(p) for _, _, p in jobs)} strikes on drawn worlds", f)

    points = solve_batches(jobs, seed=seed, precision=precision, pool=pool, progress=tick)
    threats = []
    for key, (inputs, worlds, exhaustive) in drawn.items():
        total = sum(weight for weight, _ in worlds)
        strikes: dict[tuple[int, Order], list[tuple[float, Point]]] = {}
        for weight, by_enemy in worlds:
            for enemy, (job, orders) in by_enemy.items():
                for order, pt in zip(orders, points[job], strict=True):
                    if pt is not None:
                        strikes.setdefault((enemy, order), []).append((weight / total, pt))
        if not strikes:
            continue
        mixed = {k: _mix(parts, exhaustive, len(worlds)) for k, parts in strikes.items()}
        (enemy, order), pt = max(mixed.items(), key=lambda kv: (kv[1].p, kv[1].defender))
        assumed = tuple(i for i in inputs if i.status != "known" or "as seen" not in i.treatment)
        worth = prize(view, key, {})
        threats.append(Threat(key, shown_target(view, country, key), enemy, order, pt, worth,
                              len(worlds), assumed))  # fmt: skip
    ranked = sorted(threats, key=lambda t: (-t.point.p, -t.risk, t.target))
    return ThreatMap(country, tuple(ranked), notes, sum(len(p) for _, _, p in jobs), len(jobs))


def _mix(parts: list[tuple[float, Point]], exhaustive: bool, n: int) -> Point:
    """One strike's odds over the worlds drawn (``parts``: each world's weight, the
    weights summing to 1 over all the worlds, and its point; a world where the strike
    cannot be made adds nothing): P(success) and losses are their weighted sums, the
    standard error :func:`~bellum.empire.odds.drawn.drawn_mixture_error`'s."""
    kind = "every combination of the unknowns" if exhaustive else "drawn from the unknowns"
    return Point(
        sum(w * pt.p for w, pt in parts),
        drawn_mixture_error([(w, pt.p, pt.se) for w, pt in parts], n, exhaustive),
        sum(w * pt.attacker for w, pt in parts),
        sum(w * pt.defender for w, pt in parts),
        f"fog: {n} worlds, {kind}",
    )


def to_json(world: World, tm: ThreatMap) -> dict[str, Any]:
    def r(x: float) -> float:
        return float(f"{x:.6g}")

    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "country": tm.country,
        "notes": list(tm.notes),
        "strikes": tm.strikes,
        "threats": [
            {
                "target": t.where,
                "kind": t.target.partition(":")[0],
                "enemy": t.enemy,
                "order": t.order.text(),
                "p_success": r(t.point.p),
                "standard_error": r(t.point.se),
                "method": t.point.method,
                "expected_losses": {
                    "attacker": r(t.point.attacker),
                    "defender": r(t.point.defender),
                },
                "worth": r(t.worth),
                "risk": r(t.risk),
                "draws": t.draws,
                "assumed": [
                    {"name": i.name, "status": i.status, "treatment": i.treatment}
                    for i in t.assumed
                ],
            }
            for t in tm.threats
        ],
    }


__all__ = [
    "SCHEMA",
    "SCHEMA_VERSION",
    "Threat",
    "ThreatMap",
    "enemy_view",
    "threat_map",
    "to_json",
]
