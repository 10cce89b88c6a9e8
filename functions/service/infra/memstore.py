"""An in-memory `Store`: the same public methods and promises as the DynamoDB one
(service/infra/storage.py), kept in this process's dictionaries. The room-rule tests run on it
(tests/functions/test_store_contract.py holds both stores to one contract); nothing deployed
uses it.

What it keeps as DynamoDB would:
- a write conditional on the version read raises `Conflict` when the room moved on; a write plan
  is all or nothing (the version, every spectator place's condition); over
  `storage.MAX_TRANSACT_ITEMS` items it raises `ValueError` and writes nothing;
- TTL: an item past its `expiresAt` stays until TTL would delete it (never, here), so every
  read leaves it out where the DynamoDB store's reads do, and conditions see it where theirs do
  (a version check does not look at TTL; a spectator place, a new room, a report mark do);
- `Limit` counts the items read, expired or idle ones included (side items, chat pages, the
  public list's pages);
- the public list is an index of the listed room items ordered by `pubRank`; a page's `last` is
  given when more entries follow (as moto answers; DynamoDB may also give one at the exact end,
  whose next page is empty: callers take both);
- one lock: each method is atomic, as one DynamoDB request is (threads race in the tests).

Rooms and chat items are kept encoded (`storage.encode`): a read hands out a fresh copy, and a
snapshot's `size` is the stored size.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from . import clock, migrations
from .storage import (
    CHALLENGE_PREFIX,
    CRED_PREFIX,
    LADDER_INDEX,
    LIMIT_PREFIX,
    MAX_TRANSACT_ITEMS,
    PERSON_FIELDS,
    PERSON_PREFIX,
    PERSON_SK,
    PUBLIC_INDEXES,
    SESSION_PREFIX,
    TTL_SECONDS,
    Busy,
    Conflict,
    ReportRecord,
    SideItem,
    Snapshot,
    WritePlan,
    budget_key,
    decode,
    encode,
    index_attributes,
    ladder_attributes,
    ladder_entry,
    ladder_partition,
    listener_id,
    live_rank,
    person_item,
    person_of_item,
    public_entry,
    room_pk,
    side_key,
)


@dataclass
class _Conn:
    player: str | None
    at: float
    expires: int
    listener: str | None = None
    patches: bool = False
    log_at: float | None = None
    offers: frozenset[str] = frozenset()  # the voice addresses it offered to (`mark_offer`)


@dataclass
class _Room:
    version: int
    blob: bytes
    expires: int
    index: dict  # storage.index_attributes: the listed room's index attributes (or none)
    conns: dict[str, _Conn] = field(default_factory=dict)
    slots: dict[int, tuple[str, int]] = field(default_factory=dict)  # place -> (conn, expires)
    chat: dict[int, tuple[bytes, int]] = field(default_factory=dict)  # seq -> (blob, expires)


def _copy(data: object) -> dict:
    return json.loads(json.dumps(data))


class MemStore:
    """The rooms, connections, side items, budgets and reports of one process."""

    table = "memory"

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._rooms: dict[str, _Room] = {}
        self._lookups: dict[str, tuple[str, int]] = {}  # connection -> (room, expires)
        self._side: dict[tuple[str, str], SideItem] = {}  # (pk, sk) -> item
        self._budgets: dict[tuple[str, str], tuple[int, int]] = {}  # (pk, sk) -> (n, expires)
        self._reports: dict[tuple[str, str], tuple[str, int]] = {}  # (day, id) -> (data, expires)
        self._marks: dict[tuple[str, str, str, str], tuple[str, int]] = {}  # -> (id, expires)
        # identity: (pk, sk) -> attributes, as storage.IdentityStore keys them (persons' partitions,
        # challenges, revoked sessions)
        self._identity: dict[tuple[str, str], dict] = {}
        # The next this many budget transactions are cancelled as DynamoDB cancels one that met
        # another transaction on its items (`Busy`, nothing counted): set by tests.
        self.budget_conflicts = 0

    # ---- reads -------------------------------------------------------------------------
    def load(self, code: str) -> Snapshot | None:
        with self._lock:
            now = clock.now()
            r = self._rooms.get(code)
            if r is None or r.expires < now:
                return None
            live = {c: v for c, v in r.conns.items() if v.expires >= now}
            doc = migrations.upgrade(decode(r.blob))  # as Store.load: an earlier release's shape
            return Snapshot(
                code=code,
                version=r.version,
                room=doc["room"],
                state=doc.get("state"),
                conns={c: v.player for c, v in live.items()},
                conn_since={c: v.at for c, v in live.items()},
                conn_patches={c for c, v in live.items() if v.patches},
                slots={s: conn for s, (conn, exp) in sorted(r.slots.items()) if exp >= now},
                conn_log={c: v.log_at for c, v in live.items() if v.log_at is not None},
                listeners={c: v.listener for c, v in live.items() if v.listener is not None},
                offers={c: v.offers for c, v in live.items() if v.offers},
                size=len(r.blob),
            )

    def list_public(
        self, index: str, partition: str, limit: int, start: dict | None, now: float
    ) -> tuple[list[dict], dict | None, float]:
        items, last, units = self.public_index_page(
            index, partition, limit, {k: {"S": v} for k, v in start.items()} if start else None, now
        )
        plain = {k: v["S"] for k, v in last.items()} if last else None
        return [public_entry(it) for it in items], plain, units

    def public_index_page(
        self, index: str, partition: str, limit: int, start: dict | None, now: float
    ) -> tuple[list[dict], dict | None, float]:
        part, names = PUBLIC_INDEXES[index]
        with self._lock:
            rows = []
            for code, r in self._rooms.items():  # an expired room stays listed until TTL deletes it
                if r.index.get(part, {}).get("S") == partition:
                    rows.append({"pk": {"S": room_pk(code)}, "sk": {"S": "STATE"}, **_copy(r.index)})
        # as the Query: the ranks at or above the live bound, the latest first (storage.py)
        rows = [it for it in rows if it["pubRank"]["S"] >= live_rank(now)]
        rows.sort(key=lambda it: it["pubRank"]["S"], reverse=True)
        if start:
            rows = [it for it in rows if it["pubRank"]["S"] < start["pubRank"]["S"]]
        read = rows[:limit]
        last = {k: read[-1][k] for k in names} if len(rows) > limit else None
        units = 0.5 * math.ceil(max(1, sum(len(json.dumps(it)) for it in read)) / 4096)
        shown = [it for it in read if int(it["listUntil"]["N"]) >= int(now)]
        return shown, last, units

    def lookup_connection(self, conn_id: str) -> str | None:
        with self._lock:
            found = self._lookups.get(conn_id)
        if not found or found[1] < clock.now():
            return None
        return found[0]

    def chat_archive(self, code: str, first: int, last: int) -> list[dict]:
        msgs: list[dict] = []
        for _, messages in self._chat(code, first, last, newest_first=False, limit=None):
            msgs.extend(messages)
        return msgs

    def chat_items(self, code: str, first: int, last: int, limit: int) -> list[tuple[int, list[dict]]]:
        return self._chat(code, first, last, newest_first=True, limit=limit)

    def _chat(
        self, code: str, first: int, last: int, newest_first: bool, limit: int | None
    ) -> list[tuple[int, list[dict]]]:
        if last < first:
            return []
        now = clock.now()
        with self._lock:
            r = self._rooms.get(code)
            chat = dict(r.chat) if r else {}
        seqs = sorted((s for s in chat if first <= s <= last), reverse=newest_first)
        if limit is not None:
            seqs = seqs[:limit]  # Limit counts the items read, expired ones too
        return [(s, decode(chat[s][0])["messages"]) for s in seqs if chat[s][1] >= now]

    def ladder_page(
        self, lang: str, season: str, limit: int, start: dict | None
    ) -> tuple[list[dict], dict | None, float]:
        partition = ladder_partition(lang, season)
        with self._lock:
            rows = []
            for (pk, sk), item in self._side.items():  # an expired item stays until TTL deletes it
                attrs = ladder_attributes(item)
                if attrs and attrs["pubLang"]["S"] == partition:
                    rows.append({"pk": {"S": pk}, "sk": {"S": sk}, **attrs})
        rows.sort(key=lambda it: it["pubRank"]["S"], reverse=True)
        if start:
            rows = [it for it in rows if it["pubRank"]["S"] < start["pubRank"]]
        read = rows[:limit]
        names = PUBLIC_INDEXES[LADDER_INDEX][1]
        last = {k: read[-1][k]["S"] for k in names} if len(rows) > limit else None
        units = 0.5 * math.ceil(max(1, sum(len(json.dumps(it)) for it in read)) / 4096)
        return [ladder_entry(it) for it in read], last, units

    def side_items(self, kind: str, owner: str, limit: int, newest_first: bool = False) -> list[SideItem]:
        pk, prefix = side_key(kind, owner)
        now = clock.now()
        with self._lock:
            keys = sorted(
                (sk for p, sk in self._side if p == pk and sk.startswith(prefix)), reverse=newest_first
            )
            keys = keys[:limit]
            found = [self._side[(pk, sk)] for sk in keys]
        return [
            SideItem(i.kind, i.owner, i.key, _copy(i.data), i.expires_at)
            for i in found
            if i.expires_at >= now
        ]

    def delete_side_items(self, kind: str, owner: str) -> int:
        pk, prefix = side_key(kind, owner)
        with self._lock:
            keys = [k for k in self._side if k[0] == pk and k[1].startswith(prefix)]
            for k in keys:
                del self._side[k]
            return len(keys)

    def mark_chat_log(self, code: str, conn_id: str, now: float, seen: float | None) -> bool:
        with self._lock:
            r = self._rooms.get(code)
            conn = r.conns.get(conn_id) if r else None
            if conn is None or conn.log_at != (None if seen is None else float(seen)):
                return False
            conn.log_at = float(now)
            return True

    def mark_offer(self, code: str, conn_id: str, to: str) -> bool:
        with self._lock:
            r = self._rooms.get(code)
            conn = r.conns.get(conn_id) if r else None
            if conn is None:
                return False
            conn.offers = conn.offers | {to}
            return True

    # ---- budgets and reports -----------------------------------------------------------
    def spend_budget(
        self, kind: str, window_start: int, expires_at: int, counts: list[tuple[str, str, int]]
    ) -> bool:
        keys = []
        for who, digest, limit in counts:
            key = budget_key(kind, who, digest, window_start)
            keys.append(((key["pk"]["S"], key["sk"]["S"]), limit))
        assert all(k[0].startswith(LIMIT_PREFIX) for k, _ in keys)
        with self._lock:
            if self.budget_conflicts > 0:
                self.budget_conflicts -= 1
                raise Busy("TransactionConflict")
            if any(self._budgets.get(k, (0, 0))[0] >= limit for k, limit in keys):
                return False
            for k, _ in keys:
                self._budgets[k] = (self._budgets.get(k, (0, 0))[0] + 1, int(expires_at))
            return True

    def put_report(self, rec: ReportRecord) -> bool:
        mark = (rec.room, rec.game, rec.reporter, rec.reported)
        with self._lock:
            held = self._marks.get(mark)
            if held is not None and not held[1] < int(rec.at):
                return False
            if (rec.day, rec.id) in self._reports:
                raise RuntimeError(f"report id {rec.id} already stored")  # DynamoDB cancels too
            self._marks[mark] = (rec.id, int(rec.expires_at))
            self._reports[(rec.day, rec.id)] = (rec.data, int(rec.expires_at))
            return True

    def report(self, day: str, report_id: str) -> str | None:
        with self._lock:
            found = self._reports.get((day, report_id))
        if not found or found[1] < clock.now():
            return None
        return found[0]

    def reports(self, day: str) -> list[str]:
        now = clock.now()
        with self._lock:
            rows = sorted((rid, v) for (d, rid), v in self._reports.items() if d == day)
        return [data for _, (data, exp) in rows if exp >= now]

    def delete_report(self, rec: ReportRecord) -> None:
        with self._lock:
            self._reports.pop((rec.day, rec.id), None)
            self._marks.pop((rec.room, rec.game, rec.reporter, rec.reported), None)

    # ---- writes ------------------------------------------------------------------------
    def create(self, code: str, room: dict, side_items: tuple[SideItem, ...] = ()) -> bool:
        with self._lock:
            r = self._rooms.get(code)
            if r is not None and not r.expires < int(clock.now()):
                return False
            fresh = self._room_item(code, 1, room, None)
            if r is not None:  # the earlier room's other items stay until TTL deletes them
                fresh.conns, fresh.slots, fresh.chat = r.conns, r.slots, r.chat
            self._rooms[code] = fresh
            for side in side_items:  # with the room or not at all
                pk, sk = side_key(side.kind, side.owner, side.key)
                self._side[(pk, sk)] = SideItem(
                    side.kind, side.owner, side.key, _copy(dict(side.data)), int(side.expires_at)
                )
            return True

    def _room_item(self, code: str, version: int, room: dict, state: dict | None) -> _Room:
        return _Room(
            version=version,
            blob=encode({"room": room, "state": state}),
            expires=int(clock.now() + TTL_SECONDS),
            index=index_attributes(code, room),
        )

    def save(self, snap: Snapshot, room: dict, state: dict | None, plan: WritePlan | None = None) -> int:
        plan = plan or WritePlan()
        held = {conn_id: slot for slot, conn_id in snap.slots.items()}
        frees = [c for c in plan.conn_deletes if c in held and held[c] not in plan.slot_claims]
        size = (
            1
            + 2 * len(plan.conn_puts)
            + 2 * len(plan.conn_deletes)
            + len(plan.slot_claims)
            + len(frees)
            + len(plan.chat_items)
            + len(plan.side_items)
        )
        if size > MAX_TRANSACT_ITEMS:
            raise ValueError(f"a write plan of {size} items exceeds {MAX_TRANSACT_ITEMS}")
        with self._lock:
            now = clock.now()
            r = self._rooms.get(snap.code)
            if r is None or r.version != snap.version:
                raise Conflict()
            for slot in plan.slot_claims:  # free: none, expired, or the one read (its holder gone)
                cur = r.slots.get(slot)
                if cur is not None and not cur[1] < int(now) and cur[0] != snap.slots.get(slot):
                    raise Conflict()
            for conn_id in frees:
                cur = r.slots.get(held[conn_id])
                if cur is None or cur[0] != conn_id:
                    raise Conflict()
            # every condition holds: write it all
            expires = int(now + TTL_SECONDS)
            version = snap.version + 1 if plan.bump else snap.version
            if plan.bump:
                fresh = self._room_item(snap.code, version, room, state)
                r.version, r.blob, r.expires, r.index = fresh.version, fresh.blob, fresh.expires, fresh.index
            for conn_id, player in plan.conn_puts.items():
                r.conns[conn_id] = _Conn(
                    player=player or None,
                    at=round(now, 3),  # to the millisecond, as the pipeline's `now` (storage.py)
                    expires=expires,
                    listener=None if player else listener_id(),
                    patches=conn_id in plan.conn_patches,
                )
                self._lookups[conn_id] = (snap.code, expires)
            for conn_id in plan.conn_deletes:
                r.conns.pop(conn_id, None)
                self._lookups.pop(conn_id, None)
            for slot, conn_id in plan.slot_claims.items():
                r.slots[slot] = (conn_id, expires)
            for conn_id in frees:
                r.slots.pop(held[conn_id], None)
            for seq, messages in plan.chat_items:
                r.chat[seq] = (encode({"messages": messages}), expires)
            for side in plan.side_items:
                pk, sk = side_key(side.kind, side.owner, side.key)
                self._side[(pk, sk)] = SideItem(
                    side.kind, side.owner, side.key, _copy(dict(side.data)), int(side.expires_at)
                )
            return version

    # ---- identity (storage.IdentityStore's promises) -------------------------------------
    def put_person(self, person: Mapping) -> None:
        item = person_item(person)  # refuses unknown fields as the DynamoDB store does
        with self._lock:
            self._identity[(PERSON_PREFIX + item["id"]["S"], PERSON_SK)] = _copy(item)

    def person(self, person_id: str) -> dict | None:
        with self._lock:
            item = self._identity.get((PERSON_PREFIX + person_id, PERSON_SK))
        return person_of_item(item) if item else None

    def update_person(self, person_id: str, fields: Mapping) -> bool:
        if not fields or set(fields) - (set(PERSON_FIELDS) - {"id"}):
            raise ValueError(f"bad person fields: {sorted(fields)}")
        with self._lock:
            item = self._identity.get((PERSON_PREFIX + person_id, PERSON_SK))
            if item is None:
                return False
            current = person_of_item(item)
            self._identity[(PERSON_PREFIX + person_id, PERSON_SK)] = person_item({**current, **fields})
            return True

    def add_casual_game(self, person_id: str) -> bool:
        with self._lock:
            item = self._identity.get((PERSON_PREFIX + person_id, PERSON_SK))
            if item is None:
                return False
            item["casualGames"] = {"N": str(int(item["casualGames"]["N"]) + 1)}
            return True

    def delete_person(self, person_id: str) -> int:
        with self._lock:
            keys = [k for k in self._identity if k[0] == PERSON_PREFIX + person_id]
            for k in keys:
                del self._identity[k]
            sides = [k for k in self._side if k[0] == PERSON_PREFIX + person_id]  # games played
            for k in sides:
                del self._side[k]
            return len(keys) + len(sides)

    def put_credential(self, person_id: str, cred: Mapping) -> None:
        with self._lock:
            self._identity[(PERSON_PREFIX + person_id, CRED_PREFIX + cred["id"])] = {
                "data": _copy(dict(cred))
            }

    def credential(self, person_id: str, cred_id: str) -> dict | None:
        with self._lock:
            item = self._identity.get((PERSON_PREFIX + person_id, CRED_PREFIX + cred_id))
        return _copy(item["data"]) if item else None

    def credentials(self, person_id: str) -> list[dict]:
        with self._lock:
            rows = sorted(
                (sk, v)
                for (pk, sk), v in self._identity.items()
                if pk == PERSON_PREFIX + person_id and sk.startswith(CRED_PREFIX)
            )
        return [_copy(v["data"]) for _, v in rows]

    def delete_credential(self, person_id: str, cred_id: str) -> None:
        with self._lock:
            self._identity.pop((PERSON_PREFIX + person_id, CRED_PREFIX + cred_id), None)

    def put_challenge(self, challenge_id: str, data: Mapping, expires_at: int) -> None:
        with self._lock:
            self._identity[(CHALLENGE_PREFIX + challenge_id, "CHALLENGE")] = {
                "data": _copy(dict(data)),
                "expires": int(expires_at),
            }

    def take_challenge(self, challenge_id: str) -> dict | None:
        with self._lock:
            item = self._identity.pop((CHALLENGE_PREFIX + challenge_id, "CHALLENGE"), None)
        if item is None or item["expires"] < clock.now():
            return None
        return item["data"]

    def revoke_session(self, sid: str, expires_at: int) -> None:
        with self._lock:
            self._identity[(SESSION_PREFIX + sid, "REVOKED")] = {"expires": int(expires_at)}

    def session_revoked(self, sid: str) -> bool:
        with self._lock:
            item = self._identity.get((SESSION_PREFIX + sid, "REVOKED"))
        return item is not None and not item["expires"] < clock.now()
