"""Cheap scratch copies of one world, for running a command many times.

``World.copy`` pickles the whole world (about 20 ms for a 64x32 map).  A
command touches a few dozen sectors at most, so a :class:`WorldTemplate`
freezes the world once and hands out scratch worlds whose sectors, units, ships and
planes are copied from the template only when the command first looks at them
(attribute by attribute where they hold only immutable values and dicts of them; a
world with anything else has its units, ships and planes unpickled per scratch world),
sharing the immutable rules tables with the template; nations (few, and every run
changes some) are copied per scratch world.  Nothing a run can change is shared
between runs.

Scans that only read go through ``peek`` (:meth:`~bellum.empire.world.World.peek`,
:func:`~bellum.empire.world.peek_items`) and copy nothing, so a scratch world also
knows which objects its run may have changed: :func:`pristine` tells the support fire
(:mod:`bellum.empire.combat.support`) when the firers it listed on the template's
objects are still this world's, without listing them again on every run.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable, Hashable, Iterator, Sequence
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

    def __init__(
        self,
        template: dict[Coord, Sector],
        rings: dict[tuple[Coord, int], Ring],
        world: WorldTemplate | None = None,
    ) -> None:
        super().__init__()
        self._template = template
        self._rings = rings
        #: The template this world is a scratch copy of.
        self.world = world

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


class _LazyObjects(dict[Any, Any]):
    """A world's units, ships or planes, each copied from the template the first time it
    is handed out (``[]``, ``get``, ``items``, ``values``); :meth:`peek` and
    :meth:`peek_items` read without copying.  Deletions and additions are kept apart
    from the template, in the order a plain dict would list them."""

    def __init__(
        self,
        template: dict[Any, Any],
        dicts: dict[Any, tuple[str, ...]],
        indexes: dict[str, dict[Any, list[Any]]] | None = None,
    ) -> None:
        super().__init__()
        self._template = template
        self._dicts = dicts
        #: The template's keys by the value of an attribute (:meth:`peek_where`), made
        #: once for every scratch world.
        self._indexes: dict[str, dict[Any, list[Any]]] = {} if indexes is None else indexes
        #: Template keys deleted, and keys set that the template does not hold where
        #: it holds them (listed last, in the order they were set).
        self._gone: set[Any] = set()
        self._added: dict[Any, None] = {}

    def _copy(self, key: Any) -> Any:
        obj = self._template[key]
        copy = object.__new__(type(obj))
        attrs = obj.__dict__.copy()
        for name in self._dicts[key]:
            attrs[name] = attrs[name].copy()
        copy.__dict__ = attrs
        dict.__setitem__(self, key, copy)
        return copy

    def _present(self, key: Any) -> bool:
        if dict.__contains__(self, key):
            return True
        return key in self._template and key not in self._gone

    def __missing__(self, key: Any) -> Any:
        if key in self._gone or key not in self._template:
            raise KeyError(key)
        return self._copy(key)

    def __setitem__(self, key: Any, value: Any) -> None:
        if not self._present(key):
            self._gone.discard(key)
            self._added[key] = None
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: Any) -> None:
        if not self._present(key):
            raise KeyError(key)
        if dict.__contains__(self, key):
            dict.__delitem__(self, key)
        self._added.pop(key, None)
        if key in self._template:
            self._gone.add(key)

    def pop(self, key: Any, *default: Any) -> Any:
        if not self._present(key):
            if default:
                return default[0]
            raise KeyError(key)
        value = self[key]
        del self[key]
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if self._present(key) else default

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if not self._present(key):
            self[key] = default
        return self[key]

    def __contains__(self, key: object) -> bool:
        return self._present(key)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.keys())

    def __len__(self) -> int:
        extra = sum(1 for k in self._added if k not in self._template)
        return len(self._template) - len(self._gone) + extra

    def keys(self) -> Any:
        if not self._gone and not self._added:
            return list(self._template)
        added = self._added
        gone = self._gone
        return [k for k in self._template if k not in gone and k not in added] + list(added)

    def values(self) -> Any:
        return [self[k] for k in self.keys()]

    def items(self) -> Any:
        return [(k, self[k]) for k in self.keys()]

    def peek(self, key: Any) -> Any:
        """The object to read only: its copy if the run made one, else the template's."""
        own = dict.get(self, key)
        if own is not None:
            return own
        if key in self._gone or key not in self._template:
            raise KeyError(key)
        return self._template[key]

    def peek_items(self) -> list[tuple[Any, Any]]:
        """:meth:`items` to read only, copying nothing."""
        if not self._gone and not self._added:
            if not dict.__len__(self):
                return list(self._template.items())
            mine = dict(dict.items(self))
            return [(k, mine.get(k, o)) for k, o in self._template.items()]
        return [(k, self.peek(k)) for k in self.keys()]

    def peek_where(self, attr: str, value: Any) -> list[tuple[Any, Any]]:
        """:meth:`peek_items` of the objects whose ``attr`` equals ``value``, in no
        particular order: the template's from an index of it, and the run's own."""
        index = self._indexes.get(attr)
        if index is None:
            index = {}
            for k, o in self._template.items():
                index.setdefault(getattr(o, attr), []).append(k)
            self._indexes[attr] = index
        template = self._template
        keys = index.get(value, ())
        if not dict.__len__(self) and not self._gone:
            return [(k, template[k]) for k in keys]
        gone = self._gone
        out = [(k, template[k]) for k in keys if k not in gone and not dict.__contains__(self, k)]
        out += [(k, o) for k, o in dict.items(self) if getattr(o, attr) == value]
        return out

    def unchanged(self) -> bool:
        """Whether every object is still equal to the template's: none added or deleted,
        and each copy made still holds what its original does."""
        if self._gone or self._added:
            return False
        template = self._template
        return all(own.__dict__ == template[k].__dict__ for k, own in dict.items(self))

    def clear(self) -> None:
        for k in self.keys():
            del self[k]

    def update(self, *args: Any, **kwargs: Any) -> None:
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def copy(self) -> dict[Any, Any]:
        return dict(self.items())

    def __eq__(self, other: object) -> bool:
        return dict(self.items()) == other

    __hash__ = None

    def __repr__(self) -> str:
        return repr(dict(self.items()))

    def __reduce__(self) -> Any:
        return (dict, (dict(self.items()),))


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
        #: The names of each unit's, ship's and plane's dict attributes, by key.
        self._dicts: list[dict[Any, tuple[str, ...]]] = [
            {k: dicts for k, _, dicts in c} for c in (copying[1:] if self._copying else [])
        ]
        #: The indexes of the units', ships' and planes' attributes
        #: (:meth:`_LazyObjects.peek_where`).
        self._indexes: tuple[dict[str, dict[Any, list[Any]]], ...] = ({}, {}, {})
        #: What the runs on scratch worlds of this template keep for one another, by
        #: key (:func:`memo`): the support fire's firers listed on the template's objects.
        self.memo: dict[Hashable, Any] = {}
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
            units=dict(w.units.items()),
            ships=dict(w.ships.items()),
            planes=dict(w.planes.items()),
        )
        return WorldTemplate(world, frozen=True)

    def scratch(self) -> World:
        """A world equal to the template's, sharing nothing a command can change."""
        w = self.frozen
        units: dict[Any, Any]
        ships: dict[Any, Any]
        planes: dict[Any, Any]
        if self._copying is not None and self._options_flat:
            options = dict(w.options)
            nations = _copies(self._copying[0])
            du, ds, dp = self._dicts
            iu, is_, ip = self._indexes
            units = _LazyObjects(w.units, du, iu)
            ships = _LazyObjects(w.ships, ds, is_)
            planes = _LazyObjects(w.planes, dp, ip)
        else:
            rest = _Unpickler(io.BytesIO(self._rest), self._shared).load()
            options, nations, units, ships, planes = rest
        return World(
            geometry=w.geometry,
            tables=w.tables,
            options=options,
            nations=nations,
            sectors=_LazySectors(w.sectors, self._rings, self),
            units=units,
            ships=ships,
            planes=planes,
        )


def template_of(world: World) -> WorldTemplate | None:
    """The template ``world`` is a scratch copy of (``None``: a world of its own)."""
    t: WorldTemplate | None = getattr(world.sectors, "world", None)
    return t


def pristine(world: World) -> WorldTemplate | None:
    """The template of a scratch ``world`` whose nations' relations and tech are still
    the template's; ``None`` otherwise.  Its units, ships and planes may have changed:
    :func:`changed` says which."""
    t = template_of(world)
    if t is None:
        return None
    for objects in (world.units, world.ships, world.planes):
        if not isinstance(objects, _LazyObjects):
            return None
    mine, theirs = world.nations, t.frozen.nations
    if mine.keys() != theirs.keys():
        return None
    for k, n in mine.items():
        o = theirs[k]
        if n.relations != o.relations or n.tech != o.tech:
            return None
    return t


def changed(objects: dict[Any, Any]) -> list[tuple[Any, Any]]:
    """The units or ships of a scratch world that may differ from the template's: each
    copy a run made that no longer equals its original, each object added (with its key),
    and each deleted (``None``); for a dict that is no scratch world's, every object."""
    if not isinstance(objects, _LazyObjects):
        return list(objects.items())
    template = objects._template
    out = [
        (k, own)
        for k, own in dict.items(objects)
        if k not in template or own.__dict__ != template[k].__dict__
    ]
    out += [(k, None) for k in objects._gone]
    return out


def own_copies(world: World) -> list[tuple[Coord, Sector]]:
    """The sectors a run on the scratch ``world`` has copied (and may have changed)."""
    return list(dict.items(world.sectors))
