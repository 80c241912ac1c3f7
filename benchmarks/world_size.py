"""How world size costs: making a world database, and one attack's hold on its write lock.

Run: ``.venv/bin/python benchmarks/world_size.py [SIDE ...]`` (default 64 128 256 512).
Each size runs in a fresh process so its peak memory is its own; the world is a square
sea with a front of two countries at war on the equator (8 sectors each side).  The
figures justify :data:`bellum.empire.geometry.MAX_SIDE`: the largest size whose attack
keeps the database locked for a few seconds at most (other commands wait up to 30 s).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bellum.dice import ServerRandom
from bellum.empire import geometry
from bellum.empire.combat import attack
from bellum.empire.events import RecordingPrompter, ScriptedPrompter
from bellum.empire.geometry import Geometry
from bellum.empire.io.sqlite.store import Store
from bellum.empire.orders import Order
from bellum.empire.world import Nation, Relation, Sector, World


def front_world(side: int) -> World:
    geometry.MAX_SIDE = max(geometry.MAX_SIDE, side)  # measure past the limit too
    world = World(geometry=Geometry(side, side))
    sea, land = world.tables.sector("sea"), world.tables.sector("wilderness")
    for cnum, other in ((1, 2), (2, 1)):
        world.nations[cnum] = Nation(cnum=cnum, name=f"C{cnum}", money=25000)
        world.nations[cnum].relations[other] = Relation.AT_WAR
    for y in range(side):
        for x in range(y % 2, side, 2):
            world.sectors[(x, y)] = Sector(x=x, y=y, type=sea)
    for i in range(8):
        for owner, dx, mil in ((1, 0, 200), (2, 2, 5)):
            s = Sector(x=4 * i + dx, y=0, type=land, owner=owner, oldowner=owner, eff=100, mob=127)
            s.items = {"mil": mil, "civ": 50}
            world.sectors[s.xy] = s
    return world


def one_size(side: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "w.db"
        start = time.perf_counter()
        Store.create(db, front_world(side)).close()
        made = time.perf_counter() - start
        store = Store.open(db)
        start = time.perf_counter()
        session = store.begin_command()
        prompter = RecordingPrompter(ScriptedPrompter(["20", "20", "5"]))
        result = attack(session.world, "2,0", 1, ServerRandom(1), prompter, [])
        session.commit(Order("attack", ("2,0",)), prompter.answers, result)
        locked = time.perf_counter() - start
        store.close()
        size = db.stat().st_size
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"side": side, "sectors": side * side // 2, "create_s": round(made, 2),
            "attack_lock_s": round(locked, 2), "db_mb": round(size / 2**20, 1),
            "peak_rss_mb": round(peak)}  # fmt: skip


def main() -> None:
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(one_size(int(sys.argv[2]))))
        return
    for side in [int(a) for a in sys.argv[1:]] or [64, 128, 256, 512]:
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(side)],
            capture_output=True,
            text=True,
            check=True,
        )
        print(out.stdout.strip(), flush=True)


if __name__ == "__main__":
    main()
