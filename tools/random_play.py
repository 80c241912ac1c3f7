"""Random play on the real 4.4.1 server: random orders, random answers, every one checked.

    .venv/bin/python tools/random_play.py [--seed S] [--orders N] [--soak N] [--out DIR]

For each world: the server's ``fairland`` draws a map of a random size and
:func:`midgame.make_midgame` sets up a war on it with a random :class:`midgame.Mix`
(forts, units with missions, ships with cargo, planes with missions, relations).
Then the countries play random orders of the five combat commands, legal and
illegal (:class:`OrderMaker`), answering every question at random
(:class:`RandomAnswers`: numbers over the maximum, zero, non-numbers, ``?``,
aborts, end of input).  Each order is checked twice:

* with ``--live --check``: the order is played on the server as its country while
  the deity reads the whole game, and bellum resolves it on that world with the
  server's seed and the player's answers (``LiveGame.play(check=...)``; one order in
  ``--cli-every`` goes through the ``bellum`` command line itself, answers piped);
* against bellum's local resolution of the synced world: the deity's sync just before
  the order, stored in a world database and read back, runs the order by bellum's
  rules (``bellum.empire.run_command``, or ``bellum empire ... --db`` for the orders
  played through the command line).

Any difference is a failure: the order, its answers, its seed and both transcripts go
to ``DIR/differences/``.  One difference is known and counted apart: where the server
draws the country's own map around a flight path it asks for, bellum draws blanks
(docs/fidelity.md); such an order matches if every other byte does.  The match rate
per command is printed as a Markdown table (``docs/fidelity.md`` publishes one).
``--soak N`` plays N orders over as many worlds as it takes (``--orders`` per world).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path

from empire_server import DEITY, DEITY_PASSWORD, EmpireGame, empire_install
from midgame import Midgame, Mix, make_midgame

from bellum.client.live import LiveGame, compare, sync
from bellum.client.session import Session
from bellum.empire import run_command
from bellum.empire.events import Prompt, PromptKind
from bellum.empire.geometry import Coord
from bellum.empire.io.sqlite.store import Store
from bellum.empire.orders import Order
from bellum.empire.world import World
from bellum.errors import BellumError

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("attack", "assault", "board", "lboard", "paradrop")
#: World sizes drawn from (fairland needs room for its continents).
SIZES = ((32, 16), (40, 20), (48, 24), (56, 28), (64, 32))
#: Answers that are not numbers, to a question that wants one.
JUNK = ("abc", "?", "q", "", " ", "-1", "1x", "x1", "0x10", "1.5", "²", "99999999999", "y", "n")


# -- answers ---------------------------------------------------------------------------


@dataclass
class RandomAnswers:
    """Answers every question at random; ``None`` (end of input) now and then."""

    rng: random.Random
    eof: float = 0.04

    def ask(self, prompt: Prompt) -> str | None:
        rng = self.rng
        if rng.random() < self.eof:
            return None
        kind = prompt.kind
        if kind in (PromptKind.MIL, PromptKind.MOVE_IN_MIL):
            most = prompt.most or 0
            return rng.choice(
                [
                    str(most),
                    str(rng.randint(1, max(1, most))),
                    str(rng.randint(1, max(1, most))),
                    str(most + rng.randint(1, 500)),
                    "0",
                    rng.choice(JUNK),
                ]
            )
        if kind in (PromptKind.UNIT, PromptKind.MOVE_IN_UNIT):
            return rng.choice(["y", "y", "n", "Y", "N", "q", "?", "", "yes", "x"])
        if kind in (PromptKind.ABORT, PromptKind.ALLY, PromptKind.SNEAK):
            return rng.choice(["y", "y", "n", "", "Y", "x"])
        if kind is PromptKind.ARGUMENT:
            return rng.choice(["", "0", "1", "0,0", "x", "*", ".", "jh"])
        return rng.choice(["", "h", "jh", "yh", "bn", "x", "j", "q"])  # a flight path


def piped_answers(rng: random.Random) -> list[str]:
    """Answers for an order played through the command line, decided before any
    question is asked (standard input ends after them)."""
    words = ["y", "n", "Y", "N", "q", "?", "", "0", "1", "5", "20", "50", "100", "999", "abc"]
    return [rng.choice(words) for _ in range(rng.randint(0, 8))]


# -- orders ----------------------------------------------------------------------------


@dataclass
class OrderMaker:
    """Random orders of country ``cnum`` on the deity's ``world``: mostly aimed at what
    the country could fight (a neighbouring enemy, a ship alongside, its own transports),
    often at what it cannot (its own sector, the sea, another country's ship, junk),
    with arguments left out now and then for the server to ask."""

    rng: random.Random
    world: World
    cnum: int

    def at(self, xy: Coord) -> str:
        return self.world.fmt(xy, self.cnum)

    def junk(self, conditions: bool = True) -> str:
        """A word the command cannot use; ``?...`` is the server's condition syntax, which
        bellum does not evaluate on a paradrop's planes (docs/fidelity.md)."""
        words = ["", "x", "-1", "999", "1,1,1", "99999,0", "*", "0/", "²", "?", "?x=1"]
        return self.rng.choice(words if conditions else words[:-2])

    def any_sector(self) -> str:
        w = self.world
        return self.at(self.rng.choice(sorted(w.sectors)))

    def mine(self, xy: Coord) -> bool:
        return self.world.sector(xy).owner == self.cnum

    def make(self, command: str) -> Order:
        words = getattr(self, f"_{command}")()
        if self.rng.random() < 0.08:  # leave the last ones out: the server asks
            words = words[: self.rng.randrange(len(words) + 1)]
        return Order(command, tuple(words))

    def _pick(self, good: list[str], bad: Callable[[], str]) -> str:
        if good and self.rng.random() < 0.8:
            return self.rng.choice(good)
        return bad()

    def _attack(self) -> list[str]:
        w, rng = self.world, self.rng
        targets = sorted(
            {
                n
                for xy, s in w.sectors.items()
                if s.owner == self.cnum
                for n in w.geometry.neighbours(xy)
                if not self.mine(n) and w.sector(n).type.name != "sea"
            }
        )
        mine = [xy for xy, s in w.sectors.items() if s.owner == self.cnum]
        target = self._pick(
            [self.at(t) for t in targets],
            lambda: rng.choice(
                [self.any_sector(), self.at(rng.choice(mine)) if mine else "0,0", self.junk()]
            ),
        )
        support = [rng.choice("yn") for _ in range(4)] if rng.random() < 0.2 else []
        return [target, *support]

    def _assault(self) -> list[str]:
        w, rng = self.world, self.rng
        ships = [sh for sh in w.ships.values() if sh.owner == self.cnum]
        if not ships or rng.random() < 0.1:
            return [self.any_sector(), str(rng.choice([*w.ships, 0, 9999]))]
        ship = rng.choice(ships)
        coast = [n for n in w.geometry.neighbours(ship.xy) if w.sector(n).type.name != "sea"]
        target = self._pick([self.at(n) for n in coast], self.any_sector)
        return [target, str(ship.uid) if rng.random() < 0.9 else self.junk()]

    def _board(self) -> list[str]:
        w, rng = self.world, self.rng
        mine = [sh for sh in w.ships.values() if sh.owner == self.cnum]
        near: list[tuple[int, str]] = []
        for sh in w.ships.values():
            if sh.owner == self.cnum:
                continue
            for own in mine:
                if own.xy == sh.xy:
                    near.append((sh.uid, str(own.uid)))
            for n in [sh.xy, *w.geometry.neighbours(sh.xy)]:
                if w.sector(n).owner == self.cnum:
                    near.append((sh.uid, self.at(n)))
        if near and rng.random() < 0.8:
            uid, source = rng.choice(near)
            return [str(uid), source]
        victim = str(rng.choice([*w.ships, 0, 9999])) if w.ships else self.junk()
        source = str(rng.choice(mine).uid) if mine and rng.random() < 0.5 else self.any_sector()
        return [victim, source]

    def _lboard(self) -> list[str]:
        w, rng = self.world, self.rng
        near = [
            (u.uid, self.at(u.xy))
            for u in w.units.values()
            if u.owner != self.cnum and u.ship is None and self.mine(u.xy)
        ]
        if near and rng.random() < 0.8:
            uid, source = rng.choice(near)
            return [str(uid), source]
        victim = str(rng.choice([*w.units, 0, 9999])) if w.units else self.junk()
        return [victim, self.any_sector()]

    def _paradrop(self) -> list[str]:
        w, rng = self.world, self.rng
        planes = [p for p in w.planes.values() if p.owner == self.cnum]
        transports = [p for p in planes if p.type.has("para")]
        fighters = [p for p in planes if p.type.has("intercept") or p.type.has("escort")]
        if not transports or rng.random() < 0.1:
            some = [str(p.uid) for p in planes[:3]] or [self.junk(conditions=False)]
            return ["/".join(some), ".", self.any_sector(), self.any_sector()]
        base = rng.choice(transports).xy
        here = [p for p in transports if p.xy == base]
        chosen = rng.sample(here, rng.randint(1, len(here)))
        plane_list = "/".join(str(p.uid) for p in chosen)
        if rng.random() < 0.15:
            plane_list = rng.choice(["*", self.at(base), self.junk(conditions=False)])
        escorts = "."
        guards = [p for p in fighters if p.xy == base]
        if guards and rng.random() < 0.4:
            escorts = "/".join(str(p.uid) for p in rng.sample(guards, rng.randint(1, len(guards))))
        near = sorted(
            xy
            for xy, s in w.sectors.items()
            if s.owner != self.cnum and w.geometry.mapdist(xy, base) <= 4
        )
        route = self._pick([self.at(t) for t in near], lambda: rng.choice(["jj", "jjh", "yu", "x"]))
        if rng.random() < 0.1:  # a path without h: the server shows the map and asks
            route = rng.choice(["j", "jj", "u", "b"])
        return [plane_list, escorts, self.at(base), route]


# -- one world -------------------------------------------------------------------------


@dataclass
class Played:
    """One order and how it compared."""

    world: str
    number: int
    country: str
    order: str
    answers: list[str | None]
    seed: int | None
    via: str  # "library" or "command line"
    check: bool  # --live --check: bellum on the deity's world matched the server
    synced: bool  # bellum on the synced world database matched the server
    differences: list[str] = field(default_factory=list)
    #: Only the map around an asked-for flight path differs (bellum draws blanks).
    map_only: bool = False
    #: The server's transcript has a fight's casualties (not a refusal or an abort).
    fought: bool = False

    @property
    def same(self) -> bool:
        return self.check and self.synced

    @property
    def matches(self) -> bool:
        """Same, or different only in the known way (:attr:`map_only`)."""
        return self.same or self.map_only

    @property
    def command(self) -> str:
        return self.order.split()[0]


@dataclass
class Player:
    """Plays random orders on one game and checks them."""

    game: EmpireGame
    made: Midgame
    name: str
    rng: random.Random
    folder: Path
    cli_every: int = 10
    log: Callable[[str], None] = print
    played: list[Played] = field(default_factory=list)
    _god: Session | None = None
    _games: dict[str, LiveGame] = field(default_factory=dict)

    @property
    def deity_db(self) -> Path:
        return self.folder / "deity.db"

    def deity(self) -> Session:
        """The deity's session, open from one order to the next."""
        if self._god is None:
            self._god = self.game.session(DEITY, DEITY_PASSWORD)
        return self._god

    def live(self, name: str, password: str) -> LiveGame:
        """The country's live game (its session and world database), kept open."""
        if name not in self._games:
            me = self.game.session(name, password)
            self._games[name] = LiveGame(me, self.folder / f"{name}.db")
        return self._games[name]

    def close(self) -> None:
        """Log every session out (the command line logs in as the same countries)."""
        for game in self._games.values():
            game.session.close()
        self._games.clear()
        if self._god is not None:
            self._god.close()
            self._god = None

    def play(self, count: int) -> None:
        try:
            for _ in range(count):
                self.one()
        finally:
            self.close()

    def one(self) -> Played:
        rng = self.rng
        country = rng.choice(self.made.countries)
        number = len(self.played) + 1
        by_cli = bool(self.cli_every) and number % self.cli_every == 0
        # The country is logged in before the deity reads the world, as it is on the
        # server when it plays: a login announces the telegrams that came in meanwhile.
        if by_cli:
            self.close()
            self.game.session(country.name, country.password).close()
        else:
            self.live(country.name, country.password)
        world = sync(self.deity(), self.deity_db).world
        order = OrderMaker(rng, world, country.cnum).make(rng.choice(COMMANDS))
        if by_cli:
            done = self._by_command_line(country.name, country.password, order, number)
        else:
            done = self._by_library(country.name, country.password, order, number)
        self.played.append(done)
        if not done.same:
            self._save(done)
        mark = "same" if done.same else "map only" if done.map_only else "DIFFERS"
        self.log(f"[{self.name}] {number} {country.name}: {order} {done.answers} -> {mark}")
        return done

    def _by_library(self, name: str, password: str, order: Order, number: int) -> Played:
        game = self.live(name, password)
        done = game.play(order, prompter=RandomAnswers(self.rng), check=self.deity())
        server = done.transcript.text()
        seed = done.transcript.seed
        assert done.check is not None
        local = self._synced(order, name, seed, done.transcript.answers)
        problems = [f"synced world: {d}" for d in compare(server, local)]
        return Played(
            self.name, number, name, order.text(), done.transcript.answers, seed, "library",
            done.check.same, not problems, [*done.check.differences, *problems],
            not (done.check.same and not problems)
            and all(t == server or map_only(server, t) for t in (done.check.transcript, local)),
            "- Casualties -" in server,
        )  # fmt: skip

    def _synced(self, order: Order, name: str, seed: int | None, answers: list[str | None]) -> str:
        """bellum's resolution on the synced world database."""
        if seed is None:
            return "the server's seed is unknown\n"
        store = Store.open(self.deity_db)
        try:
            world = store.world()
        finally:
            store.close()
        cnum = self.made.country(name).cnum
        try:
            return run_command(world, order, country=cnum, seed=seed, answers=answers).transcript()
        except BellumError as exc:
            return f"bellum cannot resolve it: {exc}\n"

    def _by_command_line(self, name: str, password: str, order: Order, number: int) -> Played:
        self.close()
        answers = piped_answers(self.rng)
        stdin = "".join(a + "\n" for a in answers)
        env = {
            **os.environ,
            "BELLUM_PASSWORD": password,
            "BELLUM_DEITY_PASSWORD": DEITY_PASSWORD,
        }
        args = [*order.args]
        base = [sys.executable, "-m", "bellum", "empire", order.name, *args, "--as", name]
        live = subprocess.run(
            [*base, "--live", self.game.address, "--check", "--json",
             "--db", str(self.folder / f"{name}.db")],
            input=stdin, capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip
        try:
            doc = json.loads(live.stdout)
        except json.JSONDecodeError:
            raise RuntimeError(f"bellum {order} --live failed:\n{live.stderr}") from None
        self.game.seeds.commands = doc["commands_run"]  # --check set the count to 0
        seed, server = doc["seed"], doc["transcript"]
        # On a copy: the command line writes the order into its database, and the synced
        # world must stay as it was before the order (``_save`` resolves it again there).
        scratch = self.folder / "local.db"
        scratch.unlink(missing_ok=True)
        with (
            closing(sqlite3.connect(self.deity_db)) as src,
            closing(sqlite3.connect(scratch)) as dst,
        ):
            src.backup(dst)
        local = subprocess.run(
            [*base, "--db", str(scratch), "--seed", str(seed)],
            input=stdin, capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip
        problems = [f"synced world: {d}" for d in compare(server, local.stdout)]
        # The check's own transcript is not in the document: it is the same, or its
        # differences are those of the synced world, which differ in the map only.
        known = map_only(server, local.stdout) and (
            doc["check"]["same"]
            or [f"synced world: {d}" for d in doc["check"]["differences"]] == problems
        )
        return Played(
            self.name, number, name, order.text(), doc["answers"], seed, "command line",
            doc["check"]["same"], not problems, [*doc["check"]["differences"], *problems],
            known, "- Casualties -" in server,
        )  # fmt: skip

    def _save(self, done: Played) -> None:
        where = self.folder / "differences" / f"{done.world}-{done.number:04d}-{done.command}"
        where.mkdir(parents=True, exist_ok=True)
        (where / "order.json").write_text(json.dumps(asdict(done), indent=2) + "\n")
        store = Store.open(self.folder / f"{done.country}.db")
        try:
            last = store.history()[-1]
            (where / "server.txt").write_text(store.command(last.id).transcript)
            check = store.command(last.id).result.get("check") or {}
            (where / "check.json").write_text(json.dumps(check, indent=2) + "\n")
        finally:
            store.close()
        store = Store.open(self.deity_db)
        try:
            world = store.world()
        finally:
            store.close()
        cnum = self.made.country(done.country).cnum
        if done.seed is not None:
            try:
                local = run_command(
                    world,
                    Order.parse(done.order),
                    country=cnum,
                    seed=done.seed,
                    answers=done.answers,
                ).transcript()
            except BellumError as exc:
                local = f"bellum cannot resolve it: {exc}\n"
            (where / "bellum.txt").write_text(local)
        subprocess.run(
            [sys.executable, "-m", "bellum", "empire", "world", "export", "--db",
             str(self.deity_db), "--out", str(where / "world.xdump")],
            capture_output=True, check=False,
        )  # fmt: skip
        self.log(f"  differences saved in {where}")


def map_only(server: str, local: str) -> bool:
    """Whether two transcripts differ only where bellum draws blanks for the map the
    server draws from the country's own map, around a flight path it asks for."""
    a, b = server.split("\n"), local.split("\n")
    if server == local or len(a) != len(b):
        return False
    return all(x == y or (len(x) == len(y) and not y.strip(" ")) for x, y in zip(a, b, strict=True))


def play_world(
    seed: int,
    orders: int,
    out: Path,
    *,
    size: tuple[int, int] | None = None,
    cli_every: int = 10,
    log: Callable[[str], None] = print,
    install: Path | None = None,
) -> list[Played]:
    """Make a random mid-game from ``seed`` and play ``orders`` random orders on it."""
    rng = random.Random(seed)
    width, height = size or rng.choice(SIZES)
    mix = Mix.random(rng)
    name = f"s{seed}-{width}x{height}"
    game = EmpireGame(install or empire_install(), {"WORLD_X": width, "WORLD_Y": height})
    try:
        start = time.monotonic()
        made = make_midgame(game, seed, mix, progress=lambda line: log(f"[{name}] {line}"))
        log(f"[{name}] set up in {time.monotonic() - start:.0f} s")
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        player = Player(game, made, name, rng, folder, cli_every, log)
        player.play(orders)
        return player.played
    finally:
        game.stop()


def match_table(played: list[Played]) -> str:
    """The match rate per command, as Markdown: orders the same byte for byte, those
    that differ only in the path map (known), and the others."""
    rows = [
        "| command | orders | same | map only | differ | byte for byte | but the map |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in (*COMMANDS, "all"):
        mine = [p for p in played if name in ("all", p.command)]
        same = sum(p.same for p in mine)
        known = sum(p.map_only for p in mine)
        label = f"**{name}**" if name == "all" else f"`{name}`"
        rates = [f"{100 * k / len(mine):.1f} %" if mine else "-" for k in (same, same + known)]
        rows.append(
            f"| {label} | {len(mine)} | {same} | {known} | {len(mine) - same - known} |"
            f" {rates[0]} | {rates[1]} |"
        )
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="the first world's seed")
    parser.add_argument("--orders", type=int, default=100, help="orders per world")
    parser.add_argument("--soak", type=int, help="orders in all, over as many worlds")
    parser.add_argument("--cli-every", type=int, default=10, help="one order in N by the CLI")
    parser.add_argument("--out", type=Path, help="where differences go (default: a temp dir)")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="bellum-random-play-"))
    total = args.soak or args.orders
    played: list[Played] = []
    seed = args.seed
    start = time.monotonic()

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    while len(played) < total:
        n = min(args.orders, total - len(played))
        played += play_world(seed, n, out, cli_every=args.cli_every, log=log)
        seed += 1
    minutes = (time.monotonic() - start) / 60
    print(f"{len(played)} orders on {seed - args.seed} worlds in {minutes:.1f} min;"
          f" differences in {out / '*' / 'differences'}\n")  # fmt: skip
    print(match_table(played))
    return 0 if all(p.matches for p in played) else 1


if __name__ == "__main__":
    sys.exit(main())
