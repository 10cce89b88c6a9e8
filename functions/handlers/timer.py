"""Target of the EventBridge Scheduler one-shot schedules: `{"room", "phase", "at"}`."""

from __future__ import annotations

from service import config
from service.telemetry import logger, metrics, tracer


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict, context: object) -> dict:
    room, phase = event.get("room"), event.get("phase")
    if not isinstance(room, str) or not isinstance(phase, int):
        logger.warning("malformed timer event")
        return {"outcome": "malformed"}
    logger.append_keys(room=room.upper())
    return {"outcome": config.service().timeout(room, phase, event.get("at"))}
