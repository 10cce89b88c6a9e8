"""The fuzz tier: hostile frames through the real `$default` handler on moto, mixed with play.

Each round opens a room of six, sends hostile frames from the host, the players, a spectator
and a stranger in the lobby (the lobby mix: setOptions with odd values, addBot, kick, start,
leave in any order), starts the game, sends more while it runs (between real moves), and
then plays it to the end. After every frame: no internal error (neither an `internal_error`
reply nor an exception out of the handler), every reply is strict JSON (a view, or an
error with a code and a message), a refused frame left the stored room item exactly as it
was, and the room's data is consistent. `FUZZ_FRAMES` sets the number of hostile frames
(default 10,000; e.g. FUZZ_FRAMES=100000 for a soak), `FUZZ_SEED` the first seed.

What the frames may and may not do is a room rule: the 10,000 frames run on the in-memory store
(`memstore`, harness/memory.py; a "write" is a call of one of its writing methods, the stored
room its record). What DynamoDB itself makes of hostile data (an attribute or an item it would
refuse: an internal error here) is storage: MOTO_FRAMES more, from other seeds, run through
moto (and 400 over the offline stack's sockets, tests/e2e/test_fuzz.py).
"""

from __future__ import annotations

import base64
import dataclasses
import inspect
import json
import os
import random

import pytest
from fnkit import CTX, FakeGateway

from handlers import ws_default
from local import events
from mafia_engine.testing import legal_actions
from service.infra import storage
from service.infra.memstore import MemStore
from service.protocol import names
from tests.hostile_frames import FAREWELLS, HostileFrames, Room, Tally, check_reply, room_problems

FRAMES = int(os.environ.get("FUZZ_FRAMES", "10000"))
SEED = int(os.environ.get("FUZZ_SEED", "1"))
MOTO_FRAMES = 1000  # through moto, from seed MOTO_SEED on: a round (~2 CPU-s; the 10,000 on memory ~5.5)
MOTO_SEED = SEED + 1000
LOBBY_FRAMES = 300  # per round, in the lobby (a run of fewer frames: 3 in 10 of them, bench/fuzz.py --quick)
GAME_FRAMES = 700  # per round, while the game runs (with a real move after one in three)
SEATS = 6
WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"})
# the in-memory store's methods that write (each call: one write request of the DynamoDB store),
# and those that only read (test_every_store_method_is_a_read_or_a_write keeps the two complete)
MEMORY_WRITES = frozenset({
    "create", "save", "mark_chat_log", "mark_offer", "spend_budget", "put_report", "delete_report",
    "delete_side_items", "put_person", "update_person", "add_casual_game", "delete_person", "put_credential",
    "delete_credential", "put_challenge", "take_challenge", "revoke_session",
})  # fmt: skip
MEMORY_READS = frozenset({
    "load", "list_public", "public_index_page", "lookup_connection", "chat_archive", "chat_items",
    "ladder_page", "side_items", "report", "reports", "person", "credential", "credentials",
    "session_revoked",
})  # fmt: skip


class RawGateway(FakeGateway):
    """Records the raw bytes of every push (FakeGateway's own parse is not strict)."""

    def __init__(self) -> None:
        super().__init__()
        self.raw: list[tuple[str, bytes]] = []

    def post(self, connection_id: str, data: bytes) -> bool:
        if connection_id in self.gone:
            return False
        self.raw.append((connection_id, data))
        try:
            self.sent.append((connection_id, json.loads(data)))
        except ValueError:
            self.sent.append((connection_id, {"type": "unparsable"}))
        return True

    def clear(self) -> None:
        super().clear()
        self.raw.clear()


@pytest.fixture
def gateway() -> RawGateway:
    return RawGateway()


def write_counter(store) -> list[int]:
    """`store`'s write requests, counted from the first call on (one counter per store): DynamoDB
    write requests, or calls of the in-memory store's writing methods (a call is a request,
    whether its condition holds or not)."""
    counter = getattr(store, "_fuzz_writes", None)
    if counter is not None:
        return counter
    counter = store._fuzz_writes = [0]
    if isinstance(store, MemStore):

        def counted(method):
            def call(*args, **kwargs):
                counter[0] += 1
                return method(*args, **kwargs)

            return call

        for name in MEMORY_WRITES:
            setattr(store, name, counted(getattr(store, name)))
    else:

        def count(model, **kwargs) -> None:
            if model.name in WRITES:
                counter[0] += 1

        store.client.meta.events.register("before-call.dynamodb", count)
    return counter


class Fuzzer:
    """One room at a time: seats, connections, and the hostile frames sent to it."""

    def __init__(self, api, tally: Tally, seed: int) -> None:
        self.api = api
        self.tally = tally
        self.gen = HostileFrames(seed)
        self.rng = random.Random(seed)
        self.conns: dict[str, str] = {}  # player id -> its connection
        self.items: list[dict] = []  # the room's partition as stored after the last frame
        self.room: dict = {}
        self.state: dict | None = None
        self._writes = write_counter(api.svc.store)

    @property
    def writes(self) -> int:
        """Write requests the service has made (on the in-memory store: its writing calls)."""
        return self._writes[0]

    # ------------------------------------------------------------ the stored room
    def refresh(self) -> None:
        """Read the room's whole partition (room item, connections, chat archive) once."""
        store = self.api.svc.store
        if isinstance(store, MemStore):  # the room's record: the item, its connections, places, chat
            r = store._rooms[self.api.code]
            conns = {c: dataclasses.astuple(v) for c, v in r.conns.items()}
            self.items = [(r.version, r.blob, r.expires, dict(r.index)), conns, dict(r.slots), dict(r.chat)]
            doc, live = storage.decode(r.blob), set(conns)
        else:
            self.items = store.client.query(
                TableName=store.table,
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues={":pk": {"S": storage.room_pk(self.api.code)}},
                ConsistentRead=True,
            )["Items"]
            doc = next(storage.decode(it["data"]["B"]) for it in self.items if it["sk"]["S"] == "STATE")
            live = {it["sk"]["S"][len("CONN#") :] for it in self.items if it["sk"]["S"].startswith("CONN#")}
        self.room, self.state = doc["room"], doc.get("state")
        self.conns = {p: c for p, c in self.conns.items() if c in live}

    # ------------------------------------------------------------ one frame
    def send(self, conn: str, text: str, binary: bool = False) -> None:
        event = events.ws_message_event(connection=conn, body=text)
        if binary:
            event["body"] = base64.b64encode(text.encode("utf-8", "surrogatepass")).decode()
            event["isBase64Encoded"] = True
        try:
            ws_default.handler(event, CTX)
        except Exception as exc:  # noqa: BLE001 - API Gateway's "Internal server error"
            self.tally.internal_errors += 1
            self.tally.note(f"handler raised {exc!r} for {text[:200]!r}")

    def hostile(self, room: Room) -> None:
        api, tally = self.api, self.tally
        text = self.gen.frame(room)
        host_conn = self.conns.get(self.room.get("host"))
        roll = self.rng.random()
        if roll < 0.4 and host_conn:
            conn = host_conn
        elif roll < 0.5:
            conn = "spectator"
        elif roll < 0.53:
            conn = "stranger"
        else:
            conn = self.rng.choice(list(self.conns.values()) or ["stranger"])
        before, writes = self.items, self.writes
        api.gw.clear()
        self.send(conn, text, binary=self.rng.random() < 0.03)
        tally.frames += 1
        own = None
        for to, data in list(api.gw.raw):
            frame = check_reply(tally, data, text)
            if to == conn and frame is not None and frame.get("type") == "error" and own is None:
                own = frame
        wrote = self.writes != writes
        if wrote or self.rng.random() < 0.05:  # no write request: nothing stored can have changed
            self.refresh()
        if own is not None and own["code"] not in FAREWELLS:
            tally.refused += 1
            if wrote or self.items != before:
                tally.changed_by_refusal += 1
                tally.note(f"refused frame ({own['code']}) changed the room: {text[:200]!r}")
        for problem in room_problems(self.room, self.state, names.key):
            tally.note(f"{problem} after {text[:200]!r}")
        room.players = [p["id"] for p in self.room["players"]]
        if self.state is not None:
            room.phase_seq = self.state["seq"]

    def request(self, conn: str, frame: dict) -> None:
        """A frame a well-behaved client sends (its replies are checked all the same)."""
        self.api.gw.clear()
        self.send(conn, json.dumps(frame))
        for _, data in list(self.api.gw.raw):
            check_reply(self.tally, data, json.dumps(frame))
        self.refresh()

    # ------------------------------------------------------------ a round
    def round(self, lobby_frames: int, game_frames: int) -> None:
        api = self.api
        api.tokens.clear()
        pids = api.lobby(SEATS)
        self.conns = {pid: f"c{pid}" for pid in pids}
        assert api.connect("spectator") == 200
        self.refresh()
        room = Room(api.code, list(pids))
        for _ in range(lobby_frames):
            self.hostile(room)
        if not self.restore_lobby():
            return
        for _ in range(game_frames):
            self.hostile(room)
            if self.room["status"] != "running":
                break
            if self.rng.random() < 0.35:
                self.real_move()
        self.play_to_the_end()

    def restore_lobby(self) -> bool:
        """Whatever the lobby mix did, a host with the remaining players can start a game
        (False: the mix started one and every person left it, so it was played out by the bots)."""
        api = self.api
        if self.room["status"] != "lobby":
            self.play_to_the_end()
            if self.room["host"] not in self.conns:
                assert not [p for p in self.room["players"] if not p.get("bot") and not p.get("left")]
                return False
            self.request(self.conns[self.room["host"]], {"action": "newGame"})
        if self.room["host"] is None:  # everyone left the lobby: the next to join is host
            pid = api.join(f"Late{self.rng.randint(0, 10**6)}")
            assert api.connect(f"c{pid}", pid) == 200
            self.conns[pid] = f"c{pid}"
            self.refresh()
        host = self.room["host"]
        assert host in self.conns, f"host {host} has no connection: {self.room['players']}"
        self.request(self.conns[host], {"action": "setOptions", "options": {}, "preset": "classic"})
        while len(self.room["players"]) < 5:
            pid = api.join(f"Late{self.rng.randint(0, 10**6)}")
            assert api.connect(f"c{pid}", pid) == 200
            self.conns[pid] = f"c{pid}"
            self.refresh()
        for p in self.room["players"]:
            if not p.get("bot") and p["id"] != host:
                self.request(self.conns[p["id"]], {"action": "ready"})
        self.request(self.conns[host], {"action": "start"})
        assert self.room["status"] == "running", (self.room, api.gw.sent[-3:])
        return True

    def real_move(self) -> None:
        api, state = self.api, self.state
        if self.rng.random() < 0.15:
            api.clock.advance(max(0.0, (state["phase"]["endsAt"] or api.clock.t) - api.clock.t) + 0.5)
            api.fire(state["seq"])
            self.refresh()
            return
        if state.get("paused"):
            if self.room["host"] in self.conns:
                self.request(self.conns[self.room["host"]], {"action": "resume"})
            return
        choices = [a for a in legal_actions(state) if a["player"] in self.conns]
        if not choices:
            return
        action = dict(self.rng.choice(choices))
        pid = action.pop("player")
        action["action"] = action.pop("type")
        api.clock.advance(0.8)
        self.request(self.conns[pid], action)

    def play_to_the_end(self, max_steps: int = 3000) -> None:
        for _ in range(max_steps):
            if self.room["status"] != "running":
                break
            if self.rng.random() < 0.35:
                self.real_move()
        assert self.room["status"] == "ended", "the game could not be played to the end"


def fuzz(api, frames: int, seed: int) -> Tally:
    """Rounds from `seed` on until `frames` hostile frames were sent; the tally asserted clean."""
    tally = Tally()
    lobby, game = min(LOBBY_FRAMES, frames * 3 // 10), min(GAME_FRAMES, frames * 7 // 10)
    while tally.frames < frames:
        Fuzzer(api, tally, seed).round(lobby, game)
        seed += 1
    print(json.dumps({"fuzz": tally.summary()}))
    assert tally.internal_errors == 0, tally.problems
    assert tally.invalid_json == 0, tally.problems
    assert tally.changed_by_refusal == 0, tally.problems
    assert not tally.problems, tally.problems
    return tally


@pytest.mark.whole_game
@pytest.mark.memstore  # what a frame may change is a room rule: the in-memory store
@pytest.mark.timeout(900)  # ~5 CPU-s: the 300 s wedge guard was reached on a machine at load ~20 (on moto)
def test_hostile_frames_get_clean_refusals_and_the_game_still_ends(api):
    fuzz(api, FRAMES, SEED)


@pytest.mark.whole_game
def test_hostile_frames_through_dynamodb_get_clean_refusals_and_the_game_still_ends(api):
    """The same through moto: what DynamoDB makes of hostile data (an attribute or an item it
    refuses would be an internal error); other seeds than the run on the in-memory store."""
    fuzz(api, MOTO_FRAMES, MOTO_SEED)


def test_every_store_method_is_a_read_or_a_write():
    """The fuzz counts a refused frame's writes on the in-memory store by its writing methods:
    every public method is one or the other (a new writing method would go uncounted)."""
    public = {n for n, _ in inspect.getmembers(MemStore, inspect.isfunction) if not n.startswith("_")}
    assert public == MEMORY_WRITES | MEMORY_READS
    assert not MEMORY_WRITES & MEMORY_READS
