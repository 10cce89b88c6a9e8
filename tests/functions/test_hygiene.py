"""Input hygiene (frames, the lobby, REST bodies, names): hostile JSON, Unicode and bodies get a
code, never a crash.

Every refusal here answers with a clear code and leaves the stored room exactly as it was;
REST and the socket refuse the same input with the same code.
"""

from __future__ import annotations

import json
import math

import pytest
from fnkit import CTX

from handlers import rest
from local import events
from service.protocol import quoting, views
from tests.hostile_frames import strict_loads

pytestmark = pytest.mark.memstore  # what a frame or a body may hold: room rules (tests/functions/conftest.py)


@pytest.fixture
def lobby(api):
    api.lobby(3)
    return api


def refused(api, conn: str, text: str, code: str) -> dict:
    """Send raw `text`; the sender alone gets one strict-JSON error `code`; nothing is stored."""
    before = api.item()
    api.gw.clear()
    api.send(conn, text)
    assert api.item() == before
    assert [c for c, _ in api.gw.sent] == [conn]
    out = api.gw.sent[0][1]
    assert out["type"] == "error" and out["code"] == code, out
    assert len(out["message"]) <= 300
    return out


# ---------------------------------------------------------------- frames
@pytest.mark.parametrize(
    "text",
    [
        "[" * 1000 + "]" * 1000,
        '{"a":' * 1000 + "1" + "}" * 1000,
        '{"action":"vote","target":' + "[" * 1000 + '"p2"' + "]" * 1000 + "}",
        '{"action":"sync","id":' + "[" * 9 + "]" * 9 + "}",
        '{"action":"setOptions","options":{"mafiaCount":' + "[" * 2000 + "]" * 2000 + "}}",
    ],
)
def test_deeply_nested_frames_are_refused_as_bad_frame(lobby, text):
    out = refused(lobby, "cp1", text, "bad_frame")
    assert "nested" in out["message"] and out["id"] is None


@pytest.mark.parametrize(
    "text",
    [
        '{"action":"chat","channel":"day","text":"\\ud800"}',
        '{"action":"vote","target":"p\\udfff"}',
        '{"action":"sync","id":"\\ud83d"}',
        '{"action":"\\ud800"}',
        '{"action":"addBot","name":"Bot\\ud800"}',
        '{"action":"sync","\\ud800":1}',
    ],
)
def test_lone_surrogates_are_refused_with_bad_unicode(lobby, text):
    refused(lobby, "cp1", text, "bad_unicode")


def test_a_surrogate_pair_is_one_character_and_welcome(lobby):
    lobby.send("cp1", '{"action":"addBot","name":"Bot \\ud83d\\ude00"}')
    assert lobby.snapshot().room["players"][-1]["name"] == "Bot \U0001f600"


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-1E400"])
def test_non_finite_numbers_are_refused_and_never_echoed(lobby, number):
    out = refused(lobby, "cp1", '{"action":"sync","id":' + number + "}", "bad_frame")
    assert out["id"] is None
    refused(lobby, "cp1", '{"action":"setOptions","options":{"nightSeconds":' + number + "}}", "bad_frame")


def test_every_frame_the_server_sends_is_strict_json():
    with pytest.raises(ValueError):
        views.render({"x": math.nan})
    with pytest.raises(ValueError):
        views.error_frame(math.inf, "x", "y")
    assert strict_loads(views.error_frame(7, "bad_frame", "a frame")) == {
        "type": "error",
        "id": 7,
        "code": "bad_frame",
        "message": "a frame",
    }


def test_only_a_short_valid_id_is_echoed(lobby):
    assert refused(lobby, "cp1", '{"action":"nope!","id":"' + "x" * 65 + '"}', "bad_frame")["id"] is None
    assert refused(lobby, "cp1", '{"action":"nope!","id":{"a":1}}', "bad_frame")["id"] is None
    assert refused(lobby, "cp1", '{"action":"nope!","id":"f1"}', "bad_frame")["id"] == "f1"


def test_the_room_hint_must_look_like_a_room_code(lobby):
    out = refused(lobby, "cp1", json.dumps({"action": "sync", "room": "Z" * 3000, "id": 1}), "bad_frame")
    assert "Z" * 50 not in out["message"]
    refused(lobby, "cp1", json.dumps({"action": "sync", "room": "../x"}), "bad_frame")
    refused(lobby, "cp1", json.dumps({"action": "sync", "room": 5}), "bad_frame")


def test_error_messages_quote_a_short_prefix_of_the_input(lobby):
    out = refused(lobby, "cp1", json.dumps({"action": "kick", "target": "x" * 3000}), "bad_target")
    assert "x" * 40 + "…" in out["message"] and "x" * 41 not in out["message"]
    out = refused(
        lobby,
        "cp1",
        json.dumps({"action": "setOptions", "options": {"firstPhase": "y" * 5000}}),
        "bad_options",
    )
    assert len(out["message"]) <= 300


LONG = "q" * 3000  # a 3,000-character input: at most a short prefix of it may come back
SHORT_MESSAGE = 120


def echoes_at_most_a_prefix(message: str) -> bool:
    return len(message) <= SHORT_MESSAGE and "q" * 41 not in message


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"action": "setOptions", "options": {LONG: 1}}, "bad_options"),  # an option name
        ({"action": "setOptions", "options": {"firstPhase": LONG}}, "bad_options"),  # an option value
        ({"action": "setOptions", "preset": LONG, "options": {}}, "bad_options"),
        ({"action": "sync", "room": LONG}, "bad_frame"),  # the room hint
        ({"action": "kick", "target": LONG}, "bad_target"),  # a target
        ({"action": "kick", "target": " ".join(LONG[:1400])}, "bad_target"),  # one with spaces
        ({"action": "sync", LONG: 1}, "bad_frame"),  # a key
        ({"action": "addBot", "name": LONG}, "bad_name"),
    ],
    ids=["option-name", "option-value", "preset", "room-hint", "target", "spaced", "key", "bot"],
)
def test_a_socket_error_quotes_at_most_a_short_prefix_of_a_long_input(lobby, frame, code):
    out = refused(lobby, "cp1", json.dumps(frame), code)
    assert echoes_at_most_a_prefix(out["message"]), out["message"]


def test_an_engine_refusal_quotes_at_most_a_short_prefix_of_a_long_target(api):
    """The engine's own refusal ("there is no player '…' in this game") quotes the target."""
    from mafia_engine.testing import legal_actions

    api.start(4)
    for _ in range(20):  # on to the first phase with a targeted action (phases end by the timer)
        state = api.state()
        targeted = [a for a in legal_actions(state) if "target" in a]
        if targeted:
            break
        api.clock.advance(max(0.0, state["phase"]["endsAt"] - api.clock.t))
        api.fire(state["seq"])
    action = dict(targeted[0])
    conn = "c" + action.pop("player")
    api.gw.clear()
    api.send(conn, {**action, "action": action.pop("type"), "target": LONG})
    [error] = api.errors(conn)
    assert error["code"] == "unknown_player" and echoes_at_most_a_prefix(error["message"]), error


@pytest.mark.parametrize(
    "message",
    [
        "waiting for: Ann, Bob",
        "you can't vote for 'p3' now",
        "action: String should match pattern '^[A-Za-z][A-Za-z0-9_]{0,39}$'",
        "unknown option 'dayMinutes' for preset 'classic'",
    ],
)
def test_messages_without_a_long_input_pass_the_quote_limit_unchanged(message):
    assert quoting.tidy(message) == message


def test_the_quote_limit_cuts_long_quoted_literals_and_long_runs_to_a_prefix():
    assert quoting.tidy(f"no player {'a b ' * 30!r} here") == f"no player {('a b ' * 10)[:40] + '…'!r} here"
    assert quoting.tidy("z" * 50 + ": Extra inputs") == "z" * 40 + "… Extra inputs"


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/rooms", {"name": "Ann", "options": {LONG: 1}}),
        ("POST", "/rooms", {"name": "Ann", "options": {"firstPhase": LONG}}),
        ("POST", "/rooms", {"name": "Ann", "preset": LONG}),
        ("POST", "/rooms", {"name": "Ann", LONG: 1}),
        ("POST", "/rooms", {"name": LONG}),
        ("GET", "/rooms/" + LONG, None),
        ("POST", "/rooms/" + LONG + "/players", {"name": "Bob"}),
    ],
    ids=["option-name", "option-value", "preset", "key", "name", "room-code", "room-code-join"],
)
def test_a_rest_error_quotes_at_most_a_short_prefix_of_a_long_input(api, method, path, body):
    status, out = api.rest(method, path, body)
    assert status == 400, out
    assert out["error"]["code"] and echoes_at_most_a_prefix(out["error"]["message"]), out


# ---------------------------------------------------------------- the lobby under any order
def test_a_bot_never_becomes_host_when_the_host_leaves(api):
    api.create("Host")
    api.connect("cp1", "p1")
    api.send("cp1", {"action": "addBot"})  # p2, seated before any person
    pid = api.join("Ann")
    api.connect(f"c{pid}", pid)
    api.send("cp1", {"action": "leave"})
    room = api.snapshot().room
    assert room["host"] == pid
    api.send(f"c{pid}", {"action": "start"})
    assert api.errors(f"c{pid}")[-1]["code"] in ("too_few_players", "not_ready")  # the host acts


def test_a_lobby_left_to_bots_gives_the_next_person_the_host(api):
    api.create("Host")
    api.connect("cp1", "p1")
    api.send("cp1", {"action": "addBot"})
    api.send("cp1", {"action": "leave"})
    assert api.snapshot().room["host"] is None
    pid = api.join("Ann")
    assert api.snapshot().room["host"] == pid


# ---------------------------------------------------------------- REST bodies
def post(body: bytes | str, content_type: str = "application/json", path: str = "/rooms") -> tuple[int, dict]:
    """A raw REST request (the body as sent, any content type)."""
    event = events.rest_event(method="POST", path=path, headers={"Content-Type": content_type}, body=body)
    out = rest.handler(event, CTX)
    return out["statusCode"], json.loads(out["body"]) if out.get("body") else {}


def test_rest_invalid_utf8_body_is_400_bad_unicode(api):
    status, out = post(b'{"name": "\xff\xfe"}')
    assert status == 400 and out["error"]["code"] == "bad_unicode"


@pytest.mark.parametrize("number", ["1e999", "NaN", "Infinity", "-Infinity"])
def test_rest_non_finite_numbers_are_400(api, number):
    status, out = post('{"name": "Ann", "options": {"nightSeconds": ' + number + "}}")
    assert status == 400 and out["error"]["code"] == "bad_json", out


def test_rest_deeply_nested_body_is_400(api):
    status, out = post('{"name": "Ann", "options": {"x": ' + "[" * 1000 + "]" * 1000 + "}}")
    assert status == 400 and out["error"]["code"] == "bad_json"


@pytest.mark.parametrize(
    "content_type,body",
    [
        (
            "multipart/form-data; boundary=xx",
            '--xx\r\nContent-Disposition: form-data; name="name"\r\n\r\nAnn\r\n--xx--\r\n',
        ),
        ("application/x-www-form-urlencoded", "name=Ann"),
        ("text/plain", '{"name": "Ann"}'),
        ("application/json-patch+json", '{"name": "Ann"}'),
    ],
)
@pytest.mark.filterwarnings("ignore:Received multipart/form-data without base64")
def test_rest_accepts_json_bodies_only(api, content_type, body):
    status, out = post(body, content_type)
    assert status == 415 and out["error"]["code"] == "unsupported_media_type", out
    status, _ = post('{"name": "Ann"}', "application/json; charset=utf-8")
    assert status == 201


def test_surrogates_are_refused_alike_on_rest_and_the_socket(lobby):
    status, out = post('{"name": "Ann\\ud800"}')
    assert status == 400 and out["error"]["code"] == "bad_unicode"
    status, out = post('{"name": "\\ud800Bob"}', path=f"/rooms/{lobby.code}/players")
    assert status == 400 and out["error"]["code"] == "bad_unicode"
    refused(lobby, "cp1", '{"action":"addBot","name":"Ann\\ud800"}', "bad_unicode")


# ---------------------------------------------------------------- names
def test_names_are_stored_nfkc_normalized_with_spaces_collapsed(api):
    api.create("Ｐｌａｙｅｒ  Ｏｎｅ ")
    assert api.snapshot().room["players"][0]["name"] == "Player One"


@pytest.mark.parametrize(
    "name",
    [
        "\u202eevil",
        "a\u0000b",
        "Ann\u200b",
        "\u200b",
        "\u200b\u200c\u2060",
        "tab\there",
        "line\nbreak",
        "\u3164",
    ],
)
def test_names_with_control_format_or_only_invisible_characters_are_refused(api, name):
    status, out = api.rest("POST", "/rooms", {"name": name})
    assert status == 400 and out["error"]["code"] == "bad_name", out


@pytest.mark.parametrize("twin", ["host", "HOST", "Нost", "Ноst", "Ｈｏｓｔ", " Host "])
def test_look_alike_names_count_as_taken(api, twin):
    """Names compare after NFKC, case folding and a Cyrillic/Latin look-alike skeleton."""
    api.create("Host")
    status, out = api.rest("POST", f"/rooms/{api.code}/players", {"name": twin})
    assert status == 409 and out["error"]["code"] == "name_taken", (twin, out)


def test_the_kid_safe_filter_applies_to_names_as_to_chat(api):
    status, out = api.rest("POST", "/rooms", {"name": "fuck"})
    assert status == 400 and out["error"]["code"] == "bad_name"
    api.create("Host")
    api.connect("cp1", "p1")
    for name in ("shit", "www.bad.com", "씨발"):
        refused(api, "cp1", json.dumps({"action": "addBot", "name": name}), "bad_name")


def test_bot_names_follow_the_name_rule(api):
    api.create("Host")
    api.connect("cp1", "p1")
    refused(api, "cp1", json.dumps({"action": "addBot", "name": "Bot\u200b"}), "bad_name")
    api.send("cp1", {"action": "addBot", "name": "Нost"})
    assert api.errors("cp1")[-1]["code"] == "name_taken"
