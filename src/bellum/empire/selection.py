"""How the server reads a list of objects or a sector from a command argument.

Commands that take planes (``paradrop``, ``bomb``, ``fly``...), ships or
land units accept the same selectors (the server's ``snxtitem``):

* ``3`` or ``3/7/12``: those numbers, in the order given (repeats dropped);
* ``*``: all of them;
* ``x,y`` or ``lx:hx,ly:hy``: those in a sector or an area (the player's coordinates);
* ``@x,y:d``: those within distance ``d`` of ``x,y``;
* a letter: a wing (planes), fleet (ships) or army (land units); ``~`` for none.

Anything else (``.``, ``-1``, an empty string) selects nothing, which each
command treats in its own way: ``paradrop`` answers a missing escort list with
``No escorts...``.  Realms (``#``) and conditions (``?type=tr``) need state that
bellum's worlds do not keep, so they are refused with an :class:`InputError`.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from bellum.empire.geometry import Coord, Geometry
from bellum.errors import InputError
from bellum.numbers import c_strtol

#: The most numbers one list may hold (the server's ``NS_LSIZE``).
LIST_LIMIT = 128


class Placed(Protocol):
    @property
    def xy(self) -> Coord: ...


T = TypeVar("T", bound=Placed)


@dataclass
class Picked:
    """What a selector chose, and the complaints the server prints while reading it.

    ``notes`` are raw output text (each normally ends with a newline).
    ``uids`` is ``None`` when the argument selects nothing (the server's
    ``snxtitem`` failing); otherwise it holds the matching uids in the order
    the server visits them.
    """

    uids: list[int] | None
    notes: list[str] = field(default_factory=list)


def _ends(text: str, i: int) -> bool:
    """The argument ends at ``i`` (the end, or a blank)."""
    return i >= len(text) or text[i] in string.whitespace


def parse_xy(text: str, geo: Geometry, origin: Coord) -> Coord | None:
    """The server's ``sarg_xy``: ``x,y`` in the player's coordinates, or None.

    Blanks may precede each number and follow the pair; x + y must be even.
    """
    got = c_strtol(text, 0)
    if got is None or got[1] >= len(text) or text[got[1]] != ",":
        return None
    x, i = got
    got = c_strtol(text, i + 1)
    if got is None or not _ends(text, got[1]):
        return None
    y = got[0]
    rx, ry = x % geo.width, y % geo.height
    if (rx ^ ry) & 1:
        return None
    return geo.to_abs((rx, ry), origin)


def parse_numbers(text: str) -> Picked:
    """The server's ``sarg_list``: ``n/n/n`` with repeats dropped, or its complaint."""
    out: list[int] = []
    i = 0
    while True:
        got = c_strtol(text, i)
        if got is None or got[0] < 0:
            if i >= len(text):  # the server prints a NUL here, which ends its line early
                return Picked(None, ["Illegal character '"])
            return Picked(None, [f"Illegal character '{text[i]}'\n"])
        n, i = got
        if n not in out:
            if len(out) >= LIST_LIMIT:
                return Picked(None, [f"List too long (limit is {LIST_LIMIT})\n"])
            out.append(n)
        if i < len(text) and text[i] == "/":
            i += 1
            continue
        break
    if not _ends(text, i):
        return Picked(None, [f"Expecting '/', got '{text[i]}'\n"])
    return Picked(out)


def _area(text: str, geo: Geometry, origin: Coord) -> Callable[[Coord], bool] | None:
    """``lx[:hx],ly[:hy]``: a test for absolute coordinates, or None if malformed."""
    bounds: list[tuple[int, int]] = []
    i = 0
    for axis, size in enumerate((geo.width, geo.height)):
        got = c_strtol(text, i)
        if got is None:
            return None
        low, i = got
        high = low
        if i < len(text) and text[i] == ":":
            got = c_strtol(text, i + 1)
            if got is None:
                return None
            high, i = got
        if axis == 0:
            if i >= len(text) or text[i] != ",":
                return None
            i += 1
        bounds.append(((low + origin[axis]) % size, (high + origin[axis]) % size))
    if not _ends(text, i):
        return None
    (lx, hx), (ly, hy) = bounds
    return lambda c: _in_span(c[0], lx, hx) and _in_span(c[1], ly, hy)


def _in_span(v: int, low: int, high: int) -> bool:
    """``low..high`` on a wrapping axis (``low > high`` wraps around)."""
    return low <= v <= high if low <= high else v >= low or v <= high


def _near(text: str, geo: Geometry, origin: Coord) -> Callable[[Coord], bool] | None:
    """``@x,y:d``: a test for absolute coordinates, or None if malformed."""
    got = c_strtol(text, 1)
    if got is None or got[1] >= len(text) or text[got[1]] != ",":
        return None
    x, i = got
    got = c_strtol(text, i + 1)
    if got is None or got[1] >= len(text) or text[got[1]] != ":":
        return None
    y, i = got
    got = c_strtol(text, i + 1)
    if got is None or got[0] < 0 or not _ends(text, got[1]):
        return None
    d = got[0]
    centre = geo.to_abs((x % geo.width, y % geo.height), origin)
    return lambda c: geo.mapdist(c, centre) <= d


def select(
    objects: Mapping[int, T],
    text: str | None,
    geo: Geometry,
    origin: Coord,
    group_of: Callable[[T], str],
) -> Picked:
    """The objects an argument names, in the server's order (see the module docstring).

    ``group_of`` gives an object's wing, fleet or army letter ("" for none).
    """
    if not text:
        return Picked(None)
    if text.startswith("?"):
        raise InputError(f"{text!r}: bellum does not support conditions (?...) in object lists")
    first = text[0]
    if first == "@":
        test = _near(text, geo, origin)
    elif first == "*":
        test = _everything
    elif first == "#":
        raise InputError(f"{text!r}: bellum keeps no realms, so realm selectors (#) are refused")
    elif "," in text:
        test = _area(text, geo, origin)
    elif first in string.digits:
        picked = parse_numbers(text)
        if picked.uids is not None:
            picked.uids = [n for n in picked.uids if n in objects]
        return picked
    elif first == "~" or first in string.ascii_letters:
        wanted = "" if first == "~" else first
        return Picked([uid for uid, o in sorted(objects.items()) if group_of(o) == wanted])
    else:
        return Picked(None)
    if test is None:
        return Picked(None)
    return Picked([uid for uid, o in sorted(objects.items()) if test(o.xy)])


def _everything(c: Coord) -> bool:
    return True
