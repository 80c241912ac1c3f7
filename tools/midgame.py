"""A realistic Empire mid-game on the real 4.4.1 server: ``fairland``'s map, then deity commands.

Hand-written worlds are kind to the code that wrote them.  This module makes the
kind of world real games are played on and sets it up as a game in its middle,
deterministically from a seed:

1. the server's own ``fairland`` draws continents, islands and mountains
   (:func:`fairland_args` picks its arguments for the world's size);
2. its ``newcap`` script starts one country per continent, each with a name and a
   password that are known (:class:`Country`: players can log in);
3. :func:`plan_setup` reads the game as the deity and writes the deity commands of
   a mid-game: countries at war with their neighbours, each holding most of its
   continent, a share of the islands and a foothold on an enemy's coast; forts
   with guns and shells; harbours with warships, loaded troop transports (mil and
   marines aboard) and cargo ships; fortified and reserve land units with retreat
   percentages (their morale is checked), artillery, flak and interdiction units;
   airfields with planes on support, interdiction and air-defense missions and
   transports for paradrops; 20-300 mil on the frontiers and mines in front of them.

What is placed, and how much, is a :class:`Mix`; the seed draws where.  The
commands go through :class:`~empire_server.EmpireGame`, so the same set-up serves a
benchmark world (``tools/realistic.py``) and random play (a random seed and mix).

    game = EmpireGame(empire_install(), {"WORLD_X": 48, "WORLD_Y": 24})
    made = make_midgame(game, seed=1, mix=Mix())   # game.folder now holds the game
    ...                                            # the server is running
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from empire_server import DEITY, DEITY_PASSWORD, EmpireGame

from bellum.client.live import read_world
from bellum.client.xdump import XdumpReader
from bellum.empire.geometry import Coord, Geometry
from bellum.empire.tables import plane_range
from bellum.empire.world import World

#: Country names, in country-number order.
NAMES = (
    "Rome", "Carthage", "Sparta", "Athens", "Persia", "Egypt", "Gaul", "Troy",
    "Assyria", "Macedon", "Scythia", "Parthia",
)  # fmt: skip
#: The commodities the set-up gives, by the letter ``give`` takes.
ITEMS = {"c": "civ", "m": "mil", "f": "food", "s": "shell", "g": "gun", "p": "petrol"}
#: Keys the set-up changes in the server's default configuration: no news of the
#: deity's gifts (thousands of them would fill the news table).
ECONFIG: dict[str, str | int] = {"GODNEWS": 0}


@dataclass(frozen=True)
class Country:
    """A player's account: number, name and password (the name in lower case)."""

    cnum: int
    name: str

    @property
    def password(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class Mix:
    """What a set-up places.  Shares are of a country's frontier sectors (its sectors
    next to an enemy's land); counts are per country unless they say otherwise.

    The default is the benchmark worlds' mix; random play draws its own
    (:meth:`random`).
    """

    #: Share of its continent a country holds (the rest is unowned wilderness).
    owned: float = 0.85
    #: How many nearest countries each country is at war with.
    wars: int = 2
    #: Chance that two countries not at war are allies.
    alliance: float = 0.3
    #: Sectors a country holds on each enemy's coast that it is at war with (0: none).
    foothold: int = 4
    #: Nation tech level, drawn per country.
    tech: tuple[int, int] = (150, 250)
    fort_share: float = 0.35
    mined_share: float = 0.3
    mines: tuple[int, int] = (3, 40)
    frontier_mil: tuple[int, int] = (20, 300)
    interior_mil: tuple[int, int] = (5, 60)
    fort_guns: tuple[int, int] = (3, 14)
    harbours: int = 2
    airfields: int = 1
    #: Land units per frontier sector: fortified on the frontier, free to attack from
    #: it, on reserve missions behind it, and artillery within range of it.
    fortified_share: float = 0.3
    attacker_share: float = 0.4
    reserve_share: float = 0.2
    artillery_share: float = 0.2
    #: Land units of its enemies that a country has inside its frontier (spies and
    #: stragglers, the victims of ``lboard``).
    stragglers: int = 1
    retreat: tuple[int, int] = (20, 80)
    warships: int = 2
    transports: int = 1
    cargo_ships: int = 1
    support_planes: int = 3
    interceptors: int = 2
    interdiction_planes: int = 1
    paratroop_planes: int = 3
    #: Share of artillery units on interdiction missions.
    interdiction_share: float = 0.5

    @classmethod
    def random(cls, rng: random.Random) -> Mix:
        """A mix drawn around the default: each count from 0 to twice it, each share
        from 0 to twice it (at most 1), each range kept; at least one war each, and
        at least 30 % of a continent held."""
        base = cls()
        drawn: dict[str, Any] = {}
        for f in fields(cls):
            v = getattr(base, f.name)
            if isinstance(v, float):
                drawn[f.name] = min(1.0, rng.uniform(0, 2 * v))
            elif isinstance(v, int):
                drawn[f.name] = rng.randint(0, 2 * v)
        drawn["wars"] = max(1, drawn["wars"])
        drawn["owned"] = max(0.3, drawn["owned"])
        return replace(base, **drawn)


@dataclass
class Midgame:
    """A set-up: the countries, who is at war with whom, and every command it ran."""

    countries: list[Country]
    wars: list[tuple[int, int]]
    alliances: list[tuple[int, int]]
    #: The deity commands, in the order they ran.
    commands: list[str] = field(default_factory=list)

    def country(self, key: int | str) -> Country:
        for c in self.countries:
            if key in (c.cnum, c.name):
                return c
        raise KeyError(key)


def fairland_args(width: int, height: int, countries: int | None = None) -> tuple[int, ...]:
    """fairland's ``NC SC NI IS SP PM`` for a world of this size: about a quarter of
    it land, in one continent per country (``countries``, else 3 on 32x16, 4 on 48x24,
    8 from 96x48 up); as many islands, a quarter of a continent's size; 10 % spikes and
    5 % mountains."""
    sectors = width * height // 2
    continents = countries or max(2, min(8, round(math.sqrt(sectors) / 6)))
    size = max(12, sectors // 4 * 3 // 4 // continents)
    islands = continents
    return continents, size, islands, max(4, size // 4), 10, 5


def make_midgame(
    game: EmpireGame,
    seed: int,
    mix: Mix | None = None,
    *,
    countries: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Midgame:
    """Make ``game`` (not yet created) a mid-game: fairland, newcap, then the set-up;
    ``countries`` (at least 2, at most :data:`NAMES`) or as many as the size suggests
    (:func:`fairland_args`).

    Leaves the server running.  ``progress`` hears a line per stage.
    """
    say = progress or (lambda _line: None)
    mix = mix or Mix()
    for key, value in ECONFIG.items():
        game.econfig.setdefault(key, value)
    game.create()
    width, height = game.size
    if countries is not None and not 2 <= countries <= len(NAMES):
        raise ValueError(f"countries: from 2 to {len(NAMES)}, not {countries}")
    args = fairland_args(width, height, countries)
    say(f"fairland -R {seed} {' '.join(map(str, args))} on {width}x{height}")
    script = game.fairland(seed, *args)
    game.launch()
    players, start = newcap(script)
    game.deity(*start)
    world = deity_world(game)
    made = plan_setup(world, players, seed, mix)
    made.commands[:0] = start
    say(f"{len(players)} countries; {len(made.commands)} deity commands")
    game.deity(*made.commands[len(start) :])
    return made


def newcap(script: Sequence[str]) -> tuple[list[Country], list[str]]:
    """The countries of fairland's ``newcap_script`` with names of :data:`NAMES`, and
    the commands that add them (each ``add`` with the name and password, its
    ``newcap``); the script's visitor country is left out."""
    countries, out = [], []
    for line in script:
        words = line.split()
        if words[:1] == ["add"] and words[-1] == "p":
            cnum = int(words[1])
            c = Country(cnum, NAMES[(cnum - 1) % len(NAMES)])
            countries.append(c)
            out.append(f"add {cnum} {c.name} {c.password} p")
        elif words[:1] == ["newcap"]:
            out.append(line)
    return countries, out


def deity_world(game: EmpireGame) -> World:
    """The whole game as bellum reads it (the deity's ``xdump``)."""
    with game.session(DEITY, DEITY_PASSWORD) as session:
        return read_world(XdumpReader(session))[0]


# -- the set-up, from the map ---------------------------------------------------------


def components(geo: Geometry, cells: set[Coord]) -> list[list[Coord]]:
    """The connected pieces of ``cells``, each in breadth-first order from its least cell."""
    seen: set[Coord] = set()
    out = []
    for start in sorted(cells):
        if start not in seen:
            piece = bfs(geo, [start], cells)
            seen.update(piece)
            out.append(piece)
    return out


def bfs(geo: Geometry, starts: Iterable[Coord], inside: set[Coord]) -> list[Coord]:
    """The cells of ``inside`` reachable from ``starts``, nearest first."""
    order = [s for s in starts if s in inside]
    seen = set(order)
    queue = deque(order)
    while queue:
        here = queue.popleft()
        for n in geo.neighbours(here):
            if n in inside and n not in seen:
                seen.add(n)
                order.append(n)
                queue.append(n)
    return order


class _Setup:
    """The state of one :func:`plan_setup`: who owns what, and the commands so far."""

    def __init__(self, world: World, countries: list[Country], seed: int, mix: Mix) -> None:
        self.world = world
        self.geo = world.geometry
        self.rng = random.Random(seed)
        self.mix = mix
        self.countries = countries
        self.capital = {c.cnum: self._capital(c.cnum) for c in countries}
        self.land = {xy for xy, s in world.sectors.items() if not s.type.is_sea}
        self.owner: dict[Coord, int] = {}
        self.oldowner: dict[Coord, int] = {}
        self.enemies: dict[int, set[int]] = {c.cnum: set() for c in countries}
        self.cmds: list[str] = []
        self.next_uid = {"l": 0, "s": 0, "p": 0}
        self.tech: dict[int, int] = {}
        #: Every ship built: its owner, place and type.
        self.ships: dict[int, tuple[int, Coord, str]] = {}

    def _capital(self, cnum: int) -> Coord:
        cap = self.world.nations[cnum].capital
        assert cap is not None, f"country {cnum} has no capital after newcap"
        return cap

    def at(self, xy: Coord) -> str:
        return self.geo.fmt(xy, (0, 0))

    def dist(self, a: Coord, b: Coord) -> int:
        return self.geo.mapdist(a, b)

    def sea(self, xy: Coord) -> bool:
        return xy not in self.land

    def coastal(self, xy: Coord) -> bool:
        return any(self.sea(n) for n in self.geo.neighbours(xy))

    def mountain(self, xy: Coord) -> bool:
        return self.world.sectors[xy].type.is_mountain

    def draw(self, span: tuple[int, int]) -> int:
        return self.rng.randint(*span)

    def sectors_of(self, cnum: int) -> list[Coord]:
        return sorted(xy for xy, o in self.owner.items() if o == cnum)

    def frontier(self, cnum: int) -> list[Coord]:
        """``cnum``'s sectors next to land an enemy holds."""
        return [
            xy
            for xy in self.sectors_of(cnum)
            if any(self.owner.get(n) in self.enemies[cnum] for n in self.geo.neighbours(xy))
        ]

    def enemy_distance(self, cnum: int, xy: Coord) -> int:
        """How far ``xy`` is from the nearest sector an enemy of ``cnum`` holds."""
        foes = [s for s, o in self.owner.items() if o in self.enemies[cnum]]
        return min((self.dist(xy, s) for s in foes), default=99)

    # -- relations and territory --------------------------------------------------

    def relations(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """Each country at war with its ``mix.wars`` nearest; some others allied."""
        nums = [c.cnum for c in self.countries]
        wars: set[tuple[int, int]] = set()
        for a in nums:
            near = sorted(
                (b for b in nums if b != a),
                key=lambda b: (self.dist(self.capital[a], self.capital[b]), b),
            )
            for b in near[: self.mix.wars]:
                wars.add((min(a, b), max(a, b)))
        allies = [
            (a, b)
            for a in nums
            for b in nums
            if a < b and (a, b) not in wars and self.rng.random() < self.mix.alliance
        ]
        for a, b in wars:
            self.enemies[a].add(b)
            self.enemies[b].add(a)
        return sorted(wars), allies

    def territory(self, wars: list[tuple[int, int]]) -> None:
        """Continents to their countries, islands split between the two nearest, and
        footholds on enemy coasts."""
        pieces = components(self.geo, self.land)
        home = {}
        for c in self.countries:
            cap = self.capital[c.cnum]
            piece = next(p for p in pieces if cap in p)
            home[c.cnum] = piece
            order = bfs(self.geo, [cap], set(piece))
            for xy in order[: max(6, round(len(order) * self.mix.owned))]:
                self.owner[xy] = c.cnum
        continents = {tuple(p) for p in home.values()}
        for piece in pieces:
            if tuple(piece) in continents:
                continue
            self._split_island(piece)
        for a, b in wars:
            for x, y in ((a, b), (b, a)):
                self._foothold(x, home[y])

    def _split_island(self, piece: list[Coord]) -> None:
        nums = sorted(
            self.capital, key=lambda c: (min(self.dist(self.capital[c], xy) for xy in piece), c)
        )[:2]
        cells = set(piece)
        first = min(piece, key=lambda xy: (self.dist(self.capital[nums[0]], xy), xy))
        far = bfs(self.geo, [first], cells)
        second = far[-1]
        d1 = {xy: i for i, xy in enumerate(bfs(self.geo, [first], cells))}
        d2 = {xy: i for i, xy in enumerate(bfs(self.geo, [second], cells))}
        for xy in piece:
            self.owner[xy] = nums[0] if d1[xy] <= d2[xy] else nums[-1]

    def _foothold(self, cnum: int, piece: list[Coord]) -> None:
        """``cnum`` holds a few coastal sectors of ``piece`` (an enemy's continent),
        taken from the enemy: the enemy is their old owner."""
        if self.mix.foothold <= 0:
            return
        victim = self.owner.get(piece[0])
        keep = {self.capital[v] for v in self.capital} | {
            n for v in self.capital for n in self.geo.neighbours(self.capital[v])
        }
        coast = [
            xy
            for xy in piece
            if self.coastal(xy) and self.owner.get(xy) == victim and xy not in keep
        ]
        if victim is None or not coast:
            return
        start = min(coast, key=lambda xy: (self.dist(self.capital[cnum], xy), xy))
        mine = {xy for xy in piece if self.owner.get(xy) == victim and xy not in keep}
        for xy in bfs(self.geo, [start], mine)[: self.mix.foothold]:
            self.owner[xy] = cnum
            self.oldowner[xy] = victim

    # -- commands -------------------------------------------------------------------

    def nations(self, wars: list[tuple[int, int]], allies: list[tuple[int, int]]) -> None:
        for c in self.countries:
            tech = self.draw(self.mix.tech)
            self.tech[c.cnum] = tech
            money = self.rng.randrange(20000, 80000, 1000)
            self.cmds.append(f"edit c {c.cnum} s 4 M {money} T {tech} b 640")
        for a, b in wars:
            self.cmds += [f"decl w {b} {a}", f"decl w {a} {b}"]
        for a, b in allies:
            self.cmds += [f"decl a {b} {a}", f"decl a {a} {b}"]

    def sectors(self) -> dict[int, dict[str, list[Coord]]]:
        """Designate and fill every owned sector; returns each country's special
        sectors by role (``frontier``, ``fort``, ``harbour``, ``airfield``, ``hq``)."""
        roles: dict[int, dict[str, list[Coord]]] = {}
        for c in self.countries:
            n = c.cnum
            mine = self.sectors_of(n)
            front = self.frontier(n)
            near = sorted(mine, key=lambda xy: (self.enemy_distance(n, xy), xy))
            cap = self.capital[n]
            free = [xy for xy in near if xy != cap and not self.mountain(xy)]
            harbours = [xy for xy in free if self.coastal(xy)][: self.mix.harbours]
            inland = [xy for xy in free if xy not in front and xy not in harbours and xy != cap]
            airfields = inland[1 : 1 + self.mix.airfields]
            hq = [xy for xy in inland if xy not in airfields][:1]
            forts = [
                xy
                for xy in front
                if xy in free and xy not in harbours and self.rng.random() < self.mix.fort_share
            ]
            # a coastal fort or two facing the enemy: fire at ships and landings
            forts += [
                xy
                for xy in free
                if self.coastal(xy)
                and xy not in harbours + airfields + hq + forts
                and self.enemy_distance(n, xy) <= 4
            ][:1]
            roles[n] = {
                "frontier": front,
                "fort": forts,
                "harbour": harbours,
                "airfield": airfields,
                "hq": hq,
            }
            special = {cap: "c", **dict.fromkeys(harbours, "h"), **dict.fromkeys(airfields, "*")}
            special |= dict.fromkeys(hq, "!") | dict.fromkeys(forts, "f")
            for xy in mine:
                self._sector(n, xy, special.get(xy), xy in front)
        return roles

    def _sector(self, n: int, xy: Coord, des: str | None, front: bool) -> None:
        rng, mix = self.rng, self.mix
        at = self.at(xy)
        if self.mountain(xy):
            des = None
        elif des is None:
            pool = "+m-ga" if front else "amgjkoltwe+bdri"
            des = rng.choice(pool)
        if des is not None:
            self.cmds.append(f"desi {at} {des}")
        civ = 1000 if des == "c" else rng.randrange(100, 800, 10)
        mil = self.draw(mix.frontier_mil if front else mix.interior_mil)
        if des == "c":
            mil = rng.randint(100, 300)
        items = {"c": civ, "m": mil, "f": rng.randrange(100, 600, 10)}
        if des == "f":
            items |= {"g": self.draw(mix.fort_guns), "s": rng.randint(20, 100)}
            items["m"] = max(mil, 20)
        elif des in ("h", "!", "c"):
            items |= {"s": rng.randint(200, 500), "p": 300, "g": rng.randint(5, 20)}
        elif des == "*":
            items |= {"s": 300, "p": 500, "g": rng.randint(5, 20), "m": rng.randint(100, 250)}
        # give adds to what is there (newcap's sanctuaries hold people already)
        there = self.world.sectors[xy].items
        for key, amount in items.items():
            more = amount - there.get(ITEMS[key], 0)
            if more:
                self.cmds.append(f"give {key} {at} {more}")
        eff = 100 if des in ("c", "f", "h", "*", "!") else rng.randint(60, 100)
        old = self.oldowner.get(xy, n)
        self.cmds.append(f"edit l {at} o {n} O {old} e {eff} m {rng.randint(40, 127)}")
        if front and not self.mountain(xy) and rng.random() < mix.mined_share:
            self.cmds.append(f"edit l {at} M {self.draw(mix.mines)}")

    def build(self, kind: str, xy: Coord, mnemonic: str, owner: int, edits: str) -> int:
        """Build one object as the deity and give it to ``owner`` at once (an unowned
        object's number is taken again by the next build)."""
        uid = self.next_uid[kind]
        self.next_uid[kind] += 1
        key = {"l": "u", "s": "s", "p": "p"}[kind]
        self.cmds += [
            f"build {kind} {self.at(xy)} {mnemonic}",
            f"edit {key} {uid} O {owner} {edits}",
        ]
        return uid

    def unit(self, n: int, xy: Coord, mnemonic: str, extra: str = "") -> int:
        rng = self.rng
        retreat = self.draw(self.mix.retreat)
        edits = f"e {rng.randint(70, 100)} M {rng.randint(60, 127)} t {self.tech[n]} Z {retreat}"
        uid = self.build("l", xy, mnemonic, n, edits)
        # a full load of mil, food and shells: the most the type carries
        self.cmds.append(f"edit u {uid} m 999 f 999 s 999 g 999 {extra}".rstrip())
        return uid

    def land_units(self, roles: dict[int, dict[str, list[Coord]]]) -> None:
        rng, mix = self.rng, self.mix
        for c in self.countries:
            n = c.cnum
            front = roles[n]["frontier"]
            if not front:
                continue
            k = len(front)
            mine = set(self.sectors_of(n))
            behind = [
                xy
                for xy in self.sectors_of(n)
                if xy not in front
                and any(f in mine for f in self.geo.neighbours(xy))
                and any(f in front for f in self.geo.neighbours(xy))
            ] or front
            for xy in self._some(front, mix.fortified_share * k):
                kind = rng.choice(["inf", "inf", "linf", "mif"])
                self.unit(n, xy, kind, f"F {rng.randint(20, 127)}")
            for xy in self._some(front, mix.attacker_share * k):
                kind = rng.choice(["cav", "inf", "lar", "arm", "eng", "mif"])
                self.unit(n, xy, kind)
            for xy in self._some(behind, mix.reserve_share * k):
                kind = rng.choice(["cav", "lar", "arm", "mif"])
                uid = self.unit(n, xy, kind)
                self.cmds.append(f"mission land {uid} reserve {self.at(xy)}")
            for xy in self._some(behind, mix.artillery_share * k):
                kind = rng.choice(["art", "lat", "hat", "mat"])
                uid = self.unit(n, xy, kind)
                if rng.random() < mix.interdiction_share:
                    # centred on itself, as far as it fires: over the frontier next to it
                    self.cmds.append(f"mission land {uid} interdiction {self.at(xy)}")
            for xy in roles[n]["airfield"][:1]:
                self.unit(n, xy, "aau")
            for foe in sorted(self.enemies[n]):
                for xy in self._some(self.frontier(foe), mix.stragglers, near=n):
                    self.unit(n, xy, rng.choice(["inf", "spy", "sup", "cav"]))

    def _some(self, cells: Sequence[Coord], count: float, near: int | None = None) -> list[Coord]:
        """About ``count`` of ``cells`` (at least one when ``count`` > 0), drawn; with
        ``near``, those of country ``near``'s enemies' frontier nearest to it first."""
        if not cells or count <= 0:
            return []
        k = min(len(cells), max(1, math.floor(count + self.rng.random())))
        if near is not None:
            return sorted(cells, key=lambda xy: (self.enemy_distance(near, xy), xy))[:k]
        return self.rng.sample(list(cells), k)

    def navies(self, roles: dict[int, dict[str, list[Coord]]]) -> None:
        rng, mix = self.rng, self.mix
        for c in self.countries:
            n = c.cnum
            foes = [xy for xy, o in self.owner.items() if o in self.enemies[n]]
            enemy_coast = sorted(xy for xy in foes if self.coastal(xy) and not self.mountain(xy))
            waters = sorted(
                {s for xy in enemy_coast for s in self.geo.neighbours(xy) if self.sea(s)},
            )
            home = roles[n]["harbour"]
            for i in range(mix.warships):
                where = rng.choice(waters) if waters and i % 2 == 0 else None
                where = where or (rng.choice(home) if home else None)
                if where is None:
                    break
                kind = rng.choice(["dd", "lc", "hc", "bb", "frg"])
                self.ship(n, where, kind)
            for _ in range(mix.transports):
                if not waters:
                    break
                where = rng.choice(waters)
                kind = "ls" if self.tech[n] >= 145 and rng.random() < 0.5 else "tt"
                uid = self.ship(n, where, kind)
                for _ in range(2):
                    unit = self.unit(n, where, rng.choice(["mar", "inf", "linf"]))
                    self.cmds.append(f"edit u {unit} S {uid}")
            for _ in range(mix.cargo_ships):
                where = rng.choice(home) if home else (rng.choice(waters) if waters else None)
                if where is not None:
                    self.ship(n, where, "cs")
        # a victim next to a boarding party: an enemy's cargo ship at sea beside a
        # warship, and one caught in a captured harbour
        for c in self.countries:
            n = c.cnum
            mine = [uid for uid, (o, _, kind) in self.ships.items() if o == n and kind != "cs"]
            for foe in sorted(self.enemies[n])[:1]:
                for uid in mine[:1]:
                    xy = self.ships[uid][1]
                    self.ship(foe, xy, rng.choice(["cs", "pt", "fb"]))
                held = [
                    xy
                    for xy, old in self.oldowner.items()
                    if old == foe and self.owner[xy] == n and self.coastal(xy)
                ]
                for xy in held[:1]:
                    self.ship(foe, xy, "cs")

    def ship(self, n: int, xy: Coord, kind: str) -> int:
        rng = self.rng
        edits = f"E {rng.randint(70, 100)} M {rng.randint(60, 127)} T {self.tech[n]}"
        uid = self.build("s", xy, kind, n, edits)
        self.cmds.append(f"edit s {uid} m {rng.randint(20, 120)} f 200 s 100 g 20 p 50")
        self.ships[uid] = (n, xy, kind)
        return uid

    def air_forces(self, roles: dict[int, dict[str, list[Coord]]]) -> None:
        rng, mix = self.rng, self.mix
        for c in self.countries:
            n = c.cnum
            if not roles[n]["airfield"]:
                continue
            base = roles[n]["airfield"][0]
            front = roles[n]["frontier"] or [base]
            centre = min(front, key=lambda xy: (self.dist(base, xy), xy))
            for i in range(mix.support_planes):
                kind = rng.choice(["f2", "lb", "jl", "mb", "jf1"])
                self.plane(n, base, kind, (["support", "offensive", "defensive"][i % 3], centre, 3))
            for _ in range(mix.interceptors):
                self.plane(n, base, rng.choice(["f2", "jf1", "f1"]), ("air", centre, 4))
            for _ in range(mix.interdiction_planes):
                self.plane(n, base, rng.choice(["lb", "jl", "f2"]), ("interdiction", centre, 3))
            for _ in range(mix.paratroop_planes):
                self.plane(n, base, rng.choice(["tr", "tr", "jt"]))

    def plane(
        self, n: int, base: Coord, kind: str, mission: tuple[str, Coord, int] | None = None
    ) -> int:
        """A plane of ``n`` at ``base``, on ``mission`` (its name, centre and radius)."""
        edits = f"e {self.rng.randint(80, 100)} m {self.rng.randint(60, 127)} t {self.tech[n]}"
        uid = self.build("p", base, kind, n, edits)
        if mission is not None:
            name, centre, radius = mission
            reach = plane_range(self.world.tables.planes[kind], self.tech[n]) // 2
            if self.dist(base, centre) > reach:  # the server refuses it: cover the base
                centre = base
            self.cmds.append(f"mission plane {uid} {name} {self.at(centre)} {radius}")
        return uid


def plan_setup(world: World, countries: list[Country], seed: int, mix: Mix) -> Midgame:
    """The deity commands that make the game ``world`` (fairland's map after its
    newcap script) a mid-game; the same world, countries, seed and mix give the
    same commands."""
    s = _Setup(world, countries, seed, mix)
    wars, allies = s.relations()
    s.territory(wars)
    s.nations(wars, allies)
    roles = s.sectors()
    s.land_units(roles)
    s.navies(roles)
    s.air_forces(roles)
    return Midgame(countries, wars, allies, s.cmds)
