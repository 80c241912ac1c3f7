"""Every command the README, docs/ and the example files show runs as printed.

The commands are taken from the ``sh`` and ``console`` code blocks of README.md and
docs/*.md, and from the ``#   bellum ...`` lines at the top of the example files.  Each
file's commands run in order, in a fresh folder holding ``examples/`` (so what they
write, such as ``after.toml`` or ``game.db``, lands there), through ``bash`` with the
installed ``bellum`` first on the PATH: as a reader would type them.  A command must
exit 0, unless its ``console`` block shows a ``bellum: error:`` line, which must then be
what it prints.  The real dumps that docs/store.md imports come from ``../shared``; the
blocks that use them start with a ``# with the project's shared test data`` line, and
every other command of such a page runs in a clone alone (without ``../shared``) too.

Long runs keep their options but not their length: the counts in :data:`SHORTER` are
cut, so the suite stays quick while every option is still checked; a server (``bellum
serve`` without ``--get``) answers one request through its app (``--get /.json``) instead
of listening.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from shareddata import SHARED, shared_path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLES = sorted((ROOT / "examples").glob("*/*.toml"))

#: A long run and the shorter one the test makes instead.
SHORTER = [
    (re.compile(r"--resolver-runs \d+"), "--resolver-runs 20"),
    (re.compile(r"--check \d+"), "--check 100"),
    (re.compile(r"--target-error 0\.00\d"), "--target-error 0.05"),
    (re.compile(r"^(bellum serve(?!.*--get)[^#]*?)\s*(#.*)?$"), r"\1 --get /.json"),
]
#: Commands that talk to a live Empire server, and the document that is all about one:
#: tests/live runs them against a real server.
NEEDS_SERVER = re.compile(r"bellum empire sync |--live ")
SERVER_DOCS = {"live.md"}
#: Commands shown to end in a refusal or an abort (exit status 1), by where they are.
REFUSED = {"empire/scouts.toml": "the example aborts the attack at 'Are you sure'"}
#: Files in ../shared that commands of the docs read, as the commands name them: from a
#: checkout with ../shared beside it, as the tests run them.
SHARED_FILES = (
    "../shared/data/empire-dumps/smoke-final.xdump",
    "../shared/data/empire-dumps/fire-final.xdump",
    "../shared/data/empire-paradrop/S5.xdump",
)


#: The first line of a block whose commands need ``../shared``.
SHARED_BLOCK = re.compile(r"# with the project's shared test data\b")


@dataclass
class Shown:
    """A command as a document shows it, and the error line it shows after it, if any."""

    where: str
    command: str
    error: str | None = None
    #: In a block that needs the project's shared test data.
    shared: bool = False


def commands_in_markdown(path: Path) -> list[Shown]:
    shown: list[Shown] = []
    lang: str | None = None
    block = 0  # where the current block's commands start in ``shown``
    shared = False
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip().startswith("```"):
            lang = line.strip()[3:].strip() if lang is None else None
            block = len(shown)
            shared = False
            continue
        if lang is None:
            continue
        text = line.strip()
        shared = shared or bool(SHARED_BLOCK.match(text))
        if lang in ("sh", "console", "") and text.startswith("$ "):
            shown.append(Shown(f"{path.name}:{n}", text[2:], shared=shared))
        elif lang == "sh" and re.match(r"(printf .*\| )?bellum ", text):
            shown.append(Shown(f"{path.name}:{n}", text, shared=shared))
        elif text.startswith("bellum: error:") and len(shown) > block:
            shown[-1].error = text
    return shown


def commands_in_example(path: Path) -> list[Shown]:
    return [
        Shown(f"{path.parent.name}/{path.name}:{n}", line[4:].strip())
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.match(r"#   (printf .*\| )?bellum ", line)
    ]


def documents() -> list[tuple[str, list[Shown]]]:
    found = [(p.name, commands_in_markdown(p)) for p in DOCS]
    found += [(f"{p.parent.name}/{p.name}", commands_in_example(p)) for p in EXAMPLES]
    return [(name, shown) for name, shown in found if shown and name not in SERVER_DOCS]


def test_the_documents_show_commands() -> None:
    names = [name for name, _ in documents()]
    assert "README.md" in names and "empire-cli.md" in names and "store.md" in names
    assert len([n for n in names if n.startswith("empire/")]) >= 15


@pytest.mark.parametrize(("name", "shown"), documents(), ids=[n for n, _ in documents()])
def test_every_documented_command_runs_as_printed(
    name: str, shown: list[Shown], tmp_path: Path
) -> None:
    run_in(tmp_path, name, shown)


def _names_shared_file(s: Shown) -> bool:
    return any(f in s.command.split() for f in SHARED_FILES)


def _with_shared_blocks() -> list[tuple[str, list[Shown]]]:
    """The pages that use the shared data (in a marked block or not)."""
    return [
        (name, shown)
        for name, shown in documents()
        if any(s.shared or _names_shared_file(s) for s in shown)
    ]


@pytest.mark.parametrize(
    ("name", "shown"), _with_shared_blocks(), ids=[n for n, _ in _with_shared_blocks()]
)
def test_a_page_that_uses_the_shared_data_runs_in_a_clone_without_it(
    name: str, shown: list[Shown], tmp_path: Path
) -> None:
    """Issue 29: store.md's attack ran on the shared game and was refused in a clone."""
    for s in shown:
        assert s.shared or not _names_shared_file(s), f"{s.where}: not in a shared block"
    run_in(tmp_path, name, [s for s in shown if not s.shared], shared=False)


def run_in(tmp_path: Path, name: str, shown: list[Shown], shared: bool = True) -> None:
    """Run ``shown`` in order as a reader would in a checkout (``tmp_path/clone``), with
    ``../shared`` beside it when the commands name a shared file (``shared``) or not at
    all."""
    clone = tmp_path / "clone"
    clone.mkdir()
    (clone / "examples").symlink_to(ROOT / "examples")
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("NO_COLOR", None)
    for s in shown:
        command = s.command
        if NEEDS_SERVER.search(command):
            continue
        for pattern, shorter in SHORTER:
            command = pattern.sub(shorter, command)
        for file in SHARED_FILES:
            if shared and file in command.split() and not (tmp_path / "shared").exists():
                shared_path(*file.split("/")[2:])  # skips, or fails in CI, without ../shared
                (tmp_path / "shared").symlink_to(SHARED)
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=clone,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
        )
        if s.error is not None:
            assert done.returncode == 2, f"{s.where}: {s.command}: {done.stderr}"
            assert done.stderr.splitlines()[-1] == s.error, s.where
            continue
        status = 1 if name in REFUSED else 0
        assert done.returncode == status, f"{s.where}: {s.command}\n{done.stdout}{done.stderr}"
        assert "Traceback" not in done.stderr, s.where
    # What they wrote, run from a clone, must not show up as new files in git status.
    written = sorted(p.name for p in clone.iterdir() if p.name != "examples")
    if written:
        check = subprocess.run(
            ["git", "check-ignore", "--no-index", *written],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert sorted(check.stdout.split()) == written, "not in .gitignore"


def test_a_document_that_imports_a_shared_dump_says_where_it_comes_from() -> None:
    """The shared dumps are not in a clone: the page says so next to the command and shows
    a `world import` a reader can run with the repository alone."""
    for path in DOCS:
        text = path.read_text()
        used = [f for f in SHARED_FILES if re.search(rf"world import {re.escape(f)}\b", text)]
        if not used:
            continue
        assert "project's shared test data" in text, f"{path.name} uses {used}"
        imports = re.findall(r"world import (\S+\.xdump)", text)
        assert any(f not in SHARED_FILES for f in imports), f"{path.name}: no runnable import"


def test_empire_and_panzer_commands_never_write_the_same_file() -> None:
    """A reader runs the README and the docs in one folder: a Panzer state written as
    after.toml made the README's later `empire attack --out after.toml` refuse it."""
    written: dict[str, set[str]] = {"empire": set(), "panzer": set()}
    for _, shown in documents():
        for s in shown:
            m = re.search(r"bellum (empire|panzer) .*--out (\S+)", s.command)
            if m:
                written[m[1]].add(m[2])
    assert "after.toml" in written["empire"] and written["panzer"]
    assert not written["empire"] & written["panzer"]


def test_no_two_commands_of_the_docs_create_the_same_database() -> None:
    """A reader who runs the README and then docs/ in one folder: a second `world new --db
    game.db` is refused ("already exists") and the page's later commands play on the
    first page's world (issue 29's walk through a fresh clone)."""
    made: dict[str, str] = {}
    for _, shown in documents():
        for s in shown:
            m = re.search(r"bellum empire world (?:new|import) .*--db (\S+)", s.command)
            if m and "--replace" not in s.command:
                assert m[1] not in made, f"{s.where} and {made[m[1]]} both create {m[1]}"
                made[m[1]] = s.where
    assert len(made) >= 5
