"""Generated worlds for the planner's tests: two countries at war along a ragged front."""

from __future__ import annotations

import numpy as np

from bellum.empire.geometry import Geometry
from bellum.empire.world import LandUnit, Nation, Plane, Relation, Sector, World

DESIGNATIONS = ("wilderness", "mine", "harbor", "capital", "warehouse")


def front(seed: int, width: int = 16, height: int = 8, units: int = 2) -> World:
    """Country 1 holds the west, country 2 the east; every sector is land.

    Mil, mobility, efficiency and designations are drawn from ``seed``; country 1
    gets ``units`` infantry units on its side of the front.
    """
    rng = np.random.default_rng(seed)
    world = World(geometry=Geometry(width, height))
    t = world.tables
    for cnum, other in ((1, 2), (2, 1)):
        n = Nation(cnum=cnum, name=f"C{cnum}", money=20000, btu=int(rng.integers(9, 200)))
        n.relations[other] = Relation.AT_WAR
        world.nations[cnum] = n
    edge = width // 2
    for y in range(height):
        for x in range(y % 2, width, 2):
            near = abs(x - edge) <= 3
            owner = 1 if x < edge else 2
            des = str(rng.choice(DESIGNATIONS)) if owner == 2 else "wilderness"
            s = Sector(x=x, y=y, type=t.sector(des), owner=owner, oldowner=owner,
                       eff=int(rng.integers(10, 101)), mob=int(rng.integers(0, 128)))  # fmt: skip
            if owner == 1:
                s.items = {"mil": int(rng.integers(0, 120)) if near else 0, "civ": 10}
            else:
                s.items = {"mil": int(rng.integers(0, 25)), "civ": int(rng.integers(0, 300))}
            world.sectors[s.xy] = s
    inf = t.land["inf"]
    west = [s for s in world.sectors.values() if s.owner == 1 and edge - 3 <= s.x < edge]
    for uid in range(units):
        s = west[int(rng.integers(len(west)))]
        world.units[uid] = LandUnit(uid=uid, type=inf, owner=1, x=s.x, y=s.y, eff=100,
                                    mob=int(rng.integers(20, 128)), items={"mil": 10})  # fmt: skip
    return world


def airborne(seed: int, planes: int = 2) -> World:
    """:func:`front` with an airfield far behind country 1's lines (0,0: 100 mil, petrol)
    holding ``planes`` C-56 transports, which reach every sector within 7."""
    world = front(seed, units=0)
    t = world.tables
    field = world.sectors[(0, 0)]
    field.type, field.eff, field.mob = t.sector("airfield"), 100, 100
    field.items = {"mil": 100, "civ": 10, "petrol": 100}
    for uid in range(planes):
        world.planes[uid] = Plane(uid=uid, type=t.planes["tr"], owner=1, x=0, y=0, eff=100,
                                  mob=100, tech=100.0)  # fmt: skip
    return world
