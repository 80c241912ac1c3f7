"""Whether a land unit is in supply, and resupplying it (spec §0.7).

A unit is in supply when it holds its basic load of shells (and, without
NOFOOD, food for one update).  The check that combat uses pulls what is
missing, in the server's order, from: the sector the unit stands in, owned
harbors, warehouses and headquarters (at least 60 % efficient) within the
nation's supply range and reachable through its own sectors, supply ships
in such harbors, and supply units.  Sources pay mobility for the haul and
never give up the food their own people need, nor a supply unit its own
basic load.  The dry-run variant (``resupply=False``) only looks.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from bellum.dice import ServerRandom
from bellum.empire.movement import MoveKind, path_cost
from bellum.empire.rules import Rules
from bellum.empire.tables import techfact
from bellum.empire.world import LandUnit, Sector, Ship, World, peek_items

SOURCE_TYPES = ("harbor", "warehouse", "headquarters")
PACKING = {"norm": "normal", "ware": "warehouse", "urban": "urban", "bank": "bank"}
ITEM_MNEMONIC = {"shell": "s", "food": "f"}


def _food_need(people: int) -> int:
    return math.ceil(60 * 0.0005 * people)


def basic_load(u: LandUnit, rules: Rules) -> dict[str, int]:
    """What ``u`` must carry to count as supplied."""
    need = {"shell": min(u.type.ammo, u.type.cargo.get("shell", 0))}
    if not rules.NOFOOD:
        people = u.items.get("civ", 0) + u.mil + u.items.get("uw", 0)
        need["food"] = min(_food_need(people), u.type.cargo.get("food", 0))
    return need


@dataclass
class _Source:
    """Somewhere supplies can come from, with what it may spare and how it pays."""

    holder: Sector | Ship | LandUnit
    items: dict[str, int]
    payer: Sector | LandUnit | None
    pathcost: float
    packing: int = 1

    def spare(self, item: str, rules: Rules) -> int:
        have = self.items.get(item, 0)
        if item == "food" and isinstance(self.holder, Sector | Ship):
            people = sum(self.items.get(k, 0) for k in ("civ", "mil", "uw"))
            have -= _food_need(people)
        if isinstance(self.holder, LandUnit):
            have -= basic_load(self.holder, rules).get(item, 0)
        return max(0, have)


def _packing(world: World, s: Sector, item: str) -> int:
    cls = "inefficient" if s.eff < 60 else PACKING.get(s.type.packing, "normal")
    it = world.tables.items[ITEM_MNEMONIC[item]]
    return it.packing.get(cls, 1)


def _sources(world: World, u: LandUnit, rules: Rules) -> Iterator[_Source]:
    here = world.sector(u.xy)
    if not u.loaded and here.owner == u.owner:
        yield _Source(here, here.items, None, 0.0)
    reach = int(techfact(int(world.tech(u.owner)), 10))
    geo = world.geometry
    harbors = []
    # What is passed over is read where it is (a scratch world copies nothing for it).
    for xy in geo.within(u.xy, reach):
        s = world.peek(xy)
        if s.owner != u.owner or xy == u.xy or s.type.name not in SOURCE_TYPES or s.eff < 60:
            continue
        if s.type.name == "headquarters" and s.dist == s.xy:
            continue
        s = world.sector(xy)
        pc = path_cost(world, xy, u.xy, u.owner, MoveKind.MOVE, rules=rules)
        if pc < 0:
            continue
        if s.type.name == "harbor":
            harbors.append((s, pc))
        yield _Source(s, s.items, s, pc)
    for k, sh in sorted(peek_items(world.ships)):
        if sh.owner != u.owner or not sh.type.has("supply") or sh.type.has("sub"):
            continue
        for s, pc in harbors:
            if s.xy == sh.xy and s.eff >= 2:
                sh = world.ships[k]
                yield _Source(sh, sh.items, s, pc)
    for k, v in sorted(peek_items(world.units)):
        if v.uid == u.uid or v.owner != u.owner or not v.type.has("supply") or v.loaded:
            continue
        if geo.mapdist(v.xy, u.xy) > reach:
            continue
        pc = path_cost(world, v.xy, u.xy, u.owner, MoveKind.MOVE, rules=rules)
        if pc >= 0:
            v = world.units[k]
            yield _Source(v, v.items, v, pc)


def in_supply(
    world: World,
    u: LandUnit,
    resupply: bool = True,
    dice: ServerRandom | None = None,
    *,
    rules: Rules,
) -> bool:
    """True if ``u`` has its basic load, pulling what is missing when ``resupply``.

    Mobility for a haul is randomly rounded by ``dice`` (the combat's generator);
    without one the cost is rounded to nearest.
    """
    if rules.NOFOOD and u.type.ammo == 0:
        return True
    ok = True
    for item, need in basic_load(u, rules).items():
        missing = need - u.items.get(item, 0)
        if missing <= 0:
            continue
        for src in _sources(world, u, rules):
            if missing <= 0:
                break
            take = min(missing, src.spare(item, rules))
            if take <= 0:
                continue
            cost_each = 0.0
            if src.payer is not None:
                pack = _packing(world, src.payer, item) if isinstance(src.payer, Sector) else 1
                cost_each = src.pathcost / pack
                if cost_each > 0:
                    take = min(take, int(max(0, src.payer.mob) / cost_each))
                    if take <= 0:
                        continue
            missing -= take
            if not resupply:
                continue
            src.items[item] = src.items.get(item, 0) - take
            u.items[item] = u.items.get(item, 0) + take
            if src.payer is not None and cost_each > 0:
                cost = take * cost_each
                paid = dice.roundavg(cost) if dice else int(cost + 0.5)
                src.payer.mob = max(0, src.payer.mob - paid)
        if missing > 0:
            ok = False
    return ok
