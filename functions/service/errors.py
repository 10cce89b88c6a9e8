"""The one error type the service raises; handlers map it to HTTP answers or error frames."""

from __future__ import annotations


class ServiceError(Exception):
    """A refused request: a short machine `code`, a human `message` and an HTTP `status`."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}
