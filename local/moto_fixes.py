"""What the offline stack corrects in moto (in the emulator only, never in the handlers).

Each fix names the moto behaviour it corrects; ``tests/functions/test_moto_fixes.py`` has a
test per behaviour that shows it in plain moto and its absence once patched. They reach into
moto internals, so ``check_moto_version`` refuses any moto but ``MOTO_VERSION`` (the one
``requirements.lock`` pins; a test keeps the two equal). After ``make lock`` moves moto, run
those tests, adjust the fixes, then set ``MOTO_VERSION``.

1. ``transact_write_items``: moto deep-copies every touched table per transaction as its
   rollback backup (O(table size) per transaction) and restores whole-table copies on
   failure. Here: conditions first, then the writes, undoing item by item.
2. ``serialize_dynamodb``: moto's server runs requests on many threads with no locking, so
   two conditional writes can both pass ``version = :v``. Here: one DynamoDB request at a time.
3. ``query_one_partition``: moto's ``Query`` on the base table sorts and walks every item of
   the table (``Table.all_items``) to find one partition. Here: only that partition's items.
4. ``fast_serialized``: moto writes every response through its model-driven serializer,
   about half of the stack's CPU under load. Here: item operations' results (already in wire
   shape) with ``json.dumps``; ``LOCAL_MOTO_VERIFY=1`` compares both on every response.
5. ``_untracked_new``: moto's ``BaseModel.__new__`` appends every model instance to its
   class's ``instances_tracked`` list (for moto's dashboard), forever: every ``Item`` built
   for a put, an update or a query result stayed alive (~4 MB per game). Here: not tracked.
"""

from __future__ import annotations

import base64
import copy
import inspect
import json
import logging
import os
import threading
from collections.abc import Callable, Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

import moto
from moto.core.common_models import BaseModel
from moto.dynamodb.comparisons import get_filter_expression
from moto.dynamodb.exceptions import (
    MultipleTransactionsException,
    TooManyTransactionsException,
    TransactionCanceledException,
    TransactWriteSingleOpException,
)
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.table import Table
from moto.dynamodb.responses import DynamoHandler

log = logging.getLogger("local.moto")

MOTO_VERSION = "5.2.5"  # the moto these fixes are written for (= requirements.lock)


class MotoVersionError(RuntimeError):
    pass


def check_moto_version(found: str | None = None) -> None:
    """Refuse any moto but the one these fixes are written for."""
    found = found or moto.__version__
    if found != MOTO_VERSION:
        raise MotoVersionError(
            f"the offline stack is written for moto {MOTO_VERSION} (requirements.lock), found {found}: "
            "run `make install`"
        )


_OPS = ("ConditionCheck", "Put", "Delete", "Update")


def _key_of(table: Any, op_type: str, op: dict) -> dict:
    if op_type != "Put":
        return op["Key"]
    attrs = op["Item"]
    key = {table.hash_key_attr: attrs[table.hash_key_attr]}
    if table.range_key_attr is not None:
        key[table.range_key_attr] = attrs[table.range_key_attr]
    return key


def transact_write_items(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
    """All conditions against the state before the transaction, then all writes, or none."""
    if len(transact_items) > 100:
        raise TooManyTransactionsException()
    seen: set[tuple[str, str]] = set()
    plan: list[tuple[str, dict, dict, Any]] = []
    errors: list[tuple[str | None, str | None, Any]] = []
    for item in transact_items:
        if len(item) > 1:
            raise TransactWriteSingleOpException
        op_type, op = next(iter(item.items()))
        if op_type not in _OPS:
            raise ValueError("Unsupported transaction operation")
        table_name = op["TableName"]
        key = _key_of(self.get_table(table_name), op_type, op)
        ident = (str(table_name), str(dict(sorted(key.items()))))
        if ident in seen:
            raise MultipleTransactionsException()
        seen.add(ident)
        current = self.get_item(table_name, key)
        plan.append((op_type, op, key, copy.deepcopy(current)))
        condition = op.get("ConditionExpression")
        if condition is not None and not get_filter_expression(
            condition, op.get("ExpressionAttributeNames"), op.get("ExpressionAttributeValues")
        ).expr(current):
            old = None
            if op.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD" and current:
                old = current.to_json()["Attributes"]
            errors.append(("ConditionalCheckFailed", "The conditional request failed", old))
        else:
            errors.append((None, None, None))
    if any(code is not None for code, _, _ in errors):
        raise TransactionCanceledException(errors)
    try:
        for op_type, op, key, _before in plan:
            names, values = op.get("ExpressionAttributeNames"), op.get("ExpressionAttributeValues")
            if op_type == "Put":
                self.put_item(
                    op["TableName"],
                    op["Item"],
                    expression_attribute_names=names,
                    expression_attribute_values=values,
                )
            elif op_type == "Delete":
                self.delete_item(
                    op["TableName"], key, expression_attribute_names=names, expression_attribute_values=values
                )
            elif op_type == "Update":
                self.update_item(
                    op["TableName"],
                    key,
                    update_expression=op["UpdateExpression"],
                    expression_attribute_names=names,
                    expression_attribute_values=values,
                )
    except Exception:
        # Undo, item by item, whatever part of the transaction was written.
        for _op_type, op, key, before in reversed(plan):
            if before is None:
                self.delete_item(op["TableName"], key)
            else:
                self.put_item(op["TableName"], before.to_json()["Attributes"])
        raise


_partition = threading.local()
_all_items = Table.all_items
_query = Table.query
_QUERY_ARGS = inspect.signature(_query)


def _partition_items(self: Table) -> list:
    """``Table.all_items``, restricted to one partition while a base-table query runs."""
    scope = getattr(_partition, "scope", None)
    if scope is None or scope[0] is not self:
        return _all_items(self)
    bucket = self.items.get(scope[1])
    if bucket is None:
        return []
    if not self.range_key_attr:
        return [bucket]
    return sorted(bucket.values(), key=lambda x: (x.hash_key, x.range_key) if x.range_key else x.hash_key)


def query_one_partition(self: Table, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
    index_name = _QUERY_ARGS.bind(self, hash_key, *args, **kwargs).arguments.get("index_name")
    if index_name is not None or hash_key is None:
        return _query(self, hash_key, *args, **kwargs)
    _partition.scope = (self, hash_key)
    try:
        return _query(self, hash_key, *args, **kwargs)
    finally:
        _partition.scope = None


_FAST_OPS = frozenset(
    {
        "Query",
        "Scan",
        "GetItem",
        "PutItem",
        "DeleteItem",
        "UpdateItem",
        "BatchGetItem",
        "BatchWriteItem",
        "TransactGetItems",
        "TransactWriteItems",
    }
)
_serialized = DynamoHandler.serialized


def _clean(value: Any) -> Any:
    """The result as the JSON serializer writes it: no None members, bytes as base64."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple | set):
        return [_clean(v) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime):
        return value.timestamp()
    return value


def fast_serialized(self: DynamoHandler, action_result: Any) -> Any:
    op = self._get_action()
    result = getattr(action_result, "result", None)
    if (
        op not in _FAST_OPS
        or not isinstance(result, dict)
        or type(action_result).__name__ not in ("ActionResult", "DynamoResult")
    ):
        return _serialized(self, action_result)
    # moto's DeleteItem result carries a legacy top-level `ConsumedCapacityUnits`, which is no
    # member of the operation's output: the shape-driven serializer drops it, and so must we
    # (the offline stack's TTL sweeper deletes; LOCAL_MOTO_VERIFY caught it)
    result = {k: v for k, v in result.items() if k != "ConsumedCapacityUnits"}
    body = json.dumps(_clean(result), separators=(",", ":"))
    headers = {"Content-Type": "application/x-amz-json-1.0"}
    headers.update(self.response_headers)
    if _VERIFY:
        status, ref_headers, ref_body = _serialized(self, action_result)
        if status != 200 or json.loads(ref_body) != json.loads(body):
            log.error("fast serializer differs for %s:\n%s\n%s", op, ref_body[:2000], body[:2000])
            return status, ref_headers, ref_body
    return 200, headers, body


_VERIFY = os.environ.get("LOCAL_MOTO_VERIFY") == "1"


def _untracked_new(cls: type, *args: Any, **kwargs: Any) -> Any:
    return object.__new__(cls)


PATCHES: tuple[tuple[type, str, Any], ...] = (
    (DynamoDBBackend, "transact_write_items", transact_write_items),
    (Table, "all_items", _partition_items),
    (Table, "query", query_one_partition),
    (DynamoHandler, "serialized", fast_serialized),
    (BaseModel, "__new__", staticmethod(_untracked_new)),
)


def patch_moto() -> None:
    """Install the fixes (idempotent); refuses a moto they were not written for."""
    check_moto_version()
    for owner, name, replacement in PATCHES:
        setattr(owner, name, replacement)
    # Drop what moto tracked before the patch (the stack's start-up: the table, the group).
    from moto.core.model_instances import reset_model_data

    reset_model_data()


DYNAMODB_LOCK = threading.Lock()


def serialize_dynamodb(app: Callable) -> Callable:
    """WSGI middleware: one DynamoDB request at a time (other services pass through)."""
    lock = DYNAMODB_LOCK

    def wrapped(environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("HTTP_X_AMZ_TARGET", "").startswith("DynamoDB_"):
            with lock:
                return list(app(environ, start_response))
        return app(environ, start_response)

    return wrapped
