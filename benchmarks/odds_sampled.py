"""What the realistic suite's plans sample, and why (docs/odds.md, eighth pass).

    python benchmarks/odds_sampled.py [--only ID ...] [--paths N] > rows.jsonl
    python benchmarks/odds_sampled.py --table rows.jsonl

For each plan of ``benchmarks/worlds/plans.toml``, with the engine's own pieces
(no timing of the command): the size of its tree of paths to the fight (Knuth's
estimate, as the engine probes it, and the draws that make it: log10 of the options
each drawing function adds on a uniform path, averaged over the probes); over ``N``
paths drawn with their chances, how many distinct fights they reach (and through
which support multipliers, which side keys and losses before the fight), how many end
without one; each side's states down to the last soldier (and whether it is a chain,
without morale draws); and the bound that makes the engine sample (``reason``, as the
engine decides with numba installed: a few big fights of a walkable plan go to its kernel).
``--solve K`` also solves K of the distinct fights exactly, as the engine would if its
bounds allowed (the compiled kernel with numba, else numpy), and gives their CPU
seconds: what making the plan's fights exact would cost, fight by fight.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import shlex
import statistics
import sys
import time
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from empire_odds import ROOT, WORLDS, plans

from bellum.empire.odds import engine
from bellum.empire.odds._sides import SideMoves, TooManyStates, side_shape
from bellum.empire.odds._solver import kernel_ends, server_ends
from bellum.empire.odds.branching import BranchingDice, tree_size
from bellum.empire.odds.study import Request, prepare
from bellum.empire.orders import Order
from bellum.empire.rules import Rules
from bellum.empire.world import World
from bellum.odds._common import numba_importable

sys.path.insert(0, str(ROOT / "tools"))
from realistic import load_world

#: States explored per side before it is called too big to count.
MOST_STATES = 2_000_000
#: Cone products after which ``--solve`` gives a fight up (ten times the engine's bound).
SOLVE_WORK = 10 * engine.BIG_WORK
#: Modules whose frames are the dice's, not the command's (the drawing function is the
#: first frame outside them).
DICE_FILES = ("/dice.py", "/branching.py", "/volleys.py")


class _Where(BranchingDice):
    """Branching dice that note which function made each draw with more than one option,
    and log10 of its options."""

    def __init__(self, rng: np.random.Generator, *, uniform: bool = False) -> None:
        super().__init__(rng=rng, uniform=uniform)
        self.where: collections.Counter[str] = collections.Counter()

    def _choose(self, options: Any) -> Any:
        n = len(self.widths)
        value = super()._choose(options)
        if len(self.widths) > n:
            frames = [
                f
                for f in traceback.extract_stack()[:-2]
                if not f.filename.endswith(DICE_FILES) and not f.name.startswith("<")
            ]
            self.where[frames[-1].name if frames else "?"] += math.log10(self.widths[-1])
        return value


def _request(command: str) -> Request:
    words = shlex.split(command)
    i = next((k for k, w in enumerate(words) if w.startswith("--")), len(words))
    mil: list[str] = []
    units: list[int] = []
    for flag, value in zip(words[i::2], words[i + 1 :: 2], strict=True):
        if flag == "--mil":
            mil.append(value)
        elif flag == "--unit":
            units.append(int(value))
        else:
            raise SystemExit(f"{command}: {flag} not understood here")
    return Request(Order.parse(" ".join(words[:i])), mil=tuple(mil), units=tuple(units), seed=1)


def _states(c: Any, defender: bool) -> tuple[int | None, bool]:
    mult = c.dsup if defender else c.osup
    try:
        graph = side_shape(c, defender, max_states=MOST_STATES, moves=SideMoves()).graph(
            mult, max_states=MOST_STATES
        )
    except TooManyStates:
        return None, False
    return graph.size, graph.is_chain


def solve_seconds(leaves: list[engine.Leaf], model: str) -> list[float | None]:
    """CPU seconds of an exact solution of each leaf's fight, sides built as the engine
    builds them (their graphs down to the last soldier); ``None`` where the kernel gave up
    past ``SOLVE_WORK`` cone products."""
    solver = engine._Solver(model, engine.TAU, MOST_STATES, MOST_STATES, None)
    kernel = model == "server" and numba_importable() is None
    out: list[float | None] = []
    for leaf in leaves:
        c = leaf.combat
        assert c is not None
        a, d = solver._sides(c, engine._side_key(c, False), engine._side_key(c, True))
        start = time.process_time()
        if kernel:
            if kernel_ends(a, d, tau=engine.TAU, budget=SOLVE_WORK) is None:
                out.append(None)
                continue
        else:
            server_ends(a, d, tau=engine.TAU, backend="numpy")
        out.append(round(time.process_time() - start, 3))
    return out


def study_plan(world: World, plan: dict[str, Any], paths: int, solve: int = 0) -> dict[str, Any]:
    """One row: what the plan's odds sample and why."""
    me = world.find_nation(plan["as"])
    request = _request(plan["command"])
    request = replace(request, rules=Rules.for_world(world))
    prepared = prepare(world, me.cnum, request)
    the_plan = prepared.plans[0][1]
    runner = engine.PlanRunner(world, me.cnum, the_plan, prepared.template)
    rng = np.random.default_rng(1)
    tree = tree_size(runner, rng, engine.PROBES)
    draws: collections.Counter[str] = collections.Counter()
    for _ in range(engine.PROBES):
        dice = _Where(rng, uniform=True)
        runner(dice)
        draws.update(dice.where)
    fights: set[Any] = set()
    sups: set[tuple[float, float]] = set()
    sides: set[tuple[int, int]] = set()
    before: set[int] = set()
    ends: collections.Counter[str] = collections.Counter()
    last = None
    distinct: dict[Any, engine.Leaf] = {}
    for _ in range(paths):
        leaf = runner(BranchingDice(rng=rng))
        c = leaf.combat
        if c is None:
            ends[str(leaf.result.outcome)] += 1
            continue
        ends["fight"] += 1
        ka, kd = hash(engine._side_key(c, False)), hash(engine._side_key(c, True))
        sups.add((c.osup, c.dsup))
        sides.add((ka, kd))
        before.add(leaf.result.attacker_casualties)
        key = (ka, c.osup, kd, c.dsup, leaf.result.attacker_casualties)
        fights.add(key)
        distinct.setdefault(key, leaf)
        last = c
    row: dict[str, Any] = {
        "case": plan["id"],
        "tree": tree,
        "draws": {k: round(v / engine.PROBES, 1) for k, v in draws.most_common()},
        "paths": paths,
        "ends": dict(ends),
        "fights": len(fights),
        "osup": len({o for o, _ in sups}),
        "dsup": len({d for _, d in sups}),
        "side_keys": len(sides),
        "losses_before": len(before),
    }
    if last is not None:
        (na, ca), (nd, cd) = _states(last, False), _states(last, True)
        row |= {"states": [na, nd], "chains": [ca, cd]}
    if solve and distinct:
        model = engine.world_model(the_plan.rules_in(world))
        if model == "server" and numba_importable() is None:
            solve_seconds(list(distinct.values())[:1], model)  # the kernel's compilation
        row["solve_s"] = solve_seconds(list(distinct.values())[:solve], model)
    row["reason"] = reason(row)
    return row


def reason(row: dict[str, Any]) -> str:
    """The engine's bound that makes the plan sampled, in words (``exact`` when none)."""
    walkable = row["tree"] <= engine.MAX_LEAVES
    why = []
    states = row.get("states")
    if states is not None:
        na, nd = states
        pairs = None if na is None or nd is None else na * nd
        chains = all(row["chains"])
        limit = engine.CHAIN_PAIRS if chains else engine.EXACT_PAIRS
        if pairs is None or pairs > limit:
            big = pairs is not None and pairs <= engine.BIG_PAIRS and not chains
            few = row["fights"] <= engine.BIG_FIGHTS and walkable
            if not (big and few):
                shown = "?" if pairs is None else f"{pairs:,}"
                why.append(f"fight {shown} pairs > {limit:,} ({row['fights']} distinct)")
    if not walkable:
        top = ", ".join(k for k, v in row["draws"].items() if v >= 0.3)
        why.append(f"tree {row['tree']:.2g} > {engine.MAX_LEAVES} ({top})")
    return "; ".join(why) or "exact"


def table(path: Path) -> str:
    """The rows as a Markdown table."""
    head = (
        "| plan | tree | draws (log10 options) | distinct fights / paths | osup / dsup"
        " | states att × def | CPU s per exact fight | sampled because |\n" + "|---" * 8 + "|"
    )
    lines = [head]
    for line in path.read_text().splitlines():
        r = json.loads(line)
        draws = ", ".join(f"{k} {v}" for k, v in r["draws"].items() if v >= 0.3) or "—"
        states = r.get("states")
        shown = "—"
        if states is not None:
            cells = [
                "?" if n is None else f"{n:,}{' (chain)' if ch else ''}"
                for n, ch in zip(states, r["chains"], strict=True)
            ]
            shown = " × ".join(cells)
        ends = r["ends"]
        fights = f"{r['fights']} / {r['paths']}"
        if ends.get("fight", 0) < r["paths"]:
            fights += f" ({r['paths'] - ends.get('fight', 0)} end before)"
        lines.append(
            f"| {r['case']} | {r['tree']:.2g} | {draws} | {fights} | {r['osup']} / {r['dsup']}"
            f" | {shown} | {_solved(r)} | {r['reason']} |"
        )
    return "\n".join(lines)


def _solved(row: dict[str, Any]) -> str:
    times = row.get("solve_s")
    if not times:
        return "—"
    done = [t for t in times if t is not None]
    if not done:
        return f"> {SOLVE_WORK:.0e} cone products"
    return f"{statistics.median(done):.2g} (median of {len(done)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="plan ids (default: every plan)")
    parser.add_argument("--paths", type=int, default=100, help="paths drawn per plan")
    parser.add_argument("--solve", type=int, default=0, help="distinct fights solved per plan")
    parser.add_argument("--table", type=Path, help="print a run's rows as a Markdown table")
    args = parser.parse_args()
    if args.table:
        print(table(args.table))
        return
    todo = [p for p in plans() if not args.only or p["id"] in args.only]
    worlds: dict[str, World] = {}
    for p in todo:
        name = p["world"]
        if name not in worlds:
            worlds[name] = load_world(WORLDS / f"{name}.xdump")
        print(json.dumps(study_plan(worlds[name], p, args.paths, args.solve)), flush=True)


if __name__ == "__main__":
    main()
