"""Structured prompts: every question says what it asks for, not only how it is worded."""

from __future__ import annotations

import copy
import pickle
import re
from dataclasses import replace

import pytest
from conftest import EXAMPLES

from bellum import empire
from bellum.empire.events import Prompt, PromptKind, ScriptedPrompter, parse_prompt
from bellum.empire.geometry import Geometry


class ByKind:
    """Answers by meaning, as a plan or a web form would, and keeps what was asked."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers
        self.asked: list[Prompt] = []

    def ask(self, prompt: Prompt) -> str | None:
        self.asked.append(prompt)
        return self.answers.get(prompt.kind)


def test_attack_prompts_carry_their_kind_and_numbers() -> None:
    world = empire.load_world(EXAMPLES / "cavalry.toml")
    asker = ByKind({"mil": "150", "unit": "y", "move_in_mil": "0", "move_in_unit": "n"})
    result = empire.attack(world, "2,0", country=1, seed=4, prompter=asker)
    kinds = [p.kind for p in asker.asked]
    assert kinds[:3] == ["mil", "unit", "unit"]
    mil = asker.asked[0]
    assert (mil.at, mil.most) == ((0, 0), 199)
    assert str(mil) == "Number of mil from wilderness at 0,0 (max 199) : "
    assert [p.uid for p in asker.asked[1:3]] == [0, 1]
    assert "move_in_mil" in kinds
    assert result.outcome == "captured"


def test_scouts_question_is_the_abort_kind() -> None:
    world = empire.load_world(EXAMPLES / "scouts.toml")
    world.options["scout_estimate"] = True
    asker = ByKind({"mil": "10", "unit": "y", "abort": "n"})
    result = empire.attack(world, "-14,2", country=1, seed=1, prompter=asker)
    abort = [p for p in asker.asked if p.kind == "abort"]
    assert len(abort) == 1 and str(abort[0]).startswith("Are you sure you want to attack")
    assert result.outcome == "aborted"


def test_a_missing_argument_is_asked_as_an_argument() -> None:
    world = empire.load_world(EXAMPLES / "vector-a.toml")
    asker = ByKind({})
    empire.run_command(world, "attack", country=1, seed=1, prompter=asker)
    assert [(str(p), p.kind) for p in asker.asked] == [("Sector :  ", "argument")]


def test_a_prompt_prints_as_its_text_and_survives_copies() -> None:
    p = Prompt("Number of mil from x (max 3) : ", PromptKind.MIL, at=(0, 0), most=3)
    assert str(p) == p.text == "Number of mil from x (max 3) : "
    assert Prompt("x", "mil").kind is PromptKind.MIL  # a kind's name is its value
    for twin in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert twin == p and twin.kind is PromptKind.MIL


class Generous(ScriptedPrompter):
    """The header's piped answers first, then all that each question allows.

    The example headers answer with named options (``--mil``, ``--unit``...);
    answering every question with its most asks every question the world has.
    """

    def ask(self, prompt: Prompt) -> str | None:
        if self.answers:
            return super().ask(prompt)
        self.asked.append(prompt)
        if prompt.kind in ("mil", "move_in_mil"):
            return str(prompt.most)
        return "y" if prompt.kind in ("unit", "move_in_unit", "abort", "ally", "sneak") else None


#: The combat commands (an example's header may show ``odds`` too).
COMBAT = "attack|assault|paradrop|board|lboard"


def example_orders() -> list[tuple[str, str, list[str], int, str]]:
    """The commands each example world's header shows: (file, order, answers, seed, country)."""
    found = []
    for path in sorted(EXAMPLES.glob("*.toml")):
        for line in path.read_text().splitlines():
            m = re.match(r"#\s+(?:printf '([^']*)' \| )?bellum empire (" + COMBAT + r") (.*?)"
                         r" --world .*--seed (\d+)", line)  # fmt: skip
            if m:
                answers = (
                    m.group(1).encode().decode("unicode_escape").splitlines() if m.group(1) else []
                )
                who = re.search(r" --as (\S+)", line)
                country = who.group(1) if who else "1"
                order = f"{m.group(2)} {m.group(3)}"
                found.append((path.name, order, answers, int(m.group(4)), country))
    return found


@pytest.mark.parametrize(("name", "order", "answers", "seed", "country"), example_orders())
def test_every_question_parses_back_from_its_text(
    name: str, order: str, answers: list[str], seed: int, country: str
) -> None:
    """What a live server asks is read back into the Prompt the rules would have asked:
    the same kind and numbers, from the wording alone (scouts' odds aside)."""
    world = empire.load_world(EXAMPLES / name)
    world.options["scout_estimate"] = True  # the abort question too
    asker = Generous(list(answers))
    empire.run_command(world, order, country=country, seed=seed, prompter=asker)
    nation = world.find_nation(country)
    assert nation is not None
    ox, oy = nation.origin  # the text is in the country's coordinates
    for asked in asker.asked:
        parsed = parse_prompt(asked.text, world.geometry)
        if parsed.at is not None:
            x, y = parsed.at
            parsed = replace(parsed, at=world.geometry.norm(x + ox, y + oy))
        if asked.kind == "argument":  # the path's "<3: 2,0> " is no argument to a server
            assert parsed.kind in ("other", "argument") and parsed == Prompt(
                asked.text, parsed.kind
            ), repr(asked)
        else:
            assert parsed == replace(asked, odds=None), repr(asked)


def test_question_kinds_seen_in_the_examples_cover_every_kind_with_numbers() -> None:
    seen: set[str] = set()
    for name, order, answers, seed, country in example_orders():
        world = empire.load_world(EXAMPLES / name)
        world.options["scout_estimate"] = True
        asker = Generous(list(answers))
        empire.run_command(world, order, country=country, seed=seed, prompter=asker)
        seen |= {parse_prompt(str(p), world.geometry).kind for p in asker.asked}
    assert {"mil", "unit", "move_in_mil", "move_in_unit", "abort"} <= seen


def test_server_wording_parses_with_player_coordinates() -> None:
    geo = Geometry(32, 16)
    p = parse_prompt("Number of mil from airfield at -2,0 (max 99) : ", geo)
    assert (p.kind, p.at, p.most) == ("mil", (30, 0), 99)
    p = parse_prompt("Number of mil from tt   troop transport (#4) (max 20) : ")
    assert (p.kind, p.ship, p.most) == ("mil", 4, 20)
    assert parse_prompt("Victim ship #?  ").kind == "argument"
    assert parse_prompt("escort(s)? ").kind == "argument"
    p = parse_prompt("Do you really want to sneak attack (it will cost you $100) [yn]? ")
    assert (p.kind, p.cost) == ("sneak", 100)
    assert parse_prompt("Sector is owned by Bar, your ally, attack [yn]? ").kind == "ally"
    assert parse_prompt("<3: 2,0> ").kind == "other"
