"""Fuzzing bellum's command lines: every command, with arguments, options and paths
picked from what users mistype, what breaks parsers, and files of the wrong kind
(a FIFO, /dev/zero, a directory, a database where a world file belongs).

Beyond :func:`harness.check`, a command may only write the files it was asked to:
its ``--out``/``--plot``/new ``--db`` when that is a new file, a file of the kind it
writes, or ``--force`` says so - and never one of its own inputs.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from harness import check, fuzz_settings, run, sandbox, snapshot
from hypothesis import given
from hypothesis import strategies as st
from strategies import ANSWERS, COORDS, EMPIRE, FRONT, NUMBERS, PANZER, WORDS

#: The files every example starts with, by the kind bellum would call them.
KINDS = {
    "w.toml": "world",
    "g.db": "database",
    "s.toml": "scenario",
    "d.xdump": "dump",
    "notes.txt": "text",
    "plot.png": "image",
}
PATHS = st.sampled_from(
    [*KINDS, "fifo", "dir", "/dev/zero", "/dev/null", "missing.toml", "", "-", "new.out",
     "dir/new.toml", "nodir/x.toml", "o.toml", "o.db", "o.xdump", "o.png", "o.svg"]
)  # fmt: skip
NUMBER = st.sampled_from(NUMBERS)
SMALL = st.sampled_from(["0", "1", "2", "-1", "²", "x", ""])
TOKEN = st.sampled_from(NUMBERS + WORDS + COORDS)
COUNTRY = st.sampled_from(["1", "2", "North", "South", "0", "-1", "3", "²", "9" * 5000, ""])
OPTION = st.sampled_from(
    ["land_mob_max=5", "land_mob_max=²", f"land_mob_max={'9' * 5000}", "flakscale=nan",
     "flakscale=1e999", "info_fight=on", "info_fight=maybe", "nope=1", "=", "profile=x"]
)  # fmt: skip
#: --mil values of empire odds (tests/fuzz/test_fuzz_planning.py tries many more).
MIL = st.sampled_from(
    ["0,0=150", "0,0=0", "0,0=-1", "4,0=20", "0,0", "=", "0,0=x", "1,0=5", "0,0=²",
     "0,0=" + "9" * 5000, "ship=٣"]
)  # fmt: skip


@st.composite
def command_line(draw: st.DrawFn) -> tuple[list[str], str]:
    """One ``bellum`` command line and what is piped to it."""
    maybe = lambda *opt: list(opt) if draw(st.booleans()) else []  # noqa: E731
    source = draw(
        st.one_of(
            st.just(["--world", "w.toml"]),
            st.just(["--db", "g.db"]),
            st.builds(lambda p: ["--world", p], PATHS),
            st.builds(lambda p: ["--db", p], PATHS),
        )
    )
    who = ["--as", draw(COUNTRY)]
    kind = draw(st.integers(0, 11))
    stdin = ""
    if kind == 0:
        args = ["empire", draw(st.sampled_from(["show", "strength"])), *source, *who]
        args += draw(st.lists(st.sampled_from(COORDS), max_size=3))
    elif kind in (1, 2, 3):
        order = draw(st.sampled_from(["attack", "assault", "board", "lboard", "paradrop"]))
        args = ["empire", order, *draw(st.lists(TOKEN, max_size=5)), *source, *who]
        args += maybe("--seed", draw(NUMBER)) + maybe("--out", draw(PATHS)) + maybe("--force")
        args += maybe("--option", draw(OPTION)) + maybe("--json")
        args += maybe("--profile", draw(st.sampled_from(["server-4.4.1", "info-page", "x"])))
        stdin = draw(ANSWERS)
    elif kind == 4:
        args = ["empire", "rules", *maybe(*source), *maybe("--option", draw(OPTION))]
    elif kind == 5:
        args = ["empire", "odds", draw(st.sampled_from(COORDS)), *source, *who]
        args += maybe("--mil", draw(MIL)) + maybe("--unit", draw(SMALL))
        args += maybe("--max-runs", draw(st.sampled_from(["1", "100", "0", "9" * 19])))
        args += maybe("--resolver-runs", draw(st.sampled_from(["1", "2", "0", "100001"])))
        args += maybe("--plot", draw(PATHS)) + maybe("--force") + maybe("--json")
    elif kind == 6:
        args = ["empire", draw(st.sampled_from(["history", "world"]))]
        args += ["show"] if args[-1] == "world" else maybe("--json")
        args += ["--db", draw(PATHS)]
    elif kind == 7:
        args = ["empire", "replay", draw(NUMBER), "--db", draw(PATHS), *maybe("--show")]
    elif kind == 8:
        args = ["empire", "world", "export", "--db", draw(PATHS), "--out", draw(PATHS)]
        args += maybe("--toml") + maybe("--force")
    elif kind == 9:
        args = ["empire", "world", draw(st.sampled_from(["new", "import"]))]
        if args[-1] == "import":
            args.append(draw(PATHS))
            args += maybe("--econfig", draw(PATHS))
        else:
            args += maybe("--from", draw(PATHS))
        args += ["--db", draw(PATHS), *maybe("--replace")]
        args += maybe(
            "--size", draw(st.sampled_from(["8x4", "64x32", "²x4", "7x4", "0x0", "2048x2", "x"]))
        )
    elif kind == 10:
        command = draw(st.sampled_from(["explain", "rules", "assault", "odds"]))
        args = ["panzer", command, draw(PATHS), *maybe("--json")]
        if command == "assault":
            args += maybe("--seed", draw(NUMBER)) + maybe("--out", draw(PATHS)) + maybe("--force")
        if command == "odds":
            args += maybe("--check", draw(SMALL)) + maybe("--plot", draw(PATHS))
    else:
        args = ["odds", "fight", "--att", draw(NUMBER), "--def", draw(NUMBER)]
        args += maybe("--runs", draw(SMALL)) + maybe("--plot", draw(PATHS)) + maybe("--force")
    return args, stdin


#: Where each command writes, and the kind of file it writes there.
_OUTPUTS = {"--out": None, "--plot": "image"}


def may_write(args: list[str]) -> set[str]:
    """The files ``bellum args`` may change when it does not fail."""
    flags = ("--world", "--db", "--econfig", "--from")
    inputs = {args[i + 1] for i, a in enumerate(args[:-1]) if a in flags}
    if args[0] == "panzer" or args[1:3] == ["world", "import"]:
        inputs.add(args[2] if args[0] == "panzer" else args[3])  # the scenario, the dump
    force = "--force" in args
    allowed: set[str] = set()

    def output(path: str, kind: str) -> None:
        """An output replaces neither an input nor, unforced, a file of another kind."""
        if path not in inputs and (path not in KINDS or force or KINDS[path] == kind):
            allowed.add(path)

    for i, a in enumerate(args[:-1]):
        nxt = args[i + 1]
        if a == "--plot":
            output(nxt, "image")
        elif a == "--out":
            kind = "scenario" if args[0] == "panzer" else "world"
            if args[1:3] == ["world", "export"] and "--toml" not in args:
                kind = "dump"
            output(nxt, kind)
        elif a == "--db" and args[1] == "world" and args[2] in ("new", "import"):
            allowed.add(nxt)  # a new database, or one started over with --replace
    combat = args[0] == "empire" and args[1] in ("attack", "assault", "board", "lboard", "paradrop")
    if combat and "--out" not in args:
        for flag in ("--world", "--db"):
            if flag in args:
                allowed.add(args[args.index(flag) + 1])
        if "--world" not in args and "--db" not in args:
            allowed.add("bellum.db")
    return allowed


@pytest.fixture(scope="module")
def starting_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("command-lines")
    (folder / "w.toml").write_text((EMPIRE / "vector-a.toml").read_text())
    (folder / "front.toml").write_text(FRONT)
    for args in (
        ["empire", "world", "new", "--from", "front.toml", "--db", "g.db"],
        ["empire", "world", "export", "--db", "g.db", "--out", "d.xdump"],
    ):
        assert run(args, cwd=folder).code == 0
    (folder / "front.toml").unlink()
    shutil.copy(PANZER / "hexsides.toml", folder / "s.toml")
    (folder / "notes.txt").write_text("remember the milk\n")
    (folder / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return folder


@fuzz_settings("command lines")
@given(line=command_line())
def test_fuzz_command_lines(starting_files: Path, line: tuple[list[str], str]) -> None:
    args, stdin = line
    with sandbox() as folder:
        for name in KINDS:
            shutil.copy(starting_files / name, folder / name)
        os.mkfifo(folder / "fifo")
        (folder / "dir").mkdir()
        before = snapshot(folder)
        ran = run(args, stdin=stdin, cwd=folder)
        check(ran, "command lines", before, snapshot(folder), may_write=may_write(args))
