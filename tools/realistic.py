"""Realistic Empire worlds made by the real 4.4.1 server, and plans that fight on them.

    python tools/realistic.py --out benchmarks/worlds            # every world, checked
    python tools/realistic.py --out /tmp/w --only w32x16 --no-check

For each world of :data:`WORLDS` (or ``--only``) it:

1. builds the server (``tools/empire_server.py``, reusing ``build/empire``) and makes a
   mid-game with ``fairland`` and deity commands (``tools/midgame.py``, from the world's
   seed);
2. syncs it as the deity into a world database with bellum's own ``sync`` and writes
   the database's dump, ``OUT/NAME.xdump``;
3. finds plans on the dump's world for the five commands: every legal order it can see
   is answered the way its questions ask, run by bellum with the seed the server will
   use, and the fewest plans are kept that show every kind of support the world offers
   each command (:func:`support_kinds`);
4. plays each kept plan on the server (the game started again from its snapshot for
   each), as the country, through ``bellum.client.live.play`` with a deity checking,
   and keeps it only if the server's transcript is bellum's on the committed world,
   line for line;
5. writes ``OUT/plans.toml``: the worlds (size, seed, countries and passwords) and the
   plans (format: ``benchmarks/worlds/README.md``).

The same seeds give the same worlds, dumps and plans.  Progress goes to standard error.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shlex
import shutil
import sys
import tempfile
import textwrap
import time
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w
from empire_server import DEITY, DEITY_PASSWORD, EmpireGame, ServerError, empire_install
from midgame import NAMES, Midgame, Mix, make_midgame

from bellum.client.live import sync
from bellum.empire import run_command
from bellum.empire.answers import NamedAnswers
from bellum.empire.combat.result import CombatResult
from bellum.empire.events import Prompt
from bellum.empire.geometry import Coord
from bellum.empire.io.sqlite.codec import world_rows
from bellum.empire.io.sqlite.store import Store
from bellum.empire.io.toml import dumps, world_to_data
from bellum.empire.io.xdump.mapping import dump_to_world, read_dump, world_to_dump
from bellum.empire.orders import Order
from bellum.empire.world import Relation, World

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "benchmarks" / "worlds"
#: The realistic example world for users (a world file), and the world it is.
EXAMPLE = ROOT / "examples" / "empire" / "realistic.toml"
EXAMPLE_WORLD = "w48x24"
PLANS = "plans.toml"
#: The server's transcript of each plan, by plan id, beside the plans.
TRANSCRIPTS = "transcripts.toml"
#: Every kind of support :func:`support_kinds` can tell, in the order reports list them.
KINDS = (
    "fort", "ship", "unit", "plane", "mines", "reaction", "interception", "flak",
    "approach", "interdiction", "morale",
)  # fmt: skip
COMMANDS = ("attack", "assault", "paradrop", "board", "lboard")
#: The most plans kept per command and world.
MAX_PLANS = 6
#: The most candidate orders tried per command and world (a sample when there are more).
MAX_CANDIDATES = 60


@dataclass(frozen=True)
class WorldSpec:
    """A world to make: its name (the dump's file name), size, seed and how many
    countries (``None``: as many as the size suggests, :func:`midgame.fairland_args`)."""

    name: str
    width: int
    height: int
    seed: int
    countries: int | None = None

    @classmethod
    def parse(cls, text: str) -> WorldSpec:
        """``NAME:WxH:SEED[:COUNTRIES]``, e.g. ``mine:64x32:7`` or ``duel:32x16:3:2``."""
        parts = text.split(":")
        size = parts[1].lower().split("x") if len(parts) > 1 else []
        numbers = [*size, *parts[2:]]
        if not 3 <= len(parts) <= 4 or len(size) != 2 or not all(n.isdigit() for n in numbers):
            raise ValueError(f"expected NAME:WxH:SEED[:N] such as mine:64x32:7, not {text!r}")
        width, height = int(size[0]), int(size[1])
        if not parts[0].isidentifier():
            raise ValueError(f"{parts[0]!r}: a world's name is letters, digits and _")
        if width % 2 or height % 2 or width < 16 or height < 8:
            raise ValueError(f"{parts[1]}: the size must be even and at least 16x8")
        countries = int(parts[3]) if len(parts) == 4 else None
        if countries is not None and not 2 <= countries <= len(NAMES):
            raise ValueError(f"{countries} countries: from 2 to {len(NAMES)}")
        return cls(parts[0], width, height, int(parts[2]), countries)


WORLDS = (
    WorldSpec("w32x16", 32, 16, 1),
    WorldSpec("w48x24", 48, 24, 2),
    WorldSpec("w64x32", 64, 32, 3),
    WorldSpec("w96x48", 96, 48, 4),
    WorldSpec("w128x64", 128, 64, 5),
)


def log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


# -- what a fight showed --------------------------------------------------------------


def support_values(text: str) -> dict[str, list[float]]:
    """The support table of a transcript: ``{"attacker": [forts, ships, units, planes],
    "defender": [...]}``, each side only if printed."""
    out: dict[str, list[float]] = {}
    for line in text.splitlines():
        words = line.split("\t")
        if len(words) == 5 and words[0] in ("attacker", "defender"):
            out[words[0]] = [float(w) for w in words[1:]]
    return out


def support_kinds(result: CombatResult) -> list[str]:
    """The kinds of support (in :data:`KINDS` order) that took part in a fight, read from
    what the aggressor saw and the telegrams the fight sent:

    ``fort``, ``ship``, ``unit``, ``plane``: a non-zero value in the support table (either
    side); ``mines``: the defending mines' bonus; ``reaction``: reserve units reacted;
    ``interception``: fighters rose to intercept planes of the fight (paratroopers' or
    support); ``flak``: flak fired at them; ``approach``: ships fired on a boarding party's
    approach; ``interdiction``: missions fired on what moved in; ``morale``: a unit
    failed its morale check.
    """
    text = result.transcript()
    wires = "\n".join(e.text for e in result.events if e.kind == "telegram")
    both = text + "\n" + wires
    seen: set[str] = set()
    for values in support_values(text).values():
        seen |= {k for k, v in zip(KINDS[:4], values, strict=True) if v > 0}
    signs = {
        "mines": ("Defending mines add",),
        "reaction": ("Defense strength with reacting units",),
        "interception": ("rising to intercept", "intercepting"),
        "flak": ("flak guns", "Flak!"),
        "approach": ("Incoming shells do", "They're firing at us sir!"),
        "interdiction": ("interdiction mission does", " fires at you at "),
        "morale": ("fails morale check",),
    }
    for kind, words in signs.items():
        if any(w in both for w in words):
            seen.add(kind)
    return [k for k in KINDS if k in seen]


# -- plans ----------------------------------------------------------------------------


@dataclass
class Plan:
    """One order with its answers, as a command line, and what it showed.

    ``command`` is the order with the answers ``bellum empire odds`` takes too
    (``--mil``, ``--unit``); ``answers`` the rest that the command needs to run
    without a terminal (``--no-units``, the move-in).  ``seed`` is the seed the
    server ran it with; ``kinds`` what took part in that run; ``target`` what it
    fights (the target sector's type, ``ship`` or ``land unit``); ``transcript``
    what the server printed (kept in :data:`TRANSCRIPTS`).
    """

    id: str
    world: str
    country: str
    command: str
    answers: str = ""
    seed: int = 1
    kinds: list[str] = field(default_factory=list)
    outcome: str = ""
    support: dict[str, list[float]] = field(default_factory=dict)
    #: ``"same"`` when the server printed what bellum printed; else what differed.
    server: str = "unchecked"
    target: str = ""
    transcript: str = ""

    @property
    def name(self) -> str:
        return self.command.split()[0]

    def argv(self) -> list[str]:
        """The words after ``bellum empire``: the command, its answers and ``--as``."""
        return [*shlex.split(self.command), *shlex.split(self.answers), "--as", self.country]

    def to_toml(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "id": self.id,
            "world": self.world,
            "as": self.country,
            "command": self.command,
            "answers": self.answers,
            "seed": self.seed,
            "outcome": self.outcome,
            "target": self.target,
            "kinds": self.kinds,
            "server": self.server,
        }
        if self.support:
            doc["support"] = self.support
        return doc

    @classmethod
    def from_toml(cls, doc: dict[str, Any], transcript: str = "") -> Plan:
        return cls(
            id=doc["id"],
            world=doc["world"],
            country=doc["as"],
            command=doc["command"],
            answers=doc.get("answers", ""),
            seed=doc["seed"],
            kinds=list(doc.get("kinds", [])),
            outcome=doc.get("outcome", ""),
            support=dict(doc.get("support", {})),
            server=doc.get("server", "unchecked"),
            target=doc.get("target", ""),
            transcript=transcript,
        )


def load_plans(path: Path = DEFAULT_OUT / PLANS) -> tuple[dict[str, dict[str, Any]], list[Plan]]:
    """The worlds (by name) and the plans of a ``plans.toml``, with the server's
    transcripts when :data:`TRANSCRIPTS` is beside it."""
    doc = tomllib.loads(path.read_text())
    worlds = {w["name"]: w for w in doc.get("world", [])}
    texts_path = path.with_name(TRANSCRIPTS)
    texts = tomllib.loads(texts_path.read_text()) if texts_path.exists() else {}
    return worlds, [Plan.from_toml(p, texts.get(p["id"], "")) for p in doc.get("plan", [])]


def load_world(path: Path) -> World:
    """A committed dump as the world bellum plays on (``bellum empire world import``)."""
    return dump_to_world(read_dump(path))


def plan_order(world: World, plan: Plan) -> tuple[Order, int, NamedAnswers]:
    """The order, the country and the named answers of ``plan``, read by the command
    line's own parser (``bellum empire COMMAND --help``) on ``world``."""
    from bellum.cli.empire import _country, empire, named_answers

    argv = plan.argv()
    command = empire.commands[argv[0]]
    with command.make_context(argv[0], argv[1:]) as ctx:
        params = ctx.params
    words: list[str | None] = [*shlex.split(plan.command)[1 : 1 + _positional_count(plan.command)]]
    order = Order.of(argv[0], words)
    nation = _country(world, params["country"])
    named = named_answers(
        world,
        nation,
        order,
        **{
            k: params[k]
            for k in (
                "mil", "units", "no_units", "move_in", "move_in_units", "no_move_in_units", "yes"
            )
        },
    )  # fmt: skip
    return order, nation.cnum, named


def _positional_count(command: str) -> int:
    """How many words of ``command`` (after its name) come before its first option."""
    words = shlex.split(command)[1:]
    for i, w in enumerate(words):
        if w.startswith("--"):
            return i
    return len(words)


class Unanswered(Exception):
    """A plan left a question of its command without an answer."""


@dataclass
class PlanPrompter:
    """Named answers only: a question they do not answer is a defect of the plan."""

    named: NamedAnswers
    strict: bool = True
    asked: list[Prompt] = field(default_factory=list)

    def ask(self, prompt: Prompt) -> str | None:
        answer = self.named.ask(prompt)
        if answer is None and self.strict:
            raise Unanswered(f"no answer to {prompt.text.strip()!r}")
        self.asked.append(prompt)
        return answer


def run_plan(world: World, plan: Plan, seed: int | None = None) -> CombatResult:
    """``plan`` resolved by bellum on a copy of ``world`` with its seed (or ``seed``)."""
    scratch = world.copy()
    order, cnum, named = plan_order(scratch, plan)
    return run_command(
        scratch,
        order,
        country=cnum,
        seed=plan.seed if seed is None else seed,
        prompter=PlanPrompter(named),
    )


# -- finding plans --------------------------------------------------------------------


@dataclass
class Candidate:
    country: int
    order: Order


def enemies(world: World, cnum: int) -> set[int]:
    return {n for n in world.nations if world.rel(cnum, n) == Relation.AT_WAR}


def candidates(world: World, rng: random.Random) -> dict[str, list[Candidate]]:
    """Orders of the five commands that look legal, per command (a sample of each)."""
    geo = world.geometry
    found: dict[str, list[Candidate]] = {c: [] for c in COMMANDS}
    units_at: dict[Coord, list[int]] = {}
    for u in world.units.values():
        if not u.loaded:
            units_at.setdefault(u.xy, []).append(u.owner)
    for a in sorted(world.nations):
        foes = enemies(world, a)

        def at(xy: Coord, a: int = a) -> str:
            return world.fmt(xy, a)

        for xy, s in sorted(world.sectors.items()):
            if s.owner not in foes or s.type.is_sea or s.type.impassable:
                continue
            near = geo.neighbours(xy)
            if any(world.sectors[n].owner == a or a in units_at.get(n, []) for n in near):
                found["attack"].append(Candidate(a, Order("attack", (at(xy),))))
        for sh in sorted(world.ships.values(), key=lambda s: s.uid):
            if sh.owner != a:
                continue
            carried = any(u.ship == sh.uid for u in world.units.values())
            if sh.mil > 1 or carried:
                for n in [sh.xy, *geo.neighbours(sh.xy)]:
                    t = world.sectors.get(n)
                    if t and t.owner in foes and not t.type.is_sea and not t.type.is_mountain:
                        found["assault"].append(
                            Candidate(a, Order("assault", (at(n), str(sh.uid))))
                        )
        for v in sorted(world.ships.values(), key=lambda s: s.uid):
            if v.owner not in foes:
                continue
            for sh in world.ships.values():
                if sh.owner == a and sh.xy == v.xy:
                    found["board"].append(Candidate(a, Order("board", (str(v.uid), str(sh.uid)))))
            if world.sectors[v.xy].owner == a:
                found["board"].append(Candidate(a, Order("board", (str(v.uid), at(v.xy)))))
        for u in sorted(world.units.values(), key=lambda u: u.uid):
            if u.owner in foes and not u.loaded and world.sectors[u.xy].owner == a:
                found["lboard"].append(Candidate(a, Order("lboard", (str(u.uid), at(u.xy)))))
        bases: dict[Coord, list[int]] = {}
        escorts: dict[Coord, list[int]] = {}
        for p in sorted(world.planes.values(), key=lambda p: p.uid):
            if p.owner != a or p.ship is not None or p.land is not None:
                continue
            if p.type.has("para") and p.type.has("cargo"):
                bases.setdefault(p.xy, []).append(p.uid)
            elif p.type.has("escort") or p.type.has("intercept"):
                escorts.setdefault(p.xy, []).append(p.uid)
        for base, planes in sorted(bases.items()):
            targets = [
                xy
                for xy, s in world.sectors.items()
                if s.owner in foes
                and geo.mapdist(base, xy) <= 6
                and s.type.mnemonic not in ("^", ".", "c", "f", "/", "s")
            ]
            for xy in sorted(targets):
                lift = "/".join(map(str, planes))
                guard = "/".join(map(str, escorts.get(base, [])[:2])) or "."
                for cover in sorted({".", guard}):
                    order = Order("paradrop", (lift, cover, at(base), at(xy)))
                    found["paradrop"].append(Candidate(a, order))
    for name, items in found.items():
        if len(items) > MAX_CANDIDATES:
            found[name] = rng.sample(items, MAX_CANDIDATES)
    return found


@dataclass
class Asked:
    """What a probe was asked: each question's kind and numbers."""

    prompts: list[Prompt] = field(default_factory=list)

    def ask(self, prompt: Prompt) -> str | None:
        self.prompts.append(prompt)
        if prompt.kind in ("mil", "move_in_mil"):
            return str(prompt.most or 0)
        if prompt.kind in ("unit", "move_in_unit") or prompt.kind.confirms:
            return "y"
        return None


def plans_for(world: World, wname: str, c: Candidate, seed: int) -> list[Plan]:
    """The plans of one candidate order: everything its questions offer, and a smaller
    force (half the mil, at most one unit); none if the order is refused."""
    probe = Asked()
    result = run_command(world.copy(), c.order, country=c.country, seed=seed, prompter=probe)
    if result.outcome in ("refused", "usage"):
        return []
    name = world.nations[c.country].name
    mil = [p for p in probe.prompts if p.kind == "mil"]
    units = [p.uid for p in probe.prompts if p.kind == "unit"]
    moved = any(p.kind.startswith("move_in") for p in probe.prompts)
    out: list[Plan] = []
    for full in (True, False):
        words = [c.order.text()]
        total = 0
        for p in mil:
            most = p.most or 0
            n = most if full else max(1, most // 2)
            total += n
            key = "ship" if p.ship is not None or p.at is None else world.fmt(p.at, c.country)
            words.append(f"--mil {key}={n}")
        chosen = units if full else units[:1]
        words += [f"--unit {u}" for u in chosen]
        answers = []
        if units and not chosen:
            answers.append("--no-units")
        if c.order.name == "attack":
            answers.append(f"--move-in {max(total, 1)}")  # all who are left (it is capped)
        elif moved:
            answers.append("--no-move-in-units")
        plan = Plan("", wname, name, " ".join(words), " ".join(answers), seed)
        if not full and (plan.command, plan.answers) == (out[0].command, out[0].answers):
            break
        out.append(plan)
    return out


class _MoveInAll(PlanPrompter):
    """A plan's answers, and every unit that may move in after a victory does."""

    def ask(self, prompt: Prompt) -> str | None:
        if prompt.kind == "move_in_unit":
            self.asked.append(prompt)
            return "y"
        return super().ask(prompt)


def evaluate(world: World, plan: Plan) -> Plan | None:
    """``plan`` run by bellum with its seed: its outcome and kinds, or ``None`` if it is
    refused or leaves a question unanswered.  An attack's units that are asked to move
    in after a victory do (``--move-in-unit``, so that interdiction fires at them);
    when none is asked, none would (``--no-move-in-units``)."""
    try:
        if plan.name == "attack":
            order, cnum, named = plan_order(world, plan)
            probe = _MoveInAll(named)
            run_command(world.copy(), order, country=cnum, seed=plan.seed, prompter=probe)
            moving = [f"--move-in-unit {p.uid}" for p in probe.asked if p.kind == "move_in_unit"]
            plan.answers = " ".join([plan.answers, *(moving or ["--no-move-in-units"])])
        result = run_plan(world, plan)
    except Unanswered:
        return None
    if result.outcome in ("refused", "usage"):
        return None
    if result.outcome == "aborted" and not (set(support_kinds(result)) - {"morale"}):
        return None  # no force to send, or it stopped before anything happened
    plan.outcome = result.outcome
    plan.target = target_of(world, plan)
    plan.kinds = support_kinds(result)
    plan.support = support_values(result.transcript())
    return plan


def target_of(world: World, plan: Plan) -> str:
    """What ``plan`` fights: the target sector's type, ``ship`` or ``land unit``."""
    order, cnum, _ = plan_order(world, plan)
    if order.name in ("board", "lboard"):
        return "ship" if order.name == "board" else "land unit"
    where = order.args[3] if order.name == "paradrop" else order.args[0]
    xy = world.geometry.parse(where, world.origin(cnum))
    return world.sectors[xy].type.name


#: Targets worth a plan of their own (the odds of an attack on a fortress, a capital).
TARGETS = ("fortress", "capital")


def features(plan: Plan) -> set[str]:
    """What :func:`choose` covers: the kinds of support, a target of :data:`TARGETS`,
    and escorts on a paradrop."""
    found = set(plan.kinds)
    if plan.target in TARGETS:
        found.add(f"target {plan.target}")
    if plan.name == "paradrop" and shlex.split(plan.command)[2] != ".":
        found.add("escorted")
    return found


def choose(plans: Sequence[Plan], most: int = MAX_PLANS) -> list[Plan]:
    """The fewest plans that show every :func:`features` these plans show (greedily, at
    most ``most``), preferring plans that come to a fight (captured or defeated) to
    those that end before it; at least one plan that fights when any does."""

    def fights(p: Plan) -> bool:
        return p.outcome in ("captured", "defeated")

    left = set().union(*(features(p) for p in plans)) if plans else set()
    chosen: list[Plan] = []
    while left and len(chosen) < most:
        best = max(plans, key=lambda p: (len(left & features(p)), fights(p), -plans.index(p)))
        if not left & features(best):
            break
        chosen.append(best)
        left -= features(best)
    fought = [p for p in plans if fights(p)]
    if fought and not any(fights(p) for p in chosen):
        chosen.append(fought[0])
    if not chosen and plans:
        chosen.append(plans[0])
    return chosen


def find_plans(world: World, wname: str, seed: int, rng: random.Random) -> dict[str, list[Plan]]:
    """Per command, the plans kept for ``world`` (see the module notes, step 3)."""
    kept: dict[str, list[Plan]] = {}
    for name, items in candidates(world, rng).items():
        tried = []
        for c in items:
            for plan in plans_for(world, wname, c, seed):
                done = evaluate(world, plan)
                if done is not None:
                    tried.append(done)
        kept[name] = choose(tried)
    return kept


# -- the server's word ----------------------------------------------------------------


@contextlib.contextmanager
def snapshot_game(game: EmpireGame) -> Iterator[Path]:
    """A copy of the game's data (the server stopped meanwhile), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="bellum-snapshot-"))
    try:
        game.snapshot(folder / "data")
        yield folder / "data"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class _LivePrompter:
    """Answers the server's questions with a plan's named answers, read on the account's
    own view of the game (its coordinates), as ``--live`` does."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.named: NamedAnswers | None = None

    def bind(self, view: World) -> None:
        self.named = plan_order(view, self.plan)[2]

    def ask(self, prompt: Prompt) -> str | None:
        assert self.named is not None
        return self.named.ask(prompt)


def plan_text(plan: Plan) -> str:
    """The order of ``plan`` as typed on the server."""
    words = shlex.split(plan.command)[: 1 + _positional_count(plan.command)]
    return " ".join(words)


# -- making the worlds ----------------------------------------------------------------


def make_world(
    spec: WorldSpec, out: Path, *, check: bool = True, install: Path | None = None
) -> tuple[Midgame, list[Plan]]:
    """Make, sync, dump and plan one world (see the module notes)."""
    started = time.monotonic()
    game = EmpireGame(install or empire_install(), {"WORLD_X": spec.width, "WORLD_Y": spec.height})
    try:
        made = make_midgame(
            game,
            spec.seed,
            Mix(),
            countries=spec.countries,
            progress=lambda line: log(f"[{spec.name}] {line}"),
        )
        dump = out / f"{spec.name}.xdump"
        with tempfile.TemporaryDirectory(prefix="bellum-sync-") as scratch:
            db = Path(scratch) / "world.db"
            with game.session(DEITY, DEITY_PASSWORD) as session:
                synced = sync(session, db)
            log(f"[{spec.name}] {synced.summary()}")
            store = Store.open(db)
            try:
                text = world_to_dump(store.world(), store.dump())
            finally:
                store.close()
        dump.write_text(text, encoding="ascii")
        log(f"[{spec.name}] dump {dump.name}: {len(text) // 1024} KB")
        world = load_world(dump)
        with snapshot_game(game) as snap:
            seed = server_seed(game, snap, made)
            rng = random.Random(spec.seed)
            kept = find_plans(world, spec.name, seed, rng)
            plans = [p for name in COMMANDS for p in kept.get(name, [])]
            for name in COMMANDS:
                for i, p in enumerate(kept.get(name, []), 1):
                    p.id = f"{spec.name}-{name}-{i}"
            log(
                f"[{spec.name}] {len(plans)} plans: "
                + ", ".join(f"{n} {len(kept.get(n, []))}" for n in COMMANDS)
            )
            if check:
                for i, plan in enumerate(plans, 1):
                    log(f"[{spec.name}] server {i}/{len(plans)}: {plan.command}")
                    verify(game, snap, made, world, plan)
    finally:
        game.stop()
    log(f"[{spec.name}] done in {time.monotonic() - started:.0f} s")
    return made, plans


def server_seed(game: EmpireGame, snapshot: Path, made: Midgame) -> int:
    """The seed a plan played through ``play`` with a checking deity runs with on the
    game started afresh: the commands of the two syncs before it, plus one."""
    game.restore(snapshot)
    first = made.countries[0]
    with (
        tempfile.TemporaryDirectory(prefix="bellum-seed-") as scratch,
        game.session(first.name, first.password) as me,
        game.session(DEITY, DEITY_PASSWORD) as god,
    ):
        from bellum.client.live import LiveGame, read_world
        from bellum.client.xdump import XdumpReader

        LiveGame(me, Path(scratch) / "w.db")
        read_world(XdumpReader(god))
        return game.seeds.next_seed


def verify(game: EmpireGame, snapshot: Path, made: Midgame, world: World, plan: Plan) -> None:
    """Play ``plan`` on the server and record whether bellum agrees (``plan.server``)."""
    game.restore(snapshot)
    country = made.country(plan.country)
    live = _LivePrompter(plan)
    with (
        tempfile.TemporaryDirectory(prefix="bellum-plan-") as scratch,
        game.session(country.name, country.password) as me,
        game.session(DEITY, DEITY_PASSWORD) as god,
    ):
        from bellum.client.live import LiveGame

        db = Path(scratch) / "w.db"
        live_game = LiveGame(me, db)
        live.bind(live_game.world)
        done = live_game.play(plan_text(plan), prompter=live, check=god)
    server_text = plan.transcript = done.transcript.text()
    seed = done.transcript.seed
    problems = []
    if seed != plan.seed:
        problems.append(f"the server ran it with seed {seed}, not {plan.seed}")
    local = run_plan(world, plan, seed=seed).transcript() if seed is not None else ""
    if local != server_text:
        problems.append("bellum on the committed dump differs from the server")
    check = done.check
    if check is None:
        problems.append("the deity's check did not run")
    elif not check.same:
        problems += check.differences
    if problems:
        plan.server = "; ".join(problems)[:300]
        log(f"  the server differs: {plan.server}")
        log("  server:\n" + _indent(server_text) + "  bellum:\n" + _indent(local))
    else:
        plan.server = "same"


def _indent(text: str) -> str:
    return "".join(f"    {line!r}\n" for line in text.splitlines())


def world_entry(spec: WorldSpec, made: Midgame) -> dict[str, Any]:
    """A world's ``[[world]]`` table in ``plans.toml``."""
    return {
        "name": spec.name,
        "dump": f"{spec.name}.xdump",
        "size": f"{spec.width}x{spec.height}",
        "seed": spec.seed,
        "countries": [
            {"cnum": c.cnum, "name": c.name, "password": c.password} for c in made.countries
        ],
        "wars": [list(w) for w in made.wars],
        "alliances": [list(a) for a in made.alliances],
        "deity_commands": len(made.commands),
    }


def write_plans(out: Path, worlds: list[dict[str, Any]], plans: list[Plan]) -> Path:
    """``plans.toml`` and ``transcripts.toml`` in ``out``, worlds in :data:`WORLDS` order."""
    order = {s.name: i for i, s in enumerate(WORLDS)}
    worlds = sorted(worlds, key=lambda w: order.get(w["name"], len(order)))
    rank = {w["name"]: i for i, w in enumerate(worlds)}
    plans = sorted(plans, key=lambda p: rank[p.world])  # stable: commands keep their order
    doc = {
        "about": (
            "Realistic worlds made by the Empire 4.4.1 server (tools/realistic.py);"
            " format: benchmarks/worlds/README.md"
        ),
        "world": worlds,
        "plan": [p.to_toml() for p in plans],
    }
    path = out / PLANS
    path.write_text(tomli_w.dumps(doc))
    texts = {p.id: p.transcript for p in plans if p.transcript}
    (out / TRANSCRIPTS).write_text(tomli_w.dumps(texts, multiline_strings=True))
    return path


def write_example(path: Path, out: Path, name: str = EXAMPLE_WORLD) -> None:
    """World ``name`` of the plans in ``out`` as a world file for users, with a header
    that says how it was made and shows its attack that shows the most kinds of support."""
    worlds, plans = load_plans(out / PLANS)
    doc = worlds[name]
    agreed = [p for p in plans if p.world == name and p.name == "attack" and p.server == "same"]
    best = max(agreed, key=lambda p: (len(p.kinds), -agreed.index(p)))
    country = {c["cnum"]: c["name"] for c in doc["countries"]}
    wars = ", ".join(f"{country[a]}-{country[b]}" for a, b in doc["wars"])
    about = (
        f"A realistic mid-game, made by the Empire 4.4.1 server itself: its fairland drew"
        f" this {doc['size']} map (continents, islands, mountains), newcap started"
        f" {', '.join(country.values())}, and {doc['deity_commands']} deity commands"
        f" (tools/midgame.py, seed {doc['seed']}) set it up: wars ({wars}), forts with guns"
        " and shells, harbours with warships and loaded transports, fortified and reserve"
        " units, artillery, planes on support, interdiction and air-defense missions,"
        " transports for paradrops, mil and mines on the frontiers. Then synced as the"
        f" deity with bellum's own sync: it is benchmarks/worlds/{doc['dump']} as a world"
        " file. Made again by: python tools/realistic.py --out benchmarks/worlds;"
        " benchmarks/worlds/README.md lists more plans on it, each checked on the server."
    )
    fight = f"{best.country} attacks; {', '.join(best.kinds)} take part, as on the server:"
    order = plan_text(best)
    command = (
        f"bellum empire {order} --world examples/empire/{path.name} --as {best.country}"
        f" {best.command[len(order) :].strip()} {best.answers} --seed {best.seed} --out after.toml"
    )
    lines = [*_wrap(about), "", *_wrap(fight), "", "  " + command]
    header = "".join(f"# {line}".rstrip() + "\n" for line in lines)
    path.write_text(header + dumps(world_to_data(load_world(out / doc["dump"]))))


def same_world(new: Path, old: Path) -> bool:
    """Whether dump ``new`` holds the world ``old`` already holds: a world made again
    keeps its file, whose only difference is the server's timestamps."""
    if new.suffix != ".xdump" or not old.exists():
        return False
    return world_rows(load_world(new)) == world_rows(load_world(old))


def _wrap(text: str) -> list[str]:
    return textwrap.wrap(text, 86, break_on_hyphens=False)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, help=f"folder to write to (default: {DEFAULT_OUT.relative_to(ROOT)})"
    )
    parser.add_argument(
        "--only", action="append", metavar="NAME", help="make only this world (repeatable)"
    )
    parser.add_argument(
        "--world",
        action="append",
        metavar="NAME:WxH:SEED[:N]",
        help="make this world (N countries) instead of the benchmark ones (repeatable)",
    )
    parser.add_argument(
        "--no-check", action="store_true", help="do not play the plans on the server"
    )
    parser.add_argument(
        "--example",
        type=Path,
        default=EXAMPLE,
        help=f"where to write {EXAMPLE_WORLD} as a world file (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    try:
        own = [WorldSpec.parse(text) for text in args.world or ()]
    except ValueError as exc:
        parser.error(f"--world: {exc}")
    if own and args.only:
        parser.error("give --world or --only, not both")
    if own and args.out is None:
        parser.error(f"--world: give --out for your own worlds ({DEFAULT_OUT} is the benchmarks')")
    args.out = args.out or DEFAULT_OUT
    specs = own or [s for s in WORLDS if not args.only or s.name in args.only]
    unknown = set(args.only or ()) - {s.name for s in WORLDS}
    if unknown:
        parser.error(
            f"no world {', '.join(sorted(unknown))}; worlds: {', '.join(s.name for s in WORLDS)}"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bellum-worlds-") as scratch:
        new = Path(scratch)
        try:
            install = empire_install()
            worlds, plans = [], []
            for spec in specs:
                made, found = make_world(spec, new, check=not args.no_check, install=install)
                worlds.append(world_entry(spec, made))
                plans += found
        except ServerError as exc:
            print(f"realistic: {str(exc).rstrip()}; nothing was written", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("realistic: interrupted; nothing was written", file=sys.stderr)
            return 130
        # The worlds not made again this time stay as they were.
        if (args.out / PLANS).exists():
            old_worlds, old_plans = load_plans(args.out / PLANS)
            made_now = {w["name"] for w in worlds}
            worlds += [w for name, w in old_worlds.items() if name not in made_now]
            plans += [p for p in old_plans if p.world not in made_now]
        write_plans(new, worlds, plans)
        for f in sorted(new.iterdir()):
            if not same_world(f, args.out / f.name):
                shutil.move(f, args.out / f.name)
    if EXAMPLE_WORLD in {s.name for s in specs} and not args.no_check:
        write_example(args.example, args.out)
        log(f"wrote {args.example}")
    bad = [p for p in plans if p.server not in ("same", "unchecked")]
    log(
        f"wrote {args.out / PLANS}: {len(plans)} plans,"
        f" {len(bad)} where bellum differs from the server"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
