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

`diff` is our own RFC 6902 generator (on the parsed JSON the client holds) rather than
`jsonpatch.make_patch`, which took some 30 times longer per viewer (docs/architecture.md,
"Views as patches"); the patches it makes are applied by the libraries, `jsonpatch` in
tests/functions/test_view_patches.py and local/client.py, fast-json-patch in web/js/patch.js.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from . import server_frames

QUERY_KEY = "patches"  # `?patches=1` on the WebSocket connect URL


def wanted(query: dict | None) -> bool:
    """Whether a connect URL's query asks for patches (`patches=1`)."""
    return (query or {}).get(QUERY_KEY) == "1"


# ---------------------------------------------------------------- the differ
def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _same(a: Any, b: Any) -> bool:
    """JSON equality: Python's == holds True == 1 and [False] == [0], JSON does not. The C ==
    rules out most differences at once; only equal pairs are walked for a bool beside a number."""
    return a == b and _strict(a, b)


def _strict(a: Any, b: Any) -> bool:
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b)
    if type(a) is dict:  # == held: b is a dict with the same keys
        return all(_strict(v, b[k]) for k, v in a.items())
    if type(a) is list:
        return all(map(_strict, a, b))
    return True


def _diff(a: Any, b: Any, path: str, ops: list[dict]) -> None:
    if _same(a, b):
        return
    if type(a) is dict and type(b) is dict:
        for k in a:
            if k not in b:
                ops.append({"op": "remove", "path": f"{path}/{_escape(k)}"})
        for k, v in b.items():
            if k in a:
                _diff(a[k], v, f"{path}/{_escape(k)}", ops)
            else:
                ops.append({"op": "add", "path": f"{path}/{_escape(k)}", "value": v})
    elif type(a) is list and type(b) is list:
        _diff_list(a, b, path, ops)
    else:
        ops.append({"op": "replace", "path": path, "value": b})


def _diff_list(a: list, b: list, path: str, ops: list[dict]) -> None:
    n, m = len(a), len(b)
    # a window that moved (the last 40 chat lines, the events): drop the oldest, add the newest
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
        _diff(a[x], b[x], f"{path}/{x}", ops)
    for x in range(n - j - 1, both - 1, -1):  # a is longer: remove from the back
        ops.append({"op": "remove", "path": f"{path}/{x}"})
    for x in range(both, m - j):  # b is longer: insert in order
        ops.append({"op": "add", "path": f"{path}/{x}", "value": b[x]})


def diff(a: Any, b: Any) -> list[dict]:
    """RFC 6902 operations that turn the JSON document `a` into `b` (both as `json.loads` gives)."""
    ops: list[dict] = []
    _diff(a, b, "", ops)
    return ops


# ---------------------------------------------------------------- the bases this process pushed
class Bases:
    """The last pushed view of each (room, viewer), parsed, with its digest: most changes of a
    room reach the process that made its previous one, which then needs no second view build.
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
