"""Threats in a player's view: the enemy's forces drawn from the fog-of-war beliefs
(docs/fog.md), each threat listing what it assumed; where everything was seen exactly,
the deity's threats."""

from __future__ import annotations

import json
import math

import pytest
from planworlds import front

from bellum.empire.intel.reports import rounded
from bellum.empire.io.sqlite.store import Store
from bellum.empire.plan.curves import LocalPool
from bellum.empire.plan.precision import THREAT_DRAWS
from bellum.empire.plan.threats import threat_map
from bellum.empire.world import World
from clirunner import bellum
from fogviews import spied, view
from jsonschemas import validate

#: Country 2 strikes country 1's sector 7,1 from 8,0, 8,2 and 9,1 with P(success) 0.88.
TARGET = "sector:7,1"
ATTACKERS = ((8, 0), (8, 2), (9, 1))


def _world() -> World:
    """front(2) with country 2 as a player's view cannot tell it: every sector at the
    most mobility, the most BTUs (what the threat map assumes where it was not seen)."""
    world = front(2, units=0)
    for s in world.sectors.values():
        if s.owner == 2:
            s.mob = 127
    world.nations[2].btu = 640
    return world


def _view(world: World, rounded_at: tuple[tuple[int, int], ...] = ()) -> World:
    """Country 1's view: every sector of country 2 spied, exactly but at ``rounded_at``."""
    v = view(world, 1)
    for s in world.sectors.values():
        if s.owner == 2:
            o = spied(world, s.xy, exact=s.xy not in rounded_at)
            v.observations[o.key] = o
    return v


def test_everything_seen_exactly_gives_the_deitys_threats() -> None:
    world = _world()
    god = threat_map(world, 1, pool=LocalPool(1))
    fog = threat_map(_view(world), 1, pool=LocalPool(1))
    assert fog.notes and not god.notes
    assert [(t.target, t.enemy, t.order) for t in fog.threats] == [
        (t.target, t.enemy, t.order) for t in god.threats
    ]
    assert any(0.05 < t.point.p < 0.95 for t in god.threats)
    for f, g in zip(fog.threats, god.threats, strict=True):
        assert f.point.p == pytest.approx(g.point.p, abs=1e-9)
        assert f.point.defender == pytest.approx(g.point.defender, abs=1e-9)
        assert f.draws == 1 and g.draws == 0 and not g.assumed
        assert {i.name for i in f.assumed} == {"nation#2.btu", "country#2 sectors.mob"}


def test_a_rounded_sighting_is_drawn_and_listed() -> None:
    world = _world()
    fog = threat_map(_view(world, ATTACKERS), 1, pool=LocalPool(1))
    (t,) = [t for t in fog.threats if t.target == TARGET]
    mil = {f"{world.fmt(xy, 1)}.mil" for xy in ATTACKERS if world.sector(xy).mil}
    assumed = {i.name: i for i in t.assumed}
    assert mil and mil <= set(assumed)
    assert all(assumed[n].status == "known" and "rounded to 10" in assumed[n].treatment
               for n in mil)  # fmt: skip
    assert t.draws == 8 and t.point.method.startswith("fog: 8 worlds") and t.point.se > 0

    def at(end: int) -> float:
        """The deity's threat with every rounded mil at the low (0) or high (1) end."""
        w = world.copy()
        for xy in ATTACKERS:
            shown = (w.sector(xy).mil + 5) // 10 * 10
            w.sector(xy).items["mil"] = int(rounded(shown, 10)[end])
        (g,) = [g for g in threat_map(w, 1, pool=LocalPool(1)).threats if g.target == TARGET]
        return g.point.p

    low, high = at(0), at(1)
    assert low < high
    assert low <= t.point.p <= high


def test_the_command_lists_what_each_threat_assumed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "view.db"
    world = _world()
    Store.create(db, _view(world, ATTACKERS)).close()
    target, seen = world.fmt((7, 1), 1), f"{world.fmt(ATTACKERS[0], 1)}.mil"
    ran = bellum("empire", "threats", "--db", str(db), "--as", "1", "--jobs", "1", "--draws",
                 "4", "--json", cwd=tmp_path)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    doc = json.loads(ran.stdout)
    validate(doc)
    (t,) = [t for t in doc["threats"] if t["target"] == target]
    assert t["draws"] == 4 and any(a["name"] == seen for a in t["assumed"])
    text = bellum("empire", "threats", "--db", str(db), "--as", "1", "--jobs", "1", "--draws",
                  "4", cwd=tmp_path)  # fmt: skip
    assert text.returncode == 0, text.stderr
    assert seen in text.stdout and "4 worlds" in text.stdout
    shown = bellum("empire", "threats", "--help", cwd=tmp_path).stdout
    assert f"[default: {THREAT_DRAWS};" in " ".join(shown.split())


def test_a_players_threats_are_kept_in_the_store(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The second threat map of the same view, country and draws comes from the store
    (nothing solved), equal to the first; other draws, or a changed view, are solved."""
    from bellum.empire.plan.threats import ThreatMap, to_json

    world = _world()
    store = Store.create(tmp_path / "view.db", _view(world, ATTACKERS))
    try:
        view, version = store.world(), store.version()

        def threats(draws: int, version: str = version) -> ThreatMap:
            return threat_map(view, 1, pool=LocalPool(1), cache=store, version=version,
                              draws=draws)  # fmt: skip

        first = threats(4)
        assert first.seconds_solved > 0
        again = threats(4)
        assert again.seconds_solved == 0
        assert to_json(view, again) == to_json(view, first)
        assert threats(2).seconds_solved > 0
        assert threats(4, version + "x").seconds_solved > 0
    finally:
        store.close()


def test_the_mixtures_standard_error_is_the_draws_spread_and_each_worlds_own() -> None:
    """One formula for the fog odds and the threat map (bellum.empire.odds.drawn): two
    worlds drawn, one won and one lost, spread √((0.5² + 0.5²) / 1 / 2) = 0.5; a world
    that does not allow the strike counts a loss; nothing spreads when every combination
    was taken; each world's own error adds in quadrature."""
    from bellum.empire.odds.drawn import drawn_mixture_error

    assert drawn_mixture_error([(0.5, 1.0, 0.0), (0.5, 0.0, 0.0)], 2, False) == 0.5
    assert drawn_mixture_error([(0.5, 1.0, 0.1)], 2, False) == pytest.approx(math.hypot(0.5, 0.05))
    assert drawn_mixture_error([(0.25, 1.0, 0.2), (0.75, 0.0, 0.0)], 2, True) == 0.05
    assert drawn_mixture_error([(1.0, 0.3, 0.02)], 1, False) == 0.02
