"""A small stand-in for the Lambda runtime: handler loading, a context object, and
invocation in a thread pool with the integration timeout API Gateway applies."""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("local.lambda")

# How long a stopping stack waits for its containers' running invocations (LambdaRuntime.shutdown)
SHUTDOWN_GRACE_S = 20.0

Handler = Callable[[dict, Any], Any]

# Route (or function) -> "module:function". The real handlers are the default; tests
# substitute tiny fake modules to exercise the gateway alone.
DEFAULT_HANDLERS: dict[str, str] = {
    "rest": "handlers.rest:handler",
    "$connect": "handlers.ws_connect:handler",
    "$disconnect": "handlers.ws_disconnect:handler",
    "$default": "handlers.ws_default:handler",
    "report": "handlers.ws_report:handler",
    "timer": "handlers.timer:handler",
}

# Route key served only when the benchmark asks for it: a bare echo through the same
# gateway, thread pool and management API, used as the latency baseline.
ECHO_HANDLER = "local.echo:handler"


def load_handler(spec: str) -> Handler:
    """Import ``"package.module:function"`` and return the function."""
    module_name, _, attr = spec.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr or "handler")


@dataclass
class LambdaContext:
    """The attributes of ``awslambdaric``'s context that Powertools and our handlers read."""

    function_name: str
    memory_limit_in_mb: int = 256
    function_version: str = "$LATEST"
    timeout_ms: int = 29_000
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    region: str = "us-east-1"
    account_id: str = "123456789012"
    log_group_name: str = ""
    log_stream_name: str = "local"
    identity: Any = None
    client_context: Any = None
    _deadline: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        self._deadline = time.monotonic() + self.timeout_ms / 1000
        self.log_group_name = self.log_group_name or f"/aws/lambda/{self.function_name}"

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{self.region}:{self.account_id}:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class IntegrationTimeout(Exception):
    """The handler did not answer within the integration timeout (29 s on API Gateway)."""


class HandlerError(Exception):
    """A handler raised inside a container process (the traceback comes along as text)."""

    def __init__(self, summary: str, trace: str) -> None:
        super().__init__(summary)
        self.trace = trace

    def __str__(self) -> str:
        return f"{self.args[0]}\n{self.trace}"


# ---- inside a container process --------------------------------------------------------
_container: dict[str, Any] = {}


def _container_init(paths: list[str], specs: dict[str, str], region: str, timeout_s: float) -> None:
    """A cold start: import every handler once (their boto3 clients live as long as the process)."""
    # Ctrl-C reaches the whole process group; the gateway process stops the containers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A gateway killed outright (SIGKILL: a bench stopped by a timeout) cannot stop them: each
    # container exits once its gateway is gone rather than idle for ever.
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True, name="parent-watch").start()
    for path in reversed(paths):
        if path not in sys.path:
            sys.path.insert(0, path)
    _container.update(specs=specs, region=region, timeout_s=timeout_s, loaded={})
    for name, spec in specs.items():
        try:
            _container["loaded"][name] = load_handler(spec)
        except Exception:  # noqa: BLE001 - reported when the route is called
            logging.getLogger("local.lambda").exception("container: cannot import %s", spec)


def _exit_with_parent(parent: int, every: float = 0.5) -> None:
    """Exit this process once `parent` is gone (the orphan is adopted: `os.getppid` changes)."""
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(0)


def new_trace_id() -> str:
    """An X-Ray trace header's root, as Lambda gives every invocation (`_X_AMZN_TRACE_ID`)."""
    return f"Root=1-{int(time.time()):08x}-{uuid.uuid4().hex[:24]}"


def _lambda_environment(name: str, trace_id: str | None) -> None:
    """What the Lambda runtime sets before each invocation: with both variables botocore adds
    the trace as the `X-Amzn-Trace-Id` header of every AWS call the invocation makes
    (botocore/handlers.py, `add_recursion_detection_header`), so the gateway can tell which
    invocation posted a frame (`GatewayServer.post_to_connection`)."""
    os.environ["AWS_LAMBDA_FUNCTION_NAME"] = _function_name(name)
    if trace_id:
        os.environ["_X_AMZN_TRACE_ID"] = trace_id
    else:
        os.environ.pop("_X_AMZN_TRACE_ID", None)


def _container_call(name: str, event: dict, trace_id: str | None = None) -> tuple[str, Any, str, float, float]:
    """Run one invocation in this container: (status, value or error, traceback, when it began
    and ended here: the wait for a free container is the time before it began)."""
    began = time.time()
    try:
        _lambda_environment(name, trace_id)
        loaded = _container["loaded"]
        if name not in loaded:
            loaded[name] = load_handler(_container["specs"][name])
        context = LambdaContext(
            function_name=_function_name(name),
            region=_container["region"],
            timeout_ms=int(_container["timeout_s"] * 1000),
        )
        return "ok", loaded[name](event, context), "", began, time.time()
    except BaseException as exc:  # noqa: BLE001 - travels back to the gateway as text
        return "error", f"{type(exc).__name__}: {exc}", traceback.format_exc(), began, time.time()


def _invocation(event: dict) -> dict:
    """The connection, the client's frame `id` and its `action` an invocation answers (None
    for others: REST, Scheduler)."""
    if not isinstance(event, dict):
        return {"connection": None, "frameId": None, "action": None}
    ctx = event.get("requestContext") or {}
    frame_id = action = None
    body = event.get("body")
    if isinstance(body, str) and body.startswith("{"):
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            frame_id = parsed["id"] if isinstance(parsed.get("id"), str | int) else None
            action = parsed["action"] if isinstance(parsed.get("action"), str) else None
    return {"connection": ctx.get("connectionId"), "frameId": frame_id, "action": action}


def _container_ping() -> bool:
    return True


def _function_name(route: str) -> str:
    return "mafia-" + route.strip("$").replace("_", "-")


class LambdaRuntime:
    """Resolves handlers by name and runs them off the event loop.

    With ``containers > 0`` every invocation runs in one of that many worker processes, one
    invocation at a time each, like Lambda execution environments: module state (boto3
    clients, caches, thread pools) is per container, and handlers use every CPU core. With
    ``containers == 0`` they run in this process's thread pool (simpler to debug).
    """

    def __init__(
        self,
        handlers: Mapping[str, str] | None = None,
        *,
        max_workers: int = 32,
        timeout_s: float = 29.0,
        region: str = "us-east-1",
        containers: int = 0,
        code_paths: list[str] | None = None,
    ) -> None:
        self.specs = {**DEFAULT_HANDLERS, **(handlers or {})}
        self.timeout_s = timeout_s
        self.region = region
        # Threads for the stack's own blocking calls (and the handlers in thread mode).
        self.executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="lambda")
        self.containers = containers
        self.code_paths = list(code_paths or [])
        self.pool: ProcessPoolExecutor | None = None
        self._loaded: dict[str, Handler] = {}
        # trace id -> what one invocation was and posted, when tracing (`--trace-posts`); only
        # containers carry the trace (one invocation per process, as on Lambda: the
        # environment variable is the invocation's own).
        self.traces: dict[str, dict] | None = None

    def has(self, name: str) -> bool:
        return name in self.specs

    def handler(self, name: str) -> Handler:
        if name not in self._loaded:
            self._loaded[name] = load_handler(self.specs[name])
        return self._loaded[name]

    def preload(self) -> None:
        """Import every handler now (thread mode), or start and warm every container (the
        environment must be final: containers inherit it)."""
        if self.containers <= 0:
            for name in self.specs:
                self.handler(name)
            return
        self.pool = ProcessPoolExecutor(
            max_workers=self.containers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_container_init,
            initargs=(self.code_paths, self.specs, self.region, self.timeout_s),
        )
        # Start them all now: a cold start costs about a second of imports.
        for f in [self.pool.submit(time.sleep, 0.2) for _ in range(self.containers)]:
            f.result()

    def _call(self, name: str, event: dict) -> Any:
        context = LambdaContext(
            function_name=_function_name(name), region=self.region, timeout_ms=int(self.timeout_s * 1000)
        )
        return self.handler(name)(event, context)

    async def invoke(self, name: str, event: dict) -> Any:
        """Run handler ``name``. Raises what it raises (HandlerError from a container), or
        IntegrationTimeout."""
        loop = asyncio.get_running_loop()
        trace_id = new_trace_id()
        if self.traces is not None:
            self.traces[trace_id] = {"route": name, **_invocation(event), "start": time.time(), "posts": []}
        if self.pool is not None:
            future = loop.run_in_executor(self.pool, _container_call, name, event, trace_id)
        else:
            future = loop.run_in_executor(self.executor, self._call, name, event)
        try:
            result = await asyncio.wait_for(asyncio.shield(future), self.timeout_s)
        except TimeoutError as exc:
            # A Lambda keeps running after API Gateway gives up; so does the worker.
            raise IntegrationTimeout(name) from exc
        if self.pool is None:
            return result
        status, value, trace, began, ended = result
        record = self.traces.get(trace_id) if self.traces is not None else None
        if record is not None:  # when its container took it up and gave it back (bench/e2e.py)
            record["began"], record["ended"] = began, ended
        if status != "ok":
            raise HandlerError(value, trace)
        return value

    def shutdown(self, grace_s: float = SHUTDOWN_GRACE_S) -> None:
        """Stop taking invocations (queued ones are dropped) and let each container finish the
        one it runs, for `grace_s` at most; a container still busy then is terminated, as
        Lambda ends an environment after its shutdown phase. Without the bound one invocation
        stuck on a post to a gateway that is going away held a stack's stop past a minute."""
        self.executor.shutdown(wait=False, cancel_futures=True)
        if self.pool is None:
            return
        containers = multiprocessing.active_children()  # the pool's worker processes
        self.pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + grace_s
        for proc in containers:
            proc.join(max(0.0, deadline - time.monotonic()))
        for proc in containers:
            if proc.is_alive():
                log.warning("container %s still busy %.0f s after the stop: terminated", proc.pid, grace_s)
                proc.terminate()
                proc.join(5)
        self.pool.shutdown(wait=True)
