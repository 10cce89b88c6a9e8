"""The one place where a connection's frame is made: `frames_for`, called once by
`Pipeline.run` (pipeline.py) for every change, read-only or written.

(Not the client frames: those are `frames.py`. These are what the server pushes.)

For each connection, in this order, and nowhere else:

1. its viewer (`viewer_of`): a seat's id, or `SPECTATOR` for every connection without a seat
   (spectators share one view). A new kind of connection (a TV display that shows the
   spectator's frame) is a new case of `viewer_of`;
2. its view (`view_of`): the engine's gate (`views.game_view`, or `views.lobby_view` before
   the start), the seat's own "while you were away" digest (`away.mark`), the substitutes'
   facts (`substitutes.room_facts`), the room block and each seat's facts
   (`views.room_block`, `views.player_facts`), all of it through the anonymous games' one
   gate (`aliases.facts`, `aliases.room_facts`). A new per-connection key is added in
   `view_of`;
3. whether it changed: the view serialised once (`views.render`), its digest against the one
   stored at the last write (`room["views"]`), the viewer's own version (`room["viewSeq"]`,
   kept for every viewer ever seen so it never goes back: it moves by one exactly when that
   viewer's view changes, so it counts nobody else's secret writes; a connection that becomes
   another viewer carries its count over, `_carry_versions`);
4. its bytes: the full view frame (`views.frame`), or for a connection that asked for
   patches and holds the previous version, an RFC 6902 patch against it (`_patch`, with
   `patches.diff_parts` on the views' top-level parts, each serialised once by `views.render`,
   and the bases of `patches.BASES`; docs/protocol.md "Patches"): only the keys whose bytes
   changed are parsed and diffed, once for all the viewers that share them; a `sync` gets its
   full view whether it changed or not, never a patch.

The modules named above are leaves: none of them calls back into this one or into another
of them on the way, so a frame's path is this module's calls, top to bottom.
"""

from __future__ import annotations

from typing import Any

from ..features.base import ViewParts
from ..infra import clock
from ..infra.telemetry import count
from ..protocol import patches, server_frames, views
from . import featureset
from .change import Context
from .connections import CONNECT_GRACE_SECONDS
from .setup import idle_options, room_setup_error

SPECTATOR = "*"  # the viewer of every connection without a seat (digests, versions, bases)

_UNSET: Any = object()


def viewer_of(player: str | None) -> str:
    """The viewer a connection's frame is made for: its seat, or the spectators' one view."""
    return player if player else SPECTATOR


def _seat(viewer: str) -> str | None:
    return None if viewer == SPECTATOR else viewer


def _connected(conns: dict[str, str | None]) -> set[str]:
    return {p for p in conns.values() if p}


def view_of(
    room: dict,
    state: Any,
    connected: set[str],
    who: str | None,
    setup_error: Any = _UNSET,
    facts: dict[str, dict] | None = None,
    base: dict | None = None,
) -> dict:
    """`who`'s whole view (None: a spectator's), without the server's clock: the lobby's
    before the game (`setup_error`: the room's reason a start would be refused, when the
    caller has it already), else the game's, then every feature's facts (`featureset.view`,
    the anonymous games' gate last). Every key a view carries is decided here or by a feature.
    `facts`: the seats' room facts (`views.player_facts`), when the caller made them once for
    every viewer of one change (the same for all of them before the gate; the fold never edits
    them in place). `base`: `who`'s game view when the caller made every viewer's at once
    (`views.game_views`: their public part shared, so nothing here edits it in place)."""
    if state is None:
        error = room_setup_error(room) if setup_error is _UNSET else setup_error
        view = views.lobby_view(room, who)
        idle = idle_options(room["preset"], room["options"], len(room["players"]))
        block = views.room_block(room, error, idle=idle)
    else:
        view = views.game_view(state, who) if base is None else base  # its own dict (game_views)
        block = views.room_block(room, None)
    if facts is None:
        facts = views.player_facts(room, connected)
    parts = featureset.view(room, state, who, ViewParts(view, block, facts))
    view, seats = parts.view, parts.players
    view["players"] = [{**p, **seats.get(p.get("id"), {})} for p in view.get("players", [])]
    view["room"] = parts.block
    return view


def frames_for(
    c: Context, state: Any, conns: dict[str, str | None], sync_to: str | None = None, *, write: bool = True
) -> dict[str, bytes]:
    """Connection -> the frame it gets for this change. `state`: the engine state after the
    change; `conns`: the connections after it; `sync_to`: the connection that asked for its
    full view (`sync`, a too-early `nudge`), which gets it whether it changed or not.

    `write`: the room document is written after this (the pipeline's write path): every
    connection whose viewer's view changed gets a frame, and the new digests, versions and
    push times go into `c.room`. Without it (a read-only request) only `sync_to` gets its
    full view and the room document is left as it is."""
    if not write:
        return {} if sync_to is None else {sync_to: _full_frame(c.room, state, conns, sync_to)}
    room = c.room
    seqs = dict(room.get("viewSeq") or {})
    _carry_versions(c.snap.conns, conns, seqs)
    connected = _connected(conns)
    old = dict(room.get("views") or {})
    new: dict[str, str] = {}
    frames_by_viewer: dict[str, bytes] = {}
    changed: dict[str, server_frames.RenderedView] = {}  # viewer -> its new view
    setup_error = room_setup_error(room) if state is None else None
    before_viewers = {viewer_of(p) for p in c.snap.conns.values()}
    at = views.server_clock()  # one reading for the whole fan-out (env reads, every viewer alike)
    facts = views.player_facts(room, connected)  # every viewer's, before the gate
    viewers = {viewer_of(p) for p in conns.values()}
    # every viewer's game view at once: the public part made once, and written once (`seen`)
    bases = {} if state is None else views.game_views(state, [_seat(v) for v in viewers])
    seen: dict = {}
    for viewer in viewers:
        # serialised once: fingerprinted, and sent if it changed
        view = view_of(room, state, connected, _seat(viewer), setup_error, facts, bases.get(_seat(viewer)))
        rendered = views.render(view, views.PARTS, seen)
        new[viewer] = views.digest(rendered)
        if viewer not in old and viewer in before_viewers:
            # connected without a write (spectators): the view as it was before
            old[viewer] = views.digest(_before(c, viewer))
        if new[viewer] != old.get(viewer):
            seqs[viewer] = seqs.get(viewer, 0) + 1
            frames_by_viewer[viewer] = views.frame(rendered, seqs[viewer], at)
            changed[viewer] = rendered
    room["views"] = new
    room["viewSeq"] = seqs
    frames = {}
    for conn_id, pid in conns.items():
        data = frames_by_viewer.get(viewer_of(pid))
        if data is not None:
            frames[conn_id] = data
    if c.snap.conn_patches:
        _patch(c, conns, changed, old, seqs, at, frames, sync_to)
    if sync_to is not None and sync_to not in frames:  # unchanged: its full view all the same
        frames[sync_to] = _full_frame(room, state, conns, sync_to)
    return frames


def _carry_versions(before: dict[str, str | None], conns: dict[str, str | None], seqs: dict[str, int]) -> None:
    """A connection whose viewer changes in this change (a spectator who takes a seat) never
    sees its `version` go back: the new viewer's counter continues from the old one's when
    that is higher (the seat's own counter stood still while nobody held it). It jumps only for
    the viewer this connection becomes, whose other connections this change closes (the
    holder's), and to a count this connection already held: nobody learns anything from it."""
    for conn_id, pid in conns.items():
        if conn_id not in before:
            continue
        was, now = viewer_of(before[conn_id]), viewer_of(pid)
        if was != now and seqs.get(was, 0) > seqs.get(now, 0):
            seqs[now] = seqs[was]


def _before(c: Context, viewer: str) -> server_frames.RenderedView:
    """`viewer`'s view as the snapshot the change read had it."""
    return views.render(view_of(c.snap.room, c.before, _connected(c.snap.conns), _seat(viewer)))


def _full_frame(room: dict, state: Any, conns: dict[str, str | None], conn_id: str) -> bytes:
    """Connection `conn_id`'s full view frame, with its viewer's current version (the view
    is the one last pushed to that viewer)."""
    who = conns.get(conn_id)
    version = (room.get("viewSeq") or {}).get(viewer_of(who), 0)
    return views.frame(view_of(room, state, _connected(conns), who), version)


# ---------------------------------------------------------------- patches instead of views
def _patch(
    c: Context,
    conns: dict[str, str | None],
    changed: dict[str, server_frames.RenderedView],
    digests: dict[str, str],
    seqs: dict[str, int],
    at: server_frames.ServerClock,
    frames: dict[str, bytes],
    sync_to: str | None,
) -> None:
    """Replaces in `frames` (connection -> full view frame) the frames of the connections that
    hold their viewer's previous view by patches; notes when each changed viewer's new version
    goes out (`room["viewAt"]`). `digests`: the digests as stored at the last write.

    Which connections: one that opted in (`?patches=1`), is not the one being answered a
    `sync`, and was there, past the connect grace, when its viewer's current version was
    pushed. Everyone else gets the full view, exactly as without patches."""
    room = c.room
    wants = c.snap.conn_patches
    pushed_at = dict(room.get("viewAt") or {})
    grace = CONNECT_GRACE_SECONDS * clock.rate()
    made: dict[str, bytes | None] = {}
    memo: dict = {}  # the parts' parsed values and operations, shared by this change's viewers
    for conn_id, pid in conns.items():
        viewer = viewer_of(pid)
        if conn_id not in frames or conn_id not in wants or viewer not in changed or conn_id == sync_to:
            continue
        since = c.snap.conn_since.get(conn_id)
        if since is None or since + grace > pushed_at.get(viewer, float("-inf")):
            continue  # it may not hold the previous version: the full view
        if viewer not in made:
            made[viewer] = None
            base = _base(c, viewer, digests.get(viewer))
            if base is not None:
                ops = patches.diff_parts(base, dict(changed[viewer].parts), memo)
                data = patches.patch_frame(seqs[viewer], ops, at)
                # never more bytes than the view itself (a new game, a phase that changes all)
                made[viewer] = data if len(data) < len(frames[conn_id]) else None
        if made[viewer] is not None:
            frames[conn_id] = made[viewer]
    held = {viewer_of(p) for k, p in conns.items() if k in wants}
    for viewer, rendered in changed.items():
        pushed_at[viewer] = int(c.now)
        if viewer in held:
            patches.BASES.put((room["code"], viewer), room["views"][viewer], dict(rendered.parts))
    room["viewAt"] = {v: t for v, t in pushed_at.items() if v in room["views"]}


def _base(c: Context, viewer: str, digest: str | None) -> patches.Parts | None:
    """The view of the version `viewer` holds, as its parts: this process's last push
    (`patches.BASES`) or rebuilt from the snapshot, used only if its digest is the stored one."""
    if digest is None:
        return None
    code = c.room["code"]
    base = patches.BASES.get((code, viewer), digest)
    if base is not None:
        return base
    count("PatchBaseRebuilt")
    rendered = _before(c, viewer)
    if views.digest(rendered) != digest:
        count("PatchBaseMismatch")
        return None
    return dict(rendered.parts)
