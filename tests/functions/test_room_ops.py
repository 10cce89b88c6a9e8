"""Every room operation: ready, setOptions, start, sync, nudge, kick, leave."""

from __future__ import annotations

import pytest
from fnkit import CTX, ws_event

from handlers import ws_connect

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)


def err(api, conn):
    e = api.gw.last(conn, "error")
    return e and e["code"]


def test_ready_marks_the_sender_and_shows_in_every_view(api):
    api.lobby(3)
    api.send("cp2", {"action": "ready", "ready": True})
    players = api.gw.last("cp3")["view"]["players"]
    assert [p["ready"] for p in players] == [False, True, False]
    api.send("cp2", {"action": "ready", "ready": False})
    assert [p["ready"] for p in api.gw.last("cp1")["view"]["players"]] == [False, False, False]
    api.send("cp2", {"action": "ready", "ready": "yes", "id": 9})
    assert api.gw.last("cp2", "error") == {
        "type": "error",
        "id": 9,
        "code": "bad_frame",
        "message": "'ready' must be true or false",
    }


def test_ready_twice_changes_nothing_and_pushes_nothing(api):
    api.lobby(2)
    api.send("cp2", {"action": "ready"})
    version = api.snapshot().version
    api.gw.clear()
    api.send("cp2", {"action": "ready"})
    assert api.snapshot().version == version and api.gw.sent == []


def test_set_options_is_for_the_host_and_clears_ready_marks(api):
    api.lobby(4)
    for pid in ("p2", "p3"):
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp2", {"action": "setOptions", "options": {"nightSeconds": 45}, "id": "o"})
    assert err(api, "cp2") == "not_host"
    api.send("cp1", {"action": "setOptions", "options": {"nightSeconds": 45, "openVote": False}})
    view = api.gw.last("cp3")["view"]
    assert view["options"]["nightSeconds"] == 45 and view["options"]["openVote"] is False
    assert not any(p["ready"] for p in view["players"])
    api.send("cp1", {"action": "setOptions", "options": {"nightSeconds": 1}, "id": "bad"})
    assert err(api, "cp1") == "bad_options"
    assert api.snapshot().room["options"] == {"nightSeconds": 45, "openVote": False}


def test_lobby_view_shows_the_setup_error(api):
    api.lobby(3)
    api.send("cp1", {"action": "sync"})
    view = api.gw.last("cp1")["view"]
    assert view["phase"] == {"kind": "lobby", "endsAt": None, "seq": 0}
    assert view["room"]["setupError"]["code"] == "too_few_players"
    assert view["you"]["id"] == "p1" and view["you"]["role"] is None
    assert isinstance(view["serverNow"], float) and view["clockRate"] == 1.0
    api.join("P4")
    assert api.gw.last("cp1")["view"]["room"]["setupError"] is None


def test_start_is_refused_unless_host_count_and_ready(api):
    api.lobby(3)
    api.send("cp2", {"action": "start"})
    assert err(api, "cp2") == "not_host"
    api.send("cp1", {"action": "start"})
    assert err(api, "cp1") == "too_few_players"
    api.join("P4")
    api.connect("cp4", "p4")
    api.send("cp2", {"action": "ready"})
    api.send("cp1", {"action": "start", "id": "s"})
    e = api.gw.last("cp1", "error")
    assert e["code"] == "not_ready" and "P3" in e["message"] and e["id"] == "s"
    assert api.snapshot().room["status"] == "lobby"


def test_start_deals_roles_and_each_player_sees_only_their_own(api):
    api.start(5)
    snap = api.snapshot()
    assert snap.room["status"] == "running" and snap.state["phase"]["kind"] == "roleReveal"
    roles = {p["id"]: p["role"] for p in snap.state["players"]}
    for pid in roles:
        view = api.gw.last(f"c{pid}")["view"]
        assert view["you"]["role"] == roles[pid]
        assert [p["name"] for p in view["players"]] == ["P1", "P2", "P3", "P4", "P5"]
        assert all(p["connected"] and "ready" in p and "host" in p for p in view["players"])
    api.send("cp1", {"action": "start", "id": 2})
    assert err(api, "cp1") == "already_started"


@pytest.mark.memstore(False)  # the schedule as EventBridge Scheduler holds it: on moto
@pytest.mark.fresh_aws  # lists the whole schedule group
def test_start_arms_the_phase_timer(api):
    import boto3

    api.start(4)
    schedules = boto3.client("scheduler").list_schedules(GroupName="mafia-test-phases")["Schedules"]
    assert len(schedules) == 1
    detail = boto3.client("scheduler").get_schedule(GroupName="mafia-test-phases", Name=schedules[0]["Name"])
    assert detail["ScheduleExpression"].startswith("at(") and detail["ActionAfterCompletion"] == "DELETE"
    assert '"phase": 1' in detail["Target"]["Input"]


def test_sync_answers_the_full_view_even_when_nothing_changed(api):
    api.start(4)
    api.gw.clear()
    api.send("cp2", {"action": "sync"})
    assert [c for c, _ in api.gw.sent] == ["cp2"]
    frame = api.gw.sent[0][1]
    # the same version as p2's last pushed view: its own counter did not move
    assert frame["type"] == "view" and frame["version"] == api.snapshot().room["viewSeq"]["p2"]
    assert frame["version"] == max(f["version"] for c, f in api.gw.sent if c == "cp2")
    assert frame["view"]["you"]["id"] == "p2"


def test_nudge_ends_an_overdue_phase_and_a_too_early_nudge_just_resyncs(api):
    api.start(4)
    version = api.snapshot().version
    api.gw.clear()
    api.send("cp2", {"action": "nudge"})
    assert api.snapshot().version == version
    assert [c for c, _ in api.gw.sent] == ["cp2"] and api.gw.sent[0][1]["type"] == "view"
    api.clock.advance(api.state()["phase"]["endsAt"] - api.clock.t + 0.1)
    api.send("s", {"action": "nudge"})  # not connected: refused
    api.send("cp3", {"action": "nudge"})
    assert api.state()["phase"]["kind"] != "roleReveal"


def test_spectators_can_sync_and_nudge_but_not_act(api):
    api.start(4)
    api.connect("s1")
    api.send("s1", {"action": "ready", "id": 1})
    assert err(api, "s1") == "spectator"
    api.send("s1", {"action": "chat", "channel": "day", "text": "hi", "id": 2})
    assert err(api, "s1") == "spectator"
    api.clock.advance(60)
    api.send("s1", {"action": "nudge"})
    assert api.state()["phase"]["kind"] != "roleReveal"


def test_kick_removes_a_player_in_the_lobby(api):
    api.lobby(3)
    api.send("cp2", {"action": "kick", "target": "p3"})
    assert err(api, "cp2") == "not_host"
    api.send("cp1", {"action": "kick", "target": "p1"})
    assert err(api, "cp1") == "bad_target"
    api.send("cp1", {"action": "kick", "target": "p9"})
    assert err(api, "cp1") == "bad_target"
    api.send("cp1", {"action": "kick", "target": "p3"})
    assert err(api, "cp3") == "kicked" and "cp3" in api.gw.closed
    snap = api.snapshot()
    assert [p["id"] for p in snap.room["players"]] == ["p1", "p2"] and "cp3" not in snap.conns
    assert api.connect("cp3b", "p3") == 403  # the seat and its token are gone
    assert api.join("Dan") == "p4"  # ids are never reused


def _connect_body(api, conn_id: str, pid: str) -> tuple[int, str | None]:
    event = ws_event("$connect", conn_id, query={"room": api.code, "token": api.tokens[pid]})
    out = ws_connect.handler(event, CTX)
    return out["statusCode"], out.get("body")


@pytest.mark.parametrize(("preset", "n"), [("classic", 5), ("city", 6), ("original", 9)])
def test_host_kick_in_a_running_game_removes_the_character_and_voids_the_token(api, preset, n):
    """docs/rules.md "remove" (docs/rulebooks/003-original.txt "정말 필요하다면 그 플레이어를 게임에서 제외할 수도 있습니다"):
    the host's `kick` mid-game is the engine's `remove` of the target, in every preset."""
    api.start(n, preset=preset)
    # A citizen (not the host): removing the last mafioso would end the game instead.
    gone = next(p["id"] for p in api.state()["players"] if p["role"] == "citizen" and p["id"] != "p1")
    other = next(p for p in ("p2", "p3", "p4") if p != gone)
    api.send(f"c{other}", {"action": "kick", "target": gone, "id": 1})
    assert err(api, f"c{other}") == "not_host"
    api.send("cp1", {"action": "kick", "target": "p1", "id": 2})
    assert err(api, "cp1") == "bad_target"
    assert api.connect(f"c{gone}b", gone) == 200  # a second socket of the same seat
    api.gw.clear()
    api.send("cp1", {"action": "kick", "target": gone, "id": 3})
    snap = api.snapshot()
    removed = next(p for p in snap.state["players"] if p["id"] == gone)
    assert removed["alive"] is False and removed["diedBy"] == "removed"
    assert snap.room["status"] == "running"
    assert len(snap.room["players"]) == n  # the seat stays: names and results still show it
    for conn in (f"c{gone}", f"c{gone}b"):  # every socket of the seat is told, then closed
        assert err(api, conn) == "kicked" and conn in api.gw.closed and conn not in snap.conns
    public = api.gw.last(f"c{other}")["view"]
    assert "removed from the game by the host" in public["chat"][-1]["text"]
    assert public["events"][-1]["by"] == "removed"
    assert _connect_body(api, f"c{gone}c", gone) == (403, "kicked")  # the token stops working
    api.send("cp1", {"action": "kick", "target": gone, "id": 4})
    assert err(api, "cp1") == "bad_target"  # already gone


def test_remove_is_not_an_engine_action_for_anyone(api):
    """A frame `{"action": "remove"}` would reach the engine with `player` = the sender: a player
    could remove themselves with a false "removed by the host" line. Nobody may send it, the
    host included (the host uses `kick`); the stored room is unchanged."""
    api.start(5)
    before = api.snapshot()
    api.send("cp3", {"action": "remove", "id": 1})
    assert err(api, "cp3") == "forbidden_action"
    api.send("cp1", {"action": "remove", "player": "p3", "id": 2})
    assert err(api, "cp1") == "forbidden_action"
    api.send("cp1", {"action": "remove", "id": 3})
    assert err(api, "cp1") == "forbidden_action"
    after = api.snapshot()
    assert after.version == before.version and after.state == before.state
    assert all(p["alive"] for p in after.state["players"])


def test_host_kick_of_a_bot_mid_game_removes_it(api):
    api.lobby(4)
    api.send("cp1", {"action": "addBot"})
    for pid in ("p2", "p3", "p4"):
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    api.send("cp1", {"action": "kick", "target": "p5"})
    p5 = next(p for p in api.state()["players"] if p["id"] == "p5")
    assert p5["diedBy"] == "removed"


def test_kick_after_the_end_voids_the_seat_for_the_next_game(api):
    api.start(5, preset="city")
    api.send("cp1", {"action": "endGame"})
    api.send("cp1", {"action": "kick", "target": "p4"})
    assert err(api, "cp4") == "kicked" and "cp4" in api.gw.closed
    assert _connect_body(api, "cp4b", "p4") == (403, "kicked")
    api.send("cp1", {"action": "newGame"})
    assert [p["id"] for p in api.snapshot().room["players"]] == ["p1", "p2", "p3", "p5"]


def test_leave_in_the_lobby_hands_the_host_on(api):
    api.lobby(3)
    api.send("cp1", {"action": "leave"})
    snap = api.snapshot()
    assert [p["id"] for p in snap.room["players"]] == ["p2", "p3"] and snap.room["host"] == "p2"
    assert api.gw.last("cp2")["view"]["room"]["host"] == "p2"
    assert "cp1" in api.gw.closed


def test_leave_in_a_running_game_keeps_the_seat_and_voids_the_token(api):
    api.start(4)
    api.send("cp4", {"action": "leave"})
    snap = api.snapshot()
    assert "cp4" not in snap.conns and len(snap.room["players"]) == 4
    p4 = next(p for p in snap.state["players"] if p["id"] == "p4")
    assert p4["alive"] is False and p4["diedBy"] == "left"  # leaving eliminates the character
    assert err(api, "cp4") == "left"
    assert api.connect("cp4b", "p4") == 403


def test_pause_resume_and_end_game_are_for_the_host(api):
    api.start(5, preset="city")
    api.send("cp2", {"action": "pause", "id": 1})
    assert err(api, "cp2") == "not_host"
    api.send("cp1", {"action": "pause"})
    assert api.state()["paused"] is not None
    api.send("cp1", {"action": "resume"})
    assert api.state()["paused"] is None
    api.send("cp2", {"action": "endGame", "id": 2})
    assert err(api, "cp2") == "not_host"
    api.send("cp1", {"action": "endGame"})
    snap = api.snapshot()
    assert snap.room["status"] == "ended" and snap.state["result"]["winner"] == "none"


def test_new_game_in_the_same_room_after_the_end(api):
    api.start(5, preset="city")
    api.send("cp1", {"action": "newGame", "id": 1})
    assert err(api, "cp1") == "not_ended"
    api.send("cp1", {"action": "endGame"})
    api.send("cp2", {"action": "newGame"})
    assert err(api, "cp2") == "not_host"
    api.send("cp1", {"action": "newGame"})
    snap = api.snapshot()
    assert snap.room["status"] == "lobby" and snap.state is None
    assert api.gw.last("cp3")["view"]["phase"]["kind"] == "lobby"
    for pid in ("p2", "p3", "p4", "p5"):
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    assert api.snapshot().room["status"] == "running"


def test_another_player_takes_the_room_over_when_the_host_is_away(api):
    api.lobby(3)
    api.send("cp2", {"action": "takeHost", "id": 1})
    assert err(api, "cp2") == "host_present"
    api.disconnect("cp1")
    assert api.gw.last("cp2")["view"]["room"]["hostAwaySince"] == api.clock.t
    api.clock.advance(30)
    api.send("cp2", {"action": "takeHost", "id": 2})
    assert err(api, "cp2") == "host_present"
    api.clock.advance(31)
    api.send("cp2", {"action": "takeHost"})
    snap = api.snapshot()
    assert snap.room["host"] == "p2"
    assert api.gw.last("cp3")["view"]["room"]["host"] == "p2"
    assert api.gw.last("cp3")["view"]["room"]["hostAwaySince"] is None


def test_a_nudge_for_a_phase_that_is_over_is_dropped_silently(api):
    api.start(4)
    seq = api.state()["seq"]
    api.clock.advance(api.state()["phase"]["endsAt"] - api.clock.t)
    api.send("cp1", {"action": "nudge", "phase": seq})
    assert api.state()["seq"] == seq + 1
    version = api.snapshot().version
    api.gw.clear()
    api.send("cp2", {"action": "nudge", "phase": seq})
    assert api.gw.sent == [] and api.snapshot().version == version


def test_lobby_roster_follows_a_night_first_classic_room(api):
    """The lobby's rules sheet lists the roles (`view.roster`) for the host's own options: a
    classic room that starts at night is a game (the default `noVoteDayOne`, an alias of
    `firstPhase day`, must not be laid over the host's `firstPhase night` and void it)."""
    api.lobby(5, preset="classic")
    api.send("cp1", {"action": "setOptions", "options": {"firstPhase": "night"}})
    view = api.gw.last("cp2")["view"]
    assert view["options"]["firstPhase"] == "night"
    assert view["roster"] == {"mafia": 1, "police": 1, "doctor": 1, "citizen": 2}


def test_an_action_made_in_another_phases_view_is_refused_stale_and_changes_nothing(api):
    """An engine action may carry `phase`, the `phase.seq` of the view it was made in: a tap
    repeated on a slow link, or a frame a page resends after a reconnect, is refused
    `stale_phase` once the game moved on, never applied to the next turn (a defense's second
    "finished" had ended the executed player's last word: docs/protocol.md, "stale_phase")."""
    api.start(4)
    seq = api.state()["seq"]
    api.send("cp2", {"action": "seenRole", "phase": seq, "id": 1})  # made in this phase: taken
    assert err(api, "cp2") is None
    assert api.state()["seq"] == seq
    for conn in ("cp1", "cp3", "cp4"):
        api.send(conn, {"action": "seenRole", "phase": seq})
    assert api.state()["seq"] > seq  # every card read: the next phase
    version, state = api.snapshot().version, api.state()
    api.gw.clear()
    api.send("cp2", {"action": "chat", "channel": "day", "text": "late", "phase": seq, "id": 2})
    assert err(api, "cp2") == "stale_phase"
    assert api.gw.last("cp2", "error")["id"] == 2
    assert api.snapshot().version == version and api.state() == state
    assert [c for c, _ in api.gw.sent] == ["cp2"]  # the sender's error, nothing pushed
    # without `phase` the action is judged by the phase it arrives in (older clients)
    api.send("cp2", {"action": "chat", "channel": "day", "text": "now", "id": 3})
    assert api.gw.last("cp2", "error")["id"] == 2  # no error for this one
    assert api.snapshot().version > version


@pytest.mark.parametrize("bad", [-1, "3", 1.5, True])
def test_a_phase_that_is_not_a_whole_number_is_a_bad_frame(api, bad):
    api.start(4)
    state = api.state()
    api.send("cp2", {"action": "seenRole", "phase": bad, "id": 1})
    assert err(api, "cp2") == "bad_frame"
    assert "phase" in api.gw.last("cp2", "error")["message"]
    assert api.state() == state
