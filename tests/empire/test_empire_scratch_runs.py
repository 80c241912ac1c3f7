"""Runs on scratch worlds of one template are the command's own runs (``bellum.empire.scratch``).

A scratch world copies a sector, unit, ship or plane only when a run hands it out, and
the support fire lists its firers once per template (``bellum.empire.combat.support``),
taking them again while nothing they read has changed.  Each test here plays the
realistic plans of w32x16 (the five commands, every kind of support) both ways, with
the server's generator and the same seeds: on scratch worlds of one template, one after
another, and on plain copies of the world.  Transcripts, results and the worlds left
behind must be the same, including when a run begins on a scratch world already changed
in what the firers read; and the template must come out of it all untouched.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable
from functools import cache

import pytest
from realistic import DEFAULT_OUT, PlanPrompter, load_plans, load_world, plan_order

from bellum.empire import run_command
from bellum.empire.combat import support
from bellum.empire.combat.result import CombatResult
from bellum.empire.scratch import WorldTemplate, changed, pristine
from bellum.empire.world import Relation, World, peek_items, peek_where

WORLDS, PLANS = load_plans()
SMALL = [p for p in PLANS if p.world == "w32x16"]
SEEDS = range(6)


@cache
def _world() -> World:
    return load_world(DEFAULT_OUT / WORLDS["w32x16"]["dump"])


def _play(world: World, plan_id: str, seed: int) -> CombatResult:
    plan = next(p for p in SMALL if p.id == plan_id)
    order, cnum, named = plan_order(world, plan)
    return run_command(
        world, order, country=cnum, seed=seed, prompter=PlanPrompter(named, strict=False)
    )


def _state(w: World) -> bytes:
    """Everything a run can leave behind in ``w``, as bytes to compare."""
    objects = (
        sorted(w.nations.items()),
        sorted(dict(w.sectors.items()).items()),
        sorted(w.units.items()),
        sorted(w.ships.items()),
        sorted(w.planes.items()),
        w.telegrams,
        w.news,
    )
    return pickle.dumps(objects, pickle.HIGHEST_PROTOCOL)


def _same_run(a: CombatResult, b: CombatResult) -> None:
    assert a.transcript() == b.transcript()
    assert (a.outcome, a.attacker_casualties, a.defender_casualties) == (
        b.outcome,
        b.attacker_casualties,
        b.defender_casualties,
    )


def test_the_plans_cover_the_commands_and_support() -> None:
    assert {p.id.split("-")[1] for p in SMALL} >= {"attack", "assault", "paradrop"}
    assert {k for p in SMALL for k in p.kinds} >= {"fort", "ship", "unit"}


@pytest.mark.parametrize("plan_id", [p.id for p in SMALL])
def test_runs_on_a_template_are_runs_on_copies(plan_id: str) -> None:
    world = _world()
    template = WorldTemplate(world)
    before = _state(template.frozen)
    for seed in SEEDS:
        scratch = template.scratch()
        alone = world.copy()
        _same_run(_play(scratch, plan_id, seed), _play(alone, plan_id, seed))
        assert _state(scratch) == _state(alone)
    assert _state(template.frozen) == before  # nothing a run changed reached the template


def _forts(w: World, cnum: int) -> None:
    for xy in list(w.sectors.keys()):
        s = w.peek(xy)
        if s.type.has("fortress") and s.owner != cnum and s.get("gun"):
            w.sector(xy).put("gun", 0)


def _artillery(w: World, cnum: int) -> None:
    for k, u in peek_items(w.units):
        if u.owner != cnum and u.items.get("shell"):
            w.units[k].items["shell"] = 0


def _ships(w: World, cnum: int) -> None:
    for k, sh in peek_items(w.ships):
        if sh.owner != cnum and sh.items.get("gun"):
            w.ships[k].items["gun"] = 0


def _own_ships(w: World, cnum: int) -> None:
    for k, sh in peek_items(w.ships):
        if sh.owner == cnum:
            w.ships[k].y = (sh.y + 8) % w.geometry.height


#: Changes made to a scratch world before its run, each to something the support fire's
#: firers read (``cnum`` attacks): the other countries' forts lose their guns, their
#: artillery its shells, their ships their guns; the attacker's ships sail away.
EDITS: dict[str, Callable[[World, int], None]] = {
    "forts": _forts,
    "artillery": _artillery,
    "ships": _ships,
    "own ships": _own_ships,
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_changed_scratch_world_is_not_read_as_its_template(edit: str) -> None:
    world = _world()
    template = WorldTemplate(world)
    changes = 0
    for plan in SMALL:
        cnum = plan_order(world.copy(), plan)[1]
        for seed in SEEDS:
            _play(template.scratch(), plan.id, seed)  # the template's firers listed
            scratch, alone = template.scratch(), world.copy()
            EDITS[edit](scratch, cnum)
            EDITS[edit](alone, cnum)
            edited = _play(scratch, plan.id, seed)
            _same_run(edited, _play(alone, plan.id, seed))
            assert _state(scratch) == _state(alone)
            changes += edited.transcript() != _play(world.copy(), plan.id, seed).transcript()
    assert changes > 0  # the edit changes some run: the test can tell a stale list


def test_a_scratch_worlds_objects_are_copied_when_handed_out() -> None:
    world = _world()
    template = WorldTemplate(world)
    w = template.scratch()
    first, second = sorted(world.units)[:2]
    assert pristine(w) is template and changed(w.units) == []
    assert dict.__len__(w.units) == 0 and len(peek_items(w.units)) == len(world.units)
    w.units[first].mob += 1  # a copy, changed
    assert w.units[first] is not template.frozen.units[first]
    assert template.frozen.units[first].mob == world.units[first].mob
    assert changed(w.units) == [(first, w.units[first])]
    w.units.get(second)  # a copy, unchanged
    assert [k for k, _ in changed(w.units)] == [first]
    del w.units[second]
    assert second not in w.units and len(w.units) == len(world.units) - 1
    assert (second, None) in changed(w.units)
    assert w.units.pop(second, "gone") == "gone"
    with pytest.raises(KeyError):
        w.units[second]
    w.units[second] = template.frozen.units[second]
    assert list(w.units)[-1] == second  # set again: last, as in a plain dict
    here = template.frozen.units[first].xy
    at = sorted(k for k, _ in peek_where(w.units, "xy", here))
    assert at == sorted(k for k, u in world.units.items() if u.xy == here)
    w.units[first].x += 1
    assert first not in [k for k, _ in peek_where(w.units, "xy", here)]
    p = next(iter(w.planes))
    w.planes[p].mob -= 1
    assert pristine(w) is template and [k for k, _ in changed(w.planes)] == [p]
    w.nations[next(iter(w.nations))].tech += 1
    assert pristine(w) is None  # a fort's range, say, is no longer the template's
    assert pristine(world) is None and pristine(template.scratch()) is template


def test_a_salvos_firers_are_listed_once_per_template() -> None:
    world = _world()
    template = WorldTemplate(world)
    plan = next(p for p in SMALL if "unit" in p.kinds and "fort" in p.kinds)
    _play(template.scratch(), plan.id, 0)
    listed = {k: v for k, v in template.memo.items() if isinstance(v, support._Listed)}
    assert listed
    _play(template.scratch(), plan.id, 1)
    again = {k: v for k, v in template.memo.items() if isinstance(v, support._Listed)}
    assert all(again[k] is v for k, v in listed.items())


def _random_edit(w: World, rng: random.Random) -> None:
    """One change to what the support fire's firers read, drawn by ``rng``: relations,
    an owner, a ship or unit moved or added where another unit stands, a mission, or a
    plane's base (``rng`` draws the same on a scratch world and on a copy)."""
    looked = dict(peek_items(w.units))  # read without copying
    units = sorted(looked)
    ships = sorted(k for k, _ in peek_items(w.ships))
    planes = sorted(k for k, _ in peek_items(w.planes))
    nations = sorted(w.nations)
    kind = rng.choice(["relations", "owner", "move", "add", "mission", "base"])
    if kind == "relations":
        a, b = rng.sample(nations, 2)
        w.nations[a].relations[b] = rng.choice(list(Relation))
    elif kind == "owner":
        objects, keys = (w.units, units) if rng.random() < 0.5 else (w.ships, ships)
        objects[rng.choice(keys)].owner = rng.choice(nations)
    elif kind == "move":
        sh = w.ships[rng.choice(ships)]
        sh.x, sh.y = looked[rng.choice(units)].xy
    elif kind == "add":
        new = copy.deepcopy(looked[rng.choice(units)])
        new.uid = max(units) + 1
        new.x, new.y = looked[rng.choice(units)].xy
        w.units[new.uid] = new
    elif kind == "mission":
        objects, keys = (w.units, units) if rng.random() < 0.5 else (w.ships, ships)
        objects[rng.choice(keys)].mission = rng.choice(["", "reserve", "support"])
    else:
        p = w.planes[rng.choice(planes)]
        if rng.random() < 0.5:
            p.ship, p.land = rng.choice(ships), None
        else:
            p.ship, p.land = None, rng.choice(units)


def test_random_edits_never_leave_a_stale_firer(monkeypatch: pytest.MonkeyPatch) -> None:
    """After random edits (relations, owners, moves, new units, missions, plane bases),
    a run on a scratch world fires the same salvos, firer by firer, as on a plain copy
    with the same edits: what was listed, what would be listed now, and where planes
    are based all reach the lists (the review of c79589f broke each of these checks in
    turn and the fixed edits above still passed)."""
    fired: list[object] = []
    fire = support._fire

    def logged(kind, firers, *args, **kwargs):  # type: ignore[no-untyped-def]
        fired.append((kind, [repr(f) for f in firers]))
        return fire(kind, firers, *args, **kwargs)

    monkeypatch.setattr(support, "_fire", logged)
    world = _world()
    template = WorldTemplate(world)
    before = _state(template.frozen)
    changes = 0
    for i in range(240):
        rng = random.Random(i)
        plan, seed = rng.choice(SMALL), rng.randrange(len(SEEDS))
        _play(template.scratch(), plan.id, seed)  # the template's firers listed
        edits, runs = rng.randint(1, 3), []
        for w in (template.scratch(), world.copy()):
            drawn = random.Random(i + 1000)
            for _ in range(edits):
                _random_edit(w, drawn)
            fired.clear()
            runs.append((_play(w, plan.id, seed), list(fired), _state(w)))
        (a, fired_a, state_a), (b, fired_b, state_b) = runs
        _same_run(a, b)
        assert fired_a == fired_b and state_a == state_b, (i, plan.id)
        changes += a.transcript() != _play(world.copy(), plan.id, seed).transcript()
    assert changes > 20  # the edits change many runs: the test can tell a stale list
    assert _state(template.frozen) == before
