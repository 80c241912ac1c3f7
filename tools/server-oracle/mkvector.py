"""Record one verified run: play it on the real server, write tests/vectors/NAME.toml.

    python mkvector.py NAME WORLD.toml SEED 'COMMAND ARGS' [ANSWER ...] [--about TEXT]

The world file is built on a 4.4.1 server (toml2setup.py), country 1 types
the command with the server seeded like its test suite (seed SEED), and the
vector keeps what the server printed and every object the command changed,
as the server's own dump shows them afterwards.  tests/empire/test_empire_vectors.py
replays each vector through bellum.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import tomli_w

from bellum.empire.io.xdump.mapping import dump_to_world, read_dump
from bellum.empire.world import World

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROMPT = re.compile(r"\[\d+:\d+\] Command : ")
SECTOR_FIELDS = ("owner", "oldowner", "eff", "mob", "mines", "che", "loyalty")
UNIT_FIELDS = ("owner", "eff", "mob", "xy", "ship", "land")


def command_output(text: str) -> str:
    """What the second command printed: between its prompt and the next one.

    The client ends each command's output with one newline of its own.
    """
    parts = PROMPT.split(text)
    out = parts[2]
    return out[:-1] if out.endswith("\n") else out


def changes(before: World, after: World) -> dict[str, list[dict[str, Any]]]:
    """Every object whose combat fields differ, with all those fields as the server has them."""
    found: dict[str, list[dict[str, Any]]] = {"sector": [], "plane": [], "unit": [], "ship": []}
    for xy, s in sorted(after.sectors.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        b = before.sectors[xy]
        row = {f: getattr(s, f) for f in SECTOR_FIELDS}
        if row != {f: getattr(b, f) for f in SECTOR_FIELDS} or s.items != b.items:
            found["sector"].append({"at": list(xy), **row, "items": dict(sorted(s.items.items()))})
    for kind, attr in (("plane", "planes"), ("unit", "units"), ("ship", "ships")):
        old, new = getattr(before, attr), getattr(after, attr)
        for uid in sorted(set(old) | set(new)):
            if uid not in new:
                found[kind].append({"uid": uid, "gone": True})
                continue
            o = new[uid]
            row = {f: getattr(o, f, None) for f in UNIT_FIELDS}
            items = getattr(o, "items", {})
            if (
                uid in old
                and row == {f: getattr(old[uid], f, None) for f in UNIT_FIELDS}
                and items == getattr(old[uid], "items", {})
            ):
                continue
            entry = {"uid": uid, **{k: v for k, v in row.items() if v is not None}}
            entry["xy"] = list(o.xy)
            if kind != "plane":
                entry["items"] = dict(sorted(items.items()))
            found[kind].append(entry)
    return {k: v for k, v in found.items() if v}


def main(argv: list[str]) -> None:
    about = ""
    if "--about" in argv:
        i = argv.index("--about")
        about = argv[i + 1]
        del argv[i : i + 2]
    name, world, seed, command, *answers = argv
    work = ROOT / "build" / "oracle" / name
    subprocess.run(
        [sys.executable, str(HERE / "toml2setup.py"), str(ROOT / world), str(work)], check=True
    )
    lines = [f"__cmd added -{int(seed) - 1} 0 0", command, *answers]
    (work / "cmds").write_text("\n".join(lines) + "\n")
    subprocess.run([str(HERE / "scenario.sh"), str(work)], check=True)
    size = tuple(int(v) for v in (work / "size").read_text().split())
    before = dump_to_world(read_dump(work / "initial.xdump"), size)
    after = dump_to_world(read_dump(work / "final.xdump"), size)
    doc: dict[str, Any] = {
        "about": about,
        "world": world,
        "command": command,
        "answers": answers,
        "seed": int(seed),
        "transcript": command_output((work / "out.txt").read_text()),
        "after": changes(before, after),
    }
    dest = ROOT / "tests" / "vectors" / f"{name}.toml"
    dest.write_text(
        "# Recorded on a real Wolfpack Empire 4.4.1 server by tools/server-oracle/mkvector.py.\n"
        + tomli_w.dumps(doc, multiline_strings=True)
    )
    print(f"wrote {dest.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
