"""Views as patches (docs/protocol.md, "Patches"): after a full view, a connection that asked for
them (`?patches=1`) gets RFC 6902 patches against the view of its viewer's previous version; a
new socket, a reconnect and a `sync` get the full view; a gap shows as a version that does not
follow; a connection that did not ask gets full views as before."""

from __future__ import annotations

import json

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.gateways import patched
from service.protocol import patches
from service.room.connections import CONNECT_GRACE_SECONDS

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)


@pytest.fixture
def api(api):
    api.patches = True  # every connection of these tests asks for patches
    return api


def greeting(api) -> None:
    """The game started, now in its first day phase (everyone may chat in the day channel)."""
    api.clock.advance(api.state()["phase"]["endsAt"] - api.clock.t)
    api.send("cp1", {"action": "nudge"})
    assert api.state()["phase"]["kind"] == "greeting"


def settle(api) -> None:
    """Past the connect grace, and one push after it: until then a new socket gets full views
    (a push may be lost before its `$connect` returned)."""
    api.clock.advance(CONNECT_GRACE_SECONDS + 1)
    api.send("cp1", {"action": "chat", "channel": "day", "text": "settle"})
    api.clock.advance(1)


def wire_to(api, conn: str) -> list[dict]:
    return [f for c, f in api.gw.wire if c == conn]


def fresh_view(api, conn: str) -> dict:
    """The full view a `sync` gives `conn` now (without the clock)."""
    api.send(conn, {"action": "sync"})
    frame = wire_to(api, conn)[-1]
    assert frame["type"] == "view"
    return frame


def no_clock(view: dict) -> dict:
    return {k: v for k, v in view.items() if k not in ("serverNow", "clockRate")}


def test_a_patch_applied_to_the_last_view_gives_the_new_view(api):
    api.start(5)
    greeting(api)
    settle(api)
    api.gw.clear()
    before = fresh_view(api, "cp2")
    api.send("cp1", {"action": "nudge"})  # too early: nothing changes
    api.send("cp3", {"action": "chat", "channel": "day", "text": "hello"})
    api.send("cp4", {"action": "chat", "channel": "day", "text": "hi"})
    pushes = [f for f in wire_to(api, "cp2") if f["type"] == "patch"]
    assert len(pushes) == 2
    view = no_clock(before["view"])
    for version, patch in enumerate(pushes, start=before["version"] + 1):
        assert patch["version"] == version  # each follows the one before
        view = jsonpatch.apply_patch(view, patch["ops"])
    now = fresh_view(api, "cp2")
    assert now["version"] == pushes[-1]["version"]
    assert view == no_clock(now["view"])
    # and it is smaller than the view it makes
    assert len(json.dumps(pushes[-1])) < len(json.dumps(now)) / 3


def test_a_gap_makes_the_client_ask_for_sync(api):
    api.start(5)
    greeting(api)
    settle(api)
    last = api.gw.views["cp2"]
    api.send("cp3", {"action": "chat", "channel": "day", "text": "one"})
    api.gw.views["cp2"] = last  # p2's client missed that frame (a flaky network)
    api.clock.advance(1)
    api.send("cp3", {"action": "chat", "channel": "day", "text": "two"})
    patch = wire_to(api, "cp2")[-1]
    assert patch["type"] == "patch" and patch["version"] == last["version"] + 2
    assert patched(last, patch) is patch  # does not follow: a client asks for `sync` ...
    answer = fresh_view(api, "cp2")  # ... and gets the full view of the current version
    assert answer["version"] == patch["version"]
    assert [m["text"] for m in answer["view"]["chat"] if m["channel"] == "day"][-2:] == ["one", "two"]


def test_a_new_socket_and_a_reconnect_get_the_full_view(api):
    api.start(5)
    greeting(api)
    settle(api)
    api.send("cp3", {"action": "chat", "channel": "day", "text": "one"})
    assert wire_to(api, "cp2")[-1]["type"] == "patch"
    api.disconnect("cp2")
    assert api.connect("cp2b", "p2") == 200  # the reconnect: a new socket of the same seat
    api.clock.advance(1)
    api.send("cp3", {"action": "chat", "channel": "day", "text": "two"})
    first = wire_to(api, "cp2b")
    assert [f["type"] for f in first] == ["view"]  # not a patch against a view it never had
    # a second device of a seat that keeps its first one: the new one gets full views, the
    # old one patches, with the same version
    assert api.connect("cp4b", "p4") == 200
    api.clock.advance(1)
    api.send("cp3", {"action": "chat", "channel": "day", "text": "three"})
    old, new = wire_to(api, "cp4")[-1], wire_to(api, "cp4b")[-1]
    assert (old["type"], new["type"]) == ("patch", "view") and old["version"] == new["version"]
    # once past the connect grace, the new socket gets patches too
    settle(api)
    api.send("cp3", {"action": "chat", "channel": "day", "text": "four"})
    assert wire_to(api, "cp4b")[-1]["type"] == "patch"
    assert api.gw.views["cp4b"] == api.gw.views["cp4"]


def test_a_sync_always_answers_the_full_view(api):
    api.start(5)
    greeting(api)
    settle(api)
    api.send("cp3", {"action": "chat", "channel": "day", "text": "one"})
    frame = fresh_view(api, "cp3")
    assert frame["type"] == "view" and frame["version"] == api.gw.views["cp3"]["version"]


def test_spectators_share_one_sequence_and_one_patch(api):
    api.start(5)
    api.connect("s1")
    api.connect("s2")
    greeting(api)
    settle(api)
    api.gw.clear()
    api.send("cp3", {"action": "chat", "channel": "day", "text": "one"})
    api.clock.advance(1)
    api.send("cp3", {"action": "chat", "channel": "day", "text": "two"})
    s1, s2 = wire_to(api, "s1"), wire_to(api, "s2")
    assert s1 == s2 and [f["type"] for f in s1] == ["patch", "patch"]
    assert s1[1]["version"] == s1[0]["version"] + 1
    assert api.snapshot().room["viewSeq"]["*"] == s1[1]["version"]
    assert api.gw.views["s1"]["view"]["you"] is None


def test_a_patch_base_that_does_not_match_the_stored_digest_gives_the_full_view(api):
    api.start(5)
    greeting(api)
    settle(api)
    # the stored fingerprint no longer describes the view the snapshot rebuilds (as after a
    # change the rebuild cannot see): the full view goes out, never a patch on a wrong base
    snap = api.snapshot()
    room = dict(snap.room, views={**snap.room["views"], "p2": "0" * 16})
    api.svc.store.save(snap, room, snap.state)
    api.send("cp3", {"action": "chat", "channel": "day", "text": "one"})
    assert wire_to(api, "cp2")[-1]["type"] == "view"
    assert wire_to(api, "cp4")[-1]["type"] == "patch"


def test_a_connection_that_does_not_ask_gets_full_views_as_before(api):
    api.start(5)
    greeting(api)
    settle(api)
    assert api.connect("cp3b", "p3", token=api.tokens["p3"]) == 200
    api.patches = False
    assert api.connect("cp2b", "p2") == 200  # a second socket of p2 that does not ask
    settle(api)
    api.gw.clear()
    api.send("cp3", {"action": "chat", "channel": "day", "text": "one"})
    assert wire_to(api, "cp2")[-1]["type"] == "patch"
    full = wire_to(api, "cp2b")[-1]
    assert full["type"] == "view" and set(full) == {"type", "version", "view"}
    assert full["version"] == wire_to(api, "cp2")[-1]["version"]
    assert full == api.gw.views["cp2"]  # the same view, the same version, whatever travelled


def test_the_room_item_notes_who_asked_and_no_call_is_added(api):
    api.start(5)
    greeting(api)
    settle(api)
    assert api.snapshot().conn_patches == {f"cp{i}" for i in range(1, 6)}


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["a", "b", "~/", ""]),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(["a", "b/c", "~d", "e"]), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON, JSON)
def test_the_differs_patch_applied_by_jsonpatch_gives_the_new_document(a, b):
    assert jsonpatch.apply_patch(a, patches.diff(a, b)) == b
    got = jsonpatch.apply_patch(a, patches.diff(a, b))
    assert json.dumps(got, sort_keys=True) == json.dumps(b, sort_keys=True)  # true is not 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 50), max_size=12, unique=True), st.integers(0, 4), st.integers(0, 4))
def test_a_moved_window_is_a_few_removes_and_adds(items, drop, add):
    a = [{"id": i, "text": "x" * 20} for i in items]
    b = a[drop:] + [{"id": 100 + i, "text": "y"} for i in range(add)]
    ops = patches.diff(a, b)
    assert jsonpatch.apply_patch(a, ops) == b
    if drop < len(a):  # the chat window: one remove per line gone, one add per new line
        assert len(ops) == drop + add


@pytest.mark.parametrize(
    ("a", "b"),
    [([False], [0]), ({"x": [1, True]}, {"x": [1, 1]}), ([0, 1, 2], [1, 2, False]), (1, True)],
)
def test_the_differ_tells_a_bool_from_a_number_at_any_depth(a, b):
    """Python's == holds [False] == [0]; JSON does not (a case Hypothesis found)."""
    ops = patches.diff(a, b)
    assert ops, "a change was missed"
    out = jsonpatch.apply_patch(a, ops)
    assert json.dumps(out) == json.dumps(b)


# ---------------------------------------------------------------- lists diffed by identity
def exact(doc) -> str:
    """A document as JSON writes it: True is not 1, 1 is not 1.0, 0.0 is not -0.0."""
    return json.dumps(doc, sort_keys=True)


SCALAR = st.sampled_from([True, False, 1, 0, 1.0, 0.0, -0.0, 2, 2.5, None, "", "1", "x"])
ELEMENT = st.fixed_dictionaries({"v": SCALAR}, optional={"w": st.lists(SCALAR, max_size=3), "k": SCALAR})


@st.composite
def id_lists(draw):
    """A list whose elements have ids and the list it becomes: some ids leave, new ones come
    in anywhere, kept elements change (True for 1, 1 for 1.0 ...), sometimes an order changes."""
    kind = draw(st.sampled_from([str, int]))
    ids = draw(st.lists(st.integers(0, 30), unique=True, max_size=10))
    a = [{"id": kind(i), **draw(ELEMENT)} for i in ids]
    b = [
        {**x, **draw(ELEMENT)} if draw(st.booleans()) else dict(x)
        for x in a
        if draw(st.integers(0, 3))  # about one in four leaves
    ]
    for new in draw(st.lists(st.integers(31, 60), unique=True, max_size=4)):
        b.insert(draw(st.integers(0, len(b))), {"id": kind(new), **draw(ELEMENT)})
    if len(b) > 1 and draw(st.integers(0, 5)) == 0:
        i, j = draw(st.integers(0, len(b) - 1)), draw(st.integers(0, len(b) - 1))
        b[i], b[j] = b[j], b[i]
    return a, b


def flipped(v):
    """A value Python holds equal to `v` that JSON does not: True for 1, 1.0 for 1, 1 for 1.0."""
    if type(v) is bool:
        return int(v)
    return float(v) if type(v) is int else int(v)


@settings(max_examples=400, deadline=None)
@given(id_lists(), id_lists(), st.sampled_from([True, 1, 1.0, 0, False]))
def test_a_patch_of_views_with_id_lists_applied_gives_exactly_the_new_view(chat, events, flag):
    a = {"chat": chat[0], "events": events[0], "paused": flag, "rules": {"x": [1, True, 1.0]}}
    b = {"chat": chat[1], "events": events[1], "paused": flag, "rules": {"x": [1, True, 1.0]}}
    got = jsonpatch.apply_patch(a, patches.diff(a, b))
    assert exact(got) == exact(b)
    # and a flipped type anywhere (True for 1, 1.0 for 1) is a change too
    b2 = {**b, "paused": flipped(flag)}
    b2["rules"] = {"x": [1, 1, 1.0]}
    got = jsonpatch.apply_patch(a, patches.diff(a, b2))
    assert exact(got) == exact(b2)


@settings(max_examples=200, deadline=None)
@given(id_lists())
def test_an_id_list_patch_is_one_remove_per_id_that_left_and_one_add_per_new_id(pair):
    a, b = pair
    ids_a, ids_b = [x["id"] for x in a], [x["id"] for x in b]
    kept = [i for i in ids_a if i in ids_b]
    if kept != [i for i in ids_b if i in ids_a] or not kept:
        return  # reordered, or nothing in common: diffed another way
    ops = patches.diff(a, b)
    assert exact(jsonpatch.apply_patch(a, ops)) == exact(b)
    left, came = len(ids_a) - len(kept), len(ids_b) - len(kept)
    assert sum(op["op"] == "remove" and op["path"].count("/") == 1 for op in ops) == left
    assert sum(op["op"] == "add" and op["path"].count("/") == 1 for op in ops) == came


def line(channel: str, n: int, at: float) -> dict:
    return {"id": f"{channel}:{n}", "channel": channel, "from": "p3", "text": "words " * 30, "at": at, "day": 2}


def test_a_chat_line_in_merged_channel_windows_is_a_patch_of_about_the_lines_size():
    """The view's chat merges several channels' windows: when the day channel drops its
    oldest line while an older mafia line stays in front, the list's head does not move as
    a window; by ids it is still one remove and one add."""
    mafia = [line("mafia", i, 100.0 + i) for i in range(5)]
    day = [line("day", i, 200.0 + i) for i in range(60)]
    a = {"chat": mafia + day, "day": 2}
    new = line("day", 60, 300.0)
    b = {"chat": mafia + day[1:] + [new], "day": 2}
    ops = patches.diff(a, b)
    assert [op["op"] for op in ops] == ["remove", "add"]
    assert exact(jsonpatch.apply_patch(a, ops)) == exact(b)
    size = len(json.dumps(ops, separators=(",", ":")))
    assert size < len(json.dumps(new, separators=(",", ":"))) + 80


def test_the_parser_reads_a_view_exactly_as_json_does():
    body = json.dumps({"a": [True, 1, 1.0, -0.0, 1e300, 12345678901234567890, "é\n\"", None]}).encode()
    assert repr(patches.parse(body)) == repr(json.loads(body))
    lone = b'{"text": "\\ud800"}'  # pydantic's parser refuses it; never in a rendered view
    assert patches.parse(lone) == json.loads(lone)


def test_a_container_whose_operations_outweigh_it_is_replaced_whole():
    """A night's targets filling one by one would be one `add` each: one `replace` is fewer bytes."""
    a = {"private": {"task": "none", "targets": []}, "phase": {"kind": "day", "seq": 3}}
    b = {"private": {"task": "investigate", "targets": [f"p{i}" for i in range(1, 12)]},
         "phase": {"kind": "day", "seq": 3}}
    ops = patches.diff(a, b)
    assert exact(jsonpatch.apply_patch(a, ops)) == exact(b)
    assert {"op": "replace", "path": "/private/targets", "value": b["private"]["targets"]} in ops
    assert len(ops) == 2  # the task, the targets


# ---------------------------------------------------------------- views diffed by their parts
def parts_of(doc: dict) -> dict[str, bytes]:
    """A document's top-level parts as `views.render` gives them (each `{"key": value}`)."""
    return {k: json.dumps({k: v}, separators=(",", ":")).encode() for k, v in doc.items()}


TOP = st.dictionaries(st.sampled_from(["chat", "events", "a/b", "~c", "paused", "rules"]), JSON, max_size=5)


@settings(max_examples=300, deadline=None)
@given(TOP, TOP, TOP)
def test_a_patch_by_parts_is_the_differs_patch_of_the_whole_views_and_memo_shares_nothing_wrong(a, b, c):
    """`diff_parts` gives the operations `diff` gives for the parsed views (a key unchanged in
    bytes is skipped unparsed); one memo across several viewers' pairs (a change's fan-out)
    changes no viewer's operations, whichever pair came first."""
    memo: dict = {}
    for old, new in ((a, b), (c, b), (a, c), (a, b)):
        ops = patches.diff_parts(parts_of(old), parts_of(new), memo)
        assert ops == patches.diff(json.loads(json.dumps(old)), json.loads(json.dumps(new)))
        assert exact(jsonpatch.apply_patch(old, ops)) == exact(new)


def test_a_part_whose_bytes_did_not_change_is_never_parsed(monkeypatch):
    a = {"rules": {"x": [1, True]}, "chat": [{"id": "d:1", "text": "hi"}]}
    b = {"rules": {"x": [1, True]}, "chat": [{"id": "d:1", "text": "hi"}, {"id": "d:2", "text": "yo"}]}
    parsed: list[bytes] = []
    real = patches.parse
    monkeypatch.setattr(patches, "parse", lambda raw: parsed.append(raw) or real(raw))
    memo: dict = {}
    ops = [patches.diff_parts(parts_of(a), parts_of(b), memo) for _ in range(12)]  # twelve viewers
    assert ops[0] == [{"op": "add", "path": "/chat/1", "value": {"id": "d:2", "text": "yo"}}]
    assert all(o == ops[0] for o in ops)
    assert sorted(parsed) == sorted([parts_of(a)["chat"], parts_of(b)["chat"]])  # once for all twelve
