"""The events the WebSocket handlers accept: small pydantic models of the fields we use, and
`event_parser`, the decorator that validates an event with one of them.

Powertools' parser models would do the same, but `aws_lambda_powertools.utilities.parser.models`
imports every event model of every AWS service (about half a cold `import boto3`), for three
handlers that read a connection id, the `$connect` headers and query, and a message body.
Field names and aliases follow Powertools' `APIGatewayWebSocket*EventModel`, and
`tests/functions/test_events.py` checks that every sample event passes both.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ConnectEvent", "DisconnectEvent", "MessageEvent", "event_parser"]


class _Model(BaseModel):
    model_config = ConfigDict(populate_by_name=True, frozen=True)  # other fields AWS sends: ignored


class RequestContext(_Model):
    """The part of `requestContext` the handlers read (and what routes an event)."""

    connection_id: str = Field(alias="connectionId")
    route_key: str = Field(alias="routeKey")
    event_type: str = Field(alias="eventType")
    request_id: str = Field(alias="requestId")


class ConnectContext(RequestContext):
    event_type: Literal["CONNECT"] = Field(alias="eventType")


class MessageContext(RequestContext):
    event_type: Literal["MESSAGE"] = Field(alias="eventType")


class DisconnectContext(RequestContext):
    event_type: Literal["DISCONNECT"] = Field(alias="eventType")


class ConnectEvent(_Model):
    """`$connect`: the headers (`Origin`) and `?room=&token=`."""

    request_context: ConnectContext = Field(alias="requestContext")
    headers: dict[str, str] = Field(default_factory=dict)
    query_string_parameters: dict[str, str] | None = Field(None, alias="queryStringParameters")


class MessageEvent(_Model):
    """A client frame (`$default`): the body, base64 for a binary frame."""

    request_context: MessageContext = Field(alias="requestContext")
    body: str | None = None
    is_base64_encoded: bool = Field(False, alias="isBase64Encoded")

    def frame(self) -> str | bytes | None:
        """The client's frame as sent (API Gateway base64-encodes binary frames)."""
        if self.is_base64_encoded and self.body:
            return base64.b64decode(self.body)
        return self.body


class DisconnectEvent(_Model):
    """`$disconnect`."""

    request_context: DisconnectContext = Field(alias="requestContext")


M = TypeVar("M", bound=BaseModel)


def event_parser(model: type[M]) -> Callable[[Callable[[M, Any], Any]], Callable[[dict, Any], Any]]:
    """Call the handler with the event validated by `model` (a `ValidationError` escapes, as
    with Powertools' `event_parser`: an event API Gateway would never send is a bug)."""

    def decorate(fn: Callable[[M, Any], Any]) -> Callable[[dict, Any], Any]:
        @functools.wraps(fn)
        def handler(event: dict, context: Any) -> Any:
            return fn(model.model_validate(event), context)

        return handler

    return decorate
