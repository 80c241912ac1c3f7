"""Where the fog-aware odds part from the god's-eye odds, by group of unknowns (docs/fog.md).

    python tools/fog_gap.py build/cal/np-3001.jsonl --out build/cal/parts-3001.jsonl
    python tools/fog_gap.py --report build/cal/parts-3001.jsonl

Reads a ``fog_calibration.py --no-play`` file and, for each attack whose target was seen
fresh, recomputes its fog-aware P with one group of the belief's unknowns set to the
deity's truth (the same draws of the others, the same seeds), then with all of them:
a group's share of E[(f − g)²] is how much the squared difference falls when it is known;
what is left with every group known is what the belief leaves out altogether.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from fog_calibration import (
    Attack,
    kept_god,
    kept_views,
    log,
    mean_interval,
    read_records,
    squared_gaps,
)

from bellum.empire.geometry import Coord
from bellum.empire.intel.belief import COPY_UIDS, Belief, Unknown
from bellum.empire.odds import plan_odds
from bellum.empire.odds.fog import belief_for
from bellum.empire.odds.plan import Plan
from bellum.empire.world import World
from bellum.errors import BellumError

DRAWS = 32

#: The groups of unknowns, by the pattern of their names.
GROUPS: list[tuple[str, str]] = [
    ("sector numbers", r"^-?\d+,-?\d+\.(mil|eff|defense|gun|shell|petrol)$"),
    ("mines", r"\.mines$"),
    ("units a lookout cannot show", r"\.units$"),
    ("sectors never seen", r"\.like$"),
    ("unit missions", r"^unit#\d+\.mission$"),
    ("unit numbers", r"^unit#\d+\.(eff|mil|tech|fort)$"),
    ("ships", r"^ship#"),
    ("plane missions", r"^plane#"),
    ("tech", r"^nation#"),
]


def group_of(name: str) -> str:
    for label, pattern in GROUPS:
        if re.search(pattern, name):
            return label
    return "other"


class Truth:
    """Puts the deity's truth of an unknown into a world drawn from the player's belief
    (the player's coordinates: its origin is the view's)."""

    def __init__(self, god: World, country: int) -> None:
        self.god = god
        self.origin = god.nations[country].origin or (0, 0)
        self.country = country

    def abs(self, xy: Coord) -> Coord:
        c: Coord = self.god.geometry.to_abs(xy, self.origin)
        return c

    def rel(self, xy: Coord) -> Coord:
        c: Coord = self.god.geometry.to_rel(xy, self.origin)
        return c

    def apply(self, world: World, name: str) -> None:
        what, _, field = name.rpartition(".")
        if what.startswith(("unit#", "ship#", "plane#")):
            kind, uid = what[: -len(what.split("#")[1]) - 1], int(what.split("#")[1])
            self._thing(world, kind, uid, field)
        elif what.startswith("nation#"):
            world.nations[int(what[7:])].tech = self.god.nations[int(what[7:])].tech
        else:
            x, _, y = what.partition(",")
            self._sector(world, world.geometry.norm(int(x), int(y)), field)

    def _sector(self, world: World, xy: Coord, field: str) -> None:
        truth = self.god.sectors[self.abs(xy)]
        sect = world.sectors[xy]
        if field in ("mil", "gun", "shell", "petrol"):
            sect.put(field, truth.get(field))
        elif field in ("eff", "defense", "mines"):
            setattr(sect, field, getattr(truth, field))
        elif field in ("units", "like"):
            if field == "like":
                s = copy.deepcopy(truth)
                s.x, s.y = xy
                s.type = world.tables.sector(truth.type.name)
                world.sectors[xy] = s
            for uid in [u for u, unit in world.units.items() if u >= COPY_UIDS and unit.xy == xy]:
                del world.units[uid]
            for unit in self.god.units.values():
                if (unit.xy != self.abs(xy) or unit.owner == self.country or unit.loaded
                        or unit.uid in world.units):  # fmt: skip
                    continue
                u = replace(unit, x=xy[0], y=xy[1], items=dict(unit.items))
                if u.op_center is not None:
                    u.op_center = self.rel(u.op_center)
                world.units[u.uid] = u

    def _thing(self, world: World, kind: str, uid: int, field: str) -> None:
        mine = {"unit": world.units, "ship": world.ships, "plane": world.planes}[kind]
        theirs = {"unit": self.god.units, "ship": self.god.ships, "plane": self.god.planes}[kind]
        if uid not in theirs or uid not in mine:
            return
        t, m = theirs[uid], mine[uid]
        if field in ("mil", "gun", "shell"):
            m.items[field] = t.items.get(field, 0)
        elif field == "mission":
            m.mission = t.mission
            m.op_center = None if t.op_center is None else self.rel(t.op_center)
            m.op_radius = t.op_radius
        else:
            setattr(m, field, getattr(t, field))


def p_with(belief: Belief, rows: list[tuple[tuple[Any, ...], float]], country: int, plan: Plan,
           seed: int, patch: Callable[[World], None]) -> float:  # fmt: skip
    """The fog-aware P over ``rows`` (values of the open unknowns) with ``patch`` applied
    to each world drawn: :func:`~bellum.empire.odds.fog.fog_odds`'s mixture of P."""
    total = sum(w for _, w in rows)
    p = 0.0
    for i, (values, weight) in enumerate(rows):
        world = belief.world(values)
        patch(world)
        p += weight / total * plan_odds(world, country, plan, seed=seed + i, samples=1).p_success
    return p


def decompose(r: dict[str, Any], worlds: Path, draws: int) -> dict[str, Any]:
    folder = kept_views(r["world"], worlds, god=True)
    god = kept_god(folder)
    from bellum.empire.service import open_source

    with open_source(None, folder / f"view-{r['country']}.db") as source:
        view = source.world
    a = Attack(r["country"], "", r["order"], r["mil"], r["units"])
    plan = a.plan(view)
    belief = belief_for(view, a.country, plan)
    rows = list(belief.draws(draws, r["world"]))
    truth = Truth(god, a.country)
    by_group: dict[str, list[Unknown]] = {}
    for u in belief.unknowns:
        by_group.setdefault(group_of(u.name), []).append(u)

    def patcher(us: list[Unknown]) -> Callable[[World], None]:
        def patch(world: World) -> None:
            for u in us:
                truth.apply(world, u.name)

        return patch

    out = dict(r, parts={})
    out["p_fog_again"] = p_with(belief, rows, a.country, plan, r["world"], lambda w: None)
    for label, us in sorted(by_group.items()):
        if all(u.dist.certain for u in us) and label not in ("units a lookout cannot show",):
            continue
        out["parts"][label] = p_with(belief, rows, a.country, plan, r["world"], patcher(us))
    everything = [u for us in by_group.values() for u in us]
    out["parts"]["all"] = p_with(belief, rows, a.country, plan, r["world"], patcher(everything))
    return out


def report(records: list[dict[str, Any]]) -> str:
    """Each group's share of E[(f − g)²] over the fresh attacks: the mean fall of the
    squared difference when the group is set to the truth."""
    n = len(records)
    base = squared_gaps(records, fog="p_fog_again")
    lines = [f"{n} fresh attacks; E[(f − g)²] {sum(base) / n:.4f}"
             f" (95 % bootstrap {mean_interval(base)[0]:.4f} to {mean_interval(base)[1]:.4f})",
             "", "| group | attacks where open | E[(f − g)²] with it true | fall (95 % bootstrap) |"
             " fall by command |", "|---|---|---|---|---|"]  # fmt: skip
    labels = sorted({k for r in records for k in r["parts"]})
    for label in labels:
        falls, after = [], []
        by_command: dict[str, float] = {}
        for r, b in zip(records, base, strict=True):
            p = r["parts"].get(label, r["p_fog_again"])
            a = (p - r["p_god"]) ** 2 - r.get("god_error", 0.0) ** 2
            falls.append(b - a)
            after.append(a)
            by_command[r["command"]] = by_command.get(r["command"], 0.0) + (b - a) / n
        lo, hi = mean_interval(falls)
        cmds = ", ".join(f"{c} {v:+.4f}" for c, v in sorted(by_command.items()))
        opened = sum(label in r["parts"] for r in records)
        lines.append(f"| {label} | {opened} | {sum(after) / n:.4f} | {sum(falls) / n:+.4f}"
                     f" ({lo:+.4f} to {hi:+.4f}) | {cmds} |")  # fmt: skip
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", type=Path, nargs="?", help="a --no-play file")
    ap.add_argument("--out", type=Path, help="where each fresh attack's parts go (appended)")
    ap.add_argument("--report", type=Path, help="print the shares of a parts file")
    ap.add_argument("--worlds", type=Path, default=Path("build/fog-worlds"))
    ap.add_argument("--draws", type=int, default=DRAWS)
    ap.add_argument("--every", type=int, default=1, help="take every n-th fresh attack")
    args = ap.parse_args(argv)
    if args.report is not None:
        print(report(read_records(args.report)))
        return 0
    if args.records is None or args.out is None:
        ap.error("give a --no-play file and --out, or --report")
    done = {(r["world"], r["order"], r["country"]) for r in read_records(args.out)} \
        if args.out.exists() else set()  # fmt: skip
    rows = [r for r in read_records(args.records) if r["fresh"] and r["p_fog"] is not None]
    for r in rows[:: args.every]:
        if (r["world"], r["order"], r["country"]) in done:
            continue
        try:
            out = decompose(r, args.worlds, args.draws)
        except BellumError as exc:
            log(f"  {r['order']}: {exc}")
            continue
        with args.out.open("a") as f:
            f.write(json.dumps(out) + "\n")
        parts = " ".join(f"{k[:10]}={v:.2f}" for k, v in out["parts"].items())
        log(f"  {r['world']} {r['order']:<28} fog {out['p_fog_again']:.3f} god {r['p_god']:.3f}"
            f" {parts}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
