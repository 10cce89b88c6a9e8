"""The one exception the engine raises for refused input."""

from __future__ import annotations


class InvalidAction(ValueError):
    """A refused action, option set or state.

    ``code`` is a short stable machine string (see docs/protocol.md, "Engine error codes");
    the message names what was wrong. The state given to the call is never changed.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"InvalidAction({self.code!r}, {self.message!r})"
