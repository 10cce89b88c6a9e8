"""Non-interference of whole frames (docs/architecture.md, "Bots" and "Chat archive": secrets
leave by no path): what a viewer receives — every byte of every frame, `version`
included, and how many frames in which order — must not depend on hidden roles of
others, nor on secret actions the viewer cannot see.

The room is played to the first night, then the night is played twice from the same stored
item and the same clock: once as dealt, once with the roles of two players the viewer does
not know swapped (the night's actions are sent by whoever holds each role). The frames
pushed to a citizen and to a spectator must be identical, byte for byte.

Every test runs twice: with full views, and with every connection asking for patches
(service/protocol/patches.py): a patch is made from that viewer's own two views, and its bytes too may
not depend on what the viewer may not know.
"""

from __future__ import annotations

import boto3
import pytest

from mafia_engine.testing import legal_actions
from service.features import fairness
from service.infra import storage
from service.infra.memstore import MemStore
from service.protocol import patches


@pytest.fixture(params=[False, True], ids=["views", "patches"])
def api(api, request):
    api.patches = request.param
    return api


def to_night(api) -> None:
    while api.state()["phase"]["kind"] != "night":
        api.clock.advance(max(0.0, api.state()["phase"]["endsAt"] - api.clock.t))
        api.send("cp1", {"action": "nudge"})


def roles(api) -> dict[str, str]:
    return {p["id"]: p["role"] for p in api.state()["players"]}


def cast(api) -> tuple[str, str, str, str]:
    """(viewer, mafioso, citizen, target): a citizen viewer, a mafioso and another citizen
    it cannot tell apart (swapped in the second run), and a third citizen as the target."""
    r = roles(api)
    citizens = sorted(p for p, role in r.items() if role == "citizen")
    mafia = sorted(p for p, role in r.items() if role == "mafia")
    return citizens[0], mafia[0], citizens[1], citizens[2]


def raw_item(api) -> dict:
    api.gw.checkpoint()  # the clients' views go back with the item (`restore`)
    store = api.svc.store
    if isinstance(store, MemStore):  # a `memstore` test: the room's record, as the item holds it
        r = store._rooms[api.code]
        return {"data": {"B": r.blob}, "version": r.version}
    return boto3.client("dynamodb").get_item(
        TableName=api.svc.store.table,
        Key={"pk": {"S": storage.room_pk(api.code)}, "sk": {"S": "STATE"}},
    )["Item"]


def per_viewer(api, watchers: list[str]) -> list[tuple[str, dict]]:
    """The frames pushed to `watchers`, viewer by viewer, each in the order it got them: one
    change is pushed to all its viewers in parallel, so the order across viewers is the
    threads', not the server's (comparing it made these tests fail 1 run in 12 under load)."""
    # each frame as the client has it after applying it, with the frame that travelled (a
    # patch or the full view) and its bytes: equal lists mean equal bytes on the wire
    wire = zip(api.gw.sent, api.gw.wire, api.gw.sizes, strict=True)
    sent = [(c, {**f, "wire": w, "bytes": n}) for (c, f), (_, w), n in wire if c in watchers]
    return sorted(sent, key=lambda cf: watchers.index(cf[0]))  # stable: keeps each viewer's order


def restore(api, item: dict, swap: tuple[str, str] | None) -> None:
    """Put the room item back as it was at nightfall, optionally with two roles swapped."""
    doc = storage.decode(item["data"]["B"])
    if swap:
        by = {p["id"]: p for p in doc["state"]["players"]}
        a, b = by[swap[0]], by[swap[1]]
        a["role"], b["role"] = b["role"], a["role"]
        doc["room"].pop("botPlan", None)  # the bots plan the night again from their new roles
    elif doc["room"].get("botPlan"):
        doc["room"].pop("botPlan", None)  # both runs re-plan the night at the same moment
    store = api.svc.store
    if isinstance(store, MemStore):  # the record put back whole, as put_item puts the item
        with store._lock:
            r = store._rooms[api.code]
            r.blob, r.version = storage.encode(doc), item["version"]
    else:
        boto3.client("dynamodb").put_item(
            TableName=store.table, Item={**item, "data": {"B": storage.encode(doc)}}
        )
    api.gw.rewind()
    patches.BASES.clear()  # as a fresh process: both runs rebuild the base from the item


def night_script(api, target: str, chatty: int) -> list[tuple[str, dict]]:
    """The night's actions by role: every mafioso picks `target`, the doctor heals and the
    police checks it, the mafia chat `chatty` lines. Actors are whoever holds the role."""
    state = api.state()
    out: list[tuple[str, dict]] = []
    for a in legal_actions(state):
        if a.get("target") == target and a["type"] != "chat":
            out.append((a["player"], {"action": a["type"], "target": target}))
    mafia = sorted(p for p, r in roles(api).items() if r == "mafia")
    out += [
        (mafia[i % len(mafia)], {"action": "chat", "channel": "mafia", "text": f"m{i}"})
        for i in range(chatty)
    ]
    return out


def play_night(api, item: dict, t0: float, swap, chatty: int, watchers: list[str]) -> list[tuple[str, dict]]:
    restore(api, item, swap)
    api.clock.t = t0
    api.gw.clear()
    viewer = watchers[0]
    target = night_script.target  # type: ignore[attr-defined]
    # the actions every half second; the viewer looks at its screen (sync) every 3 s all
    # night, whatever happens: the same requests of its own in every run
    moves = [
        (t0 + 0.5 * (i + 1), actor if actor.startswith("s") else f"c{actor}", frame)
        for i, (actor, frame) in enumerate(night_script(api, target, chatty))
    ]
    moves += [(t0 + 3.0 * (i + 1) + 0.25, viewer, {"action": "sync"}) for i in range(8)]
    for at, conn, frame in sorted(moves, key=lambda m: m[0]):
        api.clock.t = at
        api.send(conn, frame)
    api.clock.advance(max(0.0, api.state()["phase"]["endsAt"] - api.clock.t))
    api.send(viewer, {"action": "nudge"})  # dawn
    assert api.state()["phase"]["kind"] != "night"
    return per_viewer(api, watchers)


@pytest.fixture
def night(api):
    api.start(7)
    api.connect("s1")
    to_night(api)
    viewer, mafioso, citizen, target = cast(api)
    night_script.target = target  # type: ignore[attr-defined]
    return api, raw_item(api), api.clock.t, viewer, mafioso, citizen


@pytest.mark.memstore  # what frames carry: a room rule (harness/memory.py's store and timers)
def test_swapping_hidden_roles_changes_no_frame_a_citizen_or_spectator_receives(night):
    api, item, t0, viewer, mafioso, citizen = night
    watchers = [f"c{viewer}", "s1"]
    dealt = play_night(api, item, t0, None, 3, watchers)
    swapped = play_night(api, item, t0, (mafioso, citizen), 3, watchers)
    assert roles(api)[citizen] == "mafia"  # the second night really had another mafioso
    assert dealt == swapped  # every frame, in the same order: version and timing included
    assert any(f["type"] == "view" and f["view"]["phase"]["kind"] != "night" for _, f in dealt)
    # with patches, the pushes travelled as patches (the `sync` answers as full views): both compared
    travelled = {f["wire"]["type"] for _, f in dealt}
    assert travelled == ({"patch", "view"} if api.patches else {"view"})


@pytest.mark.memstore  # what frames carry: a room rule (harness/memory.py's store and timers)
def test_voice_policy_and_the_mafias_voice_signals_change_no_frame_a_citizen_or_spectator_receives(
    night, monkeypatch
):
    """The views' `voice` (docs/rules.md, "Voice") rides in every compared frame, and a night
    where the mafia signal each other (and try the others) looks the same to a citizen and a
    spectator as a night where nobody does: a relay writes nothing and posts to its target only."""
    api, item, t0, viewer, _mafioso, _citizen = night
    watchers = [f"c{viewer}", "s1"]
    quiet = play_night(api, item, t0, None, 0, watchers)
    views = [f["view"] for _, f in quiet if f["type"] == "view"]
    assert views and all("voice" in v for v in views)
    assert any(
        v["voice"]["on"] and not v["voice"]["hearFrom"] for v in views if v["phase"]["kind"] == "night"
    )
    script = night_script
    mafia = sorted(p for p, r in roles(api).items() if r == "mafia")

    def with_signals(api_, target: str, chatty: int) -> list[tuple[str, dict]]:
        out = script(api_, target, chatty)
        for p in roles(api_):
            if p != mafia[0]:
                out.append((mafia[0], {"action": "signal", "to": p, "kind": "offer", "sdp": "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"}))
            if p not in (mafia[0], viewer):  # the viewer's own requests are the same in both runs
                out.append((p, {"action": "signal", "to": mafia[0], "kind": "answer", "sdp": "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"}))
        return out

    with_signals.target = script.target  # type: ignore[attr-defined]
    monkeypatch.setattr(__import__(__name__), "night_script", with_signals, raising=True)
    busy = play_night(api, item, t0, None, 0, watchers)
    assert len(mafia) >= 2 and any(f["type"] == "signal" for _, f in api.gw.sent)  # the mafia's went through
    assert quiet == busy


@pytest.mark.memstore  # what frames carry: a room rule (harness/memory.py's store and timers)
def test_voice_a_listening_spectator_at_night_gets_the_same_frames_whoever_the_mafia_are(night, monkeypatch):
    """A spectator listening (docs/rules.md, "Voice"): at night it asks every seat to be heard
    (`listen`) and the mafia try to offer it audio; every ask and every offer is refused alike,
    and what the spectator and a citizen receive is the same byte for byte whoever the mafia are."""
    api, item, t0, viewer, mafioso, citizen = night
    watchers = [f"c{viewer}", "s1"]
    lid = api.snapshot().listeners["s1"]
    script = night_script

    def listening(api_, target: str, chatty: int) -> list[tuple[str, dict]]:
        out = script(api_, target, chatty)
        for p in sorted(roles(api_)):
            out.append(("s1", {"action": "signal", "to": p, "kind": "listen"}))
        for p in sorted(p for p, r in roles(api_).items() if r == "mafia"):
            out.append((p, {"action": "signal", "to": lid, "kind": "offer", "sdp": "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"}))
        return out

    listening.target = script.target  # type: ignore[attr-defined]
    monkeypatch.setattr(__import__(__name__), "night_script", listening, raising=True)
    dealt = play_night(api, item, t0, None, 0, watchers)
    swapped = play_night(api, item, t0, (mafioso, citizen), 0, watchers)
    refusals = [f["code"] for c, f in dealt if c == "s1" and f["type"] == "error"]
    assert refusals == ["voice_not_permitted"] * len(roles(api))
    assert not any(f["type"] == "signal" for _, f in api.gw.sent)  # nothing got through
    assert dealt == swapped


@pytest.mark.memstore  # what frames carry: a room rule (harness/memory.py's store and timers)
def test_secret_writes_do_not_move_a_viewers_version(night):
    """A chatty mafia (many hidden writes) and a silent one look the same to a citizen and a
    spectator: their versions move only when their own view changes (the dawn)."""
    api, item, t0, viewer, _mafioso, _citizen = night
    watchers = [f"c{viewer}", "s1"]
    silent = play_night(api, item, t0, None, 0, watchers)
    chatty = play_night(api, item, t0, None, 6, watchers)

    def versions(frames):
        return [(c, f["version"]) for c, f in frames if f["type"] == "view"]

    assert versions(silent) == versions(chatty)
    # within the night the viewer's version stays put: one step at dawn
    mine = [f["version"] for c, f in chatty if c == f"c{viewer}" and f["type"] == "view"]
    assert mine[-1] == mine[0] + 1 and len(set(mine[:-1])) == 1


@pytest.mark.memstore  # what frames carry: a room rule (harness/memory.py's store and timers)
def test_versions_never_go_back_and_count_only_changes(api):
    api.start(5)
    api.connect("s1")
    to_night(api)
    for conn in ("cp1", "cp2", "s1"):
        versions = [f["version"] for f in api.gw.to(conn) if f["type"] == "view"]
        assert versions == sorted(versions)
    snap = api.snapshot()
    assert set(snap.room["viewSeq"]) >= {"p1", "p2", "*"}
    assert all(v <= snap.version for v in snap.room["viewSeq"].values())


# ---------------------------------------------------------------- bots and their private wakes
def bot_room(api, n_bots: int) -> None:
    api.create("Vic")
    assert api.connect("cp1", "p1") == 200
    api.connect("s1")
    for _ in range(n_bots):
        api.send("cp1", {"action": "addBot"})
    api.send("cp1", {"action": "start"})
    assert api.snapshot().room["status"] == "running", api.gw.last("cp1", "error")


def night_with_bots(api, item: dict, t0: float, swap) -> list[tuple[str, dict]]:
    restore(api, item, swap)
    api.__dict__.pop("_fired", None)  # the replay delivers every armed wake again
    api.clock.t = t0
    api.gw.clear()
    end = api.state()["phase"]["endsAt"]
    while api.clock.t + 2.0 < end:
        api.clock.advance(2.0)
        api.fire_due()  # the room's private wakes for its bots' night work
        api.send("cp1", {"action": "sync"})
    return per_viewer(api, ["cp1", "s1"])


@pytest.mark.memstore  # what frames carry: a room rule (harness/memory.py's store and timers)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_swapping_bots_hidden_roles_changes_no_frame_during_the_night(api, monkeypatch, seed):
    monkeypatch.setattr(fairness, "new_secret", lambda s=seed: f"{s:064x}")
    bot_room(api, 6)
    to_night(api)
    r = roles(api)
    import mafia_engine as me

    unknown = [p["id"] for p in me.view(api.state(), "p1")["players"] if p["role"] is None]
    pairs = [(a, b) for a in unknown for b in unknown if r[a] != r[b]]
    pairs.sort(key=lambda ab: (r[ab[0]] != "mafia", ab))  # a mafia bot against another role first
    mafioso, other = pairs[0]
    item, t0 = raw_item(api), api.clock.t
    dealt = night_with_bots(api, item, t0, None)
    swapped = night_with_bots(api, item, t0, (mafioso, other))
    assert dealt == swapped
    # no frame announces when the room wakes for its bots
    assert all("wakeAt" not in f["view"]["room"] for _, f in dealt if f["type"] == "view")


@pytest.mark.whole_game
@pytest.mark.memstore  # what frames carry: a room rule (harness/memory.py's store and timers)
def test_no_frame_announces_when_the_room_wakes_for_its_bots(api, monkeypatch):
    """Seeded bot games played to the end, the host nudging at the deadline and the Scheduler
    delivering the room's private wakes: no frame to a player or a spectator carries a wake
    time (`room.wakeAt` announced the bots' public ticks: bot lines sat on them, 14/14 and
    5/5 in the review's games, and it turned null when the last bot died), and the bots
    still play every game to its end. The seeds are split between the two transports (views:
    1 and 3, patches: 2): what a frame carries does not depend on the transport's seed."""
    for seed in (2,) if api.patches else (1, 3):
        api.gw.clear()
        monkeypatch.setattr(fairness, "new_secret", lambda s=seed: f"{s:064x}")
        bot_room(api, 6)
        steps = 0
        while api.snapshot().room["status"] == "running" and steps < 400:
            steps += 1
            ends = api.state()["phase"].get("endsAt")
            due = [x for x in (ends, api.next_wake()) if x]
            api.clock.t = max(api.clock.t + 0.5, min(due) if due else api.clock.t + 5)
            api.fire_due()
            if api.snapshot().room["status"] == "running":
                api.send("cp1", {"action": "nudge", "phase": api.state()["seq"]})
        assert api.snapshot().room["status"] == "ended"
        views = [f["view"] for _, f in api.gw.sent if f["type"] == "view"]
        assert views and all("wakeAt" not in v["room"] for v in views)
        said = [m for m in api.state()["chat"] if m["channel"] == "day" and m["from"] not in (None, "p1")]
        assert said, "the bots talked"


# ---------------------------------------------------------------- hidden chat volume
def night_and_morning(api, item: dict, t0: float, mafia_lines: int, dead_lines: int, watchers: list[str]):
    """The mafia kill the target at night while chatting `mafia_lines` lines; in the morning
    the dead target writes `dead_lines` lines in the dead chat and the viewer one day line."""
    restore(api, item, None)
    api.clock.t = t0
    api.gw.clear()
    viewer, target = watchers[0], night_script.target  # type: ignore[attr-defined]
    mafia = sorted(p for p, r in roles(api).items() if r == "mafia")
    moves = [(f"c{m}", {"action": "mafiaTarget", "target": target}) for m in mafia]
    moves += [
        (f"c{mafia[i % len(mafia)]}", {"action": "chat", "channel": "mafia", "text": f"m{i}"})
        for i in range(mafia_lines)
    ]
    for i, (conn, frame) in enumerate(moves):
        api.clock.t = t0 + 1.0 * (i + 1)
        api.send(conn, frame)
    api.clock.t = t0 + 20.25
    api.send(viewer, {"action": "sync"})
    api.clock.advance(max(0.0, api.state()["phase"]["endsAt"] - api.clock.t))
    api.send(viewer, {"action": "nudge"})  # dawn
    assert next(p for p in api.state()["players"] if p["id"] == target)["alive"] is False
    t1 = api.clock.t
    for i in range(dead_lines):
        api.clock.t = t1 + 1.0 * (i + 1)
        api.send(f"c{target}", {"action": "chat", "channel": "dead", "text": f"d{i}"})
    api.clock.t = t1 + 10.0
    api.send(viewer, {"action": "chat", "channel": "day", "text": "good morning"})
    api.clock.t = t1 + 11.0
    api.send(viewer, {"action": "sync"})
    assert not [f for c, f in api.gw.sent if f["type"] == "error"]
    return per_viewer(api, watchers)


@pytest.mark.memstore  # what frames carry: a room rule (harness/memory.py's store and timers)
def test_hidden_chat_volume_changes_no_citizen_or_spectator_frame(night):
    """Two games identical but for how much the mafia (at night) and the dead (in the
    morning) wrote: every frame a citizen and a spectator receive is identical, message ids
    included (ids count per channel; one counter for all channels showed the gaps)."""
    api, item, t0, viewer, _mafioso, _citizen = night
    watchers = [f"c{viewer}", "s1"]
    quiet = night_and_morning(api, item, t0, 0, 0, watchers)
    chatty = night_and_morning(api, item, t0, 5, 3, watchers)
    assert quiet == chatty
    seen = [m for _, f in chatty if f["type"] == "view" for m in f["view"]["chat"]]
    assert any(m["text"] == "good morning" for m in seen)
    assert {m["channel"] for m in seen} <= {"day", "system"}


def public_requests_cost(api, item: dict, t0: float, mafia_lines: int, dead_lines: int) -> list[tuple]:
    """The night and morning of `night_and_morning`, with long chat: the mafia write
    `mafia_lines` at night, the dead target `dead_lines` in the morning while the living
    write 90 day lines (the day window of 60 overflows: day batches go to the archive). What
    each request by someone who reads neither channel (the living town, a spectator) costs:
    its DynamoDB calls in order, with the item count of every transaction."""
    restore(api, item, None)
    api.clock.t = t0
    api.gw.clear()
    viewer, target = f"c{cast(api)[0]}", night_script.target  # type: ignore[attr-defined]
    mafia = sorted(p for p, r in roles(api).items() if r == "mafia")
    town = sorted(p for p, r in roles(api).items() if r != "mafia" and p != target)
    moves = [
        (t0 + 0.1 * (i + 1), f"c{m}", {"action": "mafiaTarget", "target": target})
        for i, m in enumerate(mafia)
    ]
    moves += [
        (
            t0 + 1.0 + 0.8 / len(mafia) * i,
            f"c{mafia[i % len(mafia)]}",
            {"action": "chat", "channel": "mafia", "text": f"m{i}"},
        )
        for i in range(mafia_lines)
    ]
    moves += [(t0 + 3.0 * (i + 1) + 0.05, viewer, {"action": "sync"}) for i in range(9)]
    moves += [(t0 + 30.0, "s1", {"action": "nudge"})]  # dawn
    t1 = t0 + 31.0
    moves += [
        (t1 + 0.3 * i, f"c{town[i % len(town)]}", {"action": "chat", "channel": "day", "text": f"d{i}"})
        for i in range(90)
    ]
    moves += [
        (t1 + 0.15 + 0.75 * i, f"c{target}", {"action": "chat", "channel": "dead", "text": f"x{i}"})
        for i in range(dead_lines)
    ]
    moves += [(t1 + 2.0 * (i + 1) + 0.05, "s1", {"action": "sync"}) for i in range(15)]
    public = {viewer, "s1", *(f"c{p}" for p in town)}
    client = api.svc.store.client
    calls: list[tuple] = []

    def record(event_name: str, params: dict | None = None, **_kw) -> None:
        op = event_name.rsplit(".", 1)[-1]
        calls.append((op, len((params or {}).get("TransactItems", ())) or None))

    out = []
    client.meta.events.register("before-call.dynamodb", record)
    try:
        for at, conn, frame in sorted(moves, key=lambda m: m[0]):
            api.clock.t = at
            calls.clear()
            api.send(conn, frame)
            if conn in public:
                out.append((conn, frame["action"], tuple(calls)))
    finally:
        client.meta.events.unregister("before-call.dynamodb", record)
    assert next(p for p in api.state()["players"] if p["id"] == target)["alive"] is False
    assert api.state()["phase"]["kind"] == "discussion"
    assert not [f for _, f in api.gw.sent if f["type"] == "error"]
    return out


@pytest.mark.whole_game
def test_hidden_chat_volume_changes_no_public_requests_dynamodb_calls(night):
    """Two games identical but for how much the mafia (at night) and the dead (by day) wrote,
    enough to overflow their windows and fill archive batches: every request of the living
    town and of a spectator makes the same DynamoDB calls in the same order (a conditional
    Put, or a transaction of the same items when a day batch goes to its archive item).
    Review finding: one archive buffer for every channel made the day write that filled it
    come 25 evicted lines early after a chatty night, so a public line's cost counted hidden
    lines; now a hidden channel's batch is written only in its writers' own requests."""
    api, item, t0, _viewer, _mafioso, _citizen = night
    quiet = public_requests_cost(api, item, t0, 0, 0)
    chatty = public_requests_cost(api, item, t0, 60, 35)
    assert quiet == chatty
    transactions = [r for r in chatty if any(op == "TransactWriteItems" for op, _ in r[2])]
    assert transactions and all(r[1] == "chat" for r in transactions)  # the day batch was written
    archive = api.snapshot().room["archive"]
    assert {
        m["channel"] for m in api.svc.store.chat_archive(api.code, 1, api.snapshot().room["archive"]["seq"])
    } >= {"day", "mafia"}
    assert len(archive["buffers"]["dead"]) == 5  # the dead's evicted lines wait in the room data


# ---------------------------------------------------------------- bots by day, and the night's cost
def until_vote_ends(api, item: dict, t0: float, swap) -> list[tuple[str, tuple]]:
    """Replay a day from its discussion's first moment to the end of its vote, the host
    nudging at the deadline as the client does and the Scheduler delivering the room's private
    wakes; what a citizen and a spectator see of the bots' timing: each frame's phase and the bots' chat lines
    (who and when; not the text, whose names a mafioso may pick to suit its team)."""
    restore(api, item, swap)
    api.__dict__.pop("_fired", None)  # the replay delivers every armed wake again
    api.clock.t = t0
    api.gw.clear()
    day = api.state()["day"]
    api.send("cp1", {"action": "sync"})
    for _ in range(200):
        state = api.state()
        if state["day"] != day or state["phase"]["kind"] not in ("discussion", "vote"):
            break
        due = [x for x in (api.next_wake(), state["phase"]["endsAt"]) if x is not None]
        api.clock.t = max(api.clock.t, min(due)) + 0.01
        api.fire_due()
        api.send("cp1", {"action": "nudge", "phase": state["seq"]})
    bots = {p["id"] for p in api.snapshot().room["players"] if p.get("bot")}
    out = []
    for conn, f in api.gw.sent:
        if conn not in ("cp1", "s1") or f["type"] != "view":
            continue
        v = f["view"]
        lines = tuple((m["from"], m["at"]) for m in v["chat"] if m["from"] in bots and m["day"] == day)
        out.append((conn, (v["phase"]["seq"], v["phase"]["kind"], lines)))
    return sorted(out, key=lambda cf: cf[0])  # each viewer's own order (see per_viewer)


@pytest.mark.memstore  # what frames carry: a room rule (harness/memory.py's store and timers)
def test_swapping_bots_hidden_roles_changes_no_bot_talk_by_day(api, monkeypatch):
    """Day 2 of seeded bot games, replayed from its discussion's first moment twice: once as
    dealt, once with a mafia bot's card swapped with a townsman bot's (one without night
    results, whose claims would say what it found). The host (a citizen or not, it does not
    know either card) and a spectator must see the same frames and the same
    bot chat lines at the same times: whether, when and how often a bot talks comes from the
    public evidence alone (review finding: a mafia bot used to accuse with no evidence 45% of
    the time, a town bot never; and `wakeAt` was the earliest planned action)."""
    lines = 0
    # six seeds split between the two transports (views: the odd ones, patches: the even ones)
    for seed in range(2 if api.patches else 1, 7, 2):
        api.gw.clear()
        monkeypatch.setattr(fairness, "new_secret", lambda s=seed: f"{s:064x}")
        bot_room(api, 6)
        for _ in range(100):
            state = api.state()
            if state["phase"]["kind"] == "ended" or (
                state["day"] >= 2 and state["phase"]["kind"] == "discussion"
            ):
                break
            api.clock.t = max(api.clock.t, state["phase"]["endsAt"])
            api.send("cp1", {"action": "nudge", "phase": state["seq"]})
        state = api.state()
        if state["phase"]["kind"] != "discussion":
            continue
        import mafia_engine as me

        r = roles(api)
        alive = {p["id"] for p in state["players"] if p["alive"]}
        unknown = [p["id"] for p in me.view(state, "p1")["players"] if p["role"] is None and p["id"] in alive]
        mafia = [p for p in unknown if r[p] == "mafia"]
        town = [p for p in unknown if r[p] != "mafia" and not me.view(state, p)["private"]["results"]]
        if not mafia or not town:
            continue
        item, t0 = raw_item(api), api.clock.t
        dealt = until_vote_ends(api, item, t0, None)
        swapped = until_vote_ends(api, item, t0, (mafia[0], town[0]))
        assert roles(api)[town[0]] == "mafia"
        assert dealt == swapped, seed
        lines += max(len(f[2]) for _, f in dealt)
    assert lines > 2  # the bots did talk


def test_a_night_sync_costs_the_same_whoever_holds_a_night_role(api):
    """Four silent humans and two bots, the first night replayed with three deals for the
    bots: both citizens, the mafia and the doctor, the police and the mafia. A spectator
    syncs every 1.3 s all night: each sync must make the same DynamoDB calls (a Query; a
    write only when it passes one of the room's public ticks) and get the same frames
    (review finding 6: only bots with a night role had night entries, so a sync cost a
    Query with no role-holding bot and Query + write + fan-out with one)."""
    api.lobby(4)
    api.connect("s1")
    api.send("cp1", {"action": "addBot"})
    api.send("cp1", {"action": "addBot"})
    for pid in ("p2", "p3", "p4"):
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    assert api.snapshot().room["status"] == "running", api.gw.last("cp1", "error")
    to_night(api)
    item, t0 = raw_item(api), api.clock.t
    dealt = sorted(roles(api).values())
    assert dealt.count("citizen") == 2 and {"mafia", "police", "doctor"} <= set(dealt)
    client = api.svc.store.client
    calls: list[str] = []

    def count(event_name: str, **_kw) -> None:
        calls.append(event_name.rsplit(".", 1)[-1])

    def night(bots: tuple[str, str]) -> tuple[list[list[str]], list[dict]]:
        rest = [r for r in dealt]
        for r in bots:
            rest.remove(r)
        deal = dict(zip(("p1", "p2", "p3", "p4", "p5", "p6"), [*rest, *bots], strict=True))
        doc = storage.decode(item["data"]["B"])
        for p in doc["state"]["players"]:
            p["role"] = deal[p["id"]]
        doc["room"].pop("botPlan", None)
        boto3.client("dynamodb").put_item(
            TableName=api.svc.store.table, Item={**item, "data": {"B": storage.encode(doc)}}
        )
        api.gw.rewind()
        patches.BASES.clear()  # as a fresh process
        api.clock.t = t0
        api.gw.clear()
        per_sync = []
        end = api.state()["phase"]["endsAt"]
        client.meta.events.register("before-call.dynamodb", count)
        try:
            while api.clock.t + 1.3 < end:
                api.clock.advance(1.3)
                calls.clear()
                api.send("s1", {"action": "sync"})
                per_sync.append(list(calls))
        finally:
            client.meta.events.unregister("before-call.dynamodb", count)
        assert [p["role"] for p in api.state()["players"][4:]] == list(bots)
        return per_sync, api.gw.to("s1")

    citizens = night(("citizen", "citizen"))
    assert citizens == night(("mafia", "doctor")) == night(("police", "mafia"))
    costs = {len(c) for c in citizens[0]}
    assert len(costs) == 2, citizens[0]  # syncs between ticks only read; one past a tick writes
