"""What a country believes about the game: a distribution for every unknown a fight needs.

A player's world (:class:`~bellum.empire.world.World` with fog) holds the
country's own objects exactly and, in ``observations``, what it saw of the
others.  :func:`believe` turns that into a :class:`Belief`: one complete world
with a placeholder for every unknown, and the list of :class:`Unknown` values
(each a finite distribution and how it was chosen).  :meth:`Belief.draws` and
:meth:`Belief.world` give complete worlds from it, on which the rules run as on
any world.

The priors (docs/fog.md says why each was chosen):

* **A number seen rounded** (``approx 40 mil``, ``100%`` rounded to 10): every
  integer the rounding allows, equally likely.
* **Its age.**  Between updates nothing of the server's own changes a
  sector's mil or a unit's; what moves them is the owner's orders, which no
  rule bounds.  So a number seen ``a`` updates ago is widened by a factor
  ``(1 + drift) ** a`` both ways (``drift`` 0.25 by default: ``--assume
  drift=...``); one seen since the last update is taken as seen.
* **What no report shows** (missions, a unit's fortification, efficiency and
  load, a ship's guns, a fort's guns and shells, an airfield's petrol and shells
  where no spy counted them):
  like the country's own objects, each as likely; a load as a share of what the
  type holds, the own objects of the same type weighing one each
  against all the others and any share together (Laplace's rule for a number);
  a country plays as its enemies do more than any other guess says.  A unit's
  mission and fortification as the own units' as far behind a frontier (a
  reserve reacts only within its radius, with the mobility for the path, so
  where it waits is doctrine).  Without own objects to go by: what the type
  allows, uniformly (missions: 1/2).
* **A foreign ship's crew**: loaded by the number, so like the country's own ships of
  the type, each weighing one, and all else weighing one in all: the lesser of what
  the type holds and the mil of one of the owner's sectors seen, or any crew, weighing
  one; at sea a type without civ has a mil at least.
* **The units in a sector a lookout saw**, where no unit was seen: ``lookout``
  shows none, where ``spy`` lists them all; so units with the chance that a
  sector of its kind (on a frontier, a coast or inland) whose units the country
  knows held any (Laplace's rule), those of one spied sector of its kind; or,
  each weighing one, what one of the country's own sectors as far from a frontier
  holds, its units' missions included; but not those the country's own units
  would have shown (``llookout``).  The target's
  **mines**: laid with the chance that a sector of its kind holds an engineer (only
  engineers lay them), as many as one ``lmine`` lays (1..127), counted up to 20.
* **The tech** of another country: its ``report`` band.
* **Sectors never seen** near the target are like the sectors of the same
  owner that were seen (a random one of them), holding units as a sector a
  lookout saw does: where the bmap shows land, and where it shows nothing (close
  to the target) with the chance that a sector it shows is land.

``--assume NAME=VALUE`` (:func:`parse_assumptions`) fixes any of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from bellum.empire.combat.state import ldround
from bellum.empire.geometry import Coord
from bellum.empire.intel.model import Observation, Seen
from bellum.empire.tables import LandType, SectorType, ShipType, techfact
from bellum.empire.world import (
    ITEMS,
    LandUnit,
    Nation,
    Plague,
    Plane,
    Relation,
    Sector,
    Ship,
    UnknownSector,
    World,
)
from bellum.errors import InputError
from bellum.numbers import to_int

#: How much a number seen may have changed per update since, each way (a factor).
DRIFT = 0.25
#: How far from the target foreign objects matter (sectors): forts, reserves, ships
#: and artillery in range of it.
REACH = 8
#: The designation planes fly their missions from (combat/air.py).
AIRFIELD = "airfield"
#: Most distinct values of one unknown kept (wider ranges are thinned evenly).
MAX_VALUES = 101

Apply = Callable[[World, Any], None]


@dataclass(frozen=True)
class Dist:
    """A finite distribution: ``values`` with their ``weights`` (normalised when drawn)."""

    values: tuple[Any, ...]
    weights: tuple[float, ...]

    @classmethod
    def fixed(cls, value: Any) -> Dist:
        return cls((value,), (1.0,))

    @classmethod
    def uniform(cls, lo: int, hi: int) -> Dist:
        """Every integer from ``lo`` to ``hi`` (at most :data:`MAX_VALUES`, evenly spread)."""
        lo, hi = int(lo), int(max(lo, hi))
        n = hi - lo + 1
        values = (
            range(lo, hi + 1)
            if n <= MAX_VALUES
            else sorted({round(lo + i * (hi - lo) / (MAX_VALUES - 1)) for i in range(MAX_VALUES)})
        )
        vs = tuple(values)
        return cls(vs, (1.0,) * len(vs))

    @classmethod
    def of(cls, values: Sequence[Any]) -> Dist:
        """Each of ``values`` as likely as the others (a value given twice, twice as likely)."""
        counts: dict[Any, int] = {}
        for v in values:
            counts[v] = counts.get(v, 0) + 1
        keys = sorted(counts)
        return cls(tuple(keys), tuple(float(counts[k]) for k in keys))

    @property
    def certain(self) -> bool:
        return len(self.values) == 1

    def quantile(self, u: float) -> Any:
        """The value at cumulative probability ``u`` in [0, 1)."""
        total = sum(self.weights)
        acc = 0.0
        for v, w in zip(self.values, self.weights, strict=True):
            acc += w / total
            if u < acc:
                return v
        return self.values[-1]

    def describe(self) -> str:
        if self.certain:
            return f"{self.values[0]}"
        same = all(w == self.weights[0] for w in self.weights)
        numbers = all(isinstance(v, int) and not isinstance(v, bool) for v in self.values)
        lo, hi = self.values[0], self.values[-1]
        if same and numbers and list(self.values) == list(range(lo, hi + 1)):
            return f"uniform {lo}..{hi}"
        if numbers:
            return f"one of {len(self.values)} values from {lo} to {hi}"
        if len(self.values) > 6:
            return f"one of {len(self.values)} cases"
        parts = [
            f"{v} ({w / sum(self.weights):.0%})"
            for v, w in zip(self.values, self.weights, strict=True)
        ]
        return ", ".join(parts)


@dataclass(frozen=True)
class Input:
    """One input of the odds as the report lists it.

    ``status`` is ``known`` (seen since the last update, exactly or as the server
    rounds it), ``stale`` (seen before an update since) or ``unknown`` (never seen:
    a prior).
    """

    name: str
    status: str
    seen: str | None
    turn: int | None
    source: str | None
    treatment: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seen": self.seen is not None,
            "value_seen": self.seen,
            "turn": self.turn,
            "source": self.source,
            "status": self.status,
            "treatment": self.treatment,
        }


@dataclass
class Unknown:
    """One unknown: its distribution, how to put a value of it in a world, its listing."""

    name: str
    dist: Dist
    apply: Apply
    info: Input


@dataclass
class Belief:
    """A complete world with every unknown open, and the unknowns."""

    base: World
    unknowns: list[Unknown] = field(default_factory=list)
    #: The inputs that are no unknowns (seen exactly, the country's own): listed too.
    known: list[Input] = field(default_factory=list)

    @property
    def inputs(self) -> list[Input]:
        return [u.info for u in self.unknowns] + self.known

    @property
    def open(self) -> list[Unknown]:
        """The unknowns that are not certain."""
        return [u for u in self.unknowns if not u.dist.certain]

    def combinations(self) -> int:
        return math.prod(len(u.dist.values) for u in self.open)

    def world(self, values: Sequence[Any]) -> World:
        """The complete world with the open unknowns at ``values`` (in :attr:`open` order)."""
        w = self.base.copy()
        for u in self.unknowns:
            if u.dist.certain:
                u.apply(w, u.dist.values[0])
        for u, v in zip(self.open, values, strict=True):
            u.apply(w, v)
        return w

    def draws(self, n: int, seed: int) -> Iterator[tuple[tuple[Any, ...], float]]:
        """Values of the open unknowns with their weights: every combination when there
        are at most ``n``, else ``n`` Latin-hypercube draws (each unknown's quantiles
        stratified, shuffled independently), each of weight ``1/n``."""
        opened = self.open
        total = self.combinations()
        if total <= n:
            yield from _every(opened)
            return
        rng = np.random.default_rng(seed)
        columns = []
        for u in opened:
            strata = (rng.permutation(n) + rng.random(n)) / n
            columns.append([u.dist.quantile(float(q)) for q in strata])
        for row in zip(*columns, strict=True):
            yield tuple(row), 1.0 / n


def _every(opened: list[Unknown]) -> Iterator[tuple[tuple[Any, ...], float]]:
    combos: list[tuple[tuple[Any, ...], float]] = [((), 1.0)]
    for u in opened:
        total = sum(u.dist.weights)
        combos = [
            ((*vs, v), p * w / total)
            for vs, p in combos
            for v, w in zip(u.dist.values, u.dist.weights, strict=True)
        ]
    yield from combos


# -- assumptions -----------------------------------------------------------------------


@dataclass(frozen=True)
class Assumptions:
    """What ``--assume`` fixed: input names to values, and the global priors."""

    values: dict[str, str] = field(default_factory=dict)
    drift: float = DRIFT
    #: The chance of a mission that joins the fight; ``None``: the viewer's own share.
    missions: float | None = None
    unseen: str = "like-seen"

    def take(self, name: str) -> str | None:
        return self.values.get(name)


GLOBALS = {"drift", "missions", "unseen"}


def parse_assumptions(items: Sequence[str]) -> Assumptions:
    """``NAME=VALUE`` pairs (``--assume``): an input's name as the report lists it
    (``2,0.mil``, ``unit#3.mission``, ``nation#2.tech``), or a global prior:
    ``drift`` (a factor per update, >= 0), ``missions`` (a probability),
    ``unseen`` (``like-seen`` or ``empty``)."""
    values: dict[str, str] = {}
    drift, unseen = DRIFT, "like-seen"
    missions: float | None = None
    for item in items:
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise InputError(f"--assume needs NAME=VALUE such as 2,0.mil=40, not '{item}'")
        if name in values:
            raise InputError(f"--assume {name} is given twice")
        if name == "drift":
            drift = _number(name, value, 0, 100)
        elif name == "missions":
            missions = _number(name, value, 0, 1)
        elif name == "unseen":
            if value not in ("like-seen", "empty"):
                raise InputError("--assume unseen= takes like-seen or empty")
            unseen = value
        else:
            values[name] = value
    return Assumptions(values, drift, missions, unseen)


def _number(name: str, text: str, lo: float, hi: float) -> float:
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not lo <= v <= hi:
        raise InputError(f"--assume {name}= takes a number from {lo:g} to {hi:g}, not '{text}'")
    return v


# -- building the belief ---------------------------------------------------------------


@dataclass
class _Builder:
    world: World
    country: int
    target: Coord
    assume: Assumptions
    turn: int
    belief: Belief = field(init=False)
    own: _Own = field(init=False)
    used: set[str] = field(default_factory=set)
    _garrisons: _Garrisons | None = None

    def __post_init__(self) -> None:
        self.belief = Belief(_complete(self.world, self.country))
        self.own = _Own.of(self.world, self.country)

    @property
    def garrisons(self) -> _Garrisons:
        if self._garrisons is None:
            self._garrisons = _Garrisons.of(self)
        return self._garrisons

    @property
    def geo(self) -> Any:
        return self.world.geometry

    def near(self, c: Coord, reach: int = REACH) -> bool:
        return bool(self.geo.mapdist(c, self.target) <= reach)

    # -- one input -------------------------------------------------------------------

    def add(self, name: str, dist: Dist, apply: Apply, seen: Seen | None, how: str) -> None:
        """An input: its distribution (or the value ``--assume`` gives it) and its listing."""
        given = self.assume.take(name)
        if given is not None:
            self.used.add(name)
            value = _as_value(given, dist)
            dist = Dist.fixed(value)
            how = f"assumed {value} (--assume)"
        if seen is None:
            status = "unknown"
        elif self.turn - seen.turn <= 0:
            status = "known"
        else:
            status = "stale"
        info = Input(
            name,
            status,
            None if seen is None else _shown(seen),
            None if seen is None else seen.turn,
            None if seen is None else seen.source,
            how,
        )
        self.belief.unknowns.append(Unknown(name, dist, apply, info))

    def number(
        self,
        name: str,
        seen: Seen | None,
        prior: Dist,
        apply: Apply,
        why: str,
        most: int,
        weighed: bool = False,
    ) -> None:
        """A number: from its sighting (rounding, widened by age), else ``prior``.  With
        ``weighed``, the values the sighting allows keep the prior's weights (Bayes: a
        rounded sighting rules values out and says nothing of those it allows), where
        the prior rests on exact numbers: a unit's mil, whose load is the owner's doing
        and mostly full, seen as 100 (95..100) of 100 is 100 far more often than 95
        (taken uniform, an lboard by a party of 100 was 0.62 where it is 0.50)."""
        if seen is None:
            self.add(name, prior, apply, None, f"never seen: {why}, {prior.describe()}")
            return
        lo = seen.lo if seen.lo is not None else seen.value
        hi = seen.hi if seen.hi is not None else seen.value
        assert isinstance(lo, int | float) and isinstance(hi, int | float)
        age = max(0, self.turn - seen.turn)
        widen = (1 + self.assume.drift) ** age
        lo2, hi2 = math.floor(lo / widen), min(most, math.ceil(hi * widen))
        dist = Dist.uniform(int(lo2), int(max(lo2, hi2)))
        what = "as seen" if seen.exact and not age else f"seen as {_shown(seen)} ({seen.how})"
        aged = f", {age} update{'s' * (age != 1)} ago: widened {widen:.2f}x" if age else ""
        inside = _within(prior, dist) if weighed and not dist.certain else None
        if inside is not None:
            top = max(zip(inside.weights, inside.values, strict=True))[1]
            share = max(inside.weights) / sum(inside.weights)
            self.add(name, inside, apply, seen, f"{what}{aged}: {inside.describe()}, {top}"
                     f" with {share:.0%}, weighed {why}")  # fmt: skip
            return
        self.add(name, dist, apply, seen, f"{what}{aged}: {dist.describe()}")


def _within(prior: Dist, allowed: Dist) -> Dist | None:
    """``prior`` on the values ``allowed`` holds, each weighing as ``prior`` has it (a
    value ``prior`` lacks, as its nearest thinned neighbour does); ``None`` if it gives
    them no weight."""
    weight = dict(zip(prior.values, prior.weights, strict=True))
    keys = sorted(weight)
    out = []
    for v in allowed.values:
        if v in weight:
            out.append(weight[v])
            continue
        near = min(keys, key=lambda k: abs(k - v))
        out.append(weight[near] if abs(near - v) <= 1 else 0.0)
    kept = [(v, w) for v, w in zip(allowed.values, out, strict=True) if w > 0]
    if not kept:
        return None
    return Dist(tuple(v for v, _ in kept), tuple(w for _, w in kept))


def _shown(seen: Seen) -> str:
    if seen.value is not None:
        return str(seen.value)
    if seen.hi is None:
        return f">= {seen.lo:g}"
    return f"{seen.lo:g}..{seen.hi:g}"


def _as_value(text: str, dist: Dist) -> Any:
    """An ``--assume`` value in the type of the input's values."""
    sample = dist.values[0]
    if isinstance(sample, bool | str):
        return text
    n = to_int(text, signed=True)
    if n is None:
        try:
            return float(text)
        except ValueError:
            raise InputError(f"--assume: '{text}' is not a number") from None
    return n


def _complete(world: World, country: int) -> World:
    """A whole world to draw from: the country's view with its gaps filled with what
    changes nothing (unseen sectors empty land or sea as the bmap says; unknown fields
    of the country's own objects at the server's defaults; other nations' at 0)."""
    w = world.copy()
    w.fog = None
    w.observations = {}
    geo = w.geometry
    bmap = world.bmaps.get(country)
    afloat = _afloat(world)
    for y in range(geo.height):
        for x in range(y % 2, geo.width, 2):
            if (x, y) in w.sectors:
                continue
            mark = bmap.at((x, y)) if bmap else " "
            sea = mark == "." or (x, y) in afloat
            kind = w.tables.sector("sea") if sea else w.tables.sector("wilderness")
            w.sectors[(x, y)] = Sector(x=x, y=y, type=kind)
    for n in w.nations.values():
        _fill_nation(n)
    for s in w.sectors.values():
        _fill_own(s)
    for u in w.units.values():
        u.plague = Plague.HEALTHY if u.plague is None else u.plague
    for sh in w.ships.values():
        sh.plague = Plague.HEALTHY if sh.plague is None else sh.plague
    w.sectors = dict(sorted(w.sectors.items(), key=lambda kv: (kv[0][1], kv[0][0])))
    return w


def _afloat(world: World) -> set[Coord]:
    """Where ships are and no sector is known: at sea (a harbour holding them would be
    the country's own, or seen)."""
    return {sh.xy for sh in world.ships.values() if sh.xy not in world.sectors}


def _fill_nation(n: Nation) -> None:
    n.money = 0 if n.money is None else n.money
    n.btu = 0 if n.btu is None else n.btu
    n.tech = 0.0 if n.tech is None else n.tech
    n.happiness = 0.0 if n.happiness is None else n.happiness
    n.origin = (0, 0) if n.origin is None else n.origin
    n.capital_sacked = bool(n.capital_sacked)


def _fill_own(s: Sector) -> None:
    """The server keeps these to the deity: at their defaults they change no fight."""
    s.loyalty = 0 if s.loyalty is None else s.loyalty
    s.mines = 0 if s.mines is None else s.mines
    s.che = 0 if s.che is None else s.che
    s.che_target = 0 if s.che_target is None else s.che_target
    s.plague = Plague.HEALTHY if s.plague is None else s.plague


# -- what the country's own objects suggest ---------------------------------------------


@dataclass
class _Own:
    """What no report shows of another country (missions, fortification, a unit's or a
    ship's load, a fort's guns) is drawn from the viewer's own objects: the country's
    own doctrine is the best evidence it has of how its enemies play."""

    values: dict[str, list[int]] = field(default_factory=dict)
    shares: dict[str, list[float]] = field(default_factory=dict)
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, world: World, country: int) -> _Own:
        own = cls()
        units = [u for u in world.units.values() if u.owner == country and not u.loaded]
        own.values["unit eff"] = [u.eff for u in units]
        own.values["unit fort"] = [u.fort for u in units]
        own.shares["unit mil"] = [u.mil / u.type.milit for u in units if u.type.milit]
        for u in units:
            if u.type.milit:
                own.shares.setdefault(f"unit mil|{u.type.name}", []).append(u.mil / u.type.milit)
        reacting = [u for u in units if u.type.rad > 0 and not u.type.has("spy")]
        own.counts["reserve"] = (sum(u.mission == "reserve" for u in reacting), len(reacting))
        garrisons = {u.xy for u in reacting}
        on_reserve = {u.xy for u in reacting if u.mission == "reserve"}
        # a hidden garrison is copied whole: its chance is by garrison, not by unit
        own.counts["garrison reserve"] = (len(on_reserve), len(garrisons))
        ships = [sh for sh in world.ships.values() if sh.owner == country]
        own.values["ship eff"] = [sh.eff for sh in ships]
        for item in ("mil", "gun", "shell"):
            own.shares[f"ship {item}"] = [
                sh.items.get(item, 0) / sh.type.cargo[_cargo(item)]
                for sh in ships
                if sh.type.cargo.get(_cargo(item))
            ]
            for sh in ships:
                if sh.type.cargo.get(_cargo(item)):
                    own.shares.setdefault(f"ship {item}|{sh.type.name}", []).append(
                        sh.items.get(item, 0) / sh.type.cargo[_cargo(item)]
                    )
        planes = [p for p in world.planes.values() if p.owner == country
                  and (p.type.has("tactical") or p.type.has("bomber"))]  # fmt: skip
        supporting = sum(p.mission in ("support", "osupport", "dsupport") for p in planes)
        own.counts["support"] = (supporting, len(planes))
        forts = [s for s in world.sectors.values() if s.owner == country and s.type.has("fortress")]
        own.values["fort gun"] = [s.get("gun") for s in forts]
        own.values["fort shell"] = [s.get("shell") for s in forts]
        airfields = [s for s in world.sectors.values()
                     if s.owner == country and s.type.name == AIRFIELD]  # fmt: skip
        for item in ("petrol", "shell"):
            own.values[f"airfield {item}"] = [s.get(item) for s in airfields]
        own.values["defense"] = [s.defense for s in world.sectors.values() if s.owner == country]
        return own

    def like(self, key: str, fallback: Dist) -> Dist:
        """The viewer's own values of ``key``, each as likely; ``fallback`` without any."""
        vs = self.values.get(key, [])
        return Dist.of(vs) if vs else fallback

    def share(self, key: str, kind: str, most: int) -> Dist:
        """``most`` times a share of the viewer's own ``key`` (a crew, a load), for an
        object of type ``kind``.  The server fills no crew or load by itself: each is
        what its owner loaded, any amount up to what the type holds (``load``), so the
        only evidence is how the viewer loads its own.  Laplace's rule for a number:
        each own object of the type weighs one, and all else the viewer knows weighs
        one more in all (its objects of every type, one each, and beside them any share,
        uniformly, weighing one).  One own cargo ship says much of a cargo ship's crew,
        never that it is certain; a transport's crew is not a battleship's share."""
        spread = Dist.uniform(0, most)
        pooled = _mixed([(spread, 1.0), *self._scaled(key, most)])
        return _mixed([(pooled, 1.0), *self._scaled(f"{key}|{kind}", most)])

    def _scaled(self, key: str, most: int) -> list[tuple[Dist, float]]:
        return [(Dist.fixed(min(most, max(0, round(f * most)))), 1.0)
                for f in self.shares.get(key, [])]  # fmt: skip

    def why_share(self, key: str, kind: str) -> str:
        n, total = len(self.shares.get(f"{key}|{kind}", [])), len(self.shares.get(key, []))
        if not total:
            return "any amount up to what the type holds"
        typed = f"{n} of the type, one each; " if n else ""
        return f"like the country's own: {typed}its {total} of all types and any amount, one in all"

    def chance(self, key: str, given: float | None) -> float:
        """The chance of ``key`` from the viewer's own objects doing it, ``n`` of
        ``total``: ``(n + 1) / (total + 2)`` (Laplace's rule: a few own units say
        something, never certainty; 1/2 without any).  ``given`` overrides."""
        if given is not None:
            return given
        n, total = self.counts.get(key, (0, 0))
        return (n + 1) / (total + 2)

    def why(self, key: str, fallback: str) -> str:
        n = len(self.values.get(key, self.shares.get(key, [])))
        if key in self.counts:
            n = self.counts[key][1]
        return f"like the country's own {n}" if n else fallback


# -- the objects seen ------------------------------------------------------------------


def believe(
    world: World,
    country: int,
    target: Coord,
    *,
    assume: Assumptions | None = None,
    turn: int | None = None,
) -> Belief:
    """What ``country`` believes about the fight at ``target`` (its coordinates).

    ``world`` is the country's view (its own objects and ``observations``);
    ``turn`` the game's update number now (default: the view's).  Every foreign
    object seen within :data:`REACH` of the target becomes an input; so does
    every number of the country's own that the server keeps from it.
    """
    assume = assume or Assumptions()
    now = turn if turn is not None else (world.fog.turn if world.fog is not None else 0)
    target = world.geometry.norm(*target)
    b = _Builder(world, country, target, assume, now)
    for o in sorted(world.observations.values(), key=lambda o: (o.kind, o.ident)):
        if o.kind == "sector":
            _sector_seen(b, o)
    for o in sorted(world.observations.values(), key=lambda o: (o.kind, o.ident)):
        if o.kind in ("unit", "ship", "plane"):
            _thing_seen(b, o)
    _hidden_units(b)
    _unseen(b)
    for o in world.observations.values():
        if o.kind == "nation":
            _nation_seen(b, o)
    missing = set(assume.values) - b.used
    if missing:
        names = ", ".join(sorted(missing))
        raise InputError(f"--assume {names}: no such input of this fight (see the list of inputs)")
    return b.belief


def _xy_of(ident: str, b: _Builder) -> Coord:
    x, _, y = ident.partition(",")
    xy: Coord = b.world.geometry.norm(int(x), int(y))
    return xy


def _seen_value(o: Observation, name: str, default: Any) -> Any:
    s = o.get(name)
    return default if s is None or s.value is None else s.value


def _sector_seen(b: _Builder, o: Observation) -> None:
    """A foreign sector seen: it takes its place in the world with what was seen."""
    xy = _xy_of(o.ident, b)
    w = b.belief.base
    kind = w.tables.sector(str(_seen_value(o, "type", w.sectors[xy].type.name)))
    owner = int(_seen_value(o, "owner", 0))
    s = Sector(
        x=xy[0], y=xy[1], type=kind, owner=owner, oldowner=int(_seen_value(o, "oldowner", owner))
    )
    for item in ITEMS:
        seen = o.get(item)
        if seen is not None and isinstance(seen.value, int):
            s.put(item, seen.value)
    seen_eff = o.get("eff")
    s.eff = int(seen_eff.value) if seen_eff is not None and isinstance(seen_eff.value, int) else 100
    w.sectors[xy] = s
    if not b.near(xy) or owner == b.country:
        return
    at = f"{xy[0]},{xy[1]}" if not b.world.fog else b.world.fmt(xy, b.country)
    is_target = xy == b.target
    fortress = kind.has("fortress")

    def setter(field_name: str) -> Apply:
        def put(world: World, v: Any) -> None:
            sect = world.sectors[xy]
            if field_name in ITEMS:
                sect.put(field_name, int(v))
            else:
                setattr(sect, field_name, int(v))

        return put

    if is_target or fortress or o.get("mil") is not None:
        b.number(f"{at}.mil", o.get("mil"), _mil_prior(b, owner), setter("mil"),
                 "the mil of the owner's sectors seen", 32767)  # fmt: skip
    if is_target or fortress:
        b.number(f"{at}.eff", seen_eff, Dist.uniform(0, 100), setter("eff"), "any efficiency", 100)
        defense = b.own.like("defense", Dist.fixed(0))
        b.number(f"{at}.defense", o.get("defense"), defense, setter("defense"),
                 b.own.why("defense", "not improved"), 100)  # fmt: skip
    if fortress:
        for item in ("gun", "shell"):
            b.number(f"{at}.{item}", o.get(item), _item_prior(b, owner, item), setter(item),
                     f"the {item}s of the owner's forts seen", 32767)  # fmt: skip
    if kind.name == AIRFIELD:
        for item in ("petrol", "shell"):
            b.number(f"{at}.{item}", o.get(item), _airfield_prior(b, owner, item), setter(item),
                     f"the {item} of the owner's airfields seen, else of the country's own"
                     " (its planes' fuel and bombs)", 32767)  # fmt: skip
    if is_target:
        _mines(b, at, xy, owner, s.oldowner)


#: The most mines a defence counts (``attsub.c``: ``MIN(mines, 20)``, 0.02 each).
MINES_COUNTED = 20
#: The most mines one ``lmine`` lays: one per point of the engineer's mobility
#: (``mine.c``), which is at most ``land_mob_max`` (127, constants.c).
MINES_LAID = 127


def _mines(b: _Builder, at: str, xy: Coord, owner: int | None, oldowner: int | None) -> None:
    """The target's mines: none against their old owner (the server counts none, and
    shows them to it).  Else no report shows them, nor the country's own (a player's
    dump leaves them out).  Only an engineer standing in its owner's sector lays them
    (``lmine``, mine.c), so they are laid with the chance that a sector of the target's
    kind (on a frontier, a coast or inland, :class:`_Garrisons`) holds an engineer; and
    then as many as one ``lmine`` lays, any number up to the engineer's mobility
    (:data:`MINES_LAID`), uniformly, of which the defence counts at most 20."""

    def put(world: World, v: Any) -> None:
        world.sectors[xy].mines = int(v)

    if oldowner == b.country:
        b.add(f"{at}.mines", Dist.fixed(0), put, None,
              "none counted against the old owner")  # fmt: skip
        return
    g = b.garrisons
    front = g.kind(b, xy, owner if owner is not None else -1)
    p = g.mined(front)
    n, most = MINES_COUNTED, MINES_LAID
    dist = Dist(tuple(range(n + 1)), (1 - p, *(p / most,) * (n - 1), p * (most - n + 1) / most))
    b.add(f"{at}.mines", dist, put, None,
          f"never shown but to the old owner: laid by engineers, so laid as engineers are"
          f" held {g.why(front, engineers=True)}: with probability {p:.2f}, then any number"
          f" one engineer's mobility lays (1..{most}, uniformly), the defence counting"
          f" at most {n}")  # fmt: skip


def _mil_prior(b: _Builder, owner: int) -> Dist:
    """The mil of a sector never counted: like the owner's sectors that were."""
    return _like_seen(b, owner, "mil", Dist.uniform(0, 100))


def _item_prior(b: _Builder, owner: int, item: str) -> Dist:
    fallback = b.own.like(f"fort {item}", Dist.uniform(0, 50 if item == "gun" else 100))
    return _like_seen(b, owner, item, fallback, lambda t: t.has("fortress"))


def _airfield_prior(b: _Builder, owner: int, item: str) -> Dist:
    """An airfield's petrol or shells: a lookout shows neither, yet its planes fly a
    mission only with their fuel and bombs from it (``_arm``, combat/missions.py)."""
    fallback = b.own.like(f"airfield {item}", Dist.uniform(0, 100))
    return _like_seen(b, owner, item, fallback, lambda t: t.name == AIRFIELD)


def _like_seen(b: _Builder, owner: int, item: str, fallback: Dist,
               kind: Callable[[SectorType], bool] | None = None) -> Dist:  # fmt: skip
    """The values of ``item`` shown in the owner's sectors seen (of ``kind``)."""
    values = []
    for o in b.world.observations.values():
        if o.kind != "sector" or int(_seen_value(o, "owner", -1)) != owner:
            continue
        if kind and not kind(b.world.tables.sector(str(_seen_value(o, "type", "sea")))):
            continue
        v = o.get(item)
        if v is not None and isinstance(v.value, int):
            values.append(v.value)
    if not values:
        return fallback
    return Dist.of(values)


def _mixed(parts: list[tuple[Dist, float]]) -> Dist:
    """The mixture of distributions, each with its total weight."""
    acc: dict[Any, float] = {}
    for d, weight in parts:
        total = sum(d.weights)
        for v, w in zip(d.values, d.weights, strict=True):
            acc[v] = acc.get(v, 0.0) + weight * w / total
    keys = sorted(acc)
    return Dist(tuple(keys), tuple(acc[k] for k in keys))


def _thing_seen(b: _Builder, o: Observation) -> None:
    """A foreign unit, ship or plane seen: placed where it was seen, its unknowns open."""
    w = b.belief.base
    at_seen = o.get("at")
    if at_seen is None or not isinstance(at_seen.value, str):
        return
    xy = _xy_of(at_seen.value, b)
    owner = int(_seen_value(o, "owner", 0))
    uid = int(o.ident)
    mnemonic = str(_seen_value(o, "type", ""))
    tables = w.tables
    tech_seen = o.get("tech")
    tech = float(tech_seen.value) if tech_seen and isinstance(tech_seen.value, int) else 0.0
    name = f"{o.kind}#{uid}"
    if o.kind == "unit" and mnemonic in tables.land:
        lt = tables.land[mnemonic]
        u = LandUnit(uid=uid, type=lt, owner=owner, x=xy[0], y=xy[1], tech=tech, eff=100,
                     mob=127)  # fmt: skip
        u.items = full_load(lt.cargo)
        w.units[uid] = u
        if not b.near(xy):
            return

        def put_unit(field_name: str) -> Apply:
            def put(world: World, v: Any) -> None:
                unit = world.units[uid]
                if field_name == "mil":
                    unit.items["mil"] = int(v)
                elif field_name == "mission":
                    unit.mission = str(v)
                    unit.op_center, unit.op_radius = (unit.xy, lt.rad) if v else (None, 0)
                else:
                    setattr(unit, field_name, v)

            return put

        own = b.own
        eff = own.like("unit eff", Dist.uniform(10, 100))
        b.number(f"{name}.eff", o.get("eff"), eff, put_unit("eff"),
                 own.why("unit eff", "any efficiency a unit keeps"), 100)  # fmt: skip
        b.number(f"{name}.mil", o.get("mil"), own.share("unit mil", lt.name, lt.milit),
                 put_unit("mil"), own.why_share("unit mil", lt.name), lt.milit,
                 weighed=True)  # fmt: skip
        b.number(f"{name}.tech", tech_seen, _tech_prior(b, owner, lt.tech), put_unit("tech"),
                 "the owner's tech as report shows it", 1000)  # fmt: skip
        fort, why = _fort_prior(b, xy, owner)
        b.add(f"{name}.fort", fort, put_unit("fort"), None, f"never shown: {why}")
        if lt.rad > 0 and not lt.has("spy"):
            p, why = _reserve_chance(b, lt, xy, owner)
            b.add(f"{name}.mission", Dist(("reserve", ""), (p, 1 - p)), put_unit("mission"), None,
                  f"never shown: reserve with probability {p:.2f} ({why})")  # fmt: skip
    elif o.kind == "ship" and mnemonic in tables.ships:
        st = tables.ships[mnemonic]
        sh = Ship(uid=uid, type=st, owner=owner, x=xy[0], y=xy[1], tech=tech or st.tech, eff=100,
                  mob=127)  # fmt: skip
        sh.items = full_load(st.cargo)
        w.ships[uid] = sh
        if not b.near(xy):
            return

        def put_ship(field_name: str) -> Apply:
            def put(world: World, v: Any) -> None:
                ship = world.ships[uid]
                if field_name in ("mil", "gun", "shell"):
                    ship.items[field_name] = int(v)
                else:
                    setattr(ship, field_name, v)

            return put

        own = b.own
        b.number(f"{name}.eff", o.get("eff"), own.like("ship eff", Dist.uniform(60, 100)),
                 put_ship("eff"), own.why("ship eff", "60% or more"), 100)  # fmt: skip
        if st.milit:
            crew, why = _crew_prior(b, owner, st, xy)
            b.number(f"{name}.mil", o.get("mil"), crew, put_ship("mil"), why, st.milit)
        for item in ("gun", "shell"):
            most = st.cargo.get(_cargo(item), 0)
            if most:
                key = f"ship {item}"
                b.number(f"{name}.{item}", o.get(item), own.share(key, st.name, most),
                         put_ship(item), own.why_share(key, st.name), most)  # fmt: skip
    elif o.kind == "plane" and mnemonic in tables.planes:
        pt = tables.planes[mnemonic]
        pl = Plane(uid=uid, type=pt, owner=owner, x=xy[0], y=xy[1], tech=tech or pt.tech, eff=100,
                   mob=127)  # fmt: skip
        w.planes[uid] = pl
        if pt.has("tactical") or pt.has("bomber"):

            def put_mission(world: World, v: Any) -> None:
                plane = world.planes[uid]
                plane.mission = str(v)
                plane.op_center, plane.op_radius = (plane.xy, pt.range) if v else (None, 0)

            p = b.own.chance("support", b.assume.missions)
            b.add(f"{name}.mission", Dist(("support", ""), (p, 1 - p)), put_mission, None,
                  f"never shown: support with probability {p:.2f}"
                  f" ({b.own.why('support', 'the most uncertain')})")  # fmt: skip


def _reserve_chance(b: _Builder, lt: LandType, xy: Coord, owner: int) -> tuple[float, str]:
    """That a foreign unit seen is on reserve: as the viewer's own units that react at
    the same depth behind a frontier (:meth:`_Garrisons.depth`) are, by Laplace's rule,
    and within those as its own of the same type are, the depth's chance weighing one.
    A reserve reacts only inside its mission's radius and with the mobility for the path
    (``attsub.c``), so it waits at a set distance behind the frontier it guards, where
    the frontier's own fortified infantry is no reserve: pooled over every unit, the
    chance put reserves on the frontier and too few behind it."""
    if b.assume.missions is not None:
        return b.assume.missions, "--assume missions"
    g = b.garrisons
    depth = g.depth(b, xy, owner)
    here = [u for u in b.world.units.values()
            if u.owner == b.country and not u.loaded and u.type.rad > 0
            and not u.type.has("spy") and g.depth(b, u.xy, b.country) == depth]  # fmt: skip
    k = sum(u.mission == "reserve" for u in here)
    p_place = (k + 1) / (len(here) + 2)
    typed = [u for u in here if u.type.name == lt.name]
    kt = sum(u.mission == "reserve" for u in typed)
    p = (kt + p_place) / (len(typed) + 1)
    why = (f"like the country's own {len(here)} units that react {_far(depth)},"
           f" {k} on reserve, and of those its {len(typed)} of the type,"
           f" {kt} on reserve")  # fmt: skip
    return p, why


def _fort_prior(b: _Builder, xy: Coord, owner: int) -> tuple[Dist, str]:
    """A foreign unit's fortification, never shown: as the viewer's own units' at the same
    depth behind a frontier (:meth:`_Garrisons.depth`), each weighing one, and all its
    units' together weighing one.  Units fortify where they hold a line (``fortify``
    costs the mobility a reserve needs to react), so a frontier's defenders are
    fortified as the country's own frontier is, not as its units are on average."""
    pooled = b.own.like("unit fort", Dist.uniform(0, 127))
    g = b.garrisons
    depth = g.depth(b, xy, owner)
    here = [
        u.fort
        for u in b.world.units.values()
        if u.owner == b.country and not u.loaded and g.depth(b, u.xy, b.country) == depth
    ]
    dist = _mixed([(pooled, 1.0), *((Dist.fixed(f), 1.0) for f in here)])
    n = len(b.own.values.get("unit fort", []))
    pool = f"its {n} units" if n else "any fortification (0..127)"
    why = (f"like the country's own {len(here)} units {_far(depth)}, each weighing"
           f" one, and {pool} weighing one in all")  # fmt: skip
    return dist, why


def _crew_prior(b: _Builder, owner: int, st: ShipType, xy: Coord) -> tuple[Dist, str]:
    """A foreign ship's crew, never shown (``lookout`` and ``coastwatch`` show a ship's
    owner, type and place).  The server puts no crew on a ship: its owner loads mil from
    a sector it holds, by the number (``load``: what was asked, limited by what the type
    holds and by the sector's mil, load.c ``move_amount``).  So a crew is the lesser of
    the type's capacity and the mil at hand where it was loaded: like one of the
    owner's sectors seen holding mil, each as likely, capped at the capacity; beside
    them any crew up to the capacity, uniformly, weighing one in all (Laplace's rule for
    a number, so that a few sectors never make it certain).  A ship at sea has a crew:
    the server moves none without mil or civ (``shp_may_nav``), so one that holds no civ
    has at least one mil.  Beside all that, weighing one in all, each of the country's
    own ships of the same type weighs one with its crew, by the number: how many to
    load is the owner's choice, and the country's own choice for the type is the best
    evidence it has of its enemies' (as for a ship's guns and shells); a share of
    another type's capacity is none (a battleship a tenth full says nothing of a
    fishing boat's crew of 10).  The sectors' mil alone held an enemy's cargo ship
    crewed as the one sector of 10 mil seen (training world 9401's ``board 21 2,8`` by
    a party of 17: fog-aware 0.12 where the crew of 45 made it 0.00)."""
    most = st.milit
    at_sea = b.belief.base.sectors[xy].type.is_sea
    least = 1 if at_sea and not st.cargo.get("civil") else 0
    mils = [int(s.value) for o in b.world.observations.values()
            if o.kind == "sector" and int(_seen_value(o, "owner", -1)) == owner
            and (s := o.get("mil")) is not None and isinstance(s.value, int) and s.value > 0
            ]  # fmt: skip
    parts = [(Dist.uniform(least, most), 1.0)]
    parts += [(Dist.fixed(min(most, max(least, m))), 1.0) for m in mils]
    typed = [min(most, max(least, sh.items.get("mil", 0))) for sh in b.world.ships.values()
             if sh.owner == b.country and sh.type.name == st.name]  # fmt: skip
    dist = _mixed([(_mixed(parts), 1.0), *((Dist.fixed(m), 1.0) for m in typed)])
    where = f"at sea, so at least {least}: " if least else ""
    own = (f"like the country's own {len(typed)} of the type, one each, and all else weighing"
           " one in all: " if typed else "")  # fmt: skip
    why = (f"{where}loaded by the number: {own}the lesser of {most} (what a {st.name} holds)"
           f" and the mil of one of the owner's {len(mils)} sectors seen with theirs, or any"
           " crew up to it, weighing one")  # fmt: skip
    return dist, why


def _cargo(item: str) -> str:
    return {"mil": "milit", "gun": "gun", "shell": "shell"}[item]


#: The world's item names of the type tables' cargo names that differ.
_ITEM_OF_CARGO = {"milit": "mil", "civil": "civ"}


def full_load(cargo: dict[str, int]) -> dict[str, int]:
    """What a unit or ship of a type holding ``cargo`` carries when full: the prior of
    the supplies nobody can see (a unit's guns and shells, its food)."""
    return {_ITEM_OF_CARGO.get(k, k): v for k, v in cargo.items() if v > 0}


def _tech_prior(b: _Builder, owner: int, least: int) -> Dist:
    """A foreign object's tech: the owner's tech as ``report`` last showed it."""
    o = b.world.observations.get(f"nation {owner}")
    band = o.get("tech") if o is not None else None
    if band is None or band.lo is None:
        return Dist.fixed(least)
    top = band.hi if band.hi is not None else band.lo * 1.5
    return Dist.uniform(max(least, int(band.lo)), max(least, int(top)))


def _nation_seen(b: _Builder, o: Observation) -> None:
    """Another nation's tech (forts' range): its ``report`` band."""
    cnum = int(o.ident)
    w = b.belief.base
    if cnum not in w.nations or not any(
        s.owner == cnum and b.near(s.xy) for s in w.sectors.values()
    ):
        return

    def put(world: World, v: Any) -> None:
        world.nations[cnum].tech = float(v)

    b.number(f"nation#{cnum}.tech", o.get("tech"), Dist.fixed(0), put,
             "never shown", 1000)  # fmt: skip


def _likely_owner(b: _Builder) -> int | None:
    """Whose the target is when it was never seen: the owner of the nearest foreign sector
    seen (a country at war with the viewer first)."""
    best: tuple[bool, int, str] | None = None
    owner = None
    for o in b.world.observations.values():
        if o.kind != "sector":
            continue
        who = int(_seen_value(o, "owner", 0))
        if who in (0, b.country):
            continue
        at_war = (
            b.world.nations.get(b.country) is not None
            and who in b.world.nations
            and (b.world.nations[b.country].relations.get(who) == Relation.AT_WAR)
        )
        key = (not at_war, b.geo.mapdist(_xy_of(o.ident, b), b.target), o.ident)
        if best is None or key < best:
            best, owner = key, who
    return owner


#: How far from the target a sector the bmap shows nothing of may hide what joins the
#: fight (a fort's reach, a reserve's): beyond, such sectors are left empty.
BLANK_REACH = 4
#: Numbers given to the units copied into sectors never seen (far above any real one).
COPY_UIDS = 1_000_000


def _unseen(b: _Builder) -> None:
    """Sectors near the target never seen, and the target itself if never seen: like a
    random sector seen of the target's owner (the likeliest owner when the target was not
    seen either), its designation and numbers; and holding units as a sector of its kind
    does (on a frontier, a coast or inland, :class:`_Garrisons`: the same chance and units
    as a sector a lookout saw).  A reserve behind the frontier sits where no lookout
    reaches: a sector seen only by a lookout shows none, so the units seen in the owner's
    sectors would say the land behind is empty.  A sector the bmap shows as land of some
    use (``?`` or a designation) is such land (``?``: none of :data:`MAP_NAMED`, so not
    drawn like a mountain, the viewer's own or one seen); one it shows nothing of (within
    :data:`BLANK_REACH`) is land with the chance that a sector the bmap shows is land,
    else sea.  Its designation and numbers (:class:`_Look`) are those of a seen sector of
    the owner as far from a frontier (:meth:`_Garrisons.depth`) as it is, or of one of
    the country's own as far, each weighing one, or of any seen sector of the owner,
    all weighing one: the sectors seen are mostly a frontier's, with a frontier's mil,
    where the interior holds few (a paradrop onto a warehouse of 11 mil looked hopeless,
    its target drawn with the frontier's hundreds).  Garrisons the country's own units
    looking would have shown (``llookout`` shows units as far as its range, look.c,
    :func:`_shown_to`) are out (Bayes: sea, which holds none, gains their weight)."""
    w = b.belief.base
    target_seen = b.target in b.world.sectors or f"sector {b.target[0]},{b.target[1]}" in (
        b.world.observations
    )
    owner = w.sectors[b.target].owner if target_seen else _likely_owner(b)
    seen = [
        o for o in b.world.observations.values()
        if o.kind == "sector" and owner not in (None, 0, b.country)
        and int(_seen_value(o, "owner", -1)) == owner
    ]  # fmt: skip
    if not seen or owner is None:
        if not target_seen:
            raise UnknownSector(
                f"sector {b.world.fmt(b.target, b.country)} is unknown: country {b.country} has"
                " seen neither it nor any other country's sector to judge it by (sync with"
                " --spend-btus or --risk-spies to look, docs/fog.md)"
            )
        return
    if b.assume.unseen == "empty" and target_seen:
        return
    bmap = b.world.bmaps.get(b.country)
    marks = [c for row in (bmap.rows if bmap else []) for c in row if c.strip()]
    land = sum(c != "." for c in marks) / len(marks) if marks else 0.5
    units_at = _units_seen_at(b)
    g = b.garrisons
    afloat = _afloat(b.world)
    lookers = _lookers(b)
    looks = [_Look.seen(o) for o in seen]
    depths = [g.depth(b, _xy_of(o.ident, b), owner) for o in seen]
    for xy in list(w.geometry.within(b.target, REACH)):
        if xy in b.world.sectors or f"sector {xy[0]},{xy[1]}" in b.world.observations:
            continue
        if xy in afloat and xy != b.target:
            continue
        mark = bmap.at(xy) if bmap is not None else " "
        blank = not mark.strip()
        if xy != b.target and (
            mark in ".^~\\-" or b.assume.unseen == "empty" or (blank and bmap is None)
            or (blank and b.geo.mapdist(xy, b.target) > BLANK_REACH)
        ):  # fmt: skip
            continue
        at = b.world.fmt(xy, b.country)
        share = 1.0 if not blank or xy == b.target else land
        front = g.kind(b, xy, owner)
        p_held = g.chance(front) if g.held else 0.0
        p_reserve = _garrison_reserve(b, front)
        pool = g.pool(front)
        depth = g.depth(b, xy, owner)
        garrison = _garrison_choices(g, pool, depth, p_held, p_reserve)
        unshown = _unshown(b, lookers, xy, pool, depth, units_at)
        out = sum(not unshown(pick) for pick, p in garrison if p > 0)
        garrison = [(pick, p) for pick, p in garrison if unshown(pick)]
        choices: list[tuple[int, int, bool | str]] = [(-1, -1, False)] if share < 1 else []
        weights: list[float] = [1 - share] if share < 1 else []
        own = [_Look.own(w.sectors[o]) for o in g.own_xy.get(depth, [])]
        kinds = looks + own
        as_deep = depths.count(depth)
        hidden = [i for i, k in enumerate(kinds) if mark != "?" or k.kind not in MAP_NAMED]
        for i in hidden or range(len(kinds)):
            like = (1 / len(seen) if i < len(seen) else 0.0) + (
                i >= len(seen) or depths[i] == depth
            )
            for (j, reserve), p in garrison:
                if p > 0:
                    choices.append((i, j, reserve))
                    weights.append(share * like / (1 + as_deep + len(own)) * p)

        def put(world: World, pick: Any, xy: Coord = xy, owner: int = owner,
                pool: list[str] = pool, depth: int = depth,
                kinds: list[_Look] = kinds) -> None:  # fmt: skip
            i, j, reserve = pick
            if i < 0:
                world.sectors[xy] = Sector(x=xy[0], y=xy[1], type=world.tables.sector("sea"))
                return
            world.sectors[xy] = kinds[i].sector(world, xy, owner)
            _garrison_put(b, world, (j, reserve), xy, owner, units_at, pool, depth)

        where = f"{mark!r} on the bmap" if not blank else f"land {share:.0%}, like the bmap's"
        b.add(f"{at}.like", Dist(tuple(choices), tuple(weights)), put, None,
              f"never seen ({where}): like one of the {as_deep} sectors of"
              f" {w.name_of(owner)} seen {_far(depth)} or of the country's own {len(own)}"
              f" as deep, each weighing one, or of its {len(seen)} seen, weighing one in all;"
              f" units {g.why(front)}: with probability {p_held:.2f},"
              f" {_on_reserve(b, p_reserve, front)}; {g.why_depth(depth)}"
              + (f"; not the {out} garrisons the country's units looking would have"
                 " shown (llookout)" if out else ""))  # fmt: skip
        if xy == b.target:
            _mines(b, at, xy, owner, None)


#: The designations ``map`` names in a sector another country owns (``map_char`` in
#: maps.c); it draws every other one as ``?``.  A player can designate none of them nor
#: turn one into another (``D_DEITY``, desi.c), so a sector the bmap shows as ``?`` is
#: none of them.
MAP_NAMED = frozenset({"sea", "mountain", "wasteland"})


@dataclass(frozen=True)
class _Look:
    """What a sector never seen is drawn like: a designation, an efficiency and items."""

    kind: str
    eff: int
    items: tuple[tuple[str, int], ...]

    @classmethod
    def seen(cls, o: Observation) -> _Look:
        items = tuple((i, s.value) for i in ITEMS
                      if (s := o.get(i)) is not None and isinstance(s.value, int))  # fmt: skip
        return cls(str(_seen_value(o, "type", "wilderness")), int(_seen_value(o, "eff", 100)),
                   items)  # fmt: skip

    @classmethod
    def own(cls, s: Sector) -> _Look:
        return cls(s.type.name, s.eff, tuple((i, s.get(i)) for i in ITEMS if s.get(i)))

    def sector(self, world: World, xy: Coord, owner: int) -> Sector:
        sect = Sector(x=xy[0], y=xy[1], type=world.tables.sector(self.kind), owner=owner,
                      oldowner=owner)  # fmt: skip
        sect.eff = self.eff
        for item, v in self.items:
            sect.put(item, v)
        return sect


def _copy_uid(world: World) -> int:
    """A uid no unit of ``world`` holds, above the copies' range start (one per copy: a
    count of units plus the copy's place in its list repeated uids across garrisons, and a
    later copy replaced an earlier one)."""
    return max(COPY_UIDS, max(world.units, default=0) + 1)


def _copy_units(
    world: World, units: list[int], xy: Coord, reserve: bool, owner: int | None = None
) -> None:
    """Copies of ``units`` (as drawn in ``world``) put at ``xy``, on reserve or not, and
    given to ``owner`` (default: their own)."""
    for unit in units:
        copy = world.units.get(unit)
        if copy is None:
            continue
        uid = _copy_uid(world)
        u = replace(copy, uid=uid, x=xy[0], y=xy[1], items=dict(copy.items))
        u.owner = copy.owner if owner is None else owner
        u.mission = "reserve" if reserve else ""
        u.op_center, u.op_radius = (u.xy, u.type.rad) if reserve else (None, 0)
        world.units[uid] = u


def _spied(o: Observation) -> bool:
    """Whether a spy saw the sector: ``spy`` lists every unit in a sector it reports
    (spies aside), where ``lookout`` and ``coastwatch`` show none and ``llookout`` only
    those its range and their visibility allow."""
    return any(s.source == "spy" for s in o.fields.values())


#: The depths from a frontier told apart (:meth:`_Garrisons.depth`): 1 (on one), 2 (the
#: row behind, where reserves wait), and beyond.
DEPTHS = 3


def _far(depth: int) -> str:
    """A depth (:meth:`_Garrisons.depth`) in the list's words."""
    if depth == 0:
        return "inside another country's land"
    return f"{depth}{' or more' if depth == DEPTHS else ''} from a frontier"


#: The kinds of a sector, as :class:`_Garrisons` tells them, in the list's words.
PLACES = {
    "frontier": "on a frontier",
    "coast": "on a coast away from any frontier",
    "inland": "inland away from any frontier",
}


@dataclass
class _Garrisons:
    """Which sectors hold units, by kind of sector, among those whose units the country
    knows: its own, and the foreign sectors a spy saw (``spy`` lists every unit in them).
    A sector's kind (:data:`PLACES`): on a frontier, next to land another country holds,
    where an enemy can walk in and where its owner's units stand to stop it; else on a
    coast, which only a landing reaches (``assault``); else inland, behind the frontier,
    where reserves wait for what breaks through."""

    holders: dict[Coord, int]
    sea: set[Coord]
    #: By kind: [sectors, of which holding units, of which holding an engineer].
    counts: dict[str, list[int]]
    #: The foreign sectors a spy saw holding units, with their kind.
    held: dict[str, str]
    #: The country's own land sectors by their depth (:meth:`depth`): each one's units
    #: (spies aside), empty where it holds none.
    own_at: dict[int, list[list[int]]] = field(default_factory=dict)
    #: The same sectors' places, in the same order.
    own_xy: dict[int, list[Coord]] = field(default_factory=dict)
    _depths: dict[tuple[Coord, int], int] = field(default_factory=dict)

    @classmethod
    def of(cls, b: _Builder) -> _Garrisons:
        holders = {xy: s.owner for xy, s in b.world.sectors.items() if not s.type.is_sea}
        for o in b.world.observations.values():
            if o.kind != "sector":
                continue
            if not b.world.tables.sector(str(_seen_value(o, "type", "wilderness"))).is_sea:
                holders[_xy_of(o.ident, b)] = int(_seen_value(o, "owner", 0))
        sea = {xy for xy, s in b.belief.base.sectors.items() if s.type.is_sea}
        g = cls(holders, sea, {k: [0, 0, 0] for k in PLACES}, {})
        own = [u for u in b.world.units.values() if u.owner == b.country and not u.loaded]
        own_units = {u.xy for u in own}
        own_engineers = {u.xy for u in own if u.type.has("engineer")}
        for xy, s in b.world.sectors.items():
            if s.owner == b.country and not s.type.is_sea:
                c = g.counts[g.kind(b, xy, b.country)]
                c[0] += 1
                c[1] += xy in own_units
                c[2] += xy in own_engineers
        for xy, s in sorted(b.world.sectors.items()):
            if s.owner == b.country and not s.type.is_sea:
                depth = g.depth(b, xy, b.country)
                g.own_at.setdefault(depth, []).append(
                    [u.uid for u in own if u.xy == xy and not u.type.has("spy")]
                )
                g.own_xy.setdefault(depth, []).append(xy)
        units_at = _units_seen_at(b)
        base = b.belief.base.units
        for o in b.world.observations.values():
            owner = int(_seen_value(o, "owner", 0))
            if o.kind != "sector" or not _spied(o) or owner in (0, b.country):
                continue
            kind = g.kind(b, _xy_of(o.ident, b), owner)
            c = g.counts[kind]
            c[0] += 1
            if units_at.get(o.ident):
                c[1] += 1
                g.held[o.ident] = kind
                c[2] += any(uid in base and base[uid].type.has("engineer")
                            for uid in units_at[o.ident])  # fmt: skip
        return g

    def kind(self, b: _Builder, xy: Coord, owner: int) -> str:
        around = b.geo.neighbours(xy)
        if any(self.holders.get(n) not in (None, 0, owner) for n in around):
            return "frontier"
        return "coast" if any(n in self.sea for n in around) else "inland"

    def depth(self, b: _Builder, xy: Coord, owner: int) -> int:
        """How far ``xy`` lies from the land another country holds, as far as the
        country knows (1: on a frontier), counted up to :data:`DEPTHS`."""
        got = self._depths.get((xy, owner))
        if got is None:
            got = min([DEPTHS] + [b.geo.mapdist(xy, h) for h, who in self.holders.items()
                                  if who not in (None, 0, owner)])  # fmt: skip
            self._depths[(xy, owner)] = got
        return got

    def why_depth(self, depth: int) -> str:
        own = self.own_at.get(depth, [])
        return (f"or like one of the country's own {len(own)} sectors {_far(depth)},"
                f" each weighing one, {sum(bool(u) for u in own)} with units, copied with"
                " their missions")  # fmt: skip

    def chance(self, kind: str) -> float:
        """That a sector of this kind holds units: Laplace's rule, ``(k + 1) / (n + 2)``
        of ``n`` such sectors ``k`` did, so that a few never make it certain."""
        n, k, _ = self.counts[kind]
        return (k + 1) / (n + 2)

    def mined(self, kind: str) -> float:
        """That a sector of this kind holds an engineer (which alone lays mines), by the
        same rule."""
        n, _, e = self.counts[kind]
        return (e + 1) / (n + 2)

    def pool(self, kind: str) -> list[str]:
        """The spied sectors whose units a sector of ``kind`` may hold: those of its kind
        that held any, else all that did."""
        return sorted(i for i, k in self.held.items() if k == kind) or sorted(self.held)

    def why(self, kind: str, engineers: bool = False) -> str:
        n, k, e = self.counts[kind]
        held = f"{e} with an engineer" if engineers else f"{k} with units"
        return (f"{PLACES[kind]}, like the {n} sectors so placed whose units the country"
                f" knows (its own, and those a spy saw), {held}")  # fmt: skip


def _hidden_units(b: _Builder) -> None:
    """The units a foreign sector near the target may hold unseen.  One seen only by a
    lookout, with no unit seen in it, holds units as a sector never seen does
    (:func:`_garrison_choices`: those of a spied sector of its kind, or of one of the
    country's own sectors as far from a frontier).  Taking an empty lookout sighting for
    no units would drop only what helps the defender; taking a coast for a frontier
    would add what defends frontiers.  Where the country's own units looked
    (``llookout``, :func:`_lookers`), the units they would have shown are not there:
    only the garrisons none of whose units they could see remain (Bayes: the others
    are out, the rest keep their odds)."""
    g = b.garrisons
    units_at = _units_seen_at(b)
    lookers = _lookers(b)
    for o in sorted(b.world.observations.values(), key=lambda o: o.ident):
        if o.kind != "sector" or _spied(o) or units_at.get(o.ident):
            continue
        xy = _xy_of(o.ident, b)
        owner = int(_seen_value(o, "owner", 0))
        if owner in (0, b.country) or not b.near(xy):
            continue
        front = g.kind(b, xy, owner)
        p_reserve = _garrison_reserve(b, front)
        pool = g.pool(front)
        depth = g.depth(b, xy, owner)
        prior = _garrison_choices(g, pool, depth, g.chance(front) if g.held else 0.0, p_reserve)
        if len(prior) == 1:
            continue

        unshown = _unshown(b, lookers, xy, pool, depth, units_at)
        kept = [(pick, p) for pick, p in prior if unshown(pick)]
        total = sum(p for _, p in kept)
        p_held = 1 - kept[0][1] / total
        choices = tuple(pick for pick, _ in kept)
        weights = tuple(p / total for _, p in kept)

        def put(world: World, pick: Any, xy: Coord = xy, owner: int = owner,
                pool: list[str] = pool, depth: int = depth) -> None:  # fmt: skip
            _garrison_put(b, world, pick, xy, owner, units_at, pool, depth)

        source = o.get("owner") or o.get("type")
        what = source.source if source is not None else "a sighting"
        at = b.world.fmt(xy, b.country)
        seen_out = sum(j >= 0 and mode is True for (j, mode), _ in prior) - sum(
            j >= 0 and mode is True for j, mode in choices
        )
        looked = (f" ({seen_out} of the {len(pool)} garrisons it may hold the"
                  " country's units looking at it would have shown: llookout)"
                  ) if seen_out else ""  # fmt: skip
        b.add(f"{at}.units", Dist(choices, weights), put, None,
              f"never shown ({what} shows no units): {g.why(front)}: units with"
              f" probability {p_held:.2f}{looked}, {_on_reserve(b, p_reserve, front)};"
              f" {g.why_depth(depth)}")  # fmt: skip


def _garrison_choices(g: _Garrisons, pool: list[str], depth: int, p_held: float,
                      p_reserve: float) -> list[tuple[tuple[int, bool | str], float]]:  # fmt: skip
    """What a hidden sector holds, as ``((j, mode), probability)`` with the empty sector
    first (``j`` -1).  Two sources of evidence, each weighing as the sectors it rests
    on: one of the country's own sectors as far from a frontier (:meth:`_Garrisons.depth`)
    as it is, each weighing one, copied whole with the missions its units have (``mode``
    ``"own"``: a reserve reacts only within its radius and with the mobility for the
    path, ``attsub.c``, so reserves stand at a set distance behind the frontier they
    guard, and how far is the owner's doctrine, of which the country's own is the best
    evidence); and, weighing one in all, the garrisons of its kind a spy saw, on reserve
    or not (``mode`` True or False) with the chance of its kind of place."""
    spied: list[tuple[tuple[int, bool | str], float]] = [((-1, False), 1 - p_held)]
    for j in range(len(pool)):
        spied += [((j, True), p_held * p_reserve / len(pool)),
                  ((j, False), p_held * (1 - p_reserve) / len(pool))]  # fmt: skip
    own = g.own_at.get(depth, [])
    n = len(own) + 1
    out: list[tuple[tuple[int, bool | str], float]] = [(pick, p / n) for pick, p in spied]
    out[0] = (out[0][0], out[0][1] + sum(not units for units in own) / n)
    out += [((k, "own"), 1 / n) for k, units in enumerate(own) if units]
    return [(pick, p) for pick, p in out if p > 0 or pick[0] < 0]


def _garrison_put(b: _Builder, world: World, pick: tuple[int, bool | str], xy: Coord,
                  owner: int, units_at: dict[str, list[int]], pool: list[str],
                  depth: int) -> None:  # fmt: skip
    """Puts the garrison ``pick`` of :func:`_garrison_choices` at ``xy`` for ``owner``."""
    j, mode = pick
    if j < 0:
        return
    if mode == "own":
        _copy_own(b, world, b.garrisons.own_at[depth][j], xy, owner)
    else:
        _copy_units(world, units_at.get(pool[j], []), xy, bool(mode), owner)


def _copy_own(b: _Builder, world: World, units: list[int], xy: Coord, owner: int) -> None:
    """Copies of the country's own ``units`` at ``xy`` for ``owner``, with their
    missions (centred where they now stand) and the owner's tech as ``report`` shows it
    (the middle of its band)."""
    tech = _tech_prior(b, owner, 0)
    for unit in units:
        own = world.units.get(unit)
        if own is None:
            continue
        uid = _copy_uid(world)
        u = replace(own, uid=uid, x=xy[0], y=xy[1], items=dict(own.items), owner=owner)
        u.tech = float(max(u.type.tech, tech.values[len(tech.values) // 2]))
        reserve = own.mission == "reserve"
        u.mission = "reserve" if reserve else ""
        u.op_center, u.op_radius = (u.xy, own.op_radius or u.type.rad) if reserve else (None, 0)
        world.units[uid] = u


def _own_garrisons(b: _Builder, place: str) -> tuple[int, int]:
    """The viewer's own garrisons (sectors holding its units that react) in a kind of
    place, and how many of them hold a reserve."""
    g = b.garrisons
    units = [u for u in b.world.units.values()
             if u.owner == b.country and not u.loaded and u.type.rad > 0
             and not u.type.has("spy") and g.kind(b, u.xy, b.country) == place]  # fmt: skip
    return len({u.xy for u in units if u.mission == "reserve"}), len({u.xy for u in units})


def _garrison_reserve(b: _Builder, place: str) -> float:
    """That a hidden garrison in a kind of place is on reserve: as the viewer's own
    garrisons there are, the chance over all its garrisons weighing one (a reserve reacts
    only inside its radius and with the mobility for the path, ``attsub.c``: it waits
    behind a frontier, where a garrison on the frontier itself holds)."""
    if b.assume.missions is not None:
        return b.assume.missions
    k, n = _own_garrisons(b, place)
    return (k + b.own.chance("garrison reserve", None)) / (n + 1)


def _on_reserve(b: _Builder, p: float, place: str) -> str:
    """How a hidden garrison's mission was chosen, for the list of inputs."""
    if b.assume.missions is not None:
        return f"on reserve with probability {p:.2f} (--assume missions)"
    k, n = b.own.counts["garrison reserve"]
    kp, np_ = _own_garrisons(b, place)
    return (f"on reserve with probability {p:.2f} (like the country's own {np_} garrisons"
            f" that react {PLACES[place]}, {kp} on reserve, and its {n} in all, {k} on"
            " reserve, weighing one)")  # fmt: skip


def _lookers(b: _Builder) -> list[tuple[Coord, int]]:
    """The country's own units that ``llookout`` looks from, with their range: on land,
    with mil (or a spy), ``ldround(techfact(tech, spy) * eff / 100)`` (look.c)."""
    out = []
    for u in b.world.units.values():
        if u.owner != b.country or u.loaded or not (u.mil > 0 or u.type.has("spy")):
            continue
        reach = ldround(techfact(u.tech, u.type.spy) * u.eff / 100)
        if reach > 0:
            out.append((u.xy, reach))
    return out


def _shown_to(lookers: list[tuple[Coord, int]], b: _Builder, xy: Coord, kind: LandType) -> bool:
    """Whether ``llookout`` shows a unit of type ``kind`` at ``xy``.  ``look_land``
    (look.c) lists every foreign unit on land within ``ldround(vis * range / 20)`` of a
    looking unit, wherever that is: its range is not the one sector around the looker
    whose land ``do_look`` describes (a cavalry at tech 200, range 3, shows an infantry
    two away).  A spy only by chance (``LND_SPY_DETECT_CHANCE``): never counted."""
    if kind.has("spy"):
        return False
    return any(b.geo.mapdist(at, xy) <= ldround(kind.vis * reach / 20)
               for at, reach in lookers)  # fmt: skip


Pick = tuple[int, bool | str]


def _unshown(b: _Builder, lookers: list[tuple[Coord, int]], xy: Coord, pool: list[str],
             depth: int, units_at: dict[str, list[int]]) -> Callable[[Pick], bool]:  # fmt: skip
    """Whether a garrison pick of :func:`_garrison_choices` at ``xy`` is one the
    country's own units looking would not have shown (:func:`_shown_to`)."""
    base = b.belief.base.units

    def unshown(pick: Pick) -> bool:
        j, mode = pick
        if j < 0:
            return True
        uids = b.garrisons.own_at[depth][j] if mode == "own" else units_at.get(pool[j], [])
        world = b.world.units if mode == "own" else base
        return not any(_shown_to(lookers, b, xy, world[u].type) for u in uids if u in world)

    return unshown


def _units_seen_at(b: _Builder) -> dict[str, list[int]]:
    """The foreign units seen, by the sector they were seen in."""
    out: dict[str, list[int]] = {}
    for o in b.world.observations.values():
        at = o.get("at")
        if o.kind == "unit" and at is not None and isinstance(at.value, str):
            out.setdefault(at.value, []).append(int(o.ident))
    return out
