"""Target of the EventBridge Scheduler one-shot schedules: `{"room", "phase", "at"}`."""

from __future__ import annotations

from aws_lambda_powertools.utilities.parser import parse
from pydantic import BaseModel, ConfigDict, ValidationError

from handlers.wiring import room_service
from service.infra.telemetry import logger, metrics, tracer


class TimerEvent(BaseModel):
    """A phase timeout (the Scheduler target `Input` `service.infra.timers` writes): the room, the
    phase seq it ends, and the second it was scheduled for. Strict: `"3"` is not a phase."""

    model_config = ConfigDict(strict=True, frozen=True)

    room: str
    phase: int
    at: int | None = None


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict, context: object) -> dict:
    try:
        timer = parse(event=event, model=TimerEvent)
    except ValidationError:
        logger.warning("malformed timer event")
        return {"outcome": "malformed"}
    room = timer.room.upper()
    # Duplicate deliveries of one timeout (at-least-once) share this id.
    logger.set_correlation_id(f"{room}#{timer.phase}")
    logger.append_keys(room=room)
    return {"outcome": room_service.timeout(room, timer.phase, timer.at)}
