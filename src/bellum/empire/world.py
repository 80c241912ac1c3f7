"""The Empire world: nations, sectors, land units, ships and planes.

Objects are plain mutable dataclasses holding what the server stores; the
rules read and change them.  Coordinates are absolute; players see them
relative to their origin (:meth:`World.fmt`).  A world synced as a player
is that player's view of the game, and its :class:`Fog` says what it leaves out.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, TypeVar

from bellum.empire.geometry import Coord, Geometry
from bellum.empire.intel.model import Observation
from bellum.empire.tables import (
    LandType,
    PlaneType,
    SectorType,
    ShipType,
    Tables,
    ship_armor,
    ship_speed,
    stock,
)
from bellum.errors import CommandError, InputError
from bellum.numbers import to_int

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")

#: Commodity names as stored in worlds (the server's item names, short forms).
ITEMS = (
    "civ",
    "mil",
    "shell",
    "gun",
    "petrol",
    "iron",
    "dust",
    "bar",
    "food",
    "oil",
    "lcm",
    "hcm",
    "uw",
    "rad",
)


class Relation(IntEnum):
    """What one country declared toward another; ordered like the server's."""

    AT_WAR = 0
    HOSTILE = 1
    NEUTRAL = 2
    FRIENDLY = 3
    ALLIED = 4

    @classmethod
    def parse(cls, text: str) -> Relation:
        key = text.strip().upper().replace("-", "_").replace(" ", "_")
        if key == "WAR":
            key = "AT_WAR"
        return cls[key]

    def label(self) -> str:
        return self.name.lower().replace("_", "-")


class Plague(IntEnum):
    """Plague stages as the server numbers them."""

    HEALTHY = 0
    DYING = 1
    INFECT = 2
    INCUBATE = 3
    EXPOSED = 4


@dataclass
class Nation:
    """A country.  In a player's view (:class:`Fog`) the others' money, BTUs, tech,
    happiness, origin and capital are unknown: ``None``, as is a relation the option
    HIDDEN keeps from the player."""

    cnum: int
    name: str
    money: int | None = 0
    btu: int | None = 640
    tech: float | None = 0.0
    happiness: float | None = 0.0
    origin: Coord | None = (0, 0)
    capital: Coord | None = None
    capital_sacked: bool | None = False
    active: bool = True
    #: Telegrams the server has yet to announce (``nat_tgms``): it says "You have a new
    #: telegram waiting ..." after the next command, then counts from 0 again.
    tgms: int = 0
    #: The ``inform`` flag: telegrams are announced as they arrive, not after a command.
    inform: bool = False
    relations: dict[int, Relation | None] = field(default_factory=dict)
    #: SLOW_WAR only: a declaration on its way to war, "mobilizing" or "sitzkrieg"
    #: (the relation itself then reads hostile).
    war_steps: dict[int, str] = field(default_factory=dict)

    def rel(self, other: int) -> Relation:
        """This nation's declared relation toward ``other`` (itself: allied); one the
        player cannot see is a :class:`Unknown` error."""
        if other == self.cnum:
            return Relation.ALLIED
        r = self.relations.get(other, Relation.NEUTRAL)
        if r is None:
            raise Unknown(f"country {self.cnum}'s relation to country {other} is unknown")
        return r


@dataclass
class Sector:
    x: int
    y: int
    type: SectorType
    owner: int = 0
    oldowner: int = 0
    eff: int = 0
    mob: int = 0
    road: int = 0
    rail: int = 0
    defense: int = 0
    #: Loyalty, che, mines and plague the server keeps to the deity: ``None`` (unknown)
    #: in a player's view of its own sectors.
    loyalty: int | None = 0
    che: int | None = 0
    che_target: int | None = 0
    avail: int = 0
    mines: int | None = 0
    off: bool = False
    dist: Coord | None = None
    thresholds: dict[str, int] = field(default_factory=dict)
    deliveries: dict[str, str] = field(default_factory=dict)
    plague: Plague | None = Plague.HEALTHY
    items: dict[str, int] = field(default_factory=dict)

    @property
    def xy(self) -> Coord:
        return self.x, self.y

    def get(self, item: str) -> int:
        return self.items.get(item, 0)

    def put(self, item: str, amount: int) -> None:
        self.items[item] = amount

    @property
    def mil(self) -> int:
        return self.get("mil")

    @mil.setter
    def mil(self, n: int) -> None:
        self.put("mil", n)

    @property
    def minefield(self) -> int:
        """The mines here, for a rule that needs them (unknown: an :class:`Unknown` error)."""
        return known(self.mines, f"the number of mines in {self.x},{self.y}")

    @property
    def civ(self) -> int:
        return self.get("civ")

    @civ.setter
    def civ(self, n: int) -> None:
        self.put("civ", n)


@dataclass
class LandUnit:
    uid: int
    type: LandType
    owner: int
    x: int
    y: int
    eff: int = 100
    mob: int = 0
    tech: float = 0.0
    army: str = ""
    fort: int = 0
    mission: str = ""
    op_center: Coord | None = None
    op_radius: int = 0
    #: The reaction range the player set with the info page's ``lrange`` command;
    #: ``None``: the type's whole radius.  Only the ``info-page`` profile reads it
    #: (4.4.1 has no such command, and its dumps no such column).
    lrange: int | None = None
    retreat: int = 42
    ship: int | None = None
    land: int | None = None
    #: ``None`` in a player's view: the server keeps the plague to the deity.
    plague: Plague | None = Plague.HEALTHY
    off: bool = False
    items: dict[str, int] = field(default_factory=dict)

    @property
    def xy(self) -> Coord:
        return self.x, self.y

    @property
    def mil(self) -> int:
        return self.items.get("mil", 0)

    @mil.setter
    def mil(self, n: int) -> None:
        self.items["mil"] = n

    @property
    def loaded(self) -> bool:
        return self.ship is not None or self.land is not None

    def name(self) -> str:
        """The server's unit name, e.g. ``cav  cavalry #7``."""
        return f"{self.type.display} #{self.uid}"


@dataclass
class Ship:
    uid: int
    type: ShipType
    owner: int
    x: int
    y: int
    name: str = ""
    eff: int = 100
    mob: int = 0
    tech: float = 0.0
    fleet: str = ""
    mission: str = ""
    op_center: Coord | None = None
    op_radius: int = 0
    #: ``None`` in a player's view: the server keeps the plague to the deity.
    plague: Plague | None = Plague.HEALTHY
    off: bool = False
    items: dict[str, int] = field(default_factory=dict)
    rpath: str = ""
    rflags: str = ""

    @property
    def xy(self) -> Coord:
        return self.x, self.y

    @property
    def mil(self) -> int:
        return self.items.get("mil", 0)

    @mil.setter
    def mil(self, n: int) -> None:
        self.items["mil"] = n

    @property
    def speed(self) -> int:
        """Tech-adjusted speed (§0.5)."""
        return ship_speed(self.type, self.tech)

    @property
    def armor(self) -> int:
        """Tech-adjusted armor (§0.5)."""
        return ship_armor(self.type, self.tech)

    def title(self) -> str:
        """The server's ship name, e.g. ``cs   cargo ship (#1)``."""
        return f"{self.type.display} {self.name}(#{self.uid})"


@dataclass
class Plane:
    uid: int
    type: PlaneType
    owner: int
    x: int
    y: int
    eff: int = 100
    mob: int = 0
    tech: float = 0.0
    wing: str = ""
    mission: str = ""
    op_center: Coord | None = None
    op_radius: int = 0
    ship: int | None = None
    land: int | None = None
    hardened: bool = False
    off: bool = False

    @property
    def xy(self) -> Coord:
        return self.x, self.y

    def name(self) -> str:
        return f"{self.type.display} #{self.uid}"


@dataclass
class Telegram:
    to: int
    text: str


@dataclass
class NewsItem:
    actor: int
    victim: int
    text: str


@dataclass
class BMap:
    """What one country's bmap shows: the server's per-country map of what it has seen.

    ``rows[y][x]`` is the character the server prints at absolute ``x,y`` (the
    designation mnemonic, ``?`` for land of unknown use, a player's own marks);
    a blank is a sector the country has never seen.  The server draws it in the
    questions of a flight's path (``fly_map``: the seven sectors around the
    plane), so the rules read it there.
    """

    cnum: int
    rows: list[str] = field(default_factory=list)

    @classmethod
    def blank(cls, cnum: int, geometry: Geometry) -> BMap:
        return cls(cnum, [" " * geometry.width for _ in range(geometry.height)])

    def at(self, c: Coord) -> str:
        """The character at absolute ``c`` (blank where never seen, or outside the rows)."""
        x, y = c
        row = self.rows[y] if 0 <= y < len(self.rows) else ""
        return row[x] if 0 <= x < len(row) else " "

    def put(self, c: Coord, mark: str) -> None:
        """Set the character at absolute ``c`` (a one-character mark)."""
        x, y = c
        row = self.rows[y]
        self.rows[y] = row[:x] + mark + row[x + 1 :]

    def moved(self, by: Coord) -> BMap:
        """The same map with every sector moved by ``by``: a player's bmap (in the player's
        coordinates) laid on the whole game is moved by the player's origin."""
        h, w = len(self.rows), len(self.rows[0]) if self.rows else 0
        dx, dy = by
        rows = [self.rows[(y - dy) % h] for y in range(h)]
        return BMap(self.cnum, [r[(-dx) % w :] + r[: (-dx) % w] for r in rows])


@dataclass
class Fog:
    """What one country's view of the game leaves out (a world synced as a player).

    A world without fog (``World.fog is None``) is the whole game as a deity
    sees it.  With fog, coordinates are the viewer's (its origin is 0,0) and:

    * a sector missing from ``World.sectors`` is unknown, not sea: looking it
      up raises :class:`UnknownSector`;
    * the world holds the viewer's own ships, land units and planes: those of
      other countries are unknown (absent means unseen, not absent); what the
      country saw of them is in ``World.observations``;
    * a field the view does not show holds ``None`` (other nations' money and
      tech, the loyalty and plague of the viewer's own sectors...).

    ``turn`` and ``time`` are the game time of the view: the server's update
    number and clock (seconds since 1970) when it was read.
    """

    viewer: int
    turn: int = 0
    time: int = 0


class Unknown(CommandError):
    """A rule needed a value the world's viewer cannot see (see :class:`Fog`)."""


def known(value: T | None, what: str) -> T:
    """``value``, which a rule needs: ``None`` (unknown in a player's view) is an
    :class:`Unknown` error naming ``what``."""
    if value is None:
        raise Unknown(f"{what} is unknown: the country's view of the game does not show it")
    return value


#: The deity's name in a new game (the server's ``files`` makes country 0 ``POGO``).
DEITY_NAME = "POGO"


class UnknownSector(Unknown):
    """A rule needed a sector the world's viewer cannot see (see :class:`Fog`)."""


@dataclass
class World:
    """A whole game: geometry, options, nations and every object in it."""

    geometry: Geometry
    tables: Tables = field(default_factory=stock)
    #: The world's own rule options (a world file's ``[options]``): see
    #: :meth:`bellum.empire.rules.Rules.of`.
    options: dict[str, Any] = field(default_factory=dict)
    nations: dict[int, Nation] = field(default_factory=dict)
    sectors: dict[Coord, Sector] = field(default_factory=dict)
    units: dict[int, LandUnit] = field(default_factory=dict)
    ships: dict[int, Ship] = field(default_factory=dict)
    planes: dict[int, Plane] = field(default_factory=dict)
    telegrams: list[Telegram] = field(default_factory=list)
    news: list[NewsItem] = field(default_factory=list)
    #: Each country's bmap where it is known (a player's sync stores its own).
    bmaps: dict[int, BMap] = field(default_factory=dict)
    #: A player's view: what the country saw of the objects that are not its own, by
    #: key (``sector 3,1``, ``unit 12``; see :mod:`bellum.empire.intel.model`).
    observations: dict[str, Observation] = field(default_factory=dict)
    #: What the world does not know: ``None`` for the whole game (see :class:`Fog`).
    fog: Fog | None = None
    #: The deity's country name, which the server prints as the owner of unowned land.
    deity_name: str = DEITY_NAME

    def copy(self) -> World:
        """A deep copy, so a command can run on a scratch world.

        Pickling round-trips a world three times faster than ``deepcopy``,
        which matters when the odds engine replays a command thousands of times.
        """
        clone: World = pickle.loads(pickle.dumps(self, pickle.HIGHEST_PROTOCOL))
        return clone

    # -- look-ups -------------------------------------------------------------

    def sector(self, c: Coord) -> Sector:
        xy = self.geometry.norm(*c)
        try:
            return self.sectors[xy]
        except KeyError:
            viewer = self.fog.viewer if self.fog else None
            raise UnknownSector(
                f"sector {self.fmt(xy, viewer or 0)} is unknown: country {viewer}'s view of the"
                " game does not show it (fog of war)"
                if viewer is not None
                else f"sector {xy[0]},{xy[1]} is not in this world"
            ) from None

    def peek(self, c: Coord) -> Sector:
        """The sector at ``c`` to read, never to change.

        A scratch world (:mod:`bellum.empire.scratch`) copies a sector the first
        time :meth:`sector` hands it out; scans over many sectors that change
        none of them read through here and copy nothing.
        """
        peek = getattr(self.sectors, "peek", None)
        if peek is None:
            return self.sector(c)
        xy = self.geometry.norm(*c)
        try:
            sector: Sector = peek(xy)
        except KeyError:
            return self.sector(xy)  # names the unknown sector
        return sector

    def peek_within(self, p: Coord, d: int) -> Sequence[tuple[Coord, Sector]]:
        """Every sector within ``d`` of ``p`` to read (:meth:`peek`), in the server's scan
        order; a scratch world lists them from its template's list, made once."""
        ring = getattr(self.sectors, "peek_ring", None)
        found: Sequence[tuple[Coord, Sector]] | None = None
        if ring is not None:
            found = ring(self.geometry, p, d)
        if found is not None:
            return found
        return [(xy, self.peek(xy)) for xy in self.geometry.within(p, d)]

    def nation(self, cnum: int) -> Nation:
        return self.nations[cnum]

    def rel(self, a: int, b: int) -> Relation:
        """What ``a`` declared toward ``b``; the deity (0) is neutral to everyone."""
        if a == b:
            return Relation.ALLIED
        n = self.nations.get(a)
        return n.rel(b) if n else Relation.NEUTRAL

    def helps(self, c: int, friend: int, foe: int) -> bool:
        """Whether country ``c`` joins a fight on ``friend``'s side against ``foe`` (§0.3)."""
        if c == 0 or c == foe:
            return False
        if c == friend:
            return True
        return self.rel(c, friend) == Relation.ALLIED and self.rel(c, foe) == Relation.AT_WAR

    def helpers(self, friend: int, foe: int) -> dict[int, bool]:
        """:meth:`helps` of each country, looked up once: ``helpers(friend, foe)[c]``
        (for scans over many sectors or units while the relations do not change)."""
        return Answers(lambda c: self.helps(c, friend, foe))

    def name_of(self, cnum: int) -> str:
        """A country's name; country 0 is the deity (``POGO`` in a new 4.4.1 game, so an
        unowned sector is shown as ``a 0% POGO sea``)."""
        n = self.nations.get(cnum)
        return n.name if n else self.deity_name if cnum == 0 else f"country #{cnum}"

    def find_nation(self, key: str) -> Nation | None:
        """A nation by number or by name; a name two nations share is an :class:`InputError`."""
        key = key.strip()
        cnum = to_int(key)
        if cnum is not None and cnum in self.nations:
            return self.nations[cnum]
        named = [n for n in self.nations.values() if n.name == key]
        if len(named) > 1:
            numbers = ", ".join(str(n.cnum) for n in named)
            raise InputError(f"countries {numbers} are all named {key!r}: give the number")
        return named[0] if named else None

    def units_at(self, c: Coord) -> list[LandUnit]:
        """Land units at ``c`` in ascending uid order."""
        here = sorted(k for k, _ in peek_where(self.units, "xy", tuple(c)))
        return [self.units[k] for k in here]

    def fmt(self, c: Coord, viewer: int) -> str:
        """``x,y`` as country ``viewer`` sees it (the deity sees absolute coordinates; a
        country whose origin the view does not show, as the view's own coordinates)."""
        n = self.nations.get(viewer)
        return self.geometry.fmt(c, n.origin if n and n.origin is not None else (0, 0))

    def charge_btus(self, cnum: int, btus: int) -> None:
        """Take ``btus`` from country ``cnum`` (its own BTUs, which its view knows)."""
        n = self.nations[cnum]
        n.btu = known(n.btu, f"country {cnum}'s BTUs") - btus

    def tech(self, cnum: int) -> float:
        """Country ``cnum``'s tech level (0 for the deity and countries not in the world)."""
        n = self.nations.get(cnum)
        return 0.0 if n is None else known(n.tech, f"country {cnum}'s tech")

    def origin(self, cnum: int) -> Coord:
        """Country ``cnum``'s origin, which its coordinates are relative to."""
        return known(self.nations[cnum].origin, f"country {cnum}'s origin")


#: Retreat orders (a ship's ``rflags``): the letter of the server's ``retreat`` command,
#: in the server's flag order, and the flag's name in dumps.
RETREAT_ORDERS: dict[str, str] = {
    "g": "group",
    "i": "injured",
    "t": "torpedoed",
    "s": "sonared",
    "h": "helpless",
    "b": "bombed",
    "d": "depth-charged",
    "u": "boarded",
}

#: The server's missions as bellum names them (``mission`` of units, ships and planes);
#: ``""`` is none.  The dump format spells some differently (see io/xdump/mapping.py).
MISSIONS = (
    "",
    "reserve",
    "interdiction",
    "support",
    "osupport",
    "dsupport",
    "escort",
    "air-defense",
)


def peek_items(objects: dict[K, V]) -> Sequence[tuple[K, V]]:
    """A world's units, ships or planes to read, never to change (a scratch world,
    :mod:`bellum.empire.scratch`, copies an object the first time ``items`` or ``[]``
    hands it out; scans that change nothing read through here and copy nothing)."""
    peek: Callable[[], Sequence[tuple[K, V]]] | None = getattr(objects, "peek_items", None)
    return list(objects.items()) if peek is None else peek()


def peek_where(objects: dict[K, V], attr: str, value: Any) -> Sequence[tuple[K, V]]:
    """:func:`peek_items` of the objects whose ``attr`` equals ``value``, in no particular
    order (a scratch world's from an index of its template's)."""
    where: Callable[[str, Any], Sequence[tuple[K, V]]] | None = getattr(objects, "peek_where", None)
    if where is None:
        return [(k, o) for k, o in objects.items() if getattr(o, attr) == value]
    return where(attr, value)


class Answers(dict[int, bool]):
    """Each country's answer to ``ask``, asked once (for scans over many sectors or units
    while the relations it reads do not change)."""

    def __init__(self, ask: Callable[[int], bool]) -> None:
        super().__init__()
        self.ask = ask

    def __missing__(self, cnum: int) -> bool:
        answer = self[cnum] = self.ask(cnum)
        return answer
