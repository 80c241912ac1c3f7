"""One study of a planned command (issue 23 item 4): :func:`bellum.empire.odds.study`.

The command line and the web page only fill a request and show the document, so a study
must give what the separate questions give: a sweep's rows are each plan's own odds, and
the force needed and the defense as seen are the command line's figures.
"""

from __future__ import annotations

import json

import pytest

from bellum.empire import load_world
from bellum.empire.odds import Request, Sweep, make_plan, plan_odds, prepare, study
from bellum.empire.odds.engine import MoreThanAsked
from bellum.empire.odds.questions import as_seen
from bellum.empire.orders import Order
from bellum.errors import CommandError, InputError
from clirunner import ROOT, bellum

EX = ROOT / "examples" / "empire"
ATTACK = Order.parse("attack 2,0")


def cli(world: str, *args: str) -> dict[str, object]:
    r = bellum("empire", "odds", "attack", "2,0", "--world", str(EX / world), "--as", "1",
               "--seed", "1", "--json", *args)  # fmt: skip
    assert r.returncode == 0, r.stderr
    doc: dict[str, object] = json.loads(r.stdout)
    return doc


def untimed(doc: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in doc.items() if k not in ("seconds", "cpu_seconds")}


def test_a_sweep_is_each_plans_own_odds() -> None:
    world = load_world(EX / "vector-a.toml")
    done = study(world, 1, Request(ATTACK, sweep=Sweep("0,0", (40, 80, 120)), seed=1))
    assert [row.label for row in done.rows] == ["0,0=40", "0,0=80", "0,0=120"]
    for row, n in zip(done.rows, (40, 80, 120), strict=True):
        alone = plan_odds(world, 1, make_plan(world, 1, ATTACK, [f"0,0={n}"], []), seed=1)
        assert row.odds.odds.outcomes == alone.odds.outcomes
        assert row.odds.expected("defender") == alone.expected("defender")
    doc = done.to_json()
    assert doc["schema"] == "bellum.empire.comparison" and len(doc["plans"]) == 3


def test_one_plan_is_the_commands_document() -> None:
    world = load_world(EX / "vector-a.toml")
    done = study(world, 1, Request(ATTACK, mil=("0,0=150",), seed=1))
    doc = done.to_json()
    assert list(doc)[:2] == ["schema", "schema_version"]
    assert untimed(doc) == untimed(cli("vector-a.toml", "--mil", "0,0=150"))
    assert doc["seconds"] == done.seconds and doc["cpu_seconds"] == done.cpu_seconds


def test_the_force_needed_is_the_commands() -> None:
    world = load_world(EX / "vector-a.toml")
    done = study(world, 1, Request(ATTACK, need=0.9, seed=1))
    assert done.need is not None and done.need.total is not None
    figures = cli("vector-a.toml", "--need", "0.9")
    assert figures["need"] == {"target": 0.9, "mil": done.need.total, "sampled": False}
    assert figures["p_attacker_wins"] == done.p_success >= 0.9
    # One mil fewer falls short: the search found the least.
    fewer = make_plan(world, 1, ATTACK, [f"0,0={done.need.total - 1}"], [])
    assert plan_odds(world, 1, fewer, seed=1).p_success < 0.9


def test_a_need_no_force_reaches_is_everything_and_says_so() -> None:
    world = load_world(EX / "failed.toml")
    done = study(world, 1, Request(ATTACK, need=0.9, seed=1))
    assert done.need is not None and done.need.total is None
    assert done.rows[0].label == "everything" and done.to_json()["need"]["mil"] is None


def test_the_defense_as_seen_is_the_commands() -> None:
    world = load_world(EX / "vector-a.toml")
    prior = (1.0, 2.0, 3.0, 4.0, 5.0, 5.0, 4.0, 3.0, 2.0, 1.0)
    request = Request(ATTACK, mil=("0,0=60",), defense_as_seen=True, prior=prior, seed=1)
    done = study(world, 1, request)
    plan = make_plan(world, 1, ATTACK, ["0,0=60"], [])
    direct = as_seen(world, 1, plan, weights=prior, seed=1)
    assert done.p_success == direct.p_success
    figures = cli("vector-a.toml", "--mil", "0,0=60", "--defense-as-seen", "--prior",
                  ",".join(map(str, prior)))  # fmt: skip
    assert figures["p_attacker_wins"] == done.p_success
    assert figures["outcomes"] == done.to_json()["outcomes"]


def test_the_resolver_check_plays_the_plan_studied() -> None:
    world = load_world(EX / "vector-a.toml")
    seen: list[tuple[str, float]] = []
    request = Request(ATTACK, mil=("0,0=150",), resolver_runs=200, seed=3)
    done = study(world, 1, request, progress=lambda stage, f: seen.append((stage, f)))
    assert done.resolver is not None and done.resolver.runs == 200
    z = done.to_json()["resolver"]["z"]
    assert all(abs(v) < 4 for v in z.values())  # 99.99 % two-sided
    assert ("resolver runs", 1.0) in seen


def test_a_request_is_checked_before_any_work() -> None:
    world = load_world(EX / "vector-a.toml")
    with pytest.raises(InputError) as many:
        prepare(world, 1, Request(ATTACK, mil=("0,0=60", "0,0=80"), need=0.9))
    assert many.value.field == "need"
    with pytest.raises(InputError) as fog:
        prepare(world, 1, Request(ATTACK, assume=("drift=0.5",)))
    assert fog.value.field == "assume"
    with pytest.raises(CommandError) as never:
        prepare(world, 1, Request(ATTACK, sweep=Sweep("4,4", (1, 2))))
    assert never.value.field == "sweep" and "never asks for mil from 4,4" in str(never.value)
    with pytest.raises(MoreThanAsked) as more:
        prepare(world, 1, Request(ATTACK, mil=(" 0,0 =500",)))
    assert (more.value.value, more.value.n, more.value.most) == ("0,0", 500, 199)


def test_a_sweep_past_the_most_is_capped_with_a_warning() -> None:
    world = load_world(EX / "vector-b.toml")
    ready = prepare(world, 1, Request(ATTACK, sweep=Sweep("0,0", (40, 120, 200))))
    assert [plan.mil for _, plan in ready.plans] == [{(0, 0): n} for n in (40, 120, 199)]
    assert ready.warnings == ("--sweep 0,0: capped at 199, the most attack 2,0 can take from 0,0",)
