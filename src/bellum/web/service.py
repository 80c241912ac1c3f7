"""The web app's one door into bellum: every call into the rules, the store and the odds.

Views never import :mod:`bellum.empire` or :mod:`bellum.panzer`; they call the two
classes here and get plain dicts, lists and dataclasses back.  Keeping every call in
this module means that switching to the coming entry points (one
``run_command(world, order_text, ...)`` for the five Empire commands, a service layer
for sources and history, a planner for every command, renamed Panzer JSON) changes
this file only.  Each place that calls a function due to be replaced is marked
``PRE-REFACTOR``.

Orders travel as the words a player types (``["attack", "2,0", "y", "y", "n", "n"]``),
rendered with :func:`shlex.join`; :func:`_run_order` is the single place that turns
them into calls of today's command functions.
"""

from __future__ import annotations

import math
import re
import shlex
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bellum.dice import ServerRandom, new_seed
from bellum.empire.combat import CombatResult, assault, attack, board, lboard, paradrop
from bellum.empire.events import Event
from bellum.empire.planning import fight_sides, make_plan, prepare
from bellum.empire.rules import apply_rules, profile_names
from bellum.empire.store import Invocation, RecordingPrompter, Store, replay
from bellum.empire.world import LandUnit, Plane, Relation, Ship, World
from bellum.empire.worldfile import load_world
from bellum.errors import BellumError, CommandError, InputError, UsageError
from bellum.odds import Model, OddsResult, Side, fight_odds
from bellum.panzer.assault import AssaultPlan, refusal
from bellum.panzer.battlefield import Hex
from bellum.panzer.distribution import exact_distribution
from bellum.panzer.results import AssaultResult, resolve_plan
from bellum.panzer.scenario import Scenario, load_scenario

COMMANDS = ("attack", "assault", "paradrop", "board", "lboard")
SUPPORT_KINDS = ("forts", "ships", "arty", "planes")
#: Monte Carlo runs of the odds engine for a live estimate while a control moves.
LIVE_RUNS = 10_000
#: Plays of the real command for the commands the planner cannot solve yet.
PLAY_RUNS = 100
#: Prepared plans kept for the exact odds that follow a live estimate.
SIDES_KEPT = 64
#: The P(win) the "force needed" search aims for.
NEED = 0.9


class NeedAnswer(Exception):
    """A command asked a question the request did not answer: show it, and stop there."""

    def __init__(self, prompt: str) -> None:
        super().__init__(prompt)
        self.prompt = prompt


class WorldChanged(CommandError):
    """The world changed between the steps of one command (another command was fought)."""


# --------------------------------------------------------------------------- plans


@dataclass
class Plan:
    """What the planner's controls say: the command, its target, source and force.

    ``mil`` is keyed like :attr:`Source.key` (``"0,0"`` for a sector, ``"ship:3"`` for a
    ship); ``units`` are land unit numbers; ``planes``/``escorts`` plane numbers.
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

    def order(self) -> list[str]:
        """The command as a player types it."""
        yn = ["y" if s else "n" for s in self.support]
        if self.command == "attack":
            return ["attack", self.target, *yn]
        if self.command == "assault":
            return ["assault", self.target, self.source.removeprefix("ship:"), *yn]
        if self.command in ("board", "lboard"):
            return [self.command, self.target, self.source.removeprefix("ship:")]
        if self.command == "paradrop":
            if not self.planes:
                raise InputError("plane: choose at least one transport plane")
            planes = "/".join(map(str, self.planes))
            return ["paradrop", planes, "/".join(map(str, self.escorts)), self.source, self.target]
        raise UsageError(f"unknown command {self.command!r}; commands: {', '.join(COMMANDS)}")


_MIL_SECTOR = re.compile(r"^Number of mil from .* at (-?\d+,-?\d+) \(max (\d+)\) : $")
_MIL_SHIP = re.compile(r"^Number of mil from (.*\(#(\d+)\)) \(max (\d+)\) : $")
_UNIT = re.compile(r"^\w+ with (.* #(\d+)) (?:in|on) .*\[ynYNq\?\] $")
_YES_NO = re.compile(r"\[yn\]\? $")
_STANDING_BY = re.compile(r"#(\d+) standing by")


def _mil_prompt(prompt: str) -> tuple[str, int, str] | None:
    """(source key, max, label) of a "Number of mil" question, else None."""
    m = _MIL_SECTOR.match(prompt)
    if m:
        return m.group(1), int(m.group(2)), prompt.split(" (max")[0].removeprefix("Number of ")
    m = _MIL_SHIP.match(prompt)
    if m:
        return f"ship:{m.group(2)}", int(m.group(3)), m.group(1)
    return None


class PlanAnswers:
    """Answers a command's force questions from a :class:`Plan`, the rest from ``answers``.

    PRE-REFACTOR: questions are told apart by their wording, as ``empire/planning.py``
    does; structured prompts (design §3) will replace the regular expressions.
    """

    def __init__(self, plan: Plan, answers: list[str]) -> None:
        self.plan = plan
        self.answers = list(answers)

    def ask(self, prompt: str) -> str | None:
        mil = _mil_prompt(prompt)
        if mil is not None:
            return str(self.plan.mil.get(mil[0], 0))
        m = _UNIT.match(prompt)
        if m:
            return "y" if int(m.group(2)) in self.plan.units else "n"
        if self.answers:
            return self.answers.pop(0)
        raise NeedAnswer(prompt)


class _Probe:
    """Answers a command so that it lists its force and stops: no mil, no units.

    Confirmations (``[yn]``) are answered yes so the listing goes on; they are noted,
    because the real command will ask them.
    """

    def __init__(self) -> None:
        self.mil: list[tuple[str, int, str]] = []
        self.units: list[tuple[int, str]] = []
        self.confirm: list[str] = []

    def ask(self, prompt: str) -> str | None:
        mil = _mil_prompt(prompt)
        if mil is not None:
            self.mil.append(mil)
            return "0"
        m = _UNIT.match(prompt)
        if m:
            self.units.append((int(m.group(2)), m.group(1)))
            return "n"
        if _YES_NO.search(prompt):
            self.confirm.append(prompt.strip())
            return "y"
        return None


def _run_order(
    world: World,
    words: list[str],
    country: int,
    dice: ServerRandom,
    prompter: Any,
    sink: Callable[[Event], None] | None = None,
) -> tuple[CombatResult, Invocation]:
    """Run one order on ``world``: the only place that calls today's command functions.

    PRE-REFACTOR: becomes ``bellum.empire.run_command(world, shlex.join(words), ...)``;
    the :class:`Invocation` goes away when the store keeps order text.
    """
    name, args = words[0], words[1:]
    if name in ("attack", "assault"):
        positional = 1 if name == "attack" else 2
        head, support = args[:positional], args[positional:]
        call = Invocation(name, list(head), {"support_args": list(support)})
        if name == "attack":
            r = attack(world, head[0], country, dice, prompter, support, sink=sink)
        else:
            r = assault(world, head[0], head[1], country, dice, prompter, support, sink=sink)
        return r, call
    call = Invocation(name, list(args))
    if name in ("board", "lboard"):
        fn = board if name == "board" else lboard
        return fn(world, args[0], args[1], country, dice, prompter, sink=sink), call
    if name == "paradrop":
        planes, escorts, ap, route = args
        return paradrop(world, planes, escorts, ap, route, country, dice, prompter, sink=sink), call
    raise UsageError(f"unknown command {name!r}; commands: {', '.join(COMMANDS)}")


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
    exact: bool = False  # the planner solves it exactly (today: attack only)

    @property
    def usable(self) -> bool:
        return not self.refusal and bool(self.sources or self.units or self.planes)


#: Probe lines that only say the probe committed nothing.
_PROBE_NOISE = re.compile(
    r"^(No troops for \w+\.\.\.|.* aborted|Air-Assault aborted|Trying to sneak on shore\.\.\.)$"
)


def _lines(events: list[Event]) -> list[str]:
    text = "".join(e.text for e in events if e.kind == "text")
    return [line for line in text.split("\n") if line.strip()]


# --------------------------------------------------------------------------- the Empire game


class EmpireGame:
    """An Empire world served to players: a database, or a scratch copy of a world file.

    Reads use a decoded snapshot kept until a command changes the world; each command
    opens its own connection and runs in one store transaction, one writer at a time.
    """

    def __init__(self, db: Path | None = None, world_file: Path | None = None) -> None:
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        self.label: str
        if world_file is not None:
            world = load_world(world_file)  # PRE-REFACTOR: bellum.empire.io
            self._scratch = tempfile.TemporaryDirectory(prefix="bellum-serve-")
            self.db = Path(self._scratch.name) / "world.db"
            Store.create(self.db, world).close()
            self.label = f"{world_file} (a scratch copy: fights last until the server stops)"
        else:
            self.db = db if db is not None else Path("bellum.db")
            self.label = str(self.db)
        with self._store() as store:  # fail now, in one line, if it is no database
            store.summary()
        self._lock = threading.Lock()
        self._cache: tuple[tuple[int, str], World] | None = None
        self._cache_lock = threading.Lock()
        #: The odds engine's sides of recent plans, so the exact odds asked for when a
        #: slider is let go reuse what the live estimate while it moved prepared.
        self._sides: OrderedDict[tuple[Any, ...], tuple[Side, Side, int, int, list[str]]] = (
            OrderedDict()
        )

    @property
    def scratch(self) -> bool:
        return self._scratch is not None

    def close(self) -> None:
        if self._scratch is not None:
            self._scratch.cleanup()

    @contextmanager
    def _store(self) -> Iterator[Store]:
        store = Store.open(self.db)  # PRE-REFACTOR: the service layer's source
        try:
            yield store
        finally:
            store.close()

    # -- reading ------------------------------------------------------------------

    def version(self) -> int:
        """How many commands the history holds: it grows with every command."""
        with self._store() as store:
            return int(store.summary()["commands"])

    def world(self) -> World:
        """The current world, shared between requests: never change it, copy it."""
        return self._snapshot()[1]

    def _snapshot(self) -> tuple[tuple[int, str], World]:
        """The current world and its version (the history's length, the world's birth)."""
        with self._store() as store:
            summary = store.summary()
            key = (int(summary["commands"]), str(summary["created"]))
            with self._cache_lock:
                if self._cache is not None and self._cache[0] == key:
                    return self._cache
            world = store.world()
        with self._cache_lock:
            self._cache = (key, world)
            self._sides.clear()
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
            raise InputError(f"no country {key!r} in this world; countries: {names}")
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
        geo = w.geometry
        nations = [
            {"cnum": n.cnum, "name": n.name, "relation": _relation(w, cnum, n.cnum)}
            for n in sorted(w.nations.values(), key=lambda n: n.cnum)
        ]
        sectors = []
        for xy, s in w.sectors.items():
            rx, ry = geo.to_rel(xy, me.origin)
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
                }
            )

        def thing(x: LandUnit | Ship | Plane, label: str, **more: Any) -> dict[str, Any]:
            return {
                "uid": x.uid,
                "label": label,
                "owner": x.owner,
                "relation": _relation(w, cnum, x.owner),
                "key": geo.fmt(x.xy, me.origin),
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
        refusals (not adjacent, no mobility...).  The result is thrown away.
        """
        w = self.world()
        me = w.nations[cnum]
        geo = w.geometry
        if kind == "sector":
            xy = geo.parse(ident, me.origin)
            s = w.sector(xy)
            key = geo.fmt(xy, me.origin)
            title = f"{key} {s.type.name}" + (f" of {w.name_of(s.owner)}" if s.owner else "")
            ways = [self._probe_attack(w, cnum, key)]
            ways += self._probe_assaults(w, cnum, xy, key)
            ways += self._probe_paradrops(w, cnum, key)
        elif kind in ("ship", "unit"):
            if not ident.isdigit():
                raise InputError(f"{kind} number expected, not {ident!r}")
            uid = int(ident)
            ship, unit = w.ships.get(uid), w.units.get(uid)
            thing: Ship | LandUnit | None = ship if kind == "ship" else unit
            if thing is None or thing.owner == cnum:
                raise InputError(f"no enemy {kind} #{uid} in sight")
            name = thing.title() if isinstance(thing, Ship) else thing.name()
            key = geo.fmt(thing.xy, me.origin)
            title = f"{name} at {key}"
            ways = self._probe_boardings(w, cnum, kind, uid, thing.xy)
        else:
            raise InputError(f"a target is a sector, ship or unit, not {kind!r}")
        return {
            "kind": kind,
            "ident": ident,
            "title": title,
            "ways": ways,
            "profiles": profile_names(),
            "version": self.version(),
        }

    def _probe(self, w: World, cnum: int, words: list[str]) -> tuple[_Probe, list[str], str]:
        scratch = w.copy()
        probe = _Probe()
        result, _ = _run_order(scratch, words, cnum, ServerRandom(1), probe)
        lines = [line for line in _lines(result.events) if not _PROBE_NOISE.match(line)]
        refused = result.outcome in ("refused", "usage")
        return probe, lines, lines[-1] if refused and lines else ""

    def _way(
        self,
        command: str,
        title: str,
        probe: _Probe,
        lines: list[str],
        refusal: str,
        units_here: list[tuple[int, str]],
    ) -> Way:
        way = Way(command, title, refusal=refusal, confirm=probe.confirm)
        offered = {uid for uid, _ in probe.units}
        for key, most, label in probe.mil:
            way.sources.append(Source(key, label, most))
        for uid, label in probe.units:
            way.units.append(UnitChoice(uid, label, True))
        for line in lines:
            if line == refusal:
                continue
            unit = re.search(r"#(\d+)\b", line)
            if unit and int(unit.group(1)) in {u for u, _ in units_here}:
                uid = int(unit.group(1))
                if uid not in offered and not any(u.uid == uid for u in way.units):
                    way.units.append(UnitChoice(uid, dict(units_here)[uid], False, line))
                continue
            src = next((s for s in way.sources if _mentions(line, s.key)), None)
            if src is not None:
                src.notes.append(line)
            else:
                way.notes.append(line)
        return way

    def _probe_attack(self, w: World, cnum: int, key: str) -> Way:
        probe, lines, refusal = self._probe(w, cnum, ["attack", key, "n", "n", "n", "n"])
        mine = [(u.uid, u.name()) for u in w.units.values() if u.owner == cnum]
        way = self._way("attack", f"attack {key}", probe, lines, refusal, mine)
        way.support, way.exact = True, True
        if not way.refusal and not (way.sources or way.units):
            way.refusal = "Nothing of yours can attack it: no mil or units next to it."
        return way

    def _probe_assaults(self, w: World, cnum: int, xy: tuple[int, int], key: str) -> list[Way]:
        ways = []
        for _, sh in sorted(w.ships.items()):
            if sh.owner != cnum or w.geometry.mapdist(sh.xy, xy) > 1:
                continue
            words = ["assault", key, str(sh.uid), "n", "n", "n", "n"]
            probe, lines, refusal = self._probe(w, cnum, words)
            aboard = [(u.uid, u.name()) for u in w.units.values() if u.ship == sh.uid]
            way = self._way("assault", f"assault from {sh.title()}", probe, lines, refusal, aboard)
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
        origin = w.nations[cnum].origin
        for base, uids in sorted(bases.items()):
            ap = w.geometry.fmt(base, origin)
            escorts = [
                p.uid
                for _, p in sorted(w.planes.items())
                if p.owner == cnum and p.xy == base and p.type.has("escort")
            ]
            # The whole mission flies on the scratch copy: what it prints tells which
            # planes stand by, which are out of range, and whether the drop zone is legal.
            words = ["paradrop", "/".join(map(str, uids)), "", ap, key]
            _, lines, refusal = self._probe(w, cnum, words)
            ready = {m.group(1) for line in lines if (m := _STANDING_BY.search(line))}
            way = Way("paradrop", f"paradrop from {ap}", source=ap, refusal=refusal)
            for uid in uids:
                way.planes.append(PlaneChoice(uid, w.planes[uid].name(), False))
            for uid in escorts:
                way.planes.append(PlaneChoice(uid, w.planes[uid].name(), True))
            way.notes = [line for line in lines if re.search(r"#\d+ (not|too|out|standing)", line)]
            if not ready and not way.refusal:
                way.refusal = "None of these planes can fly the mission (see above)."
            ways.append(way)
        return ways

    def _probe_boardings(
        self, w: World, cnum: int, kind: str, uid: int, xy: tuple[int, int]
    ) -> list[Way]:
        origin = w.nations[cnum].origin
        key = w.geometry.fmt(xy, origin)
        froms: list[str] = []
        if kind == "ship":
            froms += [
                str(sh.uid) for _, sh in sorted(w.ships.items()) if sh.owner == cnum and sh.xy == xy
            ]
        if w.sector(xy).owner == cnum:
            froms.append(key)
        command = "board" if kind == "ship" else "lboard"
        ways = []
        for src in froms:
            probe, lines, refusal = self._probe(w, cnum, [command, str(uid), src])
            here = [(u.uid, u.name()) for u in w.units.values() if u.owner == cnum and u.xy == xy]
            name = w.ships[int(src)].title() if src.isdigit() else src
            way = self._way(command, f"{command} from {name}", probe, lines, refusal, here)
            way.source = f"ship:{src}" if src.isdigit() else src
            ways.append(way)
        if not ways:
            where = "a faster ship of yours in its sector, or from your sector it is in"
            if kind == "unit":
                where = "your sector it stands in"
            ways.append(Way(command, command, refusal=f"You can only {command} it from {where}."))
        return ways

    # -- odds -------------------------------------------------------------------------

    def odds(self, cnum: int, plan: Plan, *, live: bool = False) -> dict[str, Any]:
        """The odds of a plan: exact (or a live Monte Carlo estimate) for ``attack``,
        plays of the real command for the others (until the planner plans them)."""
        started = time.perf_counter()
        if plan.command != "attack":
            return self.play(cnum, plan, PLAY_RUNS, seed=1)
        w = self._planning_world(plan)
        att, dfd, ototal, dtotal, said = self._fight_sides(cnum, plan, w)
        model: Model = "per-casualty" if w.option("info_fight") else "server"
        if live:
            result = fight_odds(att, dfd, model=model, method="monte-carlo", runs=LIVE_RUNS, seed=1)
        else:
            result = fight_odds(att, dfd, model=model)
        doc = _odds_doc(result)
        doc.update(
            command="attack",
            said=said,
            final_attack=ototal,
            final_defense=dtotal,
            assumptions=["no morale checks", "no fort, ship, unit or plane support"],
            seconds=time.perf_counter() - started,
        )
        return doc

    def _fight_sides(
        self, cnum: int, plan: Plan, w: World
    ) -> tuple[Side, Side, int, int, list[str]]:
        """The planned attack run up to the fight, as the odds engine's two sides."""
        mil = [f"{k}={n}" for k, n in sorted(plan.mil.items()) if n > 0]
        key = (self._snapshot()[0], cnum, plan.target, tuple(mil), tuple(sorted(plan.units)),
               plan.profile, tuple(plan.options))  # fmt: skip
        with self._cache_lock:
            if key in self._sides:
                self._sides.move_to_end(key)
                return self._sides[key]
        # PRE-REFACTOR: the new planner takes every command with --mil SECT=N, --unit ID.
        combat, said = prepare(w, cnum, make_plan(w, cnum, plan.target, mil, sorted(plan.units)))
        att, dfd = fight_sides(combat)
        value = (att, dfd, combat.ototal, combat.dtotal, said)
        with self._cache_lock:
            self._sides[key] = value
            while len(self._sides) > SIDES_KEPT:
                self._sides.popitem(last=False)
        return value

    def _planning_world(self, plan: Plan) -> World:
        w = self.world()
        if plan.profile or plan.options:
            w = w.copy()
            apply_rules(w, plan.profile or None, plan.options)
        return w

    def need(self, cnum: int, plan: Plan, goal: float = NEED) -> dict[str, Any]:
        """The least mil (spread over the sources in proportion to their limits) for P(win)
        >= ``goal``, by bisection over the total with the live estimate, checked exactly."""
        if plan.command != "attack":
            raise CommandError("the force needed is computed for attack only (for now)")
        way = self._probe_attack(self._planning_world(plan), cnum, plan.target)
        limits = {s.key: s.max for s in way.sources}
        if not limits:
            raise CommandError("no mil can attack it")

        def spread(total: int) -> dict[str, int]:
            full = sum(limits.values())
            mil = {k: (m * total) // full for k, m in limits.items()}
            for k in sorted(limits, key=lambda k: -limits[k]):
                if sum(mil.values()) < total and mil[k] < limits[k]:
                    mil[k] += 1
            return mil

        def p(total: int, live: bool) -> float:
            trial = Plan(**{**plan.__dict__, "mil": spread(total)})
            try:
                return float(self.odds(cnum, trial, live=live)["p_win"])
            except BellumError:
                return 0.0

        top = sum(limits.values())
        best = p(top, live=False)
        if best < goal:
            return {"reached": False, "goal": goal, "mil": spread(top), "p_win": best}
        lo, hi = 0, top
        while hi - lo > 1:  # bisection on the live estimate: a few hundred ms a step
            mid = (lo + hi) // 2
            if p(mid, live=True) >= goal:
                hi = mid
            else:
                lo = mid
        exact = p(hi, live=False)
        for _ in range(3):  # the estimate may be a hair optimistic: a few exact steps up
            if exact >= goal or hi >= top:
                break
            hi = min(top, hi + max(1, top // 100))
            exact = p(hi, live=False)
        if exact < goal:
            hi, exact = top, best
        return {"reached": True, "goal": goal, "mil": spread(hi), "total": hi, "p_win": exact}

    def play(self, cnum: int, plan: Plan, runs: int, seed: int) -> dict[str, Any]:
        """Play the real command ``runs`` times on copies of the world (support, morale and
        all); what the planner cannot solve exactly is estimated this way."""
        started = time.perf_counter()
        w = self._planning_world(plan).copy()  # never the shared snapshot: it is changed
        w.overrides["scout_estimate"] = False
        seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(runs)]
        wins, att, dfd = 0, [], []
        for s in seeds:
            scratch = w.copy()
            prompter = _Decided(PlanAnswers(plan, []))
            r, _ = _run_order(scratch, plan.order(), cnum, ServerRandom(s), prompter)
            if r.outcome in ("refused", "usage") or (
                r.outcome == "aborted" and not r.initial_attack
            ):
                said = _lines(r.events)
                raise CommandError(said[-1] if said else f"the {plan.command} did not start")
            wins += r.success or r.outcome in ("unoccupied", "landed")
            att.append(r.attacker_casualties)
            dfd.append(r.defender_casualties)
        p = wins / runs
        return {
            "command": plan.command,
            "method": "plays of the real command",
            "model": None,
            "said": [],
            "runs": runs,
            "seed": seed,
            "p_win": p,
            "standard_error": math.sqrt(max(p * (1 - p), 0.0) / runs),
            "outcomes": {"attacker wins": p, "defender wins": 1 - p},
            "losses": {"attacker": _histogram(att), "defender": _histogram(dfd)},
            "expected": {"attacker": float(np.mean(att)), "defender": float(np.mean(dfd))},
            "assumptions": [],
            "note": "Each play answers as the plan says, is sure, and moves nothing in.",
            "seconds": time.perf_counter() - started,
        }

    # -- fighting -------------------------------------------------------------------

    def fight(
        self, cnum: int, plan: Plan, *, seed: int | None, answers: list[str], base: int | None
    ) -> dict[str, Any]:
        """Run the plan's order for real, in one store transaction.

        The order is re-run from the start with the answers given so far; at the first
        question they do not answer, the run is rolled back and the question is returned
        (the next request answers it).  Only a run that completes is committed.
        """
        used = new_seed() if seed is None else seed
        words = plan.order()
        events: list[Event] = []
        with self._lock, self._store() as store:
            if base is not None and answers and int(store.summary()["commands"]) != base:
                raise WorldChanged(
                    "the world changed while you answered (another command was fought);"
                    " start the command again"
                )
            session = store.begin_command()
            try:
                world = session.world
                apply_rules(world, plan.profile or None, plan.options)
                recorder = RecordingPrompter(PlanAnswers(plan, answers))
                try:
                    result, call = _run_order(
                        world, words, cnum, ServerRandom(used), recorder, events.append
                    )
                except NeedAnswer as q:
                    session.rollback()
                    return {
                        "state": "question",
                        "order": shlex.join(words),
                        "seed": used,
                        "answers": answers,
                        "question": q.prompt,
                        "transcript": "".join(e.transcript() for e in events),
                        "base": int(store.summary()["commands"]),
                    }
                cid = session.commit(call, recorder.answers, result)
            except BaseException:
                session.rollback()
                raise
        return {
            "state": "done",
            "order": shlex.join(words),
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
        with self._store() as store:
            records = store.history()
        return [
            {
                "id": r.id,
                "at": r.at,
                "country": r.country,
                "order": shlex.join([r.invocation.name, *r.invocation.words()]),
                "seed": r.seed,
                "outcome": r.outcome,
                "answers": r.answers,
            }
            for r in reversed(records)
        ]

    def command(self, cid: int) -> dict[str, Any]:
        with self._store() as store:
            r = store.command(cid)
        return {
            "id": r.id,
            "at": r.at,
            "country": r.country,
            "order": shlex.join([r.invocation.name, *r.invocation.words()]),
            "seed": r.seed,
            "outcome": r.outcome,
            "answers": r.answers,
            "profile": r.profile,
            "transcript": r.transcript,
            "changes": len(r.changes),
        }

    def replay(self, cid: int) -> dict[str, Any]:
        with self._store() as store:
            report = replay(store, cid)  # PRE-REFACTOR: the service layer's replay
        return {
            "id": cid,
            "ok": report.ok,
            "same_transcript": report.same_transcript,
            "same_changes": report.same_changes,
            "differences": report.differences,
            "transcript": report.transcript,
        }


class _Decided:
    """A plan's answers for repeated plays: sure, no move-in, and end of input otherwise.

    PRE-REFACTOR: the same answers as ``planning.PlanPrompter``; the planner for every
    command will answer its own prompts.
    """

    def __init__(self, inner: PlanAnswers) -> None:
        self.inner = inner

    def ask(self, prompt: str) -> str | None:
        try:
            return self.inner.ask(prompt)
        except NeedAnswer:
            if _YES_NO.search(prompt):
                return "y"
            if prompt.startswith("How many mil to move in"):
                return "0"
            if prompt.startswith("Move in with"):
                return "n"
            return None


def _mentions(line: str, key: str) -> bool:
    if key.startswith("ship:"):
        return f"(#{key[5:]})" in line
    return re.search(rf"(?<![\d,-]){re.escape(key)}(?![\d,])", line) is not None


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

    def __init__(self, path: Path) -> None:
        self.path = path
        self.scenario: Scenario = load_scenario(str(path))

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
        # PRE-REFACTOR: plan_assault is the same after the revision; its JSON keys change.
        from bellum.panzer.assault import plan_assault

        return plan_assault(self.scenario, self._target(target), units)

    def explain(self, target: str, units: list[str]) -> dict[str, Any]:
        return _breakdown(self._plan(target, units))

    def odds(self, target: str, units: list[str]) -> dict[str, Any]:
        plan = self._plan(target, units)
        started = time.perf_counter()
        dist = exact_distribution(plan)
        doc = _odds_doc(dist.odds_result())
        doc["seconds"] = time.perf_counter() - started
        doc["p_win"] = dist.p_success
        doc["total_probability"] = dist.total
        return doc

    def resolve(self, target: str, units: list[str], seed: int | None) -> dict[str, Any]:
        plan = self._plan(target, units)
        used = new_seed() if seed is None else seed
        result = resolve_plan(plan, ServerRandom(used))
        return _resolution(result, self)


def _panzer_unit(u: Any) -> dict[str, Any]:
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


def _breakdown(plan: AssaultPlan) -> dict[str, Any]:
    bd = plan.breakdown

    def side(t: Any) -> dict[str, Any]:
        return {
            "side": t.side,
            "units": [
                {
                    "id": u.unit_id,
                    "equivalent": u.equivalent,
                    "assault": u.assault_value,
                    "half_strength_vehicles": u.penalised_vehicles,
                    "assault_total": u.assault_total,
                    "defense": u.defense_value,
                    "unit_modifier_pct": u.unit_modifier_pct,
                    "notes": "; ".join(n for n in (u.assault_note, u.defense_note) if n),
                }
                for u in t.units
            ],
            "total_assault": t.total_assault,
            "average_defense": t.average_defense,
            "modifiers": [{"name": m.name, "pct": m.pct, "reason": m.reason} for m in t.modifiers],
            "factor": t.factor,
            "modified_assault": t.modified_assault,
        }

    def rng(cr: Any) -> dict[str, Any]:
        return {
            "losing_side": cr.losing_side,
            "assault": cr.assault,
            "defense": cr.defense,
            "combat_value": cr.combat_value,
            "low": cr.low,
            "high": cr.high,
        }

    return {
        "target": str(bd.target),
        "attack_hexes": [str(h) for h in bd.attack_hexes],
        "attackers": side(bd.attackers),
        "defenders": side(bd.defenders),
        "combined_arms": {"applies": bd.combined_arms.applies, "reason": bd.combined_arms.reason},
        "ranges": [rng(bd.against_defenders), rng(bd.against_attackers)],
        "reference_combat_value": bd.reference_combat_value,
        "assault_low": bd.assault_low,
        "assault_high": bd.assault_high,
    }


def _resolution(result: AssaultResult, game: PanzerGame) -> dict[str, Any]:
    units = []
    for o in result.units:
        m = o.morale
        after = o.unit_after
        units.append(
            {
                "id": o.unit_id,
                "side": o.side,
                "attacker": o.attacker,
                "before": o.strength_before,
                "loss": o.loss,
                "morale": None
                if m is None
                else {"value": m.morale, "roll": m.roll, "passed": m.passed},
                "fate": None
                if o.fate is None
                else {
                    "kind": o.fate.kind,
                    "to": str(o.fate.destination) if o.fate.destination else None,
                    "reason": o.fate.reason,
                },
                "advanced": o.advanced,
                "after": None if after is None else after.strength,
                "state": "eliminated" if after is None else after.state.value,
                "hex_after": None if after is None else str(after.hex),
                "fatigue_gain": o.fatigue_gain,
            }
        )
    return {
        "seed": result.seed,
        "outcome": result.outcome,
        "success": result.success,
        "hex_taken": result.hex_taken,
        "losses": {
            "attackers": result.side_loss_equivalent(True),
            "defenders": result.side_loss_equivalent(False),
        },
        "drawn": [
            {"side": d.side, "low": d.low, "high": d.high, "drawn": d.drawn, "loss": d.loss}
            for d in (result.losses_to_defenders, result.losses_to_attackers)
        ],
        "units": units,
        "board": game.board(result.scenario),
    }
