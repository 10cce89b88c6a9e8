"""DynamoDB storage: one table, one partition per room (layout and why: docs/architecture.md, "Data").

One strongly consistent Query reads a room and its connections; writes are conditional on
`version`, several items in one TransactWriteItems; expired items are filtered on read.
"""

from __future__ import annotations

import json
import secrets
import zlib
from dataclasses import dataclass, field
from typing import Any

from . import clock, migrations

TTL_SECONDS = 24 * 3600
STATE_SK = "STATE"
CONN_PREFIX = "CONN#"
CHAT_PREFIX = "CHAT#"
# A spectator's place: `SPEC#<nn>` (nn < the cap) holds the connection that claimed it, written
# with the connection under a condition that the place is free, so concurrent connects cannot
# share one and a burst admits exactly the cap. "CONN#" < "SPEC#" < "STATE": the room's one
# Query returns them.
SLOT_PREFIX = "SPEC#"


class Conflict(Exception):
    """The conditional write lost a race (someone wrote the room since we read it)."""


@dataclass
class Snapshot:
    """One consistent read of a room: its item and its connections."""

    code: str
    version: int
    room: dict
    state: dict | None
    conns: dict[str, str | None] = field(default_factory=dict)  # connection id -> player id | None
    conn_since: dict[str, float] = field(default_factory=dict)  # connection id -> game time of $connect
    conn_patches: set[str] = field(default_factory=set)  # connections that asked for patches (patches.py)
    slots: dict[int, str] = field(default_factory=dict)  # spectator place -> connection holding it
    conn_log: dict[str, float] = field(default_factory=dict)  # connection -> time of its last chatLog page
    # connection -> its voice listener id (spectators only: `listener_id`; voice.py)
    listeners: dict[str, str] = field(default_factory=dict)
    size: int = 0  # stored bytes of the room item's data


@dataclass(frozen=True)
class WritePlan:
    """What one conditional write stores besides the room item: the one value the pipeline
    hands `Store.save` (`change.Effects.write_plan` makes it)."""

    bump: bool = True  # False: the room item is only checked, not written (spectator connects)
    conn_puts: dict[str, str | None] = field(default_factory=dict)  # connection id -> player | None
    conn_patches: frozenset[str] = frozenset()  # of `conn_puts`: connections that asked for patches
    conn_deletes: tuple[str, ...] = ()
    chat_items: tuple[tuple[int, list[dict]], ...] = ()  # archive items: (seq, messages)
    slot_claims: dict[int, str] = field(default_factory=dict)  # spectator place -> connection


def listener_id() -> str:
    """A spectator connection's voice address: 128 bits from the OS's CSPRNG, drawn at each
    connection item's put, from nothing else (not the connection id, not the room's seeds), so
    two connections' ids, or one connection's and its next one's, cannot be linked."""
    return "L" + secrets.token_urlsafe(16)


def room_pk(code: str) -> str:
    return f"ROOM#{code}"


def index_attributes(code: str, room: dict) -> dict:
    """The listed room's attributes for the two sparse indexes (none when it is not listed):
    keys `pubLang` / `pubPreset` + `pubRank` (fullest first, then the longest waiting), and the
    few attributes the indexes project (template.yaml: `INCLUDE`). Which room is listed: service/room/public.py (`track`)."""
    lst = room.get("listing")
    if not lst:
        return {}
    rank = f"{99 - lst['seats']:02d}#{int(lst['since']):011d}#{code}"
    return {
        "pubLang": {"S": lst["lang"]},
        "pubPreset": {"S": f"{lst['lang']}#{lst['preset']}"},
        "pubRank": {"S": rank},
        "pubSeats": {"N": str(lst["seats"])},
        "pubMax": {"N": str(lst["max"])},
        "listUntil": {"N": str(int(lst["until"]))},
    }


def encode(doc: dict) -> bytes:
    """Room data + state as compact, compressed JSON (keeps the item and its WCU small)."""
    return zlib.compress(json.dumps(doc, separators=(",", ":")).encode("utf-8"), 6)


def decode(blob: bytes) -> dict:
    return json.loads(zlib.decompress(blob))


class Store:
    """Reads and writes rooms through a low-level DynamoDB client (injected)."""

    def __init__(self, client: Any, table: str) -> None:
        self.client = client
        self.table = table

    # ---- reads -------------------------------------------------------------------------
    def load(self, code: str) -> Snapshot | None:
        """The room and its connections in one strongly consistent Query; None if gone."""
        now = clock.now()
        items: list[dict] = []
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "pk = :pk AND sk >= :c",
            "ExpressionAttributeValues": {":pk": {"S": room_pk(code)}, ":c": {"S": CONN_PREFIX}},
            "ConsistentRead": True,
        }
        while True:
            page = self.client.query(**kwargs)
            items.extend(page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        state_item = None
        conns: dict[str, str | None] = {}
        conn_since: dict[str, float] = {}
        slots: dict[int, str] = {}
        conn_log: dict[str, float] = {}
        conn_patches: set[str] = set()
        listeners: dict[str, str] = {}
        for it in items:
            sk = it["sk"]["S"]
            if float(it.get("expiresAt", {"N": "0"})["N"]) < now:
                continue  # TTL deletes "within days": expired means gone
            if sk == STATE_SK:
                state_item = it
            elif sk.startswith(CONN_PREFIX):
                conns[sk[len(CONN_PREFIX) :]] = it["player"]["S"] if "player" in it else None
                conn_since[sk[len(CONN_PREFIX) :]] = float(it.get("at", {"N": "0"})["N"])
                if "logAt" in it:
                    conn_log[sk[len(CONN_PREFIX) :]] = float(it["logAt"]["N"])
                if "patches" in it:
                    conn_patches.add(sk[len(CONN_PREFIX) :])
                if "listener" in it:
                    listeners[sk[len(CONN_PREFIX) :]] = it["listener"]["S"]
            elif sk.startswith(SLOT_PREFIX):
                slots[int(sk[len(SLOT_PREFIX) :])] = it["conn"]["S"]
        if state_item is None:
            return None
        blob = state_item["data"]["B"]
        doc = migrations.upgrade(decode(blob))  # an earlier release's room or state: this one's shape
        return Snapshot(
            code=code,
            version=int(state_item["version"]["N"]),
            room=doc["room"],
            state=doc.get("state"),
            conns=conns,
            conn_since=conn_since,
            slots=slots,
            conn_log=conn_log,
            conn_patches=conn_patches,
            listeners=listeners,
            size=len(blob),
        )

    def list_public(
        self, index: str, partition: str, limit: int, start: dict | None, now: float
    ) -> tuple[list[dict], dict | None, float]:
        """One page of a sparse public-room index (service/room/public.py): one eventually consistent
        Query of `index`'s `partition`, `limit` entries read, the idle ones (`listUntil` past)
        filtered out. Returns (items, LastEvaluatedKey or None, read units consumed)."""
        part = "pubLang" if index == "PublicByLang" else "pubPreset"
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "IndexName": index,
            "KeyConditionExpression": "#p = :p",
            "FilterExpression": "listUntil >= :now",
            "ExpressionAttributeNames": {"#p": part},
            "ExpressionAttributeValues": {":p": {"S": partition}, ":now": {"N": str(int(now))}},
            "Limit": limit,
            "ReturnConsumedCapacity": "TOTAL",
        }
        if start:
            kwargs["ExclusiveStartKey"] = start
        page = self.client.query(**kwargs)
        units = float((page.get("ConsumedCapacity") or {}).get("CapacityUnits") or 0.0)
        return page.get("Items", []), page.get("LastEvaluatedKey"), units

    def lookup_connection(self, conn_id: str) -> str | None:
        """The room code of a connection (GetItem on CONN#<id>), or None."""
        out = self.client.get_item(
            TableName=self.table,
            Key={"pk": {"S": CONN_PREFIX + conn_id}, "sk": {"S": "CONN"}},
            ProjectionExpression="#r, expiresAt",
            ExpressionAttributeNames={"#r": "room"},
        )
        item = out.get("Item")
        if not item or float(item.get("expiresAt", {"N": "0"})["N"]) < clock.now():
            return None
        return item["room"]["S"]

    def chat_archive(self, code: str, first: int, last: int) -> list[dict]:
        """The archived chat messages of a room's items `first`..`last` (its current game's),
        item by item (one strongly consistent Query, as the room read; each item holds one
        channel's batch). Bounded by `last` and live items only: a room code is reused once its
        room expires, and TTL deletes the old room's items days later, not at once."""
        msgs: list[dict] = []
        if last < first:
            return msgs
        now = clock.now()
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :a AND :b",
            "ExpressionAttributeValues": {
                ":pk": {"S": room_pk(code)},
                ":a": {"S": f"{CHAT_PREFIX}{first:08d}"},
                ":b": {"S": f"{CHAT_PREFIX}{last:08d}"},
            },
            "ConsistentRead": True,
        }
        while True:
            page = self.client.query(**kwargs)
            for it in page.get("Items", []):
                if float(it.get("expiresAt", {"N": "inf"})["N"]) < now:
                    continue  # an earlier room's item under the same code, not yet deleted
                msgs.extend(decode(it["data"]["B"])["messages"])
            if "LastEvaluatedKey" not in page:
                return msgs
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def chat_items(self, code: str, first: int, last: int, limit: int) -> list[tuple[int, list[dict]]]:
        """The newest `limit` archive items among `first`..`last`, newest first, as (seq,
        messages): one strongly consistent Query with `Limit`, so it reads those items only
        (read units = their size / 4 KB). Expired items (an earlier room with this code) are
        read but not returned."""
        if last < first:
            return []
        now = clock.now()
        page = self.client.query(
            TableName=self.table,
            KeyConditionExpression="pk = :pk AND sk BETWEEN :a AND :b",
            ExpressionAttributeValues={
                ":pk": {"S": room_pk(code)},
                ":a": {"S": f"{CHAT_PREFIX}{first:08d}"},
                ":b": {"S": f"{CHAT_PREFIX}{last:08d}"},
            },
            ScanIndexForward=False,
            Limit=limit,
            ConsistentRead=True,
        )
        return [
            (int(it["sk"]["S"][len(CHAT_PREFIX) :]), decode(it["data"]["B"])["messages"])
            for it in page.get("Items", [])
            if float(it.get("expiresAt", {"N": "inf"})["N"]) >= now
        ]

    def mark_chat_log(self, code: str, conn_id: str, now: float, seen: float | None) -> bool:
        """Note a `chatLog` page on the connection's item, on condition that its last page is
        still the one read (`seen`): of several pages in flight one passes. False if not."""
        cond = "attribute_exists(sk) AND " + (
            "attribute_not_exists(logAt)" if seen is None else "logAt = :seen"
        )
        values = {":now": {"N": repr(float(now))}}
        if seen is not None:
            values[":seen"] = {"N": repr(float(seen))}
        try:
            self.client.update_item(
                TableName=self.table,
                Key={"pk": {"S": room_pk(code)}, "sk": {"S": CONN_PREFIX + conn_id}},
                UpdateExpression="SET logAt = :now",
                ConditionExpression=cond,
                ExpressionAttributeValues=values,
            )
            return True
        except self.client.exceptions.ConditionalCheckFailedException:
            return False

    # ---- writes ------------------------------------------------------------------------
    def state_item(self, code: str, version: int, room: dict, state: dict | None) -> dict:
        now = clock.now()
        return {
            "pk": {"S": room_pk(code)},
            "sk": {"S": STATE_SK},
            "version": {"N": str(version)},
            "expiresAt": {"N": str(int(now + TTL_SECONDS))},
            "status": {"S": room.get("status", "lobby")},
            "data": {"B": encode({"room": room, "state": state})},
            # a listed public lobby: the sparse indexes' keys (service/room/public.py); any write
            # without them (the start, the last seat) takes the room off the list
            **index_attributes(code, room),
        }

    def create(self, code: str, room: dict) -> bool:
        """Write a new room; False if the code is taken by a live room."""
        try:
            self.client.put_item(
                TableName=self.table,
                Item=self.state_item(code, 1, room, None),
                ConditionExpression="attribute_not_exists(pk) OR expiresAt < :now",
                ExpressionAttributeValues={":now": {"N": str(int(clock.now()))}},
            )
            return True
        except self.client.exceptions.ConditionalCheckFailedException:
            return False

    def save(self, snap: Snapshot, room: dict, state: dict | None, plan: WritePlan | None = None) -> int:
        """Write the room (conditional on the version read) and the side items of `plan`
        atomically.

        Returns the new version. Raises Conflict if the room changed since `snap` was read, or
        a spectator place in `plan.slot_claims` (place -> connection) was taken since.
        With `plan.bump` False the room item is only checked, not written (spectator connects).
        """
        plan = plan or WritePlan()
        bump = plan.bump
        new_version = snap.version + 1 if bump else snap.version
        cond = {
            "ConditionExpression": "version = :v",
            "ExpressionAttributeValues": {":v": {"N": str(snap.version)}},
        }
        key = {"pk": {"S": room_pk(snap.code)}, "sk": {"S": STATE_SK}}
        expires = {"N": str(int(clock.now() + TTL_SECONDS))}
        ops: list[dict] = []
        if bump:
            ops.append(
                {
                    "Put": {
                        "TableName": self.table,
                        "Item": self.state_item(snap.code, new_version, room, state),
                        **cond,
                    }
                }
            )
        else:
            ops.append({"ConditionCheck": {"TableName": self.table, "Key": key, **cond}})
        for conn_id, player in plan.conn_puts.items():
            item = {
                "pk": key["pk"],
                "sk": {"S": CONN_PREFIX + conn_id},
                "expiresAt": expires,
                "at": {"N": str(clock.now())},
            }
            if player:
                item["player"] = {"S": player}
            else:  # a spectator: the address a seat's voice reaches it by (voice.py)
                item["listener"] = {"S": listener_id()}
            if conn_id in plan.conn_patches:
                item["patches"] = {"BOOL": True}
            ops.append({"Put": {"TableName": self.table, "Item": item}})
            lookup = {
                "pk": {"S": CONN_PREFIX + conn_id},
                "sk": {"S": "CONN"},
                "room": {"S": snap.code},
                "expiresAt": expires,
            }
            ops.append({"Put": {"TableName": self.table, "Item": lookup}})
        for conn_id in plan.conn_deletes:
            ops.append(
                {
                    "Delete": {
                        "TableName": self.table,
                        "Key": {"pk": key["pk"], "sk": {"S": CONN_PREFIX + conn_id}},
                    }
                }
            )
            ops.append(
                {
                    "Delete": {
                        "TableName": self.table,
                        "Key": {"pk": {"S": CONN_PREFIX + conn_id}, "sk": {"S": "CONN"}},
                    }
                }
            )
        ops.extend(self._slot_ops(snap, plan.slot_claims, plan.conn_deletes, expires))
        for seq, messages in plan.chat_items:
            item = {
                "pk": key["pk"],
                "sk": {"S": f"{CHAT_PREFIX}{seq:08d}"},
                "expiresAt": expires,
                "data": {"B": encode({"messages": messages})},
            }
            ops.append({"Put": {"TableName": self.table, "Item": item}})
        if len(ops) == 1 and bump:
            try:
                self.client.put_item(**ops[0]["Put"])
            except self.client.exceptions.ConditionalCheckFailedException as exc:
                raise Conflict() from exc
            return new_version
        try:
            self.client.transact_write_items(TransactItems=ops)
        except self.client.exceptions.TransactionCanceledException as exc:
            # a condition (the version, a spectator place) failed, or another transaction
            # held one of the items (TransactionConflict: concurrent connects of one room)
            codes = {r.get("Code") for r in exc.response.get("CancellationReasons") or []}
            if not codes or codes & {"ConditionalCheckFailed", "TransactionConflict"}:
                raise Conflict() from exc
            raise
        return new_version

    def _slot_ops(
        self, snap: Snapshot, claims: dict[int, str], conn_deletes: tuple[str, ...], expires: dict
    ) -> list[dict]:
        """Claim spectator places (each a Put on condition that the place is free: no item, an
        expired one, or the one this snapshot read whose connection is gone) and free the
        places of the connections deleted."""
        ops: list[dict] = []
        pk = {"S": room_pk(snap.code)}
        for slot, conn_id in claims.items():
            cond = "attribute_not_exists(sk) OR expiresAt < :now"
            values = {":now": {"N": str(int(clock.now()))}}
            holder = snap.slots.get(slot)
            if holder is not None:  # read as held by a connection no longer in the room
                cond += " OR conn = :seen"
                values[":seen"] = {"S": holder}
            item = {
                "pk": pk,
                "sk": {"S": f"{SLOT_PREFIX}{slot:02d}"},
                "conn": {"S": conn_id},
                "expiresAt": expires,
            }
            ops.append(
                {
                    "Put": {
                        "TableName": self.table,
                        "Item": item,
                        "ConditionExpression": cond,
                        "ExpressionAttributeValues": values,
                    }
                }
            )
        held = {conn_id: slot for slot, conn_id in snap.slots.items()}
        for conn_id in conn_deletes:
            if conn_id in held and held[conn_id] not in claims:
                key = {"pk": pk, "sk": {"S": f"{SLOT_PREFIX}{held[conn_id]:02d}"}}
                ops.append(
                    {
                        "Delete": {
                            "TableName": self.table,
                            "Key": key,
                            "ConditionExpression": "conn = :c",
                            "ExpressionAttributeValues": {":c": {"S": conn_id}},
                        }
                    }
                )
        return ops
