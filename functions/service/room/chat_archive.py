"""The chat archive: messages that left the engine's bounded chat window, kept in CHAT# items,
and the whole chat of an ended game read back from them page by page (the `chatLog` frame).

The engine's window evicts per channel (a message drops only older ones of its own channel),
and the archive buffers per channel too, in the room data. When an archive item is written
(the room write becomes a transaction) must not tell anyone how much was said where they
cannot read (docs/architecture.md, "Chat archive"): a public channel's batch (every spectator
reads `day` and `system` in every preset) is written in whichever request fills it; another
channel's batch only in a request whose own frame wrote to that channel, i.e. one of its
writers' requests. A bot's line (written by the room's wake) may leave such a buffer over the
batch size until the next human line there; nothing is written at the end of the game (the reader takes the
buffers from the room data), so the request that ends the game writes what it would anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

import mafia_engine as me

from ..features.base import Feature
from ..infra.errors import ServiceError
from ..protocol.server_frames import ChatLogPage, encode
from ..protocol.views import VIEW_CHAT_LIMIT
from .change import Context, Effects, Outcome

if TYPE_CHECKING:
    from ..infra.storage import Store

ARCHIVE_BATCH = 25  # chat messages per archive item (one channel's)
PUBLIC_CHANNELS = frozenset({"day", "system"})  # read by spectators in every preset, all game long
PAGE_BYTES = 24_000  # `chatLog` lines per answer (JSON bytes): one frame stays under 32 KB
_LINE = TypeAdapter(dict[str, Any])

# A `chatLog` page reads at most PAGE_ITEMS archive items with one Query, newest first, and
# returns every line of each item it read: what a page costs never grows with the game.
PAGE_ITEMS = 4
# A page's position (`before`, `from`): item * CURSOR + line. The archive's items are whole
# pages' worth (line 0: the items before `item`); the lines still in the room data (buffers
# and the engine's window, "the tail") are item `seq + 1`, paged by line within PAGE_BYTES.
CURSOR = 100_000
CHAT_LOG_INTERVAL = 0.5  # seconds between two `chatLog` pages of one connection
# After the end the table may talk a little, then chat closes: nothing renews the room's
# lifetime by chat past POST_GAME_CHAT_SECONDS after its end, and nothing is archived then.
POST_GAME_CHAT_SECONDS = 600.0
POST_GAME_CHAT_LINES = 100


def _archive(room: dict) -> dict:
    """The room's archive record, `{"seq", "first", "buffers": {channel: [message]}}`; a room
    stored before per-channel buffers has one `buffer` of every channel, split here."""
    archive = room.setdefault("archive", {"seq": 0, "first": 1, "buffers": {}})
    # a room stored before `first` existed: its items may hold earlier games' lines too (the
    # old code wrote each game's rest at its end), so its log starts after them
    archive.setdefault("first", archive["seq"] + 1)
    buffers = archive.setdefault("buffers", {})
    for m in archive.pop("buffer", None) or []:
        buffers.setdefault(m.get("channel"), []).append(m)
    return archive


def collect(
    room: dict, before: dict | None, after: dict | None, wrote: str | None = None
) -> list[tuple[int, list[dict]]]:
    """Buffer the messages the change evicted, per channel; return the archive items to write
    now as (seq, messages). `wrote` is the channel the request's own frame wrote to (a chat
    action), whose full batch may be written now like a public channel's."""
    if after is None:
        return []
    archive = _archive(room)
    if before is None:  # a new game: its archive starts after the last game's items
        archive["first"] = archive["seq"] + 1
        archive["buffers"] = {}
        archive.pop("afterEnd", None)
        return []
    kept = {m.get("id") for m in after.get("chat") or [] if isinstance(m, dict)}
    for m in before.get("chat") or []:
        if isinstance(m, dict) and m.get("id") not in kept:
            archive["buffers"].setdefault(m.get("channel"), []).append(m)
    if (before.get("phase") or {}).get("kind") == "ended":
        return []  # after-game lines (at most POST_GAME_CHAT_LINES) stay in the room data
    items = []
    for channel in sorted(archive["buffers"], key=str):
        batch = archive["buffers"][channel]
        if len(batch) >= ARCHIVE_BATCH and (channel in PUBLIC_CHANNELS or channel == wrote):
            archive["seq"] += 1
            items.append((archive["seq"], batch))
            archive["buffers"][channel] = []
    return items


# ---------------------------------------------------------------- reading it back: `chatLog`
def _order(m: dict) -> tuple:
    """Game order: by time, then channel, then the number in the id ("day:12")."""
    n = str(m.get("id", "")).rpartition(":")[2]
    return (m.get("at") or 0.0, str(m.get("channel")), int(n) if n.isdigit() else 0)


def page(lines: list[dict], shown: set, before: int | None, frame_id: Any) -> bytes:
    """The `chatLog` answer: the newest lines of `lines[:before]` that fit `PAGE_BYTES`, without
    those the viewer's view already carries (`shown`), and `from`, the `before` of the next
    older page (0: the first line of the game is in this one)."""
    out, start = _fit(lines, shown, len(lines) if before is None else min(before, len(lines)))
    return _answer(frame_id, out, start)


def _answer(frame_id: Any, lines: list[dict], start: int) -> bytes:
    return encode(ChatLogPage(id=frame_id, lines=lines, from_=start))


def _fit(lines: list[dict], shown: set, end: int) -> tuple[list[dict], int]:
    """The newest lines of `lines[:end]` (not in `shown`) that fit PAGE_BYTES, oldest first,
    and the index of the oldest one."""
    start, size, out = end, 0, []
    while start > 0:
        m = lines[start - 1]
        if m.get("id") not in shown:
            raw = _LINE.dump_json(m)  # the bytes this line takes in the page
            if out and size + len(raw) > PAGE_BYTES:
                break
            size += len(raw) + 1
            out.append(m)
        start -= 1
    out.reverse()
    return out, start


def tail(room: dict, state: dict) -> list[dict]:
    """The current game's lines not yet in an archive item (the buffers in the room data and
    the engine's window), in game order: read with the room, no Query of their own."""
    seen: dict[Any, dict] = {}
    for batch in _archive(room)["buffers"].values():
        for m in batch:
            seen.setdefault(m.get("id"), m)
    for m in state.get("chat") or []:
        seen.setdefault(m.get("id"), m)
    return sorted(seen.values(), key=_order)


def log_page(
    store: Store, code: str, room: dict, state: dict, read: set, shown: set, before: Any, frame_id: Any
) -> bytes:
    """One `chatLog` page (positions: `CURSOR`). From the end: the tail's newest lines within
    PAGE_BYTES; once the tail is in, the archive items newest first, PAGE_ITEMS per page with
    one Query that reads only the items the page returns (storage.chat_items)."""
    archive = _archive(room)
    first, tail_item = archive["first"], archive["seq"] + 1
    item, line = divmod(before, CURSOR) if before is not None else (tail_item, CURSOR - 1)
    if item >= tail_item and (line or before is None):
        lines = [m for m in tail(room, state) if m.get("channel") in read]
        out, start = _fit(lines, shown, min(line, len(lines)) if item == tail_item else len(lines))
        if start:
            return _answer(frame_id, out, tail_item * CURSOR + start)
        return _answer(frame_id, out, tail_item * CURSOR if first < tail_item else 0)
    last = min(item, tail_item) - 1
    if last < first:
        return _answer(frame_id, [], 0)
    items = store.chat_items(code, first, last, PAGE_ITEMS)
    lines = [m for _, batch in items for m in batch if m.get("channel") in read and m.get("id") not in shown]
    oldest = min((seq for seq, _ in items), default=first)
    return _answer(frame_id, sorted(lines, key=_order), oldest * CURSOR if oldest > first else 0)


def after_end_chat(c: Context) -> None:
    """Before an after-game `chat`: refused (`chat_closed`) past POST_GAME_CHAT_SECONDS after
    the end or past POST_GAME_CHAT_LINES lines, so chat neither keeps an ended room alive
    nor grows it (docs/rules.md, "Room rules")."""
    archive = _archive(c.room)
    said = archive.get("afterEnd", 0)
    if c.now - c.room.get("endedAt", 0.0) > POST_GAME_CHAT_SECONDS or said >= POST_GAME_CHAT_LINES:
        raise ServiceError(
            "chat_closed",
            f"chat closes {POST_GAME_CHAT_SECONDS / 60:g} minutes or {POST_GAME_CHAT_LINES} lines after the end of the game",
        )
    archive["afterEnd"] = said + 1


def chat_log(c: Context, store: Store, conn_id: str, frame: Any) -> Outcome:
    """`chatLog`: one page of the ended game's whole chat, to the sender only; nothing is
    written. The channels are the ones the sender's view reads (after the end: every channel,
    for players and spectators alike, as the review shows everything); before the end the
    frame is refused, so no archived line reaches anyone while the game runs."""
    if c.state is None or c.room["status"] != "ended" or c.state["phase"]["kind"] != "ended":
        raise ServiceError("not_ended", "the whole chat opens when the game is over")
    last = c.snap.conn_log.get(conn_id)
    too_fast = ServiceError(
        "rate_limited",
        f"one chatLog page per {CHAT_LOG_INTERVAL:g} s per connection, please wait a moment",
    )
    if last is not None and c.now - last < CHAT_LOG_INTERVAL:
        raise too_fast  # nothing read or written past the room's Query
    if not store.mark_chat_log(c.snap.code, conn_id, c.now, last):
        raise too_fast  # another page of this connection got there first
    view = me.view(c.state, c.snap.conns[conn_id])
    read = set(view["channels"]["read"])
    shown = {m.get("id") for m in view["chat"][-VIEW_CHAT_LIMIT:]}
    page = log_page(store, c.snap.code, c.room, c.state, read, shown, frame.before, frame.id)
    return c.unchanged(Effects(replies={conn_id: page}))


# ---------------------------------------------------------------- the feature (features/base.py)
def _archive_items(c: Context, state: Any, wrote: str | None) -> dict:
    """The archive items this write stores (`WritePlan.chat_items`)."""
    return {"chat_items": tuple(collect(c.room, c.before, state, wrote))}


FEATURE = Feature("chat_archive", items=_archive_items)
