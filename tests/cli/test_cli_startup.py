"""Start-up stays light: the command line imports a group only when one of its commands runs.

Timing belongs to ``benchmarks/startup.py``; these tests check what makes it fast.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest

from bellum.cli.app import LazyGroup, cli

#: Modules that ``bellum --help`` must not import.
HEAVY = [
    "numpy",
    "numba",
    "matplotlib",
    "sqlite3",
    "tqdm",
    "bellum.dice",
    "bellum.empire",
    "bellum.odds",
    "bellum.panzer",
]


def loaded_after(*argv: str) -> set[str]:
    code = (
        "import sys\n"
        "from bellum.cli import main\n"
        "try:\n"
        f"    main({list(argv)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stderr.split())


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["no-such-command"]])
def test_the_root_command_imports_nothing_heavy(argv: list[str]) -> None:
    assert not loaded_after(*argv) & set(HEAVY)


def test_a_group_is_imported_when_its_command_runs() -> None:
    loaded = loaded_after("panzer", "--help")
    assert "bellum.cli.panzer" in loaded
    assert "bellum.cli.empire" not in loaded
    assert "bellum.cli.odds" not in loaded


def test_a_mistyped_odds_order_is_refused_before_the_engine_loads() -> None:
    """``board`` without FROM: a usage error that costs no numpy, no odds engine, no
    database and no live-server client (issue 23: a typo answered at once)."""
    world = str(Path(__file__).resolve().parents[2] / "examples/empire/vector-a.toml")
    loaded = loaded_after("empire", "odds", "board", "3,-1", "--as", "1", "--world", world)
    assert "bellum.cli.empire_odds" in loaded  # the command did run
    assert not loaded & {
        "numpy",
        "bellum.empire.odds.engine",
        "bellum.empire.service",
        "bellum.empire.io.toml",
        "sqlite3",
        "bellum.client.live",
        "concurrent.futures",
    }


@pytest.mark.parametrize(
    "argv",
    [
        ["panzer", "rules"],
        ["empire", "odds", "--no-such-option"],
        ["empire", "odds", "attack", "2,0", "--as", "1", "--need", "2"],
        ["odds", "fight", "--att", "150", "--def", "40", "--max-runs", "-3"],
        ["odds", "fight", "--att", "150"],
    ],
)
def test_commands_that_run_no_engine_do_not_import_numpy(argv: list[str]) -> None:
    """The rules table and usage errors need no engine: ``bellum.odds`` and
    ``bellum.panzer`` import their names on first use."""
    loaded = loaded_after(*argv)
    assert loaded & {"bellum.cli.empire_odds", "bellum.cli.panzer", "bellum.cli.odds"}
    assert "numpy" not in loaded


def test_the_odds_package_imports_its_names_on_first_use() -> None:
    code = (
        "import sys, bellum.odds.report as r; import bellum.odds as o; "
        "print('bellum.odds.engine' in sys.modules, o.Side.__name__, o.fight_odds.__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "Side", "fight_odds"]


def test_one_plan_imports_no_process_pool() -> None:
    """A study forks workers only for plans worth it; one plan pays no pool's imports."""
    world = str(Path(__file__).resolve().parents[2] / "examples/empire/vector-a.toml")
    argv = ["empire", "odds", "attack", "2,0", "--mil", "0,0=150", "--as", "1"]
    loaded = loaded_after(*argv, "--world", world, "--seed", "1", "--json")
    assert "bellum.empire.odds.engine" in loaded  # the plan was solved
    assert not loaded & {"multiprocessing", "concurrent.futures"}


def test_importing_bellum_does_not_import_numpy() -> None:
    code = "import sys, bellum; print('numpy' in sys.modules, bellum.ServerRandom.__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "ServerRandom"]


def lazy_entries() -> list[tuple[LazyGroup, str]]:
    """Every lazy subcommand of every lazy group, loading each group on the way."""
    found, todo = [], [cli]
    ctx = click.Context(cli)
    while todo:
        group = todo.pop()
        for name in group.lazy:
            found.append((group, name))
            command = group.get_command(ctx, name)
            if isinstance(command, LazyGroup):
                todo.append(command)
    return found


@pytest.mark.parametrize(
    ("group", "name"), lazy_entries(), ids=lambda x: x if isinstance(x, str) else x.name
)
def test_the_help_a_lazy_table_shows_is_the_commands_own(group: LazyGroup, name: str) -> None:
    command = group.get_command(click.Context(group), name)
    assert command is not None
    assert group.lazy[name][1] == command.get_short_help_str(limit=1000)


def test_unknown_attribute_of_bellum_is_an_attribute_error() -> None:
    import bellum

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = bellum.nope  # type: ignore[attr-defined]
