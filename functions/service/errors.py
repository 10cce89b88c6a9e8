"""The one error type the service raises; handlers map it to HTTP answers or error frames."""

from __future__ import annotations

import re
from collections.abc import Mapping
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


_UNKNOWN_FIELD = "Object contains unknown field `"
_BAD_ENUM = "Invalid enum value "
_MISSING = "Object missing required field `"
_WHERE = re.compile(r"^(?P<what>.*) - at `\$\.?(?P<where>[^`]*)`$", re.DOTALL)


def frame_refusal(
    exc: Any,
    refusals: Mapping[str, tuple[str, str]] | None = None,
    *,
    code: str = "bad_frame",
    root: str = "frame",
) -> ServiceError:
    """`code` naming the problem of a msgspec ValidationError, short and without echoing input
    beyond a `quote`d prefix (`root` names the whole value); `refusals` maps a field to the
    (code, message) any error on it gets instead (e.g. `{"name": ("bad_name", "a name is a string")}`)."""
    text = str(exc)
    if text.startswith(_UNKNOWN_FIELD):  # the only message naming a key the client chose
        return ServiceError(code, f"unknown field {quote(text[len(_UNKNOWN_FIELD) : -1])}")
    found = _WHERE.match(text)
    what, where = (found["what"], found["where"]) if found else (text, "")
    if refusals and where in refusals:
        return ServiceError(*refusals[where])
    if what.startswith(_BAD_ENUM):  # msgspec quotes the value: quote a prefix of it ourselves
        what = f"invalid value {quote(what[len(_BAD_ENUM) :].strip(chr(39)))}"
    elif what.startswith(_MISSING):
        what = f"missing required field {what[len(_MISSING) : -1]!r}"
    what = what.replace("`", "")
    return ServiceError(code, f"{where or root}: {what[:1].lower()}{what[1:]}")
