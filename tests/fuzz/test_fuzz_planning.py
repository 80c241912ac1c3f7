"""Fuzzing the planner and the named answers: ``bellum empire odds COMMAND ...`` with its
own arguments and options, and the five combat commands answered by option (``--mil``,
``--unit``, ``--move-in`` ...) instead of, or as well as, piped lines.

Each example starts from an example world and the order its README plays, then
changes the order's words and picks options.  A line carries at most one mistake
(a value from what users mistype and what breaks number parsers) in half the
examples: a line of mistakes stops at the first, one mistake reaches the planner,
the command's questions and the rules behind them.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

from harness import check, fuzz_settings, run, sandbox, snapshot
from hypothesis import given
from hypothesis import strategies as st
from strategies import ANSWERS, EMPIRE, PLAYS, TOKENS, Line

BIG = "9" * 5000
#: The example worlds with the order their README plays (the planner writes a
#: paradrop's empty escort list as ".").
ORDERS = [
    (name, ["paradrop", "0", ".", "0,0", "4,0"] if order[0] == "paradrop" else order)
    for name, order, _ in PLAYS
]
README_ANSWERS = {name: answers for name, _, answers in PLAYS}
COMMANDS = ["attack", "assault", "board", "lboard", "paradrop"]
ANSWER_OPTIONS = ("--mil", "--unit", "--move-in", "--move-in-unit")
#: Values that must be refused wherever a number is expected.
NOT_NUMBERS = ["-1", "²", "٣", "1e3", "", " ", "x", BIG, "-" + BIG, "9" * 21, "0x10"]
SECTORS = ["0,0", "4,0", "-2,0", "2,0"]
NOT_SECTORS = ["²,0", "٣,0", "0," + BIG, "", "0,0,0", "x", "1,0"]


def _order(line: Line) -> tuple[str, list[str]]:
    """An example world and its order, perhaps with a word changed, added or dropped."""
    name, order = line.draw(st.sampled_from(ORDERS))
    words = list(order)
    op = line.draw(st.sampled_from(["keep"] * 4 + ["replace", "add", "drop", "command"]))
    if op == "replace" and len(words) > 1:
        words[line.draw(st.integers(1, len(words) - 1))] = line.draw(TOKENS)
    elif op == "add":
        words.append(line.draw(TOKENS))
    elif op == "drop" and len(words) > 1:
        del words[line.draw(st.integers(1, len(words) - 1))]
    elif op == "command":
        words[0] = line.draw(st.sampled_from(COMMANDS))
    return name, words


def _mil(line: Line, option: str, sources: list[str], bad_sources: list[str]) -> list[str]:
    """Up to three ``option SOURCE=N`` (each source once unless the mistake repeats one)."""
    out: list[str] = []
    for source in line.draw(st.lists(st.sampled_from(sources), max_size=3, unique=True)):
        where = line.value([source], bad_sources)
        n = line.value(["0", "1", "20", "50", "150"], NOT_NUMBERS)
        out += [option, f"{where}={n}"]
    return out


def _units(line: Line, option: str) -> list[str]:
    out: list[str] = []
    for uid in line.draw(st.lists(st.sampled_from(["0", "1", "3", "7"]), max_size=2, unique=True)):
        out += [option, line.value([uid], NOT_NUMBERS)]
    return out


@st.composite
def odds_line(draw: st.DrawFn) -> tuple[str, list[str]]:
    """An ``empire odds`` command line on an example world (copied to w.toml)."""
    line = Line(draw, 22)
    name, words = _order(line)
    who = line.value(["1"], ["2", "0", "²", BIG])
    args = ["empire", "odds", *words, "--world", "w.toml", "--as", who]
    args += _mil(line, "--mil", [*SECTORS[:3], "ship"], NOT_SECTORS)
    args += _units(line, "--unit")

    def maybe(option: str, good: list[str] | None = None, bad: list[str] | None = None) -> None:
        if line.flag():
            args.extend([option] if good is None else [option, line.value(good, bad or good)])

    if line.draw(st.integers(0, 5)) == 0:
        counts = [line.value(good, NOT_NUMBERS) for good in (["0", "10"], ["60", "100"], ["20"])]
        args += ["--sweep", f"{line.value(SECTORS[:1], NOT_SECTORS)}={':'.join(counts)}"]
    maybe("--need", ["0.5", "0.9", "0.99"], ["1", "0", "1.5", "nan", "x"])
    maybe("--defense-as-seen")
    if "--defense-as-seen" in args:
        maybe("--prior", ["1,1,1,1,1,1,1,1,1,1", "0,0,0,0,1,1,0,0,0,0"],
              ["1,2", "x", "-1," * 9 + "1", "0," * 9 + "0", "nan,1,1,1,1,1,1,1,1,1"])  # fmt: skip
    maybe("--model", ["server", "per-casualty"], ["x"])
    maybe("--target-error", ["0.01", "0.05"], ["0", "1e-300", "x"])
    maybe("--max-runs", ["20", "50"], ["0", *NOT_NUMBERS])
    maybe("--max-memory", ["1", "64"], ["0", *NOT_NUMBERS])
    maybe("--resolver-runs", ["1", "20"], ["0", "1000000", *NOT_NUMBERS])
    maybe("--jobs", ["1"], ["0", "65", *NOT_NUMBERS])
    maybe("--seed", ["1", "7"], [str(2**32), "４２", *NOT_NUMBERS])
    maybe("--option", ["land_mob_max=5", "info_fight=on"], ["x=1", "land_mob_max=²"])
    maybe("--plot", ["o.png", "o.svg"], ["notes.txt", "w.toml", "plot.png", "dir", "o"])
    maybe("--force")
    maybe("--json")
    return name, args


@st.composite
def answered_line(draw: st.DrawFn) -> tuple[str, list[str], str]:
    """A combat command answered by name (and perhaps by piped lines as well)."""
    line = Line(draw, 14)
    name, words = _order(line)
    if words[0] == "paradrop" and "." in words:
        words[words.index(".")] = ""  # the real command takes an empty escort list
    args = ["empire", *words, "--world", "w.toml", "--as", "1", "--seed", "1"]
    args += _mil(line, "--mil", [*SECTORS[:3], "0", "1"], [*NOT_SECTORS, *NOT_NUMBERS])
    args += _units(line, "--unit") + _units(line, "--move-in-unit")
    if line.flag():
        args += ["--move-in", line.value(["0", "5", "100"], NOT_NUMBERS)]
    args += _mil(line, "--move-in", SECTORS[:3], NOT_SECTORS)
    for flag in ("--no-units", "--no-move-in-units", "--yes", "--json"):
        if line.flag():
            args.append(flag)
    if draw(st.booleans()):
        args += ["--out", "o.toml"]
    # The README's answers for what no option answers, random lines, or nothing.
    stdin = draw(st.sampled_from([README_ANSWERS[name], README_ANSWERS[name], "", "random"]))
    return name, args, draw(ANSWERS) if stdin == "random" else stdin


def _files(folder: Path, world: str) -> None:
    shutil.copy(EMPIRE / world, folder / "w.toml")
    (folder / "notes.txt").write_text("remember the milk\n")
    (folder / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "dir").mkdir()


def _plot_allowed(args: list[str]) -> list[str]:
    """The --plot file an odds line may write: a new file or an image, any file if forced."""
    if "--plot" not in args:
        return []
    path = args[args.index("--plot") + 1]
    return [path] if path in ("o.png", "o.svg", "plot.png") or "--force" in args else []


@fuzz_settings("odds plans")
@given(line=odds_line())
def test_fuzz_odds_plans(line: tuple[str, list[str]]) -> None:
    world, args = line
    with sandbox() as folder:
        _files(folder, world)
        before = snapshot(folder)
        ran = run(args, cwd=folder)
        allowed = [p for p in _plot_allowed(args) if p != "w.toml"]
        check(ran, "odds plans", before, snapshot(folder), may_write=allowed)


@fuzz_settings("named answers")
@given(line=answered_line())
def test_fuzz_named_answers(line: tuple[str, list[str], str]) -> None:
    world, args, stdin = line
    with sandbox() as folder:
        _files(folder, world)
        before = snapshot(folder)
        ran = run(args, stdin=stdin, cwd=folder)
        written = ["o.toml"] if "--out" in args else ["w.toml"]
        check(ran, "named answers", before, snapshot(folder), may_write=written)
        # An answer that is not a number (of mil, or a unit's) is a usage error.
        answers = [v for o, v in itertools.pairwise(args) if o in ANSWER_OPTIONS]
        if any(v.rpartition("=")[2] in ("²", "٣", BIG, "-" + BIG) for v in answers):
            assert ran.code == 2, (ran.args, ran.stderr[-300:])
