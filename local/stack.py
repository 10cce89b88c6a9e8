"""Wires the offline stack together: moto, the environment, the gateway, the Scheduler
and TTL emulation. ``LocalStack`` is also what in-process tests start."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import random
import secrets
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from . import aws
from . import template as tpl
from .clock import GameClock, ManualClock, VirtualClock
from .gateway import GatewayServer
from .lambda_runtime import ECHO_HANDLER, LambdaRuntime
from .scheduler import SchedulerEmulator
from .ttl import TtlSweeper
from .turn import TurnServer

log = logging.getLogger("local")

REPO = Path(__file__).resolve().parent.parent


def code_paths(repo: Path = REPO) -> list[str]:
    """The ``sys.path`` entries pytest gets from pyproject.toml (Lambda gets them from the
    function's code and the layer)."""
    return [str(repo / sub) for sub in (".", "layers/engine", "functions")]


def add_code_paths(repo: Path = REPO) -> None:
    for path in reversed(code_paths(repo)):
        if path not in sys.path:
            sys.path.insert(0, path)


@dataclass
class StackOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    time_scale: float = 1.0
    web_dir: Path | None = REPO / "build" / "web"  # the built client (local/webbuild.py)
    handlers: dict[str, str] = field(default_factory=dict)  # route -> "module:function"
    duplicate_probability: float = 0.1
    ttl_lag_s: float = 300.0  # virtual seconds between expiry and deletion
    ttl_interval_s: float = 60.0  # virtual seconds between sweeps
    echo_route: bool = False  # serve the benchmark's "echo" route
    workers: int = 32
    idle_timeout_s: float = 600.0
    containers: int = 4  # handler worker processes (0: threads in this process)
    disconnect_loss: float = 0.0  # chance that $disconnect is not delivered (best effort on AWS)
    max_spectators: int | None = None  # template.yaml's MaxSpectators (None: its default)
    manual_clock: bool = False  # game time moves only through step() / POST /_local/clock
    seed: int | None = None  # seeds the Scheduler's jitter and duplicates, and $disconnect loss
    trace_posts: bool = False  # record each invocation's posts (GET /_local/trace)
    turn: bool = True  # run a TURN server (coturn, local/turn.py) for voice, when it is installed


class LocalStack:
    """Start with ``await start()`` (returns the base URL); stop with ``await stop()``."""

    def __init__(self, options: StackOptions) -> None:
        self.options = options
        self.clock: GameClock = (
            ManualClock.create(time.time())
            if options.manual_clock
            else VirtualClock(rate=options.time_scale, origin=time.time())
        )
        self.moto: aws.Moto | None = None
        self.runtime: LambdaRuntime | None = None
        self.gateway: GatewayServer | None = None
        self.scheduler: SchedulerEmulator | None = None
        self.ttl: TtlSweeper | None = None
        self.runner: web.AppRunner | None = None
        self.port: int = options.port
        self._tasks: list[asyncio.Task] = []
        self._room_service = None  # the service POST /_local/rooms writes through (made on first use)
        self.turn: TurnServer | None = None  # coturn on loopback (local/turn.py), when it runs

    @property
    def url(self) -> str:
        return f"http://{self.options.host}:{self.port}/"

    async def start(self) -> str:
        opts = self.options
        add_code_paths()
        loop = asyncio.get_running_loop()
        self.moto = aws.Moto()
        await loop.run_in_executor(None, self.moto.start)

        template = tpl.load(REPO / "template.yaml")
        handlers = dict(opts.handlers)
        ws_routes = set(tpl.ws_route_keys(template))
        if opts.echo_route:
            handlers.setdefault("echo", ECHO_HANDLER)
            ws_routes.add("echo")
        self.runtime = LambdaRuntime(handlers, max_workers=opts.workers, region=aws.REGION,
                                     containers=opts.containers, code_paths=code_paths())
        if opts.trace_posts:
            self.runtime.traces = {}
        self.gateway = GatewayServer(
            self.runtime,
            web_dir=opts.web_dir,
            rest_resources=tpl.rest_resources(template),
            ws_routes=ws_routes,
            idle_timeout_s=opts.idle_timeout_s,
            disconnect_loss=opts.disconnect_loss,
            rng=random.Random(opts.seed) if opts.seed is not None else None,
            step_clock=self.step,
            write_room=self.write_room,
        )
        self.runner = web.AppRunner(
            self.gateway.app(), access_log=None, handle_signals=False, shutdown_timeout=2.0
        )
        await self.runner.setup()
        site = web.TCPSite(self.runner, opts.host, opts.port, reuse_address=True)
        await site.start()
        server = site._server  # noqa: SLF001 - the only way to learn the port when it was 0
        if server is not None and server.sockets:
            self.port = server.sockets[0].getsockname()[1]
        self.gateway.ws_domain = f"{opts.host}:{self.port}"

        # The handlers read these at import time: set them before anything imports them.
        os.environ.update(
            aws.stack_environment(
                host=opts.host,
                port=self.port,
                moto_url=self.moto.url,
                time_scale=opts.time_scale,
                clock_origin=getattr(self.clock, "origin", time.time()),
                clock_file=getattr(self.clock, "path", None),
            )
        )
        if not opts.manual_clock:
            os.environ.pop("MAFIA_CLOCK_FILE", None)
        # Voice's TURN server (coturn) and its secret in Secrets Manager, as template.yaml's TurnSecret.
        os.environ.pop("TURN_SECRET_ARN", None)  # a stack started before in this process
        turn_urls = await loop.run_in_executor(None, self._start_turn) if opts.turn else None
        # Parameters a function takes into its environment (MAFIA_MAX_SPECTATORS), as a deploy would.
        os.environ.update(
            tpl.parameter_environment(template, {"MaxSpectators": opts.max_spectators, "TurnUrls": turn_urls})
        )
        ttl_attribute = await loop.run_in_executor(None, aws.create_table, os.environ["TABLE_NAME"])
        # passkey sign-in's session key in Secrets Manager, as template.yaml's SessionSecret
        os.environ["SESSION_SECRET_ARN"] = await loop.run_in_executor(
            None, aws.create_secret, aws.SESSION_SECRET_NAME, secrets.token_urlsafe(48)
        )
        await loop.run_in_executor(None, aws.create_schedule_group, os.environ["SCHEDULE_GROUP"])
        try:
            await loop.run_in_executor(None, self.runtime.preload)
        except Exception:  # noqa: BLE001 - serve the client anyway; calls will answer 502
            log.exception("a handler failed to import; its routes will fail")

        # Everything imported so far lives as long as the process: keep it out of the
        # collector's full passes (they showed up as 100 ms pauses under load).
        gc.collect()
        gc.freeze()

        self.scheduler = SchedulerEmulator(
            self.runtime,
            self.clock,
            os.environ["SCHEDULE_GROUP"],
            duplicate_probability=opts.duplicate_probability,
            rng=random.Random(opts.seed + 1) if opts.seed is not None else None,
        )
        if not opts.manual_clock:
            self._tasks.append(loop.create_task(self.scheduler.run(), name="scheduler"))
        if ttl_attribute:
            self.ttl = TtlSweeper(
                os.environ["TABLE_NAME"],
                ttl_attribute,
                self.clock,
                lag_s=opts.ttl_lag_s,
                interval_s=opts.ttl_interval_s,
                executor=self.runtime.executor,
            )
            if not opts.manual_clock:
                self._tasks.append(loop.create_task(self.ttl.run(), name="ttl"))
        return self.url

    def _start_turn(self) -> str | None:
        """Start coturn and put its secret where the frames function reads it: the TURN URL, or
        None (coturn is not installed: voice has no relay, public rooms' voice stays silent)."""
        from . import turn

        if not turn.available():
            log.warning("coturn is not installed (scripts/ensure-coturn.sh): voice runs without a TURN relay")
            return None
        self.turn = TurnServer(host="127.0.0.1")
        url = self.turn.start()
        os.environ["TURN_SECRET_ARN"] = aws.create_secret(aws.TURN_SECRET_NAME, self.turn.secret)
        return url

    async def step(self, *, by: float | None = None, to: float | str | None = None) -> dict:
        """Manual clock only: advance game time (``by`` seconds, ``to`` a second or ``"next"``,
        the next planned Scheduler delivery), delivering due schedules in order, then sweep
        TTL. Returns ``{"now", "fired", "next", "ttlDeleted"}`` once all were handled."""
        assert self.scheduler is not None
        # Game time moves after the frames the gateway has received already: a test that
        # clicked, then steps past the deadline, has its click counted (a player who acted
        # before the deadline did so in time), however slow their invocation is.
        if self.gateway is not None:
            await self.gateway.handled()
        out = await self.scheduler.advance(by=by, to=to)
        deleted = 0
        if self.ttl is not None:
            deleted = await asyncio.get_running_loop().run_in_executor(self.runtime.executor, self.ttl.sweep)
        return {**out, "ttlDeleted": deleted}

    async def write_room(self, body: object) -> tuple[int, dict]:
        """``POST /_local/rooms``: a room at a chosen phase (local/rooms.py), written through
        the real service on this stack's table and clock: (HTTP status, answer)."""
        assert self.runtime is not None
        return await asyncio.get_running_loop().run_in_executor(self.runtime.executor, self._write_room, body)

    def _write_room(self, body: object) -> tuple[int, dict]:
        from . import rooms  # imports the service and the engine: on the path once started

        if self._room_service is None:
            from service import config

            self._room_service = config.build_service()
        try:
            return 200, rooms.write_room(self._room_service, body)
        except rooms.SpecError as exc:
            return 400, exc.answer()

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.scheduler is not None:
            await self.scheduler.stop()
        if self.runner is not None:
            await self.runner.cleanup()
        if self.gateway is not None:
            # Let the $disconnect invocations of the sockets closed above finish.
            pending = list(self.gateway._tasks)  # noqa: SLF001
            if pending:
                await asyncio.wait(pending, timeout=2.0)
        if self.runtime is not None:
            self.runtime.shutdown()
        if self.turn is not None:
            self.turn.stop()
        if self.moto is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.moto.stop)
        path = getattr(self.clock, "path", None)
        if path:
            Path(path).unlink(missing_ok=True)
