"""DynamoDB storage: one table, one partition per room (layout and why: docs/architecture.md, "Data").

One strongly consistent Query reads a room and its connections; writes are conditional on
`version`, several items in one TransactWriteItems; expired items are filtered on read.
"""

from __future__ import annotations

import json
import secrets
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import from_json

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
# One TransactWriteItems holds at most this many items (DynamoDB's limit).
MAX_TRANSACT_ITEMS = 100


class Conflict(Exception):
    """The conditional write lost a race (someone wrote the room since we read it)."""


class Busy(Exception):
    """A budget transaction was cancelled for a reason that says nothing about the budget:
    another transaction held one of its items (`TransactionConflict`) or the table throttled
    it (`ThrottlingError`, `ProvisionedThroughputExceeded`). Worth a retry; not a refusal."""


# The cancellation reasons (TransactionCanceledException's CancellationReasons) a retry may cure.
TRANSIENT_CANCELS = frozenset({"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"})
# Errors DynamoDB raises for a whole request the table throttled (after boto3's own retries).
THROTTLE_ERRORS = frozenset(
    {"ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded"}
)


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
    # connection -> the voice addresses (seats, listener ids) it sent an offer to (`mark_offer`)
    offers: dict[str, frozenset[str]] = field(default_factory=dict)
    size: int = 0  # stored bytes of the room item's data


@dataclass(frozen=True)
class SideItem:
    """An item a feature keeps outside the room's partition, under its owner (a device digest,
    ...): `kind` names the family, `key` tells the owner's items apart (writing the same key
    again replaces the item), `data` is the feature's small JSON-able mapping, `expires_at` its
    TTL (epoch seconds). Written with the room (`WritePlan.side_items`), read by
    `Store.side_items`; only storage knows how it is keyed (`side_key`)."""

    kind: str
    owner: str
    key: str
    data: Mapping
    expires_at: int


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
    side_items: tuple[SideItem, ...] = ()  # features' items, committed with the room or not at all


def listener_id() -> str:
    """A spectator connection's voice address: 128 bits from the OS's CSPRNG, drawn at each
    connection item's put, from nothing else (not the connection id, not the room's seeds), so
    two connections' ids, or one connection's and its next one's, cannot be linked."""
    return "L" + secrets.token_urlsafe(16)


def room_pk(code: str) -> str:
    return f"ROOM#{code}"


# Side items' key shapes. "leaver" keeps the shape its IAM policy and TTL were written for
# (features/leavers.py): pk `LEAVER#<device digest>`, sk `L#<room>#<seat>`, attributes `at`
# (the game time, a number) and `expiresAt`. Any other kind: pk `<KIND>#<owner>`, sk `<key>`,
# the data as compact JSON in `data`.
LEAVER_KIND = "leaver"
# A person's finished casual game (service/identity/played.py): pk `PERSON#<person>`, sk
# `GAME#<room>#<version>`, in the person's partition (`delete_person` deletes it).
PLAYED_KIND = "played"


def side_key(kind: str, owner: str, key: str = "") -> tuple[str, str]:
    """(pk, sk) of a side item (with `key` "": the sk prefix of the owner's items)."""
    if kind == LEAVER_KIND:
        return f"LEAVER#{owner}", f"L#{key}"
    if kind == PLAYED_KIND:  # in the person's own partition: "delete me" takes it too
        return f"PERSON#{owner}", f"GAME#{key}"
    return f"{kind.upper()}#{owner}", key


def side_item_attrs(item: SideItem) -> dict:
    """The DynamoDB item of a side item."""
    pk, sk = side_key(item.kind, item.owner, item.key)
    out: dict = {"pk": {"S": pk}, "sk": {"S": sk}, "expiresAt": {"N": str(int(item.expires_at))}}
    if item.kind == LEAVER_KIND:
        out["at"] = {"N": repr(float(item.data["at"]))}
    else:
        out["data"] = {"S": json.dumps(dict(item.data), separators=(",", ":"), sort_keys=True)}
    out.update(ladder_attributes(item))
    return out


# ---- ranked play's ladders (service/ranked/): a person's season rating (a side item of kind
# `rating`, owner the person's public handle, key `<season>#<lang>`) whose data carries
# `ladder: {lang, season}` and `points` is keyed in the PublicByLang index under a partition of
# its own, `ladder#<lang>#<season>` (no lobby's language starts so: `public.LANGS`), with the
# rank `<points, 6 digits>#<games, 5 digits>#<handle>`: a ladder page is one Query read
# backwards (most points first), and the rank alone holds what a ladder row shows.
RATING_KIND = "rating"
LADDER_PREFIX = "ladder#"
LADDER_INDEX = "PublicByLang"


def ladder_partition(lang: str, season: str) -> str:
    return f"{LADDER_PREFIX}{lang}#{season}"


def ladder_attributes(item: SideItem) -> dict:
    """The PublicByLang keys of a side item on a ladder (none for any other)."""
    lad = item.data.get("ladder") if item.kind == RATING_KIND else None
    if not lad:
        return {}
    rank = f"{min(int(item.data['points']), 999_999):06d}#{min(int(item.data['games']), 99_999):05d}#{item.owner}"
    return {"pubLang": {"S": ladder_partition(lad["lang"], lad["season"])}, "pubRank": {"S": rank}}


def ladder_entry(item: dict) -> dict:
    """A ladder row as the index holds it: handle, points, games."""
    pts, games, handle = item["pubRank"]["S"].split("#", 2)
    return {"handle": handle, "points": int(pts), "games": int(games)}


def ladder_start_ok(lang: str, season: str, start: dict) -> bool:
    """Whether `start` (plain strings) is the cursor of a page of that ladder."""
    names = PUBLIC_INDEXES[LADDER_INDEX][1]
    return (
        set(start) == names
        and all(isinstance(v, str) and len(v) <= 100 for v in start.values())
        and start["pubLang"] == ladder_partition(lang, season)
    )


def side_item_of(kind: str, owner: str, it: dict) -> SideItem:
    """The side item a stored DynamoDB item holds (inverse of `side_item_attrs`)."""
    _, prefix = side_key(kind, owner)
    key = it["sk"]["S"][len(prefix) :]
    if kind == LEAVER_KIND:
        data: dict = {"at": float(it["at"]["N"])}
    else:
        data = json.loads(it["data"]["S"]) if "data" in it else {}
    return SideItem(kind, owner, key, data, int(float(it.get("expiresAt", {"N": "0"})["N"])))


def index_attributes(code: str, room: dict) -> dict:
    """The listed room's attributes for the two sparse indexes (none when it is not listed):
    keys `pubLang` / `pubPreset` + `pubRank`, and the few attributes the indexes project
    (template.yaml: `INCLUDE`). Which room is listed: service/room/public.py (`track`).
    `pubRank` starts with the second the listing lapses (`listUntil`, 11 digits), then the
    seats taken, then the code (the Query reads it backwards: latest lapse, then fullest first): a page's Query reads the ranks above now alone (`public_index_page`),
    so an abandoned lobby, whose keys stay until its TTL, is never read (docs/rules.md, "Public rooms").
    A running public game (`room.watching`: the "Watch now" list) is keyed the same way in the
    same two indexes under partitions of its own (`WATCH_PREFIX`: `watch#<lang>`,
    `watch#<lang>#<preset>`), so a lobby's page never reads a game and a game's never a lobby."""
    lst = room.get("listing")
    prefix = RANKED_PREFIX if lst and room.get("ranked") else ""  # ranked quick play's own lobbies
    if not lst:
        lst = room.get("watching")
        prefix = WATCH_PREFIX
    if not lst:
        return {}
    rank = f"{int(lst['until']):011d}#{lst['seats']:02d}#{code}"  # read latest first: fullest first within a second
    return {
        "pubLang": {"S": prefix + lst["lang"]},
        "pubPreset": {"S": f"{prefix}{lst['lang']}#{lst['preset']}"},
        "pubRank": {"S": rank},
        "pubSeats": {"N": str(lst["seats"])},
        "pubMax": {"N": str(lst["max"])},
        "listUntil": {"N": str(int(lst["until"]))},
    }


# ---- budgets (features/limits.py): pk `LIMIT#<kind>#<who>#<digest>`, sk `W#<window start>`,
# `n` the requests counted, `expiresAt`. template.yaml's RateBudgetPolicy names `LIMIT#*`.
LIMIT_PREFIX = "LIMIT#"


def budget_key(kind: str, who: str, digest: str, window_start: int) -> dict:
    return {"pk": {"S": f"{LIMIT_PREFIX}{kind}#{who}#{digest}"}, "sk": {"S": f"W#{window_start}"}}


# ---- reports (features/reports.py): the report under its day, and the "reported once per game"
# mark. Every key starts with `REPORT` (template.yaml: WsReportFunction's `dynamodb:LeadingKeys`).
REPORT_DAY_PREFIX = "REPORTS#"
REPORT_MARK_PREFIX = "REPORTED#"


@dataclass(frozen=True)
class ReportRecord:
    """What storage keeps of one report: its keys' parts, the attributes ops filter on, and the
    report itself as JSON (`data`)."""

    id: str
    day: str  # yyyy-mm-dd (UTC) it was filed
    room: str
    game: str
    reporter: str
    reported: str
    reason: str
    at: float
    expires_at: int
    data: str


def report_keys(rec: ReportRecord) -> tuple[dict, dict]:
    """(the report's key, its mark's key)."""
    return (
        {"pk": {"S": REPORT_DAY_PREFIX + rec.day}, "sk": {"S": "REPORT#" + rec.id}},
        {
            "pk": {"S": f"{REPORT_MARK_PREFIX}{rec.room}#{rec.game}"},
            "sk": {"S": f"{rec.reporter}#{rec.reported}"},
        },
    )


def report_items(rec: ReportRecord) -> tuple[dict, dict]:
    """(the report's item, its mark's item)."""
    key, mark_key = report_keys(rec)
    expires = {"N": str(int(rec.expires_at))}
    mark = {**mark_key, "report": {"S": rec.id}, "expiresAt": expires}
    item = {
        **key,
        "room": {"S": rec.room},
        "reason": {"S": rec.reason},
        "at": {"N": str(rec.at)},
        "expiresAt": expires,
        "data": {"S": rec.data},
    }
    return item, mark


# ---- the public rooms' indexes (service/room/public.py): each index's partition attribute and
# the attributes of its keys (a page's cursor: `list_public`'s `last`).
PUBLIC_INDEXES = {
    "PublicByLang": ("pubLang", frozenset({"pk", "sk", "pubLang", "pubRank"})),
    "PublicByPreset": ("pubPreset", frozenset({"pk", "sk", "pubPreset", "pubRank"})),
}


def live_rank(now: float) -> str:
    """The lowest `pubRank` of a listing not lapsed at `now` (`index_attributes`)."""
    return f"{int(now):011d}"


def public_start_ok(index: str, partition: str, start: dict) -> bool:
    """Whether `start` (plain strings) is a key of a page of `index`'s `partition`."""
    part, names = PUBLIC_INDEXES[index]
    return (
        set(start) == names
        and all(isinstance(v, str) and len(v) <= 100 for v in start.values())
        and start[part] == partition
    )


# The partitions of the "Watch now" list (running public games) start with this; a language is
# never "watch", so no lobby partition does.
WATCH_PREFIX = "watch#"
# A ranked lobby (`room["ranked"]`) is listed under partitions of its own, `ranked#<lang>` and
# `ranked#<lang>#<preset>`, which only ranked quick play reads (never the public list).
RANKED_PREFIX = "ranked#"


def public_entry(item: dict) -> dict:
    """A listed room (or watched game) as an index holds it: code, language, preset, seats."""
    keyed = item["pubPreset"]["S"].removeprefix(WATCH_PREFIX).removeprefix(RANKED_PREFIX)
    lang, preset = keyed.split("#", 1)
    return {
        "roomCode": item["pk"]["S"].split("#", 1)[1],
        "lang": lang,
        "preset": preset,
        "seats": int(item["pubSeats"]["N"]),
        "maxPlayers": int(item["pubMax"]["N"]),
    }


def expired(item: dict, now: float) -> bool:
    return float(item.get("expiresAt", {"N": "0"})["N"]) < now


def encode(doc: dict) -> bytes:
    """Room data + state as compact, compressed JSON (keeps the item and its WCU small).

    Written by `json.dumps`, which refuses what is not JSON (a set, a datetime, a key that is
    not text) with a TypeError: a bug in the room's data is loud, never saved as something
    else. (pydantic-core's `to_json` is ~0.14 ms faster per 16 KB room but writes a set as a
    list and a None key as "None".)"""
    return zlib.compress(json.dumps(doc, separators=(",", ":")).encode("utf-8"), 6)


def decode(blob: bytes) -> dict:
    """The document `encode` wrote (or `json.dumps` before it): pydantic-core's parser, exact
    for every number; `json.loads` for what it refuses (a lone surrogate's escape)."""
    raw = zlib.decompress(blob)
    try:
        return from_json(raw)
    except ValueError:
        return json.loads(raw)


def snapshot_of(code: str, items: list[dict], now: float) -> Snapshot | None:
    """The snapshot the items of a room's partition (from `CONN#` on, in key order) make; None
    without a live room item. Items past their TTL are skipped (TTL deletes "within days")."""
    state_item = None
    conns: dict[str, str | None] = {}
    conn_since: dict[str, float] = {}
    slots: dict[int, str] = {}
    conn_log: dict[str, float] = {}
    conn_patches: set[str] = set()
    listeners: dict[str, str] = {}
    offers: dict[str, frozenset[str]] = {}
    for it in items:
        sk = it["sk"]["S"]
        if float(it.get("expiresAt", {"N": "0"})["N"]) < now:
            continue  # TTL deletes "within days": expired means gone
        if sk == STATE_SK:
            state_item = it
        elif sk.startswith(CONN_PREFIX):
            conn = sk[len(CONN_PREFIX) :]
            conns[conn] = it["player"]["S"] if "player" in it else None
            conn_since[conn] = float(it.get("at", {"N": "0"})["N"])
            if "logAt" in it:
                conn_log[conn] = float(it["logAt"]["N"])
            if "patches" in it:
                conn_patches.add(conn)
            if "listener" in it:
                listeners[conn] = it["listener"]["S"]
            if "offers" in it:
                offers[conn] = frozenset(it["offers"]["SS"])
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
        offers=offers,
        size=len(blob),
    )


# ---- identity (service/identity/): a person's partition `PERSON#<id>` holds the person item
# (sk `PERSON`) and each of its passkeys (sk `CRED#<credential id>`); `delete_person` deletes
# every item of the partition, so anything else kept per person (ratings: sk of its own) is
# written there and goes with it. A ceremony's challenge: pk `CHALLENGE#<id>`, sk `CHALLENGE`,
# single use (taken by a conditional delete), with a TTL. A revoked session (sign-out):
# pk `SESSION#<sid>`, sk `REVOKED`, kept until the session would have lapsed.
PERSON_PREFIX = "PERSON#"
PERSON_SK = "PERSON"
CRED_PREFIX = "CRED#"
CHALLENGE_PREFIX = "CHALLENGE#"
SESSION_PREFIX = "SESSION#"
# the person item's attributes and their types (anything else a caller puts is refused)
PERSON_FIELDS = {"id": "S", "created": "N", "casualGames": "N", "banned": "BOOL", "coolDownUntil": "N"}


def person_key(person_id: str, sk: str = PERSON_SK) -> dict:
    return {"pk": {"S": PERSON_PREFIX + person_id}, "sk": {"S": sk}}


def _attr(kind: str, value: Any) -> dict:
    if kind == "BOOL":
        return {"BOOL": bool(value)}
    if kind == "N":
        return {"N": str(int(value))}
    return {"S": str(value)}


def _plain(value: dict) -> Any:
    if "BOOL" in value:
        return value["BOOL"]
    if "N" in value:
        return int(value["N"])
    return value["S"]


def person_item(person: Mapping) -> dict:
    """The DynamoDB item of a person record (`PERSON_FIELDS`; `id` required)."""
    unknown = set(person) - set(PERSON_FIELDS)
    if unknown:
        raise ValueError(f"unknown person fields: {sorted(unknown)}")
    full = {"created": 0, "casualGames": 0, "banned": False, "coolDownUntil": 0, **person}
    return {**person_key(full["id"]), **{k: _attr(t, full[k]) for k, t in PERSON_FIELDS.items()}}


def person_of_item(item: dict) -> dict:
    return {k: _plain(item[k]) for k in PERSON_FIELDS if k in item}


def credential_item(person_id: str, cred: Mapping) -> dict:
    """A passkey's item: its id (base64url), anything else the ceremony keeps as JSON."""
    data = json.dumps(dict(cred), separators=(",", ":"), sort_keys=True)
    return {**person_key(person_id, CRED_PREFIX + cred["id"]), "data": {"S": data}}


class IdentityStore:
    """The identity methods of the DynamoDB `Store` (a mixin: `self.client`, `self.table`)."""

    client: Any
    table: str

    def put_person(self, person: Mapping) -> None:
        """Write a person record whole (`PERSON_FIELDS`; missing ones: 0 / False)."""
        self.client.put_item(TableName=self.table, Item=person_item(person))

    def person(self, person_id: str) -> dict | None:
        """A person record (strongly consistent GetItem), or None."""
        out = self.client.get_item(TableName=self.table, Key=person_key(person_id), ConsistentRead=True)
        item = out.get("Item")
        return person_of_item(item) if item else None

    def update_person(self, person_id: str, fields: Mapping) -> bool:
        """Set some fields of an existing person record (`PERSON_FIELDS` but `id`); False when
        there is no such person."""
        if not fields or set(fields) - (set(PERSON_FIELDS) - {"id"}):
            raise ValueError(f"bad person fields: {sorted(fields)}")
        names = {f"#f{i}": k for i, k in enumerate(fields)}
        values = {f":v{i}": _attr(PERSON_FIELDS[k], v) for i, (k, v) in enumerate(fields.items())}
        try:
            self.client.update_item(
                TableName=self.table,
                Key=person_key(person_id),
                UpdateExpression="SET " + ", ".join(f"#f{i} = :v{i}" for i in range(len(fields))),
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
            )
            return True
        except self.client.exceptions.ConditionalCheckFailedException:
            return False

    def add_casual_game(self, person_id: str) -> bool:
        """Count one finished casual game on an existing person (atomic ADD); False if none."""
        try:
            self.client.update_item(
                TableName=self.table,
                Key=person_key(person_id),
                UpdateExpression="ADD casualGames :one",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeValues={":one": {"N": "1"}},
            )
            return True
        except self.client.exceptions.ConditionalCheckFailedException:
            return False

    def _delete_queried(self, kwargs: dict[str, Any]) -> int:
        """Delete every item a Query (`kwargs`, projecting pk and sk) finds, page by page; the
        number deleted."""
        deleted = 0
        while True:
            page = self.client.query(**kwargs)
            for it in page.get("Items", []):
                self.client.delete_item(TableName=self.table, Key={"pk": it["pk"], "sk": it["sk"]})
                deleted += 1
            if "LastEvaluatedKey" not in page:
                return deleted
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def delete_person(self, person_id: str) -> int:
        """Delete every item of the person's partition (the record, its passkeys, anything
        else kept under it); the number deleted."""
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": PERSON_PREFIX + person_id}},
            "ProjectionExpression": "pk, sk",
            "ConsistentRead": True,
        }
        return self._delete_queried(kwargs)

    def put_credential(self, person_id: str, cred: Mapping) -> None:
        """Write (or replace) one of a person's passkeys: `cred["id"]` its credential id."""
        self.client.put_item(TableName=self.table, Item=credential_item(person_id, cred))

    def credential(self, person_id: str, cred_id: str) -> dict | None:
        out = self.client.get_item(
            TableName=self.table, Key=person_key(person_id, CRED_PREFIX + cred_id), ConsistentRead=True
        )
        item = out.get("Item")
        return json.loads(item["data"]["S"]) if item else None

    def credentials(self, person_id: str) -> list[dict]:
        """Every passkey of a person, in credential id order (one Query)."""
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :c)",
            "ExpressionAttributeValues": {":pk": {"S": PERSON_PREFIX + person_id}, ":c": {"S": CRED_PREFIX}},
            "ConsistentRead": True,
        }
        out: list[dict] = []
        while True:
            page = self.client.query(**kwargs)
            out.extend(json.loads(it["data"]["S"]) for it in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return out
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def delete_credential(self, person_id: str, cred_id: str) -> None:
        self.client.delete_item(TableName=self.table, Key=person_key(person_id, CRED_PREFIX + cred_id))

    def put_challenge(self, challenge_id: str, data: Mapping, expires_at: int) -> None:
        """Keep a ceremony's challenge (`data`: JSON-able) until `expires_at`."""
        self.client.put_item(
            TableName=self.table,
            Item={
                "pk": {"S": CHALLENGE_PREFIX + challenge_id},
                "sk": {"S": "CHALLENGE"},
                "data": {"S": json.dumps(dict(data), separators=(",", ":"), sort_keys=True)},
                "expiresAt": {"N": str(int(expires_at))},
            },
        )

    def take_challenge(self, challenge_id: str) -> dict | None:
        """A challenge's data, deleted as it is read (single use: of two racing takes one gets
        it); None when unknown, taken or past its TTL."""
        try:
            out = self.client.delete_item(
                TableName=self.table,
                Key={"pk": {"S": CHALLENGE_PREFIX + challenge_id}, "sk": {"S": "CHALLENGE"}},
                ConditionExpression="attribute_exists(pk)",
                ReturnValues="ALL_OLD",
            )
        except self.client.exceptions.ConditionalCheckFailedException:
            return None
        item = out.get("Attributes")
        if not item or expired(item, clock.now()):
            return None
        return json.loads(item["data"]["S"])

    def revoke_session(self, sid: str, expires_at: int) -> None:
        """Mark a session revoked (sign-out) until it would have lapsed."""
        self.client.put_item(
            TableName=self.table,
            Item={
                "pk": {"S": SESSION_PREFIX + sid},
                "sk": {"S": "REVOKED"},
                "expiresAt": {"N": str(int(expires_at))},
            },
        )

    def session_revoked(self, sid: str) -> bool:
        out = self.client.get_item(
            TableName=self.table,
            Key={"pk": {"S": SESSION_PREFIX + sid}, "sk": {"S": "REVOKED"}},
            ConsistentRead=True,
        )
        item = out.get("Item")
        return bool(item) and not expired(item, clock.now())


class Store(IdentityStore):
    """Reads and writes rooms through a low-level DynamoDB client (injected); persons and
    passkeys too (`IdentityStore`, below)."""

    def __init__(self, client: Any, table: str) -> None:
        self.client = client
        self.table = table

    # ---- reads -------------------------------------------------------------------------
    def load(self, code: str) -> Snapshot | None:
        """The room and its connections in one strongly consistent Query; None if gone."""
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
        return snapshot_of(code, items, clock.now())

    def list_public(
        self, index: str, partition: str, limit: int, start: dict | None, now: float
    ) -> tuple[list[dict], dict | None, float]:
        """One page of a sparse public-room index (service/room/public.py): `limit` entries read,
        the idle ones (`listUntil` past) left out. `start`: the `last` of the page before (plain
        strings; `public_start_ok`). Returns (entries (`public_entry`), last or None, read units)."""
        boxed = {k: {"S": v} for k, v in start.items()} if start else None
        items, last, units = self.public_index_page(index, partition, limit, boxed, now)
        plain = {k: v["S"] for k, v in last.items()} if last else None
        return [public_entry(it) for it in items], plain, units

    def public_index_page(
        self, index: str, partition: str, limit: int, start: dict | None, now: float
    ) -> tuple[list[dict], dict | None, float]:
        """`list_public`'s one eventually consistent Query as DynamoDB answers it: the items the
        index projects, LastEvaluatedKey, read units (bench/public_list.py measures their sizes).
        Live entries only: the key condition reads the ranks whose lapse (`listUntil`, their
        first 11 digits: `index_attributes`) is not past, the latest first, so lapsed ones cost
        no read at all; the filter drops what an older rank shape (`NN#since#code`, written
        before this order) would let through until its room's next write or TTL."""
        part = PUBLIC_INDEXES[index][0]
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "IndexName": index,
            "KeyConditionExpression": "#p = :p AND #r >= :live",
            "FilterExpression": "listUntil >= :now",
            "ExpressionAttributeNames": {"#p": part, "#r": "pubRank"},
            "ExpressionAttributeValues": {
                ":p": {"S": partition},
                ":live": {"S": live_rank(now)},
                ":now": {"N": str(int(now))},
            },
            "ScanIndexForward": False,
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

    def ladder_page(
        self, lang: str, season: str, limit: int, start: dict | None
    ) -> tuple[list[dict], dict | None, float]:
        """One page of a season's ladder in `lang` (`ladder_attributes`): one eventually
        consistent Query of its PublicByLang partition, most points first. `start`: the `last`
        of the page before (plain strings; `ladder_start_ok`). Returns (rows (`ladder_entry`),
        last or None, read units)."""
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "IndexName": LADDER_INDEX,
            "KeyConditionExpression": "pubLang = :p",
            "ExpressionAttributeValues": {":p": {"S": ladder_partition(lang, season)}},
            "ScanIndexForward": False,
            "Limit": limit,
            "ReturnConsumedCapacity": "TOTAL",
        }
        if start:
            kwargs["ExclusiveStartKey"] = {k: {"S": v} for k, v in start.items()}
        page = self.client.query(**kwargs)
        units = float((page.get("ConsumedCapacity") or {}).get("CapacityUnits") or 0.0)
        last = page.get("LastEvaluatedKey")
        plain = {k: v["S"] for k, v in last.items()} if last else None
        return [ladder_entry(it) for it in page.get("Items", [])], plain, units

    def side_items(self, kind: str, owner: str, limit: int, newest_first: bool = False) -> list[SideItem]:
        """Up to `limit` of the owner's side items of `kind`, in key order (`newest_first`:
        the last keys first): one strongly consistent Query of its partition. Items past their
        TTL are not returned (TTL deletes them days later, not at once)."""
        pk, prefix = side_key(kind, owner)
        cond = "pk = :pk" + (" AND begins_with(sk, :s)" if prefix else "")
        values: dict[str, Any] = {":pk": {"S": pk}}
        if prefix:
            values[":s"] = {"S": prefix}
        out = self.client.query(
            TableName=self.table,
            KeyConditionExpression=cond,
            ExpressionAttributeValues=values,
            ConsistentRead=True,
            Limit=limit,
            ScanIndexForward=not newest_first,
        )
        now = clock.now()
        return [
            side_item_of(kind, owner, it)
            for it in out.get("Items", [])
            if float(it.get("expiresAt", {"N": "inf"})["N"]) >= now
        ]

    def delete_side_items(self, kind: str, owner: str) -> int:
        """Delete every side item of `kind` the owner has ("delete me": ranked play's records,
        service/ranked/records.py `forget`); the number deleted. A Query of the owner's
        partition, then a DeleteItem per item."""
        pk, prefix = side_key(kind, owner)
        cond = "pk = :pk" + (" AND begins_with(sk, :s)" if prefix else "")
        values: dict[str, Any] = {":pk": {"S": pk}}
        if prefix:
            values[":s"] = {"S": prefix}
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": cond,
            "ExpressionAttributeValues": values,
            "ProjectionExpression": "pk, sk",
            "ConsistentRead": True,
        }
        return self._delete_queried(kwargs)

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

    def mark_offer(self, code: str, conn_id: str, to: str) -> bool:
        """Note on the connection's item that it sent a voice offer to `to` (a seat or a
        listener id: features/voice.py lets `to` answer it); False if the connection is gone."""
        try:
            self.client.update_item(
                TableName=self.table,
                Key={"pk": {"S": room_pk(code)}, "sk": {"S": CONN_PREFIX + conn_id}},
                UpdateExpression="ADD offers :to",
                ConditionExpression="attribute_exists(sk)",
                ExpressionAttributeValues={":to": {"SS": [to]}},
            )
            return True
        except self.client.exceptions.ConditionalCheckFailedException:
            return False

    # ---- budgets and reports (features/limits.py, features/reports.py) --------------------
    def spend_budget(
        self, kind: str, window_start: int, expires_at: int, counts: list[tuple[str, str, int]]
    ) -> bool:
        """Count one request on each of a client's budgets of `kind` for the window starting at
        `window_start`: `counts` holds (who, digest, limit), e.g. ("d", device digest, 10). All
        counted in one transaction, each on condition it is below its limit; False (nothing
        counted) when one is spent (a `ConditionalCheckFailed` among the cancellation reasons);
        `Busy` (nothing counted) when the transaction was cancelled for another transaction or
        a throttle, which says nothing about the budget (limits.spend retries it)."""
        ops = [
            {
                "Update": {
                    "TableName": self.table,
                    "Key": budget_key(kind, who, digest, window_start),
                    "UpdateExpression": "ADD n :one SET expiresAt = :exp",
                    "ConditionExpression": "attribute_not_exists(n) OR n < :max",
                    "ExpressionAttributeValues": {
                        ":one": {"N": "1"},
                        ":max": {"N": str(limit)},
                        ":exp": {"N": str(expires_at)},
                    },
                }
            }
            for who, digest, limit in counts
        ]
        if not ops:
            return True
        try:
            self.client.transact_write_items(TransactItems=ops)
        except self.client.exceptions.TransactionCanceledException as exc:
            codes = {r.get("Code") for r in exc.response.get("CancellationReasons") or []}
            if "ConditionalCheckFailed" in codes:
                return False
            if codes & TRANSIENT_CANCELS:
                raise Busy(", ".join(sorted(codes & TRANSIENT_CANCELS))) from exc
            raise  # a malformed request (ValidationError): a bug, not a budget
        except self.client.exceptions.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in THROTTLE_ERRORS:
                raise Busy(exc.response["Error"]["Code"]) from exc
            raise
        return True

    def put_report(self, rec: ReportRecord) -> bool:
        """Store a report and its mark together; False (nothing stored) when the mark exists:
        this reporter already reported this seat in this game (a mark past its TTL does not
        count)."""
        item, mark = report_items(rec)
        try:
            self.client.transact_write_items(
                TransactItems=[
                    {
                        "Put": {
                            "TableName": self.table,
                            "Item": mark,
                            # An expired mark (TTL lags) no longer counts.
                            "ConditionExpression": "attribute_not_exists(pk) OR expiresAt < :now",
                            "ExpressionAttributeValues": {":now": {"N": str(int(rec.at))}},
                        }
                    },
                    {
                        "Put": {
                            "TableName": self.table,
                            "Item": item,
                            "ConditionExpression": "attribute_not_exists(pk)",
                        }
                    },
                ]
            )
        except self.client.exceptions.TransactionCanceledException as exc:
            reasons = exc.response.get("CancellationReasons") or []
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                return False
            raise
        return True

    def report(self, day: str, report_id: str) -> str | None:
        """A live report's JSON (GetItem), or None when unknown or past its TTL."""
        out = self.client.get_item(
            TableName=self.table,
            Key={"pk": {"S": REPORT_DAY_PREFIX + day}, "sk": {"S": "REPORT#" + report_id}},
            ConsistentRead=True,
        )
        item = out.get("Item")
        if not item or expired(item, clock.now()):
            return None
        return item["data"]["S"]

    def reports(self, day: str) -> list[str]:
        """The JSON of every live report filed on `day`, in id order: one Query (paged)."""
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :r)",
            "ExpressionAttributeValues": {":pk": {"S": REPORT_DAY_PREFIX + day}, ":r": {"S": "REPORT#"}},
        }
        out: list[str] = []
        now = clock.now()
        while True:
            page = self.client.query(**kwargs)
            out.extend(it["data"]["S"] for it in page.get("Items", []) if not expired(it, now))
            if "LastEvaluatedKey" not in page:
                return out
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def delete_report(self, rec: ReportRecord) -> None:
        """Delete a report and its mark together (ops/smoke.py cleans up after itself)."""
        self.client.transact_write_items(
            TransactItems=[{"Delete": {"TableName": self.table, "Key": k}} for k in report_keys(rec)]
        )

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

    def create(self, code: str, room: dict, side_items: tuple[SideItem, ...] = ()) -> bool:
        """Write a new room, and `side_items` with it or not at all (a ranked room's creator's
        seat record: service/ranked/records.py); False if the code is taken by a live room."""
        put = {
            "TableName": self.table,
            "Item": self.state_item(code, 1, room, None),
            "ConditionExpression": "attribute_not_exists(pk) OR expiresAt < :now",
            "ExpressionAttributeValues": {":now": {"N": str(int(clock.now()))}},
        }
        if not side_items:
            try:
                self.client.put_item(**put)
                return True
            except self.client.exceptions.ConditionalCheckFailedException:
                return False
        ops = [{"Put": put}] + [
            {"Put": {"TableName": self.table, "Item": side_item_attrs(s)}} for s in side_items
        ]
        try:
            self.client.transact_write_items(TransactItems=ops)
            return True
        except self.client.exceptions.TransactionCanceledException as exc:
            codes = {r.get("Code") for r in exc.response.get("CancellationReasons") or []}
            if codes & {"ConditionalCheckFailed", "TransactionConflict"}:
                return False
            raise

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
                # to the millisecond, as the pipeline's `now`: on a manual clock (grace 0) a
                # connection made at this instant must read young at it (connections.young)
                "at": {"N": str(round(clock.now(), 3))},
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
        for side in plan.side_items:
            ops.append({"Put": {"TableName": self.table, "Item": side_item_attrs(side)}})
        if len(ops) > MAX_TRANSACT_ITEMS:
            # all or nothing: a plan this large cannot commit in one transaction
            raise ValueError(f"a write plan of {len(ops)} items exceeds {MAX_TRANSACT_ITEMS}")
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
