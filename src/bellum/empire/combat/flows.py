"""What the five combat commands share: running a flow, reading numbers, the end.

Every command (``attack``, ``assault``, ``paradrop``, ``board`` and ``lboard``,
spec §16.1-16.4) runs its flow through :func:`run_flow`, which checks the BTUs
(§15) and turns the flow's exceptions into the server's closing lines and a
:class:`~bellum.empire.combat.result.CombatResult`.
"""

from __future__ import annotations

from collections.abc import Callable

from bellum.dice import ServerRandom
from bellum.empire.combat import defenders, fight, support
from bellum.empire.combat.result import COMMAND_BTU, CombatResult, Outcome
from bellum.empire.combat.state import (
    Aborted,
    Combat,
    CommandSpec,
    Failure,
    Mode,
    OffObject,
    Stop,
    UsageFailure,
)
from bellum.empire.combat.strength import attack_value, defense_total, offense_total
from bellum.empire.events import (
    Closing,
    EventKind,
    Prompt,
    Prompter,
    PromptKind,
    Refusal,
    Sink,
    SourceNote,
    UnitNote,
)
from bellum.empire.rules import Rules
from bellum.empire.world import World, known
from bellum.errors import InputError
from bellum.numbers import c_atoi as atoi
from bellum.numbers import numstr


def play(
    spec: CommandSpec,
    world: World,
    aggressor: int,
    dice: ServerRandom,
    prompter: Prompter,
    args: list[str | None],
    support: list[str],
    *,
    sink: Sink | None,
    rules: Rules,
    stop_at: Stop | None = None,
) -> CombatResult:
    """Run the command ``spec`` as country ``aggressor`` under ``rules``: its flow with
    its argument words (``None`` for those it asks for) and support words (§16), up to
    ``stop_at`` if given."""
    c = Combat(
        world, dice, prompter, aggressor, spec.mode, rules, spec.wording, sink=sink,
        stop_at=stop_at,
    )  # fmt: skip
    result = CombatResult(spec.name, dice.seed, Outcome.ABORTED, aggressor, rules=rules)
    return run_flow(c, result, lambda: spec.flow(c, args, support, result))


def run_flow(c: Combat, result: CombatResult, flow: Callable[[], None]) -> CombatResult:
    """Run ``flow`` with the BTU check of §15 and the ends of §16 (usage, failure, abort).

    Usage errors cost nothing; failures and aborts cost the command's 3 BTU.
    """
    nation = c.world.nations.get(c.aggressor)
    if nation is None:
        raise InputError(f"there is no country {c.aggressor} in this world", field="country")
    if known(nation.btu, "the country's BTUs") < COMMAND_BTU and not c.rules.BLITZ:
        c.say("You don't have the BTUs, bozo", Refusal())
        result.outcome = Outcome.REFUSED
        _announce_telegrams(c)
        result.events = c.events
        return result
    try:
        flow()
    except UsageFailure as exc:
        if exc.reason:
            c.say(exc.reason, Refusal())
        c.say(exc.usage, Refusal(usage=True))
        result.outcome = Outcome.USAGE
    except Failure as exc:
        c.say(exc.reason, Refusal())
        if exc.aborted:
            c.say(c.wording.aborted, Closing())
        elif not exc.ended_ok:
            c.say("command failed", Closing())
        result.outcome = Outcome.REFUSED
        result.btu_charged = COMMAND_BTU
        if result.world_changed:
            c.world.charge_btus(c.aggressor, COMMAND_BTU)
    except Aborted as exc:
        c.say(c.wording.aborted, Closing())
        if exc.no_troops:
            _no_troops_line(c)
        result.outcome = Outcome.ABORTED
        result.btu_charged = COMMAND_BTU
        if result.world_changed:
            c.world.charge_btus(c.aggressor, COMMAND_BTU)
    _announce_telegrams(c)
    result.events = c.events
    return result


def _announce_telegrams(c: Combat) -> None:
    """What the server says about telegrams after every command (``status`` in
    ``player.c``): those the player had yet to hear of, and one for those the command
    sent it (they arrive within seconds of each other, and ``wu`` counts such a run as
    one); then it counts from 0 again.  With ``inform`` they were announced already."""
    nation = c.world.nations[c.aggressor]
    sent = any(e.kind is EventKind.TELEGRAM and e.to == c.aggressor for e in c.events)
    count = nation.tgms + sent
    if nation.inform:
        nation.tgms = count
    elif count:
        nation.tgms = 0
        many = "a new telegram" if count == 1 else f"{numstr(count)} new telegrams"
        c.say(f"You have {many} waiting ...")


def ask_arg(c: Combat, given: str | None, prompt: str) -> str | None:
    """The server's ``getstarg``: the argument if one was given (not empty), else the
    answer to ``prompt``, ``None`` at end of input or an abort (§1.1)."""
    return given if given else c.ask(Prompt(prompt, PromptKind.ARGUMENT))


def ask_text(c: Combat, given: str | None, prompt: str, usage: str) -> str:
    """An argument from the command line, else the server's prompt; EOF is a usage error."""
    answer = ask_arg(c, given, prompt)
    if answer is None or not answer.strip():
        raise UsageFailure(usage)
    return answer.strip()


def ask_word(c: Combat, given: str | None, prompt: str, usage: str) -> str:
    """An argument read with :func:`ask_arg`; end of input is a usage error, but an
    empty answer is an answer (C's ``atoi`` reads it as 0, checked against 4.4.1)."""
    answer = ask_arg(c, given, prompt)
    if answer is None:
        raise UsageFailure(usage)
    return answer.strip()


def ask_number(c: Combat, given: str | None, prompt: str, usage: str) -> int:
    """A ship or unit number (§1.1) read as 4.4.1 reads it, with C's ``atoi``: an empty
    or unparsable answer is 0 and ``2x`` is 2; a negative number or EOF is a usage error."""
    n = atoi(ask_word(c, given, prompt, usage))
    if n < 0:
        raise UsageFailure(usage)
    return n


def announce_mil(c: Combat, o: OffObject) -> None:
    """The server's first look at an off-object: ``No mil`` or ``Only 1 mil`` there."""
    where = f"on {o.ship.title()}" if o.ship is not None else f"in {c.at(o.xy)}"
    about = SourceNote(ship=o.ship.uid) if o.ship is not None else SourceNote(at=o.xy)
    if o.mil == 0:
        c.say(f"No mil {where}", about)
    elif o.mil == 1:
        c.say(f"Only 1 mil {where}", about)


def no_troops(c: Combat, where: str) -> None:
    """§3.4: nothing to fight with; the command is aborted."""
    _no_troops_line(c, where)
    raise Aborted


def _no_troops_line(c: Combat, where: str | None = None) -> None:
    """``No troops for <verb>...``: the owner of the target (at ``where``, by default
    where the target is) hears that A thought about it, every time the line is
    printed (an abort after no troops prints it a second time)."""
    target = c.target_ship or c.target_unit or c.target
    if where is None and target is not None:
        where = c.at(target.xy, c.defender)
    if where is not None and c.defender != c.aggressor:
        c.tell(
            c.defender, f"{c.natid(c.aggressor)} considered {c.wording.considering} you @{where}"
        )
    c.say(f"No troops for {c.verb}...", Closing())


def ask_mil(c: Combat, o: OffObject, limit_of: Callable[[int], int], announce: bool = True) -> int:
    """§2.3 for a ship or a boarding sector: ``limit_of(avail)`` is the mode's limit.

    ``announce`` first says how little mil there is, unless the flow already
    did (see :func:`announce_mil`).  Returns the mil committed (also stored
    as the object's troops).
    """
    if announce:
        announce_mil(c, o)
    avail = max(0, o.mil - 1)
    if avail == 0:
        return 0
    limit = limit_of(avail)
    if limit <= 0:
        return 0
    if o.ship is not None:
        text = f"Number of mil from {o.ship.title()} (max {limit}) : "
        prompt = Prompt(text, PromptKind.MIL, ship=o.ship.uid, most=limit)
    else:
        assert o.sector is not None
        prompt = Prompt(
            f"Number of mil from {o.sector.type.name} at {c.at(o.xy)} (max {limit}) : ",
            PromptKind.MIL,
            at=o.xy,
            most=limit,
        )
    answer = c.ask(prompt)
    n = atoi(answer)
    if answer is None or n < 0:
        raise Aborted
    n = min(n, limit, avail)
    if n <= 0:
        return 0
    o.troops = o.troops0 = n
    return n


def drop_powerless(c: Combat) -> None:
    """§3.4 re-validation: units without offensive strength leave (spies in an assault)."""
    ap = c.rules.assault_penalty
    for f in list(c.a_units):
        if attack_value(f.unit, c.mode, ap) < 1.0:
            c.say(f"{f.unit.name()} has no offensive strength", UnitNote(f.unit.uid))
            c.a_units.remove(f)


def initial_strength(c: Combat, result: CombatResult, where: str) -> None:
    """§3.4: the initial attack strength, or the end of a command that has no troops."""
    c.ototal = offense_total(c)
    result.initial_attack = c.ototal
    if c.ototal <= 0:
        no_troops(c, where)
    if c.mode is not Mode.PARADROP:
        c.say()
        c.say(f"             Initial attack strength: {c.ototal:8d}")


def defend_and_fight(
    c: Combat, wanted: tuple[bool, bool, bool, bool], result: CombatResult
) -> None:
    """§4-§7 for a sector target: defenders, reaction, scouts, support, header, plague, fight.

    With the scouts' estimate on (§18.1, not for paradrop) the defenders are
    looked at once, by the estimate, and the player may back out.
    """
    estimate = c.rules.scout_estimate and c.mode is not Mode.PARADROP
    if estimate:
        defenders.scout_estimate(c)
    defenders.present_defenders(c, report_units=not estimate)
    before = defense_total(c, 1.0)
    defenders.react(c)
    defenders.report_attackers(c)
    after = defense_total(c, 1.0)
    if after != before:
        c.say(f"Defense strength with reacting units: {after:8d}")
    support.support(c, wanted)
    fight_out(c, result)


class FightReached(Exception):
    """Raised where the fight would begin when the run stops there (``stop_at="fight"``).

    It carries the combat, set up as the fight finds it, and the result so far.
    """

    def __init__(self, c: Combat, result: CombatResult) -> None:
        super().__init__("the fight begins")
        self.combat = c
        self.result = result


def fight_out(c: Combat, result: CombatResult) -> None:
    """§6.1, §7 and §6.2: the header (its numbers go into the result), plague, the fight.

    Every command's fight starts here, so this is where the odds engine stops the
    real flow (``stop_at="fight"``) and takes over with its exact solvers.
    """
    fight.header(c)
    for f in c.a_units:
        f.eff = f.unit.eff
    result.final_attack, result.final_defense = c.ototal, c.dtotal
    result.odds_percent = int(c.odds0 * 100)
    if c.stop_at == "fight":
        raise FightReached(c, result)
    fight.plague(c)
    fight.fight(c)
