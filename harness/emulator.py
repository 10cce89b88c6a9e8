"""moto for the in-process tiers: the offline stack's emulator fixes (local/moto_fixes.py) for
one test, the same moto `make dev` runs on, about twice as fast (the handlers are untouched); and
one moto account a whole session shares (`Account`)."""

from __future__ import annotations

import os
import threading
from typing import Any

import boto3
from moto import mock_aws
from moto.core.base_backend import BackendDict
from moto.core.model_instances import reset_model_data
from moto.dynamodb.responses import DynamoHandler

from local import template
from service.infra.storage import CONN_PREFIX

# DynamoDB runs a conditional write atomically; moto's backend does not against a concurrent
# thread (a test racing 20 clients for the last seats saw two told they had the same seat, on a
# loaded machine). The offline stack's server holds local.moto_fixes.DYNAMODB_LOCK around each
# DynamoDB request for the same reason; in process, each DynamoDB call holds this one.
_ONE_DYNAMODB_CALL = threading.RLock()
_call_action = DynamoHandler.call_action


def _one_call_at_a_time(self: DynamoHandler) -> Any:
    with _ONE_DYNAMODB_CALL:
        return _call_action(self)


def with_fixes(monkeypatch: Any) -> None:
    """Install every fix of `local.moto_fixes.PATCHES` through pytest's `monkeypatch`, which
    puts moto as released back after the test; and one DynamoDB call at a time."""
    from local import moto_fixes

    for owner, name, replacement in moto_fixes.PATCHES:
        monkeypatch.setattr(owner, name, replacement)
    monkeypatch.setattr(DynamoHandler, "call_action", _one_call_at_a_time)


class Account:
    """One moto account for a test session: one `mock_aws`, the table from template.yaml
    and the schedule group made once (the template parsed once). Each test makes its own rooms
    (a room is its own partition, its schedules carry its code), so tests share the table; a
    test that asserts on table-wide state (a scan, a listing of the group, a queue by name)
    asks for a fresh account with the `fresh_aws` marker."""

    running: list[Account] = []  # the accounts started and not stopped (test_rehearsal.py restarts them)

    def __init__(self) -> None:
        self.mock = mock_aws()
        self.template = template.load()
        self.conn_keys: list[dict] = []

    def start(self) -> None:
        """Start moto afresh (`mock_aws.start` resets every backend) and make the table and
        the schedule group; every boto3 client made from the default session after this reports
        its connection-lookup writes to `record` (botocore's event system)."""
        self.mock.start()
        if self not in Account.running:
            Account.running.append(self)
        self.ddb = boto3.client("dynamodb")
        template.create_table(self.ddb, os.environ["TABLE_NAME"], self.template)
        boto3.client("scheduler").create_schedule_group(Name=os.environ["SCHEDULE_GROUP"])
        boto3.DEFAULT_SESSION.events.register("before-call.dynamodb.TransactWriteItems", self.record)
        boto3.DEFAULT_SESSION.events.register("before-call.dynamodb.PutItem", self.record)

    def restart(self) -> None:
        """A fresh account: every backend emptied, the table and the schedule group made again.
        What `mock_aws`'s stop and start do to the data (`BackendDict.reset`, the tracked model
        instances dropped), without the rest: its patching stays on and boto3's default session
        stays, whose clients would otherwise parse botocore's service models again (~0.13 CPU-s
        a restart, a hundred `fresh_aws` tests)."""
        BackendDict.reset()
        reset_model_data()
        template.create_table(self.ddb, os.environ["TABLE_NAME"], self.template)
        boto3.client("scheduler").create_schedule_group(Name=os.environ["SCHEDULE_GROUP"])

    def stop(self) -> None:
        self.mock.stop()
        if self in Account.running:
            Account.running.remove(self)

    def record(self, params: dict, **_: object) -> None:
        """Remember each connection lookup (`CONN#<id>`) a test writes:
        connection ids (`cp1`, `s1`) repeat from test to test, rooms do not."""
        puts = [op["Put"]["Item"] for op in params.get("TransactItems", []) if "Put" in op]
        for item in [*puts, params.get("Item") or {}]:
            if item.get("pk", {}).get("S", "").startswith(CONN_PREFIX):
                self.conn_keys.append({"pk": item["pk"], "sk": item["sk"]})

    def forget_connections(self) -> None:
        """Delete the connection lookups the test wrote: the next test's `cp1` is a new socket."""
        for key in self.conn_keys:
            self.ddb.delete_item(TableName=os.environ["TABLE_NAME"], Key=key)
        self.conn_keys.clear()
