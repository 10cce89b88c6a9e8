"""The environment every handler reads (docs/architecture.md, "Environment"), for running
them in this process against moto: fake ARNs and endpoints, no real credentials, and none of
the variables that would point boto3 at a real endpoint or profile."""

from __future__ import annotations

import os

BASE = {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "TABLE_NAME": "mafia-test",
    "WS_URL": "wss://ws.example/test",
    "WS_MANAGEMENT_ENDPOINT": "https://ws.example/test",
    "SCHEDULE_GROUP": "mafia-test-phases",
    "SCHEDULER_ROLE_ARN": "arn:aws:iam::123456789012:role/scheduler",
    "TIMER_FUNCTION_ARN": "arn:aws:lambda:us-east-1:123456789012:function:mafia-test-timer",
    "ALLOWED_ORIGINS": "*",
    # the secret CloudFront adds to REST requests (local/events.py adds it to the events it builds)
    "MAFIA_ORIGIN_SECRET": "origin-secret-of-the-tests",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "POWERTOOLS_LOG_LEVEL": "WARNING",
}
UNSET = ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SCHEDULER", "AWS_PROFILE",
         "AWS_ENDPOINT_URL_SECRETS_MANAGER", "TURN_URLS", "TURN_SECRET_ARN",
         "SESSION_SECRET_ARN", "WEBAUTHN_RP_ID", "WEBAUTHN_ORIGINS",
         "MAFIA_CLOCK_FILE", "MAFIA_CLOCK_RATE", "MAFIA_CLOCK_ORIGIN")


def apply(**overrides: str) -> dict[str, str]:
    """Set the handlers' environment in `os.environ` (before boto3 or a handler is imported);
    returns what was set."""
    env = {**BASE, **overrides}
    os.environ.update(env)
    for var in UNSET:
        os.environ.pop(var, None)
    return env
