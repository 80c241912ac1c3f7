"""An assault's exact law shown through the odds engine's report (``bellum.odds.report``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from panzer_helpers import EXAMPLES

from bellum.cli import main
from bellum.odds.report import loss_table, render_text, to_json_dict
from bellum.panzer import OUTCOMES, exact_distribution, load_scenario, monte_carlo
from bellum.panzer.distribution import Distribution

SURRENDER = str(EXAMPLES / "surrender.toml")  # succeeds in two ways, fails in a third


def law(path: str | Path = SURRENDER) -> Distribution:
    return exact_distribution(load_scenario(path))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(["panzer", "odds", *argv])
    out, err = capsys.readouterr()
    return int(exc.value.code or 0), out, err


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_the_adapter_keeps_every_probability(path: Path) -> None:
    dist = law(path)
    result = dist.odds_result()
    assert set(result.outcomes) == set(OUTCOMES)
    assert sum(result.outcomes.values()) == pytest.approx(1.0, abs=1e-12)
    assert result.p_attacker_wins == pytest.approx(dist.p_success, abs=1e-12)
    for name in OUTCOMES:
        assert result.outcomes[name] == dist.outcome(name)
    for side, attacker in (("attacker", True), ("defender", False)):
        losses = result.losses[side]
        assert losses.total == pytest.approx(1.0, abs=1e-12)
        kept = dict(zip(losses.values.tolist(), losses.probs.tolist(), strict=True))
        assert kept == pytest.approx({k: p for k, p in dist.losses(attacker).items() if p > 0})
        assert losses.mean() == pytest.approx(dist.expected_loss(attacker))
    assert result.method == "exact" and result.pruned_mass == 0.0 and result.runs is None


def test_quantiles_are_read_off_the_exact_loss_law() -> None:
    dist = law()
    losses = dist.odds_result().losses["defender"]
    cdf = 0.0
    for k, p in dist.losses(False).items():
        cdf += p
        if cdf >= 0.5 - 1e-12:
            assert losses.quantile(0.5) == k
            break


def test_a_monte_carlo_law_says_so() -> None:
    sample = monte_carlo(load_scenario(SURRENDER), 500, seed=2)
    result = sample.odds_result(seed=2)
    assert (result.method, result.runs, result.seed) == ("monte-carlo", 500, 2)
    p = sample.p_success
    assert result.standard_error == pytest.approx((p * (1 - p) / 500) ** 0.5)
    assert "500 runs, seed 2" in render_text(result)


def test_the_attacker_s_ways_of_winning_are_totalled_and_indented() -> None:
    dist = law()
    lines = render_text(dist.odds_result()).splitlines()
    assert lines[0].startswith("P(attacker wins)")
    assert [line.split()[0] for line in lines[1:6]] == [
        "P(eliminated)", "P(retreated)", "P(surrendered)", "P(held)", "P(failed)",
    ]  # fmt: skip
    assert all(line.startswith("  P(") for line in lines[1:5]) and lines[5].startswith("P(")


def test_text_output_is_the_shared_report_plus_the_assault_s_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, SURRENDER)
    assert code == 0
    result = law().odds_result()
    # The shared sections, verbatim where they do not depend on the timing.
    assert loss_table(result.losses) in out
    for section in ("attacker losses\n", "defender losses\n", "expected defender losses: "):
        assert section in out
    assert "Exact outcome of the assault on 0,0" in out
    assert "standard deviation: attacker" in out and "total probability 1.0" in out
    assert "\x1b[" not in out  # piped: no colour


def test_json_is_the_odds_report_s_document_plus_the_assault_s_keys(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run(capsys, SURRENDER, "--json")
    doc = json.loads(out)
    assert (doc["schema"], doc["schema_version"], doc["resolver"]) == (
        "bellum.panzer.odds",
        2,
        None,
    )
    generic = to_json_dict(law().odds_result())
    # every figure of the odds engine's document, under the same name and nowhere twice
    assert set(generic) - {"schema_version"} <= set(doc)
    extra = {"schema", "scenario", "target", "odds", "standard_deviations"}
    assert set(doc) - set(generic) == extra | {"resolver"}
    assert doc["method"] == "exact" and doc["model"] == "panzer-assault"
    assert doc["p_attacker_wins"] == pytest.approx(law().p_success, abs=1e-12)
    assert doc["outcomes"] == pytest.approx(generic["outcomes"])
    assert doc["quantiles"] == generic["quantiles"]
    assert set(doc["quantiles"]["defender"]) == {"5", "25", "50", "75", "95"}
    assert doc["expected_losses"]["defender"] == pytest.approx(law().expected_loss(False))
    dist = doc["distributions"]["attacker"]
    assert sum(dist["probabilities"]) == pytest.approx(1.0)
    assert dist["losses"] == sorted(dist["losses"])
    assert doc["seconds"] >= 0


def test_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "odds.png"
    code, out, _ = run(capsys, SURRENDER, "--plot", str(target))
    assert code == 0 and f"plot written to {target}" in out
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, _ = run(capsys, SURRENDER, "--json", "--plot", str(tmp_path / "b.png"))
    assert code == 0 and json.loads(out)["method"] == "exact"
    assert (tmp_path / "b.png").exists()


def test_plot_without_matplotlib_is_one_line(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None; from bellum.cli import main; "
        f"main(['panzer', 'odds', r'{SURRENDER}', '--plot', r'{tmp_path / 'x.png'}'])"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        "bellum: error: plotting needs matplotlib: pip install 'bellum[plot]'"
    )
    assert not (tmp_path / "x.png").exists()


def test_plot_to_an_unwritable_place_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    code, _, err = run(capsys, SURRENDER, "--plot", "/nonexistent/dir/x.png")
    assert code == 1 and "cannot write" in err and len(err.strip().splitlines()) == 1
