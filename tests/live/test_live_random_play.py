"""Random play on the real server (tools/random_play.py): a bounded sample for CI.

One random mid-game from a fixed seed, 100 random orders of the five commands, legal
and illegal, with random answers (over the maximum, zero, junk, ``?``, aborts, end of
input); a few through the ``bellum`` command line.  Every order must match the
server byte for byte, both with ``--live --check`` and on the synced world, but for
the one known difference: the map around an asked-for flight path (docs/fidelity.md).
``python tools/random_play.py --soak N`` plays more.
"""

from __future__ import annotations

from pathlib import Path

from random_play import COMMANDS, match_table, play_world

ORDERS = 100
SEED = 2  # a 32x16 world, the smallest size: the set-up is quick


def test_live_random_play_matches_the_server(empire_server: Path, tmp_path: Path) -> None:
    lines: list[str] = []
    played = play_world(
        SEED, ORDERS, tmp_path, cli_every=25, log=lines.append, install=empire_server
    )
    assert len(played) == ORDERS
    assert {p.command for p in played} == set(COMMANDS)
    assert sum(p.via == "command line" for p in played) == ORDERS // 25
    assert sum(p.fought for p in played) >= 10  # real fights, not only refusals
    differ = [p for p in played if not p.matches]
    assert not differ, "\n".join(
        [match_table(played), *(f"{p.order} {p.answers}: {p.differences}" for p in differ)]
    )
