"""What the server's information commands print, read back into facts.

Each function takes the text a command printed (as the player saw it, in the
player's coordinates) and returns what it says, without guessing: the server's
rounding is kept as an interval (:mod:`bellum.empire.intel.model`).  Nothing
here talks to a server; :mod:`bellum.client.intel` runs the commands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bellum.empire.geometry import Coord, Geometry
from bellum.empire.intel.model import Observation, Seen
from bellum.empire.tables import Tables
from bellum.empire.world import BMap


def map_area(geometry: Geometry) -> str:
    """The ``map``/``bmap`` argument that covers the whole world, in the player's coordinates."""
    w, h = geometry.width, geometry.height
    return f"{-w // 2}:{w // 2 - 1},{-h // 2}:{h // 2 - 1}"


def parse_map(text: str, geometry: Geometry) -> dict[Coord, str]:
    """The characters of a ``map`` or ``bmap`` of :func:`map_area`, by sector.

    The server prints each row as ``%4d <row> %d`` (its y on both sides) between
    two lines of column numbers; the row's first column is the area's left edge.
    Blanks (never seen) are left out.  Coordinates are normalised on ``geometry``.
    """
    left = -geometry.width // 2
    seen: dict[Coord, str] = {}
    for line in text.splitlines():
        head, tail = line[:4], line[5:]
        label = head.strip()
        if not label.lstrip("-").isdigit() or line[4:5] != " ":
            continue
        y = int(label)
        row, _, right = tail.rpartition(" ")
        if right != label:
            continue
        for j, mark in enumerate(row[: geometry.width]):
            x = left + j
            if mark != " " and geometry.is_sector(x, y):
                seen[geometry.norm(x, y)] = mark
    return seen


def bmap_of(text: str, geometry: Geometry, cnum: int) -> BMap:
    """Country ``cnum``'s :class:`~bellum.empire.world.BMap` from its ``bmap`` of the world."""
    bmap = BMap.blank(cnum, geometry)
    for c, mark in parse_map(text, geometry).items():
        bmap.put(c, mark)
    return bmap


# -- sightings -------------------------------------------------------------------------


@dataclass(frozen=True)
class Sighting:
    """When and how a report was made: the game time, the command, the world's geometry
    and tables (to read places and types), and the country that looked."""

    viewer: int
    turn: int
    time: int
    source: str
    geometry: Geometry
    tables: Tables

    def seen(self, value: int | float | str | None, round_to: int = 1) -> Seen:
        """A field the report printed; ``round_to`` is the server's ``roundintby`` step."""
        if round_to <= 1 or not isinstance(value, int):
            return Seen(value, self.turn, self.time, self.source)
        lo, hi = rounded(value, round_to)
        return Seen(value, self.turn, self.time, self.source, lo, hi, f"rounded to {round_to}")

    def band(self, lo: float, hi: float | None) -> Seen:
        """A field shown as a band (``report``'s ``90 - 110``; ``>= 200``: no top)."""
        how = "band" if hi is not None else "at least"
        return Seen(None, self.turn, self.time, self.source, lo, hi, how)

    def place(self, x: str, y: str) -> Coord:
        return self.geometry.norm(int(x), int(y))

    def ident(self, c: Coord) -> str:
        return f"{c[0]},{c[1]}"


def rounded(shown: int, step: int) -> tuple[int, int]:
    """The true values the server's ``roundintby(n, step)`` shows as ``shown``:
    ``(n + step/2) / step * step`` in integer arithmetic."""
    half = step // 2
    return max(0, shown - half), shown + step - half - 1


_XY = r"(?P<x>-?\d+),(?P<y>-?\d+)"
_NATION = r"(?P<owner>.*?) \(#\s*(?P<cnum>\d+)\)"
#: ``look_at_sect``: lookout, llookout and reconnaissance flights.
_LOOK_SECTOR = re.compile(
    r"^(?:Your|" + _NATION + r") (?P<des>[a-z/ ]+?) (?P<eff>\d+)% efficient "
    r"(?:with (?P<civa>approx )?(?P<civ>\d+) civ )?(?:with (?P<mila>approx )?(?P<mil>\d+) mil )?"
    r"@ " + _XY + "$"
)
#: ``look_ship`` and ``coastwatch``: a foreign ship, its owner and place.
_SHIP = re.compile(r"^\s*" + _NATION + r" (?P<type>\S+) .*?\(#(?P<uid>\d+)\) @ " + _XY + "$")
#: ``look_land``: a foreign unit with its mil rounded to 20, or a plane on the ground.
_UNIT = re.compile(
    r"^" + _NATION + r" (?P<type>\S+) .*? #(?P<uid>\d+)(?: \(approx (?P<mil>\d+) mil\))? @ " + _XY
    + "$"
)  # fmt: skip
#: ``spy``: one spied sector's line of the table.
_SPY_SECTOR = re.compile(
    r"^\s*" + _XY + r"\s+(?P<des>\S)(?P<newdes>.) +(?P<own>\d+) +(?P<old>\d+)"
    + r" +(\d+)" * 11 + r"\s*$"
)  # fmt: skip
#: ``spy``: a unit or a plane in a spied sector (``intelligence_report``, ``prplanes``).
_SPY_THING = re.compile(
    r"^(?:Allied|Neutral|Enemy) \((?P<owner>.*)\) (?P<kind>unit|plane) in " + _XY
    + r":\s+(?P<type>\S+) .*? #(?P<uid>\d+)"
    + r"(?: \(eff (?P<eff>\d+), mil (?P<mil>\d+)(?:, tech (?P<tech>\d+))?\))?$"
)  # fmt: skip
#: The spy table's numbers after the owners, in order, with the server's rounding.
SPY_FIELDS = ("eff", "road", "rail", "defense", "civ", "mil", "shell", "gun", "petrol", "food",
              "bar")  # fmt: skip


def _sector(s: Sighting, c: Coord, fields: dict[str, Seen]) -> Observation:
    return Observation("sector", s.ident(c), fields)


def look_report(text: str, s: Sighting, step: int = 10) -> list[Observation]:
    """What ``lookout``, ``llookout`` (``step`` 10) or a reconnaissance flight (25) saw:
    sectors with their owner, designation, efficiency, civ and mil, foreign ships, units
    and planes with their owner and place (a unit's mil rounded to 20)."""
    out = []
    for line in text.splitlines():
        if m := _LOOK_SECTOR.match(line):
            if m["owner"] is None:
                continue  # the viewer's own sector: the sync has it exactly
            try:
                kind = s.tables.sector(m["des"])
            except KeyError:
                continue
            fields = {
                "owner": s.seen(int(m["cnum"])),
                "type": s.seen(kind.name),
                "eff": s.seen(int(m["eff"]), step),
            }
            for item in ("civ", "mil"):  # printed only when not 0, so "approx 0" is 1..4
                if m[item] is None:
                    fields[item] = s.seen(0)
                else:
                    seen = s.seen(int(m[item]), step if m[item + "a"] else 1)
                    least = max(1, seen.lo if seen.lo is not None else 1)
                    fields[item] = replace(seen, lo=least) if seen.lo is not None else seen
            out.append(_sector(s, s.place(m["x"], m["y"]), fields))
        elif (m := _UNIT.match(line)) and (m["mil"] is not None or _is_plane(m["type"], s)):
            out.append(_thing(m, s, "unit" if m["mil"] is not None else "plane", mil_step=20))
        elif m := _SHIP.match(line):
            out.append(_thing(m, s, "ship"))
    return out


def _is_plane(mnemonic: str, s: Sighting) -> bool:
    return mnemonic in s.tables.planes


def _thing(m: re.Match[str], s: Sighting, kind: str, mil_step: int = 10) -> Observation:
    """A foreign ship, unit or plane: its owner, type and place; what else the line says."""
    fields = {
        "type": s.seen(m["type"]),
        "owner": s.seen(int(m["cnum"])),
        "at": s.seen(s.ident(s.place(m["x"], m["y"]))),
    }
    if m.groupdict().get("mil") is not None:
        fields["mil"] = s.seen(int(m["mil"]), mil_step)
    return Observation(kind, m["uid"], fields)


def coastwatch_report(text: str, s: Sighting) -> list[Observation]:
    """The foreign ships ``coastwatch`` lists (owner, type, number, place)."""
    return [_thing(m, s, "ship") for line in text.splitlines() if (m := _SHIP.match(line))]


def spy_report(text: str, s: Sighting, owners: dict[str, int]) -> list[Observation]:
    """What ``spy`` saw: each spied sector's designation, owner, old owner and numbers
    (rounded to 10), and the units (efficiency to 5, mil to 10, a tech within 20) and
    planes in them.  ``owners`` gives country numbers by name (the unit lines name them)."""
    out = []
    for line in text.splitlines():
        if m := _SPY_SECTOR.match(line):
            try:
                kind = s.tables.sector(m["des"])
            except KeyError:
                continue
            fields = {
                "type": s.seen(kind.name),
                "owner": s.seen(int(m["own"])),
                "oldowner": s.seen(int(m["old"])),
            }
            numbers = [int(v) for v in m.groups()[-len(SPY_FIELDS) :]]
            for name, n in zip(SPY_FIELDS, numbers, strict=True):
                fields[name] = s.seen(n, 1 if name == "rail" else 10)
            out.append(_sector(s, s.place(m["x"], m["y"]), fields))
        elif (m := _SPY_THING.match(line)) and m["owner"] in owners:
            fields = {
                "type": s.seen(m["type"]),
                "owner": s.seen(owners[m["owner"]]),
                "at": s.seen(s.ident(s.place(m["x"], m["y"]))),
            }
            if m["eff"] is not None:
                fields["eff"] = s.seen(int(m["eff"]), 5)
                fields["mil"] = s.seen(int(m["mil"]), 10)
            if m["tech"] is not None:  # tech - 20 + roll(40), roll(40) in 1..40
                t = int(m["tech"])
                fields["tech"] = Seen(t, s.turn, s.time, s.source, max(0, t - 20), t + 19, "± 20")
            out.append(Observation(m["kind"], m["uid"], fields))
    return out


#: ``report``'s band of another nation's level, 12 characters wide.
_BAND = re.compile(r"^\s*(?:(?P<lo>\d+) - (?P<hi>\d+)|0 - (?P<top>\d+)|>= (?P<least>\d+))\s*$")


def report_report(text: str, s: Sighting) -> list[Observation]:
    """Other nations' tech as ``report`` shows it: a band around the viewer's own."""
    out = []
    for line in text.splitlines():
        cnum = line[1:4].strip()
        if not cnum.isdigit() or int(cnum) == s.viewer or len(line) < 34:
            continue
        m = _BAND.match(line[22:34])
        if m is None:
            continue
        if m["lo"] is not None:
            band = s.band(int(m["lo"]), int(m["hi"]) + 1)
        elif m["top"] is not None:
            band = s.band(0, int(m["top"]) + 1)
        else:
            band = s.band(int(m["least"]), None)
        out.append(Observation("nation", cnum, {"tech": band}))
    return out


#: The combat commands' estimate of their target (``att_show``).
_ESTIMATE = re.compile(
    r"^" + _XY + r" is a (?P<eff>\d+)% (?P<rest>.+) with approximately (?P<mil>\d+) military\.$"
)


def estimate_report(text: str, s: Sighting, owners: dict[str, int]) -> list[Observation]:
    """The target as a combat command showed it before its first question: owner,
    designation, efficiency and mil rounded to 10.  ``owners`` gives country numbers by
    name (the line names the owner, then the designation)."""
    out = []
    for line in text.splitlines():
        m = _ESTIMATE.match(line)
        if m is None:
            continue
        for name in sorted(owners, key=len, reverse=True):
            des = m["rest"][len(name) + 1 :]
            if m["rest"].startswith(name + " ") and des in s.tables.sectors:
                fields = {
                    "owner": s.seen(owners[name]),
                    "type": s.seen(des),
                    "eff": s.seen(int(m["eff"]), 10),
                    "mil": s.seen(int(m["mil"]), 10),
                }
                out.append(_sector(s, s.place(m["x"], m["y"]), fields))
                break
    return out
