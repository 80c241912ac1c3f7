"""The client is an edge: the rules and the store never import it, and its core does no I/O."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import bellum
from bellum.cli.live_server import TIMEOUT
from bellum.client.session import DEFAULT_TIMEOUT

SRC = Path(bellum.__file__).parent


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_client_layering_only_edges_import_the_client() -> None:
    for path in SRC.rglob("*.py"):
        part = path.relative_to(SRC).parts[0]
        if part in ("client", "cli"):
            continue
        users = {m for m in imports(path) if m == "bellum.client" or m.startswith("bellum.client.")}
        assert not users, f"{path.relative_to(SRC)} imports {users}"


def test_client_layering_the_protocol_core_does_no_io() -> None:
    for name in ("protocol.py", "events.py", "errors.py"):
        assert not imports(SRC / "client" / name) & {"socket", "select", "asyncio", "sys", "os"}


def test_client_layering_the_command_line_loads_the_client_only_to_use_it() -> None:
    """Every other command starts without the socket layer (start-up time)."""
    code = "import sys, bellum.cli; print(sorted(m for m in sys.modules if 'client' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_client_layering_the_command_line_waits_as_long_as_the_client() -> None:
    assert TIMEOUT == DEFAULT_TIMEOUT  # the option's default, kept without importing the client
