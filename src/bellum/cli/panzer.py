"""``bellum panzer``: Panzer Campaigns assault resolution."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from bellum.cli.app import cli
from bellum.dice import ServerRandom, new_seed
from bellum.errors import UsageError
from bellum.fileio import SCENARIO as SCENARIO_FILE
from bellum.fileio import check_overwrite
from bellum.odds.report import plot_format, render_text, write_plot
from bellum.odds.result import OddsResult
from bellum.panzer.assault import AssaultBreakdown, CombatRange, SideTotals, plan_assault
from bellum.panzer.distribution import (
    Agreement,
    Distribution,
    check_runs,
    compare,
    exact_distribution,
    monte_carlo,
)
from bellum.panzer.report import assault_json, breakdown_json, odds_json, rules_json
from bellum.panzer.results import AssaultResult, SideLoss, resolve_plan
from bellum.panzer.rules import RULE_KEYS, Rules
from bellum.panzer.scenario import load_scenario, save_scenario
from bellum.term import use_color

SCENARIO = click.argument("scenario", type=click.Path(dir_okay=False, path_type=str))
JSON = click.option(
    "--json", "as_json", is_flag=True, help="Print a JSON document (schema in docs)."
)


@cli.group()
def panzer() -> None:
    """Panzer Campaigns assaults: resolve, explain and compute exact odds."""


# --------------------------------------------------------------------------- rendering helpers


def _bold(text: str) -> str:
    return click.style(text, bold=True) if use_color() else text


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: str = "") -> list[str]:
    """Aligned columns; columns whose index is in ``right`` (as digits) are right-aligned."""
    cells = [[str(h) for h in headers], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for n, row in enumerate(cells):
        parts = [
            c.rjust(w) if str(i) in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  " + "  ".join(parts).rstrip())
        if n == 0:
            lines.append("  " + "  ".join("-" * w for w in widths))
    return lines


def _num(x: float) -> str:
    return f"{x:,.2f}".rstrip("0").rstrip(".") if x != int(x) else f"{int(x):,}"


def _side_lines(title: str, t: SideTotals) -> list[str]:
    lines = [_bold(title)]
    rows = []
    for u in t.units:
        note = "; ".join(n for n in (u.assault_note, u.defense_note) if n)
        pen = _num(u.penalised_vehicles) if u.penalised_vehicles else "-"
        mod = f"{u.unit_modifier_pct:+g}%"
        total, defense = _num(u.assault_total), _num(u.defense_value)
        rows.append(
            (u.unit_id, u.equivalent, _num(u.assault_value), pen, total, defense, mod, note)
        )
    head = ("unit", "equiv", "assault", "half-str veh", "assault total", "defense", "unit mod")
    lines += _table((*head, "notes"), rows, "12345")
    lines.append(
        f"  total assault {_num(t.total_assault)}, average defense {t.average_defense:.3f}"
    )
    for m in t.modifiers:
        lines.append(f"  {m.name:<19} {m.pct:+7.1f}%  {m.reason}")
    lines.append(
        f"  modified assault = {_num(t.total_assault)} x {t.factor:.4g}"
        f" = {_num(t.modified_assault)}"
    )
    return lines


def _range_line(cr: CombatRange, bd: AssaultBreakdown, drawn: SideLoss | None) -> str:
    text = (
        f"  losses to {cr.losing_side}: {_num(cr.assault)} / {cr.defense:.3f}"
        f" = combat value {cr.combat_value:.2f} -> {cr.low:.2f} .. {cr.high:.2f} men-equiv"
        f" (LCV {bd.assault_low:g}, HCV {bd.assault_high:g},"
        f" reference {bd.reference_combat_value:g})"
    )
    if drawn is not None:
        text += f"; drew {drawn.drawn:.3f}, rounded {drawn.rounded}"
        if drawn.loss != drawn.rounded:
            text += f", capped {drawn.loss}"
    return text


def breakdown_lines(bd: AssaultBreakdown, result: AssaultResult | None = None) -> list[str]:
    origin = ", ".join(map(str, bd.attack_hexes))
    lines = [
        *_side_lines(f"Attackers ({bd.attackers.side}) from {origin}", bd.attackers),
        "",
        *_side_lines(f"Defenders ({bd.defenders.side}) in {bd.target}", bd.defenders),
        "",
    ]
    ca = bd.combined_arms
    lines.append(_bold("Combined arms") + f": {ca.reason}")
    if ca.hexes:
        rows = [
            (
                str(h.hex),
                _num(h.vehicles),
                h.infantry,
                _num(h.support),
                "yes" if h.exempt else "no",
                _num(h.unsupported),
                _num(h.penalised),
            )
            for h in ca.hexes
        ]
        head = ("attack hex", "vehicles", "infantry", "support", "exempt", "unsupported")
        lines += _table((*head, "half-str"), rows, "12356")
    if bd.hard_share is not None:
        lines.append(
            "Alternative Assault Resolution: hard-target share of the defenders "
            f"{bd.hard_share[0]:.3f}, of the attackers {bd.hard_share[1]:.3f}"
        )
    lines += ["", _bold("Combat results")]
    to_def = None if result is None else result.losses_to_defenders
    to_att = None if result is None else result.losses_to_attackers
    lines.append(_range_line(bd.against_defenders, bd, to_def))
    lines.append(_range_line(bd.against_attackers, bd, to_att))
    return lines


def result_lines(result: AssaultResult) -> list[str]:
    rows = []
    for o in result.units:
        m = o.morale
        morale = (
            "-" if m is None else f"{m.morale} vs d6 {m.roll}: {'pass' if m.passed else 'FAIL'}"
        )
        after = o.unit_after
        fate = o.fate.reason if o.fate else ("advanced" if o.advanced else "")
        state = "eliminated" if after is None else after.state.value
        left = after.strength if after else 0
        side = "A" if o.attacker else "D"
        share = _num(o.share)
        row = (o.unit_id, side, o.strength_before, share, o.loss, morale, state, left)
        rows.append((*row, o.fatigue_gain, fate))
    lines = ["", _bold("Units")]
    head = ("unit", "side", "before", "share", "loss", "morale", "state", "after", "+fatigue")
    lines += _table((*head, "fate"), rows, "23478")
    verdict = "SUCCESS" if result.success else "FAILED"
    taken = "taken" if result.hex_taken else "not taken"
    lines += [
        "",
        _bold(f"Outcome: {verdict} ({result.outcome})")
        + f"; hex {taken}; losses: attackers {result.side_loss_equivalent(True)},"
        f" defenders {result.side_loss_equivalent(False)} men-equivalents",
    ]
    return lines


def odds_lines(
    dist: Distribution,
    bd: AssaultBreakdown,
    check: Agreement | None,
    result: OddsResult | None = None,
) -> list[str]:
    """The odds engine's report of the assault, then what only a Panzer assault has to say.

    The summary, loss table and histograms are ``bellum.odds.report``'s, as for
    ``bellum odds fight``; around them: the target, the loss unit and spread, the total
    probability as a check on the enumeration, and the ``--check`` comparison.
    """
    result = dist.odds_result() if result is None else result
    lines = [
        _bold(f"Exact outcome of the assault on {bd.target}"),
        render_text(result, color=use_color()),
        "",
        "losses in men-equivalents, surrenders included; standard deviation:"
        f" attacker {dist.loss_sd(True):.2f}, defender {dist.loss_sd(False):.2f}",
        f"total probability {dist.total:.12f}",
    ]
    if check is not None:
        lines += ["", _bold(f"Monte Carlo of the resolver, {check.runs} runs")]
        z_rows = [(q, f"{e:.5f}", f"{s:.5f}", f"{z:+.2f}") for q, e, s, z in check.rows]
        lines += _table(("quantity", "exact", "sampled", "z"), z_rows, "123")
        lines.append(
            f"  max |z| = {check.max_abs_z:.2f}"
            " (agreement: |z| < 4 on every row, 99.99% confidence per row)"
        )
    return lines


def _emit(doc: dict[str, Any] | None, lines: list[str] | None) -> None:
    if doc is not None:
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo("\n".join(lines or []))


# --------------------------------------------------------------------------- commands


@panzer.command()
@SCENARIO
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), help="Replay this seed bit for bit.")
@JSON
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=str),
    help="Write the state after the assault here.",
)
@click.option("--force", is_flag=True, help="Let --out replace a file that is not a scenario.")
def assault(scenario: str, seed: int | None, as_json: bool, out: str | None, force: bool) -> None:
    """Resolve the assault of SCENARIO.toml and explain every number."""
    if out is not None and _same_file(out, scenario):
        raise UsageError(
            f"--out {out} is the scenario itself: write the state after the assault to "
            "another file, so that the scenario can still be replayed"
        )
    if out is not None:
        check_overwrite(out, SCENARIO_FILE, force)
    s = load_scenario(scenario)
    plan = plan_assault(s)
    used = new_seed() if seed is None else seed
    result = resolve_plan(plan, ServerRandom(used))
    if out is not None:
        save_scenario(result.scenario, out, {"last_assault": _last_assault(result)}, force=force)
    if as_json:
        _emit(assault_json(result, s.name, out), None)
        return
    lines = [_bold(f"{s.name}: assault on {plan.breakdown.target} (seed {used})"), ""]
    lines += breakdown_lines(plan.breakdown, result) + result_lines(result)
    if out is not None:
        lines.append(f"State after the assault written to {out}")
    lines.append(f"Replay with --seed {used}")
    _emit(None, lines)


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: the same path, a link to it, or a hard link."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): compare where they would be
        return os.path.realpath(a) == os.path.realpath(b)


def _last_assault(result: AssaultResult) -> dict[str, Any]:
    return {
        "seed": result.seed,
        "target": str(result.breakdown.target),
        "outcome": result.outcome,
        "success": result.success,
        "eliminated": [o.unit_id for o in result.units if o.eliminated],
    }


@panzer.command()
@SCENARIO
@JSON
def explain(scenario: str, as_json: bool) -> None:
    """Show the assault's numbers (totals, modifiers, loss ranges) without rolling dice."""
    s = load_scenario(scenario)
    bd = plan_assault(s).breakdown
    _emit(breakdown_json(bd) if as_json else None, None if as_json else breakdown_lines(bd))


@panzer.command()
@SCENARIO
@JSON
@click.option(
    "--check",
    "runs",
    type=click.IntRange(0, 10_000_000),
    default=0,
    help="Also run the resolver N times and compare.",
)
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), help="Seed of the --check Monte Carlo.")
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also plot the distributions to FILE (.png, .pdf, .svg, ...; needs bellum[plot]).",
)
@click.option("--force", is_flag=True, help="Let --plot replace a file that is not an image.")
def odds(
    scenario: str, as_json: bool, runs: int, seed: int | None, plot: Path | None, force: bool
) -> None:
    """Print the exact outcome distribution of the assault of SCENARIO.toml.

    Shown like ``bellum odds fight`` (docs/odds.md), with the assault's own lines around it.
    """
    if seed is not None and not runs:
        raise UsageError("--seed only applies with --check N")
    if plot is not None:
        plot_format(plot, force=force)
    s = load_scenario(scenario)
    plan = plan_assault(s)
    if runs:
        check_runs(plan, runs)
    started = time.perf_counter()
    dist = exact_distribution(plan)
    result = dist.odds_result(seconds=time.perf_counter() - started)
    check = None
    used = None
    if runs:
        used = new_seed() if seed is None else seed
        check = compare(dist, monte_carlo(plan, runs, used))
    if plot is not None:
        write_plot(result, plot, force=force)
    if as_json:
        _emit(odds_json(dist, plan.breakdown, s.name, check, used, result), None)
        return
    lines = odds_lines(dist, plan.breakdown, check, result)
    if used is not None:
        lines.append(f"  Monte Carlo seed {used}")
    if plot is not None:
        lines.append(f"plot written to {plot}")
    _emit(None, lines)


@panzer.command("rules")
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=str))
@JSON
def rules_cmd(scenario: str | None, as_json: bool) -> None:
    """List every configurable rule with its current value and how sure the spec is."""
    rules: Rules = load_scenario(scenario).rules if scenario else Rules()
    if as_json:
        _emit(rules_json(rules), None)
        return
    rows = []
    for k in RULE_KEYS:
        value = rules[k.name]
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        mark = "" if value == k.default else " *"
        rows.append((k.name, shown + mark, k.tag, f"§{k.section}", k.doc))
    lines = _table(("key", "value", "tag", "spec", "meaning"), rows)
    lines.append("  * differs from the default; set keys in the scenario's [rules] table")
    _emit(None, lines)


__all__ = ["panzer"]
