"""Every sample event in events/ and every event the shared builders make (local/events.py:
the offline stack, these tests, the bench) validates against the model its handler parses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aws_lambda_powertools.utilities.parser.models import APIGatewayProxyEventModel

from handlers.timer import TimerEvent
from handlers.ws_events import (
    APIGatewayWebSocketDisconnectEventModel,
    APIGatewayWebSocketMessageEventModel,
    ConnectEvent,
)
from local import events

EVENTS = Path(__file__).resolve().parents[2] / "events"
MODEL_BY_PREFIX = {
    "rest_": APIGatewayProxyEventModel,
    "ws_connect": ConnectEvent,
    "ws_default": APIGatewayWebSocketMessageEventModel,
    "ws_report": APIGatewayWebSocketMessageEventModel,
    "ws_disconnect": APIGatewayWebSocketDisconnectEventModel,
    "timer": TimerEvent,
}


def model_for(name: str):
    return next(m for prefix, m in MODEL_BY_PREFIX.items() if name.startswith(prefix))


@pytest.mark.parametrize("path", sorted(EVENTS.glob("*.json")), ids=lambda p: p.name)
def test_every_sample_event_validates_against_its_handler_model(path):
    model_for(path.name).model_validate(json.loads(path.read_text(encoding="utf-8")))


def test_every_handler_has_a_sample_event():
    names = {p.name for p in EVENTS.glob("*.json")}
    for prefix in MODEL_BY_PREFIX:
        assert any(n.startswith(prefix) for n in names), prefix


def test_the_shared_builders_make_events_the_handlers_accept():
    APIGatewayProxyEventModel.model_validate(
        events.rest_event(
            method="POST", path="/rooms", headers={"Content-Type": "application/json"}, body="{}"
        )
    )
    connect = ConnectEvent.model_validate(events.ws_connect_event(connection="c1", query={"room": "ABCDE"}))
    assert connect.query_string_parameters == {"room": "ABCDE"}
    message = events.ws_message_event(connection="c1", body='{"action": "sync"}')
    assert APIGatewayWebSocketMessageEventModel.model_validate(message).body == '{"action": "sync"}'
    APIGatewayWebSocketDisconnectEventModel.model_validate(events.ws_disconnect_event(connection="c1"))


def test_every_room_operation_has_a_frame_model_and_a_change_function():
    from service import connections, frames, operations

    # `ping` is answered by the connection layer (it needs the gateway's GetConnection)
    assert set(operations.OPERATIONS) | connections.CONNECTION_ACTIONS == frames.ROOM_ACTIONS
