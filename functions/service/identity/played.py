"""Finished casual games per person: ranked play opens to a person after a few (a smurf costs
time; docs/rules.md, "Ranked play").

When a game that is not ranked ends, each seat that a signed-in person holds at its end (not
left, not handed on to a bot) gets one `played` side item in the person's partition, written
in the room's one conditional write (`WritePlan.side_items`): committed with the end or not at
all, and keyed by the room and the write's version, so a retried write counts a game once.
`casual_games` counts them (plus the record's own `casualGames`, an operator's adjustment).
"""

from __future__ import annotations

from typing import Any

from ..features.base import Feature
from ..infra.storage import PLAYED_KIND, SideItem
from . import persons

KEPT_SECONDS = 400 * 24 * 3600  # a finished game counts for a bit over a year
COUNT_CAP = 100  # `casual_games` reads at most this many items (ranked play needs a few)


def played_items(before: dict, after: dict, version: int, now: float) -> list[SideItem]:
    """The `played` items of this write: one per person seated at the end of a casual game
    that ended in it (`before` the room as read, `after` as written)."""
    if before.get("status") != "running" or after.get("status") != "ended" or persons.ranked(after):
        return []
    key = f"{after['code']}#{version}"
    return [
        SideItem(PLAYED_KIND, seat["person"], key, {"at": int(now)}, int(now) + KEPT_SECONDS)
        for seat in after.get("players", [])
        if seat.get("person") and not seat.get("left") and not seat.get("bot")
    ]


def casual_games(store: Any, person: dict) -> int:
    """The person's finished casual games (up to `COUNT_CAP` read, plus `casualGames`)."""
    return int(person.get("casualGames", 0)) + len(store.side_items(PLAYED_KIND, person["id"], COUNT_CAP))


def _items(c: Any, state: Any, wrote: str | None) -> dict:
    return {"side_items": tuple(played_items(c.snap.room, c.room, c.snap.version + 1, c.now))}


FEATURE = Feature("played", items=_items)
