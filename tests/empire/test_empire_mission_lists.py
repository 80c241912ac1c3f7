"""What is on a mission at a sector (``missions.mission_lists``), and what a flight finds
in each sector (``air.Present``): both by number, whatever order the world's dicts hold."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bellum.dice import ServerRandom
from bellum.empire.combat import air, missions
from bellum.empire.combat.commands import COMMANDS
from bellum.empire.combat.state import Combat, Mode
from bellum.empire.io.toml import load_world
from bellum.empire.rules import Rules
from bellum.empire.world import World

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "empire" / "air-support.toml"


def _scrambled() -> World:
    """air-support.toml with more planes, some on missions, put in the world's dicts out
    of number order (the example has no land units or ships on missions)."""
    world = load_world(EXAMPLE)
    bomber = world.planes[0]
    planes = {uid: replace(bomber, uid=uid, mission=m) for uid, m in
              ((7, "support"), (3, "osupport"), (5, ""), (9, "support"), (4, "osupport"))}  # fmt: skip
    planes[6] = replace(bomber, uid=6, owner=2, mission="dsupport", x=2, y=0)
    world.planes = {**planes, **world.planes}
    assert list(world.planes) != sorted(world.planes)
    return world


def _oracle(w: World, at: tuple[int, int], wanted: tuple[str, ...]) -> dict[int, list[object]]:
    """The rule as the server applies it: for each mission in turn, the land units, the
    ships and the planes by number; each one found goes to the front of its owner's list."""
    out: dict[int, list[object]] = {}
    for mission in wanted:
        for things in (w.units, w.ships, w.planes):
            for uid in sorted(things):
                item = things[uid]
                if item.owner and item.mob >= 1 and item.mission == mission \
                        and missions.in_oparea(w, item, at):  # fmt: skip
                    out.setdefault(item.owner, []).insert(0, item)
    return dict(sorted(out.items()))


def test_mission_lists_go_by_number_newest_first() -> None:
    w = _scrambled()
    c = Combat(w, ServerRandom(1), None, 1, Mode.ATTACK, Rules(), COMMANDS["attack"].wording)  # type: ignore[arg-type]
    for wanted in (("support", "osupport"), ("support", "dsupport"), ("interdiction",)):
        got = missions.mission_lists(c, (2, 0), wanted, lambda cn: True)
        assert got == _oracle(w, (2, 0), wanted)
    both = missions.mission_lists(c, (2, 0), ("support", "osupport"), lambda cn: True)
    assert [p.uid for p in both[1]] == [4, 3, 9, 7, 1, 0]
    assert missions.mission_lists(c, (2, 0), ("support",), lambda cn: cn != 1) == {}


def test_a_flight_finds_each_sectors_units_and_ships_by_number() -> None:
    w = load_world(Path(__file__).resolve().parents[2] / "examples" / "empire" / "landing.toml")
    unit, ship = next(iter(w.units.values())), next(iter(w.ships.values()))
    w.units = {**{uid: replace(unit, uid=uid) for uid in (12, 10, 14, 11)}, **w.units}
    w.ships = {**{uid: replace(ship, uid=uid) for uid in (9, 7, 8)}, **w.ships}
    assert list(w.units) != sorted(w.units) and list(w.ships) != sorted(w.ships)
    present = air.Present.of(w)
    places = {u.xy for u in w.units.values()} | {s.xy for s in w.ships.values()}
    assert max(map(len, present.units.values())) > 1 and max(map(len, present.ships.values())) > 1
    for xy in places:
        assert present.units.get(xy, []) == w.units_at(xy)
        assert present.ships.get(xy, []) == [s for _, s in sorted(w.ships.items()) if s.xy == xy]
    assert sum(map(len, present.units.values())) == len(w.units)
