"""Supply and resupply (spec §0.7)."""

from __future__ import annotations

from conftest import world_from

from bellum.dice import ServerRandom
from bellum.empire.rules import Rules
from bellum.empire.supply import in_supply

RULES = Rules()  # the stock server: NOFOOD on

ARTILLERY = """
[[sector]]
at = [0, 0]
des = "wilderness"
owner = 1
eff = 100
mob = 50
[[sector]]
at = [4, 0]
des = "wilderness"
owner = 1
eff = 100
mob = 50
[[sector]]
at = [2, 0]
des = "{des}"
owner = 1
eff = 100
mob = 30
items = {{ shell = 40 }}
[[unit]]
uid = 0
type = "art"
owner = 1
at = [0, 0]
tech = 100.0
mob = 50
mil = 25
"""


def test_units_without_ammunition_are_always_supplied() -> None:
    w = world_from(ARTILLERY.format(des="wilderness"))
    w.units[0].type = w.tables.land["inf"]
    assert in_supply(w, w.units[0], rules=RULES)


def test_a_warehouse_nearby_resupplies_and_pays_mobility() -> None:
    w = world_from(ARTILLERY.format(des="warehouse"))
    art = w.units[0]
    need = min(art.type.ammo, art.type.cargo["shell"])
    assert not in_supply(
        world_from(ARTILLERY.format(des="wilderness")), art, resupply=False, rules=RULES
    )
    assert in_supply(w, art, resupply=False, rules=RULES)
    assert art.items.get("shell", 0) == 0  # a dry run moves nothing
    assert in_supply(w, art, dice=ServerRandom(1), rules=RULES)
    assert art.items["shell"] == need
    assert w.sector((2, 0)).get("shell") == 40 - need


def test_a_depot_without_mobility_cannot_haul() -> None:
    w = world_from(ARTILLERY.format(des="warehouse"))
    w.sector((2, 0)).mob = 0
    assert not in_supply(w, w.units[0], rules=RULES)
    assert w.sector((2, 0)).get("shell") == 40


def test_a_plain_sector_is_no_depot() -> None:
    w = world_from(ARTILLERY.format(des="wilderness"))
    assert not in_supply(w, w.units[0], rules=RULES)
    assert w.sector((2, 0)).get("shell") == 40


def test_the_units_own_sector_gives_first_and_free() -> None:
    w = world_from(ARTILLERY.format(des="warehouse"))
    w.sector((0, 0)).put("shell", 100)
    assert in_supply(w, w.units[0], rules=RULES)
    assert w.sector((2, 0)).get("shell") == 40 and w.sector((2, 0)).mob == 30
