"""Input hygiene (issue 15 §1, §7): hostile JSON, Unicode and bodies get a code, never a crash.

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
from service import views
from tests.hostile_frames import strict_loads


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


# ---------------------------------------------------------------- §1 frames
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


# ---------------------------------------------------------------- §1 the lobby under any order
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


# ---------------------------------------------------------------- §7 REST bodies
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


# ---------------------------------------------------------------- §7 names
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
