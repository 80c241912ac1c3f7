"""A 64 x 32 world with a front, coasts, ships, units and planes, made from a seed.

The example worlds hold a handful of sectors; the planning table is meant for a real
game's map, so the browser tests (pan and zoom on 1024 sectors, every way to take a
target) and the screenshots use this one.  Run it to write the file:
``python tests/web/worldgen.py build/frontier.toml``.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

W, H = 64, 32
#: Country 1 holds the west of the main continent, country 2 the east; 3 is 1's ally on
#: an island in the north, 4 a neutral on the eastern island.
NATIONS = [
    (1, "Ruritania", (-14, 0), {2: "at-war", 3: "allied", 4: "neutral"}),
    (2, "Borduria", (14, 0), {1: "at-war", 3: "hostile", 4: "neutral"}),
    (3, "Syldavia", (-6, -12), {1: "allied", 2: "hostile"}),
    (4, "Carpania", (24, 10), {1: "neutral", 2: "neutral"}),
]
DESIGNATIONS = ["wilderness"] * 6 + ["plains", "mine", "agribusiness", "fortress", "mountain"]


def _land(rng: random.Random, k: int) -> set[tuple[int, int]]:
    blobs = [(-10, 0, 9.5), (8, 2, 9.0), (-4, -12, 4.0), (24, 10, 4.5), (-26, 10, 3.5)]
    land = set()
    for y in range(-H * k // 2, H * k // 2):
        for x in range(-W * k // 2, W * k // 2):
            if (x + y) % 2:
                continue
            for bx, by, r in blobs:
                d = ((x - bx * k) / 2) ** 2 + (y - by * k) ** 2
                if d < (r * k + rng.uniform(-1.2, 1.2) * k) ** 2:
                    land.add((x, y))
    return land


def frontier(seed: int = 7, scale: int = 1) -> str:
    """The world's TOML; ``scale`` 4 makes it 256 x 128 (the same continents, bigger)."""
    k = scale
    rng = random.Random(seed)
    land = _land(rng, k)
    out = [
        f"# A generated {W * k} x {H * k} world for the planning table's browser tests"
        " (worldgen.py).",
        "schema_version = 1",
        "",
        "[world]",
        f"size = [{W * k}, {H * k}]",
        'fill = "sea"',
        "",
    ]
    for cnum, name, (cx, cy), rel in NATIONS:
        relations = ", ".join(f'{n} = "{v}"' for n, v in rel.items())
        out += [
            "[[nation]]",
            f"cnum = {cnum}",
            f'name = "{name}"',
            "money = 25000",
            "btu = 640",
            "tech = 120.0",
            "origin = [0, 0]",
            f"capital = [{cx * k % (W * k)}, {cy * k % (H * k)}]",
            f"relations = {{ {relations} }}",
            "",
        ]

    def owner(x: int, y: int) -> int:
        if y <= -8 * k and -12 * k <= x <= 4 * k:
            return 3
        if x >= 18 * k and y >= 5 * k:
            return 4
        if x < -24 * k:
            return 0
        return 1 if x < -1 + (y % 3) else 2

    capitals = {c: (cx * k, cy * k) for c, _, (cx, cy), _ in NATIONS}
    for x, y in sorted(land, key=lambda c: (c[1], c[0])):
        o = owner(x, y)
        des = rng.choice(DESIGNATIONS)
        if capitals.get(o) == (x, y):
            des = "capital"
        elif o == 1 and (x, y) == (-16 * k, 4 * k):
            des = "airfield"
        near_front = o in (1, 2) and abs(x + 1) <= 4
        mil = 0 if o == 0 else rng.randint(40, 160) if near_front else rng.randint(5, 60)
        out += [
            "[[sector]]",
            f"at = [{x % (W * k)}, {y % (H * k)}]",
            f'des = "{des}"',
            f"owner = {o}",
            f"eff = {rng.choice([60, 80, 100, 100])}",
            f"mob = {rng.choice([64, 100, 127])}",
            f"mil = {mil}",
            f"civ = {rng.randint(50, 600) if o else 0}",
        ]
        if des == "airfield":
            out += ["items = { petrol = 100 }"]
        if o == 2 and rng.random() < 0.15:
            out += [f"mines = {rng.randint(1, 20)}"]
        out.append("")
    units = [
        (0, "cav", 1, (-3, 1)), (1, "inf", 1, (-3, 1)), (2, "art", 1, (-4, 0)),
        (3, "inf", 2, (1, 1)), (4, "cav", 2, (3, -1)),
    ]  # fmt: skip
    for uid, kind, o, (x, y) in units:
        out += ["[[unit]]", f"uid = {uid}", f'type = "{kind}"', f"owner = {o}",
                f"at = [{x % (W * k)}, {y % (H * k)}]", "tech = 120.0", "mob = 100", "mil = 20", ""]  # fmt: skip
    coast = sorted(
        ((x, y) for x, y in land if owner(x, y) == 2 and (x + 2, y) not in land),
        key=lambda c: (c[1], c[0]),
    )
    sx, sy = coast[len(coast) // 2]
    out += ["[[ship]]", "uid = 0", 'type = "tt"', "owner = 1", f"at = [{(sx + 2) % (W * k)}, {sy % (H * k)}]",
            "tech = 120.0", "mob = 100", "mil = 100", "items = { food = 100 }", ""]  # fmt: skip
    out += ["[[ship]]", "uid = 1", 'type = "cs"', "owner = 2", f"at = [{(sx + 2) % (W * k)}, {sy % (H * k)}]",
            "tech = 100.0", "mob = 60", "mil = 20", ""]  # fmt: skip
    out += ["[[plane]]", "uid = 0", 'type = "tc"', "owner = 1", f"at = [{-16 * k % (W * k)}, {4 * k}]",
            "tech = 150.0", "mob = 127", ""]  # fmt: skip
    return "\n".join(out)


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(frontier())
