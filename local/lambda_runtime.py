"""A small stand-in for the Lambda runtime: handler loading, a context object, and
invocation in a thread pool with the integration timeout API Gateway applies."""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("local.lambda")

Handler = Callable[[dict, Any], Any]

# Route (or function) -> "module:function". The real handlers are the default; tests
# substitute tiny fake modules to exercise the gateway alone.
DEFAULT_HANDLERS: dict[str, str] = {
    "rest": "handlers.rest:handler",
    "$connect": "handlers.ws_connect:handler",
    "$disconnect": "handlers.ws_disconnect:handler",
    "$default": "handlers.ws_default:handler",
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


class LambdaRuntime:
    """Resolves handlers by name and runs them off the event loop."""

    def __init__(
        self,
        handlers: Mapping[str, str] | None = None,
        *,
        max_workers: int = 32,
        timeout_s: float = 29.0,
        region: str = "us-east-1",
    ) -> None:
        self.specs = {**DEFAULT_HANDLERS, **(handlers or {})}
        self.timeout_s = timeout_s
        self.region = region
        self.executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="lambda")
        self._loaded: dict[str, Handler] = {}

    def has(self, name: str) -> bool:
        return name in self.specs

    def handler(self, name: str) -> Handler:
        if name not in self._loaded:
            self._loaded[name] = load_handler(self.specs[name])
        return self._loaded[name]

    def preload(self) -> None:
        """Import every handler now, so a broken module fails at start-up, not mid-game."""
        for name in self.specs:
            self.handler(name)

    def _call(self, name: str, event: dict) -> Any:
        function_name = "mafia-" + name.strip("$").replace("_", "-")
        context = LambdaContext(function_name=function_name, region=self.region,
                                timeout_ms=int(self.timeout_s * 1000))
        return self.handler(name)(event, context)

    async def invoke(self, name: str, event: dict) -> Any:
        """Run handler ``name`` in the pool. Raises what it raises, or IntegrationTimeout."""
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.executor, self._call, name, event)
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.timeout_s)
        except TimeoutError as exc:
            # A Lambda keeps running after API Gateway gives up; so does the thread.
            raise IntegrationTimeout(name) from exc

    def shutdown(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
