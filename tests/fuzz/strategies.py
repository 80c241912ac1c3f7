"""Hypothesis strategies for what users and files feed bellum: the malformed and the hostile.

Each strategy starts from something valid (an example world, scenario, dump
or database, a command line that works) and damages it a little, so most
inputs get past the first check and reach the code behind it.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import tomli_w
from hypothesis import strategies as st

from front import ANSWERS as ANSWERS_OF_FRONT
from front import front_toml

ROOT = Path(__file__).resolve().parents[2]
EMPIRE = ROOT / "examples" / "empire"
PANZER = ROOT / "examples" / "panzer"

#: Text that broke bellum's number parsing, or that a careless parser would mistake.
NUMBERS = [
    "0", "1", "2", "7", "-1", "+5", "150", "1²", "²", "٣", "４２", "12abc", "1e3", "1.5",
    "0x10", "1_000", "9" * 19, "9" * 25, "9" * 5000, "-" + "9" * 5000, "4294967296",
    " 3", "3 ", "", " ", "--1",
]  # fmt: skip
#: Words and odd text: answers to yes/no questions, names, control characters, encodings.
WORDS = [
    "y", "n", "Y", "N", "q", "?", "yes", "no", "1", "0", "a", "jjh", "h", "\x00", "\t", "a\nb",
    "é", "\udcff", "\u202e", "x" * 300, "/", "1/2", "1/²",
]  # fmt: skip
#: Coordinates and near misses.
COORDS = [
    "0,0", "2,0", "-2,0", "4,0", "1,0", "0,99999", "0," + "9" * 5000, "²,0", "٣,1", "2,", ",",
    "2,0,0", "x,y", " 2 , 0 ", "-1", "-64,0", "63,31", "128,64",
]  # fmt: skip

TOKENS = st.sampled_from(NUMBERS + WORDS + COORDS)
#: One answer line as a player might type it (the newline separates answers).
ANSWER = st.one_of(
    st.sampled_from(NUMBERS + WORDS),
    st.text(st.characters(blacklist_characters="\n\r"), max_size=12),
)
ANSWERS = st.lists(ANSWER, max_size=10).map(lambda lines: "".join(f"{a}\n" for a in lines))


# -- command lines -----------------------------------------------------------------


class Line:
    """Draws the values of one command line, making at most one of them a mistake.

    A line of mistakes stops at the first; a line with one mistake (or none, in half
    the lines) reaches the code behind the option parser.  ``slots`` is about how many
    values the line draws."""

    def __init__(self, draw: st.DrawFn, slots: int) -> None:
        self.draw = draw
        self.slot = 0
        # Half the lines have no mistake at all.
        self.mistake = draw(st.integers(1, 2 * slots))

    def value(self, good: list[str], bad: list[str]) -> str:
        self.slot += 1
        return self.draw(st.sampled_from(bad if self.slot == self.mistake else good))

    def flag(self) -> bool:
        return self.draw(st.integers(0, 3)) == 0


# -- TOML documents ----------------------------------------------------------------

_SCALARS = st.one_of(
    st.integers(min_value=-(10**40), max_value=10**40),
    st.sampled_from([0, -1, 2**31, 2**63, -(2**63) - 1, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(NUMBERS + WORDS + COORDS),
)
VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a parsed TOML document (the root excluded)."""
    out = []
    items = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for k, v in items:
        out.append((*prefix, k))
        out += _paths(v, (*prefix, k))
    return out


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for k in path[:-1]:
        doc = doc[k]
    return doc


def _tweak(draw: st.DrawFn, v: Any) -> Any:
    """Another value of the same type: inputs that pass the type checks and reach the
    range checks and the rules behind them."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return draw(st.one_of(st.integers(-3, 300), st.sampled_from([-(2**31), 2**31 - 1, 9999])))
    if isinstance(v, float):
        return draw(st.one_of(st.floats(-10, 1000), st.sampled_from([0.0, 1e6, 1e300, -1.0])))
    if isinstance(v, str):
        return draw(st.sampled_from([v.upper(), v[:-1], v + v, "", "x", *WORDS[:12]]))
    return v


@st.composite
def mutated_doc(draw: st.DrawFn, base: dict[str, Any], steps: int = 3) -> dict[str, Any]:
    """``base`` (parsed TOML) with a few values changed, replaced, removed or added."""
    doc = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, steps))):
        paths = _paths(doc)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = _parent(doc, path)
        op = draw(st.sampled_from(["tweak"] * 5 + ["set", "delete", "add"]))
        if op == "delete":
            del parent[path[-1]]
        elif op == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["uid", "x", "mil", "owner", "zz", ""]))] = draw(VALUES)
        elif op == "tweak":
            parent[path[-1]] = _tweak(draw, parent[path[-1]])
        else:
            parent[path[-1]] = draw(VALUES)
    return doc


def _render(doc: dict[str, Any]) -> str | None:
    try:
        return tomli_w.dumps(doc)
    except (TypeError, ValueError):  # something TOML cannot hold (a list of mixed tables)
        return None


#: Damage done to a file's text after it is written: what TOML's reader itself trips over.
_TEXT_DAMAGE = st.one_of(
    st.just(""),
    st.builds(lambda n: f"\nhuge = {'9' * n}\n", st.sampled_from([20, 4400, 5000])),
    st.builds(lambda n: f"\ndeep = {'[' * n}{']' * n}\n", st.sampled_from([50, 600, 5000])),
    st.builds(lambda n: f"\ndeep = {'{a=' * n}1{'}' * n}\n", st.sampled_from([600])),
    st.just("\nhex = 0x" + "f" * 3000 + "\n"),
    st.just("\n[[sector]]\nat = [0, 0]\nthresholds = { food = 'x' }\n"),
    st.just("\n\xff\xfe garbage\n"),
)


@st.composite
def toml_file(draw: st.DrawFn, base: dict[str, Any]) -> bytes:
    """A TOML file made from ``base``: mutated, then perhaps damaged as text or cut short."""
    text = _render(draw(mutated_doc(base))) or tomli_w.dumps(base)
    if draw(st.integers(0, 3)) == 0:
        text += draw(_TEXT_DAMAGE)
    data = text.encode("utf-8", "surrogateescape")
    if draw(st.integers(0, 9)) == 0:
        data = data[: draw(st.integers(0, len(data)))]
    return data


def load_toml(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text("utf-8"))


# -- dumps -------------------------------------------------------------------------

#: What replaces one field of a dump record.
DUMP_FIELDS = st.sampled_from(
    [*NUMBERS[:20], "nil", '"x"', '"\\777"', '"unterminated', "(a b", "()", "1e999", "nan", "-0"]
)


@st.composite
def dump_text(draw: st.DrawFn, base: str) -> bytes:
    """``base`` (an Empire dump) with fields, lines or footers damaged."""
    lines = base.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["field", "field", "field", "delete", "duplicate", "footer"]))
        if op == "field":
            words = lines[i].split(" ")
            if words:
                words[draw(st.integers(0, len(words) - 1))] = draw(DUMP_FIELDS)
            lines[i] = " ".join(words)
        elif op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif lines[i].startswith("/"):
            lines[i] = "/" + draw(st.sampled_from(["²", "9" * 5000, "-1", "", "config", "1"]))
        if not lines:
            lines = [""]
    return "\n".join(lines).encode("ascii", "replace")


# -- databases ---------------------------------------------------------------------

#: JSON put into a stored object's field, or in place of a whole row.
JSON_VALUES = st.one_of(
    st.sampled_from([10**30, -(10**30), 1e308, 2**63, "x", "", [], {}, None, True, [1, 2, 3]]),
    st.integers(min_value=-(10**25), max_value=10**25),
    st.text(max_size=6),
)
RAW_ROWS = st.sampled_from(
    ['{"x":NaN}', "Infinity", "[" * 3000 + "]" * 3000, "{", "", "null", "[]", "1e999", "\x00"]
)


@st.composite
def damaged_row(draw: st.DrawFn, text: str) -> str | int | None:
    """A stored JSON row with one field changed, or replaced by something else entirely."""
    if draw(st.integers(0, 4)) == 0:
        return draw(st.one_of(RAW_ROWS, st.sampled_from([None, 7])))
    try:
        doc = json.loads(text)
    except ValueError:
        return draw(RAW_ROWS)
    paths = _paths(doc)
    if not paths:
        return json.dumps(draw(JSON_VALUES))
    path = draw(st.sampled_from(paths))
    _parent(doc, path)[path[-1]] = draw(JSON_VALUES)
    return json.dumps(doc)


# -- the examples' own orders ------------------------------------------------------

#: Each example world with an order that runs on it and the answers its README gives.
PLAYS: list[tuple[str, list[str], str]] = [
    ("air-support.toml", ["attack", "2,0"], "100\n0\n"),
    ("allied-fort.toml", ["attack", "2,0"], "y\ny\n"),
    ("assault.toml", ["assault", "0,0", "0"], "24\n"),
    ("board.toml", ["board", "1", "0"], "50\n"),
    ("cavalry.toml", ["attack", "2,0"], "150\ny\nn\n50\ny\n"),
    ("interdiction.toml", ["attack", "2,0"], "100\ny\n200\ny\n"),
    ("landing.toml", ["assault", "4,0", "1"], "98\n"),
    ("lboard.toml", ["lboard", "0", "0,0"], "100\n"),
    ("paradrop.toml", ["paradrop", "0", "", "0,0", "jj"], ""),
    ("reaction.toml", ["attack", "2,0"], "317\ny\n0\n"),
    ("scouts.toml", ["attack", "-14,2"], "10\ny\nn\nn\n"),
    ("vector-a.toml", ["attack", "2,0"], "150\n0\n"),
]
PLAY = st.sampled_from(PLAYS)


FRONT = front_toml()
FRONT_ANSWERS = ANSWERS_OF_FRONT
