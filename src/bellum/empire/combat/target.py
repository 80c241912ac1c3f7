"""Step 1: the target and whether it may be attacked (spec §1)."""

from __future__ import annotations

from bellum.empire.combat.state import Combat, Failure, Mode, roundint10
from bellum.empire.world import Sector


def check_attack_target(c: Combat, target: Sector) -> None:
    """§1.2 attack items 1-2: adjacency (a sector or a unit next to it), not one's own."""
    w = c.world
    a = c.aggressor
    neigh = w.geometry.neighbours(target.xy)
    adjacent = any(w.sector(n).owner == a for n in neigh) or any(
        u.owner == a and u.xy in neigh for u in w.units.values()
    )
    if not adjacent:
        raise Failure(f"You are not adjacent to {c.at(target.xy)}")
    if target.owner == a:
        raise Failure("You can't attack your own sector.")


def show_sector(c: Combat, s: Sector) -> None:
    """§1.3: the rounded look at the target."""
    c.say(
        f"{c.at(s.xy)} is a {roundint10(s.eff)}% {c.name(s.owner)} {s.type.name}"
        f" with approximately {roundint10(s.mil)} military."
    )


def parse_support(args: list[str]) -> tuple[bool, bool, bool, bool] | str:
    """§2.1: forts, ships, units ("arty") and planes; all four or none.

    Returns the four flags, or the complaint (all four stay requested).
    """
    if not args:
        return (True, True, True, True)
    if len(args) < 4:
        return "If any support arguments are used, all must be!"
    f, s, u, p = (a[:1] in ("y", "Y") for a in args[:4])
    return (f, s, u, p)


def passable_or_abort(c: Combat, target: Sector) -> str | None:
    """§1.2 item 4: sea, sanctuary and wasteland cannot be fought over."""
    if target.type.impassable:
        return f"You can't {c.verb} a {target.type.name} sector!"
    if c.mode is Mode.ASSAULT and target.type.is_mountain:
        return "You can't assault a mountain sector!"
    return None
