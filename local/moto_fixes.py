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
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable
from typing import Any

from moto.dynamodb.comparisons import get_filter_expression
from moto.dynamodb.exceptions import (
    MultipleTransactionsException,
    TooManyTransactionsException,
    TransactionCanceledException,
    TransactWriteSingleOpException,
)
from moto.dynamodb.models import DynamoDBBackend

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


def patch_moto() -> None:
    """Install the transaction fix (idempotent)."""
    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]


def serialize_dynamodb(app: Callable) -> Callable:
    """WSGI middleware: one DynamoDB request at a time (other services pass through)."""
    lock = threading.Lock()

    def wrapped(environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("HTTP_X_AMZ_TARGET", "").startswith("DynamoDB_"):
            with lock:
                return list(app(environ, start_response))
        return app(environ, start_response)

    return wrapped
