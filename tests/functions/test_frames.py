"""Malformed, oversized, out-of-phase and impersonating frames: an error frame, nothing written."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.memstore  # what a frame may do: room rules (tests/functions/conftest.py)


@pytest.fixture
def game(api):
    api.start(4)
    api.clock.advance(api.state()["phase"]["endsAt"] - api.clock.t)
    api.send("cp1", {"action": "nudge"})  # roleReveal -> greeting (first day, chat allowed)
    return api


def unchanged(api, conn, frame, code):
    before = api.item()
    api.gw.clear()
    api.send(conn, frame)
    assert api.item() == before
    assert [c for c, _ in api.gw.sent] == [conn]
    out = api.gw.sent[0][1]
    assert out["type"] == "error" and out["code"] == code, out
    return out


@pytest.mark.parametrize(
    "frame,code",
    [
        ("not json", "bad_frame"),
        ("[1, 2]", "bad_frame"),
        ('"vote"', "bad_frame"),
        ({"id": 1}, "bad_frame"),
        ({"action": "", "id": 1}, "bad_frame"),
        ({"action": "x" * 41}, "bad_frame"),
        ({"action": "drop table"}, "bad_frame"),
        ({"action": "vote", "id": "x" * 65}, "bad_frame"),
        ({"action": "noSuchAction", "id": 1}, "bad_action"),
        ({"action": "vote", "id": 1, "target": "p2"}, "wrong_phase"),
        ({"action": "chat", "id": 1, "channel": "mafia", "text": "psst"}, None),
        ({"action": "chat", "id": 1, "channel": "day", "text": ""}, None),
        ({"action": "phaseTimeout", "id": 1}, "forbidden_action"),
        ({"action": "presence", "connected": False}, "forbidden_action"),
    ],
)
def test_refused_frames_leave_the_room_unchanged(game, frame, code):
    out = unchanged(game, "cp2", frame, code or game_code(game, frame))
    if isinstance(frame, dict) and "id" in frame and len(str(frame["id"])) <= 64:
        assert out["id"] == frame["id"]
    assert out["message"]


def game_code(api, frame):
    # chat refusals come from the engine; any code is fine as long as it is an error
    api.gw.clear()
    api.send("cp2", frame)
    return api.gw.sent[0][1]["code"]


def test_oversized_frame_is_refused_before_parsing(game):
    out = unchanged(
        game, "cp2", '{"action": "chat", "channel": "day", "text": "' + "a" * 9000 + '"}', "too_large"
    )
    assert out["id"] is None


def test_engine_action_in_the_lobby_is_refused(api):
    api.lobby(4)
    unchanged(api, "cp2", {"action": "vote", "target": "p1", "id": 3}, "not_started")


def test_frame_from_an_unknown_connection_is_refused(game):
    game.gw.clear()
    game.send("stranger", {"action": "sync", "id": 1})
    assert game.gw.sent == [
        ("stranger", {"type": "error", "id": 1, "code": "not_connected", "message": "unknown connection"})
    ]


def test_room_hint_cannot_put_a_connection_into_another_room(game):
    own = game.code
    other = game.create("Zed")
    game.code = own
    game.svc._conn_rooms.clear()
    game.gw.clear()
    game.send("cp2", {"action": "sync", "room": other, "id": 1})
    assert game.gw.last("cp2", "error")["code"] == "not_connected"


def test_payload_player_is_ignored_the_actor_is_the_connection(game):
    game.send("cp2", {"action": "chat", "channel": "day", "text": "I am p2", "player": "p3", "id": 1})
    chat = [m for m in game.state()["chat"] if m["channel"] == "day"]
    assert chat[-1]["from"] == "p2" and chat[-1]["text"] == "I am p2"
    game.clock.advance(1)  # the engine's chat rate limit
    game.send("cp2", {"action": "chat", "type": "vote", "channel": "day", "text": "typed", "id": 2})
    assert [m for m in game.state()["chat"] if m["channel"] == "day"][-1]["text"] == "typed"


def test_vote_impersonation_counts_for_the_sender_only(game):
    state = game.state()
    while state["phase"]["kind"] != "vote":
        game.clock.advance(state["phase"]["endsAt"] - game.clock.t)
        game.send("cp1", {"action": "nudge"})
        state = game.state()
    alive = [p["id"] for p in state["players"] if p["alive"]]
    voter = alive[0]
    target = alive[1]
    victim = alive[2]
    game.send(f"c{voter}", {"action": "vote", "target": target, "player": victim, "id": 1})
    votes = game.state()["phase"]["votes"]
    assert votes.get(voter) == target and victim not in votes


def test_an_unexpected_failure_answers_internal_error_and_writes_nothing(game, monkeypatch):
    import mafia_engine as me

    def broken(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr(me, "apply", broken)
    before = game.item()
    game.send("cp2", {"action": "chat", "channel": "day", "text": "hi", "id": 4})
    assert game.gw.last("cp2", "error")["code"] == "internal_error"
    assert game.item() == before
