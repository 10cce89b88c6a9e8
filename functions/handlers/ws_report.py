"""WebSocket route `report`: a player reports a seat or chat lines (frames with action "report").

Its own route and function, so its IAM policy can allow writing report items only.
"""

from __future__ import annotations

import base64

from service import config, reports
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
    svc = config.service()
    reports.submit(svc.store, svc.gateway, conn_id, body)
    return {"statusCode": 200}
