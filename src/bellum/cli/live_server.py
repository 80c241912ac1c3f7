"""How the command line reaches a live Empire server (docs/live.md).

Two option groups: :func:`login_options` for ``bellum empire sync`` and
:func:`live_options`, the ``--live`` group of the five combat commands, whose
order :func:`play_live` plays on the server instead of by bellum's rules.

A password comes from a file, else an environment variable, else a hidden
prompt on the terminal; never from the command line (other users could read
it in the process list), never stored, never logged.  :mod:`bellum.client` is
imported only when a server is used, so every other command starts as fast.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from bellum.cli.options import HiddenAliases, Real
from bellum.empire.rules import parse_options
from bellum.empire.world import DEITY_NAME, World
from bellum.errors import InputError, UsageError
from bellum.fileio import read_input
from bellum.numbers import shown

if TYPE_CHECKING:
    from bellum.client.live import LiveGame, Played
    from bellum.client.session import SeedCounter, Session
    from bellum.empire.events import Prompter, Sink
    from bellum.empire.orders import Order

#: Where a password may come from when there is no file: the player's, the deity's.
PASSWORD_ENV = "BELLUM_PASSWORD"
DEITY_PASSWORD_ENV = "BELLUM_DEITY_PASSWORD"
#: The largest password file read (its first line is the password).
PASSWORD_FILE_BYTES = 64 * 1024
#: Seconds to wait for the server (bellum.client.session.DEFAULT_TIMEOUT, kept here so
#: that building the options does not import the client).
TIMEOUT = 30.0


def read_password(country: str, path: Path | None, env: str, option: str, *, stdin_ok: bool) -> str:
    """The password from ``path``'s first line, else ``$env``, else a hidden prompt.

    With ``stdin_ok`` piped standard input gives it on its first line; a combat
    command keeps standard input for the server's questions.
    """
    if path is not None:
        # A few KB from a regular file or a pipe (a password manager's `<(...)`); a
        # device such as /dev/zero is refused, and nothing is read past the limit.
        data = read_input(path, "password file", limit=PASSWORD_FILE_BYTES, pipes=True)
        try:
            lines = data.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            raise InputError(f"{path}: not a text file") from None
        return lines[0] if lines else ""
    if env in os.environ:
        return os.environ[env]
    if sys.stdin.isatty():
        return str(click.prompt(f"Password for {country}", hide_input=True, err=True))
    if not stdin_ok:
        raise InputError(
            f"no password for {shown(country)}: give {option} or set {env} (standard input is"
            " for the answers to the server's questions)"
        )
    line = sys.stdin.readline(PASSWORD_FILE_BYTES)  # piped: the first line, nothing echoed
    if not line:
        raise InputError(f"no password for {shown(country)}: give {option}, set {env} or type it")
    return line.rstrip("\r\n")


def log_protocol() -> None:
    """Every line sent and received, on standard error (passwords masked)."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log = logging.getLogger("bellum.client")
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)


def connect(
    address: str,
    country: str,
    password: str,
    timeout: float,
    seeds: SeedCounter | None = None,
) -> Session:
    from bellum.client.session import Session

    return Session.open(address, country=country, password=password, timeout=timeout, seeds=seeds)


def check_address(address: str) -> None:
    """A malformed ``HOST:PORT`` is a usage error, before any password is asked."""
    from bellum.client.session import parse_address

    parse_address(address)


# -- bellum empire sync ---------------------------------------------------------------


def _timeout_option(text: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return click.option(
        "--timeout",
        type=Real(min=0.1),
        metavar="SECONDS",
        default=TIMEOUT,
        show_default=True,
        help=text,
    )


def _file_option(name: str, text: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return click.option(name, type=click.Path(dir_okay=False, path_type=Path), help=text)


def login_options(f: Callable[..., None]) -> Callable[..., None]:
    """How ``sync`` logs in: ``--as``, ``--password-file``, ``--timeout``, ``--verbose``.

    ``--country``, the name ``sync`` had first, still works and is not shown.
    """
    f = click.option(
        "--verbose",
        "-v",
        is_flag=True,
        help="Log every line sent and received on standard error (passwords masked).",
    )(f)
    f = _timeout_option("Seconds to wait for the server before giving up.")(f)
    f = _file_option(
        "--password-file",
        f"Read the password from this file's first line (else ${PASSWORD_ENV}, else ask).",
    )(f)
    return click.option(
        "--as",
        "--country",
        "country",
        cls=HiddenAliases,
        required=True,
        metavar="COUNTRY",
        help="The country to log in as: number or name (the deity's too).",
    )(f)


def open_session(
    address: str, country: str, password_file: Path | None, timeout: float, verbose: bool
) -> Session:
    check_address(address)
    if verbose:
        log_protocol()
    password = read_password(country, password_file, PASSWORD_ENV, "--password-file", stdin_ok=True)
    return connect(address, country, password, timeout)


# -- --live on the combat commands ----------------------------------------------------


def live_options(f: Callable[..., None]) -> Callable[..., None]:
    """``--live HOST:PORT`` and what goes with it, for the five combat commands."""
    options = (
        click.option(
            "--live",
            metavar="HOST:PORT",
            help="Fight on the Empire server at HOST:PORT instead of by bellum's rules: log in"
            " as --as (a country name), relay its questions, print its transcript as sent,"
            " sync the world into --db and record the order there (docs/live.md).",
        ),
        _file_option(
            "--password-file",
            f"With --live: --as's password is this file's first line (else ${PASSWORD_ENV},"
            " else asked on the terminal).",
        ),
        click.option(
            "--check",
            is_flag=True,
            help="With --live, on a server in test mode (econfig running_test_suite 1): also"
            " resolve the order by bellum's rules with the server's seed (read as the deity)"
            " and report whether the two transcripts match byte for byte (exit 1 if not).",
        ),
        click.option(
            "--deity",
            metavar="NAME",
            default=DEITY_NAME,
            show_default=True,
            help="With --check: the deity account that reads the whole game for bellum's side.",
        ),
        _file_option(
            "--deity-password-file",
            f"With --check: the deity's password file (else ${DEITY_PASSWORD_ENV}, else"
            " asked on the terminal).",
        ),
        _timeout_option("With --live: seconds to wait for the server before giving up."),
    )
    for option in reversed(options):
        f = option(f)
    return f


@dataclass(frozen=True)
class LiveRequest:
    """The ``--live`` group's values for one command."""

    address: str
    password_file: Path | None
    check: bool
    deity: str
    deity_password_file: Path | None
    timeout: float


def live_request(values: dict[str, Any], **local: Any) -> LiveRequest | None:
    """The ``--live`` request in a command's option ``values``, or ``None`` to resolve
    locally.  ``local`` are the local-only options given (``--seed`` ...): refused live."""
    address = values.pop("live")
    request = LiveRequest(address, **values)
    if address is None:
        given = {
            "--check": request.check,
            "--password-file": request.password_file is not None,
            "--deity-password-file": request.deity_password_file is not None,
        }
        for name, used in given.items():
            if used:
                raise UsageError(f"{name} goes with --live HOST:PORT")
        return None
    for name, value in local.items():
        if value:
            raise UsageError(
                f"--{name.replace('_', '-')} does not apply with --live: the server resolves"
                " the order"
            )
    check_address(address)
    return request


def play_live(
    request: LiveRequest,
    order: Order,
    *,
    country: str,
    db: Path,
    prompter_for: Callable[[World], Prompter],
    sink: Sink | None,
    as_json: bool,
    profile: str | None,
    options: tuple[str, ...],
) -> int:
    """Play ``order`` on the server as ``country``; returns the exit status (1: the
    check found a difference).  ``prompter_for`` makes the prompter once the
    account's view of the game is synced (answers by kind may need its sectors);
    ``profile`` and ``options`` are the rules of the check's local resolution (the
    server has its own)."""
    from bellum.cli.progress import progress
    from bellum.client.count import read_count
    from bellum.client.live import LiveGame

    if (profile or options) and not request.check:
        raise UsageError("--profile and --option go with --live only for --check's resolution")
    run_profile, overrides = parse_options(options, profile)  # checked before connecting

    password = read_password(
        country, request.password_file, PASSWORD_ENV, "--password-file", stdin_ok=False
    )
    deity_password = None
    if request.check:
        deity_password = read_password(
            request.deity,
            request.deity_password_file,
            DEITY_PASSWORD_ENV,
            "--deity-password-file",
            stdin_ok=False,
        )
    if deity_password is None:
        with connect(request.address, country, password, request.timeout) as me:
            game = LiveGame(me, db)
            done = _interruptible(
                game, lambda: game.play(order, prompter=prompter_for(game.world), sink=sink)
            )
        report(done, db, None, as_json=as_json)
        return 0
    with connect(request.address, request.deity, deity_password, request.timeout) as god:
        with progress("reading the server's command count", unit="count") as advance:
            seeds = read_count(god, on_step=advance)
        with connect(request.address, country, password, request.timeout, seeds) as me:
            game = LiveGame(me, db)
            done = _interruptible(
                game,
                lambda: game.play(
                    order,
                    prompter=prompter_for(game.world),
                    sink=sink,
                    check=god,
                    profile=run_profile,
                    overrides=overrides,
                ),
            )
    report(done, db, seeds, as_json=as_json)
    return 1 if done.check is not None and not done.check.same else 0


def _interruptible(game: LiveGame, play: Callable[[], Played]) -> Played:
    """``play()``; after Ctrl-C at a question the session aborted the order, the server
    finished it and the history recorded it: say so rather than "nothing was saved"."""
    try:
        return play()
    except KeyboardInterrupt:
        if game.entry is None:
            raise
        click.echo(
            f"\nInterrupted: the server aborted the order and finished it; {game.db} records"
            f" what it did (history entry {game.entry})",
            err=True,
        )
        sys.exit(130)


def report(done: Played, db: Path, seeds: SeedCounter | None, *, as_json: bool) -> None:
    """The JSON document on standard output, or the tool's notes on standard error."""
    if as_json:
        doc = done.to_json()
        doc["commands_run"] = seeds.commands if seeds is not None else None
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo(f"{db}: history entry {done.entry} (the server's transcript)", err=True)
    check = done.check
    if check is not None:
        lines = done.transcript.text().count("\n")
        if check.same:
            click.echo(
                f"check: bellum's resolution with seed {check.seed} matches the server's"
                f" transcript byte for byte ({lines} lines)",
                err=True,
            )
        else:
            click.echo(f"check: bellum differs from the server (seed {check.seed}):", err=True)
            for d in check.differences:
                click.echo(f"  {d}", err=True)
    if seeds is not None:
        click.echo(
            f"commands run: {seeds.commands} (the server's count, which --check set to 0)",
            err=True,
        )
