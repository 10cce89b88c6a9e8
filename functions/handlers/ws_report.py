"""WebSocket route `report`: a player reports a seat or chat lines (frames with action "report").

Its own route and function, so its IAM policy can allow writing report items only.
"""

from __future__ import annotations

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.parser import event_parser

from handlers.wiring import room_service
from handlers.ws_events import MessageEvent, frame
from service.features import reports
from service.infra.telemetry import logger, metrics, tracer


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
@event_parser(model=MessageEvent)
def handler(event: MessageEvent, context: object) -> dict:
    conn_id = event.request_context.connection_id
    logger.append_keys(connection=conn_id)
    reports.submit(room_service.store, room_service.gateway, conn_id, frame(event))
    return {"statusCode": 200}
