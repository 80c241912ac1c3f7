"""``bellum panzer ...`` end to end through the real entry point."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from panzer_helpers import EXAMPLES

from bellum.cli import main
from bellum.panzer import RULE_KEYS, load_scenario

EXAMPLE = str(EXAMPLES / "terrain-vehicles.toml")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(exc.value.code or 0), out, err


def test_assault_prints_the_breakdown_and_replays_with_the_seed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "panzer", "assault", EXAMPLE, "--seed", "5")
    assert code == 0 and err == "seed: 5\n"  # on stderr first, as every bellum command
    for text in ("Odds 1.8 : 1", "terrain", "-20.0%", "village", "combat value", "Outcome: "):
        assert text in out
    assert "\x1b[" not in out  # no colour when not a terminal
    assert run(capsys, "panzer", "assault", EXAMPLE, "--seed", "5")[1] == out


def test_assault_without_seed_prints_the_one_it_chose(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, err = run(capsys, "panzer", "assault", EXAMPLE, "--json")
    seed = json.loads(out)["seed"]
    assert err == f"seed: {seed} (replay with --seed {seed})\n"
    _, again, _ = run(capsys, "panzer", "assault", EXAMPLE, "--json", "--seed", str(seed))
    assert json.loads(again) == json.loads(out)


def test_assault_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "panzer", "assault", EXAMPLE, "--seed", "1", "--json")
    doc = json.loads(out)
    assert (doc["schema"], doc["schema_version"]) == ("bellum.panzer.assault", 2)
    assert set(doc) == {
        "schema", "schema_version", "scenario", "seed", "draws", "odds", "breakdown", "units",
        "success", "reason", "outcome", "hex_taken", "losses", "out",
    }  # fmt: skip
    bd = doc["breakdown"]
    names = [m["name"] for m in bd["attacker"]["modifiers"]]
    assert names == ["unit", "hexside", "terrain", "mixed organization"]
    assert {"low", "high", "drawn", "rounded", "loss", "pair"} <= set(bd["against_defender"])
    assert doc["odds"]["ratio"] == pytest.approx(
        bd["attacker"]["modified_assault"] / bd["defender"]["modified_assault"]
    )
    assert doc["units"][0]["role"] == "defender"


def test_assault_out_writes_the_state_after(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_file = tmp_path / "after.toml"
    code, out, _ = run(capsys, "panzer", "assault", EXAMPLE, "--seed", "2", "--out", str(out_file))
    assert code == 0 and str(out_file) in out
    after = load_scenario(out_file)
    assert after.assault is None
    before = load_scenario(EXAMPLE)
    lost = sum(u.strength for u in before.units) - sum(u.strength for u in after.units)
    assert lost > 0
    assert [p.name for p in tmp_path.iterdir()] == ["after.toml"]


def test_odds_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "panzer", "odds", EXAMPLE)
    assert code == 0 and out.startswith("Odds 1.8 : 1 (modified assault: attackers 4,032")
    assert "; P(success) " in out.splitlines()[0]
    for text in (
        "Exact outcome of the assault on",
        "P(attacker wins)",
        "  P(retreated)",
        "P(failed)",
        "expected attacker losses:",
        "(model panzer-assault, method exact",
        "attacker losses",
        "█",
        "losses in men-equivalents",
        "total probability 1.0",
    ):
        assert text in out
    assert "\x1b[" not in out
    _, out, _ = run(capsys, "panzer", "odds", EXAMPLE, "--json")
    doc = json.loads(out)
    assert doc["schema"] == "bellum.panzer.odds" and doc["resolver"] is None
    assert sum(doc["outcomes"].values()) == pytest.approx(1.0)
    assert sum(doc["distributions"]["defender"]["probabilities"]) == pytest.approx(1.0)
    assert doc["p_attacker_wins"] == pytest.approx(1 - doc["outcomes"]["failed"])


def test_odds_resolver_runs_the_resolver(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("panzer", "odds", EXAMPLE, "--resolver-runs", "2000", "--seed", "4", "--json")
    _, out, err = run(capsys, *argv)
    resolver = json.loads(out)["resolver"]
    assert resolver["runs"] == 2000 and resolver["seed"] == 4 and resolver["max_abs_z"] < 4.5
    assert err == "seed: 4\n"
    code, _, err = run(capsys, "panzer", "odds", EXAMPLE, "--seed", "4")
    assert code == 2 and "--seed only applies with --resolver-runs N" in err


def test_check_is_a_deprecated_alias_of_resolver_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "panzer", "odds", EXAMPLE, "--check", "500", "--seed", "4")
    assert code == 0 and "Monte Carlo of the resolver, 500 runs, seed 4" in out
    assert err == "bellum: warning: --check is deprecated; use --resolver-runs\nseed: 4\n"
    _, new, _ = run(capsys, "panzer", "odds", EXAMPLE, "--resolver-runs", "500", "--seed", "4")
    assert new.split("(model")[1].split("\n", 1)[1] == out.split("(model")[1].split("\n", 1)[1]
    assert "--check" not in run(capsys, "panzer", "odds", "--help")[1]
    code, _, err = run(capsys, "panzer", "odds", EXAMPLE, "--check", "5", "--resolver-runs", "5")
    assert code == 2 and "give only one" in err


def test_explain_rolls_no_dice(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "panzer", "explain", str(EXAMPLES / "combined-arms-unsupported.toml")
    )
    assert code == 0 and "one vehicle per 10 men or fraction -> 7" in out and "drew" not in out
    assert out.startswith("Odds 2.8 : 1") and "; P(success) " in out.splitlines()[0]
    _, out, _ = run(capsys, "panzer", "explain", EXAMPLE, "--json")
    doc = json.loads(out)
    # 20/100 per 1000 (§16.1) at combat value 720: 14.4 .. 72, x0.8 in the village (§16.5)
    assert doc["breakdown"]["against_defender"]["low"] == pytest.approx(11.52)
    assert 0 < doc["p_attacker_wins"] < 1


def test_rules_lists_every_key_with_value_and_tag(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "panzer", "rules")
    for key in RULE_KEYS:
        assert key.name in out
    assert "UNKNOWN" in out and "INFERRED" in out and "OPTIONAL" in out
    _, out, _ = run(capsys, "panzer", "rules", str(EXAMPLES / "surrender.toml"), "--json")
    rules = {r["key"]: r for r in json.loads(out)["rules"]}
    assert rules["optional_rules.optional_surrender"]["value"] is True
    assert rules["unknowns.modifiers.combine"]["tag"] == "UNKNOWN"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("schema_version = 1\n[map\n", "malformed TOML"),
        ("schema_version = 1\n[map]\nwidth = 4\nheight = 4\nterrain = {'1,1' = 'lava'}\n",
         "unknown terrain 'lava'"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_exit_1_and_no_output_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, expected: str
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(content)
    out_file = tmp_path / "out.toml"
    code, out, err = run(capsys, "panzer", "assault", str(bad), "--out", str(out_file))
    assert code == 1 and out == ""
    assert err.startswith("bellum: error: ") and expected in err and err.count("\n") == 1
    assert "Traceback" not in err and not out_file.exists()


def test_refused_assault_leaves_the_out_file_untouched(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = Path(EXAMPLE).read_text().replace('units = ["us-tk", "us-inf"]', 'units = ["de-gren"]')
    bad = tmp_path / "own.toml"
    bad.write_text(text)
    out_file = tmp_path / "out.toml"
    out_file.write_text(Path(EXAMPLE).read_text())  # a scenario: --out may replace it
    code, _, err = run(capsys, "panzer", "assault", str(bad), "--out", str(out_file))
    assert code == 1 and "assaulting side" in err
    assert out_file.read_text() == Path(EXAMPLE).read_text()


QUALITY = EXAMPLES / "quality-fatigue.toml"


def variant(tmp_path: Path, *changes: tuple[str, str]) -> str:
    """The quality-fatigue example with pieces of text replaced (each must occur)."""
    text = QUALITY.read_text()
    for old, new in changes:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / "variant.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e308"])
@pytest.mark.parametrize("command", ["explain", "assault", "odds"])
def test_non_finite_unit_values_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, value: str, command: str
) -> None:
    path = variant(tmp_path, ("assault = 6", f"assault = {value}"))
    code, out, err = run(capsys, "panzer", command, path)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "variant.toml: unit ru-gds: assault = " in err


@pytest.mark.parametrize("value", ["nan", "inf", "1e308"])
def test_non_finite_rule_values_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, value: str
) -> None:
    rule = f'[rules]\n"quality.bonus_scale.assault" = {value}\n\n[map]'
    path = variant(tmp_path, ("[map]", rule))
    for command in ("explain", "assault", "odds"):
        code, _, err = run(capsys, "panzer", command, path)
        assert code == 1 and err.count("\n") == 1
        assert "[rules]: rule quality.bonus_scale.assault = " in err


def test_odds_refuses_an_enumeration_of_minutes_up_front(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Strength 100,000 at assault 1000 against Parameter Data HCV 1000: the defenders' loss
    # range is ten million values wide (it used to run for minutes, then for hours).
    path = variant(
        tmp_path,
        ("strength = 600\nassault = 6", "strength = 100000\nassault = 1000"),
        ("[map]", "[parameter_data]\nassault_defender_high = 1000\n\n[map]"),
    )
    code, out, err = run(capsys, "panzer", "odds", path)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "the exact odds of this assault would take about" in err
    assert "assault_defender_high" in err
    # explain still explains, and says why it gives no chance of success
    code, out, _ = run(capsys, "panzer", "explain", path)
    assert code == 0 and "; P(success) not computed (exact odds would take about" in out
    assert (
        json.loads(run(capsys, "panzer", "explain", path, "--json")[1])["p_attacker_wins"] is None
    )


def test_odds_refuses_a_check_of_minutes(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "panzer", "odds", str(QUALITY), "--resolver-runs", "10000000")
    assert code == 1 and "--resolver-runs 10000000 would resolve the assault" in err
    assert "or fewer" in err and err.count("\n") == 1


def test_odds_plot_with_an_unknown_extension(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "panzer", "odds", str(QUALITY), "--plot", str(tmp_path / "x.txt"))
    assert code == 2 and out == "" and "extension .txt; use one of .png" in err
    assert err.count("\n") == 1 and not (tmp_path / "x.txt").exists()


@pytest.mark.parametrize("how", ["same", "dot", "symlink", "hardlink"])
def test_assault_out_refuses_to_overwrite_the_scenario(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, how: str
) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(QUALITY.read_text())
    given = tmp_path / "s.toml"
    if how == "dot":
        given = tmp_path / "." / "s.toml"
    elif how == "symlink":
        given = tmp_path / "link.toml"
        given.symlink_to(scenario)
    elif how == "hardlink":
        given = tmp_path / "hard.toml"
        given.hardlink_to(scenario)
    code, out, err = run(
        capsys, "panzer", "assault", str(scenario), "--seed", "1", "--out", str(given)
    )
    assert code == 2 and out == "" and "is the scenario itself" in err and err.count("\n") == 1
    assert scenario.read_text() == QUALITY.read_text()


def test_the_state_after_an_assault_says_what_it_is(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    after = tmp_path / "after.toml"
    code, _, _ = run(capsys, "panzer", "assault", str(QUALITY), "--seed", "1", "--out", str(after))
    assert code == 0
    for command in ("assault", "explain", "odds"):
        code, _, err = run(capsys, "panzer", command, str(after))
        assert code == 1 and err.count("\n") == 1
        assert "after.toml: this is the state after an assault ([last_assault]: target 4,4" in err
        assert "add an [assault] table" in err


def test_an_empty_no_color_leaves_colour_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # no-color.org: only a NO_COLOR that is present and not empty turns colour off.
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("NO_COLOR", "")
    assert "\x1b[" in run(capsys, "panzer", "explain", str(QUALITY))[1]
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run(capsys, "panzer", "explain", str(QUALITY))[1]


def test_sweep_shows_what_more_force_buys(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "panzer", "odds", str(QUALITY), "--sweep")
    assert code == 0 and out.startswith("Odds 1.4 : 1") and "P(success)" in out.splitlines()[0]
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert [r[0] for r in rows] == [
        "0.25x",
        "0.35x",
        "0.5x",
        "0.71x",
        "1x",
        "1.4x",
        "2x",
        "2.8x",
        "4x",
    ]
    chances = [float(r[r.index("%") - 1]) for r in rows]
    assert chances == sorted(chances) and chances[0] < 1 < 80 < chances[-1]
    assert "1x (as given)" in out
    # Each column says what it counts: men-equivalents are not the odds line's assault.
    head = next(line.split() for line in out.splitlines() if line.split()[:1] == ["force"])
    assert head == ["force", "strength", "assault", "odds", "P(success)", "att.", "losses",
                    "def.", "losses"]  # fmt: skip
    assert "strength: their men-equivalents" in out and "assault: their modified assault" in out
    given = next(r for r in rows if r[0] == "1x")
    assert out.splitlines()[0].split("attackers ")[1].startswith(given[4] + ",")
    doc = json.loads(run(capsys, "panzer", "odds", str(QUALITY), "--sweep", "--json")[1])
    assert [r["attacking_strength"] for r in doc["rows"]][4] == 1150  # 600 + 550 as given
    code, _, err = run(capsys, "panzer", "odds", str(QUALITY), "--sweep", "--resolver-runs", "9")
    assert code == 2 and "--resolver-runs does not apply to --sweep" in err


def test_sweep_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "sweep.svg"
    code, out, _ = run(capsys, "panzer", "odds", str(QUALITY), "--sweep", "--plot", str(target))
    assert code == 0 and f"plot written to {target}" in out
    assert target.read_text().lstrip().startswith("<?xml") and "P(success)" in target.read_text()


def test_the_explanation_speaks_plainly(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 13 item 5: men for mot/mech infantry counted as vehicles, and why; sides spelt
    out; a hex without vehicles is not 'exempt'."""
    out = run(capsys, "panzer", "explain", str(EXAMPLES / "bocage.toml"))[1]
    ai = next(line for line in out.splitlines() if line.strip().startswith("us-ai "))
    assert " men " in ai and "veh" not in ai.split("men")[0]
    assert "mot/mech infantry in Travel Mode counts as vehicles (§4.2, §4.4): 300 men = 30" in ai
    hex_row = next(line for line in out.splitlines() if line.strip().startswith("3,4 "))
    assert "no vehicles" in hex_row and "yes" not in hex_row
    out = run(capsys, "panzer", "assault", EXAMPLE, "--seed", "1")[1]
    table = out.split("Units", 1)[1].split("Outcome", 1)[0].splitlines()[3:]
    sides = {line.split()[1] for line in table if line.strip()}
    assert sides == {"attacker", "defender"}
    outcome = next(line for line in out.splitlines() if line.startswith("Outcome: "))
    assert outcome.startswith(("Outcome: failed (", "Outcome: success, ")), outcome
    assert "FAILED" not in outcome


def test_the_units_table_says_what_each_units_points_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Vehicles, guns and men sat in one unlabelled 'before' column: 14 next to 400."""
    code, out, _ = run(capsys, "panzer", "assault", str(EXAMPLES / "brigade.toml"), "--seed", "7")
    assert code == 0
    table = out[out.index("Units\n") :].splitlines()
    assert table[1].split()[:4] == ["unit", "side", "before", "share"] and "(men-eq)" in table[1]
    rows = {line.split()[0]: line for line in table[3:] if line.strip()}
    assert " 14 veh " in rows["us-tk"] and " 12 veh " in rows["us-tk"]
    assert " 8 guns " in rows["de-pak"] and " 500 men " in rows["de-gr1"]
