"""Fan-out preparation: which connections get a new view frame after a change.

One view per viewer (each player, all spectators share one), fingerprinted; a frame goes
only to the connections whose viewer's fingerprint differs from the one stored at the
last write (`room["views"]`).

A frame's `version` is the viewer's own counter (`room["viewSeq"]`, kept for every viewer
ever seen so it never goes back): it moves by one exactly when that viewer's view changes,
so it orders frames and shows gaps without counting anybody else's (secret) writes.

A connection that asked for patches gets one instead of the full view when it holds the
previous version (`patches.plan`, docs/protocol.md "Patches").
"""

from __future__ import annotations

from typing import Any

from . import patches, server_frames, views
from .change import Context
from .setup import room_setup_error


def _connected(conns: dict[str, str | None]) -> set[str]:
    return {p for p in conns.values() if p}


_UNSET: Any = object()


def _view(room: dict, state, connected: set[str], who: str | None, setup_error: Any = _UNSET) -> dict:
    """`who`'s view (None: a spectator's): the lobby's before the game (`setup_error`: the
    room's reason a start would be refused, when the caller has it already), else the game's."""
    if state is None:
        error = room_setup_error(room) if setup_error is _UNSET else setup_error
        return views.lobby_view(room, connected, who, error)
    return views.game_view(state, room, connected, who)


def changed_frames(
    c: Context, state: Any, conns: dict[str, str | None], sync_to: str | None = None
) -> dict[str, bytes]:
    """View frames for every connection whose view changed (`state`: the engine state to be
    written, `conns`: the connections after the write), and for `sync_to` (the connection
    that asked for its full view) its full view whether it changed or not, never a patch;
    stores the new fingerprints in the room document and moves the changed viewers' own
    versions. The pipeline's one call for a write: every view frame it sends comes from here."""
    room = c.room
    seqs = dict(room.get("viewSeq") or {})
    connected = _connected(conns)
    viewers = {p if p else views.SPECTATOR for p in conns.values()}
    old = dict(room.get("views") or {})
    new: dict[str, str] = {}
    frames_by_viewer: dict[str, bytes] = {}
    changed: dict = {}  # viewer -> its new rendered view
    setup_error = room_setup_error(room) if state is None else None
    before_viewers = {p if p else views.SPECTATOR for p in c.snap.conns.values()}
    at = views.server_clock()  # one reading for the whole fan-out (env reads, every viewer alike)
    for viewer in viewers:
        who = None if viewer == views.SPECTATOR else viewer
        rendered = views.render(
            _view(room, state, connected, who, setup_error)
        )  # serialised once: fingerprinted, and sent if it changed
        new[viewer] = views.digest(rendered)
        if viewer not in old and viewer in before_viewers:
            # connected without a write (spectators): rebuild the view as it was before
            old[viewer] = views.digest(_view(c.snap.room, c.before, _connected(c.snap.conns), who))
        if new[viewer] != old.get(viewer):
            seqs[viewer] = seqs.get(viewer, 0) + 1
            frames_by_viewer[viewer] = views.frame(rendered, seqs[viewer], at)
            changed[viewer] = rendered
    room["views"] = new
    room["viewSeq"] = seqs
    frames = {}
    for conn_id, pid in conns.items():
        data = frames_by_viewer.get(pid if pid else views.SPECTATOR)
        if data is not None:
            frames[conn_id] = data
    if c.snap.conn_patches:
        before = _connected(c.snap.conns)

        def rebuild(viewer: str) -> server_frames.RenderedView:
            """The viewer's view as the snapshot had it (patches.py: the base when not in memory)."""
            return views.render(
                _view(c.snap.room, c.before, before, None if viewer == views.SPECTATOR else viewer)
            )

        patches.plan(c, conns, changed, old, seqs, at, frames, rebuild, sync_to)
    if sync_to is not None and sync_to not in frames:  # unchanged: its full view all the same
        frames[sync_to] = full_view(room, state, conns, sync_to)
    return frames


def full_view(room: dict, state: Any, conns: dict[str, str | None], conn_id: str) -> bytes:
    """The full view frame for connection `conn_id` (answer to `sync`, or a too-early
    `nudge`), with the viewer's current version (the view is the one last pushed to that
    viewer)."""
    who = conns.get(conn_id)
    version = (room.get("viewSeq") or {}).get(who if who else views.SPECTATOR, 0)
    return views.frame(_view(room, state, _connected(conns), who), version)
