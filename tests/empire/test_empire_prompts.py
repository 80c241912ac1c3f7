"""Structured prompts: every question says what it asks for, not only how it is worded."""

from __future__ import annotations

import copy
import pickle

from conftest import EXAMPLES

from bellum import empire
from bellum.empire.events import Prompt


class ByKind:
    """Answers by meaning, as a plan or a web form would, and keeps what was asked."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers
        self.asked: list[Prompt] = []

    def ask(self, prompt: str) -> str | None:
        assert isinstance(prompt, Prompt)
        self.asked.append(prompt)
        return self.answers.get(prompt.kind)


def test_attack_prompts_carry_their_kind_and_numbers() -> None:
    world = empire.load_world(EXAMPLES / "cavalry.toml")
    asker = ByKind({"mil": "150", "unit": "y", "move_in_mil": "0", "move_in_unit": "n"})
    result = empire.attack(world, "2,0", country=1, seed=4, prompter=asker)
    kinds = [p.kind for p in asker.asked]
    assert kinds[:3] == ["mil", "unit", "unit"]
    mil = asker.asked[0]
    assert mil.info == {"at": (0, 0), "max": 199}
    assert str(mil) == "Number of mil from wilderness at 0,0 (max 199) : "
    assert [p.info["uid"] for p in asker.asked[1:3]] == [0, 1]
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


def test_a_prompt_is_its_text_and_survives_copies() -> None:
    p = Prompt("Number of mil from x (max 3) : ", "mil", at=(0, 0), max=3)
    assert p == "Number of mil from x (max 3) : " and p.startswith("Number")
    for twin in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert (str(twin), twin.kind, twin.info) == (str(p), "mil", {"at": (0, 0), "max": 3})
