"""The events the WebSocket handlers accept: small msgspec Structs of the fields we use, and
`event_parser`, the decorator that converts an event into one of them.

Powertools' parser models would do the same, but `aws_lambda_powertools.utilities.parser.models`
imports every event model of every AWS service (about half a cold `import boto3`), and pydantic
itself costs a WebSocket cold start a third of `import boto3`: three handlers read only a
connection id, the `$connect` headers and query, and a message body. Field names follow
Powertools' `APIGatewayWebSocket*EventModel` (the keys are AWS's camelCase), and
`tests/functions/test_events.py` checks that every sample event passes both.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import msgspec

__all__ = ["ConnectEvent", "DisconnectEvent", "MessageEvent", "event_parser", "parse"]


class _Event(msgspec.Struct, frozen=True, rename="camel"):
    """Keys in AWS's camelCase (`connection_id` reads `connectionId`); other fields: ignored."""


class RequestContext(_Event):
    """The part of `requestContext` the handlers read (and what routes an event)."""

    connection_id: str
    route_key: str
    event_type: str
    request_id: str


class ConnectContext(RequestContext):
    event_type: Literal["CONNECT"]


class MessageContext(RequestContext):
    event_type: Literal["MESSAGE"]


class DisconnectContext(RequestContext):
    event_type: Literal["DISCONNECT"]


class ConnectEvent(_Event):
    """`$connect`: the headers (`Origin`) and `?room=&token=`."""

    request_context: ConnectContext
    headers: dict[str, str] = {}
    query_string_parameters: dict[str, str] | None = None


class MessageEvent(_Event):
    """A client frame (`$default`): the body, base64 for a binary frame."""

    request_context: MessageContext
    body: str | None = None
    is_base64_encoded: bool = False

    def frame(self) -> str | bytes | None:
        """The client's frame as sent (API Gateway base64-encodes binary frames)."""
        if self.is_base64_encoded and self.body:
            return base64.b64decode(self.body)
        return self.body


class DisconnectEvent(_Event):
    """`$disconnect`."""

    request_context: DisconnectContext


E = TypeVar("E", bound=_Event)


def parse(model: type[E], event: Any) -> E:
    """`event` as a `model`, or msgspec.ValidationError (an event of another route, or not AWS's)."""
    return msgspec.convert(event, model, strict=True)


def event_parser(model: type[E]) -> Callable[[Callable[[E, Any], Any]], Callable[[dict, Any], Any]]:
    """Call the handler with the event converted to `model` (a `ValidationError` escapes, as
    with Powertools' `event_parser`: an event API Gateway would never send is a bug)."""

    def decorate(fn: Callable[[E, Any], Any]) -> Callable[[dict, Any], Any]:
        @functools.wraps(fn)
        def handler(event: dict, context: Any) -> Any:
            return fn(parse(model, event), context)

        return handler

    return decorate
