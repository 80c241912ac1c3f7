"""Cheap scratch copies of one world, for running a command many times.

``World.copy`` pickles the whole world (about 20 ms for a 64x32 map).  A
command touches a few dozen sectors at most, so a :class:`WorldTemplate`
freezes the world once and hands out scratch worlds whose sectors are copied
from the template only when the command first looks at them; nations, units,
ships and planes (few, and all of them may change) are copied per scratch world,
attribute by attribute where they hold only immutable values and dicts of them (else
unpickled), sharing the immutable rules tables with the template.  Nothing a run can
change is shared between runs.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from bellum.empire import tables as _tables
from bellum.empire.geometry import Coord, Geometry
from bellum.empire.world import Sector, World

_SHARED = (
    _tables.SectorType,
    _tables.LandType,
    _tables.ShipType,
    _tables.PlaneType,
    _tables.ItemType,
    _tables.Tables,
)


class _Pickler(pickle.Pickler):
    """Pickles everything but the frozen rules tables, which are referred to by id."""

    def __init__(self, file: io.BytesIO, shared: dict[int, object]) -> None:
        super().__init__(file, pickle.HIGHEST_PROTOCOL)
        self.shared = shared

    def persistent_id(self, obj: Any) -> int | None:
        if isinstance(obj, _SHARED):
            self.shared[id(obj)] = obj
            return id(obj)
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, shared: dict[int, object]) -> None:
        super().__init__(file)
        self.shared = shared

    def persistent_load(self, pid: Any) -> object:
        return self.shared[pid]


def _copy_sector(s: Sector) -> Sector:
    new = Sector.__new__(Sector)
    new.__dict__.update(s.__dict__)
    new.items = dict(s.items)
    new.thresholds = dict(s.thresholds)
    new.deliveries = dict(s.deliveries)
    return new


#: The sectors within some distance of a place in the server's scan order, from the
#: template, and the place of each in that list.
Ring = tuple[tuple[tuple[Coord, Sector], ...], dict[Coord, int]]


class _LazySectors(dict[Coord, Sector]):
    """A world's sectors, each copied from the template the first time it is read."""

    def __init__(self, template: dict[Coord, Sector], rings: dict[tuple[Coord, int], Ring]) -> None:
        super().__init__()
        self._template = template
        self._rings = rings

    def __missing__(self, key: Coord) -> Sector:
        s = _copy_sector(self._template[key])
        self[key] = s
        return s

    def peek(self, key: Coord) -> Sector:
        """The sector to read only: its copy if a run already made one, else the template's."""
        own: Sector | None = dict.get(self, key)  # unlike [], never calls __missing__
        return own if own is not None else self._template[key]

    def peek_ring(
        self, geometry: Geometry, p: Coord, d: int
    ) -> Sequence[tuple[Coord, Sector]] | None:
        """:meth:`peek` of every sector within ``d`` of ``p``, in the server's scan order
        (``None`` when one is unknown): the template's list, made once for every scratch
        world, with this world's own copies in place of its sectors (a support fire's
        forts: 217 sectors within 8 listed on every run)."""
        known = self._rings.get((p, d))
        if known is None:
            coords = list(geometry.within(p, d))
            if not all(xy in self._template for xy in coords):
                return None
            ring = tuple((xy, self._template[xy]) for xy in coords)
            known = self._rings[(p, d)] = (ring, {xy: k for k, xy in enumerate(coords)})
        ring, place = known
        if not dict.__len__(self):
            return ring
        # A run copies a few dozen sectors at most: put them in the template's list.
        out = list(ring)
        for xy, mine in dict.items(self):
            k = place.get(xy)
            if k is not None:
                out[k] = (xy, mine)
        return out

    def get(self, key: Coord, default: Any = None) -> Any:
        if key in self._template:
            return self[key]
        return default

    def __contains__(self, key: object) -> bool:
        return key in self._template

    def __len__(self) -> int:
        return len(self._template)

    def __iter__(self) -> Iterator[Coord]:
        return iter(self._template)

    def keys(self) -> Any:
        return self._template.keys()

    def values(self) -> Any:
        return [self[k] for k in self._template]

    def items(self) -> Any:
        return [(k, self[k]) for k in self._template]


#: Values a copied object may share with its template: nothing a command can change.
_IMMUTABLE = (int, float, str, bool, type(None), tuple, frozenset, *_SHARED)


#: The commonest of them, checked by type first (a template checks every object).
_ATOMS = frozenset({int, float, str, bool, type(None)})


def _immutable(x: object) -> bool:
    if type(x) in _ATOMS:
        return True
    if isinstance(x, tuple | frozenset):
        return all(_immutable(y) for y in x)
    return isinstance(x, _IMMUTABLE)


def _flat(obj: object) -> bool:
    """Whether :func:`_copies` copies ``obj`` deeply: its attributes immutable, or dicts
    of immutable keys and values."""
    for v in vars(obj).values():
        if type(v) is dict:
            if not all(_immutable(k) and _immutable(x) for k, x in v.items()):
                return False
        elif type(v) not in _ATOMS and not _immutable(v):
            return False
    return True


#: One kind of a template's objects (its units, say) as :func:`_copies` copies them: each
#: with its key and the names of its dict attributes.
Copying = list[tuple[Any, Any, tuple[str, ...]]]


def _copying(objects: dict[Any, Any]) -> Copying | None:
    """How :func:`_copies` copies ``objects``; ``None`` if one of them is not :func:`_flat`."""
    if not all(_flat(o) for o in objects.values()):
        return None
    return [
        (k, o, tuple(name for name, v in vars(o).items() if type(v) is dict))
        for k, o in objects.items()
    ]


def _copies(copying: Copying) -> dict[Any, Any]:
    """A copy of each object, its dicts copied and the rest shared (three times faster
    than a generic attribute-by-attribute copy, which looks for the dicts every time)."""
    out = {}
    new = object.__new__
    for k, obj, dicts in copying:
        copy = new(type(obj))
        attrs = obj.__dict__.copy()
        for name in dicts:
            attrs[name] = attrs[name].copy()
        copy.__dict__ = attrs
        out[k] = copy
    return out


class WorldTemplate:
    """A world frozen once; :meth:`scratch` gives a fresh, independent copy of it cheaply."""

    def __init__(self, world: World, *, frozen: bool = False) -> None:
        self.frozen = world if frozen else world.copy()
        self._shared: dict[int, object] = {}
        self._rings: dict[tuple[Coord, int], Ring] = {}
        w = self.frozen
        objects: tuple[dict[Any, Any], ...] = (w.nations, w.units, w.ships, w.planes)
        copying = [c for c in map(_copying, objects) if c is not None]
        #: How the nations, units, ships and planes are copied by :func:`_copies`
        #: (``None``: they are unpickled with the options, which one of them holds
        #: something a shallow copy would share).
        self._copying = copying if len(copying) == len(objects) else None
        self._options_flat = all(_immutable(k) and _immutable(v) for k, v in w.options.items())
        self._rest = b""
        if self._copying is None or not self._options_flat:
            buf = io.BytesIO()
            _Pickler(buf, self._shared).dump((w.options, *objects))
            self._rest = buf.getvalue()

    def edited(self, edit: Callable[[World], object]) -> WorldTemplate:
        """The template of this world changed by ``edit``, frozen without copying the
        sectors ``edit`` leaves unread (the garrisons of ``--defense-as-seen``: one
        sector's mil each, where a whole freeze of a 96x48 world takes 0.1 s)."""
        w = self.scratch()
        edit(w)
        sectors = dict(self.frozen.sectors)
        sectors.update(dict.items(w.sectors))  # the copies the edit made
        world = replace(
            self.frozen,
            options=w.options,
            nations=w.nations,
            sectors=sectors,
            units=w.units,
            ships=w.ships,
            planes=w.planes,
        )
        return WorldTemplate(world, frozen=True)

    def scratch(self) -> World:
        """A world equal to the template's, sharing nothing a command can change."""
        w = self.frozen
        if self._copying is not None and self._options_flat:
            options = dict(w.options)
            nations, units, ships, planes = (_copies(c) for c in self._copying)
        else:
            rest = _Unpickler(io.BytesIO(self._rest), self._shared).load()
            options, nations, units, ships, planes = rest
        return World(
            geometry=w.geometry,
            tables=w.tables,
            options=options,
            nations=nations,
            sectors=_LazySectors(w.sectors, self._rings),
            units=units,
            ships=ships,
            planes=planes,
        )
