"""``bellum empire plan`` and ``bellum empire threats``: the turn planner (docs/plan.md).

The library does the work (:mod:`bellum.empire.plan`); this module reads the
options, picks where the odds are solved (a process pool, or Dask with
``--dask``), and prints the ranked table, the orders to play and the JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import click

from bellum.cli.empire import (
    CoordCommand,
    _country,
    as_option,
    db_option,
    empire,
    open_world,
    rules_options,
    world_option,
)
from bellum.cli.options import SEED_MAX, Real, Whole
from bellum.cli.progress import progress_fraction
from bellum.empire.plan.precision import PLANNING, THREAT_DRAWS, Precision
from bellum.empire.rules import Rules
from bellum.errors import UsageError
from bellum.fileio import check_writable, write_atomic
from bellum.numbers import shown, to_int

DASK_HELP = (
    "Solve the odds on the Dask scheduler at ADDRESS (tcp://host:port) instead of "
    "local processes (pip install 'bellum[dask]')."
)


#: Inputs listed per threat in the table's notes (all of them in --json).
ASSUMED_SHOWN = 6

SCRIPT_HEAD = "#!/bin/sh\n# bellum empire plan: review each order, then run this script.\nset -e\n"


def _check_script(path: Path) -> None:
    """A --script file that exists is replaced only if an earlier plan wrote it."""
    check_writable(path)
    try:
        head = path.read_text("utf-8", "replace")[: len(SCRIPT_HEAD)] if path.is_file() else ""
    except OSError:
        head = ""
    if head and head != SCRIPT_HEAD:
        raise UsageError(f"{path}: exists and is not a plan script; not overwritten")


def _pool(jobs: int | None, dask: str | None) -> Any:
    from bellum.empire.plan.curves import DaskPool, LocalPool

    if dask is None:
        return LocalPool(jobs or 0)
    if jobs is not None:
        raise UsageError("--jobs is for local processes; a Dask cluster has its own workers")
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError("--dask needs Dask: pip install 'bellum[dask]'") from None
    return DaskPool(dask)


@contextmanager
def _phases(name: str) -> Iterator[Callable[[str, float], None]]:
    """One bar per phase of the work (``plan: wave 1, round 2: 40 options``), each
    filling from 0 as the library reports the phase's fraction done."""
    shown: list[Any] = [None, None, None]  # the phase's label, its bar's exit stack, its bar

    def tick(label: str, fraction: float) -> None:
        if label != shown[0]:
            if shown[1] is not None:
                shown[1].close()
            stack = ExitStack()
            shown[:] = [label, stack, stack.enter_context(progress_fraction(f"{name}: {label}"))]
        shown[2](fraction)

    try:
        yield tick
    finally:
        if shown[1] is not None:
            shown[1].close()


@contextmanager
def _closing(pool: Any) -> Iterator[None]:
    """Stops a local pool's processes at the end of the command."""
    try:
        yield
    finally:
        close = getattr(pool, "close", None)
        if close is not None:
            close()


def _values(world: Any, cnum: int, items: tuple[str, ...]) -> dict[str, float]:
    """``--value SECT=N`` (x,y in your coordinates), ``ship:N=V`` or ``unit:N=V``."""
    out: dict[str, float] = {}
    origin = world.nations[cnum].origin
    for item in items:
        where, sep, text = item.rpartition("=")
        n = to_int(text.strip(), signed=True)
        if not sep or n is None:
            raise UsageError(f"--value needs SECT=N such as 4,0=5000, not '{shown(item)}'")
        kind, colon, ident = where.strip().partition(":")
        if colon and kind in ("ship", "unit") and to_int(ident) is not None:
            key = f"{kind}:{to_int(ident)}"
        else:
            x, y = world.geometry.parse(where, origin)
            key = f"sector:{x},{y}"
        if key in out:
            raise UsageError(f"--value {shown(where.strip())} is given twice")
        out[key] = float(n)
    return out


def _where_args(world_path: Path | None, db: Path | None, country: str) -> list[str]:
    where = (
        ["--world", str(world_path)] if world_path is not None else ["--db", str(db or "bellum.db")]
    )
    return [*where, "--as", country]


def _money(x: float) -> str:
    return f"${x:,.0f}" if x >= 0 else f"-${-x:,.0f}"


def _p(p: float, se: float) -> str:
    return f"{100 * p:5.1f}%" + (f" ±{100 * se:.1f}" if se > 0 else "")


def render(world: Any, plan: Any, orders: list[str]) -> str:
    """The ranked table of each wave, the comparison with greedy, and the orders."""
    from bellum.empire.plan.planner import value_se

    lines = [f"Turn plan for country {plan.country} ({plan.settings.objective}):"]
    for w in plan.waves:
        lines.append("")
        hopeless = f" ({w.skipped} not worth attacking)" if w.skipped else ""
        lines.append(
            f"wave {w.number}: {w.candidates} targets{hopeless}, {w.options} options, {w.refined}"
            f" refined ({w.solved} odds solved now, {w.cached} from the cache) in"
            f" {w.curve_seconds:.1f} s"
        )
        if w.unsolved:
            lines.append(
                f"  --budget ran out: {w.unsolved} options left unsolved (not in the plan;"
                " a second plan takes the solved ones from the database and goes on)"
            )
        if not w.attacks:
            lines.append("  nothing worth attacking")
        else:
            wide = max(22, *(len(a.order.text()) for a in w.attacks))
            head = f"  {'#':>2}  {'order':<{wide}} {'force':<24} {'P(win)':>12} {'lose':>6}"
            lines.append(head + f" {'kill':>6} {'prize':>9} {'value':>9}")
            for k, a in enumerate(w.attacks, 1):
                force = " ".join(
                    f"{'ship' if s == 'ship' else world.fmt(s, plan.country)}={n}"
                    for s, n in (a.plan.mil or {}).items()
                    if n
                )
                if a.plan.units:
                    force += " +" + ",".join(f"#{u}" for u in sorted(a.plan.units))
                if a.planes:
                    drop = int(sum(n for r, n in a.uses.items() if r.startswith("mil:")))
                    force = f"{len(a.planes)} planes, {drop} mil"
                lines.append(
                    f"  {k:>2}  {a.order.text():<{wide}} {force:<24}"
                    f" {_p(a.point.p, a.point.se):>12}"
                    f" {a.point.attacker:>6.1f} {a.point.defender:>6.1f}"
                    f" {_money(a.prize):>9} {_money(a.value):>9}"
                )
        al, gr = w.allocation, w.greedy
        gap = "" if al.gap is None else f", gap {100 * al.gap:.2f}%"
        se = value_se(w.attacks)
        lines.append(
            f"  plan: {_money(al.value)}{f' ±{_money(se)}' if se >= 0.5 else ''} expected"
            f" ({al.method}, {al.status}{gap},"
            f" {al.seconds:.2f} s); greedy: {_money(gr.value)} with {len(gr.chosen)} attacks"
        )
    lines += ["", "Orders (review them, then run them in this order):"]
    lines += [f"  {o}" for o in orders]
    return "\n".join(lines)


def precision_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--max-runs`` and ``--max-memory``: the planner's precision, shared by ``plan``
    and ``threats`` (defaults: :data:`~bellum.empire.plan.precision.PLANNING`)."""
    f = click.option(
        "--max-memory",
        type=Real(0, min_open=True),
        default=PLANNING.max_memory,
        show_default=True,
        metavar="MB",
        help="Memory the exact solver may use per fight (as `bellum empire odds"
        " --max-memory`; beyond it the fight is sampled).",
    )(f)
    return click.option(
        "--max-runs",
        type=Whole(1),
        default=PLANNING.max_runs,
        show_default=True,
        help="Where the odds are sampled, at most this many samples per option (as `bellum"
        " empire odds --max-runs`; more: closer figures, slower).",
    )(f)


@empire.command("plan", cls=CoordCommand)
@world_option
@db_option
@as_option
@rules_options
@click.option(
    "--objective",
    type=click.Choice(["value", "count"]),
    default="value",
    show_default=True,
    help="value: the most prize × P(success) less the losses' cost; count: as many "
    "targets as possible, each with P(success) ≥ --min-p.",
)
@click.option(
    "--min-p",
    type=Real(0, 1, max_open=False),
    default=0.5,
    show_default=True,
    metavar="P",
    help="With --objective count: the least P(success) of an attack.",
)
@click.option(
    "--value",
    "values",
    multiple=True,
    metavar="SECT=N",
    help="What taking SECT (x,y; or ship:N, unit:N) is worth in dollars, instead of the "
    "formula (docs/plan.md); repeatable.",
)
@click.option(
    "--weight",
    "weights",
    multiple=True,
    metavar="NAME=N",
    help="Dollars per mil lost (mil, default 5), land unit sent (unit, 20), BTU (btu, 10), "
    "mobility point (mob, 1); repeatable.",
)
@click.option(
    "--levels",
    type=Whole(1, 20),
    default=4,
    show_default=True,
    help="Force levels per target: 1/N, 2/N ... all of what each source can send.",
)
@click.option(
    "--waves",
    type=Whole(1, 2),
    default=1,
    show_default=True,
    help="2: plan a second wave on the world the first wave's orders leave.",
)
@click.option(
    "--seed",
    type=Whole(0, SEED_MAX),
    default=1,
    show_default=True,
    help="Seed for sampled odds (and the first printed order; the next ones count up).",
)
@click.option("--jobs", type=Whole(1, 256), default=None, help="Local processes (default: cores).")
@click.option("--dask", metavar="ADDRESS", default=None, help=DASK_HELP)
@click.option(
    "--gap",
    type=Real(0, 0.5),
    default=1e-4,
    show_default=True,
    help="Stop the solver within this relative optimality gap.",
)
@click.option(
    "--time-limit",
    type=Real(0.1, 3600),
    default=30.0,
    show_default=True,
    metavar="SECONDS",
    help="Most seconds the solver may spend (it then returns its best plan and its gap).",
)
@precision_options
@click.option(
    "--budget",
    type=Real(0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop solving odds after this many seconds a wave and plan with the options solved"
    " (the most promising targets first); the output says how many were left unsolved.",
)
@click.option(
    "--live",
    metavar="HOST:PORT",
    default=None,
    help="Print the orders to play on the server at HOST:PORT (as --live of each command).",
)
@click.option(
    "--script",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the orders to FILE as a shell script to review and run.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON (docs/plan.md).")
def plan_cmd(
    world_path: Path | None,
    db: Path | None,
    country: str,
    profile: str | None,
    options: tuple[str, ...],
    objective: str,
    min_p: float,
    values: tuple[str, ...],
    weights: tuple[str, ...],
    levels: int,
    waves: int,
    seed: int,
    jobs: int | None,
    dask: str | None,
    gap: float,
    time_limit: float,
    max_runs: int,
    max_memory: float,
    budget: float | None,
    live: str | None,
    script: Path | None,
    as_json: bool,
) -> None:
    """The best use of this turn's forces: what to attack, with what, in what order.

    Lists every target you can fight for (attack, assault, paradrop, board,
    lboard), solves the odds of a few force levels for each with `bellum empire
    odds`'s engine, and chooses among them with an integer program (HiGHS), a greedy plan
    beside it.  Prints the ranked attacks and the orders that play them, each
    with its named answers.  With --db the odds are kept in the database, so a
    second plan of the same turn is quick.  Nothing in the world changes.
    """
    from bellum.empire.plan.planner import (
        Settings,
        odds_command,
        order_command,
        plan_turn,
        to_json,
    )
    from bellum.empire.plan.value import Weights
    from bellum.empire.service import plan_cache

    source = open_world(world_path, db)
    world = source.world
    rules = Rules.for_world(world, profile, options)
    cnum = _country(world, country).cnum
    settings = Settings(
        objective="count" if objective == "count" else "value",
        min_p=min_p,
        weights=Weights.parse(weights),
        values=_values(world, cnum, values),
        levels=levels,
        seed=seed,
        waves=waves,
        gap=gap,
        time_limit=time_limit,
        rules=rules,
        precision=Precision(max_runs, max_memory),
        budget=budget,
    )
    pool = _pool(jobs, dask)
    if script is not None:
        _check_script(script)
    cache, version = plan_cache(source)
    with _closing(pool), _phases("plan") as tick:
        plan = plan_turn(world, cnum, settings, pool=pool, cache=cache, version=version,
                         progress=tick)  # fmt: skip
    where = _where_args(world_path, db, country)
    orders = [order_command(a, world, cnum, where, live) for a in plan.attacks]
    if script is not None:
        write_atomic(script, SCRIPT_HEAD + "".join(o + "\n" for o in orders))
    if as_json:
        doc = to_json(world, plan)
        for wave in doc["waves"]:
            mine = [x for x in plan.attacks if x.wave == wave["wave"]]
            for a, attack in zip(wave["attacks"], mine, strict=True):
                a["command"] = order_command(attack, world, cnum, where, live)
                a["odds_command"] = odds_command(
                    attack, world, cnum, where, seed, settings.precision
                )
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo(render(world, plan, orders))
    if plan.attacks:
        click.echo(
            "\nThe odds of each, as `bellum empire odds` gives them"
            " (a second wave's hold once the first is played):"
        )
        for a in plan.attacks:
            click.echo(f"  {odds_command(a, world, cnum, where, seed, settings.precision)}")


@empire.command("threats", cls=CoordCommand)
@world_option
@db_option
@as_option
@rules_options
@click.option(
    "--seed",
    type=Whole(0, SEED_MAX),
    default=1,
    show_default=True,
    help="Seed for sampled odds.",
)
@click.option("--jobs", type=Whole(1, 256), default=None, help="Local processes (default: cores).")
@click.option("--dask", metavar="ADDRESS", default=None, help=DASK_HELP)
@click.option(
    "--draws",
    type=Whole(1, 1000),
    default=THREAT_DRAWS,
    show_default=True,
    help="In a player's view: complete worlds drawn per threatened sector, ship or unit from"
    " what it has seen of the enemy (docs/fog.md)",
)
@precision_options
@click.option("--json", "as_json", is_flag=True, help="Print the threats as JSON (docs/plan.md).")
def threats_cmd(
    world_path: Path | None,
    db: Path | None,
    country: str,
    profile: str | None,
    options: tuple[str, ...],
    seed: int,
    jobs: int | None,
    dask: str | None,
    draws: int,
    max_runs: int,
    max_memory: float,
    as_json: bool,
) -> None:
    """Where the enemy can hurt you this turn: the strongest strike on each of yours.

    For each of your sectors, ships and land units, the strongest single strike
    another country can make this turn (everything its command offers), with its
    odds, likeliest first.  In a player's view (a synced world) the enemy's forces
    are drawn from what you have seen of them (docs/fog.md), and each threat lists
    what it assumed.  Nothing in the world changes.
    """
    from bellum.empire.plan.threats import threat_map, to_json
    from bellum.empire.service import plan_cache

    source = open_world(world_path, db)
    world = source.world
    rules = Rules.for_world(world, profile, options)
    cnum = _country(world, country).cnum
    pool = _pool(jobs, dask)
    cache, version = plan_cache(source)
    with _closing(pool), _phases("threats") as tick:
        tm = threat_map(world, cnum, seed=seed, pool=pool, cache=cache, version=version,
                        progress=tick, rules=rules, draws=draws,
                        precision=Precision(max_runs, max_memory))  # fmt: skip
    if as_json:
        click.echo(json.dumps(to_json(world, tm), indent=2))
        return
    for note in tm.notes:
        click.echo(f"bellum: note: {note}", err=True)
    if not tm.threats:
        click.echo(
            f"No country can strike country {cnum} this turn ({tm.strikes} strikes looked at)."
        )
        return
    click.echo(f"Threats to country {cnum} ({tm.strikes} strikes looked at), likeliest first:")
    wide = max([24, *(len(t.order.text()) for t in tm.threats)])
    click.echo(f"  {'target':<10} {'by':>3}  {'their order':<{wide}} {'P(win)':>12}"
               f" {'they lose':>9} {'you lose':>8} {'at risk':>9}")  # fmt: skip
    for t in tm.threats:
        click.echo(
            f"  {t.where:<10} {t.enemy:>3}  {t.order.text():<{wide}}"
            f" {_p(t.point.p, t.point.se):>12} {t.point.attacker:>9.1f}"
            f" {t.point.defender:>8.1f} {_money(t.risk):>9}"
        )
    drawn = [t for t in tm.threats if t.draws]
    if drawn:
        click.echo("\nWhat each threat assumed of the enemy (docs/fog.md; --json lists it all):")
    for t in drawn:
        click.echo(f"  {t.where}: {t.draws} worlds drawn")
        for i in t.assumed[:ASSUMED_SHOWN]:
            click.echo(f"    {i.name}: {i.treatment}")
        if len(t.assumed) > ASSUMED_SHOWN:
            click.echo(f"    and {len(t.assumed) - ASSUMED_SHOWN} more")
