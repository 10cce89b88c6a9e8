"""Powertools Logger, Metrics and Tracer shared by every handler (one instance each).

Log keys: `correlation_id` (the API Gateway request id; the room and phase for a timer),
`connection`, `room` and `player`. Tokens are never logged (handlers do not log events).

The Tracer is Powertools' real one only when tracing is on; Powertools' Tracer imports the
X-Ray SDK even when it is disabled (about a cold `import boto3` of time), so with tracing off
`tracer` is a `NoTracer` with the same decorator API. Tracing is off under the same rule the
Powertools Tracer uses: `POWERTOOLS_TRACE_DISABLED` true (tests, the offline stack), or not in
Lambda (`LAMBDA_TASK_ROOT` unset), or in SAM local (`AWS_SAM_LOCAL`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.logging import Logger
from aws_lambda_powertools.metrics import Metrics, MetricUnit

# A handler that only reads (sync, a refused frame) has no metric to publish: not a problem.
warnings.filterwarnings("ignore", message="No application metrics to publish")

SERVICE = os.environ.get("POWERTOOLS_SERVICE_NAME", "mafia")
TRUTHY = frozenset({"1", "y", "yes", "t", "true", "on"})


def tracing_enabled(env: dict[str, str] | os._Environ = os.environ) -> bool:
    """Whether X-Ray tracing is on (the Powertools Tracer's own rule, read in one place)."""
    if env.get("POWERTOOLS_TRACE_DISABLED", "false").strip().lower() in TRUTHY:
        return False
    return bool(env.get("LAMBDA_TASK_ROOT")) and not env.get("AWS_SAM_LOCAL")


class NoTracer:
    """The Tracer's decorator API, doing nothing (tracing off: no X-Ray SDK import)."""

    def capture_lambda_handler(self, fn: Callable | None = None, **_: Any) -> Callable:
        return fn if fn is not None else _unchanged

    def capture_method(self, fn: Callable | None = None, **_: Any) -> Callable:
        return fn if fn is not None else _unchanged

    def put_annotation(self, key: str, value: Any) -> None:
        pass

    def put_metadata(self, key: str, value: Any, namespace: str | None = None) -> None:
        pass


def _unchanged(fn: Callable) -> Callable:
    return fn


def make_tracer(env: dict[str, str] | os._Environ = os.environ) -> Any:
    """Powertools' Tracer when tracing is on, else a `NoTracer`."""
    if not tracing_enabled(env):
        return NoTracer()
    from aws_lambda_powertools.tracing import Tracer  # imports the X-Ray SDK

    return Tracer(service=SERVICE)


logger = Logger(service=SERVICE)
metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Mafia"), service=SERVICE)
tracer = make_tracer()


def count(name: str, value: float = 1, unit: str = MetricUnit.Count) -> None:
    """Add to a metric; never lets telemetry break a request."""
    try:
        metrics.add_metric(name=name, unit=unit, value=value)
    except Exception:  # noqa: BLE001 - metrics are best effort
        logger.debug("metric dropped", extra={"metric": name})
