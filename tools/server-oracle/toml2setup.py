"""Write the deity commands that build a bellum world file on a real server.

    python toml2setup.py WORLD.toml DIR

writes DIR/setup (deity), DIR/setupN (commands of country N: missions, fleets,
retreat orders), DIR/names (each country's number and name) and DIR/size.
It covers what the scenarios here use: sectors
(type, owner, old owner, efficiency, mobility, mines, items, infrastructure,
loyalty, guerrillas, plague), nations (capital, origin, BTUs, money, tech,
relations), planes, land units (fortification, retreat percentage, army,
cargo, missions) and ships (missions, fleets, retreat orders).  A country must
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
    # Players log in by name, with their name as the password.
    (out / "names").write_text(
        "".join(f"{n.cnum} {n.name}\n" for n in sorted(w.nations.values(), key=_cnum))
    )
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
        # A country plays only while it owns a capital, mountain or sanctuary there.
        usable = ("capital", "mountain", "sanctuary")
        if cap is None or w.sectors[cap].owner != n.cnum or w.sectors[cap].type.name not in usable:
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
        extra = [
            f"{key} {value}"
            for key, value in (
                ("R", s.road),
                ("r", s.rail),
                ("d", s.defense),
                ("l", s.loyalty),
                ("X", s.che_target),
                ("x", s.che),
                ("a", s.avail),
                ("p", int(s.plague)),
            )
            if value
        ]
        if extra:
            cmds.append(f"edit l {at(xy)} " + " ".join(extra))
    player: dict[int, list[str]] = {}
    # The server numbers what it builds 0, 1, 2...: a gap in a world's numbers is
    # filled by a throw-away object, scrapped once everything is built.
    fillers: list[str] = []
    built = {"l": 0, "s": 0, "p": 0}

    def build(kind: str, key: str, uid: int, xy: str, mnemonic: str) -> list[str]:
        lines = []
        while built[kind] < uid:
            lines.append(f"build {kind} {xy} {mnemonic}")
            fillers.append(f"edit {key} {built[kind]} O 0")
            built[kind] += 1
        built[kind] += 1
        return [*lines, f"build {kind} {xy} {mnemonic}"]

    for uid, u in sorted(w.units.items()):
        cmds += build("l", "u", uid, at(u.xy), u.type.mnemonic)
        cmds.append(f"edit u {uid} O {u.owner} e {u.eff} M {u.mob} t {int(u.tech)}")
        cmds += [f"edit u {uid} {ITEM_KEY[i]} {n}" for i, n in u.items.items()]
        if u.retreat != 42:
            cmds.append(f"edit u {uid} Z {u.retreat}")
        if u.army:
            cmds.append(f"edit u {uid} a {u.army}")
        if u.plague:
            cmds.append(f"edit u {uid} A {int(u.plague)}")
        if u.mission:
            centre = geo.fmt(u.op_center or u.xy, w.nations[u.owner].origin)
            player.setdefault(u.owner, []).append(
                f"mission land {uid} {MISSION_WORD[u.mission]} {centre} {u.op_radius}"
            )
    for uid, sh in sorted(w.ships.items()):
        cmds += build("s", "s", uid, at(sh.xy), sh.type.mnemonic)
        cmds.append(f"edit s {uid} O {sh.owner} E {sh.eff} M {sh.mob} T {int(sh.tech)}")
        cmds += [f"edit s {uid} {ITEM_KEY[i]} {n}" for i, n in sh.items.items()]
        if sh.plague:
            cmds.append(f"edit s {uid} a {int(sh.plague)}")
        if sh.mission:
            centre = geo.fmt(sh.op_center or sh.xy, w.nations[sh.owner].origin)
            player.setdefault(sh.owner, []).append(
                f"mission ship {uid} {MISSION_WORD[sh.mission]} {centre} {sh.op_radius}"
            )
        if sh.fleet:
            player.setdefault(sh.owner, []).append(f"fleetadd {sh.fleet} {uid}")
        if sh.rpath:
            which = sh.fleet if "g" in sh.rflags else str(uid)
            orders = sh.rflags.replace("g", "")
            player.setdefault(sh.owner, []).append(f"retreat {which} {sh.rpath} {orders}")
    # A sector held only by land units is abandoned when written before they exist.
    for xy, s in sorted(w.sectors.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if s.owner and not s.civ and not s.mil and w.units_at(xy):
            cmds.append(f"edit l {at(xy)} o {s.owner} O {s.oldowner}")
    for uid, u in sorted(w.units.items()):
        if u.ship is not None:
            cmds.append(f"edit u {uid} S {u.ship}")
        if u.land is not None:
            cmds.append(f"edit u {uid} Y {u.land}")
        if u.fort:
            cmds.append(f"edit u {uid} F {u.fort}")
    for uid, p in sorted(w.planes.items()):
        cmds += build("p", "p", uid, at(p.xy), p.type.mnemonic)
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
    cmds += fillers
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
