"""Step 2: the aggressor's force, its mil and its land units (spec §2.2-2.5)."""

from __future__ import annotations

import math

from bellum.empire.combat.state import Aborted, Combat, Fighter, Mode, OffObject, infected
from bellum.empire.combat.strength import attack_value, sector_offense
from bellum.empire.events import Prompt, PromptKind, SourceNote, UnitNote
from bellum.empire.movement import MoveKind, attcost, unit_kind, unitcost
from bellum.empire.supply import in_supply
from bellum.empire.tables import land_frg
from bellum.empire.world import LandUnit, Relation
from bellum.numbers import c_atoi as atoi

UNIT_HELP = """y - yes this unit
n - no this unit
Y - yes to all units in army '{army}'
N - no to all units in army '{army}'
q - quit
? - this help message
"""


def attack_offs(c: Combat) -> list[OffObject]:
    """§2.2: the target's neighbours in direction order, owned by A or by an ally of A."""
    assert c.target is not None
    w = c.world
    offs = []
    for n in w.geometry.neighbours(c.target.xy):
        s = w.sector(n)
        if s.owner == c.aggressor or (s.owner and w.rel(s.owner, c.aggressor) == Relation.ALLIED):
            offs.append(
                OffObject(
                    sector=s,
                    om=sector_offense(s, c.aggressor),
                    infected=infected(s.plague),
                )
            )
    return offs


def ask_sector_mil(c: Combat, o: OffObject) -> None:
    """§2.3 for an attacking sector: the limit, the prompt and the pending cost."""
    s = o.sector
    assert s is not None and c.target is not None
    avail = max(0, s.mil - 1)
    about = SourceNote(at=s.xy)
    if s.mil == 0:
        c.say(f"No mil in {c.at(s.xy)}", about)
    elif s.mil == 1:
        c.say(f"Only 1 mil in {c.at(s.xy)}", about)
    if avail == 0 or s.owner != c.aggressor:
        return
    cost = attcost(c.world, c.aggressor, c.target, MoveKind.MOVE, rules=c.rules)
    if cost < 0 or s.mob <= 0:  # get_mob_support gives up before it says anything
        return
    limit = int(s.mob / cost)
    if limit < avail:
        c.say(
            f"Sector {c.at(s.xy)} has {s.mob} mobility which can only support {limit} mil,", about
        )
    else:
        limit = avail
    if limit <= 0:
        return
    answer = c.ask(
        Prompt(
            f"Number of mil from {s.type.name} at {c.at(s.xy)} (max {limit}) : ",
            PromptKind.MIL,
            at=s.xy,
            most=limit,
        )
    )
    n = atoi(answer)
    if answer is None or n < 0:
        raise Aborted
    n = min(n, limit, avail)
    if n <= 0:
        return
    o.troops = o.troops0 = n
    o.pending += max(1, int(n * cost))


class ArmyAnswers:
    """§2.5: the ``[ynYNq?]`` prompt with a remembered answer per army letter."""

    def __init__(self, c: Combat) -> None:
        self.c = c
        self.stored: dict[str, str] = {}
        self.quit = False

    def choose(self, prompt: Prompt, army: str) -> bool:
        key = army or "~"
        stored = self.stored.get(key)
        if self.quit or stored == "N" or self.c.aborted:
            return False
        if stored == "Y":
            return True
        while True:
            answer = self.c.ask(prompt)
            if answer is None or answer[:1] == "q":
                self.quit = self.c.aborted = True
                self.stored[key] = "N"
                return False
            first = answer[:1] or "n"
            if first in "yn":
                return first == "y"
            if first in "YN":
                self.stored[key] = first
                return first == "Y"
            self.c.put(UNIT_HELP.format(army=key) + "\n")


def _where(c: Combat, u: LandUnit) -> str:
    if u.ship is not None:
        sh = c.world.ships[u.ship]
        return f"on {sh.title()}"
    return f"in {c.at(u.xy)}"


def ask_units(c: Combat, o: OffObject, answers: ArmyAnswers, most: int | None = None) -> None:
    """§2.4: which of A's units at an off-object (sector or ship) join the fight.

    Assault and board take only ``assault`` units, for free; a ship off-object
    offers just the units aboard it.  Board lets at most ``most`` units go
    (items 2, 9 and 13).
    """
    w = c.world
    verb = c.verb
    chosen = 0
    announced = False
    for u in w.units_at(o.xy):
        if answers.quit:
            raise Aborted
        if u.owner != c.aggressor or answers.stored.get(u.army or "~") == "N":
            continue
        if u.type.has("supply"):
            continue
        if c.target_ship is not None and c.mode is Mode.BOARD:
            if c.target_ship.type.nland == 0:
                c.say("Land units are not able to board this kind of ship")
                return
            v = c.target_ship.type
            if not (v.has("supply") and not v.has("sub")) and not u.type.has("light"):
                c.say("Only light land units can board this kind of ship")
                continue
        q = _march_cost(c, o, u)
        if q is None:
            continue
        about = UnitNote(u.uid)
        av = attack_value(u, c.mode, c.rules.assault_penalty)
        if most is not None and not announced:
            c.say(f"You may board with a maximum of {most} land units")
            announced = True
        c.say(f"{u.name()} has a base {verb} value of {av:.0f}", about)
        prompt = Prompt(
            f"{verb} with {u.name()} {_where(c, u)} ({u.army or '~'} {u.eff}%) [ynYNq?] ",
            PromptKind.UNIT,
            uid=u.uid,
            army=u.army,
        )
        if not answers.choose(prompt, u.army):
            if answers.quit:
                raise Aborted
            continue
        c.a_units.insert(0, Fighter(unit=u, pending=q))
        c.a_spy = max(c.a_spy, spy_value(u))
        if u.type.has("engineer"):
            c.a_engineer += 1
        chosen += 1
        if most is not None and chosen >= most:
            return


def _march_cost(c: Combat, o: OffObject, u: LandUnit) -> float | None:
    """The mobility unit ``u`` at off-object ``o`` pays to join, or ``None`` when it
    cannot (the server says why, unit by unit, in this order)."""
    w = c.world
    verb = c.verb
    about = UnitNote(u.uid)
    barred = info_page_barred(c, u)
    if barred:
        c.say(f"{u.name()} is {barred} unit, and cannot {verb}", about)
        return None
    if u.mob <= 0:
        c.say(f"{u.name()} is out of mobility, and cannot {verb}", about)
        return None
    if o.ship is not None and u.ship != o.ship.uid:
        return None
    if u.ship is not None and o.ship is None:
        c.say(f"{u.name()} is on ship #{u.ship}, and cannot {verb}", about)
        return None
    if u.land is not None:
        c.say(f"{u.name()} is on unit #{u.land}, and cannot {verb}", about)
        return None
    if c.mode is not Mode.ATTACK:
        if not u.type.has("assault"):
            return None
        p = q = 0.0
    else:
        assert c.target is not None
        p = attcost(w, c.aggressor, c.target, unit_kind(u), rules=c.rules)
        q = unitcost(u, p)
    whole_march = p >= 1.0 or c.rules.info_march_mobility
    if whole_march and u.mob < min(127, math.ceil(q)):
        c.say(f"{u.name()} does not have enough mobility ({min(127, math.ceil(q))} needed)", about)
        return None
    if attack_value(u, c.mode, c.rules.assault_penalty) < 1.0 and not (
        c.mode is Mode.ASSAULT and u.type.has("spy")
    ):
        c.say(f"{u.name()} has no offensive strength", about)
        return None
    if not in_supply(w, u, dice=c.dice, rules=c.rules):
        c.say(f"{u.name()} is out of supply, and cannot {verb}", about)
        return None
    return q


def info_page_barred(c: Combat, u: LandUnit) -> str:
    """Under the info-page rules security, flak and artillery units stay home (§2.6)."""
    if not c.rules.info_attackers:
        return ""
    if u.type.has("security"):
        return "a security"
    if u.type.has("flak"):
        return "a flak"
    if land_frg(u.type, u.tech) > 0:
        return "an artillery"
    return ""


def spy_value(u: LandUnit) -> int:
    """§4.4: how well a unit sees the other side."""
    if u.type.has("recon"):
        return int(u.type.spy * u.eff / 100 + 2)
    return int(u.type.spy * u.eff / 100)
