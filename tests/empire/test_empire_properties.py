"""Property tests over random small worlds: conservation, legal ranges, replay."""

from __future__ import annotations

from conftest import world_from
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bellum.dice import ServerRandom
from bellum.empire.combat import CombatResult, attack
from bellum.empire.events import ScriptedPrompter
from bellum.empire.io.toml import world_to_data
from bellum.empire.world import World

# The target 2,0 and its six neighbours; 0,0 and 1,31 may attack, 4,0 is a
# refuge for retreating defenders (so no unit is ever left with nowhere to go).
ATTACKERS = [(0, 0), (1, 31)]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[str, list[str], int]:
    parts = []
    for x, y in ATTACKERS:
        mil = draw(st.integers(0, 300))
        mob = draw(st.integers(0, 127))
        parts.append(
            f'[[sector]]\nat = [{x}, {y}]\ndes = "wilderness"\nowner = 1\neff = 100\n'
            f"mob = {mob}\nmil = {mil}\n"
        )
    tmil = draw(st.integers(0, 120))
    teff = draw(st.integers(0, 100))
    tdes = draw(st.sampled_from(["wilderness", "fortress", "mountain", "capital"]))
    parts.append(
        f'[[sector]]\nat = [2, 0]\ndes = "{tdes}"\nowner = 2\neff = {teff}\nmob = 80\n'
        f"mil = {tmil}\nciv = {draw(st.integers(0, 200))}\n"
    )
    parts.append('[[sector]]\nat = [4, 0]\ndes = "wilderness"\nowner = 2\neff = 100\nciv = 50\n')
    uid = 0
    for owner, at in [(1, (0, 0)), (1, (1, 31)), (2, (2, 0))]:
        for _ in range(draw(st.integers(0, 2))):
            kind = draw(st.sampled_from(["inf", "cav", "mar"]))
            cap = {"inf": 100, "cav": 20, "mar": 100}[kind]
            parts.append(
                f'[[unit]]\nuid = {uid}\ntype = "{kind}"\nowner = {owner}\nat = [{at[0]}, {at[1]}]\n'
                f"tech = 100.0\neff = {draw(st.integers(10, 100))}\nmob = {draw(st.integers(-20, 127))}\n"
                f"mil = {draw(st.integers(0, cap))}\nretreat = {draw(st.integers(0, 100))}\n"
            )
            uid += 1
    answers = [str(draw(st.integers(0, 300))) for _ in range(2)]
    answers += draw(st.lists(st.sampled_from(["y", "n", "Y", "N", "5", "50"]), max_size=12))
    return "\n".join(parts), answers, draw(st.integers(1, 2**32 - 1))


def mil_of(w: World, owner: int) -> int:
    return sum(s.mil for s in w.sectors.values() if s.owner == owner) + sum(
        u.mil for u in w.units.values() if u.owner == owner
    )


def run(text: str, answers: list[str], seed: int) -> tuple[World, World, CombatResult]:
    before = world_from(text)
    before.options["scout_estimate"] = False  # more runs reach the fight
    after = before.copy()
    r = attack(after, "2,0", 1, ServerRandom(seed), ScriptedPrompter(list(answers)))
    return before, after, r


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_soldiers_are_conserved(case: tuple[str, list[str], int]) -> None:
    before, after, r = run(*case)
    if not r.world_changed:
        return
    a0, d0 = mil_of(before, 1), mil_of(before, 2)
    a1, d1 = mil_of(after, 1), mil_of(after, 2)
    # Captured units change hands; count them where they started.
    moved = sum(
        u.mil for u in after.units.values() if u.owner == 1 and before.units[u.uid].owner == 2
    )
    a1 -= moved
    d1 += moved
    # the target's new garrison is the aggressor's: every soldier is somewhere or dead
    assert a1 + r.attacker_casualties == a0
    extra = sum(1 for t in after.telegrams if "takes extra losses" in t.text)
    if extra == 0:
        assert d1 + r.defender_casualties == d0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_values_stay_in_their_legal_ranges(case: tuple[str, list[str], int]) -> None:
    _, after, _ = run(*case)
    for s in after.sectors.values():
        assert 0 <= s.eff <= 100 and 0 <= s.mob <= 127, s
        assert s.mil >= 0 and s.civ >= 0 and 0 <= s.che <= 255
    for u in after.units.values():
        assert 0 <= u.eff <= 100 and -127 <= u.mob <= 127, u
        assert 0 <= u.mil <= u.type.milit


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_same_seed_same_transcript(case: tuple[str, list[str], int]) -> None:
    _, w1, r1 = run(*case)
    _, w2, r2 = run(*case)
    assert r1.transcript() == r2.transcript()
    assert r1.to_json() == r2.to_json()
    assert world_to_data(w1) == world_to_data(w2)
