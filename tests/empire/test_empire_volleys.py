"""Support fire as one choice per distinct result (``bellum.empire.combat.volleys``).

The odds' dice branch once per distinct result of a fire function, its probability
from a dynamic programme over the firers; the server's dice draw volley by volley.
Each test enumerates both on a small world and compares: the results, the relations
the news leaves behind, and their probabilities (to 1e-15, relative), against the
brute force of every draw the server makes (``collapse=False``).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Hashable
from dataclasses import dataclass

import pytest
from conftest import world_from

from bellum.dice import ServerRandom
from bellum.empire.combat import support, volleys
from bellum.empire.combat.commands import COMMANDS
from bellum.empire.combat.state import Combat, Mode
from bellum.empire.combat.volleys import Chain, Salvo, Shot
from bellum.empire.odds.branching import BranchingDice, enumerate_runs, outcomes
from bellum.empire.rules import Rules
from bellum.empire.scratch import WorldTemplate
from bellum.empire.world import Relation, World

# Country 1 attacks 2,0 (country 2's, neutral toward 1 so that news may turn it hostile);
# country 3, allied to 1 and at war with 2, helps.
WORLD = """
[[nation]]
cnum = 3
name = "3"
tech = 100.0
relations = { 1 = "allied", 2 = "at-war" }

[[sector]]
at = [2, 0]
des = "wilderness"
owner = 2
mil = 40

[[sector]]
at = [1, 1]
des = "sea"

[[sector]]
at = [3, 1]
des = "sea"
"""

FORTS = """
[[sector]]
at = [0, 0]
des = "fortress"
owner = 1
eff = 100
mil = 50
items = { gun = 10, shell = 20 }

[[sector]]
at = [12, 0]
des = "fortress"
owner = 3
eff = 100
mil = 50
items = { gun = 7, shell = 1 }

[[sector]]
at = [6, 0]
des = "fortress"
owner = 1
eff = 100
mil = 2
items = { gun = 7, shell = 5 }
"""

SHIPS = """
[[ship]]
uid = 0
type = "dd"
owner = 1
at = [1, 1]
tech = 100.0
mil = 1
items = { gun = 4, shell = 40 }

[[ship]]
uid = 1
type = "dd"
owner = 3
at = [3, 1]
tech = 100.0
mil = 40
items = { gun = 4, shell = 1 }
"""

UNITS = """
[[unit]]
uid = 0
type = "art"
owner = 1
at = [0, 0]
tech = 100.0
mil = 20
items = { gun = 1, shell = 4, food = 30 }

[[unit]]
uid = 1
type = "art"
owner = 3
at = [4, 0]
tech = 100.0
eff = 60
mil = 20
items = { gun = 1, shell = 2, food = 30 }
"""

SUPPLY = """
[[sector]]
at = [4, 0]
des = "wilderness"
owner = 3

[[sector]]
at = [5, 1]
des = "warehouse"
owner = 3
mob = 50
items = { shell = 50 }
"""


def _world(extra: str, relation: str = "neutral") -> World:
    """At tech 150 a fort's range is 5 exactly; country 3's forts (tech 100) roll it."""
    w = world_from(WORLD + extra)
    w.nations[2].relations[1] = Relation.parse(relation)
    w.nations[1].tech = 150.0
    return w


def _distribution(
    world: World,
    fire: Callable[[Combat], int],
    collapse: bool,
    aggressor: int = 1,
    one_branch: bool = True,
) -> dict[Hashable, float]:
    """Every (result, country 2's relations) of ``fire`` with its probability; with
    ``collapse`` and ``one_branch``, check it branched once per distinct result."""
    template = WorldTemplate(world)

    def run(dice: BranchingDice) -> Hashable:
        dice.collapse = collapse
        w = template.scratch()
        spec = COMMANDS["attack"]
        c = Combat(w, dice, _NoPrompts(), aggressor, Mode.ATTACK, Rules(), spec.wording)
        c.target = w.sector((2, 0))
        c.defender = 3 - aggressor
        return fire(c), tuple(sorted(w.nations[2].relations.items()))

    out: dict[Hashable, float] = {}
    runs = enumerate_runs(run) or []
    for value, p in runs:
        out[value] = out.get(value, 0.0) + p
    if collapse and one_branch:
        assert len(runs) == len(out)
    return out


class _NoPrompts:
    def ask(self, prompt: object) -> str | None:
        raise AssertionError("support fire asks nothing")


def _same(dp: dict[Hashable, float], brute: dict[Hashable, float]) -> None:
    assert dp.keys() == brute.keys()
    for k, p in brute.items():
        assert abs(dp[k] - p) <= 1e-15, k
    assert abs(math.fsum(dp.values()) - 1.0) <= 1e-15


@pytest.mark.parametrize("relation", ["neutral", "at-war"])
def test_fort_fire_one_branch_per_result(relation: str) -> None:
    # Forts within 8 fire until 80 (two of 20 to 49 each, 3's in range half the time),
    # a third unmanned one rolls its range unless the two reached 80; the news may
    # turn 2 hostile to 1 or to 3.
    w = _world(FORTS, relation)
    fire = lambda c: support.fort_damage(c, 2, 1)  # noqa: E731
    dp, brute = _distribution(w, fire, True), _distribution(w, fire, False)
    _same(dp, brute)
    assert max(r for r, _ in dp) >= 80  # type: ignore[misc]


def test_ship_fire_one_branch_per_result() -> None:
    w = _world(SHIPS)
    fire = lambda c: support.ship_damage(c, 2, 1)  # noqa: E731
    _same(_distribution(w, fire, True), _distribution(w, fire, False))


def test_unit_fire_one_branch_per_result() -> None:
    w = _world(UNITS)
    fire = lambda c: support.unit_damage(c, 2, 1)  # noqa: E731
    _same(_distribution(w, fire, True), _distribution(w, fire, False))


def test_unit_fire_short_of_shells_is_drawn_one_by_one() -> None:
    # 3's artillery holds one shell of the two a volley takes: it resupplies from 3's
    # warehouse next door (shells moved, a draw for the mobility), so the salvo is drawn
    # volley by volley, in the odds too (no key), with the same answer.
    w = _world(UNITS + SUPPLY)
    w.units[1].items["shell"] = 1
    fire = lambda c: support.unit_damage(c, 2, 1)  # noqa: E731
    dp = _distribution(w, fire, True, one_branch=False)
    _same(dp, _distribution(w, fire, False))


def test_defenders_fire_makes_no_news_draw() -> None:
    # Country 2 attacks 1's 2,0: 1's forts fire in self-defense, and that news draws
    # nothing (nor can it turn anyone hostile).
    w = _world(FORTS)
    w.sector((2, 0)).owner = 1
    fire = lambda c: support.fort_damage(c, 2, 1)  # noqa: E731
    dp = _distribution(w, fire, True, aggressor=2)
    _same(dp, _distribution(w, fire, False, aggressor=2))
    assert len({relations for _, relations in dp}) == 1  # type: ignore[misc]


SHIP_RULES = (support._hit, support._factor_spent, support._percent)


@dataclass(frozen=True)
class _Die:
    """A firer of the tests: ``roll(sides)`` times ``scale`` damage."""

    sides: int
    scale: int

    @property
    def key(self) -> Hashable:
        return (self.sides, self.scale)

    def draw(self, dice: ServerRandom) -> Shot | None:
        r = dice.roll(self.sides)
        return None if r == 1 else (r * self.scale, 0)

    def apply(self, shot: Shot) -> None:
        pass


def test_the_stopping_rule_and_rounding_of_ships() -> None:
    # Big volleys: the factor left falls below 0.30 after one or two, and the rest
    # make no draws; the result rounds as int(100 - 100 f).
    firers = [_Die(4, 22), _Die(3, 20), _Die(5, 9), _Die(2, 30)]
    salvo = Salvo("ship", firers, 1.0, *SHIP_RULES)

    def run(dice: BranchingDice, collapse: bool) -> Hashable:
        dice.collapse = collapse
        return dice.block(salvo)

    dp: dict[Hashable, float] = {}
    brute: dict[Hashable, float] = {}
    for into, collapse in ((dp, True), (brute, False)):
        for v, p in enumerate_runs(lambda d, k=collapse: run(d, k)) or ():  # type: ignore[misc]
            into[v] = into.get(v, 0.0) + p
    _same(dp, brute)


def test_a_sum_of_rolls_is_one_choice() -> None:
    sums: dict[Hashable, float] = {}
    for v, p in enumerate_runs(lambda d: d.roll_sum(3, 6)) or ():
        sums[v] = sums.get(v, 0.0) + p
    assert sums == {s: n / 216 for s, n in _counts(3, 6).items()}


def _counts(k: int, n: int) -> dict[int, int]:
    out: dict[int, int] = {}
    for i in range(n**k):
        s = sum(1 + (i // n**j) % n for j in range(k))
        out[s] = out.get(s, 0) + 1
    return out


def test_a_sides_salvos_as_one_choice() -> None:
    # A side's forts, ships and units in turn (§5.1), the later ones only while the
    # multiplier is below 1.6: one branch per distinct multiplier, as the brute force.
    forts = Salvo("fort", [_Die(4, 10), _Die(3, 15)], 0, operator.add, support._reached(80), int)
    ships = Salvo("ship", [_Die(3, 30), _Die(2, 25)], 1.0, *SHIP_RULES)
    units = Salvo("unit", [_Die(5, 4)], 0, operator.add, support._never, int)
    chain = Chain([forts, ships, units], lambda x: x < 1.6, 1.6)

    def run(dice: BranchingDice, collapse: bool) -> Hashable:
        dice.collapse = collapse
        shares = dice.block(chain)
        return 1 + shares[0] + shares[1] + shares[2]

    dp: dict[Hashable, float] = {}
    brute: dict[Hashable, float] = {}
    for into, collapse in ((dp, True), (brute, False)):
        runs = enumerate_runs(lambda d, k=collapse: run(d, k)) or []  # type: ignore[misc]
        for v, p in runs:
            into[v] = into.get(v, 0.0) + p
        assert not collapse or len(runs) == len(into)
    _same(dp, brute)


def test_a_sides_chain_under_other_gates_gives_what_it_gives_alone() -> None:
    # The states after each salvo are kept by which states before it fired, so chains
    # whose gates differ (the defender's moves with the attack) share them: each gate
    # gives what it gives worked out alone, to the last bit.
    forts = Salvo("fort", [_Die(4, 10), _Die(3, 15)], 0, operator.add, support._reached(80), int)
    ships = Salvo("ship", [_Die(3, 30), _Die(2, 25)], 1.0, *SHIP_RULES)
    units = Salvo("unit", [_Die(5, 4)], 0, operator.add, support._never, int)

    def chain(most: float) -> Chain:
        return Chain([forts, ships, units], lambda x: x < most, most)

    gates = [1.05, 1.2, 1.3, 1.31, 1.6, 2.5]
    alone = {}
    for most in gates:
        volleys._KNOWN.clear()
        alone[most] = chain(most).outcomes(outcomes)
    volleys._KNOWN.clear()
    for most in gates + gates[::-1]:
        assert chain(most).outcomes(outcomes) == alone[most]
    assert any(k[0] == "stages" for k in volleys._KNOWN)


def test_a_ship_that_planes_fly_from_is_drawn_one_by_one() -> None:
    # Planes take their bombs from their carrier's shells, and support planes fly after
    # the guns: the shells a carrier's volley leaves are read later, so its salvo has no
    # key (drawn volley by volley, in the odds too), with the same answer.
    w = _world(SHIPS + '[[plane]]\nuid = 0\ntype = "mb"\nowner = 1\nat = [1, 1]\nship = 0\n')
    fire = lambda c: support.ship_damage(c, 2, 1)  # noqa: E731
    dp = _distribution(w, fire, True, one_branch=False)
    _same(dp, _distribution(w, fire, False))
    spec = COMMANDS["attack"]
    c = Combat(w, ServerRandom(1), _NoPrompts(), 1, Mode.ATTACK, Rules(), spec.wording)
    c.target = w.sector((2, 0))
    c.defender = 2
    assert support._ship_salvo(c, 2, 1).key is None
    del w.planes[0]
    assert support._ship_salvo(c, 2, 1).key is not None
