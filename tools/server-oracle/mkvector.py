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
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import tomli_w

from bellum.empire.io.toml import load_world
from bellum.empire.io.xdump.mapping import dump_to_world, read_dump
from bellum.empire.world import World

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROMPT = re.compile(r"\[\d+:\d+\] Command : ")
SECTOR_FIELDS = ("owner", "oldowner", "eff", "mob", "mines", "che", "loyalty")
UNIT_FIELDS = ("owner", "eff", "mob", "xy", "ship", "land")


def command_output(text: str) -> str:
    """What the second command printed: between its prompt and the next one.

    The client ends each command's output with one newline of its own.  When
    the answers run out at a prompt the session ends there, inside the command.
    """
    parts = PROMPT.split(text)
    if len(parts) > 4:
        sys.exit(f"more answers than prompts: {len(parts) - 3} commands ran")
    out = parts[2]
    if len(parts) == 3:
        # Input ran out at one of the command's prompts: the server said goodbye.
        out = out[: out.rindex("Bye-bye\n")]
        return out
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


def telegrams(tel_dir: Path) -> dict[str, str]:
    """The text of every telegram the command sent, by recipient (country number as text).

    A mailbox is a run of records: a 16-byte header (sender, type, continuation
    flag, body length, date) and the body.
    """
    found: dict[str, str] = {}
    for f in tel_dir.glob("tel*"):
        if f.name == "tel0":
            continue  # the deity's mailbox: bellum's worlds have no deity to tell
        data = f.read_bytes()
        body, i = [], 0
        while i < len(data):
            (length,) = struct.unpack_from("<I", data, i + 4)
            body.append(data[i + 16 : i + 16 + length].decode("latin-1"))
            i += 16 + length
        if body:
            found[f.name[3:]] = "".join(body)
    return dict(sorted(found.items(), key=lambda kv: int(kv[0])))


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
    subprocess.run([sys.executable, str(HERE / "scenario.py"), str(work)], check=True)
    size = tuple(int(v) for v in (work / "size").read_text().split())
    before = dump_to_world(read_dump(work / "initial.xdump"), size)
    meant = load_world(ROOT / world)
    for kind, rows in changes(meant, before).items():
        for row in rows:
            print(f"warning: the server keeps {kind} {row} otherwise", file=sys.stderr)
    for kind in ("units", "ships", "planes"):
        for uid, o in getattr(meant, kind).items():
            there = getattr(before, kind).get(uid)
            if there is not None and there.tech != o.tech:
                print(
                    f"warning: the server has {kind} #{uid} at tech {there.tech}", file=sys.stderr
                )
    after = dump_to_world(read_dump(work / "final.xdump"), size)
    doc: dict[str, Any] = {
        "about": about,
        "world": world,
        "command": command,
        "answers": answers,
        "seed": int(seed),
        "transcript": command_output((work / "out.txt").read_text()),
        "telegrams": telegrams(work / "run" / "data" / "tel"),
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
