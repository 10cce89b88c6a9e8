"""Fixtures for the handler tests: moto (`mock_aws`), the table from template.yaml, a fake
gateway that records pushes (moto's management API cannot answer Gone), a controllable clock.
"""

from __future__ import annotations

import os
import random
import secrets

import pytest

from harness import env  # noqa: E402 - stdlib only: before boto3 and the handlers

env.apply()

import boto3  # noqa: E402
from fnkit import Api, Clock, FakeGateway  # noqa: E402
from moto import mock_aws  # noqa: E402

from harness.emulator import with_fixes  # noqa: E402
from local import template  # noqa: E402
from service import clock, config, storage  # noqa: E402


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


class Account:
    """The tier's one moto account: one `mock_aws` for the session, the table from template.yaml
    and the schedule group made once (the template parsed once). Each test makes its own rooms
    (a room is its own partition, its schedules carry its code), so tests share the table; a
    test that asserts on table-wide state (a scan, a listing of the group, a queue by name)
    asks for a fresh account with the `fresh_aws` marker."""

    def __init__(self) -> None:
        self.mock = mock_aws()
        self.template = template.load()
        self.conn_keys: list[dict] = []

    def start(self) -> None:
        """Start moto afresh (`mock_aws.start` resets every backend) and make the table and
        the schedule group; every boto3 client made from the default session after this reports
        its connection-lookup writes to `record` (botocore's event system)."""
        self.mock.start()
        self.ddb = boto3.client("dynamodb")
        template.create_table(self.ddb, os.environ["TABLE_NAME"], self.template)
        boto3.client("scheduler").create_schedule_group(Name=os.environ["SCHEDULE_GROUP"])
        boto3.DEFAULT_SESSION.events.register("before-call.dynamodb.TransactWriteItems", self.record)
        boto3.DEFAULT_SESSION.events.register("before-call.dynamodb.PutItem", self.record)

    def restart(self) -> None:
        self.mock.stop()
        self.start()

    def record(self, params: dict, **_: object) -> None:
        """Remember each connection lookup (`CONN#<id>`, service/storage.py) a test writes:
        connection ids (`cp1`, `s1`) repeat from test to test, rooms do not."""
        puts = [op["Put"]["Item"] for op in params.get("TransactItems", []) if "Put" in op]
        for item in [*puts, params.get("Item") or {}]:
            if item.get("pk", {}).get("S", "").startswith(storage.CONN_PREFIX):
                self.conn_keys.append({"pk": item["pk"], "sk": item["sk"]})

    def forget_connections(self) -> None:
        """Delete the connection lookups the test wrote: the next test's `cp1` is a new socket."""
        for key in self.conn_keys:
            self.ddb.delete_item(TableName=os.environ["TABLE_NAME"], Key=key)
        self.conn_keys.clear()


@pytest.fixture(scope="session")
def account():
    acc = Account()
    acc.start()
    yield acc
    acc.mock.stop()


@pytest.fixture
def aws(request, monkeypatch, account):
    """moto with the offline stack's fixes (local/moto_fixes.py: emulator only, the handlers
    are untouched; `make dev` runs on the same), about twice as fast; a test marked
    `plain_moto` gets moto as released, one marked `fresh_aws` an account of its own (an
    empty table and schedule group, no queues)."""
    if request.node.get_closest_marker("plain_moto") is None:
        with_fixes(monkeypatch)  # plain moto again after the test
    if request.node.get_closest_marker("fresh_aws") is not None:
        account.restart()
    yield account.ddb
    account.forget_connections()


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
