"""Every sample event in events/ and every event the shared builders make (local/events.py:
the offline stack, these tests, the bench) validates against the model its handler parses with
(Powertools' parser models, handlers/ws_events.py; the timer's own model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aws_lambda_powertools.utilities.parser import parse
from aws_lambda_powertools.utilities.parser.models import APIGatewayProxyEventModel
from pydantic import ValidationError

from handlers.timer import TimerEvent
from handlers.ws_events import ConnectEvent, DisconnectEvent, MessageEvent, frame
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


def model_for(name: str):
    return next(m for prefix, m in MODEL_BY_PREFIX.items() if name.startswith(prefix))


@pytest.mark.parametrize("path", sorted(EVENTS.glob("*.json")), ids=lambda p: p.name)
def test_every_sample_event_validates_against_its_handler_model(path):
    event = json.loads(path.read_text(encoding="utf-8"))
    parse(event=event, model=model_for(path.name))


def test_every_handler_has_a_sample_event():
    names = {p.name for p in EVENTS.glob("*.json")}
    for prefix in MODEL_BY_PREFIX:
        assert any(n.startswith(prefix) for n in names), prefix


def test_the_shared_builders_make_events_the_handlers_accept():
    parse(
        event=events.rest_event(
            method="POST", path="/rooms", headers={"Content-Type": "application/json"}, body="{}"
        ),
        model=APIGatewayProxyEventModel,
    )
    connect = parse(
        event=events.ws_connect_event(connection="c1", query={"room": "ABCDE"}), model=ConnectEvent
    )
    message = parse(
        event=events.ws_message_event(connection="c1", body='{"action": "sync"}'), model=MessageEvent
    )
    report = parse(
        event=events.ws_message_event(connection="c1", body="{}", route_key="report"), model=MessageEvent
    )
    gone = parse(event=events.ws_disconnect_event(connection="c1"), model=DisconnectEvent)
    for event in (connect, message, report, gone):
        assert event.request_context.connection_id == "c1"
    assert connect.query_string_parameters == {"room": "ABCDE"}
    assert (
        parse(event=events.ws_connect_event(connection="c1"), model=ConnectEvent).query_string_parameters
        is None
    )
    assert frame(message) == '{"action": "sync"}' and report.request_context.route_key == "report"


def test_a_binary_frame_reaches_the_service_as_bytes():
    event = events.ws_message_event(connection="c1", body="eyJhIjoxfQ==")
    event["isBase64Encoded"] = True
    assert frame(parse(event=event, model=MessageEvent)) == b'{"a":1}'


def test_an_event_of_another_route_is_refused_by_the_handler_models():
    connect = events.ws_connect_event(connection="c1", query={"room": "ABCDE"})
    with pytest.raises(ValidationError):
        parse(event=connect, model=MessageEvent)
    with pytest.raises(ValidationError):
        parse(event=connect, model=DisconnectEvent)
    with pytest.raises(ValidationError):
        parse(event={"requestContext": {"connectionId": "c1"}}, model=DisconnectEvent)


def test_the_timer_model_is_strict():
    assert parse(event={"room": "ABCDE", "phase": 3}, model=TimerEvent).at is None
    for bad in (
        {"room": "ABCDE", "phase": "3"},
        {"room": "ABCDE", "phase": 3.0},
        {"room": 5, "phase": 3},
        {},
    ):
        with pytest.raises(ValidationError):
            parse(event=bad, model=TimerEvent)


def test_tracing_is_off_by_the_powertools_rule_and_then_needs_no_xray_sdk():
    """Powertools' own Tracer, off by its own env var; off, its provider records nothing and
    the X-Ray SDK's recorder is never imported (tests/functions/test_cold_imports.py)."""
    from aws_lambda_powertools.tracing import Tracer

    from service.infra import telemetry

    lam = {"LAMBDA_TASK_ROOT": "/var/task"}
    assert telemetry.tracing_enabled(lam)
    assert not telemetry.tracing_enabled({**lam, "POWERTOOLS_TRACE_DISABLED": "true"})
    assert not telemetry.tracing_enabled({**lam, "POWERTOOLS_TRACE_DISABLED": "1"})
    assert telemetry.tracing_enabled({**lam, "POWERTOOLS_TRACE_DISABLED": "false"})
    assert not telemetry.tracing_enabled({})  # outside Lambda, as Powertools' Tracer decides
    assert not telemetry.tracing_enabled({**lam, "AWS_SAM_LOCAL": "true"})
    assert isinstance(telemetry.tracer, Tracer) and telemetry.tracer.disabled  # tests run with tracing off
    assert isinstance(telemetry.tracer.provider, telemetry.OffProvider)

    @telemetry.tracer.capture_lambda_handler(capture_response=False)
    def fn(event, context):
        return event

    assert fn({"a": 1}, None) == {"a": 1}


def test_every_room_operation_has_a_frame_model_and_a_change_function():
    from service.protocol import frames
    from service.room import operations

    # `ping` and `chatLog` too: their commands call the connection layer and the chat archive;
    # a voice `signal` is relayed beside the pipeline, with no change (service/features/voice.py)
    assert set(operations.OPERATIONS) == frames.ROOM_ACTIONS - {"signal"}
