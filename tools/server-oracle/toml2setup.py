"""Write the deity commands that build a bellum world file on a real server.

    python toml2setup.py WORLD.toml DIR

writes DIR/setup (deity), DIR/setupN (commands of country N: plane missions)
and DIR/size.  It covers what the scenarios here use: sectors (type, owner,
old owner, efficiency, mobility, mines, items), nations (capital, origin,
BTUs, money, tech, relations), planes, land units and ships.  A country must
own its capital to play: a nation without one gets a capital sector that
exists only on the server, far from the action (a note says where).
"""

from __future__ import annotations

import sys
from pathlib import Path

from bellum.empire.io.toml import load_world
from bellum.empire.world import Nation

ITEM_KEY = {
    "civ": "c",
    "mil": "m",
    "shell": "s",
    "gun": "g",
    "petrol": "p",
    "iron": "i",
    "dust": "d",
    "bar": "b",
    "food": "f",
    "oil": "o",
    "lcm": "l",
    "hcm": "h",
    "uw": "u",
    "rad": "r",
}
MISSION_WORD = {
    "air-defense": "air",
    "interdiction": "interdiction",
    "support": "support",
    "osupport": "offensive",
    "dsupport": "defensive",
    "escort": "escort",
    "reserve": "reserve",
}
RELATION_KEY = "whnfa"  # at-war, hostile, neutral, friendly, allied


def setup(world_path: Path, out: Path) -> None:
    w = load_world(world_path)
    out.mkdir(parents=True, exist_ok=True)
    geo = w.geometry
    (out / "size").write_text(f"{geo.width} {geo.height}\n")
    counts: dict[tuple[str, int], int] = {}
    for s in w.sectors.values():
        counts[s.type.mnemonic, s.eff] = counts.get((s.type.mnemonic, s.eff), 0) + 1
    fill, fill_eff = max(counts, key=lambda k: counts[k])

    def at(xy: tuple[int, int]) -> str:
        return geo.fmt(xy, (0, 0))

    cmds = [f"desi * {fill}", f"edit l * e {fill_eff}"]
    cmds += [f"add {n.cnum} {n.name} {n.name} p" for n in sorted(w.nations.values(), key=_cnum)]
    for n in sorted(w.nations.values(), key=_cnum):
        cap = n.capital
        if cap is None or w.sectors[cap].owner != n.cnum:
            cap = geo.norm(geo.width // 2 + 4 * n.cnum, geo.height // 2)
            print(
                f"note: country {n.cnum} gets a server-only capital at {at(cap)}", file=sys.stderr
            )
            cmds += [
                f"desi {at(cap)} c",
                f"give c {at(cap)} 100",
                f"edit l {at(cap)} o {n.cnum} O {n.cnum} e 100 m 127",
            ]
        cmds.append(
            f"edit c {n.cnum} c {at(cap)} o {at(n.origin)} s 4 b {n.btu} M {n.money} T {n.tech}"
        )
    for xy, s in sorted(w.sectors.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        plain = not (s.owner or s.items or s.mob or s.mines)
        if (s.type.mnemonic, s.eff) == (fill, fill_eff) and plain:
            continue
        if s.type.mnemonic != fill:
            cmds.append(f"desi {at(xy)} {s.type.mnemonic}")
        cmds += [f"give {ITEM_KEY[i]} {at(xy)} {n}" for i, n in s.items.items() if n]
        cmds.append(f"edit l {at(xy)} o {s.owner} O {s.oldowner} e {s.eff} m {s.mob}")
        if s.mines:
            cmds.append(f"edit l {at(xy)} M {s.mines}")
    for uid, u in sorted(w.units.items()):
        cmds.append(f"build l {at(u.xy)} {u.type.mnemonic}")
        cmds.append(f"edit u {uid} O {u.owner} e {u.eff} M {u.mob} t {int(u.tech)}")
        cmds += [f"edit u {uid} {ITEM_KEY[i]} {n}" for i, n in u.items.items()]
    player: dict[int, list[str]] = {}
    for uid, sh in sorted(w.ships.items()):
        cmds.append(f"build s {at(sh.xy)} {sh.type.mnemonic}")
        cmds.append(f"edit s {uid} O {sh.owner} E {sh.eff} M {sh.mob} T {int(sh.tech)}")
        cmds += [f"edit s {uid} {ITEM_KEY[i]} {n}" for i, n in sh.items.items()]
        if sh.fleet:
            player.setdefault(sh.owner, []).append(f"fleetadd {sh.fleet} {uid}")
        if sh.rpath:
            which = sh.fleet if "g" in sh.rflags else str(uid)
            orders = sh.rflags.replace("g", "")
            player.setdefault(sh.owner, []).append(f"retreat {which} {sh.rpath} {orders}")
    for uid, p in sorted(w.planes.items()):
        cmds.append(f"build p {at(p.xy)} {p.type.mnemonic}")
        wing = f" w {p.wing}" if p.wing else ""
        cmds.append(f"edit p {uid} O {p.owner} e {p.eff} m {p.mob} t {int(p.tech)}{wing}")
        if p.ship is not None:
            cmds.append(f"edit p {uid} s {p.ship}")
        if p.land is not None:
            cmds.append(f"edit p {uid} y {p.land}")
        if p.mission:
            centre = geo.fmt(p.op_center or p.xy, w.nations[p.owner].origin)
            player.setdefault(p.owner, []).append(
                f"mission plane {uid} {MISSION_WORD[p.mission]} {centre} {p.op_radius}"
            )
    for n in sorted(w.nations.values(), key=_cnum):
        for other, r in sorted(n.relations.items()):
            cmds.append(f"decl {RELATION_KEY[int(r)]} {other} {n.cnum}")
    (out / "setup").write_text("\n".join(cmds) + "\n")
    for cnum, lines in player.items():
        (out / f"setup{cnum}").write_text("\n".join(lines) + "\n")


def _cnum(n: Nation) -> int:
    return n.cnum


if __name__ == "__main__":
    setup(Path(sys.argv[1]), Path(sys.argv[2]))
