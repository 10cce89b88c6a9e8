"""Upgrades with games in flight, over the handlers: a room item the previous release stored
is read by this release's handlers and its game plays to the end (and one an older release
stored).

tests/functions/golden/<release>/<preset>-<phase>.json hold the `STATE` item that release's
handlers wrote (golden/make_rooms.py, run as a test of that release's own functions tier): a
lobby every seat has joined, the role reveal, a night, a day vote and a defence, per preset.
Each is put into moto as it was stored and the players connect with the tokens their browsers
kept: this release's handlers read the item and write it in this release's shape (a write puts
the whole item: storage is done with the old shape then). The games in them are played on the
in-memory store, put there as stored (`memstore`: a room rule from there on): random legal
frames, timers and nudges play each to its end (test_game.play: no internal error on the way);
the room then stores this release's shape (service/infra/migrations.py, the engine's
migrations.py) and starts its next game. The engine tier plays the golden states of older
releases (tests/unit/test_state_upgrades.py).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import boto3
import pytest
from test_game import play

import mafia_engine as me
from service.infra import migrations, storage
from service.infra.memstore import MemStore, _Room

GOLDEN = Path(__file__).resolve().parent / "golden"
PREVIOUS = "b208b0a"  # main before this cycle's changes (the release a deploy updates)
# and bc3b1e5: before classic's bookkeeping moved into `extra` (merged by 6566d99), the LCG's
# integer rng and 31-bit room seeds
RELEASES = ("bc3b1e5", PREVIOUS)
FILES = sorted(p for release in RELEASES for p in (GOLDEN / release).glob("*.json"))
# played here (a whole game over the handlers takes seconds): the previous release's lobby
# (started by this release), night and defence, the older one's day vote, per
# preset; the engine tier plays every saved state of three releases
PLAYED = [
    p
    for p in FILES
    if p.stem.split("-")[1] in {PREVIOUS: ("lobby", "night", "defense"), "bc3b1e5": ("vote",)}[p.parent.name]
]


def stored(path: Path) -> dict:
    return json.loads(path.read_text())


STORED = {"pk", "sk", "version", "expiresAt", "status", "data"}  # every golden item's attributes


def put(api, doc: dict) -> None:
    """The item into the table exactly as the release stored it (on the in-memory store: its
    record, the same bytes); the clock at its saving."""
    item = {k: ({"B": base64.b64decode(v["B"])} if "B" in v else v) for k, v in doc["item"].items()}
    store = api.svc.store
    if isinstance(store, MemStore):  # a private room's item: no index attributes
        assert set(item) == STORED, sorted(item)
        record = _Room(int(item["version"]["N"]), item["data"]["B"], int(item["expiresAt"]["N"]), {})
        store._rooms[doc["code"]] = record
    else:
        boto3.client("dynamodb").put_item(TableName=store.table, Item=item)
    api.code = doc["code"]
    api.tokens.update(doc["tokens"])
    api.clock.t = doc["now"]


def raw_doc(api) -> dict:
    """The room as stored, before any upgrade: the item's data (the in-memory record's bytes)."""
    store = api.svc.store
    if isinstance(store, MemStore):
        return storage.decode(store._rooms[api.code].blob)
    return storage.decode(api.item()["data"]["B"])


def test_every_release_saved_every_preset_at_every_phase():
    assert {(stored(p)["release"], stored(p)["preset"], stored(p)["phase"]) for p in FILES} == {
        (release, preset, phase)
        for release in RELEASES
        for preset in ("classic", "city", "original")
        for phase in ("lobby", "roleReveal", "night", "vote", "defense")
    }


@pytest.mark.parametrize("path", PLAYED, ids=[f"{p.parent.name}/{p.stem}" for p in PLAYED])
def test_a_room_an_earlier_release_stored_is_read_and_rewritten_on_dynamodb(api, path):
    """The item as the release stored it, read by this release's handlers: every seat
    connects with its kept token (each connect a conditional write of the whole item), the game
    is where it was, and the item now holds this release's shape."""
    doc = stored(path)
    put(api, doc)
    old = raw_doc(api)
    assert "v" not in old["room"]  # saved before room versions
    seats = sorted(doc["tokens"], key=lambda pid: int(pid[1:]))
    for pid in seats:
        assert api.connect(f"c{pid}", pid) == 200
    new = raw_doc(api)
    assert new["room"]["v"] == migrations.ROOM_VERSION and new["room"]["status"] == old["room"]["status"]
    if doc["phase"] == "lobby":
        assert old["state"] is None and new["state"] is None
    else:
        assert new["state"]["v"] == me.STATE_VERSION
        assert new["state"]["phase"]["kind"] == old["state"]["phase"]["kind"] == doc["phase"]
    for pid in seats:  # and each seat's view, read from the item as it is now
        api.send(f"c{pid}", {"action": "sync"})
        assert api.gw.last(f"c{pid}")["view"]["phase"]["kind"] == doc["phase"]
    assert not [f for c, f in api.gw.sent if f["type"] == "error"]


@pytest.mark.whole_game
@pytest.mark.memstore  # the games in the stored rooms: room rules, from the record as stored
@pytest.mark.parametrize("path", PLAYED, ids=[f"{p.parent.name}/{p.stem}" for p in PLAYED])
def test_a_room_the_previous_release_stored_plays_to_its_end_over_the_handlers(api, path):
    doc = stored(path)
    put(api, doc)
    old = raw_doc(api)
    assert "v" not in old["room"]  # saved before room versions
    seats = sorted(doc["tokens"], key=lambda pid: int(pid[1:]))
    for pid in seats:
        assert api.connect(f"c{pid}", pid) == 200
    if doc["phase"] == "lobby":
        assert old["state"] is None
        for pid in seats[1:]:
            api.send(f"c{pid}", {"action": "ready"})
        api.send("cp1", {"action": "start", "id": "start"})
        assert api.snapshot().room["status"] == "running", api.gw.last("cp1", "error")
    else:
        assert old["state"]["phase"]["kind"] == doc["phase"]
        assert api.snapshot().state["phase"]["kind"] == doc["phase"]  # read by this release
    steps = play(api, len(seats), seed=1)
    snap = api.snapshot()
    assert snap.room["status"] == "ended", f"not over after {steps} steps"
    winner = snap.state["result"]["winner"]
    for pid in seats:
        view = api.gw.last(f"c{pid}")["view"]
        assert view["phase"]["kind"] == "ended" and view["result"]["winner"] == winner
    new = raw_doc(api)
    assert new["room"]["v"] == migrations.ROOM_VERSION and new["state"]["v"] == me.STATE_VERSION
    # and the room goes on: its next game starts under this release with a secret of its own
    api.send("cp1", {"action": "newGame", "id": "again"})
    for pid in seats[1:]:
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start", "id": "start"})
    again = raw_doc(api)
    assert again["room"]["status"] == "running", api.gw.last("cp1", "error")
    assert again["room"]["seed"] != new["room"]["seed"] and len(again["room"]["seed"]) == 64
    assert not [f for c, f in api.gw.sent if f["type"] == "error" and f["code"] == "internal_error"]


def test_a_room_this_release_creates_carries_its_version(api):
    api.lobby(3)
    assert raw_doc(api)["room"]["v"] == migrations.ROOM_VERSION


@pytest.mark.parametrize("part", ["room", "state"])
def test_a_room_a_newer_release_stored_is_refused_and_left_as_it_was(api, part):
    """A rollback while a newer release's games run: read, refused with a code, not written."""
    doc = stored(GOLDEN / PREVIOUS / "classic-night.json")
    put(api, doc)
    assert api.connect("cp1", "p1") == 200  # connected while the room was still of a known shape
    newer = storage.decode(base64.b64decode(doc["item"]["data"]["B"]))
    newer[part]["v"] = (migrations.ROOM_VERSION if part == "room" else me.STATE_VERSION) + 1
    put(
        api, {**doc, "item": {**doc["item"], "data": {"B": base64.b64encode(storage.encode(newer)).decode()}}}
    )
    before = api.item()
    status, body = api.rest("GET", f"/rooms/{api.code}")
    assert status == 503 and body["error"]["code"] == "state_too_new", body
    assert f"{part} version {newer[part]['v']}" in body["error"]["message"]
    api.send("cp1", {"action": "chat", "channel": "day", "text": "hi", "id": 7})
    assert api.errors("cp1")[-1]["code"] == "state_too_new"
    assert api.connect("cp2", "p2") != 200
    api.fire(newer["state"]["seq"])  # the phase's timer
    assert api.item() == before


def test_upgrade_copies_only_what_it_changes():
    """The read path's cost: a current document comes back as itself; an older one as a new
    document, the stored one untouched."""
    old = storage.decode(base64.b64decode(stored(GOLDEN / PREVIOUS / "city-vote.json")["item"]["data"]["B"]))
    frozen = json.dumps(old, sort_keys=True)
    new = migrations.upgrade(old)
    assert json.dumps(old, sort_keys=True) == frozen and new is not old
    assert new["room"] == {**old["room"], "v": migrations.ROOM_VERSION}
    # b208b0a had the new shape but its version, and a commitment of the secret alone (v1)
    assert new["state"] == {
        **old["state"],
        "v": me.STATE_VERSION,
        "fairness": {**old["state"]["fairness"], "scheme": me.fairness.SCHEME_V1},
    }
    assert migrations.upgrade(new) is new
    lobby = storage.decode(
        base64.b64decode(stored(GOLDEN / PREVIOUS / "city-lobby.json")["item"]["data"]["B"])
    )
    assert migrations.upgrade(lobby)["state"] is None


def test_a_lobby_stored_with_a_31_bit_secret_starts_its_game_with_a_fresh_256_bit_one(api):
    """bc3b1e5's rooms drew `secrets.randbits(31)`: trying every one finds the deal from the
    commitment. A lobby's secret has served no game, so the upgrade draws a new one; the game
    it starts commits to that (docs/rules.md, "Randomness")."""
    doc = stored(GOLDEN / "bc3b1e5" / "classic-lobby.json")
    put(api, doc)
    old_seed = raw_doc(api)["room"]["seed"]
    assert isinstance(old_seed, int) and old_seed < 2**31
    seats = sorted(doc["tokens"], key=lambda pid: int(pid[1:]))
    for pid in seats:
        assert api.connect(f"c{pid}", pid) == 200
    for pid in seats[1:]:
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start", "id": "start"})
    stored_now = raw_doc(api)
    seed = stored_now["room"]["seed"]
    assert stored_now["room"]["status"] == "running" and stored_now["room"]["v"] == migrations.ROOM_VERSION
    assert isinstance(seed, str) and len(seed) == 64 and int(seed, 16) != old_seed
    assert stored_now["state"]["fairness"]["seed"] == seed


def test_a_running_game_keeps_the_secret_its_deal_was_made_with():
    old = storage.decode(
        base64.b64decode(stored(GOLDEN / "bc3b1e5" / "classic-vote.json")["item"]["data"]["B"])
    )
    new = migrations.upgrade(old)
    assert new["room"]["seed"] == old["room"]["seed"] == old["state"]["fairness"]["seed"]
