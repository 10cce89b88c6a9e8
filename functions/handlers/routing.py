"""A small router for API Gateway REST (v1 proxy) events: routes, strict JSON bodies, CORS, errors.

Powertools' `APIGatewayRestResolver` does this with pydantic-based OpenAPI validation, but its
package imports every resolver it has plus pydantic: about 0.8x a cold `import boto3` before our
first line runs, which kept the REST cold start at twice `import boto3` (issue 15 §5). Here
each route declares its path parameters (with patterns), its body Struct and its answer Struct;
a request is checked against them in this order, each step with its own code:

- no route for the path: 404 `not_found`; a path with no such method: 405 `method_not_allowed`;
  `OPTIONS` on any path: the CORS preflight (204);
- a path parameter not matching its pattern: 400 `bad_request`;
- a body that is not JSON (any other content type, e.g. a cross-site form): 415
  `unsupported_media_type`; not UTF-8 or holding lone surrogates: 400 `bad_unicode`; not strict
  JSON (NaN, 1e999, nested too deep): 400 `bad_json`;
- not matching the body Struct (strict types, unknown fields refused): 400 `bad_request`, or the
  code the Struct raises itself (`bad_name`);
- a ServiceError from the route: its code and status.

Every error answer is `{"error": {"code", "message"}}` with the message `tidy`-ed (a short
prefix of any input). The same declarations give `docs/openapi.json` (`handlers/openapi.py`).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import msgspec

from service import wire
from service.errors import ServiceError, frame_refusal
from service.models import Error, ErrorAnswer
from service.quoting import tidy
from service.telemetry import count, logger

JSON = "application/json"
# What browsers may send cross-origin (Powertools' default list, for the same preflight answers).
ALLOW_HEADERS = "Authorization,Content-Type,X-Amz-Date,X-Amz-Security-Token,X-Api-Key"
UNSUPPORTED = ServiceError(
    "unsupported_media_type", "request bodies are JSON (Content-Type: application/json)", 415
)
_ENCODER = msgspec.json.Encoder()


@dataclass(frozen=True)
class PathParam:
    """A path parameter: the pattern it must match, and what it is (for the OpenAPI document)."""

    pattern: str
    description: str
    refusal: str  # the message a value not matching the pattern gets


@dataclass(frozen=True)
class Route:
    """One operation: `METHOD /path/{param}` → `call(*params, body)` → `answer` with `status`."""

    method: str
    template: str
    call: Callable[..., Any]
    answer: type
    status: int = 200
    body: type | None = None
    params: Mapping[str, PathParam] = field(default_factory=dict)  # checks of the path's {params}
    errors: tuple[int, ...] = ()  # the error statuses it may answer (OpenAPI)
    outcome: str = ""  # what the success answer means (OpenAPI)

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(self.template)) + "/?$")


@dataclass
class Cors:
    """Access-Control headers for allowed origins (`*` allows any), as Powertools' CORSConfig."""

    origins: list[str]
    max_age: int = 600

    def headers(self, origin: str | None) -> dict[str, str]:
        if not origin or (origin not in self.origins and "*" not in self.origins):
            return {}
        allowed = origin if origin in self.origins else "*"
        return {
            "Access-Control-Allow-Origin": allowed,
            "Access-Control-Allow-Headers": ALLOW_HEADERS,
            "Access-Control-Max-Age": str(self.max_age),
        }


def _answer(status: int, body: Any, headers: dict[str, str]) -> dict:
    """An API Gateway proxy answer with a JSON body (none for None)."""
    out = {"statusCode": status, "headers": dict(headers), "isBase64Encoded": False, "body": ""}
    if body is not None:
        out["headers"]["Content-Type"] = JSON
        out["body"] = _ENCODER.encode(body).decode()
    return out


def error_answer(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> dict:
    """Every REST error answer: the message quotes at most a short prefix of any input."""
    return _answer(status, ErrorAnswer(Error(code, tidy(message))), headers or {})


def _headers(event: Mapping[str, Any]) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in (event.get("headers") or {}).items()}


def _body_text(event: Mapping[str, Any], headers: Mapping[str, str]) -> bytes | str | None:
    """The raw body, after the content-type check (JSON only) and base64 decoding."""
    raw = event.get("body")
    if raw is None or raw == "":
        return None
    media = (headers.get("content-type") or JSON).split(";")[0].strip().lower()
    if media != JSON:
        raise UNSUPPORTED
    if event.get("isBase64Encoded"):
        try:
            return base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ServiceError("bad_json", "the body is not valid base64") from exc
    return raw


class Router:
    """The routes of one REST API and how an event reaches them."""

    def __init__(
        self, routes: Sequence[Route], cors: Cors, refusals: Mapping[str, tuple[str, str]] | None = None
    ) -> None:
        self.routes = tuple(routes)
        self.cors = cors
        self.refusals = dict(refusals or {})  # body field -> (code, message) for any error on it

    @property
    def methods(self) -> str:
        return ",".join(sorted({r.method for r in self.routes} | {"OPTIONS"}))

    def _allowed(self, event: Mapping[str, Any]) -> str:
        """The methods the event's path answers (for a 405)."""
        path = str(event.get("path") or "/")
        return ", ".join(sorted({r.method for r in self.routes if r.regex.match(path)}))

    def resolve(self, event: Mapping[str, Any]) -> dict:
        """The proxy answer for one event; a ServiceError becomes its error answer."""
        headers = _headers(event)
        cors = self.cors.headers(headers.get("origin"))
        try:
            return self._dispatch(event, headers, cors)
        except ServiceError as exc:
            allow = {"Allow": self._allowed(event)} if exc.status == 405 else {}
            return error_answer(exc.status, exc.code, exc.message, {**cors, **allow})
        except Exception:  # a bug: logged with its stack, counted, answered without details
            logger.exception("unhandled error in a REST route")
            count("InternalErrors")
            return error_answer(500, "internal_error", "something went wrong on our side", cors)

    def _dispatch(self, event: Mapping[str, Any], headers: Mapping[str, str], cors: dict[str, str]) -> dict:
        method = str(event.get("httpMethod") or "").upper()
        path = str(event.get("path") or "/")
        if method == "OPTIONS":
            return _answer(204, None, {**cors, "Access-Control-Allow-Methods": self.methods} if cors else {})
        matches = [(r, m) for r in self.routes if (m := r.regex.match(path))]
        if not matches:
            raise ServiceError("not_found", "no such route", 404)
        found = next(((r, m) for r, m in matches if r.method == method), None)
        if found is None:
            raise ServiceError("method_not_allowed", f"this path answers {self._allowed(event)}", 405)
        route, match = found
        args: list[Any] = list(match.groups())  # the path's parameters, in the template's order
        for name, param in route.params.items():
            if not re.fullmatch(param.pattern, match[name]):
                raise ServiceError("bad_request", f"{name}: {param.refusal}")
        raw = _body_text(event, headers)
        if route.body is not None:
            if raw is None:
                raise ServiceError("bad_request", "body: a JSON object is required")
            value = wire.loads(raw, "bad_json")
            if not isinstance(value, dict):
                raise ServiceError("bad_request", "body: a JSON object is required")
            try:
                args.append(msgspec.convert(value, route.body, strict=True))
            except msgspec.ValidationError as exc:
                raise frame_refusal(exc, self.refusals, code="bad_request", root="body") from exc
        answer = msgspec.convert(route.call(*args), route.answer)
        return _answer(route.status, answer, cors)
