"""``paradrop <cargo-PLANES> <fighter-PLANES> <ap-SECT> <PATH or DESTINATION>`` (spec §16.4).

Transport planes gather at an assembly point, load paratroopers from their
bases, fly the route (air combat en route, :mod:`bellum.empire.air`) and drop
whoever got through on the target.  The fight is the attack's fight with
defensive support only; nothing but the paratroopers moves in.  Paratroopers
dropped on an illegal zone are lost: they left their base when the planes
were armed (§1.2).
"""

from __future__ import annotations

from dataclasses import dataclass

from bellum.dice import ServerRandom
from bellum.empire import air
from bellum.empire.combat import target
from bellum.empire.combat.conclude import conclude
from bellum.empire.combat.flows import (
    ABORT_LINE,
    ask_text,
    defend_and_fight,
    initial_strength,
    run_flow,
)
from bellum.empire.combat.result import COMMAND_BTU, CombatResult
from bellum.empire.combat.state import (
    Combat,
    Failure,
    Mode,
    OffObject,
    UsageFailure,
    infected,
    ldround,
)
from bellum.empire.events import Prompter, Sink
from bellum.empire.geometry import DIRECTION_KEYS, DIRECTIONS, Coord
from bellum.empire.tables import plane_load, plane_range
from bellum.empire.world import Plane, Relation, Sector, World
from bellum.errors import UsageError
from bellum.numbers import to_int

PARADROP_USAGE = "Usage: paradrop <cargo-PLANES> <fighter-PLANES> <ap-SECT> <PATH or DESTINATION>"
NO_SUPPORT = (False, False, False, False)


@dataclass
class Drop(OffObject):
    """The paratroopers of the surviving transports: an off-object with no store.

    They come from the assembly point ``ap``; casualties are simply gone.
    """

    ap: Coord = (0, 0)

    @property
    def xy(self) -> Coord:
        return self.ap

    @property
    def mil(self) -> int:
        return self.troops

    @mil.setter
    def mil(self, n: int) -> None:
        """Nothing to write back: the planes return to base empty."""


def paradrop(
    world: World,
    planes: str | None,
    escorts: str | None,
    ap: str | None,
    route: str | None,
    aggressor: int,
    dice: ServerRandom,
    prompter: Prompter,
    sink: Sink | None = None,
) -> CombatResult:
    """``paradrop`` (spec §16.4); missing arguments are prompted for (§1.1)."""
    c = Combat(world, dice, prompter, aggressor, Mode.PARADROP, sink=sink)
    result = CombatResult("paradrop", dice.seed, "aborted", aggressor)
    return run_flow(c, result, lambda: _flow(c, planes, escorts, ap, route, result))


def _flow(
    c: Combat,
    planes: str | None,
    escorts: str | None,
    ap_text: str | None,
    route_text: str | None,
    result: CombatResult,
) -> None:
    a = c.aggressor
    transports = select_planes(c, ask_text(c, planes, "plane(s)? ", PARADROP_USAGE))
    answer = escorts if escorts is not None else c.ask("escort(s)? ")
    if answer is None:
        raise UsageFailure(PARADROP_USAGE)
    fighters = select_planes(c, answer) if answer.strip() else []
    if not answer.strip():
        c.say("No escorts...")
    ap = _sector(c, ask_text(c, ap_text, "assembly point? ", PARADROP_USAGE))
    if not _friendly_point(c, ap):
        raise UsageFailure(f"Assembly point not owned by you or an ally!\n{PARADROP_USAGE}")
    reach = max((plane_range(p.type, p.tech) for p in transports), default=0)
    path = ask_text(c, route_text, f"<{reach}: {c.at(ap.xy)}> ", PARADROP_USAGE)
    route = _route(c, ap, path)
    t = route[-1]
    c.say(f"LZ is {c.at(t.xy)}")
    c.say(f"range to target is {len(route) - 1}")
    c.target, c.defender = t, t.owner
    result.defender, result.target = t.owner, c.at(t.xy)
    if t.owner == a:
        raise Failure("You can't air-assault your own sector!")
    dist = len(route) - 1
    cargo = [air.Flight(p, load=0) for p in transports if _ready(c, p, ap, dist, ("cargo", "para"))]
    guard = [
        air.Flight(p, escort=True)
        for p in fighters
        if _ready(c, p, ap, dist, ("escort",) if p.type.has("escort") else ("intercept",))
    ]
    armed = [f for f in cargo + guard if _arm(c, f, dist)]
    if not any(not f.escort for f in armed):
        if armed:
            result.world_changed = True
        raise Failure("No planes could be equipped for the mission.")
    result.world_changed = True
    air.fly(c, route, armed)
    troops = sum(f.load for f in armed if f.flying and not f.escort)
    lost = sum(f.load for f in armed if not f.escort) - troops
    if troops == 0:
        c.say("No planes got through fighter defenses")
        _lose(c, result, lost)
        return
    problem = _drop_zone(c, t)
    if problem:
        c.say(problem)
        c.say(ABORT_LINE[Mode.PARADROP])
        _lose(c, result, lost + troops)
        return
    target.show_sector(c, t)
    drop = Drop(ap=ap.xy, troops=troops, troops0=troops)
    c.offs = [drop]
    c.d_troops = t.mil
    c.target_infected = infected(t.plague)
    initial_strength(c, result, c.at(t.xy, c.defender))
    defend_and_fight(c, NO_SUPPORT, result)
    conclude(c, result)
    result.attacker_casualties += lost


def _lose(c: Combat, result: CombatResult, lost: int) -> None:
    """The mission ends without a fight: the paratroopers aboard are gone, BTUs are spent.

    The server says nothing about them; bellum adds one line so the loss is
    visible in the transcript.
    """
    if lost:
        c.say(f"{lost} paratroopers were lost.")
    result.attacker_casualties = lost
    result.outcome = "aborted"
    result.btu_charged = COMMAND_BTU
    result.world_changed = True
    c.world.nations[c.aggressor].btu -= COMMAND_BTU


def _sector(c: Combat, text: str) -> Sector:
    w = c.world
    try:
        return w.sector(w.geometry.parse(text, w.nations[c.aggressor].origin))
    except UsageError:
        raise UsageFailure(PARADROP_USAGE) from None


def _friendly_point(c: Combat, s: Sector) -> bool:
    """§1.2 paradrop item 1: A's or an ally's sector, or one holding A's or an ally's ship."""
    w = c.world

    def friend(owner: int) -> bool:
        return owner == c.aggressor or (owner != 0 and w.rel(owner, c.aggressor) == Relation.ALLIED)

    return friend(s.owner) or any(sh.xy == s.xy and friend(sh.owner) for sh in w.ships.values())


def select_planes(c: Combat, text: str) -> list[Plane]:
    """Planes named by numbers (``1/4/7``), a sector (``x,y``) or a wing letter."""
    w = c.world
    text = text.strip()
    if "," in text:
        xy = _sector(c, text).xy
        return [p for _, p in sorted(w.planes.items()) if p.xy == xy]
    if text.isalpha() and len(text) == 1:
        return [p for _, p in sorted(w.planes.items()) if p.wing == text]
    wanted = []
    for part in text.split("/"):
        number = to_int(part)
        if number is None:
            raise UsageFailure(PARADROP_USAGE)
        wanted.append(number)
    return [w.planes[n] for n in sorted(set(wanted)) if n in w.planes]


def _route(c: Combat, ap: Sector, text: str) -> list[Sector]:
    """The sectors flown over: AP, then each step of the path (or the best path to a sector)."""
    w = c.world
    geo = w.geometry
    if "," in text:
        dest = _sector(c, text).xy
        path = ""
        here = ap.xy
        while here != dest:
            options = [geo.norm(here[0] + dx, here[1] + dy) for dx, dy in DIRECTIONS]
            best = min(range(6), key=lambda i: geo.mapdist(options[i], dest))
            path += DIRECTION_KEYS[best]
            here = options[best]
        c.say(f"Using best path '{path}'")
    else:
        path = text.rstrip("h")
        if any(ch not in DIRECTION_KEYS for ch in path):
            raise UsageFailure(PARADROP_USAGE)
    if not path:
        raise UsageFailure(PARADROP_USAGE)
    route = [ap]
    here = ap.xy
    for ch in path:
        dx, dy = DIRECTIONS[DIRECTION_KEYS.index(ch)]
        here = geo.norm(here[0] + dx, here[1] + dy)
        route.append(w.sector(here))
    return route


def _ready(c: Combat, p: Plane, ap: Sector, dist: int, flags: tuple[str, ...]) -> bool:
    """§16.4 item 3: may this plane join the mission?  Prints the server's refusals."""
    w = c.world
    if p.owner != c.aggressor or p.mob <= 0:
        return False
    if not all(p.type.has(f) for f in flags) or p.type.has("missile"):
        return False
    if p.type.has("satellite"):
        return False
    if p.eff < 40:
        c.say(f"{p.name()} not efficient enough (must be 40%)")
        return False
    to_ap = w.geometry.mapdist(p.xy, ap.xy)
    if to_ap > 4:
        c.say(f"{p.name()} too far from assembly point")
        return False
    need = 2 * (to_ap + dist)
    rng = plane_range(p.type, p.tech)
    if rng < need:
        c.say(f"{p.name()} out of range ({rng}:{need})")
        return False
    if not air.base_ok(c, p):
        return False
    c.say(f"{p.name()} standing by")
    p.mission = ""
    return True


def _arm(c: Combat, f: air.Flight, dist: int) -> bool:
    """§16.4 item 4: fuel from the base, paratroopers for transports, the mobility charge."""
    p = f.plane
    base = c.world.sector(p.xy)
    fuel = p.type.fuel
    if base.get("petrol") < fuel:
        c.say(f"{p.name()} not enough petrol there!")
        return False
    load = 0
    if not f.escort:
        load = plane_load(p.type, p.tech) * (2 if p.type.has("VTOL") else 1)
        left = base.mil - load
        empty = base.civ == 0 and not c.world.units_at(base.xy)
        if left < 0 or (left == 0 and empty):
            c.say(f"Not enough military for {p.name()}")
            return False
        base.mil = left
    base.put("petrol", base.get("petrol") - fuel)
    f.load = load
    rng = plane_range(p.type, p.tech)
    base_cost = 10 if f.escort else 20
    p.mob -= ldround(base_cost / (p.eff / 100) * (2 * dist) / rng + 5)
    c.say(f"{p.name()} equipped")
    return True


def _drop_zone(c: Combat, t: Sector) -> str | None:
    """§1.2 paradrop item 3: where paratroopers may not land (checked after the flight)."""
    if t.owner == c.aggressor:
        return "You can't air-assault your own sector."
    kind = t.type
    if kind.has("sanctuary"):
        return "You can't paradrop a sanctuary sector!"
    bad = kind.is_mountain or kind.is_sea or kind.has("capital")
    if bad or kind.has("fortress") or kind.has("wasteland"):
        return f"You can't air-assault a {kind.name} sector!"
    return None
