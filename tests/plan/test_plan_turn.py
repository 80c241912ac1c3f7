"""The turn plan on generated worlds: against greedy, against `bellum empire odds`, played.

Every world here is made by :func:`planworlds.front` from a fixed seed.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from planworlds import front

from bellum.empire.io.sqlite.store import Store
from bellum.empire.plan.allocate import Objective
from bellum.empire.plan.curves import LocalPool
from bellum.empire.plan.planner import Settings, plan_turn
from clirunner import bellum
from jsonschemas import validate


def _used(plan_attacks: list[dict[str, object]]) -> dict[str, float]:
    used: dict[str, float] = {}
    for a in plan_attacks:
        for r, n in a["uses"].items():  # type: ignore[attr-defined]
            used[r] = used.get(r, 0.0) + n
    return used


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_never_worse_than_greedy_and_within_every_limit(seed: int) -> None:
    world = front(seed)
    plan = plan_turn(world, 1, Settings(levels=3), pool=LocalPool(1))
    (wave,) = plan.waves
    assert wave.allocation.value >= wave.greedy.value - 1e-9
    assert wave.allocation.gap is not None and wave.allocation.gap <= 0.01
    assert len({a.target for a in wave.attacks}) == len(wave.attacks)
    mil: dict[tuple[int, int], int] = {}
    units: list[int] = []
    for a in wave.attacks:
        for src, n in (a.plan.mil or {}).items():
            assert src != "ship"
            mil[src] = mil.get(src, 0) + n
        units += sorted(a.plan.units or ())
    for src, n in mil.items():
        assert n <= world.sector(src).mil - 1
    assert len(units) == len(set(units))
    assert world.nations[1].btu >= 3 * len(wave.attacks)


def _db(tmp_path: Path, seed: int) -> Path:
    db = tmp_path / "front.db"
    Store.create(db, front(seed)).close()
    return db


def _run(line: str, cwd: Path) -> object:
    words = shlex.split(line)
    assert words[0] == "bellum"
    return bellum(*words[1:], cwd=cwd)


def test_printed_orders_agree_with_their_odds_and_run(tmp_path: Path) -> None:
    db = _db(tmp_path, 2)
    ran = bellum("empire", "plan", "--db", str(db), "--as", "1", "--jobs", "1", "--json",
                 cwd=tmp_path)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    doc = json.loads(ran.stdout)
    attacks = doc["waves"][0]["attacks"]
    assert len(attacks) >= 3
    for a in attacks:
        odds = _run(a["odds_command"] + " --json", tmp_path)
        assert odds.returncode == 0, odds.stderr  # type: ignore[attr-defined]
        got = json.loads(odds.stdout)  # type: ignore[attr-defined]
        assert got["p_attacker_wins"] == pytest.approx(a["p_success"], rel=1e-5, abs=1e-9)
        assert got["expected_losses"]["attacker"] == pytest.approx(
            a["expected_losses"]["attacker"], rel=1e-5, abs=1e-6
        )
    again = bellum("empire", "plan", "--db", str(db), "--as", "1", "--jobs", "1", "--json",
                   cwd=tmp_path)  # fmt: skip
    redo = json.loads(again.stdout)
    assert redo["waves"][0]["solved"] == 0  # every curve came from the store's cache
    assert redo["waves"][0]["attacks"] == attacks
    for a in attacks:
        played = _run(a["command"], tmp_path)
        assert played.returncode == 0, played.stderr  # type: ignore[attr-defined]
        assert "warning" not in played.stderr  # type: ignore[attr-defined]


def test_second_wave_is_planned_on_what_the_first_leaves(tmp_path: Path) -> None:
    db = _db(tmp_path, 0)
    ran = bellum("empire", "plan", "--db", str(db), "--as", "1", "--jobs", "1", "--waves", "2",
                 "--json", cwd=tmp_path)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    first, second = json.loads(ran.stdout)["waves"]
    for a in first["attacks"]:
        assert _run(a["command"], tmp_path).returncode == 0  # type: ignore[attr-defined]
    assert second["attacks"], "the first wave's survivors can strike again"
    for a in second["attacks"]:
        got = json.loads(_run(a["odds_command"] + " --json", tmp_path).stdout)  # type: ignore[attr-defined]
        assert got["p_attacker_wins"] == pytest.approx(a["p_success"], rel=1e-5, abs=1e-9)


def test_count_objective_takes_the_most_sure_targets(tmp_path: Path) -> None:
    world = front(1)
    s = Settings(objective="count", min_p=0.9, levels=3)
    plan = plan_turn(world, 1, s, pool=LocalPool(1))
    value = plan_turn(world, 1, Settings(levels=3), pool=LocalPool(1))
    assert all(a.point.p >= 0.9 for a in plan.attacks)
    sure = [a for a in value.attacks if a.point.p >= 0.9]
    assert len(plan.attacks) >= len(sure)


def test_value_overrides_the_formula(tmp_path: Path) -> None:
    db = _db(tmp_path, 1)
    base = json.loads(bellum("empire", "plan", "--db", str(db), "--as", "1", "--jobs", "1",
                             "--json", cwd=tmp_path).stdout)  # fmt: skip
    targets = {a["target"] for a in base["waves"][0]["attacks"]}
    dropped = sorted(targets)[0]
    ran = bellum("empire", "plan", "--db", str(db), "--as", "1", "--jobs", "1", "--json",
                 "--value", f"{dropped}=0", cwd=tmp_path)  # fmt: skip
    doc = json.loads(ran.stdout)
    assert dropped not in {a["target"] for a in doc["waves"][0]["attacks"]}
    # Every screen, and every refinement the first plan made, comes from the cache: only
    # options the new prize makes worth refining are solved now (a lower prize screens
    # nothing new).
    first, second = base["waves"][0], doc["waves"][0]
    assert second["cached"] > 0 and second["solved"] < first["solved"]
    assert second["solved"] <= second["refined"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--value", "4,0"], "--value needs SECT=N"),
        (["--weight", "gold=3"], "--weight gold=3: needs NAME=N"),
        (["--weight", "mil=-1"], "--weight mil=-1: needs NAME=N"),
        (["--dask", "tcp://127.0.0.1:1", "--jobs", "2"], "--jobs is for local processes"),
        (["--levels", "0"], "--levels"),
    ],
)
def test_mistakes_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    db = _db(tmp_path, 0)
    ran = bellum("empire", "plan", "--db", str(db), "--as", "1", *args, cwd=tmp_path)
    assert ran.returncode == 2
    assert message in ran.stderr and "Traceback" not in ran.stderr


def test_script_is_written_and_holds_the_orders(tmp_path: Path) -> None:
    db = _db(tmp_path, 0)
    script = tmp_path / "turn.sh"
    ran = bellum("empire", "plan", "--db", str(db), "--as", "1", "--jobs", "1",
                 "--script", str(script), cwd=tmp_path)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    orders = [ln for ln in script.read_text().splitlines() if ln.startswith("bellum ")]
    assert orders and all(o in ran.stdout for o in orders)
    note = tmp_path / "note.txt"
    note.write_text("mine\n")
    refused = bellum("empire", "plan", "--db", str(db), "--as", "1", "--script", str(note),
                     cwd=tmp_path)  # fmt: skip
    assert refused.returncode == 2 and note.read_text() == "mine\n"


def test_threats_name_the_likeliest_strike(tmp_path: Path) -> None:
    db = _db(tmp_path, 0)
    ran = bellum("empire", "threats", "--db", str(db), "--as", "2", "--jobs", "1", "--json",
                 cwd=tmp_path)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    doc = json.loads(ran.stdout)
    threats = doc["threats"]
    assert threats and all(t["enemy"] == 1 for t in threats)
    ps = [t["p_success"] for t in threats]
    assert ps == sorted(ps, reverse=True)
    top = threats[0]
    odds = bellum("empire", "odds", *shlex.split(top["order"]), "--db", str(db), "--as", "1",
                  "--seed", "1", "--json", cwd=tmp_path)  # fmt: skip
    assert json.loads(odds.stdout)["p_attacker_wins"] == pytest.approx(top["p_success"], rel=1e-5)
    text = bellum("empire", "threats", "--db", str(db), "--as", "2", "--jobs", "1", cwd=tmp_path)
    assert top["target"] in text.stdout and "likeliest first" in text.stdout


def test_threats_take_the_planners_precision_options(tmp_path: Path) -> None:
    """``--max-runs`` and ``--max-memory`` mean for threats what they mean for plan: at
    ``bellum empire odds``'s own defaults the strikes are its full answer."""
    db = _db(tmp_path, 0)
    ran = bellum("empire", "threats", "--db", str(db), "--as", "2", "--jobs", "1", "--json",
                 "--max-runs", "500", "--max-memory", "1024", cwd=tmp_path)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    for t in json.loads(ran.stdout)["threats"][:3]:
        odds = bellum("empire", "odds", *shlex.split(t["order"]), "--db", str(db), "--as", "1",
                      "--seed", "1", "--json", cwd=tmp_path)  # fmt: skip
        assert json.loads(odds.stdout)["p_attacker_wins"] == pytest.approx(t["p_success"],
                                                                           rel=1e-5)  # fmt: skip
    bad = bellum("empire", "threats", "--db", str(db), "--as", "2", "--max-runs", "0",
                 cwd=tmp_path)  # fmt: skip
    assert bad.returncode == 2 and "--max-runs" in bad.stderr and "Traceback" not in bad.stderr


def test_json_documents_follow_their_schemas(tmp_path: Path) -> None:
    db = _db(tmp_path, 3)
    for command in ("plan", "threats"):
        ran = bellum("empire", command, "--db", str(db), "--as", "1", "--jobs", "1", "--json",
                     cwd=tmp_path)  # fmt: skip
        doc = json.loads(ran.stdout)
        assert doc["schema"] == f"bellum.empire.{command}"
        validate(doc)


def test_the_engine_chooses_exact_or_sampled_and_the_odds_line_repeats_it(tmp_path: Path) -> None:
    """The planner never forces sampling; it solves at its precision (sample bound and
    exact solver's memory), which the printed odds line repeats, so it gives the plan's
    figures whether the engine solved exactly or sampled (at the time of writing: an attack
    whose fights are too big for the planning precision's exact solver, so sampled, and
    exact with 0.5 MB; a sampled attack into reacting units, its fights exact)."""
    from bellum.empire.io.xdump.mapping import dump_to_world, read_dump
    from bellum.empire.odds import Plan
    from bellum.empire.orders import Order
    from bellum.empire.plan.curves import PLANNING, Precision, solve_point
    from bellum.empire.plan.planner import Attack, odds_command

    dump = Path(__file__).resolve().parents[2] / "benchmarks" / "worlds" / "w32x16.xdump"
    db = tmp_path / "w32x16.db"
    assert bellum("empire", "world", "import", str(dump), "--db", str(db)).returncode == 0
    world = dump_to_world(read_dump(dump))
    plans = [
        Plan(Order("attack", ("-9,7",)), {(3, 9): 61}, frozenset()),
        Plan(Order("attack", ("-9,-5",)), {(4, 14): 5}, frozenset()),  # mixture (20 samples)
    ]
    methods = []
    for plan, precision in [(p, PLANNING) for p in plans] + [(plans[0], Precision(30, 0.5))]:
        point = solve_point(world, 1, plan, seed=3, precision=precision)
        assert point is not None
        a = Attack(1, plan.order, "", "", plan, point, 0.0, 0.0, {}, 3)
        line = odds_command(a, world, 1, ["--db", str(db), "--as", "1"], 3, precision)
        assert f"--max-runs {precision.max_runs} --max-memory {precision.max_memory:g}" in line
        got = json.loads(_run(line + " --json", tmp_path).stdout)  # type: ignore[attr-defined]
        assert got["method"] == point.method
        assert got["p_attacker_wins"] == pytest.approx(point.p, rel=1e-9, abs=1e-12)
        assert got["expected_losses"]["attacker"] == pytest.approx(point.attacker, rel=1e-9)
        methods.append(point.method)
    assert methods[0].startswith("mixture") and methods[2].startswith("exact")


@pytest.mark.parametrize(("seed", "objective"), [(0, "value"), (3, "value"), (3, "count")])
def test_options_not_solved_because_they_cannot_pay_lose_nothing(
    seed: int, objective: Objective
) -> None:
    """Targets whose strongest option cannot pay are skipped, and options a stronger one
    shows cannot pay (or reach --min-p) are pruned: the plan is the one of every option."""
    from bellum.empire.plan.allocate import Option, Problem, solve
    from bellum.empire.plan.candidates import candidates, capacities, forces
    from bellum.empire.plan.curves import solve_points
    from bellum.empire.plan.planner import cost, prize
    from bellum.empire.rules import Rules

    world = front(seed)
    for y in (0, 2, 4):  # 400 mil in three front sectors: no force country 1 has takes them
        world.sectors[(8, y)].items["mil"] = 400
    s = Settings(levels=3, objective=objective, min_p=0.9)
    (wave,) = plan_turn(world, 1, s, pool=LocalPool(1)).waves
    every = forces(candidates(world, 1, Rules.of(world.options)), 3)
    points, _ = solve_points(world, 1, [f.plan for f in every], seed=1, pool=LocalPool(1))
    options = [
        Option(
            f.candidate.target,
            prize(world, f.candidate.target, {}) * pt.p - cost(f, pt, s.weights),
            f.uses,
            pt.p,
        )
        for f, pt in zip(every, points, strict=True)
        if pt is not None
    ]
    full = solve(Problem(options, capacities(world, 1)), objective, s.min_p)
    assert wave.skipped > 0 and wave.pruned > 0 and wave.options < len(options)
    assert len(wave.allocation.chosen) == len(full.chosen)
    assert wave.allocation.value == pytest.approx(full.value, rel=1e-6)


def test_a_budget_plans_with_what_it_solved_and_the_next_plan_goes_on(tmp_path: Path) -> None:
    """With a budget spent at the first task, the plan is made of the options solved so
    far (each chosen attack's odds solved, never worse than greedy), the rest counted as
    unsolved; a second plan of the same database goes on from them, and without a budget
    the plan is the one of every option."""
    from bellum.empire.plan.curves import plan_key
    from bellum.empire.plan.planner import Wave
    from bellum.errors import InputError

    world = front(3)
    store = Store.create(tmp_path / "w.db", world)
    try:
        version = store.version()

        def plan(budget: float | None) -> Wave:
            s = Settings(levels=3, budget=budget)
            (wave,) = plan_turn(world, 1, s, pool=LocalPool(1), cache=store,
                                version=version).waves  # fmt: skip
            return wave

        full = plan_turn(world, 1, Settings(levels=3), pool=LocalPool(1)).waves[0]
        cut = plan(1e-9)
        assert cut.unsolved > 0 and cut.solved < full.solved
        assert cut.allocation.value >= cut.greedy.value - 1e-9
        assert cut.allocation.value <= full.allocation.value + 1e-9
        assert all(a.point is not None for a in cut.attacks)
        more = plan(1e-9)
        assert more.cached >= cut.solved
        assert more.unsolved < cut.unsolved
        done = plan(None)
        assert done.unsolved == 0
        assert done.allocation.value == pytest.approx(full.allocation.value)
        assert [plan_key(a.plan, 1) for a in done.attacks] == [
            plan_key(a.plan, 1) for a in full.attacks
        ]
    finally:
        store.close()
    with pytest.raises(InputError, match="above 0"):
        plan_turn(world, 1, Settings(budget=0.0), pool=LocalPool(1))
