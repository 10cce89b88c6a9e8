"""WebSocket `$disconnect` (best effort on AWS): forget the connection, feed presence."""

from __future__ import annotations

from service import config
from service.telemetry import logger, metrics, tracer


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict, context: object) -> dict:
    conn_id = (event.get("requestContext") or {})["connectionId"]
    logger.append_keys(connection=conn_id)
    config.service().disconnect(conn_id)
    return {"statusCode": 200}
