"""The published contract (docs/schemas/): generated from the frame models, never stale, and
true of what the server really accepts and sends; and what pydantic's JSON parser does on its
own with hostile input, next to what `frames.decode` adds to it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from pydantic import TypeAdapter, ValidationError

import mafia_engine as me
from service import schemas
from service.infra.errors import ServiceError
from service.protocol import frames, views
from service.room import chat_archive, connections, operations

DOCS = Path(__file__).resolve().parents[2] / "docs" / "schemas"


def schema(name: str) -> dict:
    return json.loads((DOCS / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", list(schemas.documents()))
def test_the_checked_in_schemas_are_what_the_models_say(name):
    """Stale? Run `python -m scripts.schemas` and commit docs/schemas/."""
    assert (DOCS / name).read_text(encoding="utf-8") == schemas.render(schemas.documents()[name])


def test_the_protocol_documents_frame_list_is_generated():
    doc = (DOCS.parent / "protocol.md").read_text(encoding="utf-8")
    assert schemas.frame_table() in doc, "stale: run `python -m scripts.schemas`"


def test_one_registry_every_list_of_frames_comes_from_the_models():
    mapping = schema("client-frames.json")["discriminator"]["mapping"]
    assert set(mapping) == set(frames.FRAMES)
    # every engine action of every preset is a frame, but the room operation of the same name
    assert set(me.ACTION_TYPES) - frames.ROOM_ACTIONS <= {f.tag() for f in frames.ENGINE_FRAMES}
    assert {"godfatherCheck", "lawyerPeek", "madmanKill", "ninjaCheck", "yakuzaTarget"} <= set(mapping)
    # one registry: every room frame (ping and chatLog too) has its command there, and nothing
    # else; a voice signal is relayed without a write, beside the pipeline (service/features/voice.py)
    relayed = {f.tag() for f in frames.ROOM_FRAMES if f.route == "signal"}
    assert relayed == {"signal"}
    assert set(operations.OPERATIONS) == frames.ROOM_ACTIONS - relayed


@pytest.mark.parametrize(
    "frame",
    [
        {"action": "vote", "id": 1, "target": "p2"},
        {"action": "chat", "channel": "day", "text": "hi", "player": "p9"},
        {"action": "setOptions", "options": {"nightSeconds": 30}, "preset": "city"},
        {"action": "chatLog", "before": 3},
        {"action": "adjustTime", "delta": -15},
    ],
)
def test_a_frame_the_server_accepts_is_valid_by_the_published_schema(frame):
    frames.decode(json.dumps(frame))
    jsonschema.validate(frame, schema("client-frames.json"))


@pytest.mark.parametrize(
    "frame",
    [
        {"action": "vote", "target": 3},
        {"action": "vote", "target": "p2", "why": 1},
        {"action": "ready", "ready": 1},
        {"action": "adjustTime", "delta": 10},
        {"action": "sync", "id": "x" * 65},
        {"action": "noSuchAction"},
    ],
)
def test_a_frame_the_server_refuses_is_invalid_by_the_published_schema(frame):
    with pytest.raises(ServiceError):
        frames.decode(json.dumps(frame))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(frame, schema("client-frames.json"))


@pytest.mark.memstore  # the frames a room sends: a room rule (tests/functions/conftest.py)
def test_every_frame_the_server_sends_is_valid_by_the_published_schema(api):
    api.start(4)
    api.send("cp1", {"action": "ping", "id": "h"})
    api.send("cp1", {"action": "vote", "id": 9, "target": "p2"})  # refused: wrong phase
    sent = [f for _, f in api.gw.sent]
    assert {f["type"] for f in sent} >= {"view", "pong", "error"}
    for f in sent:
        jsonschema.validate(f, schema("server-frames.json"))


def test_small_server_frames_keep_their_bytes():
    """The web client reads these (web/js): the same keys, in the same order, as before."""
    assert views.error_frame(7, "bad_frame", "a frame") == (
        b'{"type":"error","id":7,"code":"bad_frame","message":"a frame"}'
    )
    assert connections.pong("h1") == b'{"type":"pong","id":"h1"}'
    page = chat_archive.page([{"id": "day:1", "text": "Zoë"}], set(), None, None)
    assert page == '{"type":"chatLog","id":null,"lines":[{"id":"day:1","text":"Zoë"}],"from":0}'.encode()


# ---------------------------------------------------------------- pydantic's parser, and ours
FREE = TypeAdapter(dict[str, object])


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_pydantic_alone_takes_non_finite_numbers_so_decode_checks_free_form_values(number):
    assert FREE.validate_json('{"a":' + number + "}")  # pydantic's JSON parser takes it
    with pytest.raises(ServiceError) as e:
        frames.decode('{"action":"setOptions","options":{"a":' + number + "}}")
    assert e.value.code == "bad_frame"
    with pytest.raises(ServiceError):  # a typed field: the strict model refuses it already
        frames.decode('{"action":"nudge","phase":' + number + "}")


def test_pydantic_alone_takes_nine_levels_so_decode_checks_the_depth():
    nine = "[" * 9 + "]" * 9
    assert FREE.validate_json('{"a":' + nine + "}")
    with pytest.raises(ServiceError, match="nested deeper than 8 levels"):
        frames.decode('{"action":"setOptions","options":{"a":' + nine + "}}")
    with pytest.raises(ServiceError, match="nested deeper than 8 levels"):
        frames.decode('{"action":"sync","id":' + nine + "}")
    deep = "[" * 3000 + "]" * 3000
    with pytest.raises(ValidationError):  # its own recursion limit: refused, no crash
        FREE.validate_json('{"a":' + deep + "}")
    with pytest.raises(ServiceError, match="nested"):
        frames.decode('{"action":"setOptions","options":{"a":' + deep + "}}")


@pytest.mark.parametrize("text", ['"\\ud800"', '"a\\ud83d"', '"\\udbff\\udbff"', '"\ud800"'])
def test_lone_surrogates_are_refused_by_pydantic_and_named_by_decode(text):
    with pytest.raises(ValidationError):
        FREE.validate_json('{"a":' + text + "}")
    with pytest.raises(ServiceError) as e:
        frames.decode('{"action":"chat","channel":"day","text":' + text + "}")
    assert e.value.code == "bad_unicode"


def test_no_coercion():
    for frame in (
        '{"action":"nudge","phase":"3"}',
        '{"action":"nudge","phase":1.0}',
        '{"action":"ready","ready":1}',
        '{"action":"adjustTime","delta":15.0}',
        '{"action":"adjustTime","delta":true}',
    ):
        with pytest.raises(ServiceError):
            frames.decode(frame)
    assert frames.decode('{"action":"nudge","phase":3}').phase == 3


def test_an_engine_frame_becomes_the_engine_model_with_the_connection_as_actor():
    frame = frames.decode('{"action":"vote","target":"p2","player":"p9","type":"heal","id":"x"}')
    action = frame.engine_action("p1")
    assert (type(action).__name__, action.type, action.player, action.target) == ("Vote", "vote", "p1", "p2")
