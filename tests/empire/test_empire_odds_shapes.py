"""Work the odds engine does once and reuses: a side explored once serves every support
multiplier (the same graphs as one exploration per multiplier, bit for bit, and the same
morale histories drawn from the same generator); probing stops early only when the
answer is already known; a world's later odds reuse its shapes and fights unchanged."""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bellum.empire.combat.state import Combat
from bellum.empire.io.toml import load_world
from bellum.empire.io.xdump.mapping import dump_to_world, read_dump
from bellum.empire.odds import make_plan, plan_odds
from bellum.empire.odds._sides import SideGraph, SideMoves, side_graph, side_shape
from bellum.empire.odds.branching import BranchingDice
from bellum.empire.odds.engine import PlanRunner
from bellum.empire.orders import Order
from bellum.empire.world import World

ROOT = Path(__file__).resolve().parents[2]


@cache
def _realistic(name: str) -> World:
    return dump_to_world(read_dump(ROOT / "benchmarks" / "worlds" / f"{name}.xdump"))


def _combat(world: World, country: int, order: str, mil: list[str], units: list[int]) -> Combat:
    plan = make_plan(world, country, Order.parse(order), mil, units)
    leaf = PlanRunner(world, country, plan)(BranchingDice())
    assert leaf.combat is not None
    return leaf.combat


CASES = {
    # A fortified defender whose units check their morale, and a cavalry unit attacking.
    "w48x24 fortress": lambda: _combat(
        _realistic("w48x24"), 3, "attack 1,-3", ["2,-2=128", "0,-2=123"], [20]
    ),
    "w32x16 units": lambda: _combat(
        _realistic("w32x16"), 1, "attack 3,-1", ["2,0=279", "1,-1=219"], [2, 6]
    ),
    "cavalry example": lambda: _combat(
        load_world(ROOT / "examples" / "empire" / "cavalry.toml"), 1, "attack 2,0", ["0,0=14"], [0]
    ),
}


def _same(a: SideGraph, b: SideGraph) -> None:
    for f in fields(SideGraph):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert x.dtype == y.dtype and np.array_equal(x, y), f.name


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("defender", [False, True])
def test_one_exploration_gives_every_multipliers_graph(case: str, defender: bool) -> None:
    """Multipliers below 1 beat a side before its last soldier, so they cut its graph
    short; the shape, explored to the last soldier, gives those graphs too."""
    c = CASES[case]()
    shape = side_shape(c, defender, max_states=20_000)
    own = c.dsup if defender else c.osup
    morale = False
    for mult in sorted({own, 1.0, 0.05, 0.3, 0.77, 1.33, 2.2600000000000002}):
        if defender:
            c.dsup = mult
        else:
            c.osup = mult
        direct = side_graph(c, defender, max_states=20_000)
        _same(shape.graph(mult, max_states=20_000), direct)
        morale = morale or not direct.is_chain
        for seed in range(3):
            drawn = side_graph(c, defender, rng=np.random.default_rng(seed))
            _same(shape.sample(mult, np.random.default_rng(seed)), drawn)
    assert shape.size > 1
    if case != "cavalry example":
        assert morale, "a case without a morale draw tests less than it says"


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("defender", [False, True])
def test_a_side_s_known_moves_give_the_same_graphs_and_the_same_draws(
    case: str, defender: bool
) -> None:
    """Explorations that share a side's moves (its shape, its graphs under multipliers,
    its morale histories, twice over so that the second pass runs nothing) give what
    each gives alone, bit for bit, and leave the generator where it leaves it alone."""
    c = CASES[case]()
    drawn_first = SideMoves()  # histories met before any exploration: partly known draws
    for seed in (0, 1, 0, 2, 1):
        mine, alone = np.random.default_rng(seed), np.random.default_rng(seed)
        _same(side_graph(c, defender, rng=mine, moves=drawn_first),
              side_graph(c, defender, rng=alone))  # fmt: skip
        assert mine.random() == alone.random()
    moves = SideMoves()
    for _ in range(2):
        shape = side_shape(c, defender, max_states=20_000, moves=moves)
        _same(shape.graph(1.0), side_shape(c, defender, max_states=20_000).graph(1.0))
        for mult in (0.3, 1.0, 2.2600000000000002):
            if defender:
                c.dsup = mult
            else:
                c.osup = mult
            _same(side_graph(c, defender, moves=moves), side_graph(c, defender))
            for seed in range(4):
                mine, alone = np.random.default_rng(seed), np.random.default_rng(seed)
                _same(side_graph(c, defender, rng=mine, moves=moves),
                      side_graph(c, defender, rng=alone))  # fmt: skip
                assert mine.random() == alone.random()


def test_probing_stops_early_only_when_the_full_estimate_is_over_the_limit() -> None:
    """The bound probing returns when it stops early is at most the full estimate (the
    same probes, the rest counted as 1): the engine's choice is the full estimate's."""
    from bellum.empire.odds.branching import tree_size

    def widths(d: BranchingDice) -> int:
        # A tree whose size depends on the path: 2 ends, or 2 x 30 x 30.
        return d.roll(30) + d.roll(30) if d.chance(0.5) else 0

    for seed in range(20):
        full = tree_size(widths, np.random.default_rng(seed), 24)
        for limit in (10.0, 400.0, 2000.0):
            bound = tree_size(widths, np.random.default_rng(seed), 24, limit=limit)
            assert (bound > limit) == (full > limit)
            assert bound <= full and (bound == full or bound > limit)


def test_a_world_s_later_odds_reuse_its_shapes_and_fights_with_the_same_answer() -> None:
    """A second plan on the same world (a sweep, ``--need``) meets the shapes and fights of
    the first; with the same seed its answer is the one it gets alone."""
    from bellum.empire.odds import engine

    world = _realistic("w32x16")

    def odds(mil: int) -> tuple[Any, ...]:
        plan = make_plan(world, 1, Order.parse("attack -9,7"), [f"-8,6={mil}"], [1])
        o = plan_odds(world, 1, plan, seed=5, max_samples=40)
        return (o.odds.outcomes, o.expected("attacker"), o.expected("defender"), o.method)

    engine._WORLDS.clear()
    alone = odds(200)
    cold = len(engine._shared(world).shapes)
    engine._WORLDS.clear()
    odds(247)
    before = len(engine._shared(world).shapes)
    assert odds(200) == alone
    assert len(engine._shared(world).shapes) - before < cold  # the defender's was there


def test_a_drawn_choice_takes_each_option_with_its_share() -> None:
    """``pick`` maps one uniform draw to an option by cumulative weight, as
    ``Generator.choice`` does with the same draw (here on 2,000 fixed draws)."""
    from bellum.empire.odds.branching import pick

    assert [pick([1.0, 3.0], u) for u in (0.0, 0.2499, 0.25, 0.9999)] == [0, 0, 1, 1]
    assert pick([0.0, 2.0, 0.0], 0.0) == 1
    mine, theirs = np.random.default_rng(3), np.random.default_rng(3)
    weights = np.random.default_rng(4).random((2000, 6)) ** 3
    for w in weights:
        got = pick(w.tolist(), float(mine.random()))
        assert got == int(theirs.choice(w.size, p=w / w.sum()))


@pytest.mark.parametrize("case", ["w48x24 fortress", "w32x16 units"])
def test_a_side_too_big_for_its_shape_is_too_big_under_every_multiplier_it_keeps(
    case: str,
) -> None:
    """An exploration down to the last soldier that outgrows the limit says the least
    strength it had gone through; every multiplier that leaves that strength above 0
    explores the same states in the same order, so outgrows the limit too (the engine
    then skips that exploration)."""
    from bellum.empire.combat.state import ldround
    from bellum.empire.odds._sides import TooManyStates

    c = CASES[case]()
    whole = side_shape(c, False, max_states=20_000)
    limit = whole.size // 3
    with pytest.raises(TooManyStates) as raised:
        side_shape(c, False, max_states=limit)
    least = raised.value.least
    assert least is not None and least > 0
    kept = 0
    for mult in (0.05, 0.3, 1.0, 2.2600000000000002):
        c.osup = mult
        if ldround(mult * least) <= 0:
            continue
        kept += 1
        with pytest.raises(TooManyStates):
            side_graph(c, False, max_states=limit)
    assert kept >= 2
