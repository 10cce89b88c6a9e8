"""Strangers in public rooms (docs/rules.md, "Public rooms"): no stranger waits forever (a lobby
with anyone in it starts by itself within the time it states, bots filling the seats), and a
table plays again together (the party code of an ended public game). Room rules on the
in-memory store."""

from __future__ import annotations

import random

import pytest

from mafia_engine.testing import legal_actions
from service.room import public, rest_ops

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)


def public_room(api, name="Ann", lang="en", preset="classic", **options) -> str:
    return api.create(name, preset=preset, lang=lang, options={"public": True, **options})


def view(api, cid: str) -> dict:
    """What the connection's page shows now (a `sync` asks for it)."""
    api.send(cid, {"action": "sync"})
    return api.gw.last(cid)["view"]


def quick(api, name, lang="en", preset=None, party=None, device=None) -> tuple[int, dict]:
    body = {"name": name, "lang": lang}
    body.update({k: v for k, v in (("preset", preset), ("party", party), ("device", device)) if v})
    return api.rest("POST", "/quickplay", body)


# ---------------------------------------------------------------- no stranger waits forever
def test_no_stranger_waits_forever_a_lone_person_starts_with_bots_at_the_stated_time(api):
    code = public_room(api)
    assert "autoStartAt" not in api.snapshot().room  # nobody here yet: nothing counts down
    t0 = api.clock()
    api.connect("cp1", "p1")
    room = api.snapshot().room
    at = room["autoStartAt"]
    assert at == t0 + public.WAIT_SECONDS
    assert room["timer"] == [public.LOBBY_PHASE, at]  # the Scheduler's delivery is armed
    assert view(api, "cp1")["room"]["autoStartAt"] == at  # the lobby states it
    api.clock.advance(public.WAIT_SECONDS - 1)
    assert api.fire(public.LOBBY_PHASE)["outcome"] == "too_early"
    assert api.snapshot().room["status"] == "lobby"
    api.clock.advance(1)
    assert api.fire(public.LOBBY_PHASE)["outcome"] == "started"
    room = api.snapshot(code).room
    assert room["status"] == "running"
    assert len(room["players"]) == public.FILL_TO
    assert sum(bool(p.get("bot")) for p in room["players"]) == public.FILL_TO - 1


def test_no_stranger_waits_forever_a_lobby_nobody_is_in_never_starts(api):
    public_room(api)
    api.connect("cp1", "p1")
    assert api.snapshot().room.get("autoStartAt")
    api.disconnect("cp1")  # the tab closed: nobody to play for
    room = api.snapshot().room
    assert "autoStartAt" not in room and "waitSince" not in room
    api.clock.advance(public.WAIT_SECONDS + 1)
    assert api.fire(public.LOBBY_PHASE)["outcome"] == "not_due"
    assert api.snapshot().room["status"] == "lobby"
    t1 = api.clock()
    api.connect("cp1b", "p1")  # back: the wait starts again from now
    assert api.snapshot().room["autoStartAt"] == t1 + public.WAIT_SECONDS


def test_no_stranger_waits_forever_newcomers_only_bring_the_start_nearer(api):
    """The stated time never moves later: a second person keeps it; `autoStart` people
    bring it to `COUNTDOWN_SECONDS` from then, or keep it when it is nearer."""
    public_room(api, name="P1")
    t0 = api.clock()
    api.connect("cp1", "p1")
    api.clock.advance(10)
    api.join("P2")
    api.connect("cp2", "p2")
    assert api.snapshot().room["autoStartAt"] == t0 + public.WAIT_SECONDS
    api.join("P3")
    api.join("P4")  # autoStart (4) people: the short countdown from now
    assert api.snapshot().room["autoStartAt"] == api.clock() + public.COUNTDOWN_SECONDS
    assert view(api, "cp2")["room"]["autoStartAt"] == api.clock() + public.COUNTDOWN_SECONDS


def test_no_stranger_waits_forever_the_wait_is_nearer_than_a_late_countdown(api):
    public_room(api, name="P1")
    t0 = api.clock()
    api.connect("cp1", "p1")
    api.clock.advance(public.WAIT_SECONDS - 5)
    for i in range(2, 5):
        api.join(f"P{i}")
    assert api.snapshot().room["autoStartAt"] == t0 + public.WAIT_SECONDS


def test_no_stranger_waits_forever_a_private_room_never_starts_by_itself(api):
    api.create("Ann")
    api.connect("cp1", "p1")
    assert "autoStartAt" not in api.snapshot().room


# ---------------------------------------------------------------- play again together
def play_out(api, code: str, seed: int = 7) -> dict:
    """The running game to its end: each seat with a connection does one legal action (no chat)
    a phase while it has one, otherwise game time steps to the next deadline or bot move and a
    connection nudges, as the page does. The final room."""
    rng = random.Random(seed)
    done: set[tuple[str, int]] = set()
    for _ in range(4000):
        snap = api.snapshot(code)
        if snap.room["status"] != "running":
            return snap.room
        conns = {pid: cid for cid, pid in snap.conns.items() if pid}
        seq = snap.state["seq"]
        choices = [
            a
            for a in legal_actions(snap.state, chat=False)
            if a["player"] in conns and (a["player"], seq) not in done
        ]
        if choices:
            act = dict(rng.choice(choices))
            pid = act.pop("player")
            done.add((pid, seq))
            act["action"] = act.pop("type")
            api.send(conns[pid], act)
            continue
        cid = next(iter(conns.values()))
        shown = view(api, cid)
        due = [t for t in (shown["room"].get("wakeAt"), shown["phase"].get("endsAt")) if t is not None]
        api.clock.t = max(api.clock.t, min(due) if due else api.clock.t) + 0.01
        api.send(cid, {"action": "nudge", "phase": shown["phase"]["seq"]})
    raise AssertionError("the game did not end")


def ended_public_game(api, people: int = 3) -> tuple[str, list[str]]:
    """A public classic game of `people` connected people (and bots), played to its end."""
    code = public_room(api, name="P1")
    for i in range(2, people + 1):
        api.join(f"P{i}")
    pids = [f"p{i}" for i in range(1, people + 1)]
    for pid in pids:
        api.connect(f"c{pid}", pid)
    api.clock.advance(public.WAIT_SECONDS)
    api.fire(public.LOBBY_PHASE)
    assert api.snapshot(code).room["status"] == "running"
    room = play_out(api, code)
    assert room["status"] == "ended"
    return code, [f"c{pid}" for pid in pids]


def test_play_again_together_the_table_that_presses_lands_in_one_new_public_lobby(api):
    code, conns = ended_public_game(api)
    parties = {view(api, cid)["room"].get("party") for cid in conns}
    assert len(parties) == 1 and None not in parties  # every seated person reads the same code
    party = parties.pop()
    api.connect("cspec", room=code)  # a spectator never reads it
    assert "party" not in view(api, "cspec")["room"]
    assert quick(api, "Eve")[0] == 201  # a stranger's Play now meanwhile: a room of its own
    seats = []
    for n, name in enumerate(("Ann", "Bob", "Cid")):
        status, body = quick(api, name, preset="classic", party=party, device=f"device-{n:04d}-abcdefgh")
        assert status == 201, body
        seats.append(body)
    rooms = {s["roomCode"] for s in seats}
    assert len(rooms) == 1, seats  # together
    new = rooms.pop()
    assert new != code and new == rest_ops.party_code(party, 0)
    room = api.snapshot(new).room
    assert room["status"] == "lobby" and public.is_public(room) and room.get("listing")
    assert [p["name"] for p in room["players"]] == ["Ann", "Bob", "Cid"]
    assert {p["id"] for p in room["players"]} == {s["playerId"] for s in seats}


def test_play_again_together_a_full_or_started_party_lobby_moves_the_late_ones_to_the_next(api):
    party = "ABCDEFGHJKMN"
    status, first = quick(api, "Ann", preset="classic", party=party)
    assert status == 201 and first["roomCode"] == rest_ops.party_code(party, 0)
    api.code = first["roomCode"]
    api.tokens["p1"] = first["token"]
    api.connect("cp1", "p1")
    api.clock.advance(public.WAIT_SECONDS)
    api.fire(public.LOBBY_PHASE)  # nobody else came in time: it started with bots
    assert api.snapshot().room["status"] == "running"
    status, late = quick(api, "Bob", preset="classic", party=party)
    assert status == 201 and late["roomCode"] == rest_ops.party_code(party, 1)


def test_play_again_together_refuses_a_malformed_party_code_and_stores_nothing(api):
    for bad in ("short", "abcdefghjkmn", "ABCDEFGHJKM0", 12):
        status, body = quick(api, "Ann", party=bad)
        assert status == 400 and body["error"]["code"] == "bad_request", (bad, body)
    assert api.svc.store.list_public("PublicByLang", "en", 10, None, api.clock())[0] == []


def test_play_again_together_only_a_public_game_has_a_party(api):
    api.start(4)
    assert "party" not in api.snapshot().room


def test_play_again_together_only_a_person_seated_at_the_end_reads_the_party():
    """`public.party_for`: a person seated at the end of a public game; never a bot's seat, a
    seat that left, a spectator or screen (no viewer), someone not seated, a game still running
    or a private room."""
    players = [{"id": "p1"}, {"id": "p2", "bot": True}, {"id": "p3", "left": True}]
    room = {"status": "ended", "options": {"public": True}, "party": "ABCDEFGHJKMN", "players": players}
    assert public.party_for(room, "p1") == "ABCDEFGHJKMN"
    for viewer in ("p2", "p3", None, "p9"):
        assert public.party_for(room, viewer) is None, viewer
    assert public.party_for({**room, "status": "running"}, "p1") is None
    assert public.party_for({**room, "options": {}}, "p1") is None
