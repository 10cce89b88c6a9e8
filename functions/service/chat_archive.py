"""The chat archive: messages that left the engine's bounded chat window, kept in CHAT# items,
and the whole chat of an ended game read back from them page by page (the `chatLog` frame).

The engine's window evicts per channel (a message drops only older ones of its own channel),
and the archive buffers per channel too, in the room data. When an archive item is written
(the room write becomes a transaction) must not tell anyone how much was said where they
cannot read (docs/architecture.md, "Chat archive"): a public channel's batch (every spectator
reads `day` and `system` in every preset) is written in whichever request fills it; another
channel's batch only in a request whose own frame wrote to that channel, i.e. one of its
writers' requests. A bot's drained line may leave such a buffer over the batch size until the
next human line there; nothing is written at the end of the game (the reader takes the
buffers from the room data), so the request that ends the game writes what it would anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

import mafia_engine as me

from .errors import ServiceError
from .server_frames import ChatLogPage, encode
from .views import VIEW_CHAT_LIMIT

if TYPE_CHECKING:
    from .storage import Store
    from .unitofwork import Change, ChangeFn

ARCHIVE_BATCH = 25  # chat messages per archive item (one channel's)
PUBLIC_CHANNELS = frozenset({"day", "system"})  # read by spectators in every preset, all game long
PAGE_BYTES = 24_000  # `chatLog` lines per answer (JSON bytes): one frame stays under 32 KB
_LINE = TypeAdapter(dict[str, Any])


def __getattr__(name: str) -> Any:
    # the frames answered here (`route = "archive"` in frames.py; `RoomService` hands it the store)
    if name == "ARCHIVE_ACTIONS":
        from .frames import actions_routed

        return actions_routed("archive")
    raise AttributeError(name)


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
        return []
    kept = {m.get("id") for m in after.get("chat") or [] if isinstance(m, dict)}
    for m in before.get("chat") or []:
        if isinstance(m, dict) and m.get("id") not in kept:
            archive["buffers"].setdefault(m.get("channel"), []).append(m)
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


def game_chat(store: Store, code: str, room: dict, state: dict) -> list[dict]:
    """Every chat message of the room's current game, in game order: its archive items, the
    buffers in the room data and the engine's window (one extra Query, for the items)."""
    archive = _archive(room)
    seen: dict[Any, dict] = {}
    for m in store.chat_archive(code, first=archive["first"], last=archive["seq"]):
        seen.setdefault(m.get("id"), m)
    for batch in archive["buffers"].values():
        for m in batch:
            seen.setdefault(m.get("id"), m)
    for m in state.get("chat") or []:
        seen.setdefault(m.get("id"), m)
    return sorted(seen.values(), key=_order)


def page(lines: list[dict], shown: set, before: int | None, frame_id: Any) -> bytes:
    """The `chatLog` answer: the newest lines of `lines[:before]` that fit `PAGE_BYTES`, without
    those the viewer's view already carries (`shown`), and `from`, the `before` of the next
    older page (0: the first line of the game is in this one)."""
    end = len(lines) if before is None else min(before, len(lines))
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
    return encode(ChatLogPage(id=frame_id, lines=out, from_=start))


def chat_log(store: Store, conn_id: str, frame: Any) -> ChangeFn:
    """`chatLog`: one page of the ended game's whole chat, to the sender only; nothing is
    written. The channels are the ones the sender's view reads (after the end: every channel,
    for players and spectators alike, as the review shows everything); before the end the
    frame is refused, so no archived line reaches anyone while the game runs."""

    def change(c: Change) -> None:
        if conn_id not in c.snap.conns:
            raise ServiceError("not_connected", "this connection is not in the room")
        if c.state is None or c.room["status"] != "ended" or c.state["phase"]["kind"] != "ended":
            raise ServiceError("not_ended", "the whole chat opens when the game is over")
        c.write = False
        view = me.view(c.state, c.snap.conns[conn_id])
        read = set(view["channels"]["read"])
        lines = [m for m in game_chat(store, c.snap.code, c.room, c.state) if m.get("channel") in read]
        shown = {m.get("id") for m in view["chat"][-VIEW_CHAT_LIMIT:]}
        c.replies[conn_id] = page(lines, shown, frame.before, frame.id)

    return change
