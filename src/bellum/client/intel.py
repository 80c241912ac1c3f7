"""Intelligence for a player's sync: the server's information commands, read into observations.

What each command shows, how exactly and at what cost is in docs/fog.md.  A
sync runs what reads and changes nothing (``report``) by default; the rest only
when the player asks, by a flag named after its cost:

* ``spend_btus``: ``lookout`` from every own ship, ``llookout`` from every own
  land unit and ``coastwatch`` over every own sector (1 BTU each command);
* ``risk_spies``: ``spy`` from every own sector next to one not its own
  (1 BTU and 1 more per 40 sectors of the area; each spy may be caught: shot,
  which costs a mil and tells the owner and the news, or deported).

The reports become :class:`~bellum.empire.intel.model.Observation` objects
(:mod:`bellum.empire.intel.reports`) dated with the view's game time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bellum.client.session import BOZO, Session
from bellum.empire.intel.model import Observation
from bellum.empire.intel.reports import (
    Sighting,
    coastwatch_report,
    look_report,
    report_report,
    spy_report,
)
from bellum.empire.world import World


@dataclass(frozen=True)
class Gather:
    """Which costly commands a sync may run (see the module notes)."""

    spend_btus: bool = False
    risk_spies: bool = False


@dataclass
class Gathered:
    """What the commands saw, and which commands ran (with the BTUs they cost)."""

    observations: list[Observation] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    btus: int = 0
    refused: dict[str, str] = field(default_factory=dict)


def owners(world: World) -> dict[str, int]:
    """Country numbers by name, the deity's too (reports name owners)."""
    names = {n.name: c for c, n in world.nations.items()}
    names.setdefault(world.deity_name, 0)
    return names


def gather(session: Session, world: World, how: Gather = Gather()) -> Gathered:
    """Run the information commands ``how`` allows as ``world``'s viewer, and read them."""
    assert world.fog is not None, "intelligence is a player's: the deity sees everything"
    out = Gathered()
    viewer = world.fog.viewer

    def run(line: str, source: str) -> tuple[str, Sighting] | None:
        before = session.btus
        done = session.command(line)
        text = done.text()
        if text.startswith(BOZO):
            out.refused[source] = BOZO
            return None
        out.commands.append(line)
        if before is not None and done.btus is not None:
            out.btus += max(0, before - done.btus)
        return text, Sighting(viewer, world.fog.turn, world.fog.time, source,  # type: ignore[union-attr]
                              world.geometry, world.tables)  # fmt: skip

    if (r := run("report *", "report")) is not None:
        out.observations += report_report(*r)
    if how.spend_btus:
        if world.ships and (r := run("lookout *", "lookout")) is not None:
            out.observations += look_report(*r)
        if world.units and (r := run("llookout *", "llookout")) is not None:
            out.observations += look_report(*r)
        if world.sectors and (r := run("coastwatch *", "coastwatch")) is not None:
            out.observations += coastwatch_report(*r)
    if how.risk_spies:
        area = _frontier_area(world)
        if area is not None and (r := run(f"spy {area}", "spy")) is not None:
            out.observations += spy_report(r[0], r[1], owners(world))
    return out


def _frontier_area(world: World) -> str | None:
    """The smallest area (in the viewer's coordinates) holding every own sector with mil
    next to a sector not the viewer's: where spies can go."""
    geo = world.geometry
    spots = [
        geo.to_rel(xy, (0, 0))
        for xy, s in world.sectors.items()
        if s.mil > 0 and any(n not in world.sectors for n in geo.neighbours(xy))
    ]
    if not spots:
        return None
    xs, ys = [x for x, _ in spots], [y for _, y in spots]
    return f"{min(xs)}:{max(xs)},{min(ys)}:{max(ys)}"
