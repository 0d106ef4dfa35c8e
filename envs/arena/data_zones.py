"""DataZone (Animal-AI v4.1.0): a trigger that records when the agent enters and leaves it, and gives nothing.

Why a module of its own: a data zone is a measuring device for experimenters (which region did the
agent visit, when), so its record must be exact and separate from the rules. ``DataZone.cs``
(v4.1.0) raises "in" when the agent enters and is not already inside, and "out" when it leaves, each
with the zone's ``TriggerZoneID`` (the item's ``triggerZoneID[0]``, shared by every zone of the entry);
``zoneVisibility: false`` hides it (its renderers are disabled), and it stays a trigger. The zone is
a box of its (0.999-adjusted) size standing on the floor (``Prefab.AdjustY``: centre at y + h/2 + 0.01).
"""

from __future__ import annotations

from dataclasses import dataclass

from agentkit.envs.animalai_common.geometry import sphere_box_distance
from agentkit.envs.animalai_common.items import AGENT_DIAMETER, Vec
from agentkit.envs.animalai_common.layout import PlacedItem


@dataclass(frozen=True)
class DataZoneEvent:
    """One crossing of a data zone's boundary by the agent."""

    item_id: int
    zone_id: str | None  # the file's triggerZoneID
    event: str  # "enter" or "exit"
    update: int  # physics updates since the episode began (3 per step)

    def keys(self):  # so dict(event) gives a JSON-able record
        return ("item_id", "zone_id", "event", "update")

    def __getitem__(self, key: str):
        return getattr(self, key)


class DataZoneTracker:
    """Whether the agent is inside each data zone, and every entry and exit, in order."""

    def __init__(self, zones: list[PlacedItem]) -> None:
        self.zones = zones
        self.inside = {zone.id: False for zone in zones}
        self.events: list[DataZoneEvent] = []

    def update(self, agent_centre: Vec, update: int) -> list[DataZoneEvent]:
        """The events of one physics update with the agent's sphere centred at ``agent_centre``."""
        new = []
        for zone in self.zones:
            now = sphere_box_distance(agent_centre, zone.boxes()[0]) < AGENT_DIAMETER / 2
            if now != self.inside[zone.id]:
                self.inside[zone.id] = now
                new.append(
                    DataZoneEvent(zone.id, zone.params.trigger_zone_id, "enter" if now else "exit", update)
                )
        self.events.extend(new)
        return new

    def visits(self, zone_id: str | None = None) -> int:
        """How many times the agent entered (the zones named ``zone_id``, or any)."""
        return sum(1 for e in self.events if e.event == "enter" and (zone_id is None or e.zone_id == zone_id))
