"""``bellum panzer``: Panzer Campaigns assault resolution."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from bellum.cli.app import cli
from bellum.cli.options import RESOLVER_RUNS_MAX, SEED_MAX, Whole
from bellum.cli.progress import progress_fraction
from bellum.dice import ServerRandom, new_seed
from bellum.errors import CommandError, UsageError
from bellum.fileio import SCENARIO as SCENARIO_FILE
from bellum.fileio import check_overwrite, check_writable, same_file
from bellum.panzer.assault import (
    AssaultBreakdown,
    AssaultPlan,
    CombatRange,
    SideTotals,
    odds_text,
    plan_assault,
)
from bellum.panzer.rules import RULE_KEYS, Rules
from bellum.panzer.scenario import load_scenario, save_scenario
from bellum.panzer.units import Kind
from bellum.term import use_color

if TYPE_CHECKING:
    from bellum.odds.result import OddsResult
    from bellum.panzer.distribution import Agreement, Distribution, Sweep
    from bellum.panzer.results import AssaultResult, SideLoss

# The odds, the distributions, the resolver and their reports (numpy) are imported by
# the commands that use them: ``bellum panzer rules`` needs none of them.

SCENARIO = click.argument("scenario", type=click.Path(dir_okay=False, path_type=str))
JSON = click.option(
    "--json", "as_json", is_flag=True, help="Print a JSON document (schema in docs/schemas/)."
)
SEED_RANGE = Whole(0, SEED_MAX)
RUNS_RANGE = Whole(1, RESOLVER_RUNS_MAX)


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


def odds_line(bd: AssaultBreakdown, p_success: float | str | None = None) -> str:
    """The line a player reads first: the odds as a ratio, and the chance of success."""
    from bellum.odds.report import percent

    line = (
        _bold(f"Odds {odds_text(bd.odds)}")
        + f" (modified assault: attackers {_num(bd.attackers.modified_assault)},"
        f" defenders {_num(bd.defenders.modified_assault)})"
    )
    if isinstance(p_success, float):
        line += "; " + _bold(f"P(success) {percent(p_success)}")
    elif p_success is not None:
        line += f"; P(success) {p_success}"
    return line


def _half_strength(u: Any) -> str:
    """Vehicles at half strength (§4.4); men for mot/mech infantry counted as vehicles."""
    if not u.penalised_vehicles:
        return "-"
    if u.vehicle_note:
        return f"{_num(u.penalised_vehicles * 10)} men"
    return f"{_num(u.penalised_vehicles)} veh"


def _side_lines(title: str, t: SideTotals) -> list[str]:
    lines = [_bold(title)]
    rows = []
    for u in t.units:
        note = "; ".join(n for n in (u.vehicle_note, u.assault_note, u.defense_note) if n)
        mod = f"{u.unit_modifier_pct:+g}%"
        total, defense = _num(u.assault_total), _num(u.defense_value)
        value, half = _num(u.assault_value), _half_strength(u)
        rows.append((u.unit_id, u.equivalent, value, half, total, defense, mod, note))
    head = ("unit", "equiv", "assault", "half strength", "assault total", "defense", "unit mod")
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
        f" (Parameter Data {cr.pair.name}_low/_high {cr.pair.low:g}/{cr.pair.high:g}"
        f" per {bd.reference_combat_value:g})"
    )
    if drawn is not None:
        text += f"; drew {drawn.drawn:.3f}, rounded {drawn.rounded}"
        if drawn.loss != drawn.rounded:
            text += f", capped {drawn.loss}"
    return text


def _exempt(h: Any) -> str:
    if h.vehicles == 0:
        return "no vehicles"
    return "yes" if h.exempt else "no"


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
                _exempt(h),
                _num(h.unsupported),
                _num(h.penalised),
            )
            for h in ca.hexes
        ]
        head = ("attack hex", "vehicles", "infantry", "support", "exempt", "unsupported")
        lines += _table((*head, "half strength"), rows, "12356")
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


def _morale(o: Any) -> str:
    from bellum.odds.report import percent

    m = o.morale
    if m is None:
        return "-"
    text = f"{m.morale} vs d6 {m.roll}: {'pass' if m.passed else 'FAIL'}"
    if m.check_probability < 1:
        text += f" ({percent(m.check_probability)} check)"
    return text


#: What one strength point of a unit is, in the Units table.
POINT_NAMES = {Kind.PERSONNEL: "men", Kind.VEHICLE: "veh", Kind.GUN: "guns"}


def result_lines(result: AssaultResult) -> list[str]:
    """The Units table: strength before, loss and after in the unit's own points (men,
    vehicles or guns, each labelled), its share of the side's loss in men-equivalents."""
    rows = []
    for o in result.units:
        after = o.unit_after
        fate = o.fate.reason if o.fate else ("advanced" if o.advanced else "")
        state = "eliminated" if after is None else after.state.value
        left = after.strength if after else 0
        role = "attacker" if o.attacker else "defender"
        unit = POINT_NAMES[o.kind]
        row = (o.unit_id, role, f"{o.strength_before} {unit}", _num(o.share), f"{o.loss} {unit}")
        rows.append((*row, _morale(o), state, f"{left} {unit}", o.fatigue_gain, fate))
    lines = ["", _bold("Units")]
    head = ("unit", "side", "before", "share (men-eq)", "loss", "morale", "state", "after")
    lines += _table((*head, "+fatigue", "fate"), rows, "23478")
    verdict = f"success, {result.outcome}" if result.success else "failed"
    taken = "taken" if result.hex_taken else "not taken"
    lines += [
        "",
        _bold(f"Outcome: {verdict}") + f" ({result.reason}); hex {taken}; losses: attackers"
        f" {result.side_loss_equivalent(True)}, defenders {result.side_loss_equivalent(False)}"
        " men-equivalents",
    ]
    return lines


def odds_lines(
    dist: Distribution,
    bd: AssaultBreakdown,
    check: Agreement | None = None,
    result: OddsResult | None = None,
    seed: int | None = None,
) -> list[str]:
    """The odds engine's report of the assault, then what only a Panzer assault has to say.

    The summary, loss table and histograms are ``bellum.odds.report``'s, as for
    ``bellum odds fight``; around them: the target, the loss unit and spread, the total
    probability as a check on the enumeration, and the ``--resolver-runs`` comparison.
    """
    from bellum.odds.report import render_text

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
        lines += ["", _bold(f"Monte Carlo of the resolver, {check.runs} runs, seed {seed}")]
        z_rows = [(q, f"{e:.5f}", f"{s:.5f}", f"{z:+.2f}") for q, e, s, z in check.rows]
        lines += _table(("quantity", "exact", "sampled", "z"), z_rows, "123")
        lines.append(
            f"  max |z| = {check.max_abs_z:.2f}"
            " (agreement: |z| < 4 on every row, 99.99% confidence per row)"
        )
    return lines


def sweep_lines(sweep: Sweep) -> list[str]:
    from bellum.odds.report import percent

    rows = []
    for row in sweep.rows:
        law = row.distribution
        rows.append(
            (
                f"{row.scale:.2g}x" + (" (as given)" if row.scale == 1 else ""),
                f"{row.strength:,}",
                _num(row.breakdown.attackers.modified_assault),
                odds_text(row.breakdown.odds),
                percent(law.p_success, 2),
                f"{law.expected_loss(True):,.1f}",
                f"{law.expected_loss(False):,.1f}",
            )
        )
    head = ("force", "strength", "assault", "odds", "P(success)", "att. losses", "def. losses")
    return [
        _bold(f"The assault on {sweep.target} with the attacking force scaled"),
        "  force: the attackers' strengths times a factor; strength: their men-equivalents;",
        "  assault: their modified assault (as in the odds line); odds and P(success): exact;",
        "  losses: expected, in men-equivalents",
        *_table(head, rows, "123456"),
    ]


def _emit(doc: dict[str, Any] | None, lines: list[str] | None) -> None:
    if doc is not None:
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo("\n".join(lines or []))


def _seed(seed: int | None) -> int:
    """The seed to use, reported on stderr first as every bellum command does."""
    used = new_seed() if seed is None else seed
    click.echo(
        f"seed: {used}" + ("" if seed is not None else f" (replay with --seed {used})"), err=True
    )
    return used


# --------------------------------------------------------------------------- commands


@panzer.command()
@SCENARIO
@click.option("--seed", type=SEED_RANGE, help="Replay this seed bit for bit.")
@JSON
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=str),
    help="Write the state after the assault here.",
)
@click.option("--force", is_flag=True, help="Let --out replace a file that is not a scenario.")
def assault(scenario: str, seed: int | None, as_json: bool, out: str | None, force: bool) -> None:
    """Resolve the assault of SCENARIO.toml and explain every number."""
    from bellum.panzer.report import assault_json
    from bellum.panzer.results import resolve_plan

    if out is not None and same_file(out, scenario):
        raise UsageError(
            f"--out {out} is the scenario itself: write the state after the assault to "
            "another file, so that the scenario can still be replayed"
        )
    if out is not None:
        check_overwrite(out, SCENARIO_FILE, force)
    s = load_scenario(scenario)
    if out is not None:
        check_writable(out)  # before the seed line and the assault, not after
    plan = plan_assault(s)
    used = _seed(seed)
    result = resolve_plan(plan, ServerRandom(used))
    if out is not None:
        save_scenario(result.scenario, out, {"last_assault": _last_assault(result)}, force=force)
    if as_json:
        _emit(assault_json(result, s.name, out), None)
        return
    lines = [_bold(f"{s.name}: assault on {plan.breakdown.target}"), odds_line(plan.breakdown), ""]
    lines += breakdown_lines(plan.breakdown, result) + result_lines(result)
    if out is not None:
        lines.append(f"State after the assault written to {out}")
    _emit(None, lines)


def _last_assault(result: AssaultResult) -> dict[str, Any]:
    return {
        "seed": result.seed,
        "target": str(result.breakdown.target),
        "outcome": result.outcome,
        "success": result.success,
        "eliminated": [o.unit_id for o in result.units if o.eliminated],
    }


def _p_success(plan: AssaultPlan) -> tuple[float | None, str]:
    """The exact P(success), or why it is not computed (an assault too big to enumerate)."""
    from bellum.panzer.distribution import check_exact_size, exact_distribution, exact_seconds

    try:
        check_exact_size(plan)
    except CommandError:
        return None, f"not computed (exact odds would take about {exact_seconds(plan):,.0f} s)"
    return exact_distribution(plan).p_success, ""


@panzer.command()
@SCENARIO
@JSON
def explain(scenario: str, as_json: bool) -> None:
    """Show the assault's odds and numbers (totals, modifiers, loss ranges) without dice."""
    from bellum.panzer.report import explain_json

    s = load_scenario(scenario)
    plan = plan_assault(s)
    p, why = _p_success(plan)
    if as_json:
        _emit(explain_json(plan.breakdown, s.name, p), None)
        return
    lead = odds_line(plan.breakdown, p if p is not None else why)
    _emit(None, [lead, "", *breakdown_lines(plan.breakdown)])


@panzer.command()
@SCENARIO
@JSON
@click.option(
    "--resolver-runs",
    "runs",
    type=RUNS_RANGE,
    default=None,
    help="Also resolve the assault N times with the resolver itself and compare.",
)
@click.option("--check", "old_runs", type=Whole(0, 10_000_000), hidden=True)
@click.option("--seed", type=SEED_RANGE, help="Seed of the --resolver-runs resolutions.")
@click.option(
    "--sweep",
    is_flag=True,
    help="Show P(success) and expected losses with the attacking force scaled 0.25x to 4x.",
)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also draw the odds (or the sweep) to FILE: .png, .svg, .pdf, ... (bellum[plot]).",
)
@click.option("--force", is_flag=True, help="Let --plot replace a file that is not an image.")
def odds(
    scenario: str,
    as_json: bool,
    runs: int | None,
    old_runs: int | None,
    seed: int | None,
    sweep: bool,
    plot: Path | None,
    force: bool,
) -> None:
    """Print the exact outcome distribution of the assault of SCENARIO.toml.

    It leads with the odds and P(success), then is shown like ``bellum odds fight``
    (docs/odds.md), with the assault's own lines around it.  --sweep shows instead how the
    chance of success and the losses change as the attacking force grows or shrinks.
    """
    from bellum.odds.report import plot_format, write_plot
    from bellum.panzer.distribution import check_runs, compare, exact_distribution, monte_carlo
    from bellum.panzer.report import assault_odds_json

    option = "--resolver-runs"
    if old_runs is not None:  # the deprecated name
        if runs is not None:
            raise UsageError("--check is the old name of --resolver-runs: give only one")
        click.echo("bellum: warning: --check is deprecated; use --resolver-runs", err=True)
        runs, option = old_runs or None, "--check"
    if seed is not None and runs is None:
        raise UsageError(f"--seed only applies with {option} N")
    if sweep and runs is not None:
        raise UsageError(f"{option} does not apply to --sweep")
    if plot is not None:
        plot_format(plot, force=force)
    s = load_scenario(scenario)
    plan = plan_assault(s)
    if sweep:
        _sweep(s.name, plan, as_json, plot, force)
        return
    if runs is not None:
        check_runs(plan, runs, option)
    started = time.perf_counter()
    dist = exact_distribution(plan)
    result = dist.odds_result(seconds=time.perf_counter() - started)
    resolver = None
    if runs is not None:
        used = _seed(seed)
        with progress_fraction("resolver runs", total=runs) as bar:
            sample = monte_carlo(plan, runs, used, progress=bar)
        resolver = (compare(dist, sample), used, sample)
    if plot is not None:
        write_plot(result, plot, force=force)
    if as_json:
        _emit(assault_odds_json(dist, plan.breakdown, s.name, result, resolver), None)
        return
    lines = [odds_line(plan.breakdown, dist.p_success), ""]
    check, used_seed = (resolver[0], resolver[1]) if resolver else (None, None)
    lines += odds_lines(dist, plan.breakdown, check, result, used_seed)
    if plot is not None:
        lines.append(f"plot written to {plot}")
    _emit(None, lines)


def _sweep(name: str, plan: AssaultPlan, as_json: bool, plot: Path | None, force: bool) -> None:
    from bellum.panzer.distribution import odds_sweep
    from bellum.panzer.report import sweep_json

    started = time.perf_counter()
    result = odds_sweep(plan)
    seconds = time.perf_counter() - started
    if plot is not None:
        from bellum.panzer.plot import write_sweep_plot

        write_sweep_plot(result, plot, force=force)
    if as_json:
        _emit(sweep_json(result, name, seconds), None)
        return
    as_given = next(row for row in result.rows if row.scale == 1)
    lines = [odds_line(plan.breakdown, as_given.distribution.p_success), ""]
    lines += sweep_lines(result)
    lines.append(f"  ({seconds:.3g} s)")
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
        from bellum.panzer.report import rules_json

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
    lines.append(
        "  spec §16 (revision 2) set the defaults; docs/panzer-defaults.md lists the old ones"
    )
    _emit(None, lines)


__all__ = ["panzer"]
