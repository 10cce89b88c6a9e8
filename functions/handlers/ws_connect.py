"""WebSocket `$connect`: room code + token -> player, no token -> spectator; else refused."""

from __future__ import annotations

from service import config
from service.errors import ServiceError
from service.telemetry import logger, metrics, tracer


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict, context: object) -> dict:
    ctx = event.get("requestContext") or {}
    query = event.get("queryStringParameters") or {}
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    room = query.get("room")
    logger.append_keys(room=(room or "").upper(), connection=ctx.get("connectionId"))
    try:
        player = config.service().connect(
            ctx["connectionId"], room, query.get("token"), headers.get("origin")
        )
    except ServiceError as exc:
        logger.info("connect refused", extra={"code": exc.code})
        return {"statusCode": exc.status, "body": exc.code}
    logger.append_keys(player=player or "spectator")
    return {"statusCode": 200}
