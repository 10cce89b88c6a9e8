"""Two gaps of moto's DynamoDB that only show under concurrent load, fixed in the emulator
(never in the handlers):

1. ``transact_write_items`` deep-copies every touched table once per transaction item as
   its rollback backup: each transaction costs O(table size), and the stack slows down as
   rooms accumulate. DynamoDB checks every condition first and then writes all or nothing;
   ``transact_write_items`` below does exactly that, backing up only the touched items.
2. moto's server answers requests on many threads without any locking, so a conditional
   write is not atomic against a concurrent one (two writers can both pass
   ``version = :v``), and a rolled-back transaction can restore a table copy that drops
   other requests' writes. DynamoDB makes every write atomic; ``serialize_dynamodb``
   runs DynamoDB requests one at a time (they are in-memory and short).
3. ``Query`` on the base table sorts and walks every item of the table to find one
   partition: O(table size) per read. ``query_one_partition`` hands moto's query only the
   items of the partition asked for (the result is the same).
4. Every DynamoDB response goes through moto's model-driven serializer, which walks the
   output shape member by member: about half of the stack's CPU under load.
   ``fast_serialized`` writes the item operations' results (already in wire shape) with
   ``json.dumps``; set ``LOCAL_MOTO_VERIFY=1`` to compare both on every response.
"""

from __future__ import annotations

import base64
import copy
import json
import logging
import os
import threading
from collections.abc import Callable, Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

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
                self.put_item(op["TableName"], op["Item"], expression_attribute_names=names,
                              expression_attribute_values=values)
            elif op_type == "Delete":
                self.delete_item(op["TableName"], key, expression_attribute_names=names,
                                 expression_attribute_values=values)
            elif op_type == "Update":
                self.update_item(op["TableName"], key, update_expression=op["UpdateExpression"],
                                 expression_attribute_names=names, expression_attribute_values=values)
    except Exception:
        # Undo, item by item, whatever part of the transaction was written.
        for _op_type, op, key, before in reversed(plan):
            if before is None:
                self.get_table(op["TableName"]).delete_item(*_typed_key(self, op["TableName"], key))
            else:
                self.get_table(op["TableName"]).put_item(before.to_json()["Attributes"])
        raise


def _typed_key(self: DynamoDBBackend, table_name: str, key: dict) -> tuple[Any, Any]:
    from moto.dynamodb.models.dynamo_type import DynamoType

    table = self.get_table(table_name)
    hash_value = DynamoType(key[table.hash_key_attr])
    range_value = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
    return hash_value, range_value


_partition = threading.local()
_all_items = Table.all_items
_query = Table.query


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
    index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
    if index_name is not None or hash_key is None:
        return _query(self, hash_key, *args, **kwargs)
    _partition.scope = (self, hash_key)
    try:
        return _query(self, hash_key, *args, **kwargs)
    finally:
        _partition.scope = None


_FAST_OPS = frozenset({
    "Query", "Scan", "GetItem", "PutItem", "DeleteItem", "UpdateItem", "BatchGetItem",
    "BatchWriteItem", "TransactGetItems", "TransactWriteItems",
})
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
    if op not in _FAST_OPS or not isinstance(result, dict) or type(action_result).__name__ not in (
            "ActionResult", "DynamoResult"):
        return _serialized(self, action_result)
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


def patch_moto() -> None:
    """Install the fixes (idempotent)."""
    DynamoHandler.serialized = fast_serialized  # type: ignore[method-assign]
    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    Table.all_items = _partition_items  # type: ignore[method-assign]
    Table.query = query_one_partition  # type: ignore[method-assign]


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
