"""``bellum odds``: outcome distributions of raw fights."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from bellum.cli.app import cli, one_blas_thread
from bellum.cli.options import Real, Whole, echo_json, seed_option
from bellum.cli.progress import progress_fraction
from bellum.errors import InputError, UsageError
from bellum.odds.limits import DEFAULT_MAX_MEMORY, DEFAULT_MAX_RUNS, MAX_ROUNDS, MODELS, Method
from bellum.term import use_color

if TYPE_CHECKING:
    from bellum.odds.side import Side


@cli.group()
def odds() -> None:
    """Exact and Monte Carlo outcome distributions of fights."""


#: Largest --att-mult / --def-mult: far above any Empire multiplier, and small enough that
#: troops times multiplier stays an exact, finite strength.
MAX_MULT = 1e6


def _side(n: int, mult: float, label: str, options: str) -> Side:
    """A side from option values; what the side refuses is a bad option (exit status 2)."""
    from bellum.odds.side import Side

    try:
        return Side.troops(n, mult, label=label)
    except InputError as exc:
        raise UsageError(f"{options}: {exc}") from None


@odds.command()
@click.option("--att", "att", type=Whole(1, MAX_ROUNDS), required=True, help="Attacking troops.")
@click.option("--def", "dfd", type=Whole(1, MAX_ROUNDS), required=True, help="Defending troops.")
@click.option(
    "--att-mult",
    type=Real(0, MAX_MULT, min_open=True),
    default=1.0,
    show_default=True,
    help="Attack strength per soldier (e.g. 2.0 from a fortress).",
)
@click.option(
    "--def-mult",
    type=Real(0, MAX_MULT, min_open=True),
    default=1.0,
    show_default=True,
    help="Defense strength per soldier (sector defense multiplier).",
)
@click.option(
    "--model",
    type=click.Choice(MODELS),
    default="server",
    show_default=True,
    help="server: the 4.4.1 loop (jitter, 9-51 round windows); "
    "per-casualty: odds recomputed after every casualty (info page).",
)
@click.option("--exact", "force_exact", is_flag=True, help="Force the exact solver.")
@click.option(
    "--exact-unpruned",
    "unpruned",
    is_flag=True,
    help="Force the exact solver and drop no state (by default states of negligible "
    "probability are dropped, at most 1e-12 in all, reported as the pruned mass).",
)
@click.option("--monte-carlo", "force_mc", is_flag=True, help="Force Monte Carlo.")
@click.option("--runs", type=Whole(1), default=None, help="Monte Carlo runs (implies Monte Carlo).")
@click.option(
    "--target-error",
    type=Real(0, 1, min_open=True),
    default=None,
    help="Run Monte Carlo until the standard error of P(win) is at most this.",
)
@click.option(
    "--max-runs",
    type=Whole(1),
    default=DEFAULT_MAX_RUNS,
    show_default=True,
    help="Run cap for --target-error.",
)
@seed_option("Monte Carlo seed (printed if not given).")
@click.option(
    "--max-memory",
    type=Whole(1),
    default=DEFAULT_MAX_MEMORY // 2**20,
    show_default=True,
    help="Memory allowed to the exact solver, in MB.",
)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also plot the distributions to FILE (.png, .pdf, .svg, ...; needs bellum[plot]).",
)
@click.option("--force", is_flag=True, help="Let --plot replace a file that is not an image.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON document (docs/odds.md).")
def fight(
    att: int,
    dfd: int,
    att_mult: float,
    def_mult: float,
    model: str,
    force_exact: bool,
    unpruned: bool,
    force_mc: bool,
    runs: int | None,
    target_error: float | None,
    max_runs: int,
    seed: int | None,
    max_memory: int,
    plot: Path | None,
    force: bool,
    as_json: bool,
) -> None:
    """Odds of ATT troops attacking DEF troops until one side is gone.

    Exact by default; Monte Carlo above a size threshold (docs/odds.md).
    """
    if (force_exact or unpruned) and force_mc:
        exact_flag = "--exact-unpruned" if unpruned else "--exact"
        raise UsageError(f"choose one of {exact_flag} and --monte-carlo")
    one_blas_thread()
    from bellum.odds.engine import fight_odds
    from bellum.odds.report import plot_format, render_text, to_json_dict, write_plot

    if plot is not None:
        plot_format(plot, force=force)
    method: Method = "exact" if force_exact or unpruned else "monte-carlo" if force_mc else "auto"
    attacker = _side(att, att_mult, "attacker", "--att and --att-mult")
    defender = _side(dfd, def_mult, "defender", "--def and --def-mult")
    with progress_fraction("Monte Carlo") as bar:
        result = fight_odds(
            attacker,
            defender,
            model="server" if model == "server" else "per-casualty",
            method=method,
            runs=runs,
            target_error=target_error,
            max_runs=max_runs,
            seed=seed,
            max_memory=max_memory * 2**20,
            prune=not unpruned,
            progress=bar,
        )
    for note in result.notes:
        click.echo(f"bellum: warning: {note}", err=True)
    if plot is not None:
        write_plot(result, plot, force=force)
    if as_json:
        doc = to_json_dict(result)
        doc["inputs"] = {
            "att": att,
            "def": dfd,
            "att_mult": att_mult,
            "def_mult": def_mult,
        }
        echo_json("bellum.odds.fight", 1, doc, indent=None)
        return
    click.echo(
        f"attacker {att} troops x{att_mult:g} (strength {attacker.initial_strength:g}) vs "
        f"defender {dfd} troops x{def_mult:g} (strength {defender.initial_strength:g})"
    )
    click.echo(render_text(result, color=use_color()))
    if plot is not None:
        click.echo(f"plot written to {plot}")
