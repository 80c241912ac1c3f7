"""Play one scenario on a real Empire 4.4.1 server (see README.md next to this file).

    python scenario.py DIR

DIR/setup      deity commands that build the world
DIR/setupN     commands country N types before the game starts (missions...)
DIR/cmds       what country 1 types (the first line shifts the seed: __cmd added -S 0 0)
DIR/size       "WORLD_X WORLD_Y" (default 32 16)
DIR/names      "cnum name" per country (players log in by name, the name their password)

Writes DIR/setup.out, DIR/initial.xdump, DIR/out.txt (the player's client output),
DIR/final.xdump and DIR/tel.txt (the telegrams the command sent); the game stays in
DIR/run.  The game is ``tools/empire_server.py``'s (``EMPIRE_PREFIX`` names another
installed server); the player types through the server's own client, whose output the
vectors keep.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from empire_server import DEITY, DEITY_PASSWORD, PREFIX, EmpireGame


def commands(path: Path) -> list[str]:
    """The lines of a command file, without the ``|`` comment lines."""
    return [line for line in path.read_text().splitlines() if not line.startswith("|")]


def names(folder: Path) -> dict[str, str]:
    """Country number -> name (``DIR/names``); a country without one logs in by number."""
    path = folder / "names"
    if not path.exists():
        return {}
    pairs = (line.split(None, 1) for line in path.read_text().splitlines() if line.strip())
    return {cnum: name.strip() for cnum, name in pairs}


def telegrams(tel: Path) -> str:
    """Every non-empty mailbox, its bytes shown as printable text (others as ``?``)."""
    out = []
    for f in sorted(tel.glob("tel*")):
        data = f.read_bytes()
        if data:
            text = "".join(chr(b) if 32 <= b < 127 or b == 10 else "?" for b in data)
            out.append(f"### {f.name}\n{text}")
    return "".join(out)


def main(folder: Path) -> None:
    size = (folder / "size").read_text().split() if (folder / "size").exists() else ["32", "16"]
    install = Path(os.environ.get("EMPIRE_PREFIX", PREFIX))
    run = folder / "run"
    shutil.rmtree(run, ignore_errors=True)
    game = EmpireGame(
        install,
        {"WORLD_X": int(size[0]), "WORLD_Y": int(size[1]), "GODNEWS": 0, "keep_journal": 2},
        folder=run,
        server_args=("-R", "1"),
    )
    who = names(folder)
    try:
        game.create()
        game.launch()
        said = game.play(DEITY, DEITY_PASSWORD, commands(folder / "setup"), check=False)
        for path in sorted(folder.glob("setup[0-9]*")):
            name = who.get(path.name[5:], path.name[5:])
            said += game.play(name, name, commands(path), check=False)
        game.deity("edit c * ?tgms>0 t 0")
        (folder / "setup.out").write_text("".join(t.text() for t in said))
        game.halt()
        (folder / "initial.xdump").write_text(game.empdump())
        for f in (game.data / "tel").iterdir():
            f.write_bytes(b"")
        game.launch()
        player = who.get("1", "1")
        done = subprocess.run(
            [str(install / "bin" / "empire"), "-s", game.address, player, player],
            input="".join(f"{line}\n" for line in commands(folder / "cmds")).encode(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            check=False,
        )
        (folder / "out.txt").write_bytes(done.stdout)
        game.halt()
        (folder / "final.xdump").write_text(game.empdump())
        (folder / "tel.txt").write_text(telegrams(game.data / "tel"))
    finally:
        game.halt()


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
