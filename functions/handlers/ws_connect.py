"""WebSocket `$connect`: room code + token -> player, no token -> spectator, display key -> a
screen (service/room/displays.py); else refused."""

from __future__ import annotations

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.parser import event_parser

from handlers.wiring import room_service
from handlers.ws_events import ConnectEvent, source_ip
from service.infra.errors import ServiceError
from service.infra.telemetry import logger, metrics, tracer
from service.protocol import patches
from service.protocol.roomcode import room_code_shaped


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
@event_parser(model=ConnectEvent)
def handler(event: ConnectEvent, context: object) -> dict:
    query = event.query_string_parameters or {}
    headers = {k.lower(): v for k, v in event.headers.items()}
    room = query.get("room")
    conn_id = event.request_context.connection_id
    # a room that is not room-code shaped is refused unread and never logged (nor is a token)
    logger.append_keys(room=room.upper() if room_code_shaped(room) else None, connection=conn_id)
    try:
        player = room_service.connect(
            conn_id,
            room,
            query.get("token"),
            headers.get("origin"),
            patches=patches.wanted(query),
            device=query.get("device"),
            display=query.get("display"),
            ip=source_ip(event),  # the socket's own address (no edge between)
        )
    except ServiceError as exc:
        logger.info("connect refused", extra={"code": exc.code})
        return {"statusCode": exc.status, "body": exc.code}
    logger.append_keys(player=player or "spectator")
    return {"statusCode": 200}
