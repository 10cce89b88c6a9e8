"""DynamoDB TTL, emulated: moto stores the TTL setting but never deletes expired items
(test: ``test_moto_never_expires_items_so_the_sweeper_deletes_them``).

Items whose TTL attribute is below the virtual clock are deleted some time later (the
lag), as AWS deletes them "within days"; handlers must filter expired items on read.
On a manual clock the stack sweeps after every step instead of on a timer (``run`` is not
started).
"""

from __future__ import annotations

import asyncio
import logging
from decimal import Decimal

import boto3

from .clock import GameClock

log = logging.getLogger("local.ttl")


class TtlSweeper:
    """Deletes expired items of one table every ``interval_s`` (virtual seconds)."""

    def __init__(
        self,
        table_name: str,
        attribute: str,
        clock: GameClock,
        *,
        lag_s: float = 300.0,
        interval_s: float = 60.0,
        executor=None,
    ) -> None:
        self.table_name = table_name
        self.attribute = attribute
        self.clock = clock
        self.lag_s = lag_s
        self.interval_s = interval_s
        self.executor = executor
        self.client = boto3.client("dynamodb")
        self.deleted = 0

    def _expired_keys(self, cutoff: float) -> list[dict]:
        """Keys of expired items, read from moto's in-process table under the DynamoDB lock:
        a Scan through the API would walk and filter every item in moto's serializer and
        stall the handlers for as long (the moto internals are pinned by MOTO_VERSION)."""
        from moto.core import DEFAULT_ACCOUNT_ID
        from moto.dynamodb.models import dynamodb_backends

        from .moto_fixes import DYNAMODB_LOCK

        table = dynamodb_backends[DEFAULT_ACCOUNT_ID][self.client.meta.region_name].get_table(self.table_name)
        keys = []
        with DYNAMODB_LOCK:
            for bucket in list(table.items.values()):
                for item in bucket.values() if table.range_key_attr else [bucket]:
                    value = item.attrs.get(self.attribute)
                    # Like AWS: only numeric epoch-seconds values expire; anything else is ignored.
                    if value is None or value.type != "N" or float(value.value) >= cutoff:
                        continue
                    key = {table.hash_key_attr: item.hash_key.to_json()}
                    if table.range_key_attr:
                        key[table.range_key_attr] = item.range_key.to_json()
                    keys.append(key)
        return keys

    def sweep(self) -> int:
        """One pass; returns how many items it deleted."""
        cutoff = Decimal(str(int(self.clock.now() - self.lag_s)))
        return self._delete(self._expired_keys(float(cutoff)), cutoff)

    def _delete(self, keys: list[dict], cutoff: Decimal) -> int:
        count = 0
        for key in keys:
            try:
                self.client.delete_item(
                    TableName=self.table_name,
                    Key=key,
                    # Skip an item a handler has just refreshed.
                    ConditionExpression="#ttl < :cutoff",
                    ExpressionAttributeNames={"#ttl": self.attribute},
                    ExpressionAttributeValues={":cutoff": {"N": str(cutoff)}},
                )
                count += 1
            except self.client.exceptions.ConditionalCheckFailedException:
                pass
        self.deleted += count
        return count

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(max(0.2, self.clock.real_delay(self.interval_s)))
            try:
                n = await loop.run_in_executor(self.executor, self.sweep)
                if n:
                    log.info("TTL: deleted %d expired item(s)", n)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - keep sweeping through a hiccup
                log.exception("TTL sweep failed")
