"""Observations: what a country saw of objects that are not its own, and when.

An :class:`Observation` is one object (a sector, ship, land unit, plane or
nation) as the country's reports showed it, field by field.  Each field is a
:class:`Seen`: the value printed, the interval of true values the server's
rounding allows, the game time (update number and the server's clock) and the
command it came from.  Merging a newer report into an older observation keeps,
field by field, whichever is fresher (:func:`merge`), so a later sync never
replaces a fresh sighting with a stale one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

#: The kinds of object an observation can be of, and how their keys read.
KINDS = ("sector", "ship", "unit", "plane", "nation")


@dataclass(frozen=True)
class Seen:
    """One field of one object as one report showed it.

    ``value`` is what the report printed (a number, a designation, an owner's
    number); for a number not shown exactly, ``lo`` and ``hi`` bound the true
    value (``None``: no bound on that side) and ``how`` says why (``rounded to
    10``, ``band``, ``at least``); ``how`` is ``exact`` otherwise.  ``turn`` is
    the game's update number when it was seen and ``time`` the server's clock
    (seconds since 1970); ``source`` the command.
    """

    value: int | float | str | None
    turn: int
    time: int
    source: str
    lo: float | None = None
    hi: float | None = None
    how: str = "exact"

    def fresher_than(self, other: Seen) -> bool:
        """Whether this sighting is at least as recent as ``other`` (later wins ties)."""
        return (self.turn, self.time) >= (other.turn, other.time)

    @property
    def exact(self) -> bool:
        return self.how == "exact"


@dataclass
class Observation:
    """What the country knows of one object that is not its own.

    ``kind`` is one of :data:`KINDS`; ``ident`` the object's number (a sector's
    ``x,y`` in the world's coordinates).  ``fields`` maps a field name (as the
    world's objects name it: ``mil``, ``eff``, ``type``, ``owner``, ``x``...)
    to the latest :class:`Seen` of it.
    """

    kind: str
    ident: str
    fields: dict[str, Seen] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return key_of(self.kind, self.ident)

    def get(self, name: str) -> Seen | None:
        return self.fields.get(name)

    @property
    def last_seen(self) -> tuple[int, int]:
        """The game time of its freshest field, ``(turn, time)``."""
        return max(((s.turn, s.time) for s in self.fields.values()), default=(0, 0))


def key_of(kind: str, ident: str) -> str:
    """The world's key of an observation: ``sector 3,1``, ``unit 12``..."""
    return f"{kind} {ident}"


def merge(old: Observation | None, new: Observation) -> Observation:
    """``new`` laid over ``old`` field by field, each field the fresher of the two."""
    if old is None:
        return replace(new, fields=dict(new.fields))
    fields = dict(old.fields)
    for name, seen in new.fields.items():
        if name not in fields or seen.fresher_than(fields[name]):
            fields[name] = seen
    return Observation(old.kind, old.ident, fields)


def merge_all(known: dict[str, Observation], reports: list[Observation]) -> dict[str, Observation]:
    """Every observation of ``known`` with ``reports`` merged in (:func:`merge`)."""
    out = dict(known)
    for o in reports:
        out[o.key] = merge(out.get(o.key), o)
    return out
