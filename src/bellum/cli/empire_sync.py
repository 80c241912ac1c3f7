"""``bellum empire sync``: a live game's state into a world database (docs/live.md).

Logging in is :mod:`bellum.cli.live_server`'s; the ``--live`` option of the combat
commands is there too.
"""

from __future__ import annotations

from pathlib import Path

import click

from bellum.cli.empire import empire
from bellum.cli.live_server import login_options, open_session
from bellum.empire.service import DEFAULT_DB


@empire.command("sync")
@click.argument("address", metavar="HOST:PORT")
@login_options
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_DB,
    show_default=True,
    help="The world database (created if missing).",
)
@click.option(
    "--spend-btus",
    is_flag=True,
    help="Also look around (costs BTUs, 1 each): lookout from your ships, llookout from your"
    " land units, coastwatch over your sectors.",
)
@click.option(
    "--risk-spies",
    is_flag=True,
    help="Also spy from your sectors on their neighbours (costs BTUs; a spy caught at war"
    " is shot, costing a mil, and its owner is told).",
)
def sync_cmd(
    address: str,
    country: str,
    password_file: Path | None,
    timeout: float,
    verbose: bool,
    db: Path,
    spend_btus: bool,
    risk_spies: bool,
) -> None:
    """Read a live game from the server at HOST:PORT into a world database.

    Every table the country may see is read with xdump and stored as a new
    version of the world, with its own entry in `bellum empire history`.  A
    player sees only their own sectors and units: the rest stays unknown (fog
    of war, see docs/live.md) but what its reports show: its bmap and the
    `report` of the other countries, and with --spend-btus and --risk-spies
    what lookouts and spies see (docs/fog.md).  The deity sees the whole game.
    """
    from bellum.client.intel import Gather
    from bellum.client.live import sync

    with open_session(address, country, password_file, timeout, verbose) as session:
        done = sync(session, db, Gather(spend_btus=spend_btus, risk_spies=risk_spies))
    click.echo(f"{db}: {done.summary()}")
