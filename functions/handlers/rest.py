"""REST API (API Gateway REST API v1 proxy events): create rooms, join them, read a summary."""

from __future__ import annotations

import os
from typing import Annotated

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, CORSConfig, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import (
    RequestUnsupportedContentType,
    RequestValidationError,
)
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.logging import correlation_paths

from service import config, wire
from service.errors import ServiceError, clip
from service.models import CreateRoom, JoinRoom, RoomCreated, RoomSummary, SeatCreated
from service.names import BAD_NAME
from service.quoting import prefix, tidy
from service.roomcode import ROOM_CODE_PATTERN
from service.telemetry import logger, metrics, tracer


def _cors() -> CORSConfig:
    origins = [o.strip() for o in os.environ.get("ALLOWED_ORIGINS", "*").split(",") if o.strip()] or ["*"]
    return CORSConfig(allow_origin=origins[0], extra_origins=origins[1:], max_age=600)


def _strict_json(text: str) -> object:
    """Request bodies are strict JSON (no NaN, 1e999, lone surrogates or deep nesting)."""
    return wire.loads(text, "bad_json")


app = APIGatewayRestResolver(enable_validation=True, cors=_cors(), json_body_deserializer=_strict_json)

RoomCodePath = Annotated[str, Path(pattern=ROOM_CODE_PATTERN, description="room code")]
UNSUPPORTED = ServiceError(
    "unsupported_media_type", "request bodies are JSON (Content-Type: application/json)", 415
)


def _not_json(app: APIGatewayRestResolver) -> bool:
    """A body sent as anything but JSON (a cross-site form posts multipart or urlencoded)."""
    event = app.current_event
    if not event.body:
        return False
    media = (event.headers.get("content-type") or "application/json").split(";")[0].strip().lower()
    return media != "application/json"


def _json_only(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response:
    if _not_json(app):
        raise UNSUPPORTED
    return next_middleware(app)


app.use([_json_only])  # runs after Powertools' body validation, before every route


def _error(status: int, code: str, message: str) -> Response:
    """Every REST error answer: the message quotes at most a short prefix of any input."""
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body={"error": {"code": code, "message": tidy(message)}},
    )


@app.exception_handler(ServiceError)
def _service_error(exc: ServiceError) -> Response:
    return _error(exc.status, exc.code, exc.message)


@app.exception_handler(UnicodeDecodeError)
def _not_utf8(exc: UnicodeDecodeError) -> Response:
    # Powertools decodes a base64 body as UTF-8 before any route runs
    if _not_json(app):
        return _service_error(UNSUPPORTED)
    return _error(400, wire.BAD_UNICODE, "the body is not valid UTF-8")


@app.exception_handler(RequestUnsupportedContentType)
def _unsupported(exc: RequestUnsupportedContentType) -> Response:
    return _service_error(UNSUPPORTED)


@app.exception_handler(RequestValidationError)
def _validation_error(exc: RequestValidationError) -> Response:
    if _not_json(app):  # a form body failed validation before our middleware could look at it
        return _service_error(UNSUPPORTED)
    first = (exc.errors() or [{}])[0]
    code = BAD_NAME if first.get("type") == BAD_NAME else "bad_request"
    where = ".".join(prefix(str(p)) for p in first.get("loc", ()) if p != "body") or "body"  # keys are input
    return _error(400, code, clip(f"{where}: {first.get('msg', 'invalid request')}"))


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
