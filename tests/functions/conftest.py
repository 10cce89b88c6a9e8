"""Fixtures for the handler tests: moto (`mock_aws`), the table from template.yaml, a fake
gateway that records pushes (moto's management API cannot answer Gone), a controllable clock.
"""

from __future__ import annotations

import os
import random
import secrets

import pytest

os.environ.update(
    AWS_DEFAULT_REGION="us-east-1",
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_SECURITY_TOKEN="testing",
    AWS_SESSION_TOKEN="testing",
    TABLE_NAME="mafia-test",
    WS_URL="wss://ws.example/test",
    WS_MANAGEMENT_ENDPOINT="https://ws.example/test",
    SCHEDULE_GROUP="mafia-test-phases",
    SCHEDULER_ROLE_ARN="arn:aws:iam::123456789012:role/scheduler",
    TIMER_FUNCTION_ARN="arn:aws:lambda:us-east-1:123456789012:function:mafia-test-timer",
    ALLOWED_ORIGINS="*",
    POWERTOOLS_TRACE_DISABLED="true",
    POWERTOOLS_METRICS_DISABLED="true",
    POWERTOOLS_LOG_LEVEL="WARNING",
)
for var in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SCHEDULER", "AWS_PROFILE"):
    os.environ.pop(var, None)

import boto3  # noqa: E402
from fnkit import Api, Clock, FakeGateway  # noqa: E402
from moto import mock_aws  # noqa: E402

from local import template  # noqa: E402
from service import clock, config  # noqa: E402


@pytest.fixture(autouse=True)
def room_seeds(monkeypatch, request):
    """Rooms draw their game seed with `secrets.randbits`; here each test draws from its own
    fixed sequence, so a test whose course depends on the deal passes or fails every time."""
    monkeypatch.setattr(secrets, "randbits", random.Random(request.node.nodeid).getrandbits)


@pytest.fixture
def fake_clock(monkeypatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(clock, "now", c)
    return c


@pytest.fixture
def aws():
    with mock_aws():
        ddb = boto3.client("dynamodb")
        template.create_table(ddb, os.environ["TABLE_NAME"])
        boto3.client("scheduler").create_schedule_group(Name=os.environ["SCHEDULE_GROUP"])
        yield ddb


@pytest.fixture
def gateway() -> FakeGateway:
    return FakeGateway()


@pytest.fixture
def svc(aws, gateway, fake_clock):
    service = config.build_service(gateway=gateway)
    config.set_service(service)
    yield service
    config.set_service(None)


@pytest.fixture
def api(svc, gateway, fake_clock):
    return Api(svc, gateway, fake_clock)


def pytest_configure(config):
    # A request that only reads (sync, a refused frame) has no metric to publish.
    config.addinivalue_line("filterwarnings", "ignore:No application metrics to publish")
