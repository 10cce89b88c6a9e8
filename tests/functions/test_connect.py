"""$connect matrix, $disconnect and presence."""

from __future__ import annotations

import io
import json

import pytest

from service import config


def test_good_token_connects_as_that_player(api):
    api.lobby(2, connect=False)
    assert api.connect("c1", "p2") == 200
    assert api.snapshot().conns == {"c1": "p2"}


def test_wrong_token_is_refused(api):
    api.lobby(2, connect=False)
    assert api.connect("c1", token="not-a-token") == 403
    assert api.snapshot().conns == {}


def test_token_of_another_room_is_refused(api):
    api.create("Ann")
    other_token = api.tokens["p1"]
    api.tokens.clear()
    api.create("Bob")
    assert api.connect("c1", token=other_token) == 403


def test_no_token_is_a_spectator(api):
    api.lobby(2, connect=False)
    version = api.snapshot().version
    assert api.connect("s1") == 200
    snap = api.snapshot()
    assert snap.conns == {"s1": None}
    assert snap.version == version  # a spectator does not change the room
    api.send("s1", {"action": "sync"})
    view = api.gw.last("s1")["view"]
    assert view["you"] is None and view["phase"]["kind"] == "lobby"


def test_unknown_room_and_missing_room_are_refused(api):
    assert api.connect("c1", room="ZZZZZ") == 404
    from fnkit import CTX, ws_event

    from handlers import ws_connect

    assert ws_connect.handler(ws_event("$connect", "c2", query=None), CTX)["statusCode"] == 400


def test_origin_is_checked(api, svc):
    svc.allowed_origins = ("https://mafia.example",)
    api.lobby(2, connect=False)
    assert api.connect("c1", "p1", origin="https://evil.example") == 403
    assert api.connect("c2", "p1", origin="https://mafia.example") == 200
    assert api.connect("c3", "p2") == 200  # no Origin: not a browser
    assert set(api.snapshot().conns) == {"c2", "c3"}


def test_allowed_origins_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("ALLOWED_ORIGINS", "https://a.example, https://b.example/")
    assert config.Settings.from_env().allowed_origins == ("https://a.example", "https://b.example")


def test_connect_pushes_presence_to_others_but_not_to_the_new_socket(api):
    api.lobby(2, connect=False)
    api.connect("cp1", "p1")
    api.gw.clear()
    api.connect("cp2", "p2")
    assert [c for c, _ in api.gw.sent] == ["cp1"]
    players = api.gw.last("cp1")["view"]["players"]
    assert [p["connected"] for p in players] == [True, True]


def test_disconnect_forgets_the_connection_and_feeds_presence(api):
    api.start(4)
    api.disconnect("cp3")
    snap = api.snapshot()
    assert "cp3" not in snap.conns
    p3 = next(p for p in snap.state["players"] if p["id"] == "p3")
    assert p3["connected"] is False
    assert [p["connected"] for p in api.gw.last("cp1")["view"]["players"]] == [True, True, False, True]
    api.connect("cp3b", "p3")
    p3 = next(p for p in api.state()["players"] if p["id"] == "p3")
    assert p3["connected"] is True


def test_second_connection_of_a_player_keeps_presence(api):
    api.start(4)
    api.connect("cp3b", "p3")
    api.disconnect("cp3")
    p3 = next(p for p in api.state()["players"] if p["id"] == "p3")
    assert p3["connected"] is True


def test_disconnect_of_unknown_connection_is_harmless(api):
    api.lobby(2)
    version = api.snapshot().version
    api.disconnect("never-seen")
    api.svc._conn_rooms.clear()  # a cold Lambda: the CONN# lookup item is used
    api.disconnect("cp2")
    snap = api.snapshot()
    assert snap.conns == {"cp1": "p1"} and snap.version == version + 1


# ---------------------------------------------------------------- hostile `$connect` queries
# Refused by shape, before any DynamoDB request: status + code, nothing of the input echoed.
HOSTILE_ROOMS = (
    "x" * 3000,  # over-long
    "ABC",  # too short
    "ABCDEFGHJ",  # too long by one
    "AB-CD",
    "ABCD\n",
    "ABCD%00",
    "ÀBCDE",
    "ABC\ud800D",  # a lone surrogate
    "../ROOM",
    "' OR 1=1",
)


def connect_raw(conn_id: str, query: dict) -> dict:
    from fnkit import CTX, ws_event

    from handlers import ws_connect

    return ws_connect.handler(ws_event("$connect", conn_id, query=query), CTX)


@pytest.fixture
def dynamodb_calls(svc) -> list[str]:
    calls: list[str] = []
    svc.store.client.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))
    return calls


@pytest.mark.parametrize("room", HOSTILE_ROOMS, ids=repr)
def test_a_room_parameter_that_is_not_a_room_code_is_refused_without_a_read(api, dynamodb_calls, room):
    out = connect_raw("c1", {"room": room})
    assert (out["statusCode"], out["body"]) == (400, "bad_request")
    assert dynamodb_calls == []


@pytest.mark.parametrize(
    "token", ["t" * 65, "x" * 3000, "tok en", "tök", "a\ud800"], ids=lambda t: repr(t[:8])
)
def test_an_over_long_or_misshapen_token_is_refused_without_a_read(api, dynamodb_calls, token):
    api.lobby(2, connect=False)
    dynamodb_calls.clear()
    out = connect_raw("c1", {"room": api.code, "token": token})
    assert (out["statusCode"], out["body"]) == (403, "bad_token")
    assert dynamodb_calls == []
    assert api.snapshot().conns == {}


def test_a_well_shaped_room_code_in_lower_case_still_connects(api):
    api.lobby(2, connect=False)
    assert api.connect("c1", "p2", room=api.code.lower()) == 200
    assert api.snapshot().conns == {"c1": "p2"}


def test_a_refused_connect_logs_its_reason_but_not_the_room_or_the_token(api):
    from service.infra.telemetry import logger

    api.lobby(2, connect=False)
    out, handler, level = io.StringIO(), logger.registered_handler, logger.log_level
    stream = handler.setStream(out)
    logger.setLevel("INFO")
    try:
        assert connect_raw("c1", {"room": "Q" * 3000, "token": "secret" * 20})["statusCode"] == 400
    finally:
        logger.setLevel(level)
        handler.setStream(stream)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    refused = [line for line in lines if line.get("message") == "connect refused"]
    assert refused and refused[0]["code"] == "bad_request" and refused[0]["connection"] == "c1"
    assert "QQQQ" not in out.getvalue() and "secret" not in out.getvalue()
