"""Every malformed command line is one line on standard error, ``bellum: error: ...``, with
exit status 2 and nothing on standard output: never click's ``Usage:/Try/Error:`` block."""

from __future__ import annotations

import pytest

from clirunner import ROOT, bellum

A = str(ROOT / "examples" / "empire" / "vector-a.toml")
P = str(ROOT / "examples" / "panzer" / "bocage.toml")
HERE = str(ROOT)
BIG = "9" * 5000

BAD = {
    "unknown command": ["nope"],
    "unknown subcommand": ["empire", "nope"],
    "unknown option": ["empire", "attack", "2,0", "--world", A, "--as", "1", "--sed", "1"],
    "unknown root option": ["--nope"],
    "seed not a number": ["empire", "attack", "2,0", "--world", A, "--as", "1", "--seed", "x"],
    "seed negative": ["empire", "attack", "2,0", "--world", A, "--as", "1", "--seed", "-1"],
    "seed too large": ["empire", "attack", "--world", A, "--as", "1", "--seed", str(2**64)],
    "missing --as": ["empire", "attack", "2,0", "--world", A],
    "option without value": ["empire", "attack", "2,0", "--world", A, "--as"],
    "world is a directory": ["empire", "attack", "2,0", "--world", HERE, "--as", "1"],
    "out is a directory": ["empire", "attack", "2,0", "--world", A, "--as", "1", "--out", HERE],
    "db is a directory": ["empire", "show", "--db", HERE, "--as", "1"],
    "bad profile": ["empire", "rules", "--profile", "nope"],
    "show without --as": ["empire", "show", "--world", A],
    "strength bad profile": ["empire", "strength", "--world", A, "--as", "1", "--profile", "x"],
    "board too many words": ["empire", "board", "1", "2", "3", "--world", A, "--as", "1"],
    "world new dir": ["empire", "world", "new", "--db", HERE],
    "world import missing dump": ["empire", "world", "import"],
    "world import dir": ["empire", "world", "import", HERE],
    "world export without --out": ["empire", "world", "export"],
    "replay not a number": ["empire", "replay", "x"],
    "replay zero": ["empire", "replay", "0"],
    "history unknown option": ["empire", "history", "--nope"],
    "odds fight att not a number": ["odds", "fight", "--att", "x", "--def", "1"],
    "odds fight missing --def": ["odds", "fight", "--att", "10"],
    "odds fight bad model": ["odds", "fight", "--att", "1", "--def", "1", "--model", "x"],
    "odds fight bad float": ["odds", "fight", "--att", "1", "--def", "1", "--att-mult", "x"],
    "odds fight plot dir": ["odds", "fight", "--att", "1", "--def", "1", "--plot", HERE],
    "empire odds missing target": ["empire", "odds", "--world", A, "--as", "1"],
    "empire odds bad unit": ["empire", "odds", "2,0", "--world", A, "--as", "1", "--unit", "x"],
    "empire odds bad runs": ["empire", "odds", "2,0", "--world", A, "--as", "1", "--runs", "0"],
    "panzer assault missing scenario": ["panzer", "assault"],
    "panzer assault scenario is a dir": ["panzer", "assault", HERE],
    "panzer assault bad seed": ["panzer", "assault", P, "--seed", "x"],
    "panzer odds unknown option": ["panzer", "odds", P, "--nope"],
    "panzer extra argument": ["panzer", "explain", P, P],
    # Numbers are read by bellum.numbers everywhere: ASCII digits, at most 20 of them.
    "empire odds --mil ²": ["empire", "odds", "attack", "2,0", "--world", A, "--as", "1",
                            "--mil", "0,0=²"],
    "empire odds --mil 5000 digits": ["empire", "odds", "attack", "2,0", "--world", A, "--as",
                                      "1", "--mil", "0,0=" + BIG],
    "empire odds --sweep 5000 digits": ["empire", "odds", "2,0", "--world", A, "--as", "1",
                                        "--sweep", f"0,0=0:{BIG}:1"],
    "empire odds --sweep of 10**19 plans": ["empire", "odds", "2,0", "--world", A, "--as", "1",
                                            "--sweep", "0,0=0:" + "9" * 19 + ":1"],
    "empire odds --unit ٣": ["empire", "odds", "2,0", "--world", A, "--as", "1", "--unit", "٣"],
    "empire odds --max-runs 5000 digits": ["empire", "odds", "2,0", "--world", A, "--as", "1",
                                           "--max-runs", BIG],
    "attack --mil ²": ["empire", "attack", "2,0", "--world", A, "--as", "1", "--mil", "0,0=²"],
    "attack --mil 5000 digits": ["empire", "attack", "2,0", "--world", A, "--as", "1", "--mil",
                                 "0,0=" + BIG],
    "attack --mil ship of 5000 digits": ["empire", "attack", "2,0", "--world", A, "--as", "1",
                                         "--mil", BIG + "=1"],
    "attack --move-in ²": ["empire", "attack", "2,0", "--world", A, "--as", "1", "--move-in",
                           "²"],
    "attack --seed ４２": ["empire", "attack", "2,0", "--world", A, "--as", "1", "--seed", "４２"],
    "odds fight --att 5000 digits": ["odds", "fight", "--att", BIG, "--def", "1"],
    "replay ²": ["empire", "replay", "²"],
    "sync port ²": ["empire", "sync", "127.0.0.1:²", "--as", "1", "--db", "x.db"],
    "sync port of 5000 digits": ["empire", "sync", "127.0.0.1:" + BIG, "--as", "1",
                                 "--db", "x.db"],
    # NaN passes every range check of click's float; inf passes a range with no top.
    "sync --timeout nan": ["empire", "sync", "127.0.0.1:1", "--as", "1", "--timeout", "nan"],
    "sync --timeout inf": ["empire", "sync", "127.0.0.1:1", "--as", "1", "--timeout", "inf"],
    "empire odds --target-error nan": ["empire", "odds", "2,0", "--world", A, "--as", "1",
                                       "--target-error", "nan"],
    "empire odds --prior nan": ["empire", "odds", "2,0", "--world", A, "--as", "1",
                                "--defense-as-seen", "--prior", "nan" + ",1" * 9],
    "sync a host the resolver cannot encode": ["empire", "sync", "a..b:1", "--as", "1"],
    "empire odds --plot with a sweep": ["empire", "odds", "2,0", "--world", A, "--as", "1",
                                        "--sweep", "0,0=40:80:20", "--plot", "x.png"],
    "empire odds --resolver-runs with two plans": ["empire", "odds", "2,0", "--world", A, "--as",
                                                   "1", "--mil", "0,0=40", "--mil", "0,0=60",
                                                   "--resolver-runs", "10"],
    "serve an empty --host": ["serve", "--world", A, "--host", "", "--get", "/"],
}  # fmt: skip


@pytest.mark.parametrize("argv", BAD.values(), ids=BAD.keys())
def test_a_malformed_command_line_is_one_line_with_status_2(argv: list[str]) -> None:
    r = bellum(*argv)
    assert r.returncode == 2, r
    assert r.stdout == ""
    assert r.stderr.startswith("bellum: error: ")
    assert r.stderr.count("\n") == 1 and r.stderr.endswith("\n"), r.stderr
    assert len(r.stderr) < 300, "a mistake is quoted short"
    assert "Usage:" not in r.stderr and "Try '" not in r.stderr


def test_the_line_names_the_help_to_read() -> None:
    r = bellum("empire", "attack", "2,0", "--world", A)
    assert r.stderr == "bellum: error: missing option '--as'; see 'bellum empire attack --help'\n"


def test_a_near_miss_suggests_the_option() -> None:
    r = bellum("empire", "attack", "2,0", "--world", A, "--as", "1", "--seeed", "1")
    assert r.stderr.startswith("bellum: error: no such option '--seeed' (did you mean --seed?)")


def test_a_near_miss_suggests_the_command() -> None:
    r = bellum("odds", "fite")
    assert r.stderr == (
        "bellum: error: no such command 'fite' (did you mean 'fight'?); see 'bellum odds --help'\n"
    )


@pytest.mark.parametrize(
    ("argv", "value"),
    [
        (["odds", "fight", "--att", "x", "--def", "3"], "'--att': 'x' is not a whole number"),
        (
            ["empire", "attack", "2,0", "--as", "1", "--unit", "abc"],
            "'--unit': 'abc' is not a whole number",
        ),
        (
            ["odds", "fight", "--att", "1", "--def", "3", "--att-mult", "x"],
            "'--att-mult': 'x' is not a number",
        ),
        (["empire", "odds", "2,0", "--as", "1", "--need", "x"], "'--need': 'x' is not a number"),
        (["serve", "--port", "x"], "'-p' / '--port': 'x' is not a whole number"),
    ],
)
def test_a_value_that_is_not_a_number_says_so_in_words(argv: list[str], value: str) -> None:
    r = bellum(*argv)
    assert r.returncode == 2 and r.stderr.startswith(f"bellum: error: invalid value for {value};")


def test_a_group_alone_shows_its_help() -> None:
    r = bellum("empire")
    assert r.returncode == 2
    assert "Commands:" in r.stderr and "attack" in r.stderr


def test_help_is_not_an_error() -> None:
    r = bellum("empire", "attack", "--help")
    assert r.returncode == 0 and r.stdout.startswith("Usage: bellum empire attack")
