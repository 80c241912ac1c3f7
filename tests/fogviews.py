"""Players' views of example worlds, for the fog-of-war tests (docs/fog.md)."""

from __future__ import annotations

from bellum.empire.intel.model import Observation, Seen
from bellum.empire.intel.reports import rounded
from bellum.empire.world import Fog, World

TURN = 3


def view(world: World, country: int, turn: int = TURN) -> World:
    """What ``country`` holds of a whole world whose origins are 0,0: its own objects,
    the others' numbers unknown."""
    v = world.copy()
    v.fog = Fog(country, turn, 0)
    v.sectors = {xy: s for xy, s in v.sectors.items() if s.owner == country}
    v.units = {k: u for k, u in v.units.items() if u.owner == country}
    v.ships = {k: sh for k, sh in v.ships.items() if sh.owner == country}
    v.planes = {k: p for k, p in v.planes.items() if p.owner == country}
    for s in v.sectors.values():
        s.loyalty = s.mines = s.che = s.che_target = s.plague = None
    for n in v.nations.values():
        if n.cnum != country:
            n.money = n.btu = n.tech = n.happiness = n.origin = n.capital = None
            n.capital_sacked = None
    return v


def spied(world: World, xy: tuple[int, int], turn: int = TURN, exact: bool = False) -> Observation:
    """Sector ``xy`` as ``spy`` shows it (numbers rounded to 10), or exactly."""
    s = world.sector(xy)
    fields = {"owner": Seen(s.owner, turn, 0, "spy"), "type": Seen(s.type.name, turn, 0, "spy")}
    for name, value in (("mil", s.mil), ("eff", s.eff), ("defense", s.defense),
                        ("gun", s.get("gun")), ("shell", s.get("shell"))):  # fmt: skip
        if exact:
            fields[name] = Seen(value, turn, 0, "spy")
        else:
            shown = (value + 5) // 10 * 10
            lo, hi = rounded(shown, 10)
            fields[name] = Seen(shown, turn, 0, "spy", lo, hi, "rounded to 10")
    return Observation("sector", f"{xy[0]},{xy[1]}", fields)
