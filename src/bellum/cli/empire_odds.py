"""``bellum empire odds``: the odds of a command before you type it for real.

``bellum empire odds attack 2,0``, ``... assault 2,0 5``, ``... paradrop 0/1/2
'' 0,0 2,0``, ``... board 5 0,0``, ``... lboard 3 0,0``: the command and its
own arguments, then the answers as options named after what the prompts ask
(``--mil SECT=N``, ``--mil ship=N`` or ``--mil SHIP=N``, ``--unit ID``).  The old form
``bellum empire odds TARGET`` still means ``attack TARGET``.  The library does
the work (:mod:`bellum.empire.odds`); this module reads options and prints.
"""

from __future__ import annotations

import atexit
import gc
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from bellum.cli.app import one_blas_thread
from bellum.cli.empire import (
    CoordCommand,
    _country,
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
from bellum.collector import fewer_collections
from bellum.empire.combat import COMMANDS
from bellum.empire.orders import Order
from bellum.empire.rules import Rules
from bellum.errors import InputError, UsageError
from bellum.numbers import shown, to_int
from bellum.term import use_color

if TYPE_CHECKING:
    from bellum.empire.odds.study import Study, Sweep


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


def _sweep(text: str) -> Sweep:
    from bellum.empire.odds.study import MAX_PLANS, Sweep

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
    return Sweep(where.strip(), tuple(range(lo, hi + 1, step)))


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
    type=Real(0, min_open=True),
    default=1024,
    show_default=True,
    metavar="MB",
    help="Memory the exact solver may use (more: sample); fractions of a MB too, as a"
    " turn plan's odds lines give it.",
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
@fewer_collections()
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
    max_memory: float,
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
    order = _order(words)
    one_blas_thread()
    _freeze_at_exit()
    # The odds engine (numpy, the solver) is imported once the command line is
    # known to be well formed: a mistyped order is refused without it.
    from bellum.empire.odds.engine import CommandUsage, MoreThanAsked
    from bellum.empire.odds.study import Clock, Request, prepare

    clock = Clock()
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
    _usage(world, assume, fog_draws, defense_as_seen, resolver_runs)
    request = Request(
        order, mil=mil, units=units, no_units=no_units, yes=yes,
        sweep=None if sweep is None else _sweep(sweep), need=need,
        defense_as_seen=defense_as_seen, prior=weights if prior is not None else None,
        rules=rules, seed=seed, target_error=target_error, max_samples=max_runs,
        max_memory=int(max_memory * 2**20), resolver_runs=resolver_runs, jobs=jobs,
        assume=assume, fog_draws=fog_draws,
    )  # fmt: skip
    try:
        prepared = prepare(world, me.cnum, request, clock=clock)
    except CommandUsage as exc:
        click.echo(str(exc))
        sys.exit(exc.exit_status)
    except MoreThanAsked as exc:  # worded as the command words it, with --mil as typed
        raise UsageError(
            f"--mil {exc.value}={exc.n}: at most {exc.most} mil can go from {exc.where}"
        ) from None
    for warning in prepared.warnings:
        click.echo(f"bellum: warning: {warning}", err=True)
    if len(prepared.plans) > 1 and plot is not None:
        raise UsageError("--plot goes with one plan: give each --mil source once and no --sweep")
    click.echo(
        f"seed: {prepared.seed}"
        + ("" if seed is not None else f" (replay with --seed {prepared.seed})"),
        err=True,
    )
    with _bars(resolver_runs) as bar:
        done = prepared.run(bar)
    if done.need is not None and done.need.total is None:
        _echo(done, as_json=as_json, plot=None)
        best = 100 * done.p_success
        raise InputError(
            f"even everything the command allows succeeds only {best:.2f}% of the time"
        )
    if plot is not None:
        from bellum.odds.report import write_plot

        write_plot(done.odds.odds, plot, force=force)
    _echo(done, as_json=as_json, plot=plot)


@cache
def _freeze_at_exit() -> None:
    """Spare the process the collector's last passes when it exits.

    Python's finalization passes the collector over every object left: the world, its
    freeze and the engine's caches, 20-30 ms of CPU after the answer is printed
    (w96x48-attack-1: 0.027-0.035 s after ``main``; 0.008-0.013 with the heap frozen).
    Frozen at exit, they are freed with the process instead (exit handlers run last
    registered first, so this runs before those that were there before the command).
    """
    atexit.register(gc.freeze)


def _usage(
    world: Any,
    assume: tuple[str, ...],
    fog_draws: int | None,
    defense_as_seen: bool,
    resolver_runs: int | None,
) -> None:
    """The options that go with a player's view, or with a whole world, said as options."""
    if world.fog is None and (assume or fog_draws is not None):
        what = "--assume" if assume else "--fog-draws"
        raise UsageError(
            f"{what} goes with a player's view of a game (bellum empire sync as a"
            " player): this world is the whole game"
        )
    if world.fog is not None and defense_as_seen:
        raise UsageError(
            "--defense-as-seen is for a whole world: on a player's view the odds already"
            " come from what the country saw"
        )
    if world.fog is not None and resolver_runs is not None:
        raise UsageError(
            "--resolver-runs plays the command on the whole world; a player's view has"
            " only what the country saw"
        )


@contextmanager
def _bars(resolver_runs: int | None) -> Iterator[Callable[[str, float], None]]:
    """One bar per stage of the study, each opened when its stage starts."""
    labels = {"need": "--need"}
    with ExitStack() as stack:
        shown_stage: list[Any] = [None, None]

        def report(stage: str, done: float) -> None:
            if shown_stage[0] != stage:
                stack.close()
                total = resolver_runs if stage == "resolver runs" else None
                bar = progress_fraction(labels.get(stage, stage), total=total, delay=DELAY)
                shown_stage[:] = [stage, stack.enter_context(bar)]
            shown_stage[1](done)

        yield report


def _echo(done: Study, *, as_json: bool, plot: Path | None) -> None:
    """The study as text or as its JSON document."""
    from bellum.empire.odds.report import comparison, render, render_resolver

    if as_json:
        doc = done.to_json()
        echo_json(doc["schema"], 1, doc, indent=None)
        return
    inputs = done.inputs_text()
    if len(done.rows) > 1:
        click.echo(comparison([(row.label, row.odds) for row in done.rows]))
        if inputs is not None:
            click.echo(inputs)
        return
    odds = done.odds
    timed = replace(odds, odds=replace(odds.odds, seconds=done.seconds),
                    cpu_seconds=done.cpu_seconds)  # fmt: skip
    if done.need is not None and done.need.total is not None:
        click.echo(_need_line(done.need, odds))
    click.echo(render(timed, color=use_color()))
    if inputs is not None:
        click.echo(inputs)
    if done.resolver is not None:
        click.echo(render_resolver(odds, done.resolver))
    if plot is not None:
        click.echo(f"plot written to {plot}")


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
