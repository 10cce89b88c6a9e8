"""The events the WebSocket handlers accept: Powertools' parser models (a `$connect` event
also carries the query string, which Powertools' model leaves out)."""

from __future__ import annotations

from aws_lambda_powertools.utilities.parser.models import (
    APIGatewayWebSocketConnectEventModel,
    APIGatewayWebSocketDisconnectEventModel,
    APIGatewayWebSocketMessageEventModel,
)
from pydantic import Field

__all__ = [
    "APIGatewayWebSocketDisconnectEventModel",
    "APIGatewayWebSocketMessageEventModel",
    "ConnectEvent",
]


class ConnectEvent(APIGatewayWebSocketConnectEventModel):
    """`$connect`: Powertools' model plus `?room=&token=`."""

    query_string_parameters: dict[str, str] | None = Field(None, alias="queryStringParameters")
