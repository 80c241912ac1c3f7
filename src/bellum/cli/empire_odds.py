"""``bellum empire odds``: the odds of a command before you type it for real.

``bellum empire odds attack 2,0``, ``... assault 2,0 5``, ``... paradrop 0/1/2
'' 0,0 2,0``, ``... board 5 0,0``, ``... lboard 3 0,0``: the command and its
own arguments, then the answers as options named after what the prompts ask
(``--mil SECT=N``, ``--mil ship=N`` or ``--mil SHIP=N``, ``--unit ID``).  The old form
``bellum empire odds TARGET`` still means ``attack TARGET``.  The library does
the work (:mod:`bellum.empire.odds`); this module reads options and prints.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from bellum.budget import check_repeats
from bellum.cli.empire import (
    CoordCommand,
    _country,
    _seed,
    answers_with,
    as_option,
    db_option,
    empire,
    named_answers,
    open_world,
    rules_options,
    world_option,
)
from bellum.cli.options import RESOLVER_RUNS_MAX, SEED_MAX, Real, Whole, echo_json
from bellum.cli.progress import DELAY, progress_fraction
from bellum.empire.combat import COMMANDS
from bellum.empire.orders import Order
from bellum.empire.rules import Rules
from bellum.errors import CommandError, InputError, UsageError
from bellum.numbers import shown, to_int
from bellum.term import use_color


def _order(words: tuple[str, ...]) -> Order:
    """The order to plan.  The odds cannot ask for a missing argument as the command
    would, so a missing one is a usage error naming it."""
    names = ", ".join(COMMANDS)
    if not words:
        raise UsageError(f"give the command to plan ({names}), e.g. `attack 2,0`")
    name, *args = words
    if name not in COMMANDS:
        if name.strip().isalpha():
            raise UsageError(f"unknown command '{name}': plan one of {names}")
        name, args = "attack", list(words)
    try:
        order = Order(name, tuple(a.strip() for a in args))
    except InputError as exc:
        raise UsageError(str(exc)) from None
    spec = COMMANDS[name]
    missing = [m for m, word in zip(spec.metavars, order.slots(), strict=True) if word is None]
    if missing:
        shown = " ".join(missing)
        raise UsageError(f"{name} needs {shown} on the command line, e.g. `{spec.example}`")
    return order


#: The most plans one command compares (each is solved in turn, and each is a row).
MAX_PLANS = 100
#: The ``--json`` document of one plan (docs/schemas/empire-odds.schema.json).
ODDS_SCHEMA = "bellum.empire.odds"


def _sweep(text: str) -> tuple[str, list[int]]:
    where, sep, rng = text.partition("=")
    values = [to_int(p) for p in rng.split(":")]
    if not sep or len(values) != 3 or None in values:
        raise UsageError(
            f"--sweep needs SECT=FROM:TO:STEP such as 0,0=40:200:20, not '{shown(text)}'"
        )
    lo, hi, step = [v for v in values if v is not None]
    if step <= 0 or hi < lo:
        raise UsageError(
            f"--sweep {shown(text)}: FROM must not exceed TO and STEP must be positive"
        )
    if (hi - lo) // step >= MAX_PLANS:
        raise UsageError(
            f"--sweep {shown(text)}: {(hi - lo) // step + 1:,} plans; compare at most "
            f"{MAX_PLANS} at once (a larger STEP)"
        )
    return where.strip(), list(range(lo, hi + 1, step))


def _plans(
    world: Any,
    cnum: int,
    order: Order,
    mil: tuple[str, ...],
    units: tuple[int, ...],
    sweep: str | None,
    rules: Rules,
) -> list[tuple[str, Any]]:
    """One plan, or several when a source is given several values (or swept), each
    under ``rules``."""
    from bellum.empire.odds.plan import Plan, parse_mil, parse_units
    from bellum.empire.odds.questions import sources_in_order

    by_source: dict[Any, list[tuple[str, int]]] = {}
    for item in mil:
        ((source, n),) = parse_mil(world, cnum, [item], order).items()
        values = by_source.setdefault(source, [])
        if any(v == n for _, v in values):
            raise UsageError(f"--mil {shown(item)} is given twice")
        values.append((item.partition("=")[0].strip(), n))
    chosen = parse_units(list(units))
    if sweep is not None:
        where, values_ = _sweep(sweep)
        ((source, _),) = parse_mil(world, cnum, [f"{where}=0"], order).items()
        if source in by_source:
            raise UsageError(f"--sweep {where}: that source is also given with --mil")
        most = sources_in_order(world, cnum, Plan(order, None, chosen if units else None, rules))
        if source not in most:
            raise CommandError(f"--sweep {where}: {order} never asks for mil from {where}")
        if values_[-1] > most[source]:
            values_ = [n for n in values_ if n < most[source]] + [most[source]]
            click.echo(
                f"bellum: warning: --sweep {where}: capped at {most[source]},"
                f" the most {order} can take from {where}",
                err=True,
            )
        by_source[source] = [(where, n) for n in values_]
    if not by_source and not units:
        return [("everything", Plan(order, rules=rules))]
    sources = list(by_source)
    count = math.prod(len(by_source[s]) for s in sources)
    if count > MAX_PLANS:
        raise UsageError(
            f"--mil and --sweep ask for {count:,} plans; compare at most {MAX_PLANS} at once"
        )
    plans = []
    for combo in itertools.product(*(by_source[s] for s in sources)):
        label = " ".join(f"{name}={n}" for name, n in combo) or "units only"
        plans.append(
            (
                label,
                Plan(
                    order, {s: n for s, (_, n) in zip(sources, combo, strict=True)}, chosen, rules
                ),
            )
        )
    return plans


@empire.command("odds", cls=CoordCommand)
@click.argument("words", nargs=-1, metavar="COMMAND [ARGS]...")
@world_option
@db_option
@as_option
@rules_options
@answers_with(
    mil="Mil from a sector (x,y), or from the command's ship (ship=N, or its "
    "number as in the command: SHIP=N); repeat a source with other values to compare plans.",
    unit="A land unit that joins; repeatable (a unit named twice is an error).",
    move_in="As the command takes it (the odds end with the fight: no change to them).",
    move_in_unit="As the command takes it (no change to the odds).",
    no_move_in_units="As the command takes it.",
    yes="Answer yes to the command's yes-or-no questions (without it the odds assume yes"
    " and say so).",
)
@click.option(
    "--sweep",
    metavar="SECT=FROM:TO:STEP",
    help="Compare plans with FROM, FROM+STEP, ... TO mil from one source.",
)
@click.option(
    "--need",
    type=Real(0, 1, min_open=True, max_open=True),
    metavar="P",
    help="Find the smallest number of mil (from the --mil sources, else all, in "
    "the order the command asks) that succeeds with probability P (0 < P < 1).",
)
@click.option(
    "--defense-as-seen",
    is_flag=True,
    help="Average over every true garrison the 'approximately M' you see allows "
    "(uniform prior unless --prior).",
)
@click.option(
    "--prior",
    metavar="W,W,...",
    help="Ten weights for the true mil M-5..M+4 behind --defense-as-seen.",
)
@click.option(
    "--model",
    type=click.Choice(["server", "per-casualty"]),
    default=None,
    help="server: the 4.4.1 fight loop; per-casualty: the info page's "
    "(default: the world's rules; same as --option info_fight=...).",
)
@click.option(
    "--target-error",
    type=Real(0, 1, min_open=True),
    default=None,
    help="When sampling: stop once P(success)'s standard error is this small.",
)
@click.option(
    "--max-runs",
    type=Whole(1),
    default=500,
    show_default=True,
    help="At most this many samples when sampling.",
)
@click.option(
    "--max-memory",
    type=Whole(1),
    default=1024,
    show_default=True,
    metavar="MB",
    help="Memory the exact solver may use (more: sample).",
)
@click.option(
    "--resolver-runs",
    type=Whole(1, RESOLVER_RUNS_MAX),
    default=None,
    help="Also play the real command N times and show the agreement (z-scores).",
)
@click.option(
    "--jobs",
    type=Whole(1, 64),
    default=1,
    show_default=True,
    help="Processes for --resolver-runs (each run keeps its own seed).",
)
@click.option(
    "--seed",
    type=Whole(0, SEED_MAX),
    default=None,
    help="Seed for sampling and resolver runs (0..2^32-1).",
)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the outcomes and losses as a picture (.png, .svg, .pdf, ...).",
)
@click.option("--force", is_flag=True, help="Let --plot replace a file that is not an image.")
@click.option(
    "--assume",
    "assume",
    multiple=True,
    metavar="NAME=VALUE",
    help="A player's view: fix an input the odds would otherwise draw (NAME as the list of"
    " inputs names it: 2,0.mil=40, unit#3.mission=reserve), or a prior (drift=0.25,"
    " missions=0.5, unseen=empty); repeatable (docs/fog.md).",
)
@click.option(
    "--fog-draws",
    type=Whole(1, 1000),
    default=None,
    metavar="N",
    help="A player's view: solve at most N worlds drawn from the unknowns (default 40).",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON document (docs/odds.md).")
def odds_cmd(
    words: tuple[str, ...],
    world_path: Path | None,
    db: Path | None,
    country: str,
    profile: str | None,
    options: tuple[str, ...],
    mil: tuple[str, ...],
    units: tuple[int, ...],
    no_units: bool,
    move_in: tuple[str, ...],
    move_in_units: tuple[int, ...],
    no_move_in_units: bool,
    yes: bool,
    sweep: str | None,
    need: float | None,
    defense_as_seen: bool,
    prior: str | None,
    model: str | None,
    target_error: float | None,
    max_runs: int,
    max_memory: int,
    resolver_runs: int | None,
    jobs: int,
    seed: int | None,
    plot: Path | None,
    force: bool,
    assume: tuple[str, ...],
    fog_draws: int | None,
    as_json: bool,
) -> None:
    """The odds of COMMAND before you make it: attack, assault, paradrop, board or lboard.

    Give the command as you would type it (`attack 2,0`, `assault 2,0 5`,
    `paradrop 0/1 . 0,0 4,0`, `board 5 0,0`, `lboard 3 0,0`; a bare TARGET
    means attack) and your answers as options: --mil 0,0=150, --mil ship=24,
    --unit 7.  Without --mil and --unit every prompt is answered with all it
    allows.  The command's own code runs up to the fight (reactions, support,
    mines, flak, approach fire), then the fight is solved exactly with morale
    checks; the method line says what was exact and what was sampled.
    Nothing in the world changes.  The command's other answers (--no-units,
    --move-in, --move-in-unit, --no-move-in-units, --yes) are taken as the command
    takes them; a question left unanswered gets 0 mil or yes, and the output says so.

    On a player's view (`bellum empire sync` as a player) the odds are those the
    country can know: every number it cannot see is drawn from what it saw and
    when (docs/fog.md), and the report lists each input, seen or not.
    """
    clock = _Clock()
    from bellum.empire.odds import plan_odds
    from bellum.empire.odds import resolver_runs as play
    from bellum.empire.odds.questions import as_seen, part_progress

    order = _order(words)
    if plot is not None:
        from bellum.odds.report import plot_format

        plot_format(plot, force=force)
    weights = _prior(prior)
    if prior is not None and not defense_as_seen:
        raise UsageError("--prior goes with --defense-as-seen")
    world = open_world(world_path, db).world
    rules = Rules.for_world(world, profile, options)
    if model is not None:
        rules = replace(rules, info_fight=model == "per-casualty")
    me = _country(world, country)
    cnum = me.cnum
    # The command's own answers, refused where the command would refuse them.
    named_answers(
        world,
        me,
        order,
        mil=(),
        units=units,
        no_units=no_units,
        move_in=move_in,
        move_in_units=move_in_units,
        no_move_in_units=no_move_in_units,
        yes=yes,
    )
    view = _Fog(world, cnum, order, assume, fog_draws, defense_as_seen, resolver_runs)
    world = view.check_world
    plans = [
        (label, replace(plan, yes=yes, units=frozenset() if no_units else plan.units))
        for label, plan in _plans(world, cnum, order, mil, units, sweep, rules)
    ]
    if need is not None and len(plans) > 1:
        raise UsageError("--need finds one plan: give each --mil source once and no --sweep")
    if len(plans) > 1 and (plot is not None or resolver_runs is not None):
        raise UsageError(
            "--plot and --resolver-runs go with one plan: give each --mil source once and"
            " no --sweep"
        )
    _check(world, cnum, plans, need is not None, mil)
    used_seed = _seed(seed)
    settings: dict[str, Any] = {
        "seed": used_seed,
        "target_error": target_error,
        "max_samples": max_runs,
        "max_memory": max_memory * 2**20,
    }
    settings = {k: v for k, v in settings.items() if v is not None}

    def check_runs(plan: Any) -> None:
        """Refuse at once, in one line, resolver runs that would take minutes."""
        if resolver_runs is None:
            return
        from bellum.empire.odds.resolver import seconds_per_run

        each = seconds_per_run(world, cnum, plan, used_seed)
        parallel = min(jobs, os.cpu_count() or 1)
        check_repeats("--resolver-runs", resolver_runs, each / parallel, f"play the {order.name}")

    def odds_of(plan: Any, progress: Callable[[float], None] | None = None) -> Any:
        if view.fog is not None:
            return view.odds(plan, progress, settings)
        if defense_as_seen:
            return as_seen(world, cnum, plan, weights=weights, progress=progress, **settings)
        return plan_odds(world, cnum, plan, progress=progress, **settings)

    found = None
    if need is not None:
        found = _need(world, cnum, plans[0][1], need, odds_of, as_json, view, clock)
        check_runs(found.plan)
        plans = [(f"{found.total} mil", found.plan)]
        results = [(plans[0][0], found.odds)]
    else:
        if len(plans) == 1:
            check_runs(plans[0][1])
        results = []
        with progress_fraction("odds", delay=DELAY) as bar:
            for i, (label, plan) in enumerate(plans):
                results.append((label, odds_of(plan, part_progress(bar, i, len(plans)))))
    if len(results) > 1:
        _echo_comparison(results, world, cnum, as_json, view, clock)
        return
    label, found_odds = results[0]
    odds = view.plain(found_odds)
    resolver = None
    if resolver_runs is not None:
        with progress_fraction("resolver runs", total=resolver_runs, delay=DELAY) as bar:
            resolver = play(
                world, cnum, odds.plan, resolver_runs, used_seed, jobs=jobs, progress=bar
            )
    if plot is not None:
        from bellum.odds.report import write_plot

        write_plot(odds.odds, plot, force=force)
    found_odds = clock.timed(found_odds)
    _echo_one(found_odds, world, cnum, resolver, need=found, plot=plot, as_json=as_json, view=view)


def _need(
    world: Any,
    cnum: int,
    plan: Any,
    need: float,
    odds_of: Callable[..., Any],
    as_json: bool,
    view: _Fog,
    clock: _Clock,
) -> Any:
    """What ``--need`` finds; when even everything fails, the best plan's odds are shown
    (with no mil found, timed as the whole search) and the error says how often it
    succeeds."""
    from bellum.empire.odds.questions import need as find_need
    from bellum.empire.odds.report import render

    sources = list(plan.mil) if plan.mil else None
    with progress_fraction("--need", delay=DELAY) as bar:
        found = find_need(world, cnum, plan, need, odds_of, sources, bar)
    if found.odds is None or found.plan is None:
        best = 100 * found.best.p_success
        whole = clock.timed(found.best)
        if as_json:
            doc = view.json(whole, world, cnum)
            sampled = view.plain(whole).samples is not None
            doc["need"] = {"target": need, "mil": None, "sampled": sampled}
            echo_json(ODDS_SCHEMA, 1, doc, indent=None)
        else:
            click.echo(render(view.plain(whole), color=use_color()))
            view.echo_inputs(whole)
        raise InputError(
            f"even everything the command allows succeeds only {best:.2f}% of the time"
        )
    return found


def _echo_comparison(
    results: list[tuple[str, Any]],
    world: Any,
    cnum: int,
    as_json: bool,
    view: _Fog,
    clock: _Clock,
) -> None:
    """Several plans: each its own ``seconds``, the whole comparison's beside them."""
    from bellum.empire.odds.report import comparison

    if not as_json:
        click.echo(comparison([(label, view.plain(o)) for label, o in results]))
        view.echo_inputs(results[0][1])
        return
    docs = [dict(view.json(o, world, cnum), label=label) for label, o in results]
    for d in docs:
        del d["schema_version"]  # the comparison's own is enough
    whole = {"plans": docs, "seconds": clock.wall(), "cpu_seconds": clock.cpu()}
    echo_json("bellum.empire.comparison", 1, whole, indent=None)


def _echo_one(
    found_odds: Any,
    world: Any,
    cnum: int,
    resolver: Any,
    *,
    need: Any,
    plot: Path | None,
    as_json: bool,
    view: _Fog,
) -> None:
    """One plan's odds (with what ``--need`` found, the resolver runs and the plot); on a
    player's view, with the list of inputs."""
    from bellum.empire.odds.report import render, render_resolver

    odds = view.plain(found_odds)
    if as_json:
        doc = view.json(found_odds, world, cnum, resolver)
        if need is not None:
            sampled = odds.samples is not None
            doc["need"] = {"target": need.target, "mil": need.total, "sampled": sampled}
        echo_json(ODDS_SCHEMA, 1, doc, indent=None)
        return
    if need is not None:
        click.echo(_need_line(need, odds))
    click.echo(render(odds, color=use_color()))
    view.echo_inputs(found_odds)
    if resolver is not None:
        click.echo(render_resolver(odds, resolver))
    if plot is not None:
        click.echo(f"plot written to {plot}")


class _Fog:
    """The fog of a player's view, for the odds command: nothing on a whole world.

    On a view the plans are checked on a complete world drawn from the country's
    belief (its likeliest one), and the odds are :func:`~bellum.empire.odds.fog.fog_odds`.
    """

    def __init__(
        self,
        world: Any,
        cnum: int,
        order: Order,
        assume: tuple[str, ...],
        draws: int | None,
        defense_as_seen: bool,
        resolver_runs: int | None,
    ) -> None:
        self.fog = world.fog
        self.world = world
        self.check_world = world
        self.cnum = cnum
        self.draws = draws
        if self.fog is None:
            if assume or draws is not None:
                what = "--assume" if assume else "--fog-draws"
                raise UsageError(
                    f"{what} goes with a player's view of a game (bellum empire sync as a"
                    " player): this world is the whole game"
                )
            return
        if defense_as_seen:
            raise UsageError(
                "--defense-as-seen is for a whole world: on a player's view the odds already"
                " come from what the country saw"
            )
        if resolver_runs is not None:
            raise UsageError(
                "--resolver-runs plays the command on the whole world; a player's view has"
                " only what the country saw"
            )
        from bellum.empire.intel.belief import believe, parse_assumptions
        from bellum.empire.odds.fog import target_of
        from bellum.empire.odds.plan import Plan

        self.assume = parse_assumptions(assume)
        target = target_of(world, cnum, Plan(order))
        belief = believe(world, cnum, target, assume=self.assume)
        self.check_world = belief.world([u.dist.quantile(0.5) for u in belief.open])

    def odds(self, plan: Any, progress: Any, settings: dict[str, Any]) -> Any:
        from bellum.empire.odds.fog import DRAWS, fog_odds

        return fog_odds(self.world, self.cnum, plan, assume=self.assume,
                        draws=self.draws or DRAWS, progress=progress, **settings)  # fmt: skip

    def plain(self, odds: Any) -> Any:
        """The odds as the plain reports take them."""
        return odds.odds if self.fog is not None else odds

    def json(self, odds: Any, world: Any, cnum: int, resolver: Any = None) -> dict[str, Any]:
        from bellum.empire.odds.report import to_json

        if self.fog is None:
            return to_json(odds, world, cnum, resolver)
        doc = to_json(odds.odds, self.world, cnum, resolver)
        doc["fog"] = {"viewer": self.fog.viewer, "turn": self.fog.turn, "draws": odds.draws,
                      "every_combination": odds.exhaustive}  # fmt: skip
        doc["inputs"] = odds.inputs_json()
        return doc

    def echo_inputs(self, odds: Any) -> None:
        if self.fog is not None:
            from bellum.empire.odds.fog import inputs_text

            click.echo(inputs_text(odds.inputs, self.fog.turn))


def _check(
    world: Any, cnum: int, plans: list[tuple[str, Any]], need: bool, mil: tuple[str, ...]
) -> None:
    """Refuse what the odds would refuse, before the seed line and any work: the
    command's own refusals (its ``Usage:`` line as the command prints it, exit status
    2), more mil than it asks for (worded as the command words it, with ``--mil`` as
    typed) and answers it never asks for."""
    from bellum.empire.odds.engine import CommandUsage, MoreThanAsked, check_plan
    from bellum.empire.odds.plan import parse_mil
    from bellum.empire.odds.questions import need_sources

    try:
        if need:
            (_, plan), *_ = plans
            # --need sets the counts itself: check the command and the sources named.
            check_plan(world, cnum, replace(plan, mil=None))
            need_sources(world, cnum, plan, list(plan.mil) if plan.mil else None)
            return
        for _, plan in plans:
            check_plan(world, cnum, plan)
    except CommandUsage as exc:
        click.echo(str(exc))
        sys.exit(exc.exit_status)
    except MoreThanAsked as exc:
        order = plans[0][1].order
        typed = {next(iter(parse_mil(world, cnum, [m], order))): m.partition("=")[0] for m in mil}
        key = shown(typed.get(exc.source, str(exc.value)).strip())
        raise UsageError(
            f"--mil {key}={exc.n}: at most {exc.most} mil can go from {exc.where}"
        ) from None


def _need_line(found: Any, odds: Any) -> str:
    """What ``--need`` found, and how sure it is: a sampled answer says so."""
    line = f"smallest force reaching {100 * found.target:g}%: {found.total} mil"
    if odds.samples is not None:
        line += (
            f" (estimated from {odds.samples} samples: P(success) {100 * odds.p_success:.1f}%"
            f" ± {100 * odds.standard_error:.1f}% standard error, so a neighbouring force"
            " may be the true answer)"
        )
    return line


def _prior(text: str | None) -> tuple[float, ...]:
    from bellum.empire.odds.questions import OFFSETS, UNIFORM

    if text is None:
        return UNIFORM
    try:
        weights = tuple(float(w) for w in text.split(","))
    except ValueError:
        raise UsageError(f"--prior needs {len(OFFSETS)} numbers separated by commas") from None
    if (
        len(weights) != len(OFFSETS)
        or not all(0 <= w < math.inf for w in weights)
        or not any(weights)
    ):
        raise UsageError(
            f"--prior needs {len(OFFSETS)} finite weights >= 0 (for M-5..M+4), not all 0"
        )
    return weights


class _Clock:
    """The whole command's wall and processor time (its worker processes' included)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.start_cpu = _cpu()

    def wall(self) -> float:
        return time.perf_counter() - self.start

    def cpu(self) -> float:
        return _cpu() - self.start_cpu

    def timed(self, odds: Any) -> Any:
        """``odds`` with the whole computation's times (a search or an average of many
        plans takes more than its last plan's own); on a player's view, its odds'."""
        from bellum.empire.odds.fog import FogOdds

        if isinstance(odds, FogOdds):
            return replace(odds, odds=self.timed(odds.odds))
        return replace(odds, odds=replace(odds.odds, seconds=self.wall()), cpu_seconds=self.cpu())


def _cpu() -> float:
    """Processor seconds of this process and its finished children."""
    try:
        import resource
    except ImportError:  # not on Windows: this process only
        return time.process_time()
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
