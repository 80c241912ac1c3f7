"""What a prize is worth and what losses cost, in dollars (docs/plan.md states the formula).

The server has no price list, so the planner states one.  A sector is worth
what its designation, efficiency, people and goods would cost to replace,
plus the money a capital sack takes (§10.4); a ship or a land unit its
hull or kit and its cargo.  Every figure can be overridden for one target
(``--value SECT=N``), and the loss weights are the player's to set.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from bellum.empire.world import LandUnit, Sector, Ship, World
from bellum.errors import InputError
from bellum.numbers import shown

#: Dollars per 100 % efficient sector of each designation (others: DEFAULT_DES).
DES_VALUE: dict[str, int] = {
    "sea": 0,
    "wilderness": 100,
    "sanctuary": 0,
    "wasteland": 0,
    "mountain": 100,
    "capital": 1500,
    "fortress": 800,
    "airfield": 600,
    "harbor": 500,
    "bank": 800,
    "nuclear plant": 1000,
    "research lab": 800,
    "technical center": 800,
    "library/school": 600,
    "uranium mine": 400,
    "gold mine": 400,
    "oil field": 300,
    "refinery": 300,
    "highway": 100,
    "bridge head": 200,
    "bridge span": 200,
}
DEFAULT_DES = 200
#: Dollars per unit of each commodity found in a prize (mil are not: they fight).
ITEM_PRICE: dict[str, float] = {
    "civ": 1.0,
    "uw": 1.0,
    "shell": 4.0,
    "gun": 20.0,
    "petrol": 1.0,
    "iron": 1.0,
    "dust": 10.0,
    "bar": 100.0,
    "food": 0.2,
    "oil": 1.0,
    "lcm": 2.0,
    "hcm": 4.0,
    "rad": 20.0,
}
#: A ship: this much plus SHIP_ARMOR per point of armor, times its efficiency.
SHIP_BASE = 300
SHIP_ARMOR = 20
#: A land unit: this much plus UNIT_ATTACK per point of attack, times its efficiency.
UNIT_BASE = 200
UNIT_ATTACK = 100


@dataclass(frozen=True)
class Weights:
    """What losses and spending cost, in dollars (``--weight NAME=N``).

    ``mil``: per soldier of yours expected lost (mil and land units' mil);
    ``unit``: per land unit sent; ``btu``: per BTU spent; ``mob``: per point of
    a sector's mobility spent.
    """

    mil: float = 5.0
    unit: float = 20.0
    btu: float = 10.0
    mob: float = 1.0

    @classmethod
    def parse(cls, items: tuple[str, ...] | list[str]) -> Weights:
        names = [f.name for f in fields(cls)]
        out = cls()
        for item in items:
            name, sep, text = item.partition("=")
            name = name.strip().lower()
            try:
                n = float(text)
            except ValueError:
                n = float("nan")
            if not sep or name not in names or not 0 <= n < 1e9:
                raise InputError(
                    f"needs NAME=N with NAME one of {', '.join(names)} and N a number of"
                    " dollars from 0",
                    field="weight",
                    value=shown(item),
                )
            out = replace(out, **{name: n})
        return out

    def as_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def items_value(items: Mapping[str, int]) -> float:
    return sum(ITEM_PRICE.get(k, 0.0) * n for k, n in items.items() if n > 0)


def sector_value(world: World, s: Sector) -> float:
    """Designation × efficiency, the goods and people in it, and a capital's sack."""
    des = DES_VALUE.get(s.type.name, DEFAULT_DES) * s.eff / 100
    worth = des + items_value(s.items)
    owner = world.nations.get(s.owner)
    if (
        owner is not None
        and owner.active
        and owner.capital == s.xy
        and not owner.capital_sacked
        and (s.type.has("capital") or s.type.is_mountain)
    ):
        half = int((owner.money or 0) / 2)  # money a player's view does not show: none counted
        worth += int((0.2 + 0.8 * s.eff / 100) * half) if half >= 0 else 0
    return worth


def ship_value(sh: Ship) -> float:
    return (SHIP_BASE + SHIP_ARMOR * sh.armor) * sh.eff / 100 + items_value(sh.items)


def unit_value(u: LandUnit) -> float:
    return (UNIT_BASE + UNIT_ATTACK * u.type.att) * u.eff / 100 + items_value(u.items)


__all__ = [
    "DES_VALUE",
    "ITEM_PRICE",
    "Weights",
    "sector_value",
    "ship_value",
    "unit_value",
]
