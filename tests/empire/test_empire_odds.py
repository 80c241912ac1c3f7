"""Odds of planned commands: exact solvers, mixtures, and agreement with the real command.

Statistical checks compare the odds with ``resolver_runs`` (the real command,
played many times with fixed seeds): every figure must lie within 4 combined
standard errors (99.99 % two-sided for one figure; the seeds are fixed, so
the tests are deterministic, never flaky).
"""

from __future__ import annotations

import io
import json
import math
import tomllib
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bellum.empire import run_command
from bellum.empire.io.toml import load_world, parse_world
from bellum.empire.odds import engine, make_plan, plan_odds, resolver_runs
from bellum.empire.odds._sides import SideGraph
from bellum.empire.odds._solver import GraphEnds, per_casualty_ends, server_ends
from bellum.empire.odds.branching import BranchingDice, enumerate_runs, tree_size
from bellum.empire.odds.engine import (
    TRUSTED_SAMPLES,
    FightOutcome,
    Mixture,
    _block,
    check_plan,
)
from bellum.empire.odds.plan import Plan
from bellum.empire.odds.questions import as_seen, sources_in_order
from bellum.empire.odds.report import z_scores
from bellum.empire.orders import Order
from bellum.empire.rules import Rules
from bellum.empire.scratch import WorldTemplate
from bellum.empire.world import World
from bellum.errors import CommandError, InputError
from bellum.odds import Side
from bellum.odds.exact import per_casualty_exact, server_exact

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "empire"


def chain(side: Side) -> SideGraph:
    """A side without morale draws as a graph: node k is k lost rounds."""
    k = side.rounds
    return SideGraph(
        depth=np.arange(k + 1),
        total=side.strength.astype(float),
        strength=side.strength.astype(float),
        casualties=side.casualties.astype(np.int64),
        ptr=np.concatenate([np.arange(k + 1), [k]]).astype(np.int64),
        to=np.arange(1, k + 1, dtype=np.int64),
        p=np.ones(k),
        occupies=np.ones(k + 1, dtype=bool),
    )


@pytest.mark.parametrize(
    ("att", "dfd", "mult"), [(24, 5, 2.0), (60, 80, 1.0), (20, 3, 0.3), (90, 30, 1.7)]
)
def test_graph_solvers_match_the_chain_solvers(att: int, dfd: int, mult: float) -> None:
    """On sides without morale the graph solvers give the plain solvers' end states.

    The server model agrees to rounding (1e-15); the per-casualty solver here
    also rounds ``chance(p)`` up to 2^-32 as the server does, which the plain
    one does not, so they differ by less than 1e-9.
    """
    a, d = Side.troops(att), Side.troops(dfd, mult)
    ref, pruned = server_exact(a, d, backend="numpy")
    got = server_ends(chain(a), chain(d))
    assert np.abs(got.attacker_wins.sum(axis=1)[:-1] - ref.attacker_wins).max() < 1e-15
    assert np.abs(got.defender_wins.sum(axis=0)[:-1] - ref.defender_wins).max() < 1e-15
    assert got.pruned_mass == pytest.approx(pruned, rel=1e-9, abs=1e-30)
    ref, _ = per_casualty_exact(a, d, backend="numpy")
    got = per_casualty_ends(chain(a), chain(d))
    assert np.abs(got.attacker_wins.sum(axis=1)[:-1] - ref.attacker_wins).max() < 1e-9
    assert np.abs(got.defender_wins.sum(axis=0)[:-1] - ref.defender_wins).max() < 1e-9


def test_fights_of_equal_sides_are_solved_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paths whose multipliers round to the same strengths meet one fight: the second is
    read from the first's ends (the same arrays), with its own casualties."""
    solved = []
    real = engine._chain_ends

    def counted(a: SideGraph, d: SideGraph) -> GraphEnds:
        solved.append(1)
        return real(a, d)

    monkeypatch.setattr(engine, "_chain_ends", counted)
    solver = engine._Solver("server", 1e-18, 12_000, 1 << 25, None)
    att, dfd = chain(Side.troops(40, 1.3)), chain(Side.troops(23, 1.5))
    first = solver._ends(att, dfd)
    other = replace(att, casualties=att.casualties * 2)
    again = solver._ends(other, dfd)
    assert len(solved) == 1
    assert again.attacker_wins is first.attacker_wins
    assert again.attacker is other
    fresh = real(other, dfd)
    assert np.array_equal(fresh.attacker_wins, again.attacker_wins)
    assert np.array_equal(fresh.defender_wins, again.defender_wins)
    solver._ends(chain(Side.troops(40, 1.31)), dfd)  # other strengths: solved
    assert len(solved) == 2


def test_branching_dice_enumerate_every_path() -> None:
    def two_draws(d: BranchingDice) -> tuple[bool, int]:
        return d.chance(0.25), d.roll(3) + d.roundavg(2.5)

    ends = enumerate_runs(two_draws)
    assert ends is not None and len(ends) == 2 * 3 * 2
    assert math.isclose(sum(p for _, p in ends), 1.0)
    assert math.isclose(sum(p for (hit, _), p in ends if hit), 0.25)
    assert tree_size(two_draws, np.random.default_rng(1), 8) == 12
    assert enumerate_runs(two_draws, limit=5) is None


def test_scratch_worlds_run_like_full_copies() -> None:
    world = load_world(EXAMPLES / "reaction.toml")
    template = WorldTemplate(world)
    a = run_command(template.scratch(), "attack 2,0", country=1, seed=30, answers=["317", "y", "0"])
    b = run_command(world.copy(), "attack 2,0", country=1, seed=30, answers=["317", "y", "0"])
    assert a.transcript() == b.transcript()
    again = template.scratch()
    assert again.sector((2, 0)).mil == 10 and again.units[2].mil == 50  # nothing shared


def test_scratch_worlds_share_no_mutable_value_with_the_template() -> None:
    """The nations, units, ships and planes are copied attribute by attribute: every dict
    is a new one, every other value one that cannot change."""
    world = load_world(EXAMPLES / "realistic.toml")
    template = WorldTemplate(world)
    w = template.scratch()
    frozen = template.frozen
    assert w.units and w.ships and w.planes and w.nations
    for mine, theirs in ((w.nations, frozen.nations), (w.units, frozen.units),
                         (w.ships, frozen.ships), (w.planes, frozen.planes)):  # fmt: skip
        assert mine == theirs and mine is not theirs
        for k, obj in mine.items():
            assert obj is not theirs[k]
            for name, value in vars(obj).items():
                if isinstance(value, dict | list | set):
                    assert value is not getattr(theirs[k], name)
                else:  # a number, a string, a tuple, or one of the frozen rules tables
                    assert isinstance(value, int | float | str | tuple | None) or (
                        type(value).__module__ == "bellum.empire.tables"
                    )


def test_scratch_worlds_unpickle_what_a_shallow_copy_would_share() -> None:
    """A unit holding a list, or options holding a dict: the copy is the pickle's again."""
    for change in ("unit", "options"):
        world = load_world(EXAMPLES / "reaction.toml")
        if change == "unit":
            vars(world.units[2])["orders"] = [1]
        else:
            world.options["nested"] = {"a": 1}
        template = WorldTemplate(world)
        w = template.scratch()
        assert w.units == template.frozen.units and w.options == template.frozen.options
        if change == "unit":
            assert vars(w.units[2])["orders"] is not vars(template.frozen.units[2])["orders"]
        else:
            assert w.options["nested"] is not template.frozen.options["nested"]


def test_scratch_worlds_list_a_ring_of_sectors_as_a_world_does() -> None:
    """``peek_within`` on a scratch world: the template's sectors, and its own copies
    once the run has made them, in the order of a plain world's."""
    world = load_world(EXAMPLES / "support.toml")
    template = WorldTemplate(world)
    w = template.scratch()
    target = (2, 0)
    plain = world.peek_within(target, 8)
    assert [(xy, s) for xy, s in w.peek_within(target, 8)] == plain
    mine = w.sector(plain[1][0])
    mine.mil += 7
    ring = w.peek_within(target, 8)
    assert ring[1][1] is mine and ring[0][1] is template.frozen.sector(plain[0][0])
    assert list(template.scratch().peek_within(target, 8)) == plain
    copied = {plain[k][0] for k in (0, 1, 5, len(plain) - 1)}
    copied |= {xy for xy in world.sectors if xy not in dict(plain)}  # outside the ring too
    for xy in copied:
        w.sector(xy)
    ring = w.peek_within(target, 8)
    assert [xy for xy, _ in ring] == [xy for xy, _ in plain]
    for xy, s in ring:
        assert s is (w.sector(xy) if xy in copied else template.frozen.sector(xy))


# (example world, command, --mil, --unit): every example, every command, some close fights.
CASES = [
    ("vector-a", "attack 2,0", ["0,0=150"], []),
    ("vector-a", "attack 2,0", ["0,0=60"], []),
    ("vector-b", "attack 2,0", ["0,0=150"], []),
    ("vector-b", "attack 2,0", ["0,0=40"], []),
    ("cavalry", "attack 2,0", ["0,0=14"], [0]),
    ("failed", "attack 2,0", ["0,0=29"], []),
    ("capital", "attack 24,0", ["22,0=150"], []),
    ("allied-fort", "attack 2,0", [], [0]),
    ("reaction", "attack 2,0", ["0,0=317"], []),
    ("support", "attack 2,0", ["0,0=100"], []),
    ("air-support", "attack 2,0", ["0,0=100"], []),
    ("interdiction", "attack 2,0", ["0,0=100"], [0]),
    ("scouts", "attack -14,2", ["-15,3=10"], [7]),
    ("assault", "assault 0,0 0", ["ship=24"], []),
    ("landing", "assault 0,0 0", [], [0, 1]),
    ("landing", "assault 4,0 1", ["ship=98"], []),
    ("board", "board 1 0", ["ship=50"], []),
    ("board", "board 1 0", ["ship=22"], []),
    ("lboard", "lboard 0 0,0", ["0,0=100"], []),
    ("lboard", "lboard 0 0,0", ["0,0=9"], []),
    ("paradrop", "paradrop 0 . 0,0 4,0", [], []),
]
RUNS = 300


@pytest.mark.parametrize(("name", "order", "mil", "units"), CASES)
def test_odds_agree_with_the_real_command(
    name: str, order: str, mil: list[str], units: list[int]
) -> None:
    """P(success), both expected casualty counts and every outcome's share, within 4 SE."""
    world = load_world(EXAMPLES / f"{name}.toml")
    plan = make_plan(world, 1, Order.parse(order), mil, units)
    odds = plan_odds(world, 1, plan, seed=5)
    runs = resolver_runs(world, 1, plan, RUNS, seed=11)
    for figure, z in z_scores(odds, runs).items():
        assert abs(z) <= 4, f"{figure}: z = {z:.2f}"
    for outcome in set(odds.odds.outcomes) | set(runs.outcomes):
        p = odds.odds.outcomes.get(outcome, 0.0)
        share = runs.outcomes.get(outcome, 0) / RUNS
        se = math.sqrt(max(p * (1 - p), 1 / RUNS) / RUNS)
        assert abs(p - share) <= 4 * se + 2 * odds.standard_error, outcome
    total = sum(odds.odds.outcomes.values())
    assert total == pytest.approx(1.0, abs=1e-9 + 4 * odds.standard_error)
    assert world.copy().sectors.keys() == world.sectors.keys()  # the world is untouched


# The info page's rules: the per-casualty fight, reactions, attackers and mobility of §18.
INFO_CASES = [c for c in CASES if c[:2] in {
    ("vector-a", "attack 2,0"), ("vector-b", "attack 2,0"), ("cavalry", "attack 2,0"),
    ("reaction", "attack 2,0"), ("board", "board 1 0"), ("lboard", "lboard 0 0,0"),
    ("landing", "assault 4,0 1"), ("paradrop", 'paradrop 0 . 0,0 4,0'),
}]  # fmt: skip


@pytest.mark.parametrize(("name", "order", "mil", "units"), INFO_CASES)
def test_odds_agree_under_the_info_page_profile(
    name: str, order: str, mil: list[str], units: list[int]
) -> None:
    world = load_world(EXAMPLES / f"{name}.toml")
    plan = make_plan(world, 1, Order.parse(order), mil, units, Rules.of(profile="info-page"))
    odds = plan_odds(world, 1, plan, seed=5)
    assert odds.model == "per-casualty"
    runs = resolver_runs(world, 1, plan, RUNS, seed=13)
    for figure, z in z_scores(odds, runs).items():
        assert abs(z) <= 4, f"{figure}: z = {z:.2f}"


def test_the_defender_retreats_in_the_odds_too() -> None:
    """Vector B's infantry fails its morale check sooner or later: the fight ends earlier
    than when it holds (retreat 0 %), so the defender loses fewer men (issue 11)."""
    world = load_world(EXAMPLES / "vector-b.toml")
    plan = make_plan(world, 1, Order.parse("attack 2,0"), ["0,0=150"], [])
    with_morale = plan_odds(world, 1, plan)
    world.units[0].retreat = 0
    without = plan_odds(world, 1, plan)
    assert with_morale.method == without.method == "exact"
    assert with_morale.expected("defender") < without.expected("defender") - 5


def test_paradrop_is_an_exact_mixture_over_the_route() -> None:
    world = load_world(EXAMPLES / "paradrop.toml")
    plan = make_plan(world, 1, Order.parse("paradrop 0 . 0,0 4,0"), [], [])
    odds = plan_odds(world, 1, plan)
    assert odds.method == "exact mixture" and odds.leaves > 1
    assert 0.02 < odds.p_success < 0.2


def test_paths_counts_the_distinct_paths_a_sampled_answer_met() -> None:
    """``paths`` is one thing whether the answer walked the paths or drew them: the
    route's 8 paths, drawn 40 times, are 8 paths, not 40 (it counted samples)."""
    world = load_world(EXAMPLES / "paradrop.toml")
    plan = make_plan(world, 1, Order.parse("paradrop 0 . 0,0 4,0"), [], [])
    walked = plan_odds(world, 1, plan, seed=5)
    drawn = plan_odds(world, 1, plan, seed=5, samples=40)
    assert walked.samples is None and walked.leaves == 8
    assert drawn.samples == 40 and drawn.leaves == 8
    assert not walked.one_path and not drawn.one_path


@pytest.mark.parametrize(
    ("name", "order", "words"),
    [
        ("vector-a", "attack 8,0", "You are not adjacent to 8,0"),
        ("vector-a", "attack 0,0", "You are not adjacent to 0,0"),
        ("assault", "assault 0,0 7", "Ship #7 is not your ship!"),
        ("board", "board 0 0", "Boarding yourself?"),
        ("lboard", "lboard 5 0,0", "Land unit #5 is not in the same sector!"),
        ("paradrop", "paradrop 0 . 0,0 0,0", "You can't air-assault your own sector!"),
    ],
)
def test_refusals_are_the_commands_own_words(name: str, order: str, words: str) -> None:
    world = load_world(EXAMPLES / f"{name}.toml")
    with pytest.raises(CommandError, match=words.replace("?", r"\?").replace("#", "#")):
        plan_odds(world, 1, make_plan(world, 1, Order.parse(order), [], []))


def test_answers_are_taken_as_the_command_takes_them() -> None:
    """More mil than a prompt allows is refused, as the command refuses it; an answer no
    prompt asks for is noted and the odds go on, as the command warns and goes on."""
    world = load_world(EXAMPLES / "vector-a.toml")
    attack = Order.parse("attack 2,0")
    with pytest.raises(CommandError, match=r"at most 199 mil can go from 0,0, not 500") as e:
        plan_odds(world, 1, make_plan(world, 1, attack, ["0,0=500"], []))
    assert (e.value.field, e.value.value) == ("mil", "0,0")
    odds = plan_odds(world, 1, make_plan(world, 1, attack, ["4,0=5", "0,0=5"], [3]))
    alone = plan_odds(world, 1, make_plan(world, 1, attack, ["0,0=5"], []))
    assert "--mil 4,0: not asked for (no mil can go from 4,0)" in odds.notes
    assert "--unit 3: not asked for" in odds.notes
    assert odds.odds.outcomes == alone.odds.outcomes
    with pytest.raises(CommandError, match=r"--mil 4,0: not asked for .*No troops for attack"):
        plan_odds(world, 1, make_plan(world, 1, attack, ["4,0=5"], []))


def test_unnamed_answers_are_assumed_and_said() -> None:
    """A prompt the plan leaves unanswered gets 0 mil, and the notes say so."""
    world = load_world(EXAMPLES / "cavalry.toml")  # its cavalry attacks alone
    attack = Order.parse("attack 2,0")
    assert list(sources_in_order(world, 1, Plan(attack))) == [(0, 0)]
    odds = plan_odds(world, 1, Plan(attack, {}), seed=1)
    assert odds.notes == ("assumed: 0 mil from 0,0",)
    assert plan_odds(world, 1, Plan(attack, {(0, 0): 0}), seed=1).notes == ()
    scouts = load_world(EXAMPLES / "scouts.toml")  # the scouts' warning asks "Are you sure"
    plan = make_plan(scouts, 1, Order.parse("attack -14,2"), ["-15,3=10"], [7])
    assert check_plan(scouts, 1, plan) == [
        "assumed: yes to 'Are you sure you want to attack [yn]?' (--yes)"
    ]
    assert check_plan(scouts, 1, replace(plan, yes=True)) == []
    with pytest.raises(InputError, match="given twice"):
        make_plan(world, 1, attack, ["0,0=5"], [3, 3])
    with pytest.raises(InputError, match="given twice"):
        make_plan(world, 1, attack, ["0,0=5", "0,0=6"], [])


def test_a_sampled_answer_says_what_was_drawn_and_when_it_stopped_short() -> None:
    """``samples`` is the number of values averaged (summed over the garrisons of the
    defense as seen), the method says what was drawn, and a note says when sampling
    stopped before its target."""
    world = load_world(EXAMPLES / "reaction.toml")  # its fights are too big to solve
    plan = make_plan(world, 1, Order.parse("attack 2,0"), ["0,0=317"], [])
    odds = plan_odds(world, 1, plan, seed=1, target_error=1e-4, max_samples=25)
    assert odds.samples == odds.odds.runs == 25
    assert odds.method.startswith("mixture (25 samples: paths to the fight drawn")
    assert "morale histories drawn in 25 of the 25 fights" in odds.method
    assert odds.standard_error > 1e-4
    assert odds.notes[-1] == (
        "sampling stopped at 25 samples, before the standard error of P(success) reached 0.0001"
    )
    assert odds.cpu_seconds is not None and odds.cpu_seconds > 0
    support = load_world(EXAMPLES / "support.toml")
    seen = as_seen(support, 1, make_plan(support, 1, Order.parse("attack 2,0"), [], []), samples=3)
    assert seen.samples == seen.odds.runs == 3 * 10  # ten garrisons, three samples each
    assert seen.method.startswith("mixture (30 samples: paths to the fight drawn")


def test_resolver_runs_do_not_depend_on_the_number_of_jobs() -> None:
    world = load_world(EXAMPLES / "vector-b.toml")
    plan = make_plan(world, 1, Order.parse("attack 2,0"), ["0,0=40"], [])
    one = resolver_runs(world, 1, plan, 250, seed=3, jobs=1)
    two = resolver_runs(world, 1, plan, 250, seed=3, jobs=2)
    assert one == two


def cli(*args: str) -> tuple[int, str, str]:
    """``bellum ARGS`` in this process: exit status, stdout, stderr."""
    from bellum.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_cli_every_command_and_the_old_form() -> None:
    vb = str(EXAMPLES / "vector-b.toml")
    code, out, _ = cli("empire", "odds", "2,0", "--world", vb, "--as", "1", "--mil", "0,0=150")
    assert code == 0 and "Final defense strength:      135" in out and "method exact" in out
    code, out, _ = cli(
        "empire",
        "odds",
        "lboard",
        "0",
        "0,0",
        "--world",
        str(EXAMPLES / "lboard.toml"),
        "--as",
        "1",
    )
    assert code == 0 and "P(success)" in out
    code, out, err = cli(
        "empire",
        "odds",
        "assault",
        "0,0",
        "7",
        "--world",
        str(EXAMPLES / "assault.toml"),
        "--as",
        "1",
    )
    assert code == 1 and "Ship #7 is not your ship!" in err


def test_cli_json_and_resolver() -> None:
    pd = str(EXAMPLES / "paradrop.toml")
    code, out, _ = cli(
        "empire", "odds", "paradrop", "0", ".", "0,0", "4,0", "--world", pd, "--as", "1",
        "--json", "--resolver-runs", "40", "--seed", "5",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert doc["method"] == "exact mixture" and doc["seed"] == 5
    assert 0 < doc["p_attacker_wins"] < 1 and doc["standard_error"] == 0
    assert set(doc["outcomes"]) <= {"captured", "defeated", "unoccupied", "aborted"}
    assert doc["resolver"]["runs"] == 40 and "p_attacker_wins" in doc["resolver"]["z"]
    assert doc["plan"]["command"] == "paradrop 0 . 0,0 4,0"


def test_cli_refuses_resolver_runs_that_would_take_minutes_at_once() -> None:
    """A measured run, times N, past the limit of every long job (bellum.budget): one line
    naming the largest count that fits, before the odds are computed."""
    from bellum.budget import MAX_JOB_SECONDS
    from bellum.empire.odds.resolver import seconds_per_run

    va = str(EXAMPLES / "vector-a.toml")
    code, out, err = cli(
        "empire", "odds", "attack", "2,0", "--world", va, "--as", "1", "--mil", "0,0=150",
        "--resolver-runs", "1000000", "--seed", "1",
    )  # fmt: skip
    last = err.strip().splitlines()[-1]
    assert code == 1 and out == "" and last.startswith("bellum: error: --resolver-runs 1000000 ")
    assert "would play the attack for about" in last and "or fewer" in last
    most = int(last.split("use --resolver-runs ")[1].split()[0])
    world = load_world(va)
    plan = make_plan(world, 1, Order.parse("attack 2,0"), ["0,0=150"], [])
    each = seconds_per_run(world, 1, plan, seed=1)
    assert 0 < each < 0.1
    # The count named is what fits in the limit at the measured speed (within timing noise).
    assert 0.2 < most * each / MAX_JOB_SECONDS < 5


def test_cli_plot_is_the_safe_writer(tmp_path: Path) -> None:
    """--plot never replaces a file that is no image unless --force, nor a read-only one."""
    pytest.importorskip("matplotlib")
    va = str(EXAMPLES / "vector-a.toml")
    base = ("empire", "odds", "2,0", "--world", va, "--as", "1", "--mil", "0,0=150")
    note = tmp_path / "note.png"
    note.write_text("my notes")
    code, _, err = cli(*base, "--plot", str(note))
    assert code == 1 and "is not an image; not overwritten (use --force" in err
    assert note.read_text() == "my notes"
    code, out, _ = cli(*base, "--plot", str(note), "--force")
    assert code == 0 and f"plot written to {note}" in out
    assert note.read_bytes().startswith(b"\x89PNG")
    note.chmod(0o444)
    before = note.read_bytes()
    code, _, err = cli(*base, "--plot", str(note))
    assert code == 1 and "read-only" in err and note.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["note.png"]


def test_cli_plans_side_by_side_need_and_defense_as_seen() -> None:
    va = str(EXAMPLES / "vector-a.toml")
    base = ("empire", "odds", "attack", "2,0", "--world", va, "--as", "1")
    code, out, _ = cli(*base, "--mil", "0,0=40", "--mil", "0,0=60", "--mil", "0,0=80")
    assert code == 0 and len(out.strip().splitlines()) == 4 and "0,0=60" in out
    code, out, _ = cli(*base, "--sweep", "0,0=40:80:20", "--json")
    assert code == 0 and [p["plan"]["mil"]["0,0"] for p in json.loads(out)["plans"]] == [40, 60, 80]
    code, out, _ = cli(*base, "--mil", "0,0=10", "--need", "0.9", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["p_attacker_wins"] >= 0.9
    n = doc["need"]["mil"]
    world = load_world(va)
    order = Order.parse("attack 2,0")
    below = plan_odds(world, 1, make_plan(world, 1, order, [f"0,0={n - 1}"], []))
    assert below.p_success < 0.9
    code, out, _ = cli(*base, "--mil", "0,0=60", "--defense-as-seen", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["method"] == "exact mixture"
    assert any("defense as seen" in n for n in doc["notes"])
    code, _, err = cli(*base, "--unit", "0", "--unit", "0")
    assert code == 2 and "given twice" in err


SMALL = """
schema_version = 1
[world]
size = [16, 8]
fill = "wilderness"
fill_eff = 100
[[nation]]
cnum = 1
name = "A"
tech = 100.0
relations = {{ 2 = "at-war" }}
[[nation]]
cnum = 2
name = "D"
tech = 100.0
relations = {{ 1 = "at-war" }}
[[sector]]
at = [0, 0]
des = "{ades}"
owner = 1
eff = 100
mob = 127
mil = {amil}
items = {{ gun = {guns}, shell = 20 }}
[[sector]]
at = [2, 0]
des = "wilderness"
owner = 2
eff = 100
mob = 80
mil = {dmil}
[[sector]]
at = [4, 0]
des = "wilderness"
owner = 2
eff = 100
civ = {civ}
[[unit]]
uid = 0
type = "inf"
owner = 2
at = [2, 0]
tech = 100.0
mil = {umil}
eff = {ueff}
retreat = {retreat}
[[unit]]
uid = 1
type = "inf"
owner = 2
at = [4, 0]
tech = 100.0
mil = 20
mob = 127
mission = "{mission}"
op_radius = 3
"""


@settings(
    max_examples=5,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    amil=st.integers(20, 70),
    dmil=st.integers(0, 15),
    umil=st.integers(5, 25),
    ueff=st.integers(30, 100),
    retreat=st.integers(0, 100),
    civ=st.sampled_from([0, 100]),
    fort=st.booleans(),
    reserve=st.booleans(),
)
def test_random_small_worlds_agree_with_the_real_command(
    amil: int, dmil: int, umil: int, ueff: int, retreat: int, civ: int, fort: bool, reserve: bool
) -> None:
    """Units with morale, fort support and a reacting reserve: odds vs 150 real runs."""
    text = SMALL.format(
        ades="fortress" if fort else "wilderness",
        guns=7 if fort else 0,
        amil=amil + 1,
        dmil=dmil,
        umil=umil,
        ueff=ueff,
        retreat=retreat,
        civ=civ,
        mission="reserve" if reserve else "",
    )
    world: World = parse_world(tomllib.loads(text), "small.toml")
    plan = make_plan(world, 1, Order.parse("attack 2,0"), [f"0,0={amil}"], [])
    odds = plan_odds(world, 1, plan, seed=2, target_error=0.02, max_samples=100)
    runs = resolver_runs(world, 1, plan, 150, seed=9)
    for figure, z in z_scores(odds, runs).items():
        assert abs(z) <= 4.5, f"{figure}: z = {z:.2f} ({odds.method})"


def _mixture(wins: list[float]) -> Mixture:
    mix = Mixture()
    for p in wins:
        mix.add(
            FightOutcome({"captured": p, "defeated": 1 - p}, {0: 1.0}, {0: 1.0}), 1.0, sample=True
        )
    return mix


def test_few_samples_stop_on_the_largest_error_their_mean_allows() -> None:
    """Twenty near-sure paths say little about a rare lost one: their spread is tiny, but
    sampling may stop only once sqrt(m(1-m)/n) is within the goal; sure samples stop."""
    skewed = _mixture([1.0] * 19 + [0.8])
    spread = float(np.std([1.0] * 19 + [0.8], ddof=1) / math.sqrt(20))
    m = 19.8 / 20
    assert spread < 0.01
    assert skewed.stop_error() == pytest.approx(math.sqrt(m * (1 - m) / 20))
    assert skewed.stop_error() > 0.02
    assert _mixture([1.0] * 20).stop_error() == 0.0
    many = _mixture([1.0] * (TRUSTED_SAMPLES - 1) + [0.8])
    assert many.stop_error() == pytest.approx(float(np.std([1.0] * 99 + [0.8], ddof=1) / 10))


def test_sampling_reads_the_spread_at_the_trusted_count_before_drawing_more() -> None:
    """Below TRUSTED_SAMPLES the error sampling stops on is a bound, which asks for far
    more samples than the spread will: the blocks stop there (80 -> 100, not 160); from
    there on the spread says how many more the goal needs."""
    wins = [1.0, 0.9, 0.8, 0.95] * 20
    assert _block(80, 500, _mixture(wins), 0.01) == TRUSTED_SAMPLES - 80
    assert _block(40, 500, _mixture(wins[:40]), 0.01) == 40
    assert _block(100, 500, _mixture(wins + wins[:20]), 0.01) == 10  # a tenth more
    assert _block(80, 500, _mixture(wins), None) == 80  # a count asked for: as many again


def test_few_samples_bound_the_losses_error_by_the_losses_range() -> None:
    """Twenty paths whose expected losses happen to agree (25 men each) have no spread,
    but a rare path could lose more or less: below TRUSTED_SAMPLES the losses' standard
    error is at least the largest spread values in the losses' range [20, 30] with mean
    25 can have, sqrt((30 - 25)(25 - 20)/n), as P(success)'s is at least sqrt(m(1-m)/n)."""

    def mixture(n: int) -> Mixture:
        mix = Mixture()
        losses = {20: 0.25, 25: 0.5, 30: 0.25}
        for _ in range(n):
            mix.add(FightOutcome({"captured": 1.0}, losses, {7: 1.0}), 1.0, sample=True)
        return mix

    se, losses = mixture(20).errors()
    assert se == 0.0
    assert losses["attacker"] == pytest.approx(math.sqrt(5 * 5 / 20))
    assert losses["defender"] == 0.0  # every run lost 7: nothing to miss
    assert mixture(TRUSTED_SAMPLES).errors()[1]["attacker"] == 0.0
