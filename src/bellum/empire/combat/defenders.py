"""Step 4: defending units present, reserve units that react, scout reports (spec §4)."""

from __future__ import annotations

from bellum.dice import ServerRandom
from bellum.empire.combat.force import spy_value
from bellum.empire.combat.state import Aborted, Combat, Fighter, ldround, roundint5, roundint10
from bellum.empire.combat.strength import defense_total, defense_value, target_multiplier
from bellum.empire.events import Prompt, PromptKind, ScoutReport
from bellum.empire.movement import path_cost, unit_kind, unitcost
from bellum.empire.rules import Rules
from bellum.empire.supply import in_supply
from bellum.empire.tables import land_def
from bellum.empire.world import LandUnit, Sector, World, peek_items, peek_where


def report(c: Combat, dest: int, u: LandUnit, spy: int, prefix: str) -> None:
    """§4.4: what ``dest``'s scouts make out of unit ``u`` (random, like the server)."""
    if dest == 0 or u.owner == 0:
        return
    line, _ = _scout_line(c, u, spy + u.type.vis, prefix)
    if line is not None:
        c.notify(dest, line, ScoutReport())


def scout_estimate(c: Combat) -> None:
    """§18.1 (seed step 3): the scouts' estimate; below 50 % the player may back out.

    The estimate counts only the mil and the units the scouts see, assumes
    100 % efficiency where they missed it, and ignores fortification, supply,
    reactions, support and mines.
    """
    assert c.target is not None
    seen = 0
    for u in c.world.units_at(c.target.xy):
        if u.owner != c.defender or u.owner == 0 or u.loaded or u.type.has("spy"):
            continue
        line, saw_eff = _scout_line(c, u, c.a_spy + u.type.vis, "Scouts report defending unit:")
        e = 0.0
        if line is not None:
            c.say(line, ScoutReport())
            e = u.mil * u.eff / 100 if saw_eff else float(u.mil)
        if not u.loaded or u.type.has("marine"):
            e *= land_def(u.type, u.tech)
        seen += int(e)
    dm = target_multiplier(c)
    est = int(int(dm * roundint10(c.d_troops)) + dm * seen)
    pct = 100 if est <= 0 else int(100 * c.ototal / (c.ototal + est))
    if pct >= 50:
        return
    c.say(f"          Estimated defense strength: {est:8d}")
    c.say(f"                      Estimated odds: {pct:8d}%")
    c.say()
    answer = c.ask(Prompt(f"Are you sure you want to {c.verb} [yn]? ", PromptKind.ABORT, odds=pct))
    if answer is None or answer[:1] not in ("y", "Y"):
        raise Aborted(no_troops=False)


def _scout_line(c: Combat, u: LandUnit, k: int, prefix: str) -> tuple[str | None, bool]:
    """The scouts' look at ``u`` with sight ``k``: the line (if seen) and whether eff was seen.

    Its draws only change what is printed (and the scouts' estimate, which only
    decides whether the player is asked to go on), so the odds engine need not
    branch on them.
    """
    d = c.dice
    with d.text_only():
        if not d.chance(k / 10):
            return None, False
        line = f"{prefix} {u.name()}"
        if not d.chance(k / 20):
            return line, False
        line += f" (eff {roundint5(u.eff)}, mil {roundint10(u.mil)}"
        if d.chance(k / 20):
            line += f", tech {max(0, int(u.tech) - 20 + d.roll(40))})"
        else:
            line += ")"
        return line, True


def present_defenders(c: Combat, report_units: bool = True) -> None:
    """§4.1: D's units in the target sector (spies hide), oldest first, each reported."""
    assert c.target is not None
    for u in c.world.units_at(c.target.xy):
        if u.owner != c.defender or u.owner == 0 or u.loaded or u.type.has("spy"):
            continue
        if report_units:
            report(c, c.aggressor, u, 0, "Scouts report defending unit:")
        supplied = in_supply(c.world, u, dice=c.dice, rules=c.rules)
        c.d_spy = max(c.d_spy, spy_value(u))
        c.d_units.insert(0, Fighter(unit=u, supplied=supplied))


def reaction_cost(
    w: World,
    u: LandUnit,
    t: Sector,
    defender: int,
    resupply: bool,
    dice: ServerRandom | None = None,
    *,
    rules: Rules,
) -> float | None:
    """§4.2 items 1-7: the mobility ``u`` would pay to react to ``t``, or None if it can't.

    Under the info page (§4.5) the player's ``lrange`` caps the type's radius before
    the HQ and reserve bonuses, and an ``lrange`` of 0 keeps the unit home.
    """
    info = rules.info_reaction
    if not may_react(u, t, defender, rules):
        return None
    if not in_supply(w, u, resupply, dice, rules=rules):
        return None
    geo = w.geometry
    here = w.sector(u.xy)
    rng = u.type.rad
    if rules.info_lrange and u.lrange is not None:
        if u.lrange == 0:
            return None
        rng = min(rng, u.lrange)
    rng += 1 if here.type.has("headquarters") and here.eff >= 60 else 0
    if info:
        rng += 2 if u.mission == "reserve" else 0
    elif geo.mapdist(t.xy, u.op_center or u.xy) > u.op_radius:
        return None
    if geo.mapdist(t.xy, u.xy) > rng:
        return None
    pc = path_cost(w, u.xy, t.xy, defender, unit_kind(u), rules=rules)
    if pc < 0 or u.mob < unitcost(u, pc):
        return None
    return unitcost(u, pc)


def may_react(u: LandUnit, t: Sector, defender: int, rules: Rules) -> bool:
    """§4.2 items 1-4, which read ``u`` only (no draw, no supply): whether
    :func:`reaction_cost` looks further."""
    if u.owner != defender or u.xy == t.xy or u.loaded:
        return False
    if not rules.info_reaction and u.mission != "reserve":
        return False
    if rules.info_reaction and u.eff <= u.retreat:
        return False
    return not (defense_value(u, rules.land_mob_max) < 1 or u.type.has("supply"))


def react(c: Combat) -> None:
    """§4.2: reserve units within reach march to the target until 1.2 x the attack."""
    assert c.target is not None
    t = c.target
    if t.type.is_mountain or c.defender == 0:
        return
    dtotal0 = defense_total(c, 1.0)
    e = target_multiplier(c)
    limit = 1.2 * c.ototal
    added = 0.0
    # Units that cannot react are passed over where they are (nothing read changes).
    units = c.world.units
    # Without the info page's reactions only reserve units react (:func:`may_react`).
    some = peek_items(units) if c.rules.info_reaction else peek_where(units, "mission", "reserve")
    able = [k for k, u in some if may_react(u, t, c.defender, c.rules)]
    for k in sorted(able):
        if not dtotal0 + added * e < limit:
            break
        u = units[k]
        cost = reaction_cost(c.world, u, t, c.defender, resupply=True, dice=c.dice, rules=c.rules)
        if cost is None:
            continue
        added += defense_value(u, c.rules.land_mob_max)
        u.mob -= ldround(cost)
        origin = u.xy
        u.x, u.y = t.xy
        c.tell(c.defender, f"{u.name()} reacts to {c.at(t.xy, c.defender)}.")
        c.d_units.insert(0, Fighter(unit=u, supplied=True, origin=origin))
        c.d_spy = max(c.d_spy, spy_value(u))
        report(c, c.aggressor, u, c.a_spy, "Scouts sight reacting enemy unit:")


def report_attackers(c: Combat) -> None:
    """§4.3: D's scouts look at the attacking units."""
    for f in c.a_units:
        report(c, c.defender, f.unit, c.d_spy, "Scouts report attacking unit:")
