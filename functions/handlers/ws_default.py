"""WebSocket `$default`: every client frame (room operations and engine actions)."""

from __future__ import annotations

import base64

from service import config
from service.telemetry import logger, metrics, tracer


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict, context: object) -> dict:
    conn_id = (event.get("requestContext") or {})["connectionId"]
    body = event.get("body")
    if event.get("isBase64Encoded") and body:
        body = base64.b64decode(body)
    logger.append_keys(connection=conn_id)
    config.service().handle_message(conn_id, body)
    return {"statusCode": 200}
