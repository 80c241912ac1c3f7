"""One convention across commands: JSON everywhere, one profile syntax, names and
coordinates checked the same way, and the defects a new user hit (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bellum.empire.io.toml import load_world
from bellum.empire.tables import stock
from bellum.errors import InputError
from clirunner import ROOT, bellum

EX = ROOT / "examples" / "empire"
A = str(EX / "vector-a.toml")


@pytest.mark.parametrize(
    "argv",
    [
        ["empire", "show", "--world", A, "--as", "1"],
        ["empire", "strength", "--world", str(EX / "vector-b.toml"), "--as", "2"],
        ["empire", "rules"],
    ],
    ids=["show", "strength", "rules"],
)
def test_every_listing_has_json(argv: list[str]) -> None:
    r = bellum(*argv, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["schema_version"] == 1


def test_show_json_holds_what_the_table_shows() -> None:
    doc = json.loads(bellum("empire", "show", "--world", A, "--as", "1", "0,0", "--json").stdout)
    assert doc["nation"] == {"cnum": 1, "name": "1", "money": 25000, "btu": 640, "tech": 100.0}
    (sect,) = doc["sectors"]
    assert sect["sect"] == "0,0" and sect["mil"] == 200 and sect["des"] == "wilderness"
    table = bellum("empire", "show", "--world", A, "--as", "1", "0,0").stdout
    assert "     0,0  wilderness       1   1 100" in table


def test_strength_json_matches_its_table() -> None:
    b = str(EX / "vector-b.toml")
    doc = json.loads(bellum("empire", "strength", "--world", b, "--as", "2", "--json").stdout)
    first = doc["sectors"][0]
    assert (first["sect"], first["units"], first["total"]) == ("2,0", 57, 135)
    table = bellum("empire", "strength", "--world", b, "--as", "2").stdout
    assert "   2,0 -    100%   10     57      0  2.00      135         0      135" in table


def test_rules_json_marks_the_profile_in_use() -> None:
    doc = json.loads(bellum("empire", "rules", "--profile", "info-page", "--json").stdout)
    assert doc["profile"] == "info-page"
    values = {r["name"]: r["value"] for r in doc["rules"]}
    assert values["info-page"] is True and values["server-4.4.1"] is False
    assert values["info_fight"] is True


def test_option_profile_is_the_profile_as_in_a_world_file() -> None:
    by_option = bellum("empire", "rules", "--option", "profile=info-page", "--json")
    by_profile = bellum("empire", "rules", "--profile", "info-page", "--json")
    assert by_option.returncode == 0 and by_option.stdout == by_profile.stdout
    r = bellum("empire", "rules", "--option", "profile=info-page", "--profile", "server-4.4.1")
    assert r.returncode == 2 and "give the profile once" in r.stderr


def test_an_option_given_with_the_profile_still_wins() -> None:
    doc = json.loads(
        bellum(
            "empire", "rules", "--option", "info_fight=0", "--option", "profile=info-page", "--json"
        ).stdout
    )
    assert {r["name"]: r["value"] for r in doc["rules"]}["info_fight"] is False


def test_show_sectors_lists_only_the_units_there() -> None:
    scouts = str(EX / "scouts.toml")
    there = bellum("empire", "show", "--world", scouts, "--as", "1", "-14,2", "--json")
    assert {u["sect"] for u in json.loads(there.stdout)["units"]} == {"-14,2"}
    mine = bellum("empire", "show", "--world", scouts, "--as", "1", "--json")
    assert {u["owner"] for u in json.loads(mine.stdout)["units"]} == {1}


def test_show_has_no_fog_of_war_mines_included() -> None:
    doc = json.loads(bellum("empire", "show", "--world", str(EX / "reaction.toml"), "--as", "1",
                            "2,0", "--json").stdout)  # fmt: skip
    assert doc["sectors"][0]["owner"] == 2 and doc["sectors"][0]["mines"] == 10


def test_a_negative_country_is_quoted_as_typed() -> None:
    r = bellum("empire", "show", "--world", A, "--as", "-1")
    assert r.returncode == 2 and "no country '-1' in this world" in r.stderr


def test_a_world_file_cannot_name_two_countries_alike(tmp_path: Path) -> None:
    world = tmp_path / "w.toml"
    world.write_text(Path(A).read_text().replace('name = "2"', 'name = "1"'))
    r = bellum("empire", "show", "--world", "w.toml", "--as", "1", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == "bellum: error: w.toml:nation[1]: name: '1' is already country 1's name\n"


def test_a_name_two_countries_share_must_be_given_as_a_number() -> None:
    world = load_world(A)
    world.nations[2].name = world.nations[1].name = "Nord"
    with pytest.raises(InputError, match="countries 1, 2 are all named 'Nord': give the number"):
        world.find_nation("Nord")
    assert world.find_nation("2") is world.nations[2]


def test_a_world_file_says_its_schema_version(tmp_path: Path) -> None:
    world = tmp_path / "w.toml"
    world.write_text(Path(A).read_text().replace("schema_version = 1\n", ""))
    r = bellum("empire", "show", "--world", str(world), "--as", "1")
    assert r.returncode == 1
    assert r.stderr == (
        f"bellum: error: {world}: schema_version: missing: a world file starts with"
        " schema_version = 1\n"
    )


@pytest.mark.parametrize("game", ["empire", "panzer"])
def test_an_error_names_the_file_as_it_was_given(tmp_path: Path, game: str) -> None:
    """The path typed, not its last part: "null: schema_version" named no file at all."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "w.toml").write_text("x = 1\n")
    argv = ["empire", "show", "--world"] if game == "empire" else ["panzer", "explain"]
    tail = ["--as", "1"] if game == "empire" else []
    r = bellum(*argv, "sub/w.toml", *tail, cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("bellum: error: sub/w.toml: ")
    r = bellum(*argv, "/dev/null", *tail)
    what = "world file" if game == "empire" else "scenario"
    assert r.returncode == 1 and r.stderr == f"bellum: error: /dev/null: a device, not a {what}\n"


def test_a_refused_attack_names_its_target_in_json() -> None:
    r = bellum("empire", "attack", "10,0", "--world", A, "--as", "1", "--seed", "1", "--json")
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and doc["outcome"] == "refused" and doc["target"] == "10,0"


def test_replay_of_a_negative_id_is_a_range_error(tmp_path: Path) -> None:
    r = bellum("empire", "replay", "-1", "--db", str(tmp_path / "x.db"))
    assert r.returncode == 2 and "-1 is not in the range" in r.stderr


def test_a_bad_world_size_in_an_econfig_blames_the_econfig(tmp_path: Path) -> None:
    econfig = tmp_path / "econfig"
    econfig.write_text("WORLD_X 63\nWORLD_Y 32\n")
    dump = tmp_path / "d.xdump"
    dump.write_text("")
    r = bellum("empire", "world", "import", str(dump), "--db", str(tmp_path / "d.db"),
               "--econfig", str(econfig))  # fmt: skip
    assert r.returncode == 1
    assert r.stderr == (
        f"bellum: error: {econfig}: WORLD_X and WORLD_Y: world size 63x32: each side must be an"
        " even number from 2 to 256\n"
    )


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"x = \n", "malformed TOML: Invalid value (at line 1, column 5)"),
        (b"\xff\xfe", "not a UTF-8 text file"),
    ],
    ids=["malformed", "binary"],
)
def test_both_games_word_a_bad_toml_file_alike(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    empire = bellum("empire", "show", "--world", "bad.toml", "--as", "1", cwd=tmp_path)
    panzer = bellum("panzer", "explain", "bad.toml", cwd=tmp_path)
    assert empire.stderr == panzer.stderr == f"bellum: error: bad.toml: {problem}\n"


def test_the_five_combat_commands_list_their_options_alike() -> None:
    import click

    from bellum.cli.app import cli

    ctx = click.Context(cli)
    empire = cli.get_command(ctx, "empire")
    assert isinstance(empire, click.Group)
    shapes = {
        name: [p.name for p in empire.get_command(ctx, name).params if isinstance(p, click.Option)]  # type: ignore[union-attr]
        for name in ("attack", "assault", "board", "lboard", "paradrop")
    }
    assert len({tuple(options) for options in shapes.values()}) == 1, shapes
    assert shapes["attack"][:2] == ["mil", "units"]  # the answers first (issue 29, item 3)


@pytest.mark.parametrize("command", ["attack", "assault", "board", "lboard", "paradrop"])
def test_a_combat_commands_help_puts_the_everyday_options_first(command: str) -> None:
    text = bellum("empire", command, "--help").stdout
    sections: dict[str, list[str]] = {}
    title = ""
    for line in text.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            title = line[:-1]
        elif title and line.startswith("  -"):
            sections.setdefault(title, []).append(line.split()[0].rstrip(","))
    assert list(sections) == [
        "Answers to the server's questions (docs/empire-cli.md)",
        "World and output",
        "On a live server (docs/live.md)",
        "Options",
    ]
    answers, world, live, rest = sections.values()
    assert answers == ["--mil", "--unit", "--no-units", "--move-in", "--move-in-unit",
                       "--no-move-in-units", "--yes"]  # fmt: skip
    assert world == ["--as", "--world", "--db", "--seed", "--out", "--force", "--json",
                     "--profile", "--option"]  # fmt: skip
    assert live[0] == "--live" and "--check" in live and rest == ["-h"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["empire", "show", "--world", "examples/panzer/bocage.toml", "--as", "1"],
            "examples/panzer/bocage.toml: this is a Panzer scenario, not an Empire world:"
            " use it with `bellum panzer`, or `bellum serve --scenario`",
        ),
        (
            ["serve", "--world", "examples/panzer/bocage.toml", "--get", "/"],
            "examples/panzer/bocage.toml: this is a Panzer scenario, not an Empire world:"
            " use it with `bellum panzer`, or `bellum serve --scenario`",
        ),
        (
            ["panzer", "explain", "examples/empire/vector-a.toml"],
            "examples/empire/vector-a.toml: this is an Empire world, not a Panzer scenario:"
            " use it with `bellum empire ... --world`, or `bellum serve --world`",
        ),
        (
            ["serve", "--world", "/dev/null", "--get", "/"],
            "--world /dev/null: a device, not a world file",
        ),
    ],
)
def test_a_file_of_the_other_game_is_named_as_such(argv: list[str], message: str) -> None:
    r = bellum(*argv)
    assert r.returncode == 1 and r.stderr == f"bellum: error: {message}\n"


def test_sync_names_the_country_with_as_and_keeps_country_as_a_hidden_alias() -> None:
    help_text = bellum("empire", "sync", "--help").stdout
    assert "--as COUNTRY" in help_text and "--country" not in help_text
    assert "missing option '--as'" in bellum("empire", "sync", "127.0.0.1:1").stderr
    for name in ("--as", "--country"):  # both reach the password, after the address is read
        r = bellum("empire", "sync", "127.0.0.1:1", name, "Nord", stdin="")
        assert r.returncode == 1 and "no password for Nord" in r.stderr, r.stderr


@pytest.mark.parametrize("size", ["99999x99999", "258x2", "63x32", "0x32"])
def test_every_bad_world_size_gets_the_whole_rule(size: str, tmp_path: Path) -> None:
    r = bellum("empire", "world", "new", "--db", str(tmp_path / "n.db"), "--size", size)
    assert r.returncode == 2 and r.stderr == (
        f"bellum: error: --size: world size {size}: each side must be an even number from 2 to"
        " 256\n"
    )


def test_an_empty_scenario_is_worded_like_an_empty_world(tmp_path: Path) -> None:
    (tmp_path / "empty.toml").write_text("")
    world = bellum("empire", "show", "--world", "empty.toml", "--as", "1", cwd=tmp_path)
    scenario = bellum("panzer", "explain", "empty.toml", cwd=tmp_path)
    assert world.stderr == (
        "bellum: error: empty.toml: schema_version: missing: a world file starts with"
        " schema_version = 1\n"
    )
    assert scenario.stderr == (
        "bellum: error: empty.toml: schema_version: missing: a scenario starts with"
        " schema_version = 1\n"
    )


def test_show_lists_ships_and_planes_with_what_they_carry() -> None:
    """To plan an assault, a boarding or a paradrop (issue 29, item 4)."""
    doc = json.loads(bellum("empire", "show", "--world", str(EX / "landing.toml"), "--as", "1",
                            "--json").stdout)  # fmt: skip
    ships = {s["id"]: s for s in doc["ships"]}
    assert (ships[0]["type"], ships[0]["sect"], ships[0]["mil"], ships[0]["units"]) == (
        "dd   destroyer", "2,0", 30, [0, 1]
    )  # fmt: skip
    assert ships[1]["type"] == "ls   landing ship" and ships[1]["units"] == []
    table = bellum("empire", "show", "--world", str(EX / "paradrop.toml"), "--as", "1").stdout
    assert "   0 tc   transport chopper       0,0    1 100 127  150.0    ~    10 -" in table


@pytest.mark.parametrize(
    ("flags", "kinds"),
    [
        ([], ["nation", "sectors", "units", "ships", "planes"]),
        (["--ships"], ["nation", "ships"]),
        (["--planes", "--units"], ["nation", "units", "planes"]),
        (["--sectors"], ["nation", "sectors"]),
    ],
)
def test_show_lists_only_the_kinds_asked_for(flags: list[str], kinds: list[str]) -> None:
    argv = ["empire", "show", "--world", str(EX / "landing.toml"), "--as", "1", *flags]
    assert list(json.loads(bellum(*argv, "--json").stdout))[2:] == kinds
    text = bellum(*argv).stdout
    assert ("    sect  des" in text) == ("sectors" in kinds)
    assert ("   # ship " in text) == ("ships" in kinds)
    assert ("   # unit " in text) == ("units" in kinds)


def test_show_of_a_sector_lists_the_ships_there_whoever_owns_them() -> None:
    doc = json.loads(bellum("empire", "show", "--world", str(EX / "board.toml"), "--as", "2",
                            "2,0", "--ships", "--json").stdout)  # fmt: skip
    assert [(s["id"], s["owner"]) for s in doc["ships"]] == [(0, 1), (1, 2)]


def test_types_lists_every_type_with_the_stats_of_the_tables() -> None:
    text = bellum("empire", "types").stdout
    tables = stock()
    for title, kind in (("land units", tables.land), ("ships", tables.ships),
                        ("planes", tables.planes), ("sectors", tables.sectors)):  # fmt: skip
        assert f"{title} ({len(kind)} types)\n" in text
    tt = next(line.split() for line in text.splitlines() if line.startswith("tt "))
    assert tt[:7] == ["tt", "troop", "transport", "10", "60", "20", "35"]  # tech, armor, spd, vis
    assert tt[10] == str(tables.ships["tt"].milit) == "120"
    doc = json.loads(bellum("empire", "types", "--planes", "--json").stdout)
    assert list(doc) == ["schema", "schema_version", "planes"]
    tc = next(p for p in doc["planes"] if p["mnemonic"] == "tc")
    assert (tc["load"], tc["range"], tc["flags"]) == (
        tables.planes["tc"].load, tables.planes["tc"].range, sorted(tables.planes["tc"].flags)
    )  # fmt: skip


def test_types_lists_only_the_kinds_asked_for() -> None:
    text = bellum("empire", "types", "--ships", "--sectors").stdout
    titles = [line for line in text.splitlines() if line.endswith(" types)")]
    assert titles == ["ships (36 types)", "sectors (34 types)"]


def _every_command() -> list[list[str]]:
    """The path of every ``bellum`` command, groups included."""
    import click

    from bellum.cli.app import cli

    paths: list[list[str]] = []

    def walk(group: click.Group, path: list[str]) -> None:
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            paths.append([*path, name])
            if isinstance(command, click.Group):
                walk(command, [*path, name])

    walk(cli, [])
    return paths


@pytest.mark.parametrize("path", _every_command(), ids=" ".join)
def test_no_help_shows_a_range_of_none(path: list[str]) -> None:
    """Issue 29, item 3: ``[x<=None]`` stood for "no bound" in six options' help."""
    text = bellum(*path, "--help").stdout
    assert text.startswith("Usage: bellum ") and "None" not in text


def test_a_negative_unit_is_a_usage_error_in_a_command_and_in_its_odds() -> None:
    for command in (["attack", "2,0"], ["odds", "attack", "2,0"]):
        r = bellum("empire", *command, "--world", A, "--as", "1", "--unit", "-1")
        assert r.returncode == 2 and "'--unit': -1 is not in the range x>=0" in r.stderr


def test_resolver_runs_have_one_cap_in_empire_and_panzer() -> None:
    for argv in (["empire", "odds"], ["panzer", "odds"]):
        help_text = " ".join(bellum(*argv, "--help").stdout.split())
        assert "[1<=x<=10000000]" in help_text.split("--resolver-runs", 1)[1].split("--", 1)[0]


def test_mil_has_one_metavar_in_every_command_and_its_odds() -> None:
    for argv in (["attack"], ["assault"], ["board"], ["odds"]):
        help_text = bellum("empire", *argv, "--help").stdout
        assert "--mil SECT=N" in help_text and "FROM=N" not in help_text


@pytest.mark.parametrize(
    ("world", "command", "mil", "message"),
    [
        ("vector-a.toml", ["attack", "2,0"], "0,0=500", "--mil 0,0=500: at most 199 mil can go"
                                                        " from 0,0"),
        ("assault.toml", ["assault", "0,0", "0"], "ship=500", "--mil ship=500: at most 24 mil can"
                                                              " go from ship 0"),
        ("assault.toml", ["assault", "0,0", "0"], "0=500", "--mil 0=500: at most 24 mil can go"
                                                           " from ship 0"),
    ],
)  # fmt: skip
def test_more_mil_than_asked_for_is_one_usage_error_in_a_command_and_in_its_odds(
    world: str, command: list[str], mil: str, message: str
) -> None:
    """The odds word and exit as the command does for the same answer, as it was typed."""
    path = str(ROOT / "examples" / "empire" / world)
    for argv in (command, ["odds", *command]):
        r = bellum("empire", *argv, "--world", path, "--as", "1", "--mil", mil, "--seed", "1")
        assert r.returncode == 2, (argv, r.stderr)
        assert r.stderr.splitlines()[-1].startswith(f"bellum: error: {message}"), r.stderr
