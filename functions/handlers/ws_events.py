"""The WebSocket events the handlers parse: Powertools' parser models (`APIGatewayWebSocket*EventModel`),
used with its `event_parser` in each `ws_*.py` handler.

Powertools' `$connect` model leaves out the query string, which is how a client names its room
and token: `ConnectEvent` extends it with `queryStringParameters`, as its documentation teaches
for fields a model lacks. The models validate the whole event (an event of another route, or
not shaped as API Gateway's, is refused: a bug, not a client's doing);
`tests/functions/test_events.py` checks every sample event and every event `local/events.py`
builds against them.
"""

from __future__ import annotations

import base64

from aws_lambda_powertools.utilities.parser.models import (
    APIGatewayWebSocketConnectEventModel,
    APIGatewayWebSocketDisconnectEventModel,
    APIGatewayWebSocketMessageEventModel,
)
from pydantic import Field

__all__ = ["ConnectEvent", "DisconnectEvent", "MessageEvent", "frame", "source_ip"]

DisconnectEvent = APIGatewayWebSocketDisconnectEventModel
MessageEvent = APIGatewayWebSocketMessageEventModel


class ConnectEvent(APIGatewayWebSocketConnectEventModel):
    """`$connect`: the headers (`Origin`) and `?room=&token=` (absent without a query)."""

    query_string_parameters: dict[str, str] | None = Field(None, alias="queryStringParameters")


def source_ip(event: ConnectEvent | MessageEvent) -> str | None:
    """The socket's source address as API Gateway reports it (the model parses it as a
    network: its one address), or None."""
    found = getattr(event.request_context.identity, "source_ip", None)
    if found is None:
        return None
    return str(getattr(found, "network_address", found))


def frame(event: MessageEvent) -> str | bytes | None:
    """The client's frame as sent (API Gateway base64-encodes binary frames)."""
    if event.is_base64_encoded and isinstance(event.body, str) and event.body:
        return base64.b64decode(event.body)
    return event.body if isinstance(event.body, str) else None
