"""WebSocket `$default`: every client frame (room operations and engine actions)."""

from __future__ import annotations

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.parser import event_parser

import service.protocol.frames  # noqa: F401 - every frame is validated by it: load it at init
from handlers.wiring import room_service
from handlers.ws_events import MessageEvent, frame, source_ip
from service.infra.telemetry import logger, metrics, tracer


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
@event_parser(model=MessageEvent)
def handler(event: MessageEvent, context: object) -> dict:
    conn_id = event.request_context.connection_id
    logger.append_keys(connection=conn_id)
    # the sender's address (a WebSocket goes to API Gateway directly: its own, not an edge's):
    # a substitute's request is checked against the seats' (service/room/substitutes.py)
    room_service.handle_message(conn_id, frame(event), ip=source_ip(event))
    return {"statusCode": 200}
