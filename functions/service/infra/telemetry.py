"""Powertools Logger, Metrics and Tracer shared by every handler (one instance each).

Log keys: `correlation_id` (the API Gateway request id; the room and phase for a timer),
`connection`, `room` and `player`. Tokens are never logged (handlers do not log events), nor
traced: handlers capture no response in X-Ray (`capture_response=False`; a REST answer holds
a seat's token).

The Tracer is Powertools' own. Tracing is off by Powertools' rule (`POWERTOOLS_TRACE_DISABLED`
true, as in the tests and the offline stack, or not in Lambda, or in SAM local: `tracing_enabled`
reads it in one place). Off, the Tracer gets `OffProvider`, the tracing-provider interface
Powertools defines (`aws_lambda_powertools.tracing.base.BaseProvider`) recording nothing: its
default provider is the X-Ray SDK's recorder, which a disabled Tracer still imports (about a
cold `import boto3` of time, docs/operations.md "Cold starts") only to switch it off.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator
from typing import Any

from aws_lambda_powertools.logging import Logger
from aws_lambda_powertools.metrics import Metrics, MetricUnit
from aws_lambda_powertools.tracing import Tracer
from aws_lambda_powertools.tracing.base import BaseProvider, BaseSegment

# A handler that only reads (sync, a refused frame) has no metric to publish: not a problem.
warnings.filterwarnings("ignore", message="No application metrics to publish")

SERVICE = os.environ.get("POWERTOOLS_SERVICE_NAME", "mafia")
TRUTHY = frozenset({"1", "y", "yes", "t", "true", "on"})


def tracing_enabled(env: dict[str, str] | os._Environ = os.environ) -> bool:
    """Whether X-Ray tracing is on (the Powertools Tracer's own rule, read in one place)."""
    if env.get("POWERTOOLS_TRACE_DISABLED", "false").strip().lower() in TRUTHY:
        return False
    return bool(env.get("LAMBDA_TASK_ROOT")) and not env.get("AWS_SAM_LOCAL")


class OffSegment(BaseSegment):
    """A (sub)segment that records nothing."""

    def close(self, end_time: int | None = None) -> None:
        pass

    def add_subsegment(self, subsegment: Any) -> None:
        pass

    def remove_subsegment(self, subsegment: Any) -> None:
        pass

    def put_annotation(self, key: str, value: Any) -> None:
        pass

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        pass

    def add_exception(self, exception: BaseException, stack: Any, remote: bool = False) -> None:
        pass


class OffProvider(BaseProvider):
    """The provider of a Tracer with tracing off: no segment is recorded, no SDK is loaded."""

    @contextlib.contextmanager
    def in_subsegment(self, name: str | None = None, **kwargs: Any) -> Iterator[BaseSegment]:
        yield OffSegment()

    @contextlib.asynccontextmanager
    async def in_subsegment_async(self, name: str | None = None, **kwargs: Any) -> Any:
        yield OffSegment()

    def put_annotation(self, key: str, value: Any) -> None:
        pass

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        pass

    def patch(self, modules: Any) -> None:
        pass

    def patch_all(self) -> None:
        pass


def make_tracer(env: dict[str, str] | os._Environ = os.environ) -> Tracer:
    """Powertools' Tracer: on, with its X-Ray provider; off, with `OffProvider`."""
    if tracing_enabled(env):
        return Tracer(service=SERVICE)
    return Tracer(service=SERVICE, disabled=True, provider=OffProvider())


logger = Logger(service=SERVICE)
metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Mafia"), service=SERVICE)
tracer = make_tracer()


def count(name: str, value: float = 1, unit: str = MetricUnit.Count) -> None:
    """Add to a metric; never lets telemetry break a request."""
    try:
        metrics.add_metric(name=name, unit=unit, value=value)
    except Exception:  # noqa: BLE001 - metrics are best effort
        logger.debug("metric dropped", extra={"metric": name})
