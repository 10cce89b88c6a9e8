"""REST API (API Gateway REST API v1 proxy events): create rooms, join them, read a summary.

Powertools' `APIGatewayRestResolver` with `enable_validation=True` routes each request, checks
its path parameters and body against the pydantic models of `service/protocol/models.py` and serializes
the answer through its model; `scripts/openapi.py` writes `docs/openapi.json` from the same
resolver. What we add, each in one place below:

- bodies are strict JSON (`json_body_deserializer`: `service/protocol/wire.py`, the parser the socket
  uses, so REST and the socket refuse the same input with the same code: `bad_unicode`,
  `bad_json` for NaN, `1e999` or nesting too deep);
- JSON only: any other content type is 415 `unsupported_media_type`, a cross-site form
  included (Powertools would parse urlencoded and multipart forms into the body model);
- only CloudFront may call (`through_cloudfront`): the site's distribution adds a secret origin
  header (`X-Mafia-Origin`, its value from Secrets Manager: template.yaml `OriginSecret`) to
  every request it sends to the REST origin; a request without it (the `execute-api` URL
  called directly, around CloudFront and its budgets) is 403 `forbidden`. Behind it,
  `CloudFront-Viewer-Address` (set by CloudFront, never the viewer's own) names the player
  whose address budget a create or quick play spends (`viewer_ip`);
- every error answer is `{"error": {"code", "message"}}` (`@app.exception_handler`s): the
  resolver's 422 for a body or path that fails validation becomes our 400 (`bad_request`, or
  the code a model raised: `bad_name`), its 404 for a known path with another method our 405.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import re
from functools import cache
from http import HTTPStatus
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, CORSConfig, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.exceptions import (
    RequestUnsupportedContentType,
    RequestValidationError,
)
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.logging import correlation_paths

from handlers.wiring import room_service
from mafia_engine.presets import PRESETS
from service.identity.account import Account
from service.identity.models import AccountInfo, Ceremony, CeremonyOptions, Done, SignedIn
from service.identity.sessions import bearer
from service.infra import clock
from service.infra.errors import ServiceError, quote
from service.infra.telemetry import count, logger, metrics, tracer
from service.protocol import wire
from service.protocol.models import (
    CreateRoom,
    Error,
    ErrorAnswer,
    JoinRoom,
    Ladder,
    PersonPage,
    PublicRooms,
    QuickPlay,
    RoomCreated,
    RoomSummary,
    SeatCreated,
    SeatFate,
)
from service.protocol.quoting import tidy
from service.protocol.roomcode import ROOM_CODE_PATTERN
from service.ranked.ladder import PAGE_MAX as LADDER_MAX
from service.ranked.ladder import PAGE_SIZE as LADDER_PAGE
from service.room.public import PAGE_MAX, PAGE_SIZE

UNSUPPORTED = ServiceError(
    "unsupported_media_type", "request bodies are JSON (Content-Type: application/json)", 415
)
# A refusal a body model raises itself (`PydanticCustomError` types in service/protocol/models.py) keeps its code.
MODEL_CODES = frozenset({"bad_name", "bad_request"})
# What a value not matching a path parameter's pattern is told (the parameter's own words).
PATH_REFUSALS = {
    "roomCode": "a room code is 4 to 8 letters and digits",
    "handle": "a handle is 16 hex digits",
}


# The header a page sends its seat's token in (`POST /rooms/{roomCode}/fate`): never in the URL
# (a path or query string reaches access logs and caches); nothing logs a request's headers.
TOKEN_HEADER = "X-Mafia-Token"


def _cors() -> CORSConfig:
    origins = [o.strip() for o in os.environ.get("ALLOWED_ORIGINS", "*").split(",") if o.strip()] or ["*"]
    return CORSConfig(
        allow_origin=origins[0], extra_origins=origins[1:], max_age=600, allow_headers=[TOKEN_HEADER]
    )


def _strict_json(text: str) -> Any:
    return wire.loads(text, "bad_json")


app = APIGatewayRestResolver(
    cors=_cors(),
    enable_validation=True,
    json_body_deserializer=_strict_json,
)

RoomCode = Annotated[str, Path(pattern=ROOM_CODE_PATTERN, description="room code")]


def _json(model: type, description: str) -> dict:
    return {"description": description, "content": {content_types.APPLICATION_JSON: {"model": model}}}


def _responses(status: int, answer: type, outcome: str, *errors: int) -> dict:
    """The OpenAPI responses of a route: its answer and the error statuses it may give."""
    every = {
        403,
        405,
        500,
    }  # not through CloudFront (`through_cloudfront`); another method on the path; a bug
    return {
        status: _json(answer, outcome),
        **{e: _json(ErrorAnswer, HTTPStatus(e).phrase) for e in sorted({*errors, *every})},
    }


def _created(body: Any) -> Response:
    return Response(status_code=201, content_type=content_types.APPLICATION_JSON, body=body)


@app.post(
    "/rooms",
    operation_id="create_room",
    description="Create a room; the creator is the host and player p1.",
    responses=_responses(201, RoomCreated, "room created", 400, 415, 429, 503),
)
def create_room(body: CreateRoom) -> Response[RoomCreated]:
    out = room_service.create_room(
        body.name,
        body.preset,
        body.options,
        lang=body.lang,
        device=body.device,
        ip=source_ip(),
        session=request_session(),
    )
    logger.append_keys(room=out["roomCode"], player=out["playerId"])
    return _created(out)


@app.post(
    "/rooms/<roomCode>/players",
    operation_id="join_room",
    description="Take a seat in a room's lobby.",
    responses=_responses(201, SeatCreated, "seat taken", 400, 404, 409, 415, 429, 503),
)
def join_room(roomCode: RoomCode, body: JoinRoom) -> Response[SeatCreated]:
    logger.append_keys(room=roomCode.upper())
    out = room_service.join_room(roomCode, body.name, body.device, ip=source_ip(), session=request_session())
    logger.append_keys(player=out["playerId"])
    return _created(out)


@app.get(
    "/rooms/<roomCode>",
    operation_id="get_room",
    description="The public lobby summary: no tokens, no roles.",
    responses=_responses(200, RoomSummary, "OK", 400, 404),
)
def get_room(roomCode: RoomCode) -> RoomSummary:
    logger.append_keys(room=roomCode.upper())
    return room_service.summary(roomCode)


def request_session() -> str | None:
    """The session the request presents (`Authorization: Session <token>`: identity/sessions.py),
    or None: signing in is optional but for a ranked room's seat."""
    return bearer(app.current_event.headers)


@app.post(
    "/rooms/<roomCode>/fate",
    operation_id="seat_fate",
    description="What became of the seat whose token is in the X-Mafia-Token header (a page whose "
    "reconnect is refused asks): held, handedOn, removed, left, unknown (a wrong token too) or "
    "gone (no such room). One key, the same for every answer; never a seat id or a name.",
    responses=_responses(200, SeatFate, "OK", 400, 429, 503),
)
def seat_fate(roomCode: RoomCode) -> SeatFate:
    logger.append_keys(room=roomCode.upper())  # never the token
    token = app.current_event.headers.get(TOKEN_HEADER.lower())
    return room_service.seat_fate(roomCode, token, ip=source_ip())


# The header CloudFront adds to every origin request of the REST behaviour (template.yaml,
# WebDistribution's `rest` origin), with the stack's secret; and the one it sets to the viewer's
# address and port (the origin request policy AllViewerExceptHostHeader forwards it).
ORIGIN_HEADER = "x-mafia-origin"
VIEWER_HEADER = "cloudfront-viewer-address"
# The public list's answer, identical for every viewer of a key (its query strings): shared
# caches may keep it this long (phones poll it every 5 s: docs/operations.md, "Capacity").
LIST_MAX_AGE = 5
LIST_CACHE = f"public, max-age={LIST_MAX_AGE}"
FORBIDDEN = ServiceError("forbidden", "this API answers through the site only", 403)


def viewer_address(value: str | None) -> str | None:
    """The address of `CloudFront-Viewer-Address` ("198.51.100.10:46532", an IPv6 address and
    its port "2001:db8::1:46532"); None for anything else."""
    host = (value or "").strip().rpartition(":")[0].strip("[]")
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return None


def source_ip() -> str | None:
    """The player's address (a budget's key: service/features/limits.py): the viewer CloudFront
    reports, never API Gateway's `sourceIp` (a CloudFront edge, shared by everyone behind it).
    Only read on a request `through_cloudfront` admitted. None (counted as `NoViewerAddress`:
    the origin request policy stopped forwarding it, and only the device budgets hold) when
    CloudFront sent none."""
    found = viewer_address(app.current_event.headers.get(VIEWER_HEADER))
    if found is None:
        logger.warning("no CloudFront-Viewer-Address on a request through CloudFront")
        count("NoViewerAddress")
    return found


@app.get(
    "/rooms",
    operation_id="list_public_rooms",
    description="One page of the public lobbies of a language (and preset), fullest first, or "
    "with watch=1 of its running public games: one Query of a sparse index. No tokens, no names.",
    responses=_responses(200, PublicRooms, "OK", 400, 429, 503),
)
def list_public_rooms(
    public: Annotated[str, Query(pattern="^1$", description="must be 1: the public list")],
    lang: Annotated[str, Query(pattern="^(en|ko|ru)$")] = "en",
    preset: Annotated[str | None, Query(pattern="^[a-z]{1,20}$")] = None,
    cursor: Annotated[str | None, Query(max_length=400, description="the last page's cursor")] = None,
    limit: Annotated[int, Query(ge=1, le=PAGE_MAX)] = PAGE_SIZE,
    watch: Annotated[
        str | None, Query(pattern="^1$", description="1: the running public games to watch (Watch now)")
    ] = None,
) -> Response[PublicRooms]:
    if preset is not None and preset not in PRESETS:
        raise ServiceError("bad_request", f"unknown preset {quote(preset)} (one of {', '.join(PRESETS)})")
    page = room_service.public_rooms(lang, preset, cursor, limit, watch=watch == "1", ip=source_ip())
    # the same page for every viewer: CloudFront keeps it for these seconds, one origin call per
    # key (template.yaml, PublicListCachePolicy); no other answer carries a Cache-Control
    return Response(status_code=200, content_type=content_types.APPLICATION_JSON, body=page,
                    headers={"Cache-Control": LIST_CACHE})  # fmt: skip


@app.post(
    "/quickplay",
    operation_id="quick_play",
    description="Play now: a seat in the fullest public lobby of the language (and preset), or a "
    "new public room; answers as a create does.",
    responses=_responses(201, RoomCreated, "seated", 400, 415, 429, 503),
)
def quick_play(body: QuickPlay) -> Response[RoomCreated]:
    out = room_service.quick_play(
        body.name,
        body.lang,
        body.preset,
        device=body.device,
        ip=source_ip(),
        party=body.party,
        session=request_session(),
        ranked=body.ranked,
    )
    logger.append_keys(room=out["roomCode"], player=out["playerId"])
    return _created(out)


# ---------------------------------------------------------------- account (passkeys)
# service/identity/account.py; docs/protocol.md, "Account". Every route reads the session from
# `Authorization: Session <token>` (none for the two ceremonies of a new person or a sign-in).
CredId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,1400}$", description="a passkey's id")]


def _account() -> Account:
    return Account(room_service.store, room_service.session_key, clock.now)


def _origin() -> str | None:
    return app.current_event.headers.get("origin")


@app.post(
    "/account/passkeys/options",
    operation_id="passkey_create_options",
    description="Options to create a passkey: a new person's, or (signed in) another of yours.",
    responses=_responses(200, CeremonyOptions, "OK", 400, 401, 415, 429, 503),
)
def passkey_create_options() -> CeremonyOptions:
    return _account().register_options(request_session(), _origin(), source_ip())


@app.post(
    "/account/passkeys",
    operation_id="passkey_create",
    description="The browser's new passkey: stored, and a session for its person.",
    responses=_responses(201, SignedIn, "passkey created", 400, 401, 415, 503),
)
def passkey_create(body: Ceremony) -> Response[SignedIn]:
    return _created(_account().register(body.challengeId, body.credential, request_session(), _origin()))


@app.post(
    "/account/session/options",
    operation_id="sign_in_options",
    description="Options to sign in with a passkey (any of the site's: the browser offers them).",
    responses=_responses(200, CeremonyOptions, "OK", 400, 415, 429, 503),
)
def sign_in_options() -> CeremonyOptions:
    return _account().signin_options(_origin(), source_ip())


@app.post(
    "/account/session",
    operation_id="sign_in",
    description="The browser's passkey assertion: a session for its person (403 banned).",
    responses=_responses(201, SignedIn, "signed in", 400, 401, 403, 415, 503),
)
def sign_in(body: Ceremony) -> Response[SignedIn]:
    return _created(_account().signin(body.challengeId, body.credential, _origin()))


@app.delete(
    "/account/session",
    operation_id="sign_out",
    description="Sign out: the session is revoked.",
    responses=_responses(200, Done, "signed out", 503),
)
def sign_out() -> Done:
    _account().signout(request_session())
    return {"ok": True}


@app.get(
    "/account",
    operation_id="get_account",
    description="Your account: its id, finished casual games, passkeys.",
    responses=_responses(200, AccountInfo, "OK", 401, 403, 503),
)
def get_account() -> AccountInfo:
    return _account().me(request_session())


@app.delete(
    "/account",
    operation_id="delete_account",
    description="Delete me: the person, every passkey and everything kept of them (ratings).",
    responses=_responses(200, Done, "deleted", 401, 403, 503),
)
def delete_account() -> Done:
    _account().delete_me(request_session())
    return {"ok": True}


@app.delete(
    "/account/passkeys/<credId>",
    operation_id="delete_passkey",
    description="Delete one of your passkeys (not the last: delete the account instead).",
    responses=_responses(200, AccountInfo, "deleted", 400, 401, 403, 404, 409, 503),
)
def delete_passkey(credId: CredId) -> AccountInfo:
    return _account().delete_passkey(request_session(), credId)


# ---------------------------------------------------------------- ranked play (service/ranked/)
@app.get(
    "/ladder",
    operation_id="ladder",
    description="One page of a season's ladder in a language, most points first: one Query of a "
    "sparse index. Handles only (never a person id).",
    responses=_responses(200, Ladder, "OK", 400, 503),
)
def ladder(
    lang: Annotated[str, Query(pattern="^(en|ko|ru)$")] = "en",
    season: Annotated[
        str | None, Query(pattern=r"^\d{4}-\d{2}$", description="a month (UTC); default: now")
    ] = None,
    cursor: Annotated[str | None, Query(max_length=400, description="the last page's cursor")] = None,
    limit: Annotated[int, Query(ge=1, le=LADDER_MAX)] = LADDER_PAGE,
) -> Ladder:
    return room_service.ladder(lang, season, limit, cursor)


@app.get(
    "/people/<handle>",
    operation_id="person_page",
    description="A person's page: their season standing in a language and their last ranked games "
    "(each with its room, for its review).",
    responses=_responses(200, PersonPage, "OK", 400, 503),
)
def person_page(
    handle: Annotated[str, Path(pattern="^[0-9a-f]{16}$")],
    lang: Annotated[str, Query(pattern="^(en|ko|ru)$")] = "en",
    season: Annotated[str | None, Query(pattern=r"^\d{4}-\d{2}$")] = None,
) -> PersonPage:
    return room_service.person_page(handle, lang, season)


# ---------------------------------------------------------------- every error, one shape
def error_answer(
    status: int,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    retry_after: int | None = None,
) -> Response:
    """Every REST error answer: the message quotes at most a short prefix of any input."""
    error = Error(code=code, message=tidy(message), retryAfter=retry_after)
    body = ErrorAnswer(error=error).model_dump(exclude_none=True)
    if retry_after is not None:
        headers = {**(headers or {}), "Retry-After": str(retry_after)}
    return Response(
        status_code=status, content_type=content_types.APPLICATION_JSON, body=body, headers=headers
    )


def _is_json(headers: Any) -> bool:
    """A body may be JSON only: `application/json`, parameters (`; charset=utf-8`) allowed;
    no content type reads as JSON (as API Gateway's own default)."""
    media = (headers.get("content-type") or content_types.APPLICATION_JSON).split(";")[0].strip().lower()
    return media == content_types.APPLICATION_JSON


def json_bodies_only(app: APIGatewayRestResolver, next_middleware: Any) -> Response:
    """415 for a body that is not JSON, before the route runs (a form that validated included)."""
    if app.current_event.body and not _is_json(app.current_event.headers):
        raise UNSUPPORTED
    return next_middleware(app)


def through_cloudfront(app: APIGatewayRestResolver, next_middleware: Any) -> Response:
    """403 `forbidden` unless the request carries the origin secret CloudFront adds
    (`MAFIA_ORIGIN_SECRET`; none configured refuses every request), compared in constant time."""
    secret = os.environ.get("MAFIA_ORIGIN_SECRET", "").encode()
    sent = (app.current_event.headers.get(ORIGIN_HEADER) or "").encode()
    if not secret or not hmac.compare_digest(sent, secret):
        raise FORBIDDEN
    return next_middleware(app)


app.use(middlewares=[through_cloudfront, json_bodies_only])


@app.exception_handler(ServiceError)
def service_error(exc: ServiceError) -> Response:
    return error_answer(exc.status, exc.code, exc.message, retry_after=getattr(exc, "retry_after", None))


def refusal(errors: list[dict[str, Any]]) -> ServiceError:
    """Our 400 for the resolver's first validation error: its code, and a short message naming
    where (`body: missing required field 'name'`, `name: a name cannot be empty`)."""
    err = errors[0]
    kind, loc = err.get("type", ""), tuple(str(p) for p in err.get("loc", ()))
    source, path = (loc[0], loc[1:]) if loc else ("body", ())
    where = ".".join(path)
    if source == "path" and where in PATH_REFUSALS and kind == "string_pattern_mismatch":
        return ServiceError("bad_request", f"{where}: {PATH_REFUSALS[where]}")
    if kind in MODEL_CODES:
        return ServiceError(kind, f"{where or source}: {err.get('msg', '')}")
    if kind == "extra_forbidden":
        return ServiceError("bad_request", f"unknown field {quote(path[-1] if path else '')}")
    if kind == "missing" and path:
        parent = ".".join(path[:-1]) or source
        return ServiceError("bad_request", f"{parent}: missing required field {path[-1]!r}")
    if not path and kind in ("missing", "model_type", "model_attributes_type", "dict_type"):
        return ServiceError("bad_request", f"{source}: a JSON object is required")
    msg = str(err.get("msg", "invalid"))
    return ServiceError("bad_request", f"{where or source}: {msg[:1].lower()}{msg[1:]}")


@app.exception_handler(RequestValidationError)
def validation_error(exc: RequestValidationError) -> Response:
    errors = list(exc.errors())
    if any(e.get("loc", ("",))[0] == "response" for e in errors):  # an answer off its model
        return internal_error(exc)
    if app.current_event.body and not _is_json(app.current_event.headers):
        out = UNSUPPORTED  # a form that failed validation is still not JSON: 415 first
    else:
        out = refusal(errors)
    return error_answer(out.status, out.code, out.message)


@app.exception_handler(RequestUnsupportedContentType)  # neither JSON nor a form (`text/plain`)
def unsupported(exc: RequestUnsupportedContentType) -> Response:
    return error_answer(UNSUPPORTED.status, UNSUPPORTED.code, UNSUPPORTED.message)


@app.exception_handler(UnicodeDecodeError)
def not_utf8(exc: UnicodeDecodeError) -> Response:
    return error_answer(400, wire.BAD_UNICODE, "the body is not valid UTF-8")


METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@cache
def _paths() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each path template (as a pattern) and the methods it answers, from the resolver's own
    OpenAPI document: built on the first 405 only."""
    paths = app.get_openapi_schema().model_dump(exclude_none=True)["paths"]
    return tuple(
        (
            re.compile("^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(template)) + "/?$"),
            ", ".join(sorted(m.upper() for m in item if m in METHODS)),
        )
        for template, item in paths.items()
    )


@app.not_found
def not_found(exc: NotFoundError) -> Response:
    path = app.current_event.path
    allowed = next((methods for pattern, methods in _paths() if pattern.match(path)), None)
    if allowed:
        return error_answer(405, "method_not_allowed", f"this path answers {allowed}", {"Allow": allowed})
    return error_answer(404, "not_found", "no such route")


@app.exception_handler(Exception)
def internal_error(exc: Exception) -> Response:
    """A bug: logged with its stack, counted, answered without details."""
    logger.exception("unhandled error in a REST route")
    count("InternalErrors")
    return error_answer(500, "internal_error", "something went wrong on our side")


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)  # an answer holds a token
@metrics.log_metrics
def handler(event: dict, context: object) -> dict:
    return app.resolve(event, context)
