"""Powertools Logger, Metrics and Tracer shared by every handler (one instance each).

Log keys: `room` and `player`. Tokens are never logged (handlers do not log events).
Tracing is off when POWERTOOLS_TRACE_DISABLED is set (tests, the offline stack).
"""

from __future__ import annotations

import os
import warnings

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

# A handler that only reads (sync, a refused frame) has no metric to publish: not a problem.
warnings.filterwarnings("ignore", message="No application metrics to publish")

SERVICE = os.environ.get("POWERTOOLS_SERVICE_NAME", "mafia")
logger = Logger(service=SERVICE)
metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Mafia"), service=SERVICE)


class _NoTracer:
    """Stands in for Tracer when tracing is off: creating a Tracer imports the X-Ray SDK
    (~0.1-0.2 s of cold start) even when it is disabled."""

    def capture_lambda_handler(self, fn=None, **kwargs):
        return fn if fn is not None else (lambda f: f)

    def capture_method(self, fn=None, **kwargs):
        return fn if fn is not None else (lambda f: f)

    def put_annotation(self, key: str, value) -> None:
        pass


def _tracer():
    if os.environ.get("POWERTOOLS_TRACE_DISABLED", "").lower() in ("1", "true", "yes"):
        return _NoTracer()
    from aws_lambda_powertools import Tracer

    return Tracer(service=SERVICE)


tracer = _tracer()


def count(name: str, value: float = 1, unit: str = MetricUnit.Count) -> None:
    """Add to a metric; never lets telemetry break a request."""
    try:
        metrics.add_metric(name=name, unit=unit, value=value)
    except Exception:  # noqa: BLE001 - metrics are best effort
        logger.debug("metric dropped", extra={"metric": name})
