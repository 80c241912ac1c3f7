"""``bellum empire sync``: a live game's state into a world database.

The password comes from ``--password-file``, else the ``BELLUM_PASSWORD``
environment variable, else a prompt; it is never stored and never logged.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import click

from bellum.cli.empire import empire
from bellum.client.live import sync
from bellum.client.session import DEFAULT_TIMEOUT, Session, parse_address
from bellum.empire.service import DEFAULT_DB
from bellum.errors import InputError

#: The environment variable a password may come from.
PASSWORD_ENV = "BELLUM_PASSWORD"


def read_password(country: str, path: Path | None) -> str:
    """The password from ``path``'s first line, else ``$BELLUM_PASSWORD``, else a prompt."""
    if path is not None:
        try:
            lines = path.read_text("utf-8").splitlines()
        except OSError as exc:
            raise InputError(f"{path}: cannot read the password: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise InputError(f"{path}: not a text file") from None
        return lines[0] if lines else ""
    if PASSWORD_ENV in os.environ:
        return os.environ[PASSWORD_ENV]
    if sys.stdin.isatty():
        return str(click.prompt(f"Password for {country}", hide_input=True, err=True))
    line = sys.stdin.readline()  # piped: the first line, nothing echoed
    if not line:
        raise InputError(
            f"no password for {country}: give --password-file, set {PASSWORD_ENV} or type it"
        )
    return line.rstrip("\r\n")


def server_options(f: click.decorators.FC) -> click.decorators.FC:
    """How to reach and log in to a server: ``--country``, ``--password-file``, ``--timeout``,
    ``--verbose``."""
    f = click.option(
        "--verbose",
        "-v",
        is_flag=True,
        help="Log every line sent and received on standard error (passwords masked).",
    )(f)
    f = click.option(
        "--timeout",
        type=click.FloatRange(min=0.1),
        default=DEFAULT_TIMEOUT,
        show_default=True,
        help="Seconds to wait for the server before giving up.",
    )(f)
    f = click.option(
        "--password-file",
        type=click.Path(dir_okay=False, path_type=Path),
        help=f"Read the password from this file's first line (else ${PASSWORD_ENV}, else ask).",
    )(f)
    return click.option(
        "--country", required=True, help="The country to log in as (the deity's too)."
    )(f)


def open_session(
    address: str, country: str, password_file: Path | None, timeout: float, verbose: bool
) -> Session:
    parse_address(address)  # a malformed address is a usage error before any prompt
    if verbose:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        log = logging.getLogger("bellum.client")
        log.addHandler(handler)
        log.setLevel(logging.DEBUG)
    password = read_password(country, password_file)
    return Session.open(address, country=country, password=password, timeout=timeout)


@empire.command("sync")
@click.argument("address", metavar="HOST:PORT")
@server_options
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_DB,
    show_default=True,
    help="The world database (created if missing).",
)
def sync_cmd(
    address: str,
    country: str,
    password_file: Path | None,
    timeout: float,
    verbose: bool,
    db: Path,
) -> None:
    """Read a live game from the server at HOST:PORT into a world database.

    Every table the country may see is read with xdump and stored as a new
    version of the world, with its own entry in `bellum empire history`.  A
    player sees only their own sectors and units: the rest stays unknown (fog
    of war, see docs/live.md); the deity sees the whole game.
    """
    with open_session(address, country, password_file, timeout, verbose) as session:
        done = sync(session, db)
    click.echo(f"{db}: {done.summary()}")
