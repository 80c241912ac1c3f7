"""The real Empire 4.4.1 server for tests: built once from the tarball, a fresh game per module.

The machinery is ``tools/empire_server.py`` (shared with ``tools/realistic.py``); this
module turns its errors into what a test wants: no tarball is a skip (a failure under
``BELLUM_REQUIRE_SHARED=1``), a build that fails fails.  It also holds the small
hand-made worlds the live tests play on.
"""

from __future__ import annotations

from pathlib import Path

import empire_server
import pytest
from empire_server import (
    DEITY,
    DEITY_PASSWORD,
    FAILED,
    EmpireGame,
    ServerError,
    ServerUnavailable,
    free_port,
)

from shareddata import required

TARBALL = empire_server.TARBALL


def empire_install() -> Path:
    """The installed server (``build/empire``), built from the tarball if it is not there."""
    try:
        return empire_server.empire_install(tarball=TARBALL)
    except ServerUnavailable as exc:
        if required():
            pytest.fail(f"{exc} (BELLUM_REQUIRE_SHARED=1: CI must run it)", pytrace=False)
        pytest.skip(str(exc))
    except ServerError as exc:
        pytest.fail(str(exc), pytrace=False)


#: Two countries at war on separate one-sector islands (their capitals at -10,0 and
#: 10,0), meeting at 0,0 (1's airfield, 100 mil) and 2,0 (2's highway, 40 mil): the
#: setup of the shared paradrop scenario.
FRONT = [
    "desi -10,0 c",
    "desi 10,0 c",
    "give c -10,0 100",
    "give c 10,0 100",
    "add 1 1 1 p",
    "add 2 2 2 p",
    "edit l -10,0 o 1 O 1",
    "edit l 10,0 o 2 O 2",
    "edit c 1 c -10,0 s 4 b 640 M 25000 T 100",
    "edit c 2 c 10,0 s 4 b 640 M 25000 T 100",
    "desi 0,0 *",
    "desi 2,0 +",
    "give m 0,0 100",
    "give m 2,0 40",
    "edit l 0,0 o 1 O 1",
    "edit l 2,0 o 2 O 2",
    "edit l * ?des#. e 100 m 127",
    "decl w 1 2",
    "decl w 2 1",
]

#: Four fronts between 1 and 2: the FRONT's attack on 2's highway 2,0; 1's troop
#: transport (ship 0) at sea off 2's highway 6,4; 1's destroyer (ship 1) beside 2's cargo
#: ship (ship 2) at 12,-4; 2's infantry (unit 0) in 1's wilderness -6,4.  A sector gets
#: an owner only once people are in it (the server gives an empty one back).
FRONTS = [
    *FRONT,
    "desi 6,4 +",
    "give m 6,4 10",
    "edit l 6,4 o 2 O 2",
    "edit l 6,4 e 100 m 127",
    "build s 8,4 tt",
    "edit s 0 O 1 E 100 M 127 m 100 f 100",
    "build s 12,-4 dd",
    "edit s 1 O 1 E 100 M 127 m 60",
    "build s 12,-4 cs",
    "edit s 2 O 2 E 100 M 127 m 20",
    "desi -6,4 -",
    "give m -6,4 200",
    "edit l -6,4 o 1 O 1",
    "edit l -6,4 e 100 m 127",
    "build l -6,4 inf",
    "edit u 0 O 2 e 100 m 30 M 30",
]

#: The shared paradrop scenario (S5) after the front: ten C-56 transports at 0,0, petrol to fly.
PARADROP = [
    "give p 0,0 100",
    "build p 0,0 tr",
    "edit p 0 O 1 e 100 m 127 t 85",
    "edit p 0 U 1 U 2 U 3 U 4 U 5 U 6 U 7 U 8 U 9",
]


def world_setup(world: Path) -> tuple[dict[str, str | int], list[str], dict[str, list[str]]]:
    """What builds a bellum world file on a fresh server: its econfig size, the deity's
    commands and each country's own (missions...), by ``tools/server-oracle/toml2setup.py``
    (countries log in with their name as password)."""
    import importlib.util
    import tempfile

    path = empire_server.ROOT / "tools" / "server-oracle" / "toml2setup.py"
    spec = importlib.util.spec_from_file_location("toml2setup", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        module.setup(world, out)
        width, height = (int(v) for v in (out / "size").read_text().split())
        names = dict(line.split() for line in (out / "names").read_text().splitlines())
        players = {names[f.name[5:]]: f.read_text().splitlines() for f in out.glob("setup[0-9]*")}
        deity = (out / "setup").read_text().splitlines()
    return {"WORLD_X": width, "WORLD_Y": height}, deity, players


__all__ = [
    "DEITY",
    "DEITY_PASSWORD",
    "FAILED",
    "FRONT",
    "FRONTS",
    "PARADROP",
    "EmpireGame",
    "empire_install",
    "free_port",
    "world_setup",
]
