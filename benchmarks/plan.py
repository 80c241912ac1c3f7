"""The turn planner's benchmark: ``python benchmarks/plan.py`` (issue 27's targets).

One JSON line per case on standard output, remarks on standard error.  Cases:

* one turn plan per country of each world of ``benchmarks/worlds/`` (the realistic
  suite the server's fairland made, benchmarks/worlds/README.md), target ≤ 10 s on 2 cores;
* a 256×128 world with at least 300 candidate targets (:func:`big_world`: a front
  of two countries along the whole map), target ≤ 60 s on 2 cores, its curves solved
  by the local process pool and by Dask with 2 and then 4 workers (the speed-up);
* for every plan: HiGHS's optimality gap (target ≤ 1 %) and its expected value
  against greedy's on the same options.

``benchmarks/run.py --plan`` runs the same cases and puts them in docs/benchmarks.md.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bellum.empire.geometry import Geometry
from bellum.empire.plan.curves import DaskPool, LocalPool
from bellum.empire.plan.planner import Settings, TurnPlan, plan_turn
from bellum.empire.world import LandUnit, Nation, Relation, Sector, World

ROOT = Path(__file__).resolve().parents[1]
WORLDS = ROOT / "benchmarks" / "worlds"
TARGETS = {"realistic": 10.0, "big": 60.0, "gap": 0.01}


def note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def big_world(
    seed: int = 1, width: int = 256, height: int = 128, fronts: int = 4, rows: int = 40
) -> World:
    """Two countries at war along ``fronts`` vertical bands (two edges each); country 1's
    mil stand on the first ``rows`` rows of every edge (about 8 candidate targets per row
    for 4 fronts).  Garrisons, mil and mobility are drawn from ``seed``."""
    from bellum.empire import geometry

    geometry.MAX_SIDE = max(geometry.MAX_SIDE, width, height)
    rng = np.random.default_rng(seed)
    world = World(geometry=Geometry(width, height))
    t = world.tables
    for cnum, other in ((1, 2), (2, 1)):
        world.nations[cnum] = Nation(cnum=cnum, name=f"C{cnum}", money=50000, btu=640)
        world.nations[cnum].relations[other] = Relation.AT_WAR
    band = width // fronts
    des = ("wilderness", "mine", "harbor", "warehouse", "agribusiness", "bank")
    for y in range(height):
        for x in range(y % 2, width, 2):
            owner = 1 if (x % band) < band // 2 else 2
            edge = min(abs((x % band) - band // 2), abs(x % band))
            kind = t.sector(str(rng.choice(des)) if owner == 2 else "wilderness")
            s = Sector(x=x, y=y, type=kind,
                       owner=owner, oldowner=owner, eff=int(rng.integers(20, 101)),
                       mob=int(rng.integers(40, 128)))  # fmt: skip
            if owner == 1:
                armed = edge <= 2 and y < rows
                s.items = {"mil": int(rng.integers(20, 150)) if armed else 1, "civ": 50}
            else:
                s.items = {"mil": int(rng.integers(0, 30)) if edge <= 2 else 5,
                           "civ": int(rng.integers(0, 400))}  # fmt: skip
            world.sectors[s.xy] = s
    inf = t.land["inf"]
    mine = [s for s in world.sectors.values() if s.owner == 1 and s.mil > 5]
    for uid in range(40):
        s = mine[int(rng.integers(len(mine)))]
        world.units[uid] = LandUnit(uid=uid, type=inf, owner=1, x=s.x, y=s.y, mob=100,
                                    items={"mil": 10})  # fmt: skip
    return world


def row(
    case: str, plan: TurnPlan, seconds: float, target: float | None, **extra: Any
) -> dict[str, Any]:
    (wave,) = plan.waves
    out: dict[str, Any] = {
        "case": case,
        "seconds": round(seconds, 3),
        "candidates": wave.candidates,
        "options": wave.options,
        "curve_seconds": round(wave.curve_seconds, 3),
        "solver_seconds": round(wave.allocation.seconds, 4),
        "gap": wave.allocation.gap,
        "status": wave.allocation.status,
        "value": round(wave.allocation.value, 2),
        "greedy_value": round(wave.greedy.value, 2),
        "attacks": len(wave.attacks),
        "skipped": wave.skipped,
        "unsolved": wave.unsolved,
        "refined": wave.refined,
        "solved": wave.solved,
        "cpu_seconds": round(LAST_CPU[0], 2),
        "load": round(os.getloadavg()[0], 2),
    }
    if target is not None:
        out["target"] = target
        out["target_met"] = seconds <= target
    out.update(extra)
    print(json.dumps(out), flush=True)
    return out


def _cpu() -> float:
    """CPU seconds of this process and its finished children (a local pool's workers)."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed_plan(
    world: World, country: int, budget: float | None = None, **kw: Any
) -> tuple[TurnPlan, float]:
    """One plan (with ``budget``: ``--budget``), its wall time; its CPU time in
    :data:`LAST_CPU` (a local pool is closed first, so that its workers' time is counted)."""
    start, cpu = time.perf_counter(), _cpu()
    try:
        plan = plan_turn(world, country, Settings(budget=budget), progress=_progress, **kw)
    finally:
        close = getattr(kw.get("pool"), "close", None)
        if close is not None:
            close()
    LAST_CPU[0] = _cpu() - cpu
    return plan, time.perf_counter() - start


def _progress(label: str, fraction: float) -> None:
    """Each round of a long plan on standard error as it ends."""
    if fraction >= 1:
        note(f"  {label}: done")


#: The CPU seconds of the last :func:`timed_plan` (a local pool's workers included).
LAST_CPU = [0.0]


def realistic_cases(
    names: list[str] | None = None, only: str = "", budget: float | None = None
) -> list[dict[str, Any]]:
    """A plan for every country of each realistic world (benchmarks/worlds/NAME.xdump;
    ``names``: only those; ``only``: only the country of that name; ``budget``: planned
    with ``--budget``)."""
    from bellum.empire.io.xdump.mapping import dump_to_world, read_dump

    rows = []
    dumps = sorted(WORLDS.glob("*.xdump")) if WORLDS.is_dir() else []
    for dump in [d for d in dumps if names is None or d.stem in names]:
        world = dump_to_world(read_dump(dump))
        for country in sorted(c for c in world.nations if c):
            if only and world.nations[country].name != only:
                continue
            note(f"{dump.stem} as {world.nations[country].name}")
            plan, seconds = timed_plan(world, country, budget, pool=LocalPool(2))
            name = world.nations[country].name
            case = f"{dump.stem} as {name}" + ("" if budget is None else f", --budget {budget:g}")
            rows.append(row(case, plan, seconds, TARGETS["realistic"]))
    if not rows:
        note(f"no worlds in {WORLDS}: the realistic cases are skipped")
    return rows


def big_cases(
    dask: bool = True, dump: Path | None = None, country: str = ""
) -> list[dict[str, Any]]:
    """The 256x128 cases: :func:`big_world` as country 1, or the realistic world ``dump``
    (``tools/realistic.py --world w256x128:256x128:7:8``) as ``country``."""
    if dump is None:
        world, cnum, name = big_world(), 1, "256x128"
    else:
        from bellum.empire.io.xdump.mapping import dump_to_world, read_dump

        world = dump_to_world(read_dump(dump))
        found = world.find_nation(country)
        if found is None:
            raise SystemExit(f"{dump}: no country {country!r}")
        cnum, name = found.cnum, f"{dump.stem} as {found.name}"
    plan, seconds = timed_plan(world, cnum, pool=LocalPool(2))
    rows = [row(f"{name}, local pool of 2", plan, seconds, TARGETS["big"])]
    if not dask:
        return rows
    try:
        import distributed
    except ImportError:
        note("Dask not installed: the Dask cases are skipped")
        return rows
    curves: dict[int, float] = {}
    for workers in (2, 4):
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, host="127.0.0.1",
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:  # fmt: skip
            plan, seconds = timed_plan(world, cnum, pool=DaskPool(client))
        curves[workers] = plan.waves[0].curve_seconds
        extra = {"speedup_vs_2_workers": round(curves[2] / curves[workers], 3)}
        rows.append(row(f"{name}, Dask {workers} workers", plan, seconds, TARGETS["big"], **extra))
    return rows


def table(rows: list[dict[str, Any]]) -> list[str]:
    """The planner's section of docs/benchmarks.md: one table row per case."""
    lines = [
        "## Turn planner (`bellum empire plan`, benchmarks/plan.py)",
        "",
        "| case | seconds | CPU s | target | targets | skipped | options | curves s | solver s |"
        " gap | plan value | greedy value | load | Dask speed-up vs 2 workers |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        target = f"<= {r['target']:g} s {'✓' if r['target_met'] else '✗'}" if "target" in r else ""
        gap = "" if r["gap"] is None else f"{100 * r['gap']:.3f} %"
        lines.append(
            f"| {r['case']} | {r['seconds']:.1f} | {r.get('cpu_seconds', '')} | {target} | "
            f"{r['candidates']} | {r.get('skipped', '')} | {r['options']}"
            f"{f' ({unsolved} unsolved)' if (unsolved := r.get('unsolved')) else ''} | "
            f"{r['curve_seconds']:.1f} | {r['solver_seconds']:.3f} | {gap} | "
            f"{r['value']:,.0f} | {r['greedy_value']:,.0f} | {r['load']} | "
            f"{r.get('speedup_vs_2_workers', '')} |"
        )
    return lines


def write_section(docs: Path, rows: list[dict[str, Any]], command: str, notes: str = "") -> None:
    """Put the planner's section in ``docs`` (in place of the one there, if any), with
    ``notes`` (a paragraph of Markdown) below the table."""
    text = docs.read_text()
    head = "## Turn planner"
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    section = [*table(rows)]
    section[1:1] = ["", f"Generated by `{command}` on {stamp}; `CPU s` counts the local pool's"
                    " workers (not Dask's). The machine's load is the 1-minute average when the"
                    " case ended."]  # fmt: skip
    if notes:
        section += ["", notes.strip()]
    block = "\n".join(section) + "\n"
    if head in text:
        before, _, rest = text.partition(head)
        after = rest[rest.find("\n## ") + 1 :] if "\n## " in rest else ""
        text = before + block + ("\n" + after if after else "")
    else:
        raw = text.find("## Raw results")
        text = (text[:raw] + block + "\n" + text[raw:]) if raw >= 0 else text + "\n" + block
    docs.write_text(text)


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", help="only these realistic worlds (NAME,NAME), or none")
    parser.add_argument("--no-big", action="store_true", help="skip the 256x128 world")
    parser.add_argument("--as", dest="only", default="", help="only this country of each world")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask cases")
    parser.add_argument(
        "--budget", type=float, help="plan the realistic worlds with --budget SECONDS"
    )
    parser.add_argument(
        "--big-dump",
        type=Path,
        help="plan this dump (e.g. tools/realistic.py --world w256x128:256x128:7:8) instead "
        "of the generated 256x128 world",
    )
    parser.add_argument("--big-as", default="", help="with --big-dump: the country to plan for")
    parser.add_argument(
        "--docs", type=Path, help="also put the table in this file (docs/benchmarks.md)"
    )
    parser.add_argument(
        "--rows", type=Path, help="take the cases from this file (this script's output)"
    )
    parser.add_argument(
        "--notes", type=Path, help="with --docs: put this Markdown file's text below the table"
    )
    args = parser.parse_args()
    if args.rows is not None:
        rows = [json.loads(line) for line in args.rows.read_text().splitlines() if line.strip()]
    else:
        names = None if args.worlds is None else [n for n in args.worlds.split(",") if n]
        rows = realistic_cases(names, args.only, args.budget)
        if not args.no_big:
            rows += big_cases(dask=not args.no_dask, dump=args.big_dump, country=args.big_as)
    if args.docs is not None:
        notes = args.notes.read_text() if args.notes is not None else ""
        write_section(args.docs, rows, "python benchmarks/plan.py " + " ".join(sys.argv[1:]),
                      notes)  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
