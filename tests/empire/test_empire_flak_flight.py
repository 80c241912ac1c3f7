"""A paradrop's flight through flak as one choice among the sets of transports that get
through (``air.Through``), held to the brute force of every draw.

The example paradrop (one transport chopper from 0,0 over 2,0 to country 2's 4,0) gets a
second chopper and guns on its way: country 2 takes 2,0 with guns of its own, and 4,0
gets guns too, so the flight meets two volleys, each a ``roundavg`` of its guns, then a
``roll(8)`` per chopper and a chance to turn back.  The choppers lose their stealth (a
stealthy flight may slip through a sector unseen, a draw the merged choice leaves to the
draws).  The odds' dice walk a handful of
paths; the brute force walks every draw (hundreds of paths).  Both must give each
fight (paratroopers dropped, paratroopers lost, support on each side) the same chance
to 10⁻¹⁵.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bellum.empire.combat import air
from bellum.empire.io.toml import load_world
from bellum.empire.odds import make_plan, plan_odds
from bellum.empire.odds.branching import BranchingDice, enumerate_runs
from bellum.empire.odds.engine import Leaf, PlanRunner
from bellum.empire.orders import Order
from bellum.empire.world import World

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "empire" / "paradrop.toml"


def flak_world(
    guns: tuple[int, int] = (14, 14), transports: int = 2, eff: int = 100, stealth: int = 0
) -> World:
    world = load_world(EXAMPLE)
    way = world.sector((2, 0))
    way.owner = 2
    way.items["gun"] = guns[0]
    world.sector((4, 0)).items["gun"] = guns[1]
    chopper = world.planes[0]
    chopper.type = replace(chopper.type, stealth=stealth)
    chopper.eff = eff
    for uid in range(1, transports):
        world.planes[uid] = replace(chopper, uid=uid)
    return world


def order(transports: int) -> Order:
    return Order.parse(f"paradrop {'/'.join(map(str, range(transports)))} . 0,0 4,0")


def ends(world: World, transports: int, *, collapse: bool) -> dict[Any, float]:
    """Each end of the command before its fight, with its chance."""
    runner = PlanRunner(world, 1, make_plan(world, 1, order(transports), [], []))
    leaves = enumerate_runs(runner, dice_of=lambda path: BranchingDice(path, collapse=collapse))
    assert leaves is not None
    out: dict[Any, float] = {}
    for leaf, p in leaves:
        key = _end(leaf)
        out[key] = out.get(key, 0.0) + p
    return out


def _end(leaf: Leaf) -> Any:
    r, c = leaf.result, leaf.combat
    if c is None:
        return (str(r.outcome), r.attacker_casualties)
    return (c.offs[0].troops, r.attacker_casualties, c.osup, c.dsup)


@pytest.mark.parametrize(
    ("guns", "transports", "eff"),
    [((14, 14), 1, 100), ((14, 9), 1, 50), ((0, 14), 2, 70), ((0, 14), 2, 40)],
)
def test_the_flight_through_flak_is_the_brute_force(
    guns: tuple[int, int], transports: int, eff: int
) -> None:
    world = flak_world(guns, transports, eff)
    brute = ends(world, transports, collapse=False)
    merged = ends(world, transports, collapse=True)
    assert set(merged) == set(brute)
    for key, p in brute.items():
        assert merged[key] == pytest.approx(p, abs=1e-15), key
    assert sum(merged.values()) == pytest.approx(sum(brute.values()), abs=1e-14)
    assert len(brute) > 1  # some transports do not get through


def test_the_odds_walk_the_sets_through_not_the_draws() -> None:
    world = flak_world((0, 14), 2, eff=60)
    runner = PlanRunner(world, 1, make_plan(world, 1, order(2), [], []))
    draws = enumerate_runs(runner, dice_of=lambda path: BranchingDice(path, collapse=False))
    merged = enumerate_runs(runner)
    assert draws is not None and merged is not None
    assert 1 < len(merged) <= 2**2 < len(draws)
    odds = plan_odds(world, 1, make_plan(world, 1, order(2), [], []))
    assert odds.method == "exact mixture"


def test_a_stealthy_flight_keeps_the_draws() -> None:
    """A flight that may slip through unseen counts the sectors it was seen over, and the
    news of each is a draw after the flight: the merged choice would mix those counts."""
    assert _spied_routes(flak_world(stealth=40), 2) == []


def _spied_routes(world: World, transports: int) -> list[air.Through]:
    """The flights whose flak one run sums over as sets through."""
    runner = PlanRunner(world, 1, make_plan(world, 1, order(transports), [], []))
    routes: list[air.Through] = []
    real = air.Through.outcomes

    def spy(self: air.Through, draws: Any) -> Any:
        routes.append(self)
        return real(self, draws)

    air.Through.outcomes = spy  # type: ignore[method-assign]
    try:
        runner(BranchingDice())
    finally:
        air.Through.outcomes = real  # type: ignore[method-assign]
    return routes


def test_a_stealthy_bomber_beside_a_plain_one_keeps_the_draws() -> None:
    """Once flak takes the stealth-0 transport, the stealthy one may slip past the next
    volley unseen: the sum over sets through would miss that draw."""
    world = flak_world((0, 14), 2, eff=60, stealth=40)
    world.planes[0].type = replace(world.planes[0].type, stealth=0)
    assert _spied_routes(world, 2) == []
    brute = ends(world, 2, collapse=False)
    merged = ends(world, 2, collapse=True)
    assert merged == pytest.approx(brute, abs=1e-15)
    odds = plan_odds(world, 1, make_plan(world, 1, order(2), [], []), seed=1)
    assert sum(odds.odds.outcomes.values()) == pytest.approx(1.0)


def test_a_big_drop_keeps_the_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sum's work doubles with each transport: past MOST_THROUGH_TERMS the flight is
    drawn draw by draw (the example's airfield flies 10 transports at most, so the
    bound is lowered to meet them)."""
    monkeypatch.setattr(air, "MOST_THROUGH_TERMS", 2**9)
    assert [len(r.route.bombers) for r in _spied_routes(flak_world((0, 14), 9, 60), 9)] == [9]
    assert _spied_routes(flak_world((0, 14), 10, eff=60), 10) == []
