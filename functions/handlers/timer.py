"""Target of the EventBridge Scheduler one-shot schedules: `{"room", "phase", "at"}`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictInt, ValidationError

from service import config
from service.telemetry import logger, metrics, tracer


class TimerEvent(BaseModel):
    """A phase timeout (the Scheduler target `Input` `service.timers` writes): the room, the
    phase seq it ends, and the second it was scheduled for."""

    model_config = ConfigDict(frozen=True)
    room: str
    phase: StrictInt
    at: int | None = None


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict, context: object) -> dict:
    try:
        timer = TimerEvent.model_validate(event)
    except ValidationError:
        logger.warning("malformed timer event")
        return {"outcome": "malformed"}
    room = timer.room.upper()
    # Duplicate deliveries of one timeout (at-least-once) share this id.
    logger.set_correlation_id(f"{room}#{timer.phase}")
    logger.append_keys(room=room)
    return {"outcome": config.service().timeout(room, timer.phase, timer.at)}
