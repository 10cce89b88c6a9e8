"""REST API (API Gateway REST API v1 proxy events): create rooms, join them, read a summary.

The routes are declared once (`ROUTES`): `handlers/routing.py` checks each request
against them, and `handlers/openapi.py` writes `docs/openapi.json` from the same declarations.
"""

from __future__ import annotations

import os

from aws_lambda_powertools.logging import correlation_paths

from service import config
from service.models import CreateRoom, JoinRoom, RoomCreated, RoomSummary, SeatCreated
from service.names import BAD_NAME
from service.roomcode import ROOM_CODE_PATTERN
from service.telemetry import logger, metrics, tracer

from .routing import Cors, PathParam, Route, Router


def _cors() -> Cors:
    origins = [o.strip() for o in os.environ.get("ALLOWED_ORIGINS", "*").split(",") if o.strip()]
    return Cors(origins or ["*"])


ROOM_CODE = PathParam(ROOM_CODE_PATTERN, "room code", "a room code is 4 to 8 letters and digits")


def create_room(body: CreateRoom) -> dict:
    """Create a room; the creator is the host and player p1."""
    out = config.service().create_room(body.name, body.preset, body.options, lang=body.lang)
    logger.append_keys(room=out["roomCode"], player=out["playerId"])
    return out


def join_room(room_code: str, body: JoinRoom) -> dict:
    """Take a seat in a room's lobby."""
    logger.append_keys(room=room_code.upper())
    out = config.service().join_room(room_code, body.name)
    logger.append_keys(player=out["playerId"])
    return out


def get_room(room_code: str) -> dict:
    """The public lobby summary: no tokens, no roles."""
    logger.append_keys(room=room_code.upper())
    return config.service().summary(room_code)


ROUTES = (
    Route("POST", "/rooms", create_room, RoomCreated, 201, CreateRoom, errors=(400, 415, 503), outcome="room created"),
    Route(
        "POST", "/rooms/{roomCode}/players", join_room, SeatCreated, 201, JoinRoom,
        params={"roomCode": ROOM_CODE}, errors=(400, 404, 409, 415, 503), outcome="seat taken",
    ),
    Route("GET", "/rooms/{roomCode}", get_room, RoomSummary, params={"roomCode": ROOM_CODE}, errors=(400, 404)),
)  # fmt: skip
router = Router(ROUTES, _cors(), refusals={"name": (BAD_NAME, "name: a name is a string")})


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict, context: object) -> dict:
    return router.resolve(event)
