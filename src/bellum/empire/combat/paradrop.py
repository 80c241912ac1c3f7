"""``paradrop <cargo-PLANES> <fighter-PLANES> <ap-SECT> <PATH|DESTINATION>`` (spec §16.4).

Transport planes stand by within reach of an assembly point, load
paratroopers at their bases, fly the route from the assembly point (air
combat en route, :mod:`bellum.empire.combat.air`) and drop whoever got through on
the target.  The fight is the attack's fight with defensive support only;
nothing but the paratroopers moves in.  Paratroopers dropped on an illegal
zone are lost: they left their base when the planes were armed (§1.2).
"""

from __future__ import annotations

from dataclasses import dataclass

from bellum.dice import ServerRandom
from bellum.empire.combat import air, target
from bellum.empire.combat.conclude import conclude
from bellum.empire.combat.flows import (
    defend_and_fight,
    initial_strength,
    play,
)
from bellum.empire.combat.result import COMMAND_BTU, CombatResult, Outcome
from bellum.empire.combat.state import (
    Combat,
    CommandSpec,
    Ending,
    Failure,
    Mode,
    OffObject,
    UsageFailure,
    Wording,
    infected,
)
from bellum.empire.events import Prompt, Prompter, PromptKind, Sink
from bellum.empire.geometry import Coord
from bellum.empire.rules import Rules
from bellum.empire.selection import parse_xy, select
from bellum.empire.world import Plane, Relation, Sector, World, peek_where

PARADROP_USAGE = "Usage: paradrop <cargo-PLANES> <fighter-PLANES> <ap-SECT> <PATH|DESTINATION>"
NO_SUPPORT = (False, False, False, False)
#: The direction keys a flight path may hold; ``h`` ends it.
PATH_KEYS = "hujnbgy"
#: The longest flight path the server takes.
MAX_PATH_LEN = 1024


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
    *,
    rules: Rules | None = None,
) -> CombatResult:
    """``paradrop`` (spec §16.4); missing arguments are prompted for (§1.1)."""
    return play(
        PARADROP, world, aggressor, dice, prompter, [planes, escorts, ap, route], [],
        sink=sink, rules=rules or Rules.of(world.options),
    )  # fmt: skip


def _flow(c: Combat, args: list[str | None], _: list[str], result: CombatResult) -> None:
    planes, escorts, ap_text, route_text = args
    w = c.world
    a = c.aggressor
    transports = plane_list(c, planes, "plane(s)? ")
    if transports is None:
        raise UsageFailure(PARADROP_USAGE)
    fighters = plane_list(c, escorts, "escort(s)? ")
    if fighters is None:
        c.say("No escorts...")
        fighters = []
    ap = _assembly_point(c, ap_text)
    path = flight_path(c, route_text, ap.xy)
    here = ap.xy
    for key in path:
        here = w.geometry.step(here, key)
    t = w.sector(here)
    c.say(f"LZ is {c.at(t.xy)}")
    c.say(f"range to target is {len(path)}")
    c.target, c.defender = t, t.owner
    result.defender, result.target = t.owner, c.at(t.xy)
    if t.owner == a:
        raise Failure("You can't air-assault your own sector!")
    missions = {p.uid: p.mission for p in transports + fighters}
    bombers = air.pick(c, transports, ap, len(path), "paradrop")
    guards = air.pick(c, fighters, ap, len(path), "escort")
    cleared = any(missions[f.plane.uid] for f in bombers + guards)
    launched: set[int] = set()
    air.arm(c, bombers, 2 * len(path), "paradrop", launched)
    if not bombers:
        result.world_changed = cleared  # standing by cleared their missions for good
        raise Failure("No planes could be equipped for the mission.")
    air.arm(c, guards, 2 * len(path), "escort", launched)
    result.world_changed = True
    loaded = sum(f.load for f in bombers)
    air.fly(c, ap.xy, path, bombers, guards, launched, through=True)
    troops = sum(f.load for f in bombers)
    if not bombers:
        c.say("No planes got through fighter defenses")
        _lose(c, result, loaded)
    else:
        _drop(c, result, ap, t, troops, loaded - troops)
    air.land(c, bombers)
    air.land(c, guards)


def _drop(c: Combat, result: CombatResult, ap: Sector, t: Sector, troops: int, lost: int) -> None:
    """§16.4 item 6: the paratroopers land on ``t`` and fight (or are lost on an illegal zone)."""
    if t.owner == c.aggressor:
        c.say("You can't air-assault your own sector.")
        _lose(c, result, lost + troops)
        return
    target.show_sector(c, t)
    problem = _drop_zone(c, t)
    if problem:
        c.say(problem)
        c.say(c.wording.aborted)
        _lose(c, result, lost + troops)
        return
    c.offs = [Drop(ap=ap.xy, troops=troops, troops0=troops)]
    c.d_troops = t.mil
    c.target_infected = infected(t.plague)
    result.attacker_casualties = lost  # lost before the fight; the fight's dead are added
    initial_strength(c, result, c.at(t.xy, c.defender))
    defend_and_fight(c, NO_SUPPORT, result)
    conclude(c, result)
    result.attacker_casualties += lost


def _lose(c: Combat, result: CombatResult, lost: int) -> None:
    """The mission ends without a fight: the paratroopers aboard are gone, BTUs are spent.

    The server says nothing about them; the result counts them as casualties.
    """
    result.attacker_casualties = lost
    result.outcome = Outcome.ABORTED
    result.btu_charged = COMMAND_BTU
    result.world_changed = True
    c.world.charge_btus(c.aggressor, COMMAND_BTU)


def plane_list(c: Combat, given: str | None, prompt: str) -> list[Plane] | None:
    """The planes an argument (or the answer to ``prompt``) names; None if it names none.

    End of input is a usage error.  See :mod:`bellum.empire.selection` for
    the syntax; the server's complaints about a bad number list are printed.
    """
    text = given if given is not None else c.ask(Prompt(prompt, PromptKind.ARGUMENT))
    if text is None:
        raise UsageFailure(PARADROP_USAGE)
    w = c.world
    origin = w.origin(c.aggressor)
    picked = select(w.planes, text.strip(), w.geometry, origin, lambda p: p.wing)
    for note in picked.notes:
        c.put(note)
    if picked.uids is None:
        return None
    return [w.planes[uid] for uid in picked.uids]


def _assembly_point(c: Combat, given: str | None) -> Sector:
    """§1.2 paradrop item 1: A's or an ally's sector, or one holding A's or an ally's ship."""
    w = c.world
    text = given if given else c.ask(Prompt("assembly point? ", PromptKind.ARGUMENT))
    if not text:
        raise UsageFailure(PARADROP_USAGE)
    xy = parse_xy(text, w.geometry, w.origin(c.aggressor))
    if xy is None:
        raise UsageFailure(PARADROP_USAGE)
    s = w.sector(xy)

    def friend(owner: int) -> bool:
        return w.rel(owner, c.aggressor) == Relation.ALLIED

    ships = [sh.owner for _, sh in peek_where(w.ships, "xy", xy) if sh.owner]
    if friend(s.owner) or any(friend(owner) for owner in ships):
        return s
    raise UsageFailure(PARADROP_USAGE, reason="Assembly point not owned by you or an ally!")


def flight_path(c: Combat, given: str | None, start: Coord) -> str:
    """The route from ``start`` as direction keys, read like the server reads it.

    Direction keys (``ujnbgy``) are followed until ``h``; a sector ``x,y``
    anywhere in the text ends it with the best path there (``Using best
    path``).  A path that stops without ``h`` shows the map around its end
    and asks for more (``<steps: x,y>``); an empty answer accepts it.
    """
    w = c.world
    geo = w.geometry
    origin = w.origin(c.aggressor)
    path = given or ""
    done = 0
    here = geo.norm(*start)
    while True:
        while done < len(path):
            dest = parse_xy(path[done:], geo, origin)
            if dest is not None:
                best = geo.fly_path(here, dest)
                if done + len(best) >= MAX_PATH_LEN:
                    c.say(f"Can't handle path to {c.at(dest)}, it's too long, sorry.")
                    break
                path = path[:done] + best
                c.say(f"Using best path  '{best}'")
                c.say(f"Using total path '{path}'")
                return path
            key = path[done]
            if key not in PATH_KEYS:
                c.put(f'"{key}" is not legal...')
                c.say("Legal directions are:\n y u\ng   j\n b n\n'h' to stop")
                break
            if key == "h":
                return path[:done]
            here = geo.step(here, key)
            done += 1
        _fly_map(c, here)
        answer = c.ask(Prompt(f"<{done}: {c.at(here)}> ", PromptKind.ARGUMENT))
        if answer is None:
            raise UsageFailure(PARADROP_USAGE)
        if done + len(answer) + 1 >= MAX_PATH_LEN:
            c.say(f"Path length may not exceed {MAX_PATH_LEN}.\nAborting...")
            raise UsageFailure(PARADROP_USAGE)
        path = path[:done] + answer
        if not answer:
            if not path:
                raise UsageFailure(PARADROP_USAGE)
            return path


def _fly_map(c: Combat, at: Coord) -> None:
    """The seven sectors around ``at`` as the aggressor's bmap shows them (the server's
    ``fly_map``); a world without the country's bmap shows them unexplored (blanks),
    as the server does for a new country."""
    bmap = c.world.bmaps.get(c.aggressor)
    x, y = at
    around = [(x - 1, y - 1), (x + 1, y - 1), (x - 2, y), at, (x + 2, y), (x - 1, y + 1),
              (x + 1, y + 1)]  # fmt: skip
    v = [bmap.at(c.world.geometry.norm(*p)) if bmap else " " for p in around]
    c.say(f"    {v[0]} {v[1]}\n   {v[2]} {v[3]} {v[4]}\n    {v[5]} {v[6]}")


def _drop_zone(c: Combat, t: Sector) -> str | None:
    """§1.2 paradrop item 3: where paratroopers may not land (checked after the flight)."""
    kind = t.type
    bad = kind.is_mountain or kind.name == "sea" or kind.has("capital")
    if bad or kind.has("fortress") or kind.has("wasteland"):
        return f"You can't air-assault a {kind.name} sector!"
    if kind.impassable:
        return f"You can't paradrop a {kind.name} sector!"
    return None


PARADROP = CommandSpec(
    Mode.PARADROP,
    _flow,
    Wording(
        aborted="Air-Assault aborted",
        considering="paradroping",
        strength="          Final air-assault strength: ",
        dies="attack",
        ending=Ending(
            "We have captured {t}, sir!",
            "All of your troops were destroyed",
            "paratroopers commandeer a sector from {d}",
            -4,
            "parachutists grab unoccupied land",
            "paratroopers destroyed in failed air-assault on {d}",
            4,
            "air-assaulting and taking",
            "trying to air-assault",
        ),
    ),
    roles=("planes", "escorts", "source", "target"),
    takes="sector",
    metavars=("PLANES", "ESCORTS", "AP", "ROUTE"),
    example="paradrop 0/1 . 0,0 4,0",
    help="""Drop paratroopers from transport PLANES, guarded by ESCORTS ('.' for none).

    PLANES and ESCORTS are plane lists as the server reads them: numbers
    (1/4/7), '*', a sector or area (x,y or lx:hx,ly:hy), '@x,y:d' or a wing
    letter ('~': no wing).  The planes gather at the assembly point AP and
    fly ROUTE, a path (e.g. jjh) or a destination sector (docs/paradrop.md).
    """,
)
