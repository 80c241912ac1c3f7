"""Step 5: fort, ship, unit and plane support, and the land-mine bonus (spec §5)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from bellum.dice import ServerRandom
from bellum.empire.combat import missions
from bellum.empire.combat.guns import (
    ship_guns,
    ship_reach,
    ship_volley,
    unit_guns,
    unit_reach,
    unit_volley,
)
from bellum.empire.combat.state import BELL, Combat, ldround, news_chance
from bellum.empire.combat.strength import defense_sum, defense_total, offense_total
from bellum.empire.combat.volleys import Chain, Salvo, Shot
from bellum.empire.geometry import Coord
from bellum.empire.supply import basic_load, in_supply
from bellum.empire.tables import land_acc, techfact
from bellum.empire.world import LandUnit, Sector, Ship

#: The news of support fire (§5.3), by who fires, when helping the aggressor: each
#: item may turn the victim hostile.  Fire in defense is news that never does.
SUPPORT_NEWS = {
    "fort": "fortress gunners support troops attacking {}",
    "ship": "naval gunners support troops attacking {}",
    "unit": "gunners support troops attacking {}",
}
SELF_DEFENSE_NEWS = "gunners fire on {} in self-defense"
#: Where planes are based: ("sector", xy), ("ship", uid) or ("unit", uid).
Bases = set[tuple[str, Any]]


def _goodwill(c: Combat, victim: int, helped: int) -> int:
    """The news of a volley: the defender's side fires in self-defense (no ill will)."""
    return 0 if helped == c.defender and victim == c.aggressor else -2


def _support_news(
    c: Combat, who: str, firer: int, victim: int, helped: int, hit: bool | None = None
) -> None:
    """The news item of one volley (``hit``: its draw, made already)."""
    if _goodwill(c, victim, helped) == 0:
        text = f"{c.name(firer)} {SELF_DEFENSE_NEWS.format(c.name(victim))}"
    else:
        text = f"{c.name(firer)} {SUPPORT_NEWS[who].format(c.name(victim))}"
    c.news(victim, text, _goodwill(c, victim, helped), firer, hit=hit)


@dataclass(frozen=True)
class _News:
    """The draw a volley's news item makes: its ``chance`` (``None``: no draw), and the
    owner it turns the victim hostile to when it hits (0 when it cannot any more)."""

    chance: float | None
    turns: int

    @classmethod
    def of(cls, c: Combat, firer: int, victim: int, helped: int) -> _News:
        chance = news_chance(victim, _goodwill(c, victim, helped), firer)
        turns = firer if chance is not None and c.may_turn_hostile(victim, firer) else 0
        return cls(chance, turns)

    @property
    def key(self) -> tuple[float | None, int]:
        return self.chance, self.turns

    def draw(self, dice: ServerRandom) -> int:
        if self.chance is None:
            return 0
        return self.turns if dice.chance(self.chance) else 0


def fort_range(c: Combat, s: Sector) -> float:
    """§0.5: a fortress's firing range; -1 for anything that cannot fire."""
    if not s.type.has("fortress") or s.eff < 5:
        return -1.0
    tech = c.world.tech(s.owner)
    rng = techfact(int(tech), int(14 * c.rules.fire_range_factor) / 2.0)
    return rng + (1 if s.eff >= 60 else 0)


@dataclass(frozen=True)
class _Fort:
    """A helping sector within 8 of the target: it rolls its range, and fires if it is a
    manned fort with guns and a shell (§5.3)."""

    reach: float
    dist: int
    armed: bool
    guns: int
    eff: int
    news: _News
    based: bool
    c: Combat = field(compare=False)
    xy: Coord = field(compare=False)
    victim: int = field(compare=False)
    helped: int = field(compare=False)

    @classmethod
    def at(
        cls, c: Combat, xy: Coord, s: Sector, victim: int, helped: int, bases: Bases
    ) -> _Fort | _Idle:
        """The sector ``s`` at ``xy`` (read only)."""
        reach = fort_range(c, s)
        if reach < 0:
            return IDLE  # not a fort: it rolls a range of -1 and never fires
        guns = s.get("gun")
        armed = s.mil >= 5 and guns > 0 and s.get("shell") >= 1
        dist = c.world.geometry.mapdist(xy, _target(c))
        news = _News.of(c, s.owner, victim, helped)
        based = ("sector", c.world.geometry.norm(*xy)) in bases
        return cls(reach, dist, armed, guns, s.eff, news, based, c, xy, victim, helped)

    @property
    def key(self) -> Hashable | None:
        if self.based:
            return None
        return (self.reach, self.dist, self.armed, min(self.guns, 7), self.eff, *self.news.key)

    def draw(self, dice: ServerRandom) -> Shot | None:
        if dice.roundavg(self.reach) < self.dist or not self.armed:
            return None
        dmg = int((dice.roll(30) + 19) * min(self.guns, 7) / 7 * self.eff / 100)
        return dmg, self.news.draw(dice)

    def apply(self, shot: Shot) -> None:
        c, xy, victim, helped = self.c, self.xy, self.victim, self.helped
        s = c.world.sector(xy)  # the fort fires: its own copy loses the shell
        s.put("shell", s.get("shell") - 1)
        if s.owner != helped:
            c.tell(
                s.owner,
                f"{c.at(xy, s.owner)} fired on {c.name(victim)} in {c.at(_target(c), s.owner)}"
                f" in defense of {c.name(helped)}, doing {shot[0]} damage!",
            )
        _support_news(c, "fort", s.owner, victim, helped, hit=bool(shot[1]))


@dataclass(frozen=True)
class _Idle:
    """A helping sector that is no fort: its range roll (one draw) and nothing else."""

    @property
    def key(self) -> Hashable:
        return "idle"

    def draw(self, dice: ServerRandom) -> Shot | None:
        dice.roundavg(-1.0)
        return None

    def apply(self, shot: Shot) -> None:
        raise AssertionError("a sector that is no fort does not fire")


IDLE = _Idle()


def fort_damage(c: Combat, victim: int, helped: int) -> int:
    """§5.3 forts: every helping sector within 8 rolls its range; real forts fire until
    the damage reaches 80."""
    return c.dice.block(_fort_salvo(c, victim, helped))


def _fort_salvo(c: Combat, victim: int, helped: int, bases: Bases | None = None) -> Salvo[int]:
    w = c.world
    firers: list[_Fort | _Idle] = []
    if not (c.rules.NO_FORT_FIRE or helped == 0 or victim == helped):
        bases = _plane_bases(c) if bases is None else bases
        helps = w.helpers(helped, victim)
        firers = [
            _Fort.at(c, xy, s, victim, helped, bases)
            for xy, s in w.peek_within(_target(c), 8)
            if helps[s.owner]
        ]
    return Salvo("fort", firers, 0, operator.add, _reached(80), int)


def _reached(most: int) -> Callable[[int], bool]:
    return lambda total: total >= most


@dataclass(frozen=True)
class _Ship:
    """A helping ship within 8 of where it fires: it rolls its range, then fires with
    the guns its crew and shells allow (§5.3)."""

    reach: float
    dist: int
    guns: int
    eff: int
    news: _News
    based: bool
    c: Combat = field(compare=False)
    sh: Ship = field(compare=False)
    at: Coord = field(compare=False)
    victim: int = field(compare=False)
    helped: int = field(compare=False)
    approach: bool = field(compare=False)

    @classmethod
    def of(
        cls, c: Combat, sh: Ship, at: Coord, victim: int, helped: int, approach: bool, bases: Bases
    ) -> _Ship:
        dist = c.world.geometry.mapdist(sh.xy, at)
        news = _News.of(c, sh.owner, victim, helped)
        guns, based = ship_guns(sh), ("ship", sh.uid) in bases
        return cls(
            ship_reach(sh), dist, guns, sh.eff, news, based, c, sh, at, victim, helped, approach
        )

    @property
    def key(self) -> Hashable | None:
        if self.based:
            return None
        return (self.reach, self.dist, self.guns, self.eff, *self.news.key)

    def draw(self, dice: ServerRandom) -> Shot | None:
        if dice.roundavg(self.reach) < self.dist or self.guns <= 0:
            return None
        return ship_volley(dice, self.guns, self.eff), self.news.draw(dice)

    def apply(self, shot: Shot) -> None:
        c, sh, victim, helped = self.c, self.sh, self.victim, self.helped
        dmg = shot[0]
        sh.items["shell"] = sh.items.get("shell", 0) - (self.guns + 1) // 2
        _support_news(c, "ship", sh.owner, victim, helped, hit=bool(shot[1]))
        if self.approach:
            c.say(f"{BELL}Incoming shells do {dmg} damage!")
        there = c.at(self.at, sh.owner)
        if sh.owner == helped:
            if self.approach:
                c.tell(
                    sh.owner,
                    f"{sh.title()} fired on {c.name(victim)} at {there} doing {dmg} damage.",
                )
        elif helped == c.defender and victim == c.aggressor:
            c.tell(
                sh.owner,
                f"{sh.title()} fired on {c.name(victim)} at {there}"
                f" in defense of {c.name(helped)}, doing {dmg} damage.",
            )
        else:
            c.tell(
                sh.owner,
                f"{sh.title()} supported {c.name(helped)} attacks against {c.name(victim)}"
                f" at {there}, doing {dmg} damage.",
            )


def ship_damage(
    c: Combat, victim: int, helped: int, at: Coord | None = None, approach: bool = False
) -> int:
    """§5.3 ships: helping surface ships within 8 fire while the remaining factor > 0.30.

    ``approach`` is the board's approach fire at ``at`` (§5.5): submarines fire
    too and every salvo is announced to the boarders.
    """
    return c.dice.block(_ship_salvo(c, victim, helped, at, approach))


def _ship_salvo(
    c: Combat,
    victim: int,
    helped: int,
    at: Coord | None = None,
    approach: bool = False,
    bases: Bases | None = None,
) -> Salvo[float]:
    w = c.world
    p = _target(c) if at is None else at
    firers: list[_Ship] = []
    if not (helped == 0 or victim == helped):
        bases = _plane_bases(c) if bases is None else bases
        helps = w.helpers(helped, victim)
        firers = [
            _Ship.of(c, sh, p, victim, helped, approach, bases)
            for _, sh in sorted(w.ships.items())
            if w.geometry.mapdist(sh.xy, p) <= 8
            and helps[sh.owner]
            and (approach or not sh.type.has("sub"))
            and not (sh.mission and c.rules.info_mission_fire)
        ]
    return Salvo("ship", firers, 1.0, _hit, _factor_spent, _percent)


def _hit(f: float, dmg: int) -> float:
    """The factor left after a ship's volley of ``dmg``."""
    return f * (1 - 0.01 * dmg)


def _factor_spent(f: float) -> bool:
    return f <= 0.30


def _percent(f: float) -> int:
    return int(100 - 100 * f)


@dataclass(frozen=True)
class _Unit:
    """A helping land unit in range of the target but not on it: artillery fires, and
    misses by half unless its accuracy roll passes (§5.3).  ``shells`` is what it holds
    when it has its basic load; ``None`` when it must resupply first (draw by draw)."""

    reach: float
    dist: int
    guns: int
    eff: int
    shells: int | None
    ammo: int
    acc: float
    news: _News
    based: bool
    c: Combat = field(compare=False)
    u: LandUnit = field(compare=False)
    victim: int = field(compare=False)
    helped: int = field(compare=False)

    @classmethod
    def of(
        cls, c: Combat, u: LandUnit, guns: int, victim: int, helped: int, live: bool, bases: Bases
    ) -> _Unit:
        """``live``: read the unit's shells when it fires (after resupplying)."""
        return cls(
            unit_reach(u), c.world.geometry.mapdist(u.xy, _target(c)), guns, u.eff,
            None if live else u.items.get("shell", 0), u.type.ammo,
            land_acc(u.type, u.tech) - 1, _News.of(c, u.owner, victim, helped),
            ("unit", u.uid) in bases, c, u, victim, helped,
        )  # fmt: skip

    @property
    def key(self) -> Hashable | None:
        if self.shells is None or self.based:
            return None
        return (self.reach, self.dist, self.guns, self.eff, self.shells, self.ammo, self.acc,
                *self.news.key)  # fmt: skip

    def draw(self, dice: ServerRandom) -> Shot | None:
        if self.dist > dice.roundavg(self.reach) or self.guns <= 0:
            return None
        shells = self.shells
        if shells is None:
            in_supply(self.c.world, self.u, dice=dice, rules=self.c.rules)
            shells = self.u.items.get("shell", 0)
        if shells <= 0:
            return None
        d2 = unit_volley(dice, self.guns, self.eff, shells, self.ammo)
        turned = self.news.draw(dice)
        if dice.pct_chance(self.acc):
            d2 //= 2
        return d2, turned

    def apply(self, shot: Shot) -> None:
        c, u, victim, helped = self.c, self.u, self.victim, self.helped
        u.items["shell"] = max(0, u.items.get("shell", 0) - self.ammo)
        _support_news(c, "unit", u.owner, victim, helped, hit=bool(shot[1]))
        if u.owner != helped:
            c.tell(u.owner, f"{u.name()} supported {c.name(helped)} at {c.at(_target(c), u.owner)}")


@dataclass(frozen=True)
class _Ranger:
    """A helping land unit that cannot fire (no guns, no crew, loaded, too damaged): its
    range roll (one draw) and nothing else."""

    reach: float

    @property
    def key(self) -> Hashable:
        return ("range", self.reach)

    def draw(self, dice: ServerRandom) -> Shot | None:
        dice.roundavg(self.reach)
        return None

    def apply(self, shot: Shot) -> None:
        raise AssertionError("a land unit that cannot fire does not")


def _plane_bases(c: Combat) -> Bases:
    """Where planes take their bombs from (:func:`~bellum.empire.combat.air.base_of`): a
    firer there is drawn volley by volley, since the planes that fly later in the command
    read the shells its volley leaves."""
    bases: set[tuple[str, Any]] = set()
    for p in c.world.planes.values():
        if p.ship is not None:
            bases.add(("ship", p.ship))
        elif p.land is not None:
            bases.add(("unit", p.land))
        else:
            bases.add(("sector", c.world.geometry.norm(*p.xy)))
    return bases


def _target(c: Combat) -> Coord:
    assert c.target is not None
    return c.target.xy


def _has_load(c: Combat, u: LandUnit) -> bool:
    """Whether resupplying ``u`` would move nothing (no draw, no side effect)."""
    if c.rules.NOFOOD and u.type.ammo == 0:
        return True
    return all(u.items.get(item, 0) >= need for item, need in basic_load(u, c.rules).items())


def unit_damage(c: Combat, victim: int, helped: int) -> int:
    """§5.3 land units: artillery in range (not at the target) fires, sometimes off target."""
    return c.dice.block(_unit_salvo(c, victim, helped))


def _unit_salvo(c: Combat, victim: int, helped: int, bases: Bases | None = None) -> Salvo[int]:
    w = c.world
    p = _target(c)
    helps = w.helpers(helped, victim)
    units = [
        u
        for _, u in sorted(w.units.items())
        if u.xy != p and helps[u.owner] and not (u.mission and c.rules.info_mission_fire)
    ]
    # One unit's resupply may take from another's spare: then every unit reads its
    # shells as it fires, draw by draw.
    guns = [unit_guns(u) for u in units]
    live = any(g > 0 and not _has_load(c, u) for u, g in zip(units, guns, strict=True))
    bases = _plane_bases(c) if bases is None else bases
    firers = [
        _Unit.of(c, u, g, victim, helped, live, bases) if g > 0 else _Ranger(unit_reach(u))
        for u, g in zip(units, guns, strict=True)
    ]
    return Salvo("unit", firers, 0, operator.add, _never, int)


def _never(total: int) -> bool:
    return False


def _always(x: float) -> bool:
    return True


def support(c: Combat, wanted: tuple[bool, bool, bool, bool]) -> None:
    """§5.1: both sides' multipliers, in the server's order, then the support table."""
    a, d = c.aggressor, c.defender
    assert c.target is not None
    salvos: tuple[Callable[..., Salvo[Any]], ...] = (_fort_salvo, _ship_salvo, _unit_salvo)
    # A side's salvos are listed before any fires: the planes' bases are the same for all.
    bases = _plane_bases(c)
    ours = [
        make(c, d, a, bases=bases) if want else None
        for make, want in zip(salvos, wanted, strict=False)
    ]
    af, as_, au = c.dice.block(Chain(ours, _always, None))
    ap = 0.0
    if wanted[3]:
        ap = missions.dosupport(c, c.target.xy, d, a, "osupport") / 100
    c.osup = 1 + af + as_ + au + ap
    c.ototal = offense_total(c)
    dtotal = defense_total(c, 1.0)
    df = ds = du = dp = 0.0
    computed = False
    if dtotal < 0.1 * c.ototal:
        _odds_telegram(c, "Odds are bad for us...support cancelled.")
    elif dtotal >= 1.2 * c.ototal:
        _odds_telegram(c, "Odds are good for us...support cancelled.")
    else:
        computed = True
        # Each fire after the forts only while the defense is below 1.2 times the offense.
        dsum, most = defense_sum(c), 1.2 * c.ototal
        bases = _plane_bases(c)  # the support planes have flown since
        theirs = [make(c, a, d, bases=bases) for make in salvos]
        chain = Chain(theirs, lambda x: ldround(x * dsum) < most, (dsum, most))
        df, ds, du = c.dice.block(chain)
        c.dsup = 1 + df + ds + du
        if defense_total(c) < 1.2 * c.ototal:
            dp = missions.dosupport(c, c.target.xy, a, d, "dsupport") / 100
            c.dsup += dp
    c.ototal = offense_total(c)
    if c.osup != 1 or (computed and c.dsup != 1):
        table = "\n\t\tsupport values\n\t\tforts\tships\tunits\tplanes\n"
        if c.osup != 1:
            table += f"attacker\t{af:1.2f}\t{as_:1.2f}\t{au:1.2f}\t{ap:1.2f}\n"
        if computed and c.dsup != 1:
            table += f"defender\t{df:1.2f}\t{ds:1.2f}\t{du:1.2f}\t{dp:1.2f}\n"
        c.put(table + "\n")
        c.tell(d, table)
    mine_bonus(c)


def _odds_telegram(c: Combat, text: str) -> None:
    c.tell(c.defender, f"\n{text}\n")


def mine_bonus(c: Combat) -> None:
    """§5.4: defending land mines add 0.02 each (20 at most), halved with engineers."""
    t = c.target
    assert t is not None
    if defense_total(c) == 0 or t.oldowner == c.aggressor:
        return
    mines = 0 if t.type.has("seamines") else t.minefield
    m = min(mines, 20)
    if c.a_engineer > 0:
        m = int(m / 2.0 + 0.5)
    if m > 0:
        c.dsup += 0.02 * m
        c.say(f"Defending mines add {0.02 * m:1.2f}")
        c.tell(c.defender, f"Defending mines add {0.02 * m:1.2f}")
