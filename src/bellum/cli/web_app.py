"""``bellum serve``: the planning table in the browser (needs the ``web`` extra).

Like Datasette's ``serve``, this module only builds the app and hands it to uvicorn;
``--get PATH`` sends one request through the app in process instead, a smoke test.
Everything it needs beyond click is imported when the command runs, so that loading
the command for ``bellum --help`` costs nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from bellum.cli.app import cli
from bellum.cli.options import Whole
from bellum.errors import BellumError, UsageError
from bellum.numbers import shown

if TYPE_CHECKING:
    import socket

EXTRA_HINT = "bellum serve needs the web extra: pip install 'bellum[web]'"
DEFAULT_PORT = 8001


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything is printed: a taken port is one line."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except (TypeError, UnicodeError):  # a NUL in the name, a label the resolver cannot encode
        sock.close()
        raise UsageError(f"--host: '{shown(host)}' is not a host name or address") from None
    except OSError as exc:
        sock.close()
        if exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
            raise BellumError(
                f"port {port} on {host} is already in use: choose another with --port"
                " (--port 0 picks a free one)"
            ) from None
        if exc.errno in (13, 10013):
            raise BellumError(f"not allowed to listen on {host}:{port}: {exc.strerror}") from None
        raise BellumError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


def asgi_get(app: Any, path: str) -> tuple[int, bytes]:
    """One GET request through an ASGI app, in process: (status, body)."""
    import asyncio

    if not path.startswith("/"):
        raise UsageError(f"--get {path}: a path starts with /, such as /empire")
    raw_path, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": raw_path,
        "raw_path": raw_path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), (b"user-agent", b"bellum-serve-get")],
        "client": ("127.0.0.1", 0),
        "server": ("127.0.0.1", 80),
    }
    status = 500
    body = bytearray()

    asked = False

    async def receive() -> dict[str, Any]:
        # The request, then (asked again only by a response that streams, such as the
        # event stream) a disconnect after a second: --get prints what came in that time.
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(1.0)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
        elif message["type"] == "http.response.body":
            body.extend(message.get("body", b""))

    asyncio.run(app(scope, receive, send))
    return status, bytes(body)


@cli.command("serve", short_help="The planning table in your browser (Empire and Panzer).")
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    help="An Empire world database (default ./bellum.db when nothing else is given).",
)
@click.option(
    "--world",
    "world_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="An Empire world file, served as a scratch copy (the file is never written).",
)
@click.option(
    "--scenario",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A Panzer Campaigns scenario file.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Interface to listen on; any other than loopback requires the printed access token.",
)
@click.option(
    "-p",
    "--port",
    type=Whole(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="Port (0 picks a free one).",
)
@click.option("--token", help="Access token to require (made up for you with a non-local --host).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a web browser.")
@click.option(
    "--get",
    "get_path",
    metavar="PATH",
    help="Send one GET request through the app, print the response and exit (non-zero unless 200).",
)
def serve_cmd(
    db: Path | None,
    world_path: Path | None,
    scenario: Path | None,
    host: str,
    port: int,
    token: str | None,
    open_browser: bool,
    get_path: str | None,
) -> None:
    """Serve the planning table: the Empire map and planner, and the Panzer battlefield.

    Listens on 127.0.0.1 (this machine only) and prints the address; Ctrl-C stops it.
    Nothing is written but the commands you fight, each in one transaction of the
    database, which also keeps their history.
    """
    try:
        import uvicorn

        from bellum.web import create_app
        from bellum.web.app import LOOPBACK_HOSTS
    except ImportError:
        raise BellumError(EXTRA_HINT) from None
    if db is not None and world_path is not None:
        raise UsageError("give either --db or --world, not both")
    if not host.strip():
        raise UsageError("--host: give an interface, such as 127.0.0.1 (or 0.0.0.0 for all)")
    from bellum.fileio import check_regular

    for option, path, what in (
        ("--db", db, "bellum database"),
        ("--world", world_path, "world file"),
        ("--scenario", scenario, "scenario"),
    ):
        if path is not None:
            try:
                check_regular(path, what)  # a FIFO would block the first request for ever
            except BellumError as exc:
                raise BellumError(f"{option} {exc}") from None
    if get_path is not None:
        app = create_app(db, world=world_path, scenario=scenario)
        status, body = asgi_get(app, get_path)
        click.echo(body.decode("utf-8", "replace"), nl=False)
        if status != 200:
            click.echo(f"bellum: error: GET {get_path} answered {status}", err=True)
            sys.exit(1)
        return
    local = _is_loopback(host)
    if not local and token is None:
        import secrets

        token = secrets.token_urlsafe(18)
    app = create_app(
        db,
        world=world_path,
        scenario=scenario,
        token=token,
        hosts=LOOPBACK_HOSTS if local else None,
    )
    sock = _bind(host, port)
    shown_host = f"[{host.strip('[]')}]" if ":" in host else host
    url = f"http://{shown_host}:{sock.getsockname()[1]}/"
    if token is not None:
        url += f"?token={token}"
    served = []
    state = app.state.bellum
    if state.empire is not None:
        served.append(f"Empire {state.empire.label}")
    if state.panzer is not None:
        served.append(f"Panzer {state.panzer.path}")
    click.echo(f"bellum serve: {', '.join(served)}")
    click.echo(f"Listening on {url}  (Ctrl-C to stop)")
    if not local:
        click.echo(
            f"Anyone who can reach {host} may connect: give the token only to your players.",
            err=True,
        )
    if open_browser:
        import threading
        import webbrowser

        opener = threading.Timer(0.5, webbrowser.open, args=(url,))
        opener.daemon = True  # a Ctrl-C in the first half second does not wait for it
        opener.start()
    stopping = state.stopping

    class Server(uvicorn.Server):
        """Tells the app at the first Ctrl-C, so open event streams end at once and the
        shutdown does not wait for them."""

        def handle_exit(self, sig: int, frame: Any) -> None:
            stopping.set()
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    click.echo("bellum serve: stopped")


__all__ = ["asgi_get", "serve_cmd"]
