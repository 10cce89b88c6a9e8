"""The events the WebSocket and timer handlers accept, as pydantic models.

The WebSocket ones are Powertools' parser models (a `$connect` event also carries the
query string, which Powertools' model leaves out). The timer's is the Scheduler target
`Input` that `service.timers` writes.
"""

from __future__ import annotations

from aws_lambda_powertools.utilities.parser.models import (
    APIGatewayWebSocketConnectEventModel,
    APIGatewayWebSocketDisconnectEventModel,
    APIGatewayWebSocketMessageEventModel,
)
from pydantic import BaseModel, ConfigDict, Field, StrictInt

__all__ = [
    "APIGatewayWebSocketDisconnectEventModel",
    "APIGatewayWebSocketMessageEventModel",
    "ConnectEvent",
    "TimerEvent",
]


class ConnectEvent(APIGatewayWebSocketConnectEventModel):
    """`$connect`: Powertools' model plus `?room=&token=`."""

    query_string_parameters: dict[str, str] | None = Field(None, alias="queryStringParameters")


class TimerEvent(BaseModel):
    """A phase timeout: the room, the phase seq it ends, and the second it was scheduled for."""

    model_config = ConfigDict(frozen=True)
    room: str
    phase: StrictInt
    at: int | None = None
