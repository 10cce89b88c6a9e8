"""Every sample event in events/ and every event the shared builders make (local/events.py:
the offline stack, these tests, the bench) validates against the model its handler parses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aws_lambda_powertools.utilities.parser.models import (
    APIGatewayProxyEventModel,
    APIGatewayWebSocketConnectEventModel,
    APIGatewayWebSocketDisconnectEventModel,
    APIGatewayWebSocketMessageEventModel,
)
from msgspec import ValidationError

from handlers.timer import TimerEvent
from handlers.ws_events import ConnectEvent, DisconnectEvent, MessageEvent, parse
from local import events

EVENTS = Path(__file__).resolve().parents[2] / "events"
MODEL_BY_PREFIX = {
    "rest_": APIGatewayProxyEventModel,
    "ws_connect": ConnectEvent,
    "ws_default": MessageEvent,
    "ws_report": MessageEvent,
    "ws_disconnect": DisconnectEvent,
    "timer": TimerEvent,
}
# The handlers' own small WebSocket models (handlers/ws_events.py) read a subset of what
# Powertools' models check: every sample must pass Powertools' full model too.
POWERTOOLS_MODEL = {
    ConnectEvent: APIGatewayWebSocketConnectEventModel,
    MessageEvent: APIGatewayWebSocketMessageEventModel,
    DisconnectEvent: APIGatewayWebSocketDisconnectEventModel,
}


def model_for(name: str):
    return next(m for prefix, m in MODEL_BY_PREFIX.items() if name.startswith(prefix))


@pytest.mark.parametrize("path", sorted(EVENTS.glob("*.json")), ids=lambda p: p.name)
def test_every_sample_event_validates_against_its_handler_model(path):
    event = json.loads(path.read_text(encoding="utf-8"))
    model = model_for(path.name)
    if model is APIGatewayProxyEventModel:
        model.model_validate(event)
    else:
        parse(model, event)
    if model in POWERTOOLS_MODEL:
        POWERTOOLS_MODEL[model].model_validate(event)


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
    built = {
        ConnectEvent: events.ws_connect_event(connection="c1", query={"room": "ABCDE"}),
        MessageEvent: events.ws_message_event(connection="c1", body='{"action": "sync"}'),
        DisconnectEvent: events.ws_disconnect_event(connection="c1"),
    }
    for model, event in built.items():
        assert parse(model, event).request_context.connection_id == "c1"
        POWERTOOLS_MODEL[model].model_validate(event)
    assert parse(ConnectEvent, built[ConnectEvent]).query_string_parameters == {"room": "ABCDE"}
    assert parse(MessageEvent, built[MessageEvent]).body == '{"action": "sync"}'


def test_an_event_of_another_route_is_refused_by_the_handler_models():
    connect = events.ws_connect_event(connection="c1", query={"room": "ABCDE"})
    with pytest.raises(ValidationError):
        parse(MessageEvent, connect)
    with pytest.raises(ValidationError):
        parse(DisconnectEvent, {"requestContext": {"connectionId": "c1"}})


def test_tracing_is_off_by_the_powertools_rule_and_then_needs_no_xray_sdk():
    """Issue 11: the real Tracer, off by its own env var; issue 15: no X-Ray SDK unless on."""
    from service import telemetry

    lam = {"LAMBDA_TASK_ROOT": "/var/task"}
    assert telemetry.tracing_enabled(lam)
    assert not telemetry.tracing_enabled({**lam, "POWERTOOLS_TRACE_DISABLED": "true"})
    assert not telemetry.tracing_enabled({**lam, "POWERTOOLS_TRACE_DISABLED": "1"})
    assert telemetry.tracing_enabled({**lam, "POWERTOOLS_TRACE_DISABLED": "false"})
    assert not telemetry.tracing_enabled({})  # outside Lambda, as Powertools' Tracer decides
    assert not telemetry.tracing_enabled({**lam, "AWS_SAM_LOCAL": "true"})
    assert isinstance(telemetry.tracer, telemetry.NoTracer)  # tests run with tracing off
    no = telemetry.NoTracer()

    def fn(event, context):
        return event

    assert no.capture_lambda_handler(fn) is fn and no.capture_method(capture_response=False)(fn) is fn


def test_every_room_operation_has_a_frame_model_and_a_change_function():
    from service import chat_archive, connections, frames, operations

    # `ping` is answered by the connection layer (it needs the gateway's GetConnection),
    # `chatLog` by the chat archive (it reads the archive items)
    ops = set(operations.OPERATIONS) | connections.CONNECTION_ACTIONS | chat_archive.ARCHIVE_ACTIONS
    assert ops == frames.ROOM_ACTIONS
