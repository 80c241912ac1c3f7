"""Step 1: the target and whether it may be attacked (spec §1)."""

from __future__ import annotations

from bellum.empire.combat.state import Aborted, Combat, Failure, Mode, roundint10
from bellum.empire.events import Prompt, PromptKind
from bellum.empire.world import Relation, Sector, known, peek_items


def check_attack_target(c: Combat, target: Sector) -> None:
    """§1.2 attack items 1-2: adjacency (a sector or a unit next to it), not one's own."""
    w = c.world
    a = c.aggressor
    neigh = w.geometry.neighbours(target.xy)
    adjacent = any(w.peek(n).owner == a for n in neigh) or any(
        u.owner == a and u.xy in neigh for _, u in peek_items(w.units)
    )
    if not adjacent:
        raise Failure(f"You are not adjacent to {c.at(target.xy)}")
    if target.owner == a:
        raise Failure("You can't attack your own sector.")


SNEAK_ATTACK_COST = 5000


def slow_war(c: Combat, target: Sector) -> bool:
    """§18.2: with SLOW_WAR only enemies at war may be attacked; True for a sneak attack."""
    w = c.world
    d = target.owner
    if not c.rules.SLOW_WAR or d == 0 or target.oldowner == c.aggressor:
        return False
    me = w.nations[c.aggressor]
    if me.rel(d) == Relation.ALLIED:
        text = f"Sector is owned by {c.name(d)}, your ally, {c.verb} [yn]? "
        answer = c.ask(Prompt(text, PromptKind.ALLY))
        if answer is None or answer[:1] not in ("y", "Y"):
            raise Aborted(no_troops=False)
    if me.rel(d) == Relation.AT_WAR:
        return False
    if not c.rules.SNEAK_ATTACK or me.war_steps.get(d) or c.mode is Mode.PARADROP:
        raise Failure("You're not at war with them!", ended_ok=True)
    c.say("You're not at war with them!")
    answer = c.ask(
        Prompt(
            f"Do you really want to sneak attack (it will cost you ${SNEAK_ATTACK_COST}) [yn]? ",
            PromptKind.SNEAK,
            cost=SNEAK_ATTACK_COST,
        )
    )
    if answer is None or answer[:1] not in ("y", "Y"):
        c.say("Sneak attack cancelled!")
        raise Aborted(no_troops=False)
    return True


def declare_sneak_war(c: Combat, won: bool) -> None:
    """§18.2: after a sneak attack the aggressor pays and is on its way to war."""
    d = c.defender
    me = c.world.nations[c.aggressor]
    c.say(f"Your sneak attack was {'successful' if won else 'unsuccessful'}")
    c.say(f"it will cost you ${SNEAK_ATTACK_COST}")
    c.say("War has been declared!!!!")
    me.money = known(me.money, "the country's money") - SNEAK_ATTACK_COST
    me.relations[d] = Relation.HOSTILE
    me.war_steps[d] = "mobilizing"
    c.tell(d, f"You have been sneak attacked by {c.name(c.aggressor)}!")
    c.tell(d, f"{c.name(c.aggressor)} has declared war on you!")


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
