"""REST: create, join, get, and their errors ({"error": {"code", "message"}})."""

from __future__ import annotations

import hashlib
import json

import pytest


def test_create_room_returns_code_host_token_and_ws_url(api):
    status, body = api.rest(
        "POST", "/rooms", {"name": "Ann", "preset": "classic", "options": {"nightSeconds": 45}}
    )
    assert status == 201
    assert set(body) == {"roomCode", "playerId", "token", "wsUrl"}
    assert body["playerId"] == "p1" and body["wsUrl"] == "wss://ws.example/test"
    assert len(body["roomCode"]) == 5 and set(body["roomCode"]) <= set("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    assert len(body["token"]) >= 22  # 128 bits, URL-safe


def test_only_the_token_hash_is_stored(api):
    status, body = api.rest("POST", "/rooms", {"name": "Ann"})
    api.code = body["roomCode"]
    room = api.snapshot().room
    assert body["token"] not in str(room)
    assert room["players"][0]["tokenHash"] == hashlib.sha256(body["token"].encode()).hexdigest()


def test_join_assigns_ids_in_order_and_get_shows_a_public_summary(api):
    code = api.create("Ann")
    assert api.join("Bob") == "p2"
    assert api.join("Cid") == "p3"
    status, body = api.rest("GET", f"/rooms/{code.lower()}")
    assert status == 200
    assert [p["name"] for p in body["players"]] == ["Ann", "Bob", "Cid"]
    assert body["status"] == "lobby" and body["host"] == "p1" and body["maxPlayers"] == 12
    assert body["setupError"]["code"] == "too_few_players"
    text = str(body)
    assert "token" not in text.lower() and "'role'" not in text  # (the option roleRevealSeconds is public)


def test_unknown_room_is_404(api):
    assert api.rest("GET", "/rooms/ZZZZZ") == (
        404,
        {"error": {"code": "room_not_found", "message": "no room 'ZZZZZ'"}},
    )
    status, body = api.rest("POST", "/rooms/ZZZZZ/players", {"name": "Bob"})
    assert status == 404 and body["error"]["code"] == "room_not_found"


def test_validation_errors_are_400_with_the_error_shape(api):
    for body, code in (
        ({}, "bad_request"),
        ({"name": ""}, "bad_name"),
        ({"name": "x" * 25}, "bad_name"),
        ({"name": "Ann", "preset": "chess"}, "bad_request"),
        ({"name": "A", "extra": 1}, "bad_request"),
        ("{nope", "bad_json"),
    ):
        status, out = api.rest("POST", "/rooms", body)
        assert status == 400, body
        assert out["error"]["code"] == code and out["error"]["message"], body


def test_bad_options_are_refused(api):
    status, out = api.rest("POST", "/rooms", {"name": "Ann", "options": {"nightSeconds": 5000}})
    assert status == 400 and out["error"]["code"] == "bad_options"
    status, out = api.rest("POST", "/rooms", {"name": "Ann", "options": {"noSuchOption": 1}})
    assert status == 400 and out["error"]["code"] == "bad_options"


def test_join_is_refused_once_started_full_or_name_taken(api):
    api.start(4)
    status, out = api.rest("POST", f"/rooms/{api.code}/players", {"name": "Late"})
    assert (status, out["error"]["code"]) == (409, "already_started")
    api.create("Ann")
    for i in range(2, 13):
        api.join(f"N{i}")
    status, out = api.rest("POST", f"/rooms/{api.code}/players", {"name": "Thirteen"})
    assert (status, out["error"]["code"]) == (409, "room_full")
    api.create("Ann")
    status, out = api.rest("POST", f"/rooms/{api.code}/players", {"name": "ann"})
    assert (status, out["error"]["code"]) == (409, "name_taken")


def test_cors_preflight_and_unknown_route(api):
    status, _ = api.rest(
        "OPTIONS", "/rooms", headers={"Origin": "https://x.example", "Access-Control-Request-Method": "POST"}
    )
    assert status == 204
    status, out = api.rest("GET", "/nowhere")
    assert status == 404 and out["error"]["code"] == "not_found"


def test_join_pushes_the_new_lobby_to_connected_players(api):
    api.lobby(2)
    api.gw.clear()
    api.join("Cid")
    views = [f for c, f in api.gw.sent if f["type"] == "view"]
    assert {c for c, _ in api.gw.sent} == {"cp1", "cp2"}
    assert [p["name"] for p in views[0]["view"]["players"]] == ["P1", "P2", "Cid"]


# ---------------------------------------------------------------- the resolver (handlers/rest.py)
class StubService:
    """Stands in for the room service behind the routes: records calls, answers `answer`."""

    def __init__(self, answer=None, error: Exception | None = None):
        self.calls: list[tuple] = []
        self.answer, self.error = answer, error

    def join_room(self, code, name, device=None, ip=None, session=None):
        self.calls.append((code, name))
        if self.error:
            raise self.error
        return self.answer


@pytest.fixture
def stub(monkeypatch):
    from handlers import rest

    svc = StubService({"playerId": "p2", "token": "t", "wsUrl": "wss://x"})
    monkeypatch.setattr(rest, "room_service", svc)
    return svc


def join(body, headers=None) -> dict:
    from fnkit import CTX, rest_event

    from handlers import rest

    return rest.handler(rest_event("POST", "/rooms/ABCDE/players", body, headers), CTX)


def test_a_known_path_with_another_method_is_405(api):
    from fnkit import CTX, rest_event

    from handlers import rest

    answer = rest.handler(rest_event("DELETE", "/rooms/ABCDE"), CTX)
    assert (answer["statusCode"], json.loads(answer["body"])["error"]["code"]) == (405, "method_not_allowed")
    assert answer["multiValueHeaders"]["Allow"] == ["GET"]
    answer = rest.handler(rest_event("DELETE", "/rooms"), CTX)
    assert (answer["statusCode"], answer["multiValueHeaders"]["Allow"]) == (405, ["GET, POST"])
    answer = rest.handler(rest_event("GET", "/quickplay"), CTX)
    assert (answer["statusCode"], answer["multiValueHeaders"]["Allow"]) == (405, ["POST"])
    status, out = api.rest("POST", "/rooms", {})
    assert (status, out["error"]["message"]) == (400, "body: missing required field 'name'")


def test_validation_failures_are_our_400_not_powertools_422(api):
    for body, message in (
        (None, "body: a JSON object is required"),
        ([1], "body: a JSON object is required"),
        ({"name": "Ann", "lang": "fr"}, "lang: input should be 'en', 'ko' or 'ru'"),
        ({"name": "Ann", "options": []}, "options: input should be a valid dictionary"),
        ({"name": "Ann", "extra": 1}, "unknown field 'extra'"),
        (
            {"name": "Ann", "preset": "chess"},
            "preset: unknown preset 'chess' (one of classic, city, original)",
        ),
    ):
        status, out = api.rest("POST", "/rooms", body)
        assert (status, out["error"]) == (400, {"code": "bad_request", "message": message}), body
    status, out = api.rest("GET", "/rooms/AB")
    assert (status, out["error"]["message"]) == (400, "roomCode: a room code is 4 to 8 letters and digits")


def test_cors_headers_go_to_allowed_origins_only(monkeypatch, stub):
    from handlers import rest

    monkeypatch.setenv("ALLOWED_ORIGINS", "https://play.example, https://beta.example")
    cors = rest._cors()
    assert cors.to_dict("https://play.example")["Access-Control-Allow-Origin"] == "https://play.example"
    assert cors.to_dict("https://beta.example")["Access-Control-Max-Age"] == "600"
    assert cors.to_dict("https://evil.example") == {}
    out = join({"name": "Bob"}, {"Origin": "https://play.example"})  # the tests allow "*"
    assert out["statusCode"] == 201
    assert out["multiValueHeaders"]["Access-Control-Allow-Origin"] == ["*"]
    from fnkit import CTX, rest_event

    preflight = rest_event("OPTIONS", "/rooms/ABCDE/players", None, {"Origin": "https://play.example"})
    out = rest.handler(preflight, CTX)
    assert out["statusCode"] == 204 and "POST" in out["multiValueHeaders"]["Access-Control-Allow-Methods"][0]


def test_an_answer_carries_only_the_declared_fields(stub):
    """A key the service adds but the answer model does not declare never reaches the client."""
    stub.answer = {**stub.answer, "tokenHash": "h"}
    out = join({"name": "Bob"})
    assert json.loads(out["body"]) == {"playerId": "p2", "token": "t", "wsUrl": "wss://x"}


def test_an_answer_off_its_model_is_a_500(stub):
    stub.answer = {"playerId": "p2"}  # no token: a bug, never sent half-made
    out = join({"name": "Bob"})
    assert (out["statusCode"], json.loads(out["body"])["error"]["code"]) == (500, "internal_error")


def test_a_bug_in_a_route_is_a_500_without_details(stub):
    from service.infra.telemetry import metrics

    stub.error = KeyError("secret-internal-detail")
    metrics.clear_metrics()
    out = join({"name": "Bob"})
    assert metrics.metric_set["InternalErrors"]["Value"] == [1.0]  # operators alarm on it
    metrics.clear_metrics()
    assert out["statusCode"] == 500
    assert json.loads(out["body"])["error"]["code"] == "internal_error"
    assert "secret" not in out["body"]


def test_the_body_reaches_the_route_with_the_name_rule_applied(stub):
    join({"name": "  Ｂob   Lee "})
    from fnkit import CTX, rest_event

    from handlers import rest

    rest.handler(rest_event("POST", "/rooms/abcde/players", {"name": "Cid"}), CTX)
    assert stub.calls == [("ABCDE", "Bob Lee"), ("abcde", "Cid")]


def test_a_refused_name_says_it_is_the_name(api):
    for name, message in ((5, "name: a name is a string"), ("", "name: a name cannot be empty")):
        status, out = api.rest("POST", "/rooms", {"name": name})
        assert (status, out["error"]) == (400, {"code": "bad_name", "message": message})
