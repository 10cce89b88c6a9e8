"""The one error type the service raises; handlers map it to HTTP answers or error frames."""

from __future__ import annotations

from typing import Any

from mafia_engine.errors import quoted

QUOTE_CHARS = 40  # how much of a user's input a message may quote
MESSAGE_CHARS = 300  # and how long a message may get in all (engine messages quote input too)


def quote(value: Any, limit: int = QUOTE_CHARS) -> str:
    """Client input for a message, as the engine quotes it (`mafia_engine.errors.quoted`): a
    short prefix of a string, a number as itself, anything else by its kind; never unbounded."""
    return quoted(value, limit)


def clip(message: str, limit: int = MESSAGE_CHARS) -> str:
    """A message cut to `limit` characters (with "…" when cut)."""
    return message if len(message) <= limit else message[: limit - 1] + "…"


class ServiceError(Exception):
    """A refused request: a short machine `code`, a human `message` and an HTTP `status`."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        message = clip(str(message))
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        # the client's frame `id` a WebSocket refusal echoes, when the frame had a valid one
        self.frame_id: Any = None

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}
