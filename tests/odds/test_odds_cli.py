"""``bellum odds fight`` end to end, through the real entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bellum.cli import main


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(["odds", "fight", *args])
    out, err = capsys.readouterr()
    return int(exc.value.code or 0), out, err


def test_default_is_exact_server_model(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--att", "150", "--def", "80"], capsys)
    assert code == 0
    assert "model server, method exact" in out
    assert "P(attacker wins)" in out and "95%" in out and "│" in out
    assert "\x1b" not in out  # captured output is not a terminal


def test_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["--att", "30", "--def", "20", "--def-mult", "1.5", "--model", "per-casualty", "--json"],
        capsys,
    )
    doc = json.loads(out)
    assert code == 0
    for key in (
        "p_attacker_wins",
        "method",
        "model",
        "pruned_mass",
        "expected_losses",
        "quantiles",
        "distributions",
        "end_states",
        "inputs",
        "schema_version",
    ):
        assert key in doc
    assert doc["method"] == "exact" and doc["model"] == "per-casualty"
    assert set(doc["quantiles"]["attacker"]) == {"5", "25", "50", "75", "95"}


@pytest.mark.parametrize("model", ["server", "per-casualty"])
def test_exact_unpruned_drops_nothing(model: str, capsys: pytest.CaptureFixture[str]) -> None:
    fight = ["--att", "240", "--def", "150", "--def-mult", "1.5", "--model", model, "--json"]
    _, out, _ = run(fight, capsys)
    pruned = json.loads(out)
    code, out, _ = run([*fight, "--exact-unpruned"], capsys)
    full = json.loads(out)
    assert code == 0 and full["method"] == "exact"
    assert full["pruned_mass"] == 0.0 and full["details"]["prune_threshold"] == 0.0
    assert 0.0 < pruned["pruned_mass"] <= 1e-12
    assert 0.0 < pruned["details"]["prune_threshold"] <= 1e-18
    gap = full["p_attacker_wins"] - pruned["p_attacker_wins"]
    assert -1e-15 <= gap <= pruned["pruned_mass"] + 1e-15
    code, out, _ = run([*fight[:-1], "--exact-unpruned"], capsys)
    assert code == 0 and "pruned mass 0," in out


def test_monte_carlo_echoes_seed_and_error(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(
        ["--att", "30", "--def", "20", "--runs", "2000", "--seed", "4", "--json"], capsys
    )
    doc = json.loads(out)
    assert doc["method"] == "monte-carlo" and doc["seed"] == 4 and doc["standard_error"] > 0


def test_unreachable_target_error_warns(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        [
            "--att",
            "30",
            "--def",
            "30",
            "--target-error",
            "1e-6",
            "--max-runs",
            "40000",
            "--seed",
            "1",
        ],
        capsys,
    )
    assert code == 0
    assert err.startswith("bellum: warning:") and "--max-runs" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--att", "0", "--def", "5"], "'--att': 0 is not in the range 1<=x<=10000000"),
        (["--att", "5", "--def", "-5"], "'--def': -5 is not in the range 1<=x<=10000000"),
        (["--att", "5", "--def", "5", "--att-mult", "0"], "--att-mult"),
        (["--att", "5", "--def", "5", "--exact", "--monte-carlo"], "one of"),
        (["--att", "5", "--def", "5", "--exact-unpruned", "--monte-carlo"], "--exact-unpruned"),
        (["--att", "5", "--def", "5", "--exact-unpruned", "--runs", "9"], "Monte Carlo"),
        (["--att", "5", "--def", "5", "--exact", "--runs", "9"], "Monte Carlo"),
        (["--att", "5", "--def", "5", "--target-error", "0"], "--target-error"),
        (["--att", "5000", "--def", "5000", "--exact", "--max-memory", "1"], "--max-memory"),
        (["--att", "100000", "--def", "100000", "--exact"], "--monte-carlo"),
        (["--att", "200000", "--def", "200000", "--runs", "100000"], "lower --runs"),
        (["--att", "200000", "--def", "200000", "--target-error", "1e-4"], "--target-error"),
        (["--att", "1000", "--def", "1000", "--seed", "-1"], "--seed"),
        (["--att", "5", "--def", "5", "--plot", "/nonexistent/dir/x.png"], "cannot write"),
    ],
)
def test_bad_input_is_one_line(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(args, capsys)
    assert code in (1, 2)
    assert err.startswith("bellum: error:") and words in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "odds.png"
    code, _, _ = run(["--att", "40", "--def", "30", "--plot", str(target)], capsys)
    assert code == 0 and target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_says_how_to_install(tmp_path: Path) -> None:
    # A subprocess where importing matplotlib fails, as on an install without [plot].
    code = (
        "import sys; sys.modules['matplotlib'] = None; from bellum.cli import main; "
        f"main(['odds', 'fight', '--att', '5', '--def', '5', '--plot', r'{tmp_path / 'x.png'}'])"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        "bellum: error: plotting needs matplotlib: pip install 'bellum[plot]'"
    )


def test_no_color_is_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    from bellum.term import use_color

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color()
    monkeypatch.delenv("NO_COLOR")
    assert use_color()


def test_an_empty_no_color_leaves_colour_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # no-color.org: NO_COLOR disables colour only when present *and not empty*.
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("NO_COLOR", "")
    code, out, _ = run(["--att", "20", "--def", "10"], capsys)
    assert code == 0 and "\x1b[" in out
    monkeypatch.setenv("NO_COLOR", "yes")
    code, out, _ = run(["--att", "20", "--def", "10"], capsys)
    assert code == 0 and "\x1b[" not in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--att", "100000000", "--def", "10"], "not in the range 1<=x<=10000000"),
        (["--att", "0", "--def", "10"], "'--att': 0 is not in the range 1<=x<=10000000"),
        (["--att", "10", "--def", "10", "--att-mult", "inf"], "'--att-mult': inf is not in"),
        (["--att", "10", "--def", "10", "--att-mult", "nan"], "'nan' is not a finite number"),
        (["--att", "10", "--def", "10", "--def-mult", "-inf"], "'--def-mult': -inf is not in"),
        (["--att", "10", "--def", "10", "--att-mult", "1e300"], "range 0<x<=1000000.0"),
        (["--att", "10", "--def", "10", "--def-mult", "1e-300"], "--def and --def-mult: "),
        (["--att", "10", "--def", "10", "--plot", "x.txt"], "extension .txt; use one of .png"),
        (["--att", "10", "--def", "10", "--plot", "plot"], "no extension; use one of .png"),
    ],
)
def test_bad_option_values_exit_2(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert err.startswith("bellum: error:") and words in err and err.count("\n") == 1


def test_a_monte_carlo_of_hours_is_refused_up_front(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # numpy alone: one batch of such fights already takes longer than the limit.
    monkeypatch.setenv("BELLUM_NO_NUMBA", "1")
    code, _, err = run(["--att", "10000000", "--def", "10000000", "--runs", "1000"], capsys)
    assert code == 1 and "Monte Carlo of this fight would take about" in err
    assert "fewer troops" in err and err.count("\n") == 1


@pytest.mark.parametrize(("suffix", "magic"), [(".pdf", b"%PDF"), (".svg", b"<?xml")])
def test_plot_format_follows_the_extension(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str, magic: bytes
) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / f"odds{suffix}"
    code, out, _ = run(["--att", "40", "--def", "30", "--plot", str(target)], capsys)
    assert code == 0 and target.read_bytes().startswith(magic) and str(target) in out
