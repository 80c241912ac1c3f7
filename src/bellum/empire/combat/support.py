"""Step 5: fort, ship, unit and plane support, and the land-mine bonus (spec §5)."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Hashable, Sequence
from collections.abc import Set as AbstractSet
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
from bellum.empire.combat.volleys import Chain, Firer, Salvo, Shot
from bellum.empire.geometry import Coord, Geometry
from bellum.empire.rules import Rules
from bellum.empire.scratch import WorldTemplate, changed, own_copies, pristine
from bellum.empire.supply import basic_load, in_supply
from bellum.empire.tables import land_acc, techfact
from bellum.empire.world import LandUnit, Plane, Sector, Ship, peek_items

#: The news of support fire (§5.3), by who fires, when helping the aggressor: each
#: item may turn the victim hostile.  Fire in defense is news that never does.
SUPPORT_NEWS = {
    "fort": "fortress gunners support troops attacking {}",
    "ship": "naval gunners support troops attacking {}",
    "unit": "gunners support troops attacking {}",
}
SELF_DEFENSE_NEWS = "gunners fire on {} in self-defense"
#: Where planes are based: ("sector", xy), ("ship", uid) or ("unit", uid).
Bases = AbstractSet[tuple[str, Any]]


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


@dataclass
class _Fire(Salvo[Any]):
    """A salvo of this module.  Its firers hold nothing of the command but what they
    were listed with, so that the runs on scratch worlds of one template can share them
    (:func:`_listed`); the command (``c``) is handed to them when they draw or fire.
    ``token`` stands for the salvo's key (:func:`_token`; ``None``: it has none)."""

    c: Any = None
    token: Hashable | None = None

    @property
    def key(self) -> Hashable | None:
        return self.token

    def _draw(self, f: Firer, dice: ServerRandom) -> Shot | None:
        shot: Shot | None = f.draw(dice, self.c)  # type: ignore[call-arg]
        return shot

    def _apply(self, f: Firer, shot: Shot) -> None:
        f.apply(shot, self.c)  # type: ignore[call-arg]


_UNSET: Any = object()


def _same_rules(a: Rules, b: Rules) -> bool:
    """Whether firers listed under rules ``a`` are those of rules ``b`` (a study's runs
    share one object; each command line makes its own)."""
    return a is b or a == b


#: A salvo's rules: how a shot adds to its state, when it stops, and its total.
Rules3 = tuple[Callable[[Any, int], Any], Callable[[Any], bool], Callable[[Any], int]]


def _salvo_key(kind: str, start: Any, firers: Sequence[Firer]) -> Hashable | None:
    """:attr:`Salvo.key` of these firers."""
    keys = tuple(f.key for f in firers)
    if any(k is None for k in keys):
        return None
    return (kind, start, keys)


#: A short, equal stand-in for each salvo key met (:func:`_token`), and the next one's
#: number (never reused: a stand-in dropped when the table is cleared is not given to
#: another key).
_TOKENS: dict[Hashable, Hashable] = {}
_NEXT = itertools.count()


def _token(key: Hashable | None) -> Hashable | None:
    """A stand-in for ``key`` that is equal for equal keys and for no other: a chain's
    key and its stages' keys (:mod:`.volleys`) are hashed on every run, and a salvo's
    own key lists every firer of the side (a hundred tuples)."""
    if key is None:
        return None
    token = _TOKENS.get(key)
    if token is None:
        if len(_TOKENS) >= 4 * _LIMIT:
            _TOKENS.clear()
        token = _TOKENS[key] = ("salvo", next(_NEXT))
    return token


_LIMIT = 4096


def _fire(
    kind: str,
    firers: Sequence[Firer],
    c: Combat,
    rules: Rules3,
    token: Any = _UNSET,
) -> _Fire:
    """The salvo of ``firers`` (its key's token worked out here unless given)."""
    start = _STARTS[kind]
    if token is _UNSET:
        token = _token(_salvo_key(kind, start, firers))
    assert token is not _UNSET
    return _Fire(kind, firers, start, *rules, c=c, token=token)


#: Each salvo's running state before its first volley: damage for forts and units, the
#: factor left for ships.
_STARTS: dict[str, Any] = {"fort": 0, "ship": 1.0, "unit": 0}


@dataclass(frozen=True)
class _Listed:
    """The firers of one salvo listed on a template's objects (:func:`_listed`): the
    rules they were listed under, the keys of the objects listed, the firers and the
    salvo's key."""

    rules: Rules
    keys: frozenset[Any]
    firers: tuple[Firer, ...]
    token: Hashable | None


def _listed(
    c: Combat,
    t: WorldTemplate | None,
    key: Hashable,
    kind: str,
    listed: Callable[[Any], bool],
    make: Callable[[Sequence[tuple[Any, Any]]], list[tuple[Any, Firer]]],
) -> tuple[Sequence[Firer], Any]:
    """The firers ``make`` lists from the world's ``kind`` (``units`` or ``ships``, in
    order of their keys), each with its object's key, and their salvo key's token
    (``_UNSET``: still to be worked out).

    Listed once per template ``t`` (:func:`_listing`) and ``key`` (everything else ``make``
    reads), on the template's objects; taken as they are while none of the objects the
    run changed was listed there or would be listed now (``listed``), else listed
    again on the world's own."""
    objects: dict[Any, Any] = getattr(c.world, kind)
    if t is None:
        return [f for _, f in make(sorted(peek_items(objects)))], _UNSET
    known = t.memo.get(key)
    if not isinstance(known, _Listed) or not _same_rules(known.rules, c.rules):
        made = make(sorted(getattr(t.frozen, kind).items()))
        firers = tuple(f for _, f in made)
        token = _token(_salvo_key(key[0], _STARTS[key[0]], firers))  # type: ignore[index]
        known = _Listed(c.rules, frozenset(k for k, _ in made), firers, token)
        t.memo[key] = known
    for k, obj in changed(objects):
        if k in known.keys or (obj is not None and listed(obj)):
            return [f for _, f in make(sorted(peek_items(objects)))], _UNSET
    return known.firers, known.token


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
        return cls(reach, dist, armed, guns, s.eff, news, based, xy, victim, helped)

    @property
    def key(self) -> Hashable | None:
        if self.based:
            return None
        return (self.reach, self.dist, self.armed, min(self.guns, 7), self.eff, *self.news.key)

    def draw(self, dice: ServerRandom, c: Combat | None = None) -> Shot | None:
        if dice.roundavg(self.reach) < self.dist or not self.armed:
            return None
        dmg = int((dice.roll(30) + 19) * min(self.guns, 7) / 7 * self.eff / 100)
        return dmg, self.news.draw(dice)

    def apply(self, shot: Shot, c: Combat | None = None) -> None:
        assert c is not None
        xy, victim, helped = self.xy, self.victim, self.helped
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

    def draw(self, dice: ServerRandom, c: Combat | None = None) -> Shot | None:
        dice.roundavg(-1.0)
        return None

    def apply(self, shot: Shot, c: Combat | None = None) -> None:
        raise AssertionError("a sector that is no fort does not fire")


IDLE = _Idle()


def fort_damage(c: Combat, victim: int, helped: int) -> int:
    """§5.3 forts: every helping sector within 8 rolls its range; real forts fire until
    the damage reaches 80."""
    return c.dice.block(_fort_salvo(c, victim, helped))


def _fort_salvo(
    c: Combat,
    victim: int,
    helped: int,
    bases: Bases | None = None,
    t: Any = _UNSET,
) -> _Fire:
    """``t`` and ``bases``: :func:`_listing` of the command's world, if known."""
    w = c.world
    if c.rules.NO_FORT_FIRE or helped == 0 or victim == helped:
        return _fire("fort", [], c, FORT_RULES)
    tpl, bases = _given(c, t, bases)
    p = _target(c)

    def make(ring: Sequence[tuple[Coord, Sector]]) -> list[tuple[int, Firer]]:
        helps = w.helpers(helped, victim)
        return [
            (k, _Fort.at(c, xy, s, victim, helped, bases))
            for k, (xy, s) in enumerate(ring)
            if helps[s.owner]
        ]

    key = ("fort", p, victim, helped, c.aggressor, c.defender)
    known = None if tpl is None else tpl.memo.get(key)
    if tpl is not None and not (isinstance(known, _Forts) and _same_rules(known.rules, c.rules)):
        known = _forts_of(tpl, c.rules, p, key, make)
    if tpl is None or known is None:
        return _fire("fort", [f for _, f in make(w.peek_within(p, 8))], c, FORT_RULES)
    # The sectors the run changed are listed again, in their places among the template's.
    sectors = tpl.frozen.sectors
    mine = [
        (k, xy, s)
        for xy, s in own_copies(w)
        if (k := known.place.get(xy)) is not None and s.__dict__ != sectors[xy].__dict__
    ]
    if not mine:
        return _fire("fort", known.firers, c, FORT_RULES, known.token)
    helps = w.helpers(helped, victim)
    by_place = dict(known.by_place)
    for k, xy, s in mine:
        if helps[s.owner]:
            by_place[k] = _Fort.at(c, xy, s, victim, helped, bases)
        else:
            by_place.pop(k, None)
    return _fire("fort", [by_place[k] for k in sorted(by_place)], c, FORT_RULES)


def _forts_of(
    tpl: WorldTemplate,
    rules: Rules,
    p: Coord,
    key: Hashable,
    make: Callable[[Sequence[tuple[Coord, Sector]]], list[tuple[int, Firer]]],
) -> _Forts | None:
    """The forts ``make`` lists from the template's sectors within 8 of ``p`` under
    ``rules``, kept in its memo under ``key``; ``None`` when one of those sectors is
    unknown (the scan of the world itself names it)."""
    sectors = tpl.frozen.sectors
    coords = list(tpl.frozen.geometry.within(p, 8))
    if not all(xy in sectors for xy in coords):
        return None
    ring = tuple((xy, sectors[xy]) for xy in coords)
    listed = make(ring)
    firers = tuple(f for _, f in listed)
    known = _Forts(
        rules,
        dict(listed),
        {xy: k for k, (xy, _) in enumerate(ring)},
        firers,
        _token(_salvo_key("fort", 0, firers)),
    )
    tpl.memo[key] = known
    return known


def _reached(most: int) -> Callable[[int], bool]:
    return lambda total: total >= most


@dataclass(frozen=True)
class _Forts:
    """The forts of one salvo listed on a template's sectors: each by its place in the
    ring of sectors within 8, the places, and the salvo's firers and key as listed."""

    rules: Rules
    by_place: dict[int, Firer]
    place: dict[Coord, int]
    firers: tuple[Firer, ...]
    token: Hashable | None


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
    uid: int = field(compare=False)
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
            ship_reach(sh), dist, guns, sh.eff, news, based, sh.uid, at, victim, helped, approach
        )

    @property
    def key(self) -> Hashable | None:
        if self.based:
            return None
        return (self.reach, self.dist, self.guns, self.eff, *self.news.key)

    def draw(self, dice: ServerRandom, c: Combat | None = None) -> Shot | None:
        if dice.roundavg(self.reach) < self.dist or self.guns <= 0:
            return None
        return ship_volley(dice, self.guns, self.eff), self.news.draw(dice)

    def apply(self, shot: Shot, c: Combat | None = None) -> None:
        assert c is not None
        sh, victim, helped = c.world.ships[self.uid], self.victim, self.helped
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
    t: Any = _UNSET,
) -> _Fire:
    w = c.world
    p = _target(c) if at is None else at
    if helped == 0 or victim == helped:
        return _fire("ship", [], c, SHIP_RULES)
    tpl, bases = _given(c, t, bases)

    helps = w.helpers(helped, victim)

    def listed(sh: Ship) -> bool:
        return (
            w.geometry.mapdist(sh.xy, p) <= 8
            and helps[sh.owner]
            and (approach or not sh.type.has("sub"))
            and not (sh.mission and c.rules.info_mission_fire)
        )

    def make(ships: Sequence[tuple[int, Ship]]) -> list[tuple[Any, Firer]]:
        return [
            (k, _Ship.of(c, sh, p, victim, helped, approach, bases))
            for k, sh in ships
            if listed(sh)
        ]

    key = ("ship", p, victim, helped, approach, c.aggressor, c.defender)
    firers, token = _listed(c, tpl, key, "ships", listed, make)
    return _fire("ship", firers, c, SHIP_RULES, token)


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
    uid: int = field(compare=False)
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
            ("unit", u.uid) in bases, u.uid, victim, helped,
        )  # fmt: skip

    @property
    def key(self) -> Hashable | None:
        if self.shells is None or self.based:
            return None
        return (self.reach, self.dist, self.guns, self.eff, self.shells, self.ammo, self.acc,
                *self.news.key)  # fmt: skip

    def draw(self, dice: ServerRandom, c: Combat | None = None) -> Shot | None:
        if self.dist > dice.roundavg(self.reach) or self.guns <= 0:
            return None
        shells = self.shells
        if shells is None:
            assert c is not None
            u = c.world.units[self.uid]
            in_supply(c.world, u, dice=dice, rules=c.rules)
            shells = u.items.get("shell", 0)
        if shells <= 0:
            return None
        d2 = unit_volley(dice, self.guns, self.eff, shells, self.ammo)
        turned = self.news.draw(dice)
        if dice.pct_chance(self.acc):
            d2 //= 2
        return d2, turned

    def apply(self, shot: Shot, c: Combat | None = None) -> None:
        assert c is not None
        u, victim, helped = c.world.units[self.uid], self.victim, self.helped
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

    def draw(self, dice: ServerRandom, c: Combat | None = None) -> Shot | None:
        dice.roundavg(self.reach)
        return None

    def apply(self, shot: Shot, c: Combat | None = None) -> None:
        raise AssertionError("a land unit that cannot fire does not")


def _plane_bases(c: Combat) -> Bases:
    """Where planes take their bombs from (:func:`~bellum.empire.combat.air.base_of`): a
    firer there is drawn volley by volley, since the planes that fly later in the command
    read the shells its volley leaves."""
    return _bases_of([p for _, p in peek_items(c.world.planes)], c.world.geometry)


def _bases_of(planes: Sequence[Plane], geometry: Geometry) -> Bases:
    bases: set[tuple[str, Any]] = set()
    for p in planes:
        if p.ship is not None:
            bases.add(("ship", p.ship))
        elif p.land is not None:
            bases.add(("unit", p.land))
        else:
            bases.add(("sector", geometry.norm(*p.xy)))
    return frozenset(bases)


def _given(c: Combat, t: Any, bases: Bases | None) -> tuple[WorldTemplate | None, Bases]:
    """A salvo's template and bases: those given, else :func:`_listing` (no template
    when other bases are given)."""
    if t is not _UNSET:
        assert bases is not None
        return t, bases
    tpl, found = _listing(c)
    if bases is not None and bases != found:
        return None, bases
    return tpl, found


def _listing(c: Combat) -> tuple[WorldTemplate | None, Bases]:
    """The template whose listed firers the command's world may take, if any (it is
    :func:`~bellum.empire.scratch.pristine`, and its planes are based where the
    template's are: the firers read the bases), and the planes' bases."""
    t = pristine(c.world)
    if t is None:
        return None, _plane_bases(c)
    known = t.memo.get("bases")
    if not isinstance(known, frozenset):
        known = _bases_of(list(t.frozen.planes.values()), t.frozen.geometry)
        t.memo["bases"] = known
    if not changed(c.world.planes):
        return t, known
    now = _plane_bases(c)
    return (t if now == known else None), now


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


def _unit_salvo(
    c: Combat,
    victim: int,
    helped: int,
    bases: Bases | None = None,
    t: Any = _UNSET,
) -> _Fire:
    w = c.world
    p = _target(c)
    tpl, bases = _given(c, t, bases)

    helps = w.helpers(helped, victim)

    def listed(u: LandUnit) -> bool:
        return u.xy != p and helps[u.owner] and not (u.mission and c.rules.info_mission_fire)

    def make(everyone: Sequence[tuple[int, LandUnit]]) -> list[tuple[Any, Firer]]:
        units = [(k, u) for k, u in everyone if listed(u)]
        # One unit's resupply may take from another's spare: then every unit reads its
        # shells as it fires, draw by draw.
        guns = [unit_guns(u) for _, u in units]
        live = any(g > 0 and not _has_load(c, u) for (_, u), g in zip(units, guns, strict=True))
        return [
            (k, _Unit.of(c, u, g, victim, helped, live, bases) if g > 0 else _Ranger(unit_reach(u)))
            for (k, u), g in zip(units, guns, strict=True)
        ]

    key = ("unit", p, victim, helped, c.aggressor, c.defender)
    firers, token = _listed(c, tpl, key, "units", listed, make)
    return _fire("unit", firers, c, UNIT_RULES, token)


def _never(total: int) -> bool:
    return False


FORT_RULES: Rules3 = (operator.add, _reached(80), int)
SHIP_RULES: Rules3 = (_hit, _factor_spent, _percent)
UNIT_RULES: Rules3 = (operator.add, _never, int)


def _always(x: float) -> bool:
    return True


def support(c: Combat, wanted: tuple[bool, bool, bool, bool]) -> None:
    """§5.1: both sides' multipliers, in the server's order, then the support table."""
    a, d = c.aggressor, c.defender
    assert c.target is not None
    salvos: tuple[Callable[..., Salvo[Any]], ...] = (_fort_salvo, _ship_salvo, _unit_salvo)
    # A side's salvos are listed before any fires: the planes' bases are the same for all.
    t, bases = _listing(c)
    ours = [
        make(c, d, a, bases=bases, t=t) if want else None
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
        t, bases = _listing(c)  # the support planes have flown since
        theirs = [make(c, a, d, bases=bases, t=t) for make in salvos]
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
