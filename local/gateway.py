"""API Gateway (behind the site's CloudFront) on one aiohttp port: the REST stage at ``/api``, the WebSocket stage at
``/ws``, its management API at ``/ws/@connections/{id}``, and the static web client.

Behaviour copied from AWS (see docs/architecture.md, Offline stack): handler errors become
``502 Internal server error`` (REST) or an ``Internal server error`` frame (WebSocket); a
refused ``$connect`` refuses the upgrade with 403; binary frames close the socket with 1003;
over-size frames with 1009; a post to a closed or unknown connection answers 410
``GoneException``; a payload over 128 KB answers 413 ``PayloadTooLargeException``.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import ipaddress
import json
import logging
import mimetypes
import os
import random
import secrets
import string
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from aiohttp import WSCloseCode, WSMsgType, web
from aiohttp.web_protocol import RequestPayloadError

from . import events
from . import template as tpl
from .lambda_runtime import IntegrationTimeout, LambdaRuntime
from .template import RestResource

log = logging.getLogger("local.gateway")

KB = 1024
MAX_MESSAGE_BYTES = 128 * KB  # API Gateway WebSocket message (and PostToConnection Data) limit
MAX_FRAME_BYTES = 32 * KB  # API Gateway WebSocket frame limit
MAX_REST_BODY = 10 * KB * KB  # REST API payload limit
IDLE_TIMEOUT_S = 600.0  # API Gateway closes a WebSocket idle for 10 minutes
MAX_CONNECTION_S = 7200.0  # ... and any WebSocket after 2 hours
SEND_TIMEOUT_S = 5.0
# The request codings API Gateway decompresses (developer guide, "Content codings supported by
# API Gateway"); aiohttp decodes the same ones while reading the body.
REST_CONTENT_CODINGS = frozenset({"gzip", "deflate", "identity"})

mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("application/manifest+json", ".webmanifest")
mimetypes.add_type("image/svg+xml", ".svg")

_ID_ALPHABET = string.ascii_letters + string.digits
# The address API Gateway reports for every REST call: the CloudFront edge in front of it, one
# for all the viewers (documentation range: no real edge's).
EDGE_ADDRESS = "192.0.2.1"

# Routes only this machine may call: the test hooks and the management API (on AWS the latter
# is IAM-signed; here it would let any guest post frames to any phone or drop its socket).
_MACHINE_ONLY_PREFIXES = ("/_local/", "/@connections/", "/ws/@connections/")


def same_machine(peer: str | None, own: str | None) -> bool:
    """Whether a caller at ``peer`` is on this machine: a loopback address, or the very
    address the server answered on (the stack calling itself on a LAN address)."""
    if not peer:
        return False
    try:
        addr = ipaddress.ip_address(peer.split("%", 1)[0])
    except ValueError:
        return False
    if addr.is_loopback or (getattr(addr, "ipv4_mapped", None) or addr).is_loopback:
        return True
    return bool(own) and peer == own


@web.middleware
async def machine_only(request: web.Request, handler):
    """``/_local/*`` and ``@connections`` answer 404 to a caller on another machine, whatever
    address the game is served on (``make dev --host 0.0.0.0`` for a party)."""
    if request.path.startswith(_MACHINE_ONLY_PREFIXES):
        sock = request.transport.get_extra_info("sockname") if request.transport else None
        own = sock[0] if isinstance(sock, tuple) and sock else None
        if not same_machine(request.remote, own):
            raise web.HTTPNotFound()
    return await handler(request)


def new_connection_id() -> str:
    """Shaped like API Gateway's ids (``L0SM9cOFvHcCIhw=``); kept URL-safe on purpose."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(15)) + "="


# What CloudFront compresses when the viewer accepts it ("Serving compressed files" in the
# CloudFront developer guide): files of 1,000 to 10,000,000 bytes whose Content-Type is on its
# list (text/*, JavaScript, JSON, SVG, the web app manifest, ...). CloudFront prefers br when a
# viewer accepts both; gzip is the one every browser accepts and the standard library writes.
COMPRESS_MIN_BYTES = 1000
COMPRESS_MAX_BYTES = 10_000_000
_COMPRESSIBLE = (
    "text/",
    "application/javascript",
    "application/json",
    "application/manifest+json",
    "image/svg+xml",
    "application/xml",
)


def _compressible(ctype: str) -> bool:
    return ctype.startswith(_COMPRESSIBLE)


def _accepted_codings(request: web.Request) -> set[str]:
    """The codings of ``Accept-Encoding`` with a non-zero q."""
    out = set()
    for part in request.headers.get("Accept-Encoding", "").split(","):
        name, _, params = part.strip().partition(";")
        q = params.strip().removeprefix("q=") if params.strip().startswith("q=") else "1"
        try:
            if float(q) > 0:
                out.add(name.strip().lower())
        except ValueError:
            continue
    return out


IN_FLIGHT_PER_CONNECTION = 2  # a socket's frames handled at once (`Connection.in_flight`)


@dataclass
class _Gzipped:
    key: tuple[int, int]  # (mtime_ns, size) of the file it was made from
    body: bytes
    etag: str


def _gzip_response(request: web.Request, gz: _Gzipped, headers: dict[str, str]) -> web.Response:
    headers = {**headers, "Content-Encoding": "gzip", "Vary": "Accept-Encoding", "ETag": gz.etag}
    if gz.etag in request.headers.get("If-None-Match", ""):
        return web.Response(status=304, headers={k: v for k, v in headers.items() if k != "Content-Encoding"})
    return web.Response(body=gz.body, headers=headers)


def _json_response(status: int, body: object, *, error_type: str | None = None) -> web.Response:
    headers = {"x-amzn-RequestId": events.api_id() + "-" + secrets.token_hex(8)}
    if error_type:
        headers["x-amzn-ErrorType"] = error_type
    return web.json_response(body, status=status, headers=headers)


def _unsupported_media_type() -> web.Response:
    return _json_response(
        415, {"message": "Unsupported Media Type"}, error_type="UnsupportedMediaTypeException"
    )


def _iso(epoch_s: float) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@dataclass
class Connection:
    """One open WebSocket, as the management API knows it."""

    id: str
    ws: web.WebSocketResponse
    connected_at: float
    source_ip: str
    user_agent: str | None
    query: dict[str, str] = field(default_factory=dict)
    last_active: float = field(default_factory=time.time)
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # A connection's frames waiting for a container wait here, not in the containers' shared
    # queue: on AWS each frame is its own Lambda invocation and Lambda scales out, so one
    # socket's backlog never delays another's frames (tests/e2e/test_voice_flood.py).
    in_flight: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(IN_FLIGHT_PER_CONNECTION))
    transport: asyncio.BaseTransport | None = None
    skip_disconnect: bool = False  # $disconnect is best effort on AWS; see /_local/vanish

    @property
    def connected_at_ms(self) -> int:
        return int(self.connected_at * 1000)


@dataclass
class GatewayStats:
    """Counters the benchmark and tests read (``GET /_local/stats``)."""

    frames_in: int = 0
    frames_out: int = 0
    bytes_out: int = 0
    max_frame_out: int = 0
    gone: int = 0
    handler_errors: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class GatewayServer:
    """The aiohttp application that plays the REST and WebSocket APIs."""

    def __init__(
        self,
        runtime: LambdaRuntime,
        *,
        web_dir: Path | None,
        rest_resources: Iterable[RestResource] | None = None,
        ws_routes: Iterable[str] = (),
        rest_stage: str = "api",
        ws_stage: str = "ws",
        idle_timeout_s: float = IDLE_TIMEOUT_S,
        max_connection_s: float = MAX_CONNECTION_S,
        config: dict | None = None,
        disconnect_loss: float = 0.0,
        rng: random.Random | None = None,
        step_clock: Callable[..., Awaitable[dict]] | None = None,
        write_room: Callable[[object], Awaitable[dict]] | None = None,
    ) -> None:
        self.runtime = runtime
        self.step_clock = step_clock
        self.write_room = write_room
        self.web_dir = web_dir.resolve() if web_dir else None
        self._gzip_cache: dict[Path, _Gzipped] = {}
        self.rest_resources = tuple(
            rest_resources if rest_resources is not None else tpl.rest_resources(tpl.load())
        )
        # Custom route keys (besides $connect/$disconnect/$default) that have a handler.
        self.ws_routes = {r for r in ws_routes if not r.startswith("$") and runtime.has(r)}
        self.rest_stage = rest_stage
        self.ws_stage = ws_stage
        self.idle_timeout_s = idle_timeout_s
        self.max_connection_s = max_connection_s
        # testHooks: the client puts its test handles on `window` (web/js/testhooks.js); a
        # deployed site's config.json never has it (functions/sitedeploy/handler.py).
        # iceServers: none beyond the TURN relay the server hands out (the `iceServers` frame):
        # the offline stack reaches no public STUN server, and a page that tried one waited
        # GATHER_MS (web/js/voice/mesh.js) for candidates that never came.
        self.config = (
            config if config is not None else {"apiUrl": "/api", "testHooks": True, "iceServers": []}
        )
        self.disconnect_loss = disconnect_loss
        self.rng = rng or random.Random()
        self.ws_domain = "127.0.0.1"  # host:port once the site is bound (domainName of WS events)
        self.rest_api_id = events.api_id()
        self.ws_api_id = events.api_id()
        self.connections: dict[str, Connection] = {}
        self.stats = GatewayStats()
        self._tasks: set[asyncio.Task] = set()
        self._closing = False

    # ------------------------------------------------------------------ app

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_REST_BODY + 1, middlewares=[machine_only])
        for prefix in ("/ws", ""):
            app.router.add_route("POST", prefix + "/@connections/{connection_id}", self.post_to_connection)
            app.router.add_route("GET", prefix + "/@connections/{connection_id}", self.get_connection)
            app.router.add_route("DELETE", prefix + "/@connections/{connection_id}", self.delete_connection)
        app.router.add_get("/ws", self.websocket)
        app.router.add_get("/ws/", self.websocket)
        app.router.add_route("*", "/api", self.rest)
        app.router.add_route("*", "/api/{tail:.*}", self.rest)
        app.router.add_get("/config.json", self.config_json)
        app.router.add_get("/_local/stats", self.stats_json)
        app.router.add_post("/_local/vanish", self.vanish)
        app.router.add_get("/_local/env", self.env_json)
        app.router.add_post("/_local/clock", self.clock_step)
        app.router.add_post("/_local/rooms", self.rooms_post)
        app.router.add_get("/_local/trace", self.trace_json)
        app.router.add_get("/{tail:.*}", self.static)
        app.on_shutdown.append(self._on_shutdown)
        return app

    async def _on_shutdown(self, _app: web.Application) -> None:
        self._closing = True
        for conn in list(self.connections.values()):
            try:
                await conn.ws.close(code=WSCloseCode.GOING_AWAY, message=b"Server shutting down")
            except Exception:  # noqa: BLE001 - a socket already gone is fine here
                pass

    async def handled(self, timeout: float = 60.0) -> None:
        """Until the invocations of every frame and request this gateway has received so far
        have finished (their pushes posted)."""
        received = [t for t in self._tasks if not t.done()]
        if received:
            await asyncio.wait(received, timeout=timeout)

    def _spawn(self, coro) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ------------------------------------------------------------------ static

    async def config_json(self, _request: web.Request) -> web.Response:
        return web.json_response(self.config, headers={"Cache-Control": "no-cache"})

    async def vanish(self, request: web.Request) -> web.Response:
        """Test hook: drop the sockets matching the query (e.g. ``?room=AB&token=t``) without a
        close frame and without ``$disconnect`` - the client that vanished and the
        ``$disconnect`` AWS never delivered. The handlers learn it from a 410 at the next post."""
        wanted = dict(request.query)
        hits = [c for c in self.connections.values() if all(c.query.get(k) == v for k, v in wanted.items())]
        for conn in hits:
            conn.skip_disconnect = True
            self.connections.pop(conn.id, None)
            if conn.transport is not None:
                conn.transport.abort()
        return web.json_response({"vanished": [c.id for c in hits]})

    async def clock_step(self, request: web.Request) -> web.Response:
        """Test hook (``--manual-clock`` only): ``{"advance": N}`` game seconds, ``{"to": T}``
        (an epoch second) or ``{"to": "next"}`` (the next planned Scheduler delivery). Answers
        ``{"now", "fired", "next", "ttlDeleted"}`` after every due schedule was handled, in order."""
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or not ({"advance", "to"} & body.keys()):
            return web.json_response({"error": 'want {"advance": N} or {"to": T | "next"}'}, status=400)
        advance, to = body.get("advance"), body.get("to")
        if (
            advance is not None
            and (isinstance(advance, bool) or not isinstance(advance, int | float) or advance < 0)
        ) or (to is not None and to != "next" and (isinstance(to, bool) or not isinstance(to, int | float))):
            return web.json_response(
                {"error": 'advance: seconds >= 0; to: epoch seconds or "next"'}, status=400
            )
        if self.step_clock is None:
            return web.json_response({"error": "no manual clock"}, status=409)
        # Game time moves after the frames this gateway has received already (as
        # `LocalStack.step` does for a caller in its process): a test that clicked, then steps
        # past the deadline, has its click counted, however slow their invocation is.
        await self.handled()
        try:
            return web.json_response(await self.step_clock(by=advance, to=to))
        except RuntimeError as exc:
            return web.json_response({"error": str(exc)}, status=409)

    async def rooms_post(self, request: web.Request) -> web.Response:
        """Test hook: write a room at a chosen phase (local/rooms.py says what the body holds)
        and answer its code and the seats' tokens. 400 ``{"error": {"code", "message"}}`` for
        a room that cannot be written (nothing is); 409 where the stack has no such hook."""
        try:
            body = await request.json()
        except ValueError:
            return web.json_response(
                {"error": {"code": "bad_request", "message": "the body must be JSON"}}, status=400
            )
        if self.write_room is None:
            return web.json_response(
                {"error": {"code": "no_rooms_hook", "message": "this gateway writes no rooms"}}, status=409
            )
        status, answer = await self.write_room(body)
        return web.json_response(answer, status=status)

    async def env_json(self, _request: web.Request) -> web.Response:
        """For ops tools (``python -m ops.reports --local URL``): where this stack's table is
        and its game clock. Dummy credentials only; the offline stack never reaches AWS."""
        keys = (
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "AWS_DEFAULT_REGION",
            "AWS_ENDPOINT_URL_DYNAMODB",
            "TABLE_NAME",
            "MAFIA_CLOCK_RATE",
            "MAFIA_CLOCK_ORIGIN",
            "MAFIA_CLOCK_FILE",
        )
        return web.json_response({k: os.environ[k] for k in keys if k in os.environ})

    async def trace_json(self, _request: web.Request) -> web.Response:
        """The invocations traced since the last call (`--trace-posts`), and what each posted:
        ``{"invocations": [{"route", "connection", "frameId", "start", "posts": [[connection,
        type, version, bytes, at, written]]}]}`` (`at`: the post reached the gateway; `written`:
        its frame went to the socket, absent for a post to a socket that was gone); the benchmark correlates a client's frame `id` with
        the pushes it caused (bench/e2e.py). 409 when the stack does not trace."""
        traces = self.runtime.traces
        if traces is None:
            return _json_response(409, {"error": "start the stack with --trace-posts"})
        self.runtime.traces = {}
        return web.json_response({"invocations": list(traces.values())})

    def _trace_post(self, request: web.Request, conn_id: str, data: bytes) -> list | None:
        """Note a post under the invocation whose trace header it carries (botocore adds it
        from `_X_AMZN_TRACE_ID`: local/lambda_runtime.py `_lambda_environment`); the note, to
        which the time its frame is written goes, or None when the post is not traced."""
        traces = self.runtime.traces
        record = traces.get(request.headers.get("X-Amzn-Trace-Id", "")) if traces is not None else None
        if record is None:
            return None
        kind, version = None, None
        try:
            frame = json.loads(data)
            kind, version = frame.get("type"), frame.get("version")
        except (ValueError, AttributeError):
            pass
        note = [conn_id, kind, version, len(data), time.time()]
        record["posts"].append(note)
        return note

    async def stats_json(self, _request: web.Request) -> web.Response:
        return web.json_response({**self.stats.as_dict(), "connections": len(self.connections)})

    async def static(self, request: web.Request) -> web.StreamResponse:
        if self.web_dir is None:
            raise web.HTTPNotFound(text="no web/ directory")
        rel = request.match_info["tail"]
        target = (self.web_dir / rel).resolve()
        if not target.is_relative_to(self.web_dir):
            raise web.HTTPNotFound()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            raise web.HTTPNotFound(text=f"not found: /{rel}")
        ctype, _ = mimetypes.guess_type(target.name)
        ctype = ctype or "application/octet-stream"
        headers = {"Cache-Control": "no-cache", "Content-Type": ctype}
        if _compressible(ctype) and "gzip" in _accepted_codings(request):
            compressed = self._gzipped(target)
            if compressed is not None:
                return _gzip_response(request, compressed, headers)
        if _compressible(ctype):
            headers["Vary"] = "Accept-Encoding"
        return web.FileResponse(target, headers=headers)

    def _gzipped(self, target: Path) -> _Gzipped | None:
        """The file gzipped, as CloudFront compresses at the edge; ``None`` where CloudFront
        would send it as it is (under 1,000 bytes). Kept per file until the file changes."""
        stat = target.stat()
        if not COMPRESS_MIN_BYTES <= stat.st_size <= COMPRESS_MAX_BYTES:
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        hit = self._gzip_cache.get(target)
        if hit is None or hit.key != key:
            body = gzip.compress(target.read_bytes(), compresslevel=6, mtime=0)
            hit = _Gzipped(key, body, f'"{stat.st_mtime_ns:x}-{stat.st_size:x}-gzip"')
            self._gzip_cache[target] = hit
        return hit

    # ------------------------------------------------------------------ REST

    def _match_rest(self, method: str, path: str) -> tuple[RestResource, dict[str, str]] | None:
        for resource in self.rest_resources:
            if resource.method not in ("ANY", method) and method != "OPTIONS":
                continue
            params = resource.match(path)
            if params is not None:
                return resource, params
        return None

    async def rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info.get("tail", "")
        matched = self._match_rest(request.method, path)
        if matched is None:
            # What API Gateway answers for a path or method the REST API does not define.
            return _json_response(
                403,
                {"message": "Missing Authentication Token"},
                error_type="MissingAuthenticationTokenException",
            )
        resource, params = matched
        # API Gateway decompresses a coded body before the integration and answers 415 for a
        # coding it does not support or a body not in that coding (developer guide, "Call an
        # API method with a compressed payload"); aiohttp decodes it in `read` and raises
        # RequestPayloadError for a body that is not in its coding.
        codings = [c.strip().lower() for c in request.headers.get("Content-Encoding", "").split(",")]
        if any(c and c not in REST_CONTENT_CODINGS for c in codings):
            return _unsupported_media_type()
        try:
            body = await request.read()
        except RequestPayloadError:
            if any(c not in ("", "identity") for c in codings):
                return _unsupported_media_type()
            return _json_response(400, {"message": "Bad Request"})
        event = events.rest_event(
            method=request.method,
            path=path,
            resource=resource.path,
            path_parameters=params,
            headers=request.headers,
            query=request.query,
            body=body,
            stage=self.rest_stage,
            api=self.rest_api_id,
            domain_name=request.host,
            # CloudFront in front (template.yaml, WebDistribution's /api/* behaviour): API Gateway
            # sees one edge for everyone; the viewer's address and the origin secret arrive as
            # the headers CloudFront sets (events.cloudfront_headers), whatever the client sent.
            source_ip=EDGE_ADDRESS,
            viewer=request.remote or "127.0.0.1",
            origin_secret=os.environ.get("MAFIA_ORIGIN_SECRET", ""),
        )
        try:
            result = await self.runtime.invoke("rest", event)
        except IntegrationTimeout:
            return _json_response(504, {"message": "Endpoint request timed out"})
        except Exception:
            self.stats.handler_errors += 1
            log.exception("REST handler failed: %s %s", request.method, path)
            return _json_response(502, {"message": "Internal server error"})
        if not isinstance(result, dict) or not isinstance(result.get("statusCode"), int):
            self.stats.handler_errors += 1
            log.error("REST handler returned a malformed proxy response: %r", result)
            return _json_response(502, {"message": "Internal server error"})
        headers: dict[str, str] = {}
        for key, values in (result.get("multiValueHeaders") or {}).items():
            headers[key] = ", ".join(str(v) for v in values)
        for key, value in (result.get("headers") or {}).items():
            headers[key] = str(value)
        raw = result.get("body") or ""
        data = base64.b64decode(raw) if result.get("isBase64Encoded") else str(raw).encode()
        headers.pop("Content-Length", None)
        headers.pop("content-length", None)
        return web.Response(status=result["statusCode"], body=data, headers=headers)

    # ------------------------------------------------------------------ WebSocket

    def _route_key(self, body: str) -> str:
        """Route selection with ``$request.body.action``; anything else goes to ``$default``."""
        if self.ws_routes:
            try:
                action = json.loads(body).get("action")
            except (ValueError, AttributeError, RecursionError):
                # RecursionError: a frame nested ~1,000 levels deep (Python's json recurses);
                # API Gateway routes a body it cannot select on to $default, as here.
                action = None
            if isinstance(action, str) and action in self.ws_routes:
                return action
        return "$default"

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Upgrade", "").lower() != "websocket":
            return _json_response(426, {"message": "Upgrade Required"})
        if self._closing:
            return _json_response(503, {"message": "Service Unavailable"})
        cid = new_connection_id()
        connected_at = time.time()
        source_ip = request.remote or "127.0.0.1"
        user_agent = request.headers.get("User-Agent")
        event = events.ws_connect_event(
            connection=cid,
            connected_at_ms=int(connected_at * 1000),
            headers=request.headers,
            query=request.query,
            stage=self.ws_stage,
            api=self.ws_api_id,
            domain_name=request.host,
            source_ip=source_ip,
        )
        try:
            result = await self.runtime.invoke("$connect", event)
        except Exception:
            self.stats.handler_errors += 1
            log.exception("$connect handler failed")
            return _json_response(500, {"message": "Internal server error"})
        status = result.get("statusCode", 200) if isinstance(result, dict) else 200
        if not isinstance(status, int) or not 200 <= status < 300:
            # API Gateway refuses the handshake; the client sees an HTTP error, no socket.
            return _json_response(403, {"message": "Forbidden"})
        protocols: tuple[str, ...] = ()
        if isinstance(result, dict):
            for key, value in (result.get("headers") or {}).items():
                if key.lower() == "sec-websocket-protocol":
                    protocols = (str(value),)
        ws = web.WebSocketResponse(
            max_msg_size=MAX_MESSAGE_BYTES,
            protocols=protocols,
            autoping=True,
            receive_timeout=None,
            compress=False,
        )
        await ws.prepare(request)
        conn = Connection(
            cid,
            ws,
            connected_at,
            source_ip,
            user_agent,
            query=dict(request.query),
            transport=request.transport,
        )
        self.connections[cid] = conn
        close_reason = ""
        try:
            close_reason = await self._read_frames(conn)
        finally:
            self.connections.pop(cid, None)
            if not ws.closed:
                try:
                    await ws.close()
                except Exception:  # noqa: BLE001
                    pass
            code = ws.close_code if ws.close_code is not None else WSCloseCode.ABNORMAL_CLOSURE
            reason = close_reason or f"Client-side close frame status code '{int(code)}' - description: ''"
            if not conn.skip_disconnect and self.rng.random() >= self.disconnect_loss:
                self._spawn(self._disconnect(conn, int(code), reason))
        return ws

    async def _read_frames(self, conn: Connection) -> str:
        """Read frames until the socket ends; returns the disconnect reason when we closed it."""
        ws = conn.ws
        deadline = conn.connected_at + self.max_connection_s
        while True:
            timeout = min(self.idle_timeout_s, max(0.0, deadline - time.time()))
            try:
                msg = await ws.receive(timeout=timeout or 0.001)
            except TimeoutError:
                await ws.close(code=WSCloseCode.GOING_AWAY, message=b"Going away")
                return "Going away"
            if msg.type == WSMsgType.TEXT:
                conn.last_active = time.time()
                self.stats.frames_in += 1
                if len(msg.data.encode()) > MAX_FRAME_BYTES:
                    # Browsers send a message as one frame; API Gateway refuses frames over 32 KB.
                    await ws.close(code=WSCloseCode.MESSAGE_TOO_BIG, message=b"Message too big")
                    return "Message too big"
                self._spawn(self._message(conn, msg.data))
            elif msg.type == WSMsgType.BINARY:
                # API Gateway WebSocket APIs do not accept binary frames: close with 1003.
                await ws.close(code=WSCloseCode.UNSUPPORTED_DATA, message=b"Binary frames are not supported")
                return "Binary frames are not supported"
            elif msg.type == WSMsgType.ERROR:
                log.info("connection %s: %s", conn.id, msg.data)
                return str(msg.data or "")
            else:  # CLOSE / CLOSING / CLOSED
                return ""

    async def _message(self, conn: Connection, body: str) -> None:
        async with conn.in_flight:
            if self._closing:
                # the stack is stopping: a frame still waiting for its turn is dropped, not run
                # against a gateway whose management endpoint is going away (a flood's backlog
                # of failing posts held a stop past a minute on a loaded machine)
                return
            await self._invoke_message(conn, body)

    async def _invoke_message(self, conn: Connection, body: str) -> None:
        route = self._route_key(body)
        event = events.ws_message_event(
            route_key=route,
            body=body,
            connection=conn.id,
            connected_at_ms=conn.connected_at_ms,
            stage=self.ws_stage,
            api=self.ws_api_id,
            domain_name=self.ws_domain,
            source_ip=conn.source_ip,
            user_agent=conn.user_agent,
        )
        try:
            await self.runtime.invoke(route, event)
        except Exception as exc:
            self.stats.handler_errors += 1
            if not isinstance(exc, IntegrationTimeout):
                log.error("%s handler failed for %s", route, conn.id, exc_info=exc)
            # What API Gateway sends the client when the integration fails.
            frame = json.dumps(
                {
                    "message": "Internal server error",
                    "connectionId": conn.id,
                    "requestId": event["requestContext"]["requestId"],
                }
            )
            await self._send(conn, frame)

    async def _disconnect(self, conn: Connection, code: int, reason: str) -> None:
        event = events.ws_disconnect_event(
            connection=conn.id,
            connected_at_ms=conn.connected_at_ms,
            status_code=code,
            reason=reason,
            domain_name=self.ws_domain,
            stage=self.ws_stage,
            api=self.ws_api_id,
            source_ip=conn.source_ip,
            user_agent=conn.user_agent,
        )
        try:
            await self.runtime.invoke("$disconnect", event)
        except Exception:
            self.stats.handler_errors += 1
            log.exception("$disconnect handler failed for %s", conn.id)

    async def _send(self, conn: Connection, data: str | bytes, note: list | None = None) -> bool:
        """Write one frame; False when the client has gone (it is then dropped). A traced post's
        ``note`` gets the time the frame is handed to its socket: taken before the write, as a
        time taken after it can fall after the client already has the frame (this coroutine
        resumes when the loop and the GIL let it), and bench/e2e.py splits on causality."""

        async def write() -> None:
            if note is not None:
                note.append(time.time())
            if isinstance(data, str):
                await conn.ws.send_str(data)
            else:
                await conn.ws.send_bytes(data)

        try:
            async with conn.send_lock:
                if conn.ws.closed or getattr(conn.ws, "_closing", False):
                    raise ConnectionResetError("closing")
                await asyncio.wait_for(write(), SEND_TIMEOUT_S)
        except (ConnectionError, RuntimeError, TimeoutError, OSError) as exc:
            log.info("connection %s gone while sending: %r", conn.id, exc)
            self.connections.pop(conn.id, None)
            return False
        size = len(data.encode()) if isinstance(data, str) else len(data)
        self.stats.frames_out += 1
        self.stats.bytes_out += size
        self.stats.max_frame_out = max(self.stats.max_frame_out, size)
        return True

    # ------------------------------------------------------------------ management API

    def _gone(self) -> web.Response:
        self.stats.gone += 1
        return _json_response(410, {"message": None}, error_type="GoneException")

    async def post_to_connection(self, request: web.Request) -> web.Response:
        data = await request.read()
        if len(data) > MAX_MESSAGE_BYTES:
            return _json_response(
                413, {"message": "Request entity too large"}, error_type="PayloadTooLargeException"
            )
        conn = self.connections.get(request.match_info["connection_id"])
        if conn is None:
            return self._gone()
        note = self._trace_post(request, conn.id, data)
        try:
            frame: str | bytes = data.decode("utf-8")
        except UnicodeDecodeError:
            frame = data
        if not await self._send(conn, frame, note):  # the note gets when it went to its socket
            return self._gone()
        return web.Response(status=200, headers={"Content-Type": "application/json"})

    async def get_connection(self, request: web.Request) -> web.Response:
        conn = self.connections.get(request.match_info["connection_id"])
        if conn is None:
            return self._gone()
        return _json_response(
            200,
            {
                "connectedAt": _iso(conn.connected_at),
                "identity": {"sourceIp": conn.source_ip, "userAgent": conn.user_agent or ""},
                "lastActiveAt": _iso(conn.last_active),
            },
        )

    async def delete_connection(self, request: web.Request) -> web.Response:
        conn = self.connections.pop(request.match_info["connection_id"], None)
        if conn is None:
            return self._gone()
        # Closing makes the reader loop end, which fires $disconnect as on AWS.
        self._spawn(conn.ws.close(code=WSCloseCode.GOING_AWAY, message=b"Going away"))
        return web.Response(status=204)
