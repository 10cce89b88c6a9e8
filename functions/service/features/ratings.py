"""Ranked play's ratings as a room feature (docs/rules.md, "Ranked play"): a ranked room
(`room["ranked"]`, which only ranked quick play sets) rates its game when it ends, and writes the
ratings in the room's one conditional write (`items`: `WritePlan.side_items`), never past it.

What the room keeps (`room["rating"]`, server-only: no view or summary reads it before the end):

- `ratings`: the ratings read when each person was seated (ranked quick play, which reads the
  store: `records.season_rating`, `records.preset_entities`), by entity; a hook never reads the
  store, so the game is rated from these;
- `stints`: seat id -> who held it from when (`[entity, since, left]`), kept by `on_write` at
  every write of a running game: the game's start, a substitute or a bot taking a seat, a
  person leaving it alive; each holder's share of the game is its stints' time over the game's;
- `leaves`: the ranked leaves this game made (handle, seat, at, waived), each written as an
  `rleave` item at once (the cool-down starts with the leave) and again once a substitute or bot
  took the seat within `WAIVE_SECONDS` (waived);
- `outcome`: once rated, each seat's person (handle), standing before and after, points moved.

The end's views carry `room.ranked` (each seat's handle and tier move, the viewer's own): an
anonymous game's gate (features/aliases.py) passes it only once the game is over, and before
the end this feature adds nothing to any view.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import mafia_engine as me

from ..infra.storage import SideItem
from ..ranked import ratings as rt
from ..ranked import records
from .base import Feature, ViewParts
from .leavers import gone

WAIVE_SECONDS = 60  # a leave whose seat someone took this soon costs no cool-down


def ranked(room: dict) -> bool:
    """A ranked room (`room["ranked"]`, set by the server only: identity/persons.py `ranked`)."""
    return bool(room.get("ranked"))


def holder(room: dict, seat: dict) -> str | None:
    """Who holds a seat, as rated: its bot (one entity per preset), its person's handle."""
    if seat.get("bot"):
        return rt.bot_entity(room["preset"])
    person = seat.get("person")
    return records.handle(person) if person else None


def note_rating(room: dict, entity: str, rating: rt.Rating, season: str | None) -> None:
    """Keep an entity's rating as read (ranked quick play: a person it seats, the preset's
    pseudo-players and bot); `season` None: not a season's (pseudo-players, bots)."""
    block = room.setdefault("rating", {})
    block.setdefault("ratings", {})[entity] = {**rating.as_dict(), "season": season}


def recenter(room: dict) -> None:
    """A ranked lobby's mean: the points of the people seated (ranked quick play's band is
    measured from it; server-only, as every rating before the end)."""
    block = room.setdefault("rating", {})
    kept = block.get("ratings") or {}
    seated = [holder(room, s) for s in room["players"] if not s.get("bot")]
    pts = [rt.points(rt.Rating.of(kept[w])) for w in seated if w in kept]
    if pts:
        block["center"] = sum(pts) / len(pts)


def _rating(block: dict, entity: str, season: str) -> rt.Rating:
    kept = (block.get("ratings") or {}).get(entity)
    if kept is None or (rt.is_person(entity) and kept.get("season") != season):
        return rt.Rating()  # a new season starts every person's rating afresh
    return rt.Rating.of(kept)


def shares(stints: list[list], start: float, end: float) -> list[rt.Holder]:
    """A seat's holders and the share of the game each held it (several stints: summed)."""
    span = max(end - start, 1e-9)
    held: dict[tuple[str, bool], float] = {}
    for i, (who, since, left) in enumerate(stints):
        until = stints[i + 1][1] if i + 1 < len(stints) else end
        if who is not None:
            held[(who, left)] = held.get((who, left), 0.0) + max(0.0, until - since) / span
    if not held and stints and stints[0][0] is not None:
        held[(stints[0][0], stints[0][2])] = 1.0
    return [rt.Holder(who, share, left) for (who, left), share in held.items() if share > 0]


def _track(c: Any, state: Any, present: set[str]) -> None:
    """Every write of a ranked game: who holds each seat since when, the leaves, the end."""
    room = c.room
    if ranked(room) and room.get("status") == "lobby":
        recenter(room)  # the band's centre, with whoever joined in this write
    if not ranked(room) or state is None or room.get("status") == "lobby":
        return
    block = room.setdefault("rating", {})
    was_running = c.snap.room.get("status") == "running"
    if room.get("status") == "running" and (not was_running or "start" not in block):
        block.update(start=c.now, stints={}, leaves=[], outcome=None)  # a game starts
    if "start" not in block or block.get("outcome") is not None:
        return
    stints = block["stints"]
    for seat in room["players"]:
        who = holder(room, seat)
        mine = stints.setdefault(seat["id"], [[who, block["start"], False]])
        if mine[-1][0] != who:
            mine.append([who, c.now, False])
    for prev in gone(c.snap.room, room, state):
        who = holder(c.snap.room, prev)
        if who is None or not rt.is_person(who):
            continue
        mine = stints[prev["id"]]
        for st in mine:
            if st[0] == who:
                st[2] = True
        block["leaves"].append({"who": who, "seat": prev["id"], "at": c.now, "waived": False, "new": True})
    for leave in block["leaves"]:  # someone took the seat at once: the leave costs no wait
        taker = stints[leave["seat"]][-1][0]
        if not leave["waived"] and taker not in (None, leave["who"]) and c.now - leave["at"] <= WAIVE_SECONDS:
            leave["waived"] = leave["new"] = True
    if room.get("status") == "ended" and was_running:
        _rate(c, state, block)


def _rate(c: Any, state: Any, block: dict) -> None:
    """The game ended in this write: rate it (one `rate` call) and keep what it did."""
    room = c.room
    result = me.result(state) or {}
    season = rt.season_of(c.now)
    holders = {sid: shares(st, block["start"], c.now) for sid, st in block["stints"].items()}
    entities = {h.entity for hs in holders.values() for h in hs}
    size = len(result.get("players") or ())
    entities |= {rt.balance_entity(room["preset"], size, p["team"]) for p in result.get("players") or ()}
    before = {e: _rating(block, e, season) for e in entities}
    # a person whose rating was never read for this room (seated some other way) is rated as a
    # newcomer for the others' sake, but nothing of theirs is kept: their own rating stays as stored
    unread = {e for e in entities if rt.is_person(e) and e not in (block.get("ratings") or {})}
    rated = rt.rate_game(result, room["preset"], holders, before)
    rated = rt.Rated(
        {e: r for e, r in rated.ratings.items() if e not in unread},
        {e: ch for e, ch in rated.changes.items() if e not in unread},
    )
    for entity, r in rated.ratings.items():
        note_rating(room, entity, r, season if rt.is_person(entity) else None)
    seat_of = {}
    for sid, hs in holders.items():
        for h in hs:
            if rt.is_person(h.entity) and h.entity in rated.changes:
                seat_of.setdefault(h.entity, sid)
    block["season"] = season
    block["outcome"] = {who: {"seat": sid, **rated.changes[who]} for who, sid in seat_of.items()}
    block["rated"] = {e: r.as_dict() for e, r in rated.ratings.items()}
    block["end"] = c.now


def _items(c: Any, state: Any, wrote: str | None) -> dict:
    """The seat records of the people this write seated (one ranked game at a time:
    `records.seated_elsewhere`), the leaves this write made or waived, and at the end every
    rating and game record."""
    if not ranked(c.room):
        return {}
    out: list[SideItem] = []
    code = c.room["code"]
    had = {seat.get("person") for seat in (c.snap.room or {}).get("players", ())}
    for seat in c.room["players"]:
        if seat.get("person") and seat["person"] not in had:
            out.append(records.seat_item(seat["person"], code, c.now))
    block = c.room.get("rating") or {}
    if "start" not in block:
        return {"side_items": tuple(out)} if out else {}
    for leave in block.get("leaves") or ():
        if leave.pop("new", False):
            out.append(records.leave_item(leave["who"], code, leave["seat"], leave["at"], leave["waived"]))
    if (
        block.get("outcome") is not None
        and block.get("end") == c.now
        and c.snap.room.get("status") == "running"
    ):
        season, lang, preset = block["season"], c.room.get("lang") or "en", c.room["preset"]
        new = {e: rt.Rating.of(d) for e, d in block["rated"].items()}
        out.extend(records.rating_items(season, lang, preset, new, c.now))
        for who, ch in block["outcome"].items():
            data = {
                "room": code,
                "at": c.now,
                "preset": preset,
                "lang": lang,
                "won": ch["won"],
                "delta": ch["delta"],
                "after": ch["after"],
            }
            out.append(records.game_item(who, season, code, c.now, data))
    return {"side_items": tuple(out)}


def _view(room: dict, state: Any, viewer: str | None, parts: ViewParts) -> ViewParts:
    """`room.ranked`: in a ranked lobby its band; once the game is over each seat's handle and
    move, the viewer's own; nothing in between."""
    block = room.get("rating") or {}
    if ranked(room) and room.get("status") == "lobby" and "since" in block:
        # the band the lobby seats newcomers within, as it widens (the page states it); no rating
        band = {
            "since": block["since"],
            "start": rt.BAND_START,
            "perSecond": rt.BAND_PER_SECOND,
            "max": rt.BAND_MAX,
        }
        return replace(parts, block={**parts.block, "ranked": {"band": band}})
    if not ranked(room) or room.get("status") != "ended" or not block.get("outcome"):
        return parts
    table = [
        {"seat": ch["seat"], "handle": who, "after": ch["after"], "delta": ch["delta"], "won": ch["won"]}
        for who, ch in sorted(block["outcome"].items(), key=lambda kv: kv[1]["seat"])
    ]
    mine = next(({**ch, "handle": who} for who, ch in block["outcome"].items() if ch["seat"] == viewer), None)
    fact = {"season": block.get("season"), "table": table, "you": mine}
    return replace(parts, block={**parts.block, "ranked": fact})


FEATURE = Feature("ratings", on_write=_track, view=_view, items=_items)
