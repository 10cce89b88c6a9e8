"""REST API (API Gateway REST API v1 proxy events): create rooms, join them, read a summary."""

from __future__ import annotations

import os
from typing import Annotated

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, CORSConfig, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.logging import correlation_paths

from service import config
from service.errors import ServiceError
from service.models import CreateRoom, JoinRoom, RoomCreated, RoomSummary, SeatCreated
from service.telemetry import logger, metrics, tracer


def _cors() -> CORSConfig:
    origins = [o.strip() for o in os.environ.get("ALLOWED_ORIGINS", "*").split(",") if o.strip()] or ["*"]
    return CORSConfig(allow_origin=origins[0], extra_origins=origins[1:], max_age=600)


app = APIGatewayRestResolver(enable_validation=True, cors=_cors())

RoomCodePath = Annotated[str, Path(pattern=r"^[A-Za-z0-9]{4,8}$", description="room code")]


def _error(status: int, code: str, message: str) -> Response:
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body={"error": {"code": code, "message": message}},
    )


@app.exception_handler(ServiceError)
def _service_error(exc: ServiceError) -> Response:
    return _error(exc.status, exc.code, exc.message)


@app.exception_handler(RequestValidationError)
def _validation_error(exc: RequestValidationError) -> Response:
    first = (exc.errors() or [{}])[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    return _error(400, "bad_request", f"{where}: {first.get('msg', 'invalid request')}")


@app.not_found
def _not_found(exc: NotFoundError) -> Response:
    return _error(404, "not_found", "no such route")


@app.post("/rooms", status_code=201, responses={201: {"description": "room created"}})
def create_room(body: Annotated[CreateRoom, Body()]) -> RoomCreated:
    """Create a room; the creator is the host and player p1."""
    out = config.service().create_room(body.name, body.preset, body.options, lang=body.lang)
    logger.append_keys(room=out["roomCode"], player=out["playerId"])
    return RoomCreated(**out)


@app.post("/rooms/<roomCode>/players", status_code=201)
def join_room(roomCode: RoomCodePath, body: Annotated[JoinRoom, Body()]) -> SeatCreated:  # noqa: N803
    """Take a seat in a room's lobby."""
    logger.append_keys(room=roomCode.upper())
    out = config.service().join_room(roomCode, body.name)
    logger.append_keys(player=out["playerId"])
    return SeatCreated(**out)


@app.get("/rooms/<roomCode>")
def get_room(roomCode: RoomCodePath) -> RoomSummary:  # noqa: N803
    """The public lobby summary: no tokens, no roles."""
    logger.append_keys(room=roomCode.upper())
    return RoomSummary(**config.service().summary(roomCode))


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict, context: object) -> dict:
    return app.resolve(event, context)


def openapi_json() -> str:
    """The OpenAPI document of this API (written to docs/openapi.json)."""
    return app.get_openapi_json_schema(title="Mafia rooms API", version="1.0.0")


if __name__ == "__main__":  # PYTHONPATH=functions:layers/engine python -m handlers.rest > docs/openapi.json
    print(openapi_json())
