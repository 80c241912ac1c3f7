"""Every fact a reader needs is a typed field beside the exact text, never its wording.

The web page, the odds engine and the live check read these facts; a rewording of a
line in the rules must not change what they understand.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from conftest import EXAMPLES

from bellum import empire
from bellum.empire import (
    Closing,
    EventKind,
    Outcome,
    PlaneStatus,
    Prompt,
    PromptKind,
    Refusal,
    SourceNote,
    UnitNote,
)
from bellum.empire.events import Event, said
from bellum.empire.io.sqlite.codec import events_from_json, events_json

SRC = Path(__file__).resolve().parents[2] / "src" / "bellum"


def facts(result: empire.CombatResult) -> list[tuple[str, object]]:
    return [(line, fact) for line, fact in said(result.events) if fact is not None]


def test_a_refusal_is_its_reason_and_the_closing_line_is_marked() -> None:
    world = empire.load_world(EXAMPLES / "vector-a.toml")
    r = empire.run_command(world, "attack 10,0", country=1, seed=1)
    assert r.outcome is Outcome.REFUSED and r.outcome == "refused"
    assert r.refusal == "You are not adjacent to 10,0"
    assert facts(r) == [
        ("You are not adjacent to 10,0", Refusal()),
        ("command failed", Closing()),
    ]


def test_a_usage_error_marks_its_usage_line() -> None:
    world = empire.load_world(EXAMPLES / "board.toml")
    r = empire.run_command(world, "lboard 1 0,0", country=1, seed=1)
    refusals = [(line, f) for line, f in facts(r) if isinstance(f, Refusal)]
    assert r.outcome is Outcome.USAGE
    assert refusals[-1] == ("Usage: lboard <to-LAND> [<from-sector>]", Refusal(usage=True))
    assert r.refusal == refusals[-1][0]


def test_sources_and_units_are_named_by_their_numbers() -> None:
    world = empire.load_world(EXAMPLES / "cavalry.toml")
    world.sectors[(0, 0)].mob = 1  # too little mobility for all its mil
    world.units[1].mob = 0
    r = empire.run_command(world, "attack 2,0", country=1, seed=4, answers=["0", "n"])
    notes = facts(r)
    assert (
        "Sector 0,0 has 1 mobility which can only support 2 mil,",
        SourceNote(at=(0, 0)),
    ) in notes
    unit = world.units[1]
    assert (f"{unit.name()} is out of mobility, and cannot attack", UnitNote(1)) in notes


def test_planes_say_whether_they_stand_by() -> None:
    world = empire.load_world(EXAMPLES / "paradrop.toml")
    r = empire.run_command(world, "paradrop 0 . 0,0 4,0", country=1, seed=7)
    status = [f for _, f in facts(r) if isinstance(f, PlaneStatus)]
    assert status == [PlaneStatus(0, ready=True)]


def test_a_question_event_carries_its_prompt() -> None:
    world = empire.load_world(EXAMPLES / "vector-a.toml")
    r = empire.run_command(world, "attack 2,0", country=1, seed=1, answers=["150", "0"])
    asked = [e for e in r.events if e.kind is EventKind.PROMPT]
    first = asked[0].fact
    assert isinstance(first, Prompt) and first.text == asked[0].text
    assert (first.kind, first.at, first.most) == (PromptKind.MIL, (0, 0), 199)


def test_facts_are_not_part_of_the_record() -> None:
    """The history keeps the text; a replay compares it, and the facts come with the run."""
    text = Event(EventKind.TEXT, "command failed\n", fact=Closing())
    assert text == Event(EventKind.TEXT, "command failed\n")
    world = empire.load_world(EXAMPLES / "vector-a.toml")
    r = empire.run_command(world, "attack 10,0", country=1, seed=1)
    back = events_from_json(events_json(r.events))
    assert back == r.events and all(e.fact is None for e in back)
    assert json.loads(events_json(r.events))[0] == {
        "kind": "text",
        "text": "You are not adjacent to 10,0\n",
        "to": 0,
        "answer": None,
    }


def test_the_json_document_names_its_schema() -> None:
    world = empire.load_world(EXAMPLES / "vector-a.toml")
    doc = empire.run_command(world, "attack 2,0", country=1, seed=1, answers=["150", "0"])
    out = doc.to_json()
    assert (out["schema"], out["schema_version"], out["outcome"]) == (
        "bellum.empire.combat",
        1,
        "captured",
    )
    assert json.loads(json.dumps(out))["outcome"] == "captured"


def test_readers_outside_the_rules_do_not_parse_transcripts() -> None:
    """The web page's games and the odds engine read facts: they have no regular expressions."""
    readers = [SRC / "web" / "games.py", *sorted((SRC / "empire" / "odds").glob("*.py"))]
    for path in readers:
        tree = ast.parse(path.read_text())
        imported = {
            a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names
        }
        assert "re" not in imported, f"{path.relative_to(SRC)} imports re"
