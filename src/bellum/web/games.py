"""The web app's one door into bellum: every call into the rules and the odds.

The world database is reached through the service every edge uses
(:class:`~bellum.empire.service.WorldDatabase`), never through the store itself.

Views never import :mod:`bellum.empire` or :mod:`bellum.panzer`; they call the two
classes here and get plain dicts, lists and dataclasses back.

* Orders are :class:`~bellum.empire.orders.Order` objects, built from the planner's
  controls by :meth:`Plan.order` and run by :func:`bellum.empire.run_command` (through
  the service's :class:`~bellum.empire.service.DatabaseSource` for a fight).
* Questions are answered by their kind (:class:`~bellum.empire.events.Prompt`): the
  plan's controls answer the mil and unit questions, the player the rest.
* Every call into the odds planner (:mod:`bellum.empire.odds`) is in one section:
  :func:`planner_odds`, :func:`planner_need` and :func:`planner_plays`.
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w

from bellum.dice import ServerRandom, new_seed
from bellum.empire import run_command
from bellum.empire.combat import COMMANDS as REGISTRY
from bellum.empire.combat.result import CombatResult, Outcome
from bellum.empire.events import (
    AnswersByKind,
    Closing,
    Event,
    Fact,
    PlaneStatus,
    Prompt,
    Refusal,
    Sneaking,
    SourceNote,
    UnitNote,
    said,
)
from bellum.empire.geometry import Coord
from bellum.empire.odds import Request, ResolverRuns, Study, study
from bellum.empire.orders import Order
from bellum.empire.rules import Rules, profile_names
from bellum.empire.service import UnknownCommand as UnknownCommand  # for the views
from bellum.empire.service import WorldDatabase
from bellum.empire.world import LandUnit, Plane, Relation, Ship, World
from bellum.errors import BellumError, CommandError, InputError
from bellum.fileio import parse_toml
from bellum.numbers import is_digits, parse_int, shown
from bellum.odds import OddsResult
from bellum.panzer.assault import AssaultPlan, odds_text, plan_assault, refusal
from bellum.panzer.battlefield import Hex, ParameterData, edge
from bellum.panzer.distribution import check_exact_size, exact_distribution, exact_seconds
from bellum.panzer.report import assault_json, assault_odds_json, explain_json
from bellum.panzer.results import resolve_plan
from bellum.panzer.rules import RULE_KEYS
from bellum.panzer.scenario import Scenario, load_scenario, scenario_from_dict, scenario_to_dict
from bellum.panzer.tables import tables
from bellum.panzer.units import Kind, Mode, State, Unit

COMMANDS = tuple(REGISTRY)
#: A line the command printed, and what it means.
Said = tuple[str, Fact | None]
SUPPORT_KINDS = ("forts", "ships", "arty", "planes")
#: Plays of the real command asked for at once, to check the planner.
PLAY_RUNS = 100
#: Plans whose odds are remembered (a control let go asks again for what it showed).
PLANS_KEPT = 64
#: The P(win) the "force needed" search aims for.
NEED = 0.9


class NeedAnswer(Exception):
    """A command asked a question the request did not answer: show it, and stop there."""

    def __init__(self, prompt: Prompt) -> None:
        super().__init__(prompt.text)
        self.prompt = prompt.text
        self.kind = prompt.kind
        #: The largest number the question takes, when it says (``move_in_mil``).
        self.most = prompt.most


class WorldChanged(CommandError):
    """The world changed between the steps of one command (another command was fought)."""


class Stopping(BellumError):
    """The server is stopping: the odds a page asked for are dropped, so Ctrl-C does not
    wait for them."""


Progress = Callable[[float], None]


def watch(stopping: threading.Event) -> Progress:
    """A progress callback for the planner that gives up once ``stopping`` is set."""

    def check(_done: float) -> None:
        if stopping.is_set():
            raise Stopping("the server is stopping")

    return check


# --------------------------------------------------------------------------- plans


@dataclass
class Plan:
    """What the planner's controls say: the command, its target, source and force.

    ``mil`` is keyed like :attr:`Source.key` (``"0,0"`` for a sector in the player's
    coordinates, ``"ship:3"`` for a ship); ``units`` are land unit numbers;
    ``planes``/``escorts`` plane numbers.
    """

    command: str
    target: str
    source: str = ""
    mil: dict[str, int] = field(default_factory=dict)
    units: set[int] = field(default_factory=set)
    planes: list[int] = field(default_factory=list)
    escorts: list[int] = field(default_factory=list)
    support: tuple[bool, bool, bool, bool] = (True, True, True, True)
    profile: str | None = None
    options: list[str] = field(default_factory=list)
    #: The command's other answers, as its options name them (docs/empire-cli.md): no
    #: unit joins; mil that move in (``None``: asked); the units that move in (``None``:
    #: asked, empty: none); yes to its yes-or-no questions.
    no_units: bool = False
    move_in: int | None = None
    move_in_units: set[int] | None = None
    yes: bool = False

    def rules(self, world: World) -> Rules:
        """The rules the plan runs under in ``world``: its own, with the plan's on top."""
        return Rules.for_world(world, self.profile or None, self.options)

    def order(self) -> Order:
        """The command as a player types it."""
        spec = REGISTRY.get(self.command)
        if spec is None:
            raise InputError(f"unknown command {self.command!r}; commands: {', '.join(COMMANDS)}")
        if "planes" in spec.roles and not self.planes:
            raise InputError("plane: choose at least one transport plane")
        words = {
            "target": self.target,
            "source": self.source.removeprefix("ship:"),
            "planes": "/".join(map(str, self.planes)),
            "escorts": "/".join(map(str, self.escorts)),
        }
        yn = ["y" if s else "n" for s in self.support] if spec.syntax.support else []
        return Order(self.command, (*(words[role] for role in spec.roles), *yn))

    def request(self, world: World, **more: Any) -> Request:
        """The study of this plan as ``bellum empire odds`` makes it with the same answers
        (every slider an answer, 0 included); ``more`` says what else to study."""
        mil = tuple(
            f"{'ship' if k.startswith('ship:') else k}={n}" for k, n in sorted(self.mil.items())
        )
        more.setdefault("seed", PLANNER_SEED)
        return Request(self.order(), mil=mil, units=tuple(sorted(self.units)),
                       no_units=not self.units, yes=self.yes, rules=self.rules(world),
                       **more)  # fmt: skip


def _source_key(world: World, cnum: int, at: Coord | None, ship: int | None) -> str:
    """The :attr:`Source.key` of a sector ``at`` or a ship."""
    if ship is not None:
        return f"ship:{ship}"
    assert at is not None
    return world.geometry.fmt(at, world.origin(cnum))


class PlanAnswers(AnswersByKind):
    """Answers a command's force questions from a :class:`Plan` (by their kind), the
    rest from ``answers``; past them, :class:`NeedAnswer`."""

    def __init__(self, world: World, cnum: int, plan: Plan, answers: list[str]) -> None:
        self.world, self.cnum, self.plan = world, cnum, plan
        self.answers = list(answers)

    def mil(self, prompt: Prompt) -> str | None:
        key = _source_key(self.world, self.cnum, prompt.at, prompt.ship)
        return str(self.plan.mil.get(key, 0))

    def unit(self, prompt: Prompt) -> str | None:
        return "y" if prompt.uid in self.plan.units else "n"

    def move_in_mil(self, prompt: Prompt) -> str | None:
        if self.plan.move_in is not None:
            return str(self.plan.move_in)
        return self.other(prompt)

    def move_in_unit(self, prompt: Prompt) -> str | None:
        if self.plan.move_in_units is not None:
            return "y" if prompt.uid in self.plan.move_in_units else "n"
        return self.other(prompt)

    def confirm(self, prompt: Prompt) -> str | None:
        return "y" if self.plan.yes else self.other(prompt)

    def other(self, prompt: Prompt) -> str | None:
        if self.answers:
            return self.answers.pop(0)
        raise NeedAnswer(prompt)


class _Probe(AnswersByKind):
    """Answers a command so that it lists its force and stops: no mil, no units.

    Warnings (the scouts' "Are you sure", an ally's sector, a sneak attack's price) are
    answered yes so the listing goes on; they are noted, because the real command asks.
    """

    def __init__(self, world: World, cnum: int) -> None:
        self.world, self.cnum = world, cnum
        self.mil_asked: list[tuple[str, int]] = []
        self.units: list[int] = []
        self.confirms: list[str] = []

    def mil(self, prompt: Prompt) -> str | None:
        key = _source_key(self.world, self.cnum, prompt.at, prompt.ship)
        self.mil_asked.append((key, prompt.most or 0))
        return "0"

    def unit(self, prompt: Prompt) -> str | None:
        assert prompt.uid is not None
        self.units.append(prompt.uid)
        return "n"

    def confirm(self, prompt: Prompt) -> str | None:
        self.confirms.append(prompt.text.strip())
        return "y"


# --------------------------------------------------------------------------- the planner
# Every call into the odds planner is one study (bellum.empire.odds.study, what `bellum
# empire odds` runs): the odds of a plan, the force a chance needs, and plays of the real
# command to check them.


@dataclass(frozen=True)
class PlannedOdds:
    """What the planner says about a plan, in the odds engine's terms."""

    result: OddsResult
    #: What the command printed before its fight, on its likeliest path.
    said: list[str]
    #: The range of the two sides' strengths as the fight starts, over every path.
    final: dict[str, list[int]]
    #: What was sampled rather than solved, if anything.
    notes: list[str]
    #: On a player's view: every input the odds rest on (seen or not, when, how treated).
    inputs: list[dict[str, Any]] = field(default_factory=list)


#: Worlds the planner's odds draw on a player's view (fewer than the command's: a page
#: answers while the player drags).
FOG_DRAWS = 16
#: The planner's seed: the same plan always shows the same numbers.
PLANNER_SEED = 1


class Memo:
    """The last few plans' odds, shared by request threads."""

    def __init__(self, size: int = PLANS_KEPT) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def _studied(world: World, cnum: int, request: Request, progress: Progress | None) -> Study:
    """The study of ``request``; on a player's view, from :data:`FOG_DRAWS` worlds."""
    if world.fog is not None:
        request = replace(request, fog_draws=FOG_DRAWS)
    return study(world, cnum, request, progress=None if progress is None else _staged(progress))


def _staged(progress: Progress) -> Callable[[str, float], None]:
    return lambda _stage, done: progress(done)


def planner_odds(
    world: World,
    cnum: int,
    request: Request,
    *,
    memo: Memo,
    key: Hashable,
    progress: Progress | None = None,
) -> PlannedOdds:
    """The planner's odds of the plan ``request`` makes, kept in ``memo`` under ``key``
    (the plan and the world): the command's own flow to its fight, reactions, support and
    morale included, solved exactly or, for a big tree, sampled with a fixed seed."""
    planned: PlannedOdds | None = memo.get(key)
    if planned is None:
        if progress is not None:  # a small fight never reports progress: look first
            progress(0.0)
        (row,) = _studied(world, cnum, request, progress).rows
        odds = row.odds
        inputs = [] if row.fog is None else row.fog.inputs_json()
        final = {side: list(span) for side, span in odds.final.items()}
        planned = PlannedOdds(odds.odds, list(odds.lines), final, list(odds.notes), inputs)
        memo.put(key, planned)
    return planned


def planner_need(
    world: World, cnum: int, request: Request, progress: Progress | None = None
) -> tuple[dict[str, int], float, bool]:
    """The least mil the request's ``need`` asks for (``bellum empire odds --need``): each
    source's mil (keyed ``SECT`` or ``ship``), the chance, and whether it was reached."""
    if progress is not None:
        progress(0.0)
    done = _studied(world, cnum, request, progress)
    assert done.need is not None
    origin = world.origin(cnum)
    mil = {
        "ship" if src == "ship" else world.geometry.fmt(src, origin): n
        for src, n in (done.odds.plan.mil or {}).items()
    }
    return mil, float(done.p_success), done.need.total is not None


def planner_plays(
    world: World, cnum: int, request: Request, progress: Progress | None = None
) -> ResolverRuns:
    """The plays of the real command the request asks for, on copies of ``world``."""
    done = _studied(world, cnum, request, progress)
    assert done.resolver is not None
    return done.resolver


# --------------------------------------------------------------------------- target panel


@dataclass
class Source:
    """Where a force comes from, and how many mil the command lets go (``max``)."""

    key: str
    label: str
    max: int
    notes: list[str] = field(default_factory=list)


@dataclass
class UnitChoice:
    uid: int
    label: str
    allowed: bool
    note: str = ""


@dataclass
class PlaneChoice:
    uid: int
    label: str
    escort: bool


@dataclass
class Way:
    """One legal (or refused) way to take a target, as the probe of the real command saw it."""

    command: str
    title: str
    source: str = ""
    sources: list[Source] = field(default_factory=list)
    units: list[UnitChoice] = field(default_factory=list)
    planes: list[PlaneChoice] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    confirm: list[str] = field(default_factory=list)
    refusal: str = ""
    support: bool = False

    @property
    def usable(self) -> bool:
        return not self.refusal and bool(self.sources or self.units or self.planes)


#: Facts of lines that only say the probe committed nothing: it ends short, and with no
#: mil and no units an assault's empty landing party "sneaks" ashore.
_PROBE_NOISE = (Closing, Sneaking)


def _reason(result: CombatResult) -> str:
    """Why a command stopped short: its refusal, else its last closing line."""
    closing = [line for line, fact in said(result.events) if isinstance(fact, Closing)]
    return result.refusal or (closing[-1] if closing else "")


# --------------------------------------------------------------------------- the Empire game


class EmpireGame:
    """An Empire world served to players: a database, or a scratch copy of a world file.

    Reads use a decoded snapshot kept until a command changes the world.  A fight runs
    through the service layer's :class:`~bellum.empire.service.DatabaseSource`: one store
    transaction per command, one writer at a time in this server.
    """

    def __init__(
        self,
        db: Path | None = None,
        world_file: Path | None = None,
        stopping: threading.Event | None = None,
    ) -> None:
        #: Set when the server stops: the planner's work in progress gives up.
        self.stopping = stopping if stopping is not None else threading.Event()
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        self.label: str
        if world_file is not None:
            self._scratch = tempfile.TemporaryDirectory(prefix="bellum-serve-")
            self.db = WorldDatabase.copy_of(world_file, Path(self._scratch.name) / "world.db")
            self.label = f"{world_file} (a scratch copy: fights last until the server stops)"
        else:
            self.db = WorldDatabase(db if db is not None else Path("bellum.db"))
            self.label = str(self.db.path)
        self._lock = threading.Lock()
        self._cache: tuple[tuple[int, str], World] | None = None
        self._cache_lock = threading.Lock()
        #: What the planner keeps per plan (see planner_odds).
        self._plans = Memo()

    @property
    def scratch(self) -> bool:
        return self._scratch is not None

    def close(self) -> None:
        if self._scratch is not None:
            self._scratch.cleanup()

    # -- reading ------------------------------------------------------------------

    def version(self) -> int:
        """How many commands the history holds: it grows with every command."""
        return self.db.version()[0]

    def world(self) -> World:
        """The current world, shared between requests: never change it, copy it."""
        return self._snapshot()[1]

    def _snapshot(self) -> tuple[tuple[int, str], World]:
        """The current world and its version (the history's length, the world's birth)."""
        key = self.db.version()
        with self._cache_lock:
            if self._cache is not None and self._cache[0] == key:
                return self._cache
        world = self.db.world()
        with self._cache_lock:
            self._cache = (key, world)
            self._plans.clear()
        return key, world

    def country(self, world: World, key: str | None) -> int:
        """A country by number or name; the first one when none is asked for."""
        if not world.nations:
            raise InputError(f"{self.label}: this world has no countries")
        if key is None or not key.strip():
            return min(world.nations)
        n = world.find_nation(key)
        if n is None:
            names = ", ".join(f"{c.cnum} ({c.name})" for c in world.nations.values())
            raise InputError(f"no country '{shown(key)}' in this world; countries: {names}")
        return n.cnum

    def map_view(self, cnum: int) -> dict[str, Any]:
        """The world as country ``cnum`` sees it (what ``bellum empire show`` reveals).

        Every sector's designation, owner, efficiency and mil are shown, as ``show``
        prints them for any sector asked for; its mines only where ``show`` prints them
        (sectors the country owned before, or nobody's).  Land units of every country
        (``show`` lists those in a sector asked for), the country's own ships and planes,
        and other countries' ships (the targets of ``board``).
        """
        w = self.world()
        me = w.nations[cnum]
        me_origin = w.origin(cnum)
        geo = w.geometry
        nations = [
            {"cnum": n.cnum, "name": n.name, "relation": _relation(w, cnum, n.cnum)}
            for n in sorted(w.nations.values(), key=lambda n: n.cnum)
        ]
        sectors = []
        for xy, s in w.sectors.items():
            rx, ry = geo.to_rel(xy, me_origin)
            sectors.append(
                {
                    "x": rx,
                    "y": ry,
                    "key": f"{rx},{ry}",
                    "des": s.type.mnemonic,
                    "des_name": s.type.name,
                    "owner": s.owner,
                    "owner_name": w.name_of(s.owner) if s.owner else "",
                    "relation": _relation(w, cnum, s.owner),
                    "eff": s.eff,
                    "mil": s.mil,
                    "civ": s.civ,
                    "mob": s.mob,
                    "mines": s.mines if s.oldowner == cnum or s.owner == 0 else None,
                    "sea": s.type.is_sea,
                    "impassable": s.type.impassable,
                    "seen": "known",
                }
            )
        if w.fog is not None:
            sectors += _unseen_sectors(w, cnum)

        def thing(x: LandUnit | Ship | Plane, label: str, **more: Any) -> dict[str, Any]:
            return {
                "uid": x.uid,
                "label": label,
                "owner": x.owner,
                "relation": _relation(w, cnum, x.owner),
                "key": geo.fmt(x.xy, me_origin),
                "eff": x.eff,
                "mob": x.mob,
                **more,
            }

        units = [thing(u, u.name(), mil=u.mil, aboard=u.loaded) for _, u in sorted(w.units.items())]
        ships = [thing(sh, sh.title(), mil=sh.mil) for _, sh in sorted(w.ships.items())]
        planes = [thing(p, p.name()) for _, p in sorted(w.planes.items()) if p.owner == cnum]
        return {
            "width": geo.width,
            "height": geo.height,
            "country": {"cnum": me.cnum, "name": me.name, "btu": me.btu, "money": me.money},
            "view": "player" if w.fog is not None else "whole",
            "nations": nations,
            "sectors": sectors,
            "units": units,
            "ships": ships,
            "planes": planes,
        }

    # -- the target panel -----------------------------------------------------------

    def ways(self, cnum: int, kind: str, ident: str) -> dict[str, Any]:
        """Every way to take a sector, ship or land unit, each probed with the real command.

        A probe runs the command on a scratch copy answering 0 mil and no units: the
        questions it asks are the sources and their limits, what it prints are the
        refusals (not adjacent, no mobility...).  The result is thrown away.  On a
        player's view the probes run on the likeliest whole world the country's belief
        about the target gives (what it saw, its priors: docs/fog.md).
        """
        w = self.world()
        me_origin = w.origin(cnum)
        geo = w.geometry
        if w.fog is not None:
            w = _likeliest(w, cnum, kind, ident)
        if kind == "sector":
            xy = geo.parse(ident, me_origin)
            s = w.sector(xy)
            key = geo.fmt(xy, me_origin)
            title = f"{key} {s.type.name}" + (f" of {w.name_of(s.owner)}" if s.owner else "")
            sector = ""
            ways = [self._probe_attack(w, cnum, key)]
            ways += self._probe_assaults(w, cnum, xy, key)
            ways += self._probe_paradrops(w, cnum, key)
        elif kind in ("ship", "unit"):
            uid = parse_int(ident, f"{kind} number", lo=0)
            ship, unit = w.ships.get(uid), w.units.get(uid)
            thing: Ship | LandUnit | None = ship if kind == "ship" else unit
            if thing is None or thing.owner == cnum:
                raise InputError(f"no enemy {kind} #{uid} in sight")
            name = thing.title() if isinstance(thing, Ship) else thing.name()
            key = geo.fmt(thing.xy, me_origin)
            title = f"{name} at {key}"
            ways = self._probe_boardings(w, cnum, kind, uid, thing.xy)
            # A unit on someone else's land goes with its sector: offer to plan that too.
            where = w.sector(thing.xy)
            sector = key if not where.type.is_sea and where.owner != cnum else ""
        else:
            raise InputError(f"a target is a sector, ship or unit, not {kind!r}")
        return {
            "kind": kind,
            "ident": ident,
            "title": title,
            "at": key,
            "sector": sector,
            "ways": ways,
            "profiles": profile_names(),
            "version": self.version(),
        }

    def _probe(self, w: World, cnum: int, order: Order) -> tuple[_Probe, list[Said], str]:
        """The probe's questions, what it said (but its closing lines) and its refusal."""
        scratch = w.copy()
        probe = _Probe(scratch, cnum)
        result = run_command(scratch, order, country=cnum, seed=1, prompter=probe)
        lines: list[Said] = [
            (line, f) for line, f in said(result.events) if not isinstance(f, _PROBE_NOISE)
        ]
        return probe, lines, result.refusal

    def _way(
        self,
        w: World,
        command: str,
        title: str,
        probed: tuple[_Probe, list[Said], str],
        units_here: list[LandUnit],
    ) -> Way:
        probe, lines, refusal = probed
        origin = w.origin(probe.cnum)
        way = Way(command, title, refusal=refusal, confirm=probe.confirms)
        for key, most in probe.mil_asked:
            if key.startswith("ship:"):
                label = w.ships[int(key[5:])].title()
            else:
                sector = w.sector(w.geometry.parse(key, origin))
                label = f"mil from {sector.type.name} at {key}"
            way.sources.append(Source(key, label, most))
        for uid in probe.units:
            way.units.append(UnitChoice(uid, w.units[uid].name(), True))
        here = {u.uid: u.name() for u in units_here}
        sources = {s.key: s for s in way.sources}
        for line, fact in lines:
            if isinstance(fact, Refusal):
                continue
            if isinstance(fact, UnitNote) and fact.uid in here:
                if not any(u.uid == fact.uid for u in way.units):
                    way.units.append(UnitChoice(fact.uid, here[fact.uid], False, line))
                continue
            src = None
            if isinstance(fact, SourceNote):
                src = sources.get(_source_key(w, probe.cnum, fact.at, fact.ship))
            if src is not None:
                src.notes.append(line)
            else:
                way.notes.append(line)
        return way

    def _probe_attack(self, w: World, cnum: int, key: str) -> Way:
        probed = self._probe(w, cnum, Order("attack", (key, "n", "n", "n", "n")))
        mine = [u for u in w.units.values() if u.owner == cnum]
        way = self._way(w, "attack", f"attack {key}", probed, mine)
        way.support = True
        if not way.refusal and not (way.sources or way.units):
            way.refusal = "Nothing of yours can attack it: no mil or units next to it."
        return way

    def _probe_assaults(self, w: World, cnum: int, xy: tuple[int, int], key: str) -> list[Way]:
        ways = []
        for _, sh in sorted(w.ships.items()):
            if sh.owner != cnum or w.geometry.mapdist(sh.xy, xy) > 1:
                continue
            order = Order("assault", (key, str(sh.uid), "n", "n", "n", "n"))
            aboard = [u for u in w.units.values() if u.ship == sh.uid]
            way = self._way(
                w, "assault", f"assault from {sh.title()}", self._probe(w, cnum, order), aboard
            )
            way.source, way.support = f"ship:{sh.uid}", True
            ways.append(way)
        return ways

    def _probe_paradrops(self, w: World, cnum: int, key: str) -> list[Way]:
        """One way per base of the country's paratroop planes, which is the assembly point."""
        bases: dict[tuple[int, int], list[int]] = {}
        for _, p in sorted(w.planes.items()):
            if p.owner == cnum and p.type.has("para") and p.ship is None and p.land is None:
                bases.setdefault(p.xy, []).append(p.uid)
        ways = []
        origin = w.origin(cnum)
        for base, uids in sorted(bases.items()):
            ap = w.geometry.fmt(base, origin)
            escorts = [
                p.uid
                for _, p in sorted(w.planes.items())
                if p.owner == cnum and p.xy == base and p.type.has("escort")
            ]
            # The whole mission flies on the scratch copy: what it prints tells which
            # planes stand by, which are out of range, and whether the drop zone is legal.
            order = Order("paradrop", ("/".join(map(str, uids)), "", ap, key))
            _, lines, refusal = self._probe(w, cnum, order)
            status = [(line, f) for line, f in lines if isinstance(f, PlaneStatus)]
            way = Way("paradrop", f"paradrop from {ap}", source=ap, refusal=refusal)
            for uid in uids:
                way.planes.append(PlaneChoice(uid, w.planes[uid].name(), False))
            for uid in escorts:
                way.planes.append(PlaneChoice(uid, w.planes[uid].name(), True))
            way.notes = [line for line, _ in status]
            if not any(f.ready for _, f in status) and not way.refusal:
                way.refusal = "None of these planes can fly the mission (see above)."
            ways.append(way)
        return ways

    def _probe_boardings(
        self, w: World, cnum: int, kind: str, uid: int, xy: tuple[int, int]
    ) -> list[Way]:
        origin = w.origin(cnum)
        key = w.geometry.fmt(xy, origin)
        froms: list[str] = []
        if kind == "ship":
            froms += [
                str(sh.uid) for _, sh in sorted(w.ships.items()) if sh.owner == cnum and sh.xy == xy
            ]
        if w.sector(xy).owner == cnum:
            froms.append(key)
        command = next(spec.name for spec in REGISTRY.values() if spec.takes == kind)
        ways = []
        here = [u for u in w.units.values() if u.owner == cnum and u.xy == xy]
        for src in froms:
            probed = self._probe(w, cnum, Order(command, (str(uid), src)))
            ship = is_digits(src)  # a ship's number, else a sector's coordinates
            name = w.ships[int(src)].title() if ship else src
            way = self._way(w, command, f"{command} from {name}", probed, here)
            way.source = f"ship:{src}" if ship else src
            ways.append(way)
        if not ways:
            where = "a faster ship of yours in its sector, or from your sector it is in"
            if kind == "unit":
                where = "your sector it stands in"
            ways.append(Way(command, command, refusal=f"You can only {command} it from {where}."))
        return ways

    # -- odds -------------------------------------------------------------------------

    def odds(self, cnum: int, plan: Plan) -> dict[str, Any]:
        """The planner's odds of a plan (kept per plan and world)."""
        started = time.perf_counter()
        version, w = self._snapshot()
        request = plan.request(w)
        key = (version, cnum, request)
        planned = planner_odds(
            w, cnum, request, memo=self._plans, key=key, progress=watch(self.stopping)
        )
        doc = _odds_doc(planned.result)
        doc.update(
            command=plan.command,
            said=planned.said,
            final=planned.final,
            notes=planned.notes,
            inputs=planned.inputs,
            seconds=time.perf_counter() - started,
        )
        return doc

    def need(self, cnum: int, plan: Plan, goal: float = NEED) -> dict[str, Any]:
        """The least mil, from the command's sources in the order it asks for them, for a
        chance of success of at least ``goal``; or everything, when even that falls short."""
        _, w = self._snapshot()
        request = replace(plan.request(w, need=goal), mil=())
        mil, p, reached = planner_need(w, cnum, request, watch(self.stopping))
        ship = plan.source if plan.source.startswith("ship:") else ""
        mil = {(ship if k == "ship" else k): n for k, n in mil.items()}
        return {"reached": reached, "goal": goal, "mil": mil, "total": sum(mil.values()),
                "p_win": p}  # fmt: skip

    def play(self, cnum: int, plan: Plan, runs: int, seed: int) -> dict[str, Any]:
        """Play the real command ``runs`` times on copies of the world (support, morale and
        all), to check what the planner says."""
        started = time.perf_counter()
        _, w = self._snapshot()
        order, rules = plan.order(), plan.rules(w)
        # One run first: a plan that does not start is the command's refusal, in its words.
        scratch = w.copy()
        prompter = PlanAnswers(scratch, cnum, plan, [])
        try:
            r = run_command(scratch, order, country=cnum, seed=seed, prompter=prompter, rules=rules)
        except NeedAnswer:
            r = None
        if r is not None and (
            r.outcome.refused or (r.outcome is Outcome.ABORTED and not r.initial_attack)
        ):
            raise CommandError(_reason(r) or f"the {plan.command} did not start")
        request = plan.request(w, resolver_runs=runs, seed=seed)
        runs_ = planner_plays(w, cnum, request, watch(self.stopping))
        att, dfd = list(runs_.attacker_losses), list(runs_.defender_losses)
        return {
            "command": plan.command,
            "method": "plays of the real command",
            "model": None,
            "said": [],
            "runs": runs,
            "seed": seed,
            "p_win": runs_.p_success,
            "standard_error": runs_.standard_error,
            "outcomes": {k: n / runs for k, n in sorted(runs_.outcomes.items())},
            "losses": {"attacker": _histogram(att), "defender": _histogram(dfd)},
            "expected": {"attacker": float(np.mean(att)), "defender": float(np.mean(dfd))},
            "notes": ["Each play answers as the plan says, is sure, and moves nothing in."],
            "seconds": time.perf_counter() - started,
        }

    # -- fighting -------------------------------------------------------------------

    # -- the turn planner -------------------------------------------------------------

    def _watch_step(self) -> Callable[[str, float], None]:
        """:func:`watch` for the turn planner, whose progress names its step."""
        check = watch(self.stopping)
        return lambda _step, done: check(done)

    def turn_plan(self, cnum: int) -> dict[str, Any]:
        """The turn planner's plan (docs/plan.md), with each attack's place on the map and
        its printed order; the database keeps the odds it solved, as the command line's do."""
        from bellum.empire.plan.curves import LocalPool
        from bellum.empire.plan.planner import (
            map_keys,
            odds_command,
            order_command,
            plan_turn,
            to_json,
        )

        _, world = self._snapshot()
        with self.db.planner_cache() as (cache, version):
            plan = plan_turn(
                world, cnum, pool=LocalPool(1), cache=cache, version=version,
                progress=self._watch_step(),
            )  # fmt: skip
        doc = to_json(world, plan)
        where = ["--db", self.label if not self.scratch else "game.db", "--as", str(cnum)]
        for wave in doc["waves"]:
            mine = [a for a in plan.attacks if a.wave == wave["wave"]]
            for a, attack in zip(wave["attacks"], mine, strict=True):
                a["at"], a["sources"] = map_keys(world, cnum, attack)
                a["command"] = order_command(attack, world, cnum, where)
                a["odds_command"] = odds_command(
                    attack, world, cnum, where, plan.settings.seed, plan.settings.precision
                )
        return doc

    def threats(self, cnum: int) -> dict[str, Any]:
        """The strongest strike on each of the country's sectors, ships and units, with
        each threatened place as the map names it (for the heat map)."""
        from bellum.empire.plan.curves import LocalPool
        from bellum.empire.plan.threats import threat_map, to_json

        _, world = self._snapshot()
        with self.db.planner_cache() as (cache, version):
            tm = threat_map(
                world, cnum, pool=LocalPool(1), cache=cache, version=version,
                progress=self._watch_step(),
            )  # fmt: skip
        doc = to_json(world, tm)
        for t, threat in zip(doc["threats"], tm.threats, strict=True):
            kind, _, ident = threat.target.partition(":")
            t["at"] = threat.where if kind == "sector" else f"{kind}:{ident}"
        return doc

    def fight(
        self, cnum: int, plan: Plan, *, seed: int | None, answers: list[str], base: int | None
    ) -> dict[str, Any]:
        """Run the plan's order for real, in one store transaction.

        The order is re-run from the start with the answers given so far; at the first
        question they do not answer, the run is rolled back and the question is returned
        (the next request answers it).  Only a run that completes is committed.
        """
        used = new_seed() if seed is None else seed
        order = plan.order()
        events: list[Event] = []
        with self._lock, self.db.source() as source:
            # This connection holds the write lock: no other command can commit until it
            # is done, so a reader's count of the history is the one this command sees.
            now = self.version()
            if base is not None and answers and now != base:
                raise WorldChanged(
                    "the world changed while you answered (another command was fought);"
                    " start the command again"
                )
            prompter = PlanAnswers(source.world, cnum, plan, answers)
            try:
                result = source.run(
                    order,
                    country=cnum,
                    seed=used,
                    prompter=prompter,
                    sink=events.append,
                    rules=plan.rules(source.world),
                )
            except NeedAnswer as q:
                return {
                    "state": "question",
                    "order": order.text(),
                    "seed": used,
                    "answers": answers,
                    "question": q.prompt,
                    "kind": q.kind,
                    "most": q.most,
                    "transcript": "".join(e.transcript() for e in events),
                    "base": now,
                }
            cid = source.recorded
        return {
            "state": "done",
            "order": order.text(),
            "seed": used,
            "id": cid,
            "outcome": result.outcome,
            "success": result.success,
            "world_changed": result.world_changed,
            "transcript": result.transcript(),
            "result": result.to_json(),
        }

    # -- history --------------------------------------------------------------------------

    def history(self) -> list[dict[str, Any]]:
        """The history, newest first, as ``bellum empire history --json`` gives it."""
        return [r.to_json() for r in reversed(self.db.history())]

    def command(self, cid: int) -> dict[str, Any]:
        """One command's history entry, with its profile, transcript and changes counted."""
        r = self.db.command(cid)
        return {**r.to_json(), "profile": r.profile, "transcript": r.transcript,
                "changes": len(r.changes)}  # fmt: skip

    def replay(self, cid: int) -> dict[str, Any]:
        report = self.db.replay(cid)
        return {
            "id": cid,
            "ok": report.ok,
            "same_transcript": report.same_transcript,
            "same_changes": report.same_changes,
            "differences": report.differences,
            "transcript": report.transcript,
        }


def _likeliest(view: World, cnum: int, kind: str, ident: str) -> World:
    """The whole world a player's view most believes in around a target (each unknown at
    its median), for probing commands on it."""
    from bellum.empire.intel.belief import believe

    geo = view.geometry
    if kind == "sector":
        at = geo.parse(ident, view.origin(cnum))
    else:
        uid = parse_int(ident, f"{kind} number", lo=0)
        seen = view.observations.get(f"{kind} {uid}")
        where = seen.get("at") if seen is not None else None
        if where is None or not isinstance(where.value, str):
            raise InputError(f"no enemy {kind} #{uid} in sight")
        at = geo.parse(where.value, (0, 0))
    belief = believe(view, cnum, at)
    return belief.world([u.dist.quantile(0.5) for u in belief.open])


def _unseen_sectors(w: World, cnum: int) -> list[dict[str, Any]]:
    """A player's view beyond its own sectors, for the map: each sector it saw (``seen``:
    ``known`` since the last update, ``stale`` before; numbers as shown, rounded) and each
    one its bmap shows (``unknown``: only the designation, or ``?``)."""
    assert w.fog is not None
    geo, now = w.geometry, w.fog.turn
    bmap = w.bmaps.get(cnum)
    out = []
    for y in range(geo.height):
        for x in range(y % 2, geo.width, 2):
            if (x, y) in w.sectors:
                continue
            o = w.observations.get(f"sector {x},{y}")
            mark = bmap.at((x, y)) if bmap is not None else " "
            if o is None and not mark.strip():
                continue

            def shown(name: str, o: Any = o) -> Any:
                v = o.get(name) if o is not None else None
                return v.value if v is not None else None

            kind = None
            for key in (shown("type"), mark):
                try:
                    kind = w.tables.sector(str(key))
                    break
                except KeyError:
                    continue
            owner = shown("owner") or 0
            rx, ry = geo.to_rel((x, y), w.origin(cnum))
            out.append({
                "x": rx, "y": ry, "key": f"{rx},{ry}",
                "des": kind.mnemonic if kind else "?",
                "des_name": kind.name if kind else "land of unknown use",
                "owner": owner, "owner_name": w.name_of(owner) if owner else "",
                "relation": _relation(w, cnum, owner),
                "eff": shown("eff") or 0, "mil": shown("mil") or 0, "civ": shown("civ") or 0,
                "mob": 0, "mines": None,
                "sea": bool(kind and kind.is_sea), "impassable": bool(kind and kind.impassable),
                "seen": "unknown" if o is None else "known" if o.last_seen[0] >= now else "stale",
            })  # fmt: skip
    return out


def _relation(w: World, me: int, other: int) -> str:
    """How ``me`` stands toward ``other``, for colours and labels."""
    if other == 0:
        return "none"
    if other == me:
        return "own"
    rel = w.rel(me, other)
    if rel == Relation.ALLIED:
        return "allied"
    if rel == Relation.AT_WAR:
        return "war"
    return rel.label()


def _histogram(values: list[int]) -> list[tuple[int, float]]:
    uniq, counts = np.unique(np.asarray(values, dtype=np.int64), return_counts=True)
    n = len(values)
    return [(int(v), float(c) / n) for v, c in zip(uniq, counts, strict=True)]


def _odds_doc(result: OddsResult) -> dict[str, Any]:
    """The numbers the planner shows, from the odds engine's result."""
    losses = {}
    expected = {}
    quantiles = {}
    for side, dist in result.losses.items():
        losses[side] = [(int(v), float(p)) for v, p in zip(dist.values, dist.probs, strict=True)]
        expected[side] = dist.mean()
        quantiles[side] = {f"{q:g}": v for q, v in dist.quantiles().items()}
    return {
        "method": result.method,
        "model": result.model,
        "runs": result.runs,
        "seed": result.seed,
        "p_win": result.p_attacker_wins,
        "standard_error": result.standard_error,
        "outcomes": dict(result.outcomes),
        "losses": losses,
        "expected": expected,
        "quantiles": quantiles,
    }


# --------------------------------------------------------------------------- Panzer


class PanzerGame:
    """A Panzer Campaigns scenario: its battlefield, and assaults planned, explained,
    solved and resolved on it.  The scenario file is never written."""

    def __init__(self, path: Path, scenario: Scenario | None = None) -> None:
        self.path = path
        self.scenario: Scenario = scenario or load_scenario(str(path))

    @property
    def name(self) -> str:
        return self.scenario.name

    def default_order(self) -> tuple[str, list[str]]:
        a = self.scenario.assault
        if a is None:
            return "", []
        return str(a.target), list(a.units)

    def board(self, scenario: Scenario | None = None) -> dict[str, Any]:
        s = scenario or self.scenario
        bf = s.battlefield
        hexes = [
            {"col": c, "row": r, "key": f"{c},{r}", "terrain": list(bf.terrain_of(Hex(c, r)))}
            for c in range(bf.width)
            for r in range(bf.height)
        ]
        sides = [
            {"a": str(min(e)), "b": str(max(e)), "features": list(f)}
            for e, f in bf.hexsides.items()
        ]
        return {
            "name": s.name,
            "description": s.description,
            "width": bf.width,
            "height": bf.height,
            "hexes": hexes,
            "hexsides": sides,
            "units": [_panzer_unit(u) for u in s.units],
            "sides": sorted({u.side for u in s.units}),
        }

    def _target(self, text: str) -> Hex:
        h = Hex.parse(text.strip(), "target")
        if not self.scenario.battlefield.on_map(h):
            raise InputError(f"target hex {h} is off the map")
        return h

    def candidates(self, target: str) -> list[dict[str, Any]]:
        """The units next to the target that are not its occupants' side, and whether
        each may assault (the rules' own refusal, §1.1)."""
        s = self.scenario
        h = self._target(target)
        occupants = {u.side for u in s.units_at(h)}
        out = []
        for u in s.units:
            if u.hex == h or u.side in occupants or not u.hex.adjacent(h):
                continue
            why = refusal(s, u, h)
            out.append({**_panzer_unit(u), "allowed": why is None, "refusal": why or ""})
        return out

    def _plan(self, target: str, units: list[str]) -> AssaultPlan:
        return plan_assault(self.scenario, self._target(target), units)

    def study(self, target: str, units: list[str]) -> dict[str, Any]:
        """The assault explained and solved: the ``explain`` and ``odds`` documents of
        ``bellum panzer explain --json`` and ``bellum panzer odds --json``.

        An assault too big to enumerate has ``odds`` None and ``why`` says so.
        """
        plan = self._plan(target, units)
        bd = plan.breakdown
        started = time.perf_counter()
        try:
            check_exact_size(plan)
        except CommandError:
            why = f"exact odds not computed (they would take about {exact_seconds(plan):,.0f} s)"
            return {"explain": explain_json(bd, self.name, None), "odds": None, "why": why,
                    "odds_text": odds_text(bd.odds)}  # fmt: skip
        dist = exact_distribution(plan)
        result = dist.odds_result(seconds=time.perf_counter() - started)
        return {
            "explain": explain_json(bd, self.name, dist.p_success),
            "odds": assault_odds_json(dist, bd, self.name, result),
            "why": "",
            "odds_text": odds_text(bd.odds),
        }

    def resolve(self, target: str, units: list[str], seed: int | None) -> dict[str, Any]:
        """``bellum panzer assault --json``'s document, and the battlefield after it."""
        plan = self._plan(target, units)
        used = new_seed() if seed is None else seed
        result = resolve_plan(plan, ServerRandom(used))
        return {
            "result": assault_json(result, self.name, None),
            "board": self.board(result.scenario),
        }


def _panzer_unit(u: Unit) -> dict[str, Any]:
    return {
        "id": u.id,
        "name": u.name,
        "side": u.side,
        "hex": str(u.hex),
        "kind": u.kind.value,
        "strength": u.strength,
        "quality": u.quality,
        "fatigue": u.fatigue,
        "mode": u.mode.value,
        "state": u.state.value,
        "assault": u.assault,
        "defense": u.defense,
    }


# --------------------------------------------------------------------------- the Panzer calculator
# An assault built in a form rather than a file: the target at 2,2 of a 5 x 5 map (room
# to retreat), the attackers in its six neighbours, named by direction.  The form is a
# scenario like any other: validated by the same loader, solved by the same study.

CALC_TARGET = Hex(2, 2)
CALC_SIZE = 5
#: Each neighbour's direction, in the order of :meth:`Hex.neighbors` (the same for
#: every hex of a flat-topped map).
_NEIGHBOUR_NAMES = ("SE", "NE", "N", "NW", "SW", "S")
#: The directions as the form lists them, clockwise from the top.
DIRECTIONS = ("N", "NE", "SE", "S", "SW", "NW")
FORTS = ("improved_position", "trench", "bunker", "pillbox")
CROSSINGS = ("bridge", "ferry", "ford", "road", "railroad")
#: A unit's fields the form shows; the rest of a loaded unit rides along unchanged.
UNIT_FIELDS = ("id", "kind", "strength", "assault", "defense", "quality", "fatigue", "mode",
               "state")  # fmt: skip


def calc_hex(direction: str) -> Hex:
    """The calculator's hex in ``direction`` of its target."""
    return CALC_TARGET.neighbors()[_NEIGHBOUR_NAMES.index(direction)]


def calculator_choices() -> dict[str, Any]:
    """What the form offers: names, values and the rules' keys with their defaults."""
    t = tables()
    return {
        "terrain": [n for n in t.terrain_protection_pct if n not in FORTS and n != "elevation"],
        "forts": list(FORTS),
        "features": [n for n in t.hexside_protection_pct if n not in CROSSINGS] + ["major_river"],
        "crossings": list(CROSSINGS),
        "kinds": [k.value for k in Kind],
        "qualities": list(t.quality_modifier_pct),
        "modes": [m.value for m in Mode],
        "states": [s.value for s in State],
        "rules": RULE_KEYS,
        "params": ParameterData.default().scalar_fields(),
        "directions": DIRECTIONS,
    }


def calculator_state(
    s: Scenario, target: str = "", units: list[str] | None = None
) -> dict[str, Any]:
    """A scenario's assault as the calculator's form shows it (``target`` and ``units``
    instead of its ``[assault]``), and ``notes`` on what the form leaves out."""
    if target:
        t = Hex.parse(target, "target")
    elif s.assault is not None:
        t = s.assault.target
    else:
        raise InputError(f"{s.name} orders no assault: choose its target hex")
    ids = list(units) if units else list(s.assault.units if s.assault else [])
    doc = scenario_to_dict(s)
    by_id = {u["id"]: u for u in doc["units"]}
    neighbours = {n: _NEIGHBOUR_NAMES[i] for i, n in enumerate(t.neighbors())}
    notes = []

    def row(u: dict[str, Any], role: str, where: str) -> dict[str, Any]:
        shown_ = {k: u.get(k) for k in UNIT_FIELDS}
        more = {k: v for k, v in u.items() if k not in UNIT_FIELDS and k not in ("side", "hex")}
        return {**shown_, "role": role, "from": where, "more": json.dumps(more) if more else ""}

    defenders = [row(by_id[u.id], "defender", "") for u in s.units_at(t)]
    attackers = []
    for uid in ids:
        u = next((x for x in s.units if x.id == uid), None)
        if u is None or u.hex not in neighbours:
            notes.append(f"{uid} is not next to {t}: left out")
            continue
        attackers.append(row(by_id[uid], "attacker", neighbours[u.hex]))
    left = len(s.units) - len(defenders) - len(attackers)
    if left:
        notes.append(
            f"{left} other unit{'s' if left > 1 else ''} of {s.name} take no part: on the"
            " calculator's map nothing blocks a retreat"
        )
    terrain = s.battlefield.terrain_of(t)
    main = [x for x in terrain if x not in FORTS and x != "elevation"]
    if len(main) > 1:
        notes.append(f"{t} is {', '.join(main)}: the calculator keeps {main[0]}")
    sides: dict[str, dict[str, str]] = {}
    for n, direction in neighbours.items():
        features = s.battlefield.hexsides.get(edge(t, n), ())
        crossing = [f for f in features if f in CROSSINGS]
        obstacle = [f for f in features if f not in CROSSINGS]
        if len(crossing) > 1 or len(obstacle) > 1:
            notes.append(f"the hexside {t}|{n} has {', '.join(features)}: the calculator keeps two")
        sides[direction] = {"feature": (obstacle or [""])[0], "crossing": (crossing or [""])[0]}
    params = doc.get("parameter_data", {})
    return {
        "name": s.name,
        "att_side": next((x.side for x in s.units if x.id in ids), "Attackers"),
        "def_side": next((x.side for x in s.units_at(t)), "Defenders"),
        "night": s.night,
        "terrain": (main or ["clear"])[0],
        "fort": next((x for x in terrain if x in FORTS), ""),
        "elevation": "elevation" in terrain,
        "sides": sides,
        "units": defenders + attackers,
        "rules": dict(s.rules),
        "params": {**ParameterData.default().scalar_fields(), **s.params.scalar_fields()},
        "tables": json.dumps({k: v for k, v in params.items() if isinstance(v, dict | list)}),
        "notes": notes,
    }


def calculator_game(raw: dict[str, Any]) -> PanzerGame:
    """The calculator's form as a scenario, validated as a file would be."""
    return PanzerGame(Path("calculator.toml"), scenario_from_dict(raw, "calculator"))


def read_scenario(text: str, name: str) -> Scenario:
    """A scenario from the text of a file the player chose."""
    return scenario_from_dict(parse_toml(text, name), name)


def scenario_text(game: PanzerGame) -> str:
    """The scenario as a TOML file: what ``bellum panzer odds`` reads."""
    return tomli_w.dumps(scenario_to_dict(game.scenario))
