"""Powertools Logger, Metrics and Tracer shared by every handler (one instance each).

Log keys: `correlation_id` (the API Gateway request id; the room and phase for a timer),
`connection`, `room` and `player`. Tokens are never logged (handlers do not log events).
"""

from __future__ import annotations

import os
import warnings

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit

# A handler that only reads (sync, a refused frame) has no metric to publish: not a problem.
warnings.filterwarnings("ignore", message="No application metrics to publish")

SERVICE = os.environ.get("POWERTOOLS_SERVICE_NAME", "mafia")
logger = Logger(service=SERVICE)
metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Mafia"), service=SERVICE)
tracer = Tracer(service=SERVICE)  # off with POWERTOOLS_TRACE_DISABLED (tests, the offline stack)


def count(name: str, value: float = 1, unit: str = MetricUnit.Count) -> None:
    """Add to a metric; never lets telemetry break a request."""
    try:
        metrics.add_metric(name=name, unit=unit, value=value)
    except Exception:  # noqa: BLE001 - metrics are best effort
        logger.debug("metric dropped", extra={"metric": name})
