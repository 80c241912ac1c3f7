"""Odds from a player's view: the belief (priors from what was seen, its rounding and its
age), --assume, the list of inputs, and agreement with the whole world where the view is
exact (docs/fog.md)."""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES

from bellum.empire.intel.belief import (
    COPY_UIDS,
    Assumptions,
    Unknown,
    believe,
    parse_assumptions,
)
from bellum.empire.intel.model import Observation, Seen
from bellum.empire.intel.reports import rounded
from bellum.empire.io.toml import dumps, load_world, world_to_data
from bellum.empire.odds import make_plan, plan_odds
from bellum.empire.odds.fog import fog_odds, target_of
from bellum.empire.odds.questions import as_seen
from bellum.empire.orders import Order
from bellum.empire.world import BMap, LandUnit, Ship, UnknownSector, World
from bellum.errors import InputError
from clirunner import bellum
from fogviews import TURN, spied, view
from jsonschemas import validate


@pytest.fixture
def world() -> World:
    return load_world(EXAMPLES / "vector-a.toml")


def plan_of(world: World, text: str, mil: list[str]):  # type: ignore[no-untyped-def]
    return make_plan(world, 1, Order.parse(text), mil, [])


def test_an_exact_view_gives_the_whole_worlds_odds(world: World) -> None:
    v = view(world, 1)
    o = spied(world, (2, 0), exact=True)
    o.fields["mines"] = Seen(0, TURN, 0, "deity")
    v.observations[o.key] = o
    plan = plan_of(world, "attack 2,0", ["0,0=60"])
    fog = fog_odds(v, 1, plan, seed=1, assume=parse_assumptions(["2,0.mines=0"]))
    god = plan_odds(world, 1, plan, seed=1)
    assert fog.draws == 1 and fog.exhaustive
    assert fog.p_success == pytest.approx(god.p_success, abs=1e-12)


def test_a_rounded_sighting_is_the_defense_as_seen(world: World) -> None:
    """mil seen as 40 (35..44), efficiency exact, no mines: the mixture
    --defense-as-seen makes."""
    world.sector((2, 0)).mil = 37
    v = view(world, 1)
    o = spied(world, (2, 0))
    o.fields["eff"] = Seen(world.sector((2, 0)).eff, TURN, 0, "spy")
    o.fields["defense"] = Seen(0, TURN, 0, "spy")
    v.observations[o.key] = o
    plan = plan_of(world, "attack 2,0", ["0,0=60"])
    no_mines = parse_assumptions(["2,0.mines=0"])
    fog = fog_odds(v, 1, plan, seed=1, assume=no_mines)
    seen = as_seen(world, 1, plan, seed=1)
    assert fog.exhaustive and fog.draws == 10
    assert fog.p_success == pytest.approx(seen.p_success, abs=1e-9)
    # every combination, each solved exactly: nothing drawn, as --defense-as-seen says
    assert fog.odds.samples is None and seen.samples is None
    drawn = fog_odds(v, 1, plan, seed=1, draws=4, assume=no_mines)
    assert not drawn.exhaustive and drawn.odds.samples == drawn.odds.odds.runs == 4
    sampled = fog_odds(v, 1, plan, seed=1, draws=4, samples=3, assume=no_mines)
    assert sampled.odds.samples == 12  # 3 paths in each of the 4 worlds
    for o in (fog, drawn, sampled):  # the whole computation's times, not one world's
        assert o.odds.odds.seconds is not None and o.odds.cpu_seconds is not None
        assert o.odds.odds.seconds > 0 and o.odds.cpu_seconds > 0
    (mil,) = [i for i in fog.inputs if i.name == "2,0.mil"]
    assert (mil.status, mil.seen, mil.source, mil.turn) == ("known", "40", "spy", TURN)
    assert mil.treatment == "seen as 40 (rounded to 10): uniform 35..44"


def test_an_old_sighting_is_widened_by_its_age(world: World) -> None:
    v = view(world, 1, turn=TURN + 2)
    v.observations["sector 2,0"] = spied(world, (2, 0))
    b = believe(v, 1, (2, 0))
    (mil,) = [u for u in b.unknowns if u.name == "2,0.mil"]
    assert mil.info.status == "stale"
    assert (mil.dist.values[0], mil.dist.values[-1]) == (22, 69)  # 35/1.25², 44*1.25²
    assert "2 updates ago: widened 1.56x" in mil.info.treatment
    still = believe(v, 1, (2, 0), assume=Assumptions(drift=0.0))
    (mil,) = [u for u in still.unknowns if u.name == "2,0.mil"]
    assert (mil.dist.values[0], mil.dist.values[-1]) == (35, 44)


def test_assume_fixes_an_input_and_names_a_wrong_one(world: World) -> None:
    v = view(world, 1)
    v.observations["sector 2,0"] = spied(world, (2, 0))
    b = believe(v, 1, (2, 0), assume=parse_assumptions(["2,0.mil=41", "2,0.eff=100"]))
    (mil,) = [u for u in b.unknowns if u.name == "2,0.mil"]
    assert mil.dist.values == (41,) and mil.info.treatment == "assumed 41 (--assume)"
    with pytest.raises(InputError, match=r"--assume 2,2\.mil: no such input"):
        believe(v, 1, (2, 0), assume=parse_assumptions(["2,2.mil=4"]))
    for bad, why in (("mil", "NAME=VALUE"), ("missions=2", "from 0 to 1"),
                     ("unseen=maybe", "like-seen or empty"), ("drift=-1", "from 0 to 100")):  # fmt: skip
        with pytest.raises(InputError, match=why):
            parse_assumptions([bad])


def test_a_sector_never_seen_is_like_those_seen(world: World) -> None:
    v = view(world, 1)
    with pytest.raises(UnknownSector, match="2,0 is unknown: country 1 has seen neither it"):
        believe(v, 1, (2, 0))
    v.observations["sector 24,0"] = spied(world, (24, 0))
    b = believe(v, 1, (2, 0))
    (like,) = [u for u in b.unknowns if u.name == "2,0.like"]
    assert like.dist.values == ((0, -1, False),) and like.info.status == "unknown"
    assert "or of its 1 seen, weighing one in all" in like.info.treatment
    drawn = b.world([u.dist.values[0] for u in b.open])
    assert drawn.sector((2, 0)).owner == 2 and drawn.sector((2, 0)).type.name == "capital"


def test_a_sector_never_seen_behind_the_target_may_hold_a_reserve(world: World) -> None:
    """A reserve behind the frontier sits where no lookout reaches, so the units seen in
    the owner's sectors say nothing of the land behind: a sector never seen holds units
    as a sector of its kind does (away from any frontier here: the viewer's 44,0, empty,
    and the spied 24,0, with an infantry: (1 + 1) / (2 + 2)), on reserve or not."""
    v = spied_infantry_view(world, unseen=(4, 0))
    b = believe(v, 1, (2, 0), assume=Assumptions(missions=1.0))
    (like,) = [u for u in b.unknowns if u.name == "4,0.like"]
    total = sum(like.dist.weights)
    chances = {v: w / total for v, w in zip(like.dist.values, like.dist.weights, strict=True)}
    # like 2,0 or 24,0 (the seen sectors of 2), each with units (on reserve) half the time
    assert chances == pytest.approx({(0, -1, False): 1 / 4, (0, 0, True): 1 / 4,
                                     (1, -1, False): 1 / 4, (1, 0, True): 1 / 4})  # fmt: skip
    assert "away from any frontier" in like.info.treatment
    drawn = b.world([(0, 0, True) if u is like else u.dist.values[0] for u in b.open])
    (reserve,) = [u for u in drawn.units.values() if u.xy == (4, 0)]
    assert (reserve.owner, reserve.mission, reserve.type.name) == (2, "reserve", "infantry")


def seen_by(source: str, kind: str, ident: str, **fields: object) -> Observation:
    return Observation(kind, ident, {k: Seen(v, TURN, 0, source) for k, v in fields.items()})


def spied_infantry_view(world: World, unseen: tuple[int, int]) -> World:
    """Country 1's view where a spy saw country 2's 24,0 holding an infantry (unit 7, 100
    mil) and the target 2,0, with the bmap showing only `unseen` as '?'."""
    world.units[7] = LandUnit(uid=7, type=world.tables.land["inf"], owner=2, x=24, y=0, mob=99,
                              items={"mil": 100})  # fmt: skip
    v = view(world, 1)
    v.bmaps[1] = BMap.blank(1, v.geometry)
    v.bmaps[1].put(unseen, "?")
    v.observations["sector 24,0"] = spied(world, (24, 0))
    v.observations["unit 7"] = seen_by("spy", "unit", "7", type="inf", owner=2, at="24,0")
    v.observations["sector 2,0"] = spied(world, (2, 0))
    return v


def test_a_sector_a_lookout_saw_may_hold_units_it_does_not_show(world: World) -> None:
    """lookout shows a sector's owner, designation and mil but none of its units, where
    spy lists every unit in the sectors it reports: a sector only a lookout saw holds
    the units of one of its owner's sectors a spy saw, on reserve or not, with the chance
    that a sector of its kind (frontier or not) whose units the country knows held any."""
    world.units[7] = LandUnit(uid=7, type=world.tables.land["inf"], owner=2, x=24, y=0, mob=99,
                              items={"mil": 100})  # fmt: skip
    v = view(world, 1)
    v.observations["sector 24,0"] = spied(world, (24, 0))
    v.observations["unit 7"] = seen_by("spy", "unit", "7", type="inf", owner=2, at="24,0")
    v.observations["sector 2,0"] = seen_by("lookout", "sector", "2,0", owner=2,
                                           type="wilderness", mil=40)  # fmt: skip
    b = believe(v, 1, (2, 0), assume=Assumptions(missions=0.25))
    (units,) = [u for u in b.unknowns if u.name == "2,0.units"]
    # 2,0 is on the frontier (next to the viewer's 0,0); the one frontier sector whose
    # units the country knows is its own 0,0, empty: (0 + 1) / (1 + 2), Laplace's; and
    # 0,0, one from a frontier as 2,0 is, empty, weighs one against the spied garrisons
    chances = dict(zip(units.dist.values, units.dist.weights, strict=True))
    assert chances == pytest.approx({(-1, False): (2 / 3 + 1) / 2, (0, True): 1 / 24,
                                     (0, False): 1 / 8})  # fmt: skip
    assert "lookout shows no units): on a frontier" in units.info.treatment
    drawn = b.world([(0, True) if u is units else u.dist.values[0] for u in b.open])
    (copy,) = [u for u in drawn.units.values() if u.xy == (2, 0)]
    assert copy.type.name == world.tables.land["inf"].name and copy.mission == "reserve"
    assert copy.owner == 2
    # a unit seen there, or a spy's report of the sector, leaves nothing hidden
    v.observations["sector 2,0"] = spied(world, (2, 0))
    assert not [u for u in believe(v, 1, (2, 0)).unknowns if u.name.endswith(".units")]


def test_what_the_countrys_units_would_have_shown_is_not_there(world: World) -> None:
    """llookout looks at the sectors next to each own unit with mil and shows every
    foreign unit within ldround(vis * range / 20) of it, range ldround(techfact(tech,
    spy) * eff / 100) (look.c): a garrison it would have shown is not in a sector where
    it showed none; one it could not see (a looker without range) still may be."""
    inf = world.tables.land["inf"]
    world.units[7] = LandUnit(uid=7, type=inf, owner=2, x=24, y=0, mob=99, items={"mil": 100})
    world.units[8] = LandUnit(uid=8, type=inf, owner=1, x=0, y=0, mob=99, items={"mil": 100})
    v = view(world, 1)
    v.observations["sector 24,0"] = spied(world, (24, 0))
    v.observations["unit 7"] = seen_by("spy", "unit", "7", type="inf", owner=2, at="24,0")
    v.observations["sector 2,0"] = seen_by("llookout", "sector", "2,0", owner=2,
                                           type="wilderness", mil=40)  # fmt: skip

    def units_at_2_0() -> Unknown:
        (units,) = [u for u in believe(v, 1, (2, 0)).unknowns if u.name == "2,0.units"]
        return units

    # the viewer's infantry at 0,0 (tech 0, spy 2: range ldround(0.5) = 1) sees an
    # infantry (vis 15: ldround(0.75) = 1) next to it: the only garrison is out
    units = units_at_2_0()
    assert units.dist.values == ((-1, False),)
    assert "units with probability 0.00 (1 of the 1 garrisons" in units.info.treatment
    # at half efficiency its range rounds to 0 (ldround(0.25)): llookout shows no unit
    v.units[8].eff = 50
    units = units_at_2_0()
    chances = dict(zip(units.dist.values, units.dist.weights, strict=True))
    # (the spied garrison and the viewer's own 0,0, as far from a frontier, weigh one
    # each: 0,0 holds units, and the frontier's chance is (1 + 1) / (1 + 2))
    assert chances[(-1, False)] / sum(chances.values()) == pytest.approx(1 / 3 / 2)
    # a spy in a garrison is seen only by chance: never taken as shown
    v.units[8].eff = 100
    v.observations.pop("unit 7")
    v.observations["unit 9"] = seen_by("spy", "unit", "9", type="spy", owner=2, at="24,0")
    assert len(units_at_2_0().dist.values) == 3


def test_a_hidden_garrison_is_on_reserve_as_the_countrys_own_garrisons_are(
    world: World,
) -> None:
    """A hidden garrison is copied whole, on reserve or not: its chance is that of the
    country's own garrisons (its sectors holding units that react) holding one on reserve,
    ``(k + 1) / (n + 2)``, not that of one unit (two reserves in one sector are one
    garrison on reserve)."""
    inf = world.tables.land["inf"]
    world.units[7] = LandUnit(uid=7, type=inf, owner=2, x=24, y=0, mob=99, items={"mil": 100})
    for uid, x, mission in ((10, 44, "reserve"), (11, 44, "reserve"), (12, 46, ""), (13, 46, "")):
        world.units[uid] = LandUnit(uid=uid, type=inf, owner=1, x=x, y=0, mob=99,
                                    items={"mil": 100}, mission=mission)  # fmt: skip
    v = view(world, 1)
    v.observations["sector 24,0"] = spied(world, (24, 0))
    v.observations["unit 7"] = seen_by("spy", "unit", "7", type="inf", owner=2, at="24,0")
    v.observations["sector 2,0"] = seen_by("lookout", "sector", "2,0", owner=2,
                                           type="wilderness", mil=40)  # fmt: skip
    (units,) = [u for u in believe(v, 1, (2, 0)).unknowns if u.name == "2,0.units"]
    chances = dict(zip(units.dist.values, units.dist.weights, strict=True))
    # garrisons: 44,0 (on reserve) and 46,0 (not): (1 + 1) / (2 + 2); a third unit on
    # reserve at 44,0 leaves it there (by unit it would go from 3/6 to 4/7)
    assert chances[(0, True)] / (chances[(0, True)] + chances[(0, False)]) == pytest.approx(1 / 2)
    world.units[14] = LandUnit(uid=14, type=inf, owner=1, x=44, y=0, mob=99,
                               items={"mil": 100}, mission="reserve")  # fmt: skip
    v.units[14] = world.units[14]
    (units,) = [u for u in believe(v, 1, (2, 0)).unknowns if u.name == "2,0.units"]
    chances = dict(zip(units.dist.values, units.dist.weights, strict=True))
    assert chances[(0, True)] / (chances[(0, True)] + chances[(0, False)]) == pytest.approx(1 / 2)
    assert (
        "on reserve with probability 0.50 (like the country's own 0 garrisons that react"
        " on a frontier, 0 on reserve, and its 2 in all, 1 on reserve"
    ) in units.info.treatment


def test_a_seen_units_mission_is_as_the_countrys_own_of_its_type_and_depth(
    world: World,
) -> None:
    """A reserve reacts only inside its radius and with the mobility for the path
    (attsub.c), so it waits at a set distance behind a frontier: a unit seen is on
    reserve as the viewer's own units that react as far from a frontier are (Laplace's
    rule), and within those as its own of the same type are, the depth's chance weighing
    one."""
    land = world.tables.land
    own = ((10, "inf", 0, ""), (11, "inf", 0, ""), (12, "cav", 44, "reserve"),
           (13, "inf", 44, ""))  # fmt: skip
    for uid, kind, x, mission in own:
        world.units[uid] = LandUnit(uid=uid, type=land[kind], owner=1, x=x, y=0, mob=99,
                                    items={"mil": 10}, mission=mission)  # fmt: skip
    for uid, kind, x in ((7, "cav", 24), (8, "inf", 2)):
        world.units[uid] = LandUnit(uid=uid, type=land[kind], owner=2, x=x, y=0, mob=99,
                                    items={"mil": 10})  # fmt: skip
    v = view(world, 1)
    v.observations["sector 24,0"] = spied(world, (24, 0))
    v.observations["sector 2,0"] = spied(world, (2, 0))
    v.observations["unit 7"] = seen_by("spy", "unit", "7", type="cav", owner=2, at="24,0")
    v.observations["unit 8"] = seen_by("spy", "unit", "8", type="inf", owner=2, at="2,0")
    chance = {u.name: dict(zip(u.dist.values, u.dist.weights, strict=True))["reserve"]
              for at in ((2, 0), (24, 0)) for u in believe(v, 1, at).unknowns
              if u.name.endswith(".mission")}  # fmt: skip
    # three or more from a frontier (24,0 as the viewer's 44,0): 1 of 2 on reserve,
    # (1 + 1) / (2 + 2); its one cavalry there on reserve: (1 + 1/2) / (1 + 1)
    assert chance["unit#7.mission"] == pytest.approx(3 / 4)
    # one from a frontier (2,0 as the viewer's 0,0): none of 2, 1/4; its 2 infantry: 1/12
    assert chance["unit#8.mission"] == pytest.approx(1 / 12)
    (why,) = [u.info.treatment for u in believe(v, 1, (2, 0)).unknowns
              if u.name == "unit#8.mission"]  # fmt: skip
    assert "the country's own 2 units that react 1 from a frontier, 0 on reserve" in why


def test_a_frontier_is_judged_by_frontiers_a_coast_by_coasts(world: World) -> None:
    """The chance that a sector a lookout saw holds units comes from sectors of its kind
    only: on a frontier (next to another country's land: units stand there to stop what
    walks in), on a coast (only landings reach it) or inland (where reserves wait)."""
    inf = world.tables.land["inf"]
    world.units[7] = LandUnit(uid=7, type=inf, owner=2, x=24, y=0, mob=99, items={"mil": 100})
    # an artillery (spy 1: techfact(0, 1) rounds to no range) holds 0,0 but looks at nothing
    art = world.tables.land["art"]
    world.units[8] = LandUnit(uid=8, type=art, owner=1, x=0, y=0, mob=99, items={"mil": 100})
    world.units[9] = LandUnit(uid=9, type=inf, owner=1, x=44, y=0, mob=99, items={"mil": 100})
    world.ships[1] = Ship(uid=1, type=world.tables.ships["dd"], owner=1, x=7, y=1, mob=99)
    v = view(world, 1)
    v.observations["sector 24,0"] = spied(world, (24, 0))
    v.observations["unit 7"] = seen_by("spy", "unit", "7", type="inf", owner=2, at="24,0")
    for xy in ("2,0", "6,0", "10,0"):
        v.observations[f"sector {xy}"] = seen_by("lookout", "sector", xy, owner=2,
                                                 type="wilderness", mil=40)  # fmt: skip
    b = believe(v, 1, (2, 0), assume=Assumptions(missions=0.0))
    chance = {
        u.name: 1 - dict(zip(u.dist.values, u.dist.weights, strict=True))[(-1, False)]
        for u in b.unknowns if u.name.endswith(".units")
    }  # fmt: skip
    # frontier: the viewer's 0,0, with a unit: (1 + 1) / (1 + 2); a coast (6,0, next to
    # the viewer's ship at sea): none known, 1/2; inland: the viewer's 44,0 and the spied
    # 24,0, both with units: (2 + 1) / (2 + 2); each of those weighing one against the
    # viewer's own sector as far from a frontier, which holds units (0,0 for 2,0, one
    # from a frontier; 44,0 for 6,0 and 10,0, three or more)
    assert chance == pytest.approx({"2,0.units": (2 / 3 + 1) / 2, "6,0.units": (1 / 2 + 1) / 2,
                                    "10,0.units": (3 / 4 + 1) / 2})  # fmt: skip
    (coast,) = [u for u in b.unknowns if u.name == "6,0.units"]
    assert "on a coast away from any frontier, like the 0 sectors" in coast.info.treatment


def test_the_targets_mines_are_laid_where_engineers_are_held(world: World) -> None:
    """No report shows mines but to their old owner, against whom the server counts none;
    only an engineer in its owner's sector lays them (mine.c), so they are laid with the
    chance that a sector of the target's kind holds an engineer; one ``lmine`` lays up to
    the engineer's mobility (at most 127), of which a defence counts 20 (attsub.c)."""

    def mines_of(v: World) -> Unknown:
        (mines,) = [u for u in believe(v, 1, (2, 0)).unknowns if u.name == "2,0.mines"]
        return mines

    v = view(world, 1)
    v.observations["sector 2,0"] = spied(world, (2, 0))
    mines = mines_of(v)
    # frontier sectors whose units are known: the viewer's 0,0 and the spied 2,0, no
    # engineer in either: (0 + 1) / (2 + 2); then 1..127, uniformly, counted up to 20
    assert mines.dist.values == tuple(range(21))
    total = sum(mines.dist.weights)
    chances = [w / total for w in mines.dist.weights]
    assert chances[0] == pytest.approx(0.75)
    assert chances[1:20] == pytest.approx([0.25 / 127] * 19)
    assert chances[20] == pytest.approx(0.25 * 108 / 127)
    assert "with probability 0.25, then any number one engineer's mobility lays (1..127" in (
        mines.info.treatment
    )
    # an infantry in 0,0 holds the frontier but lays no mines
    world.units[8] = LandUnit(uid=8, type=world.tables.land["inf"], owner=1, x=0, y=0, mob=99,
                              items={"mil": 100})  # fmt: skip
    v = view(world, 1)
    v.observations["sector 2,0"] = spied(world, (2, 0))
    assert mines_of(v).dist.quantile(0.74) == 0 and mines_of(v).dist.quantile(0.76) > 0
    world.units[8] = LandUnit(uid=8, type=world.tables.land["eng"], owner=1, x=0, y=0, mob=99,
                              items={"mil": 100})  # fmt: skip
    v = view(world, 1)
    v.observations["sector 2,0"] = spied(world, (2, 0))
    mines = mines_of(v)
    assert mines.dist.quantile(0.49) == 0 and mines.dist.quantile(0.51) > 0  # (1+1)/(2+2)
    assert "1 with an engineer" in mines.info.treatment
    v.observations["sector 2,0"].fields["oldowner"] = Seen(1, TURN, 0, "spy")
    assert mines_of(v).dist.values == (0,) and "old owner" in mines_of(v).info.treatment


def test_a_ships_unseen_crew_is_loaded_by_the_number_from_the_owners_mil(world: World) -> None:
    """A crew is what its owner loaded, by the number: like the viewer's own ships of the
    type, one each, and all else weighing one in all: the lesser of what the type holds
    and the mil of one of the owner's sectors seen holding mil, or any crew, weighing
    one; a ship at sea without civ has a mil at least (shp_may_nav).  The viewer's crews
    of other types count for nothing (a battleship's share says nothing of a cargo
    ship's crew)."""
    tables = world.tables
    world.ships[1] = Ship(uid=1, type=tables.ships["cs"], owner=1, x=1, y=1, items={"mil": 10})
    world.ships[2] = Ship(uid=2, type=tables.ships["bb"], owner=1, x=1, y=1, items={"mil": 20})
    v = view(world, 1)
    v.observations["sector 2,0"] = spied(world, (2, 0))  # 40 mil, shown as 40
    v.observations["sector 24,0"] = seen_by("lookout", "sector", "24,0", owner=2,
                                            type="capital", mil=120)  # fmt: skip
    v.observations["sector 22,0"] = seen_by("lookout", "sector", "22,0", owner=2,
                                            type="wilderness", mil=0)  # fmt: skip
    v.observations["ship 3"] = seen_by("lookout", "ship", "3", type="cs", owner=2, at="3,1")
    v.observations["ship 4"] = seen_by("coastwatch", "ship", "4", type="pt", owner=2, at="3,1")
    v.bmaps[1] = BMap.blank(1, v.geometry)
    v.bmaps[1].put((3, 1), ".")
    unknowns = {u.name: u for u in believe(v, 1, (2, 0)).unknowns}

    def chances(name: str) -> dict[int, float]:
        d = unknowns[name].dist
        return {x: w / sum(d.weights) for x, w in zip(d.values, d.weights, strict=True)}

    # a cargo ship holds 50 mil (and civ, so it may sail without mil): the viewer's own
    # cargo ship of 10 weighs one, all else one: the sector of 40 gives 40, the one of
    # 120 gives 50, the one without mil nothing; any crew weighs one among those
    cs = chances("ship#3.mil")
    assert list(cs) == list(range(51))
    assert cs[10] == pytest.approx(1 / 2 + 1 / 306)
    assert cs[40] == pytest.approx(1 / 6 + 1 / 306) and cs[50] == pytest.approx(1 / 6 + 1 / 306)
    assert cs[0] == cs[11] == pytest.approx(1 / 306)
    treatment = unknowns["ship#3.mil"].info.treatment
    assert "like the country's own 1 of the type" in treatment
    assert "the mil of one of the owner's 2 sectors seen" in treatment
    # a patrol boat holds 2 mil and no civ: at sea it has one at least; the viewer has
    # none, and its battleship's crew says nothing of it
    assert chances("ship#4.mil") == pytest.approx({1: 1 / 6, 2: 5 / 6})
    assert "at sea, so at least 1" in unknowns["ship#4.mil"].info.treatment
    assert "of the type" not in unknowns["ship#4.mil"].info.treatment


def test_a_sector_under_the_viewers_ship_is_sea(world: World) -> None:
    """The bmap may not show the sea a ship sails on; the ship says it is sea, so an
    assault from it is not 'from that far inland'."""
    v = view(world, 1)
    v.observations["sector 2,0"] = spied(world, (2, 0))
    v.ships[5] = Ship(uid=5, type=v.tables.ships["dd"], owner=1, x=3, y=1, mob=100)
    b = believe(v, 1, (2, 0))
    assert b.base.sector((3, 1)).type.is_sea
    assert not [u for u in b.unknowns if u.name == "3,1.like"]
    assert b.base.sector((1, 1)).type.name == "wilderness"  # no ship, no bmap: land


def test_where_the_fight_is(world: World) -> None:
    assert target_of(world, 1, plan_of(world, "attack 2,0", [])) == (2, 0)
    drop = load_world(EXAMPLES / "paradrop.toml")
    order = Order.parse("paradrop 0 . 0,0 jjh")
    assert target_of(drop, 1, make_plan(drop, 1, order, [], [])) == (4, 0)


def test_the_command_line_lists_the_inputs(world: World, tmp_path) -> None:  # type: ignore[no-untyped-def]
    v = view(world, 1)
    v.observations["sector 2,0"] = spied(world, (2, 0))
    path = tmp_path / "view.toml"
    path.write_text(dumps(world_to_data(v)))
    args = ["empire", "odds", "attack", "2,0", "--world", str(path), "--as", "1",
            "--mil", "0,0=60", "--fog-draws", "4", "--seed", "2"]  # fmt: skip
    r = bellum(*args, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    validate(doc)
    assert doc["fog"] == {"viewer": 1, "turn": TURN, "draws": 4, "every_combination": False}
    names = [i["name"] for i in doc["inputs"]]
    assert names[:3] == ["2,0.mil", "2,0.eff", "2,0.defense"] and "2,0.mines" in names
    r = bellum(*args, "--assume", "2,0.mil=40")
    assert r.returncode == 0, r.stderr
    assert "2,0.mil      known    spy, update 3           assumed 40 (--assume)" in r.stdout
    r = bellum("empire", "odds", "attack", "2,0", "--world", str(EXAMPLES / "vector-a.toml"),
               "--as", "1", "--assume", "2,0.mil=40")  # fmt: skip
    assert r.returncode == 2 and "--assume goes with a player's view" in r.stderr


def test_a_hidden_sector_may_hold_a_garrison_like_the_countrys_own_as_far_from_a_frontier(
    world: World,
) -> None:
    """A reserve reacts only within its radius and with the mobility for the path
    (attsub.c), so reserves wait at a set distance behind the frontier they guard: a
    sector never seen may hold the garrison of one of the viewer's own sectors as far from
    a frontier, each weighing one, copied with its units' missions for the owner, at the
    owner's tech; the garrisons a spy saw weigh one in all."""
    world.sectors[(62, 0)].owner = 1  # two from 2,0, the other country's land
    world.units[7] = LandUnit(uid=7, type=world.tables.land["cav"], owner=1, x=62, y=0,
                              mob=99, items={"mil": 20}, mission="reserve",
                              op_center=(62, 0), op_radius=3)  # fmt: skip
    v = view(world, 1)
    v.bmaps[1] = BMap.blank(1, v.geometry)
    v.bmaps[1].put((4, 0), "?")
    v.observations["sector 2,0"] = spied(world, (2, 0))
    band = Seen(None, TURN, 0, "report", lo=140, hi=160, how="band")
    v.observations["nation 2"] = Observation("nation", "2", {"tech": band})
    b = believe(v, 1, (2, 0))
    (like,) = [u for u in b.unknowns if u.name == "4,0.like"]
    total = sum(like.dist.weights)
    chances = {v: w / total for v, w in zip(like.dist.values, like.dist.weights, strict=True)}
    # 4,0 is two from the viewer's 0,0, as its 62,0 is from 2,0: that garrison weighs
    # one, no spied garrison the other (the sector then empty); and it is like 62,0 or
    # like 2,0, the one sector of 2 seen (one from a frontier), each weighing one
    assert chances == pytest.approx({(i, j, mode): 1 / 4 for i in (0, 1)
                                     for j, mode in ((-1, False), (0, "own"))})  # fmt: skip
    assert "own 1 sectors 2 from a frontier, each weighing one, 1 with units" in (
        like.info.treatment
    )
    drawn = b.world([(0, 0, "own") if u is like else u.dist.values[0] for u in b.open])
    (copy,) = [u for u in drawn.units.values() if u.xy == (4, 0)]
    assert (copy.owner, copy.type.name, copy.mission) == (2, "cavalry", "reserve")
    assert (copy.op_center, copy.op_radius, copy.tech) == ((4, 0), 3, 150.0)
    assert drawn.units[7].xy == (62, 0) and drawn.units[7].owner == 1


def test_a_seen_units_fortification_is_as_the_countrys_own_as_far_from_a_frontier(
    world: World,
) -> None:
    """No report shows a unit's fortification; units fortify where they hold a line, so a
    unit seen is fortified as the viewer's own units as far from a frontier are, each
    weighing one, and all its units together weighing one."""
    inf = world.tables.land["inf"]
    for uid, x, fort, owner in ((10, 0, 100, 1), (11, 44, 0, 1), (7, 2, 0, 2), (8, 24, 0, 2)):
        world.units[uid] = LandUnit(uid=uid, type=inf, owner=owner, x=x, y=0, mob=99,
                                    items={"mil": 100}, fort=fort)  # fmt: skip
    v = view(world, 1)
    v.observations["sector 24,0"] = spied(world, (24, 0))
    v.observations["sector 2,0"] = spied(world, (2, 0))
    v.observations["unit 7"] = seen_by("spy", "unit", "7", type="inf", owner=2, at="2,0")
    v.observations["unit 8"] = seen_by("spy", "unit", "8", type="inf", owner=2, at="24,0")

    def fort(at: tuple[int, int], name: str) -> dict[object, float]:
        (u,) = [u for u in believe(v, 1, at).unknowns if u.name == name]
        total = sum(u.dist.weights)
        return {k: w / total for k, w in zip(u.dist.values, u.dist.weights, strict=True)}

    # 2,0 is on the frontier, as the viewer's 0,0 (fortified 100); 24,0 three or more
    # from it, as its 44,0 (not fortified); its two units together weigh one
    assert fort((2, 0), "unit#7.fort") == pytest.approx({0: 1 / 4, 100: 3 / 4})
    assert fort((24, 0), "unit#8.fort") == pytest.approx({0: 3 / 4, 100: 1 / 4})


def test_an_airfield_a_lookout_saw_holds_its_planes_fuel_and_bombs() -> None:
    """lookout shows an airfield's mil, not its petrol or shells, yet the planes based
    there fly a mission only with their fuel and bombs from it: both are unknowns (any
    stock up to 100 without any airfield to go by, as a spy counted it where one did),
    and the world drawn with them at the truth is the whole world, odds and all.  Before
    they were taken as none: the defenders' bombers stayed home, and the attack looked
    certain."""
    world = load_world(EXAMPLES / "air-support.toml")
    field = world.sector((4, 2))
    field.owner = field.oldowner = 2
    for p in world.planes.values():  # as the belief places a plane seen
        p.owner, p.mob, p.tech = 2, 127, float(p.type.tech)
        p.op_center, p.op_radius = p.xy, p.type.range
    plan = make_plan(world, 1, Order.parse("attack 2,0"), ["0,0=100"], [])
    god = plan_odds(world, 1, plan, seed=1)
    dry = world.copy()
    dry.sector((4, 2)).items["petrol"] = 0
    assert god.p_success < 0.6 < 0.99 < plan_odds(dry, 1, plan, seed=1).p_success
    v = view(world, 1)
    target = spied(world, (2, 0), exact=True)
    target.fields["mines"] = Seen(0, TURN, 0, "deity")
    target.fields["civ"] = Seen(100, TURN, 0, "spy")
    v.observations[target.key] = target
    v.observations["nation 2"] = seen_by("report", "nation", "2", tech=100)
    v.observations["sector 4,2"] = seen_by("lookout", "sector", "4,2", owner=2, type="airfield",
                                           mil=20, eff=100)  # fmt: skip
    for p in world.planes.values():
        v.observations[f"plane {p.uid}"] = seen_by("lookout", "plane", str(p.uid), owner=2,
                                                   type="mb", at="4,2")  # fmt: skip
    b = believe(v, 1, (2, 0))
    stock = {u.name: u for u in b.unknowns if u.name.startswith("4,2.")}
    assert stock["4,2.petrol"].dist.values == tuple(range(101))
    assert stock["4,2.shell"].info.status == "unknown"
    truth = {"2,0.mines": 0, "4,2.petrol": 50, "4,2.shell": 40}
    drawn = b.world([truth.get(u.name, u.dist.values[0]) for u in b.open])
    assert plan_odds(drawn, 1, plan, seed=1).p_success == god.p_success
    # a spy's count is the count, rounded
    v.observations["sector 4,2"].fields["petrol"] = Seen(50, TURN, 0, "spy", 45, 54, "rounded")
    (petrol,) = [u for u in believe(v, 1, (2, 0)).unknowns if u.name == "4,2.petrol"]
    assert petrol.dist.values == tuple(range(45, 55))


def test_each_hidden_garrison_copied_keeps_all_its_units() -> None:
    """Hidden sectors drawn with the viewer's own garrison of two units hold two copies
    each: no copy takes the uid of another garrison's copy."""
    world = load_world(EXAMPLES / "vector-a.toml")
    world.sectors[(62, 0)].owner = 1
    for uid, t in ((7, "cav"), (9, "inf")):
        world.units[uid] = LandUnit(uid=uid, type=world.tables.land[t], owner=1, x=62, y=0,
                                    mob=99, items={"mil": 20}, mission="reserve",
                                    op_center=(62, 0), op_radius=3)  # fmt: skip
    v = view(world, 1)
    v.bmaps[1] = BMap.blank(1, v.geometry)
    for xy in ((4, 0), (3, 1), (3, -1)):
        v.bmaps[1].put(xy, "?")
    v.observations["sector 2,0"] = spied(world, (2, 0))
    v.observations["nation 2"] = Observation(
        "nation", "2", {"tech": Seen(None, TURN, 0, "report", lo=140, hi=160, how="band")}
    )
    b = believe(v, 1, (2, 0))
    likes = {u.name for u in b.unknowns if u.name.endswith(".like")}

    def own(values: tuple[object, ...]) -> list[object]:
        return [x for x in values if isinstance(x, tuple) and len(x) == 3 and x[2] == "own"]

    picks = [
        own(u.dist.values)[0] if u.name in likes and own(u.dist.values) else u.dist.values[0]
        for u in b.open
    ]
    garrisons = sum(1 for u in b.unknowns if u.name in likes and own(u.dist.values))
    drawn = b.world(picks)
    copies = [u for u in drawn.units.values() if u.uid >= COPY_UIDS]
    assert garrisons > 1
    assert len(copies) == 2 * garrisons
    assert sum(u.type.name == "infantry" for u in copies) == garrisons


def test_a_sector_never_seen_is_also_like_the_countrys_own_as_deep() -> None:
    """The sectors seen of an enemy are mostly its frontier's, where the mil stand: a
    sector never seen deep in its land is like one of them (all together weighing one),
    one of those seen as far from a frontier, or one of the viewer's own as far (each
    weighing one).  Taken like the frontier alone, an enemy's interior held the
    frontier's hundreds of mil, and a paradrop onto a warehouse of 11 looked hopeless
    (training world 4001: fog-aware 0.001 where the god's-eye odds were 1.00)."""
    world = load_world(EXAMPLES / "vector-a.toml")
    world.sectors[(2, 0)].mil = 300
    v = view(world, 1)
    v.bmaps[1] = BMap.blank(1, v.geometry)
    v.bmaps[1].put((26, 0), "?")
    v.observations["sector 2,0"] = spied(world, (2, 0))
    v.observations["sector 24,0"] = spied(world, (24, 0))
    (like,) = [u for u in believe(v, 1, (24, 0)).unknowns if u.name == "26,0.like"]
    assert "seen 3 or more from a frontier or of the country's own 1 as deep" in (
        like.info.treatment
    )
    # three or more from a frontier: 24,0 (seen) and the viewer's 44,0 each weigh one,
    # the two seen one in all
    looks = {0: 1 / 2 / 3, 1: (1 / 2 + 1) / 3, 2: 1 / 3}
    total = sum(like.dist.weights)
    for i, p in looks.items():
        got = sum(w for v_, w in zip(like.dist.values, like.dist.weights, strict=True)
                  if v_[0] == i)  # fmt: skip
        assert got / total == pytest.approx(p)
    own = next(v_ for v_ in like.dist.values if v_[0] == 2)
    b = believe(v, 1, (24, 0))
    drawn = b.world([own if u.name == "26,0.like" else u.dist.values[0] for u in b.open])
    s = drawn.sectors[(26, 0)]
    assert (s.owner, s.type.name, s.mil, s.eff) == (2, "capital", 10, 100)


def test_llookout_shows_units_as_far_as_the_lookers_range() -> None:
    """look_land (look.c) lists every foreign unit on land within ldround(vis * range /
    20) of a looking unit, not only in the sectors next to it: a cavalry at tech 250
    (spy 4: range ldround(4 * 300 / 450) = 3) shows an infantry (vis 15: ldround(2.25) =
    2) two sectors away.  So a sector two away that a ship's lookout saw empty, and one
    never seen, hold no garrison with an infantry; three away (beyond its 2) they may."""
    world = load_world(EXAMPLES / "vector-a.toml")
    tables = world.tables
    world.sectors[(4, 0)].owner = 2
    world.units[8] = LandUnit(uid=8, type=tables.land["cav"], owner=1, x=0, y=0, mob=99,
                              tech=250.0, items={"mil": 20})  # fmt: skip
    v = spied_infantry_view(world, unseen=(6, 0))
    v.observations["sector 4,0"] = seen_by("lookout", "sector", "4,0", owner=2,
                                           type="wilderness", mil=40)  # fmt: skip

    def held(name: str) -> bool:
        (u,) = [u for u in believe(v, 1, (2, 0)).unknowns if u.name == name]
        return any(pick[-2] >= 0 for pick in u.dist.values)

    assert not held("4,0.units")
    # 6,0 is three from the cavalry: beyond what it shows of an infantry
    assert held("6,0.like")
    # 4,0 never seen, where the bmap shows land: two from the cavalry, so no infantry
    del v.observations["sector 4,0"]
    v.bmaps[1].put((4, 0), "?")
    assert not held("4,0.like")
    # at half efficiency the cavalry's range is 1 (ldround(1.33)), an infantry's 1
    v.units[8].eff = 50
    assert held("4,0.like")


def test_a_units_rounded_mil_keeps_the_weights_of_its_prior() -> None:
    """spy shows a unit's mil rounded to 10 (roundintby, spy.c): seen as 100, an
    infantry (which holds 100) has 95..100.  The rounding rules the rest out and says
    nothing of those six; their weights are the prior's, the viewer's own loads, here
    all full.  Taken uniform, an lboard by a party as large as the unit holds (attsub.c
    caps it there) came out at 0.62 where the fight is even (calibration world 9301)."""
    world = load_world(EXAMPLES / "vector-a.toml")
    inf = world.tables.land["inf"]
    world.units[7] = LandUnit(uid=7, type=inf, owner=2, x=2, y=0, mob=99, items={"mil": 100})
    for uid in (8, 9):
        world.units[uid] = LandUnit(uid=uid, type=inf, owner=1, x=0, y=0, mob=99,
                                    items={"mil": 100})  # fmt: skip
    v = view(world, 1)
    v.observations["sector 2,0"] = spied(world, (2, 0))
    v.observations["unit 7"] = Observation("unit", "7", {
        "type": Seen("inf", TURN, 0, "spy"), "owner": Seen(2, TURN, 0, "spy"),
        "at": Seen("2,0", TURN, 0, "spy"),
        "mil": Seen(100, TURN, 0, "spy", *rounded(100, 10), "rounded to 10")})  # fmt: skip
    (mil,) = [u for u in believe(v, 1, (2, 0)).unknowns if u.name == "unit#7.mil"]
    chances = dict(zip(mil.dist.values, mil.dist.weights, strict=True))
    assert set(chances) == set(range(95, 101))
    assert chances[100] / sum(chances.values()) > 0.95
    assert "100 with 9" in mil.info.treatment


def test_a_sector_the_bmap_shows_as_land_of_some_use_is_no_mountain() -> None:
    """map names a mountain, a wasteland and the sea wherever they are and draws any
    other sector another country owns as ``?`` (map_char, maps.c); no player makes or
    unmakes one (D_DEITY, desi.c).  A sector the bmap shows as ``?`` is never drawn like
    the viewer's own mountain as deep; one it shows nothing of may be."""
    world = load_world(EXAMPLES / "vector-a.toml")
    world.sectors[(44, 0)].type = world.tables.sector("mountain")
    v = view(world, 1)
    v.bmaps[1] = BMap.blank(1, v.geometry)
    v.bmaps[1].put((26, 0), "?")
    v.observations["sector 2,0"] = spied(world, (2, 0))
    v.observations["sector 24,0"] = spied(world, (24, 0))

    def looks(name: str) -> set[int]:
        (like,) = [u for u in believe(v, 1, (24, 0)).unknowns if u.name == name]
        return {pick[0] for pick in like.dist.values}

    # 2,0 and 24,0 seen (a wilderness and a capital), the viewer's mountain 44,0 as deep
    assert looks("26,0.like") == {0, 1}
    assert 2 in looks("25,1.like")  # blank on the bmap, one from the target
