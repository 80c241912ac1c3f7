"""Step 3: attack and defense values of units, sector multipliers and totals (spec §3)."""

from __future__ import annotations

from bellum.empire.combat.state import Combat, Mode, ldround
from bellum.empire.tables import f32, land_att, land_def, ship_armor
from bellum.empire.world import LandUnit, Sector, Ship


def _men_value(mil: int, value: float, eff: int) -> float:
    """``men * value * effic / 100.0`` as 4.4.1 computes it: ``value`` is a C ``float``,
    so the product is rounded to single precision before the division in double
    (25 mil of artillery at 0.1 make 2.5, not 2.5000000372; checked on the server)."""
    return f32(f32(mil * value) * eff) / 100.0


def attack_value(u: LandUnit, mode: Mode, assault_penalty: float = 0.5) -> float:
    """``av(u, mode)`` (§3.1): what a unit adds to the attack."""
    if u.eff < 10:
        return 0.0
    v = _men_value(u.mil, land_att(u.type, u.tech), u.eff)
    marine = u.type.has("marine")
    if mode is Mode.ASSAULT and not marine:
        return assault_penalty * v
    if mode in (Mode.BOARD, Mode.LBOARD) and not marine:
        return assault_penalty * u.mil
    return v


def defense_value(u: LandUnit, land_mob_max: int = 127) -> float:
    """``dv(u)`` (§3.2): what a unit adds to the defense, before supply halving.
    Fortification counts against the game's ``land_mob_max`` (127 unless changed)."""
    if u.eff < 10:
        return 0.0
    if u.loaded and not u.type.has("marine"):
        return float(u.mil)
    v = _men_value(u.mil, land_def(u.type, u.tech), u.eff)
    v *= (land_mob_max + u.fort) / land_mob_max
    if v < 1 and u.mil > 0 and not u.type.has("spy"):
        return 1.0
    return v


def sector_offense(s: Sector, aggressor: int) -> float:
    """``om`` of a sector (§3.3); an allied host sector lends its *defense* multiplier."""
    if s.owner != aggressor:
        return sector_defense(s)
    return 1 + (s.type.offense - 1) * s.eff / 100


def sector_defense(s: Sector) -> float:
    """``dm`` of a sector (§3.3), clamped between its base and its full value."""
    base = 2.0 if s.type.is_mountain else 1.0
    d = base + (s.type.defense - base) * s.eff / 100
    return min(max(d, base), s.type.defense) if s.type.defense >= base else base


def ship_defense(sh: Ship) -> float:
    return 1 + ship_armor(sh.type, sh.tech) / 100


def target_multiplier(c: Combat) -> float:
    """``dm`` (§3.3): a boarded ship its armor, a boarded land unit 1.0, else the sector's."""
    if c.target_ship is not None:
        return ship_defense(c.target_ship)
    if c.target_unit is not None:
        return 1.0
    assert c.target is not None
    return sector_defense(c.target)


def unit_weight(c: Combat, u: LandUnit) -> float:
    """Attack: the multiplier of the off-sector the unit stands in; else 1."""
    if c.mode is not Mode.ATTACK:
        return 1.0
    for o in c.offs:
        if o.sector is not None and o.xy == u.xy:
            return o.om
    return 1.0


def offense_sum(c: Combat) -> float:
    """The attack before the support multiplier: off-objects in order, then units in
    list order (the odds engine multiplies it by each support value it meets)."""
    ap = c.rules.assault_penalty
    total = 0.0
    for o in c.offs:
        total += o.troops * o.om
    for f in c.a_units:
        total += attack_value(f.unit, c.mode, ap) * unit_weight(c, f.unit)
    return total


def offense_total(c: Combat, osup: float | None = None) -> int:
    """``ototal`` (§3.4): :func:`offense_sum` times the support multiplier, rounded."""
    return ldround((c.osup if osup is None else osup) * offense_sum(c))


def defense_sum(c: Combat) -> float:
    """The defense before the support multiplier: the garrison and every defending unit
    times the target's multiplier."""
    dm = target_multiplier(c)
    total = c.d_troops * dm
    for f in c.d_units:
        dv = defense_value(f.unit, c.rules.land_mob_max)
        if not f.supplied:
            dv /= 2
        total += dv * dm
    return total


def defense_total(c: Combat, dsup: float | None = None) -> int:
    """``dtotal`` (§3.4): :func:`defense_sum` times the support multiplier, rounded."""
    return ldround((c.dsup if dsup is None else dsup) * defense_sum(c))
