"""The one error type the service raises; handlers map it to HTTP answers or error frames."""

from __future__ import annotations

from typing import Any

QUOTE_CHARS = 40  # how much of a user's input a message may quote
MESSAGE_CHARS = 300  # and how long a message may get in all (engine messages quote input too)


def quote(value: Any, limit: int = QUOTE_CHARS) -> str:
    """`repr(value)` cut to a short prefix: messages never echo user input unbounded."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > limit:
        text = text[:limit] + "…"
    return repr(text) if isinstance(value, str) else text


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

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


def frame_refusal(exc: Any, skip: int = 0, own_codes: tuple[str, ...] = ()) -> ServiceError:
    """`bad_frame` naming the first problem of a pydantic ValidationError (its location less
    `skip` leading parts, e.g. a union's tag); an error type in `own_codes` keeps its code."""
    first = exc.errors()[0]
    kind = first.get("type")
    if kind in own_codes:
        return ServiceError(kind, first["msg"])
    if kind == "frame":
        return ServiceError("bad_frame", first["msg"])
    where = ".".join(str(p) for p in first.get("loc", ())[skip:]) or "frame"
    return ServiceError("bad_frame", f"{where}: {first.get('msg')}")
