"""The pins and the moto fixes of the offline stack (local/moto_fixes.py, local/ttl.py).

Each fix has a test named after the moto behaviour it corrects: the behaviour is shown in
plain moto (so the test tells when an upgrade makes a fix unnecessary) and gone once patched.
The ``patched`` fixture installs the fixes and restores plain moto afterwards."""

from __future__ import annotations

import copy
import gc
import os
import re
import threading
from pathlib import Path

import boto3
import moto
import pytest
from moto.dynamodb import models as ddb_models
from moto.dynamodb.models.dynamo_type import Item
from moto.dynamodb.models.table import Table
from moto.dynamodb.responses import DynamoHandler
from packaging.requirements import Requirement

import local.__main__ as local_main
from harness.emulator import with_fixes
from local import aws as local_aws
from local import moto_fixes
from local.ttl import TtlSweeper

REPO = Path(__file__).resolve().parents[2]
TABLE = os.environ["TABLE_NAME"]

# moto as released (the `aws` fixture would patch it): the `patched` fixture installs the fixes
pytestmark = [pytest.mark.plain_moto, pytest.mark.fresh_aws]  # and it counts what moto walks


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_pins(name: str) -> dict[str, str]:
    pins = {}
    for line in (REPO / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            pkg, sep, version = line.partition("==")
            assert sep, f"{name}: not an exact pin: {line!r}"
            pins[_norm(pkg)] = version.strip()
    return pins


@pytest.fixture
def patched(monkeypatch):
    with_fixes(monkeypatch)  # monkeypatch restores plain moto afterwards
    moto_fixes.patch_moto()


def put(ddb, pk: str, sk: str = "R", **attrs) -> None:
    ddb.put_item(TableName=TABLE, Item={"pk": {"S": pk}, "sk": {"S": sk}, **attrs})


# ---------------------------------------------------------------------------- pins


@pytest.mark.parametrize(
    "direct, lock",
    [
        ("requirements-dev.txt", "requirements.lock"),
        ("layers/engine/requirements.txt", "requirements.lock"),
        ("requirements-sam.txt", "requirements-sam.lock"),
    ],
)
def test_every_direct_dependency_is_pinned_exactly_in_its_lock(direct, lock):
    pins = lock_pins(lock)
    for line in (REPO / direct).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        req = Requirement(line)
        assert _norm(req.name) in pins, f"{req.name} of {direct} is not pinned in {lock}"
        assert req.specifier.contains(pins[_norm(req.name)], prereleases=True), (req, pins[_norm(req.name)])


def test_the_fixes_are_written_for_the_moto_the_lock_pins_and_installed():
    assert moto_fixes.MOTO_VERSION == lock_pins("requirements.lock")["moto"]
    assert moto.__version__ == moto_fixes.MOTO_VERSION


def test_the_offline_stack_refuses_another_moto_naming_the_pinned_version(monkeypatch, capsys):
    with pytest.raises(moto_fixes.MotoVersionError, match=re.escape(f"moto {moto_fixes.MOTO_VERSION}")):
        moto_fixes.check_moto_version("5.99.0")
    monkeypatch.setattr(moto, "__version__", "5.99.0")
    with pytest.raises(moto_fixes.MotoVersionError):
        moto_fixes.patch_moto()
    assert local_main.main(["--port", "0"]) == 2
    err = capsys.readouterr().err
    assert f"written for moto {moto_fixes.MOTO_VERSION}" in err and "found 5.99.0" in err


# ---------------------------------------------------------------------------- fixes


def _table_deepcopies(monkeypatch) -> list:
    copied = []
    real = copy.deepcopy

    def counting(obj, *args, **kwargs):
        if isinstance(obj, Table):
            copied.append(obj.name)
        return real(obj, *args, **kwargs)

    monkeypatch.setattr(ddb_models.copy, "deepcopy", counting)
    return copied


def _transaction(ddb) -> None:
    ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "T"}, "sk": {"S": "R"}}}},
            {
                "Update": {
                    "TableName": TABLE,
                    "Key": {"pk": {"S": "A"}, "sk": {"S": "R"}},
                    "UpdateExpression": "SET n = :n",
                    "ExpressionAttributeValues": {":n": {"N": "1"}},
                }
            },
        ]
    )


def test_moto_transactions_deep_copy_every_touched_table(aws, monkeypatch):
    for i in range(20):
        put(aws, f"X{i}")
    copied = _table_deepcopies(monkeypatch)
    _transaction(aws)
    assert copied == [TABLE, TABLE]  # plain moto: the whole table per transaction item


def test_patched_transactions_copy_only_the_touched_items_and_stay_all_or_nothing(aws, patched, monkeypatch):
    for i in range(20):
        put(aws, f"X{i}")
    copied = _table_deepcopies(monkeypatch)
    _transaction(aws)
    assert copied == []
    assert aws.get_item(TableName=TABLE, Key={"pk": {"S": "A"}, "sk": {"S": "R"}})["Item"]["n"] == {"N": "1"}
    with pytest.raises(aws.exceptions.TransactionCanceledException):
        aws.transact_write_items(
            TransactItems=[
                {"Delete": {"TableName": TABLE, "Key": {"pk": {"S": "X1"}, "sk": {"S": "R"}}}},
                {
                    "ConditionCheck": {
                        "TableName": TABLE,
                        "Key": {"pk": {"S": "A"}, "sk": {"S": "R"}},
                        "ConditionExpression": "n = :two",
                        "ExpressionAttributeValues": {":two": {"N": "2"}},
                    }
                },
            ]
        )
    assert "Item" in aws.get_item(TableName=TABLE, Key={"pk": {"S": "X1"}, "sk": {"S": "R"}})


def test_patched_transactions_undo_what_they_wrote_when_a_later_write_fails(aws, patched):
    put(aws, "GONE", n={"N": "5"})
    with pytest.raises(aws.exceptions.ClientError):
        aws.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "NEW"}, "sk": {"S": "R"}}}},
                {"Delete": {"TableName": TABLE, "Key": {"pk": {"S": "GONE"}, "sk": {"S": "R"}}}},
                {
                    "Update": {  # fails while writing: n is a string, ADD wants a number
                        "TableName": TABLE,
                        "Key": {"pk": {"S": "ODD"}, "sk": {"S": "R"}},
                        "UpdateExpression": "SET s = :s ADD s :one",
                        "ExpressionAttributeValues": {":s": {"S": "x"}, ":one": {"N": "1"}},
                    }
                },
            ]
        )
    assert "Item" not in aws.get_item(TableName=TABLE, Key={"pk": {"S": "NEW"}, "sk": {"S": "R"}})
    back = aws.get_item(TableName=TABLE, Key={"pk": {"S": "GONE"}, "sk": {"S": "R"}})
    assert back["Item"]["n"] == {"N": "5"}


def _items_walked(monkeypatch) -> list[int]:
    walked = []
    inner = Table.all_items

    def counting(self):
        items = inner(self)
        walked.append(len(items))
        return items

    monkeypatch.setattr(Table, "all_items", counting)
    return walked


def _query_one_room(ddb) -> list:
    for i in range(30):
        put(ddb, f"ROOM#{i}", "R")
    put(ddb, "ROOM#7", "CONN#a")
    out = ddb.query(
        TableName=TABLE,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": "ROOM#7"}},
        ConsistentRead=True,
    )
    return [it["sk"]["S"] for it in out["Items"]]


def test_moto_query_walks_every_item_of_the_table(aws, monkeypatch):
    walked = _items_walked(monkeypatch)
    assert _query_one_room(aws) == ["CONN#a", "R"]
    assert walked == [31]


def test_patched_query_walks_only_the_partition_asked_for(aws, patched, monkeypatch):
    walked = _items_walked(monkeypatch)
    assert _query_one_room(aws) == ["CONN#a", "R"]
    assert walked == [2]


def _model_serializer_calls(monkeypatch) -> list[str]:
    calls = []
    real = moto_fixes._serialized

    def counting(self, result):
        calls.append(self._get_action())
        return real(self, result)

    monkeypatch.setattr(moto_fixes, "_serialized", counting)
    if DynamoHandler.serialized is real:  # plain moto: count its own serializer
        monkeypatch.setattr(DynamoHandler, "serialized", counting)
    return calls


def test_moto_writes_every_item_response_through_its_model_serializer(aws, monkeypatch):
    put(aws, "S", data={"B": b"\x00\x01"}, n={"N": "1.5"})
    calls = _model_serializer_calls(monkeypatch)
    item = aws.get_item(TableName=TABLE, Key={"pk": {"S": "S"}, "sk": {"S": "R"}})["Item"]
    assert calls == ["GetItem"]
    assert item["data"] == {"B": b"\x00\x01"} and item["n"] == {"N": "1.5"}


def test_patched_item_responses_skip_the_model_serializer_with_the_same_body(aws, patched, monkeypatch):
    put(aws, "S", data={"B": b"\x00\x01"}, n={"N": "1.5"})
    calls = _model_serializer_calls(monkeypatch)
    item = aws.get_item(TableName=TABLE, Key={"pk": {"S": "S"}, "sk": {"S": "R"}})["Item"]
    assert calls == []
    assert item["data"] == {"B": b"\x00\x01"} and item["n"] == {"N": "1.5"}
    aws.describe_table(TableName=TABLE)  # not an item operation: moto's serializer
    assert calls == ["DescribeTable"]


def test_patched_item_responses_match_the_model_serializer_for_every_write(aws, patched, monkeypatch, caplog):
    """The offline stack's check (LOCAL_MOTO_VERIFY) compares each fast body with moto's own:
    a delete (its TTL sweeper's call) once carried moto's legacy `ConsumedCapacityUnits`."""
    monkeypatch.setattr(moto_fixes, "_VERIFY", True)
    put(aws, "V", n={"N": "1"})
    aws.update_item(
        TableName=TABLE,
        Key={"pk": {"S": "V"}, "sk": {"S": "R"}},
        UpdateExpression="SET n = :n",
        ExpressionAttributeValues={":n": {"N": "2"}},
    )
    aws.delete_item(TableName=TABLE, Key={"pk": {"S": "V"}, "sk": {"S": "R"}})
    assert "fast serializer differs" not in caplog.text


def test_moto_keeps_every_model_instance_it_ever_built(aws):
    before = len(Item.instances_tracked)
    for i in range(10):
        put(aws, f"M{i}")
        aws.delete_item(TableName=TABLE, Key={"pk": {"S": f"M{i}"}, "sk": {"S": "R"}})
    gc.collect()
    assert len(Item.instances_tracked) - before >= 10  # deleted items, still referenced


def test_patched_moto_lets_deleted_items_go(aws, patched):
    before = sum(isinstance(o, Item) for o in gc.get_objects())
    for i in range(10):
        put(aws, f"M{i}")
        aws.delete_item(TableName=TABLE, Key={"pk": {"S": f"M{i}"}, "sk": {"S": "R"}})
    gc.collect()
    assert Item.instances_tracked == []
    assert sum(isinstance(o, Item) for o in gc.get_objects()) <= before


def test_the_local_moto_server_runs_one_dynamodb_request_at_a_time(patched, monkeypatch):
    """moto's threaded server takes no lock: a conditional write is not atomic against a
    concurrent one. The offline stack holds DYNAMODB_LOCK around every DynamoDB request."""
    held = []
    real_put = ddb_models.DynamoDBBackend.put_item

    def recording(self, *args, **kwargs):
        held.append(moto_fixes.DYNAMODB_LOCK.locked())
        return real_put(self, *args, **kwargs)

    monkeypatch.setattr(ddb_models.DynamoDBBackend, "put_item", recording)
    server = local_aws.Moto()
    server.start()
    try:
        ddb = boto3.client("dynamodb", endpoint_url=server.url)
        ddb.create_table(
            TableName="lock-test",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        ddb.put_item(TableName="lock-test", Item={"pk": {"S": "a"}})
        ddb.delete_table(TableName="lock-test")
    finally:
        server.stop()
    assert held == [True]
    assert not moto_fixes.DYNAMODB_LOCK.locked()
    assert threading.active_count() >= 1


class _Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def now(self) -> float:
        return self.t


def test_moto_never_expires_items_so_the_sweeper_deletes_them(aws):
    assert aws.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"]["AttributeName"] == "expiresAt"
    put(aws, "OLD", expiresAt={"N": "1000"})
    put(aws, "FRESH", expiresAt={"N": "999999"})
    put(aws, "ODD", expiresAt={"S": "1000"})  # not a number: never expires, as on AWS
    key = {"pk": {"S": "OLD"}, "sk": {"S": "R"}}
    assert "Item" in aws.get_item(TableName=TABLE, Key=key)  # plain moto keeps it
    sweeper = TtlSweeper(TABLE, "expiresAt", _Clock(500_000), lag_s=300)
    assert sweeper.sweep() == 1
    assert "Item" not in aws.get_item(TableName=TABLE, Key=key)
    for pk in ("FRESH", "ODD"):
        assert "Item" in aws.get_item(TableName=TABLE, Key={"pk": {"S": pk}, "sk": {"S": "R"}})
