"""Views as patches: after a full view, a connection that asked for them (`?patches=1` on the
connect URL, docs/protocol.md "Patches") gets RFC 6902 patches against the last view it was sent.
The parts are here (the differ, the bases, the frame); which connection gets one is decided
where every connection's frame is (`viewframes.py`): a connection that opted in, is not the one being
answered a `sync`, and was there, past the connect grace, when its viewer's current version
was pushed (`room["viewAt"]`). Everyone else gets the full view, exactly as without patches: a
new socket, a reconnect, a second device, a `sync` (which a client sends after any gap).

The base is the viewer's view of the version it holds, taken from this process's memory
(`BASES`, the last views this process pushed) or rebuilt from the snapshot the change read
(one more view build, never a DynamoDB call); either is used only if its digest is the one
stored at the last write (`room["views"]`), so it is the view every connection of the viewer
was sent. Both views come from the view gate for that viewer, and `diff` is deterministic, so
a patch and its bytes are a function of what this viewer may know
(tests/functions/test_side_channels.py compares every frame as sent, patches included).

`diff` is our own RFC 6902 generator (on the parsed JSON the client holds, `parse`) rather
than `jsonpatch.make_patch`, which took some 30 times longer per viewer (docs/architecture.md,
"Views as patches"). A list whose elements all have ids (chat lines, events, seats) is diffed
by id: one `remove` per id that left, one `add` per new id, so a chat line's patch is about
the line, whichever channels' windows the view's chat merges; a container whose own
operations would take more bytes than one `replace` of it is replaced whole. It writes only
`add`, `remove` and `replace`; the patches are applied by the libraries, `jsonpatch` in
tests/functions/test_view_patches.py and local/client.py, fast-json-patch in web/js/patch.js.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pickle import dumps as _pickle
from typing import Any

from pydantic_core import from_json

from . import server_frames

QUERY_KEY = "patches"  # `?patches=1` on the WebSocket connect URL


def wanted(query: dict | None) -> bool:
    """Whether a connect URL's query asks for patches (`patches=1`)."""
    return (query or {}).get(QUERY_KEY) == "1"


# ---------------------------------------------------------------- the differ
def parse(body: bytes) -> Any:
    """A rendered view parsed as the differ takes it (both sides of a diff parsed here):
    pydantic's JSON parser, some 40 % faster than `json.loads` and exact for every number
    (each string its own object, so equal subtrees pickle alike: `_same`); `json.loads` for
    what it refuses (a lone surrogate, which a rendered view never holds)."""
    try:
        return from_json(body, cache_strings=False)
    except ValueError:
        return json.loads(body)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _same(a: Any, b: Any) -> bool:
    """JSON equality, type-strict: Python's == holds True == 1, 1 == 1.0, 0.0 == -0.0 and
    [False] == [0]; JSON (the bytes the client holds) does not. The C does the work, never a
    Python walk of the subtree: == rules out most differences at once, and two equal
    containers are confirmed by their pickles (bytes that write True, 1 and 1.0 apart and
    load back to the same value only; pickle here only writes, in this process, never reads).
    Two pickles may differ for documents that are the same (objects shared differently): the
    differ then walks them and finds no operation, so that costs time, never a wrong patch."""
    if a is b:
        return True
    t = type(a)
    if t is not type(b):
        return False
    if t is dict or t is list:
        return a == b and _pickle(a, 5) == _pickle(b, 5)
    if t is float:
        return repr(a) == repr(b)
    return a == b


_FEW_OPS = 3  # below this many operations a container's own are never weighed against a replace


def _diff(a: Any, b: Any, path: str, ops: list[dict]) -> None:
    """The operations that turn `a` into `b`, which are not the same (`_same`); a container
    whose own operations would take more bytes than one `replace` of it (a phase that changes
    most of its keys, a list of targets that fills) is replaced whole."""
    start = len(ops)
    _diff_in(a, b, path, ops)
    if path and len(ops) - start >= _FEW_OPS:
        replace = {"op": "replace", "path": path, "value": b}
        if len(_json(replace)) < len(_json(ops[start:])):
            del ops[start:]
            ops.append(replace)


def _json(doc: Any) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def _diff_in(a: Any, b: Any, path: str, ops: list[dict]) -> None:
    if type(a) is dict and type(b) is dict:
        for k in a:
            if k not in b:
                ops.append({"op": "remove", "path": f"{path}/{_escape(k)}"})
        for k, v in b.items():
            if k not in a:
                ops.append({"op": "add", "path": f"{path}/{_escape(k)}", "value": v})
            elif not _same(a[k], v):
                _diff(a[k], v, f"{path}/{_escape(k)}", ops)
    elif type(a) is list and type(b) is list:
        ids_a, ids_b = _ids(a), _ids(b)
        if ids_a is None or ids_b is None or not _diff_by_id(a, b, ids_a, ids_b, path, ops):
            _diff_list(a, b, path, ops)
    else:
        ops.append({"op": "replace", "path": path, "value": b})


_ID_TYPES = frozenset((str, int))  # not bool: True and 1 are one key of a set


def _ids(items: list) -> list | None:
    """The elements' ids when every element is an object with its own id (a string or an
    integer, never a boolean), each once: chat lines, events, seats. Else None."""
    try:
        ids = [x["id"] for x in items]
    except (TypeError, KeyError, IndexError):
        return None
    if not _ID_TYPES.issuperset(map(type, ids)) or len(set(ids)) != len(ids):
        return None
    return ids


def _diff_by_id(a: list, b: list, ids_a: list, ids_b: list, path: str, ops: list[dict]) -> bool:
    """An id'd list diffed by identity: remove the elements whose ids left, insert the new ones
    where they stand in `b`, and diff the elements kept (in one C comparison when none
    changed, the usual case). False, with no operation added, when the kept ids are not in
    the same order in both (a reordered list is diffed by position)."""
    in_a, in_b = set(ids_a), set(ids_b)
    kept_a = [i for i, x in enumerate(ids_a) if x in in_b]
    kept_b = [j for j, x in enumerate(ids_b) if x in in_a]
    if not kept_a and a and b:  # nothing in common: one replace says it in the fewest bytes
        ops.append({"op": "replace", "path": path, "value": b})
        return True
    if [ids_a[i] for i in kept_a] != [ids_b[j] for j in kept_b]:
        return False
    if len(kept_a) < len(a):  # from the back, so each index is still the element's own
        gone = set(range(len(a))).difference(kept_a)
        ops.extend({"op": "remove", "path": f"{path}/{i}"} for i in sorted(gone, reverse=True))
    old = [a[i] for i in kept_a]
    new = [b[j] for j in kept_b]
    unchanged = _same(old, new)
    if unchanged and len(kept_b) == len(b):
        return True
    # in `b`'s order: the list up to j is already b's, so j is where each element goes
    k = 0
    for j, x in enumerate(ids_b):
        if x in in_a:
            if not unchanged and not _same(old[k], new[k]):
                _diff(old[k], new[k], f"{path}/{j}", ops)
            k += 1
        else:
            ops.append({"op": "add", "path": f"{path}/{j}", "value": b[j]})
    return True


def _diff_list(a: list, b: list, path: str, ops: list[dict]) -> None:
    """A list without ids diffed by position: a window that moved, else the common head and
    tail kept and the middle diffed element by element."""
    n, m = len(a), len(b)
    # a window that moved (the last lines of a list): drop the oldest, add the newest
    if n and m and not _same(a[0], b[0]):
        k = next((i for i in range(1, n) if _same(a[i], b[0])), 0)
        if k and _same(a[k:], b[: n - k]):
            ops.extend({"op": "remove", "path": f"{path}/0"} for _ in range(k))
            ops.extend({"op": "add", "path": f"{path}/{i}", "value": b[i]} for i in range(n - k, m))
            return
    i = 0  # the common head
    while i < n and i < m and _same(a[i], b[i]):
        i += 1
    j = 0  # the common tail
    while j < n - i and j < m - i and _same(a[n - 1 - j], b[m - 1 - j]):
        j += 1
    both = min(n - j, m - j)
    for x in range(i, both):
        if not _same(a[x], b[x]):
            _diff(a[x], b[x], f"{path}/{x}", ops)
    for x in range(n - j - 1, both - 1, -1):  # a is longer: remove from the back
        ops.append({"op": "remove", "path": f"{path}/{x}"})
    for x in range(both, m - j):  # b is longer: insert in order
        ops.append({"op": "add", "path": f"{path}/{x}", "value": b[x]})


def diff(a: Any, b: Any) -> list[dict]:
    """RFC 6902 operations that turn the JSON document `a` into `b` (both as `json.loads` gives)."""
    ops: list[dict] = []
    if not _same(a, b):
        _diff(a, b, "", ops)
    return ops


Parts = dict[str, bytes]  # a view's top-level keys and their `{"key": value}` bytes (server_frames.RenderedView)


def diff_parts(a: Parts, b: Parts, memo: dict | None = None) -> list[dict]:
    """`diff` of two views given as their top-level parts (`Parts`), the same operations in the
    same order: a key whose bytes are the same has no operation and is never parsed; a key
    that changed is parsed and diffed alone. `memo` (one per change, shared by its viewers):
    each key's parsed values and operations by its bytes before and after, so a part that
    several viewers share (the public chat, the phase, the events) is parsed and diffed once
    for all of them; the operations depend on those bytes only, so each viewer's patch is
    still a function of its own two views."""
    memo = {} if memo is None else memo
    ops: list[dict] = [{"op": "remove", "path": f"/{_escape(k)}"} for k in a if k not in b]
    for k, raw in b.items():
        was = a.get(k)
        if was == raw:
            continue
        if was is None:
            ops.append({"op": "add", "path": f"/{_escape(k)}", "value": _part(k, raw, memo)})
            continue
        got = memo.get((k, was, raw))
        if got is None:
            old, new = _part(k, was, memo), _part(k, raw, memo)
            got = memo[(k, was, raw)] = []
            if not _same(old, new):
                _diff(old, new, f"/{_escape(k)}", got)
        ops.extend(got)
    return ops


def _part(key: str, raw: bytes, memo: dict) -> Any:
    """One part's value, parsed once per change."""
    got = memo.get(raw, _UNPARSED)
    if got is _UNPARSED:
        got = memo[raw] = parse(raw)[key]
    return got


_UNPARSED: Any = object()


# ---------------------------------------------------------------- the bases this process pushed
class Bases:
    """The last pushed view of each (room, viewer), as its parts (`Parts`), with its digest: most
    changes of a room reach the process that made its previous one, which then needs no second
    view build.
    An entry is used only when its digest is the stored one; bounded (least recently used)."""

    def __init__(self, capacity: int = 512) -> None:
        self.capacity = capacity
        self._items: OrderedDict[tuple[str, str], tuple[str, Any]] = OrderedDict()
        self._lock = threading.Lock()  # the local stack runs requests in threads

    def get(self, key: tuple[str, str], digest: str) -> Any | None:
        with self._lock:
            got = self._items.get(key)
            if got is None or got[0] != digest:
                return None
            self._items.move_to_end(key)
            return got[1]

    def clear(self) -> None:
        """Forget every base (as a fresh process)."""
        with self._lock:
            self._items.clear()

    def put(self, key: tuple[str, str], digest: str, doc: Any) -> None:
        if self.capacity <= 0:
            return
        with self._lock:
            self._items[key] = (digest, doc)
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)


BASES = Bases()


def patch_frame(version: int, ops: list[dict], at: server_frames.ServerClock) -> bytes:
    """The `{"type": "patch", ...}` frame (server_frames.PatchFrame)."""
    return server_frames.encode(
        server_frames.PatchFrame(version=version, ops=ops, serverNow=at.serverNow, clockRate=at.clockRate)
    )
