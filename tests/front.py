"""A world at war for the reliability suites: every attack is possible, each once.

Country 1 holds x = 0, 4, 8, ... with 200 mil and country 2 x = 2, 6, 10, ... with
5 mil, on the rows given; every attack changes both countries' sectors and 1's BTUs,
so a command that ran on a stale world would be caught.
"""

from __future__ import annotations

#: Answers of an attack on the front: mil from the two neighbours, then mil to move in
#: from each (a victory asks both; piped input that runs out at a question is an error).
ANSWERS = "20\n20\n5\n5\n"


def front_toml(rows: tuple[int, ...] = (0,)) -> str:
    """The world file of the front on ``rows`` (even y) of a 64 x 32 world."""
    doc = (
        'schema_version = 1\n[world]\nsize = [64, 32]\nfill = "wilderness"\nfill_eff = 100\n'
        '\n[[nation]]\ncnum = 1\nname = "North"\nmoney = 25000\nbtu = 640\n'
        'relations = { 2 = "at-war" }\n'
        '\n[[nation]]\ncnum = 2\nname = "South"\nmoney = 25000\ncapital = [62, 30]\n'
        'relations = { 1 = "at-war" }\n'
    )
    for y in rows:
        for x in range(0, 64, 4):
            for owner, dx, mil in ((1, 0, 200), (2, 2, 5)):
                doc += (
                    f'\n[[sector]]\nat = [{x + dx}, {y}]\ndes = "wilderness"\nowner = {owner}\n'
                    f"eff = 100\nmob = 127\nmil = {mil}\nciv = 50\n"
                )
    return doc


def targets(rows: tuple[int, ...] = (0,)) -> list[str]:
    """Country 2's sectors on the front: what country 1 can attack, each once."""
    return [f"{x},{y}" for y in rows for x in range(2, 64, 4)]
