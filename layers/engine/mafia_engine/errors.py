"""The one exception the engine raises for refused input, and how its messages quote input."""

from __future__ import annotations

from typing import Any

QUOTE_CHARS = 32  # how much of a client's input a message may quote


def quoted(value: Any, limit: int = QUOTE_CHARS) -> str:
    """Client input for a message: a string as ``'abc…'`` (at most ``limit`` characters of it,
    non-printable ones escaped as ``repr`` does, so no lone surrogate reaches a message);
    a number, true/false or null as itself; anything else by its kind. Never unbounded,
    never recursive (a deeply nested list is "a list", not its repr)."""
    if isinstance(value, str):
        body = repr(value[: limit + 1])[1:-1]  # escapes shown, quotes off
        cut = len(value) > limit or len(body) > limit
        return "'" + body[:limit] + ("…" if cut else "") + "'"
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    if isinstance(value, int):
        return str(value) if value.bit_length() <= 64 else "a very large integer"
    if isinstance(value, float):
        return repr(value)
    return kind_of(value)


def kind_of(value: Any) -> str:
    """A JSON value's kind, for messages: "a string", "an integer", "a list", ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


class InvalidAction(ValueError):
    """A refused action, option set or state.

    ``code`` is a short stable machine string (see docs/protocol.md, "Engine error codes");
    the message names what was wrong (quoting client input through ``quoted``). The state
    given to the call is never changed.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"InvalidAction({self.code!r}, {self.message!r})"
