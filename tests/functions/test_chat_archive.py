"""The chat archive (CHAT# items): per-channel buffers, when a batch is written, and the
`chatLog` frame that reads an ended game's whole chat back page by page.

Ids count per channel ("day:1", "mafia:1"), so equal numbers in two channels are still two
messages. A hidden channel's batch is written only in its writers' requests, so which public
request becomes a transaction never depends on how much was said in hidden channels
(docs/architecture.md, "Chat archive"; the non-interference test is in test_side_channels.py).
"""

from __future__ import annotations

import json

import pytest

from service.infra.storage import WritePlan
from service.room import chat_archive
from service.room.chat_archive import ARCHIVE_BATCH

# the long game is put back into an empty account for each test that plays on it (`long_game`)
pytestmark = pytest.mark.fresh_aws


def msg(channel: str, n: int, text: str | None = None) -> dict:
    return {
        "id": f"{channel}:{n}",
        "channel": channel,
        "from": "p1",
        "text": text or f"{channel} {n}",
        "at": float(n),
        "day": 1,
    }


def evict(room: dict, channel: str, n: int, wrote: str | None = None) -> list:
    """One change that evicts message n of `channel` (the window keeps n + 1)."""
    return chat_archive.collect(room, {"chat": [msg(channel, n)]}, {"chat": [msg(channel, n + 1)]}, wrote)


def test_archive_keeps_each_channels_evicted_messages_once():
    room = {"status": "running"}
    before = {"chat": [msg("day", 1), msg("mafia", 1), msg("day", 2)]}
    after = {"chat": [msg("mafia", 1), msg("day", 2), msg("mafia", 2)]}
    assert chat_archive.collect(room, before, after) == []
    assert {ch: [m["id"] for m in b] for ch, b in room["archive"]["buffers"].items()} == {"day": ["day:1"]}
    final = {"chat": [msg("day", 2), msg("mafia", 2)]}
    assert chat_archive.collect(room, after, final) == []
    assert [m["id"] for m in room["archive"]["buffers"]["mafia"]] == ["mafia:1"]


def test_a_public_channels_batch_is_written_in_whichever_request_fills_it():
    room = {"status": "running"}
    for n in range(1, ARCHIVE_BATCH):
        assert evict(room, "day", n) == []
    [(seq, batch)] = evict(room, "day", ARCHIVE_BATCH)  # e.g. a bot's day line, drained
    assert seq == 1 and [m["id"] for m in batch] == [f"day:{n}" for n in range(1, ARCHIVE_BATCH + 1)]
    assert room["archive"]["buffers"]["day"] == []


def test_a_hidden_channels_batch_is_written_only_in_a_request_that_wrote_to_it():
    room = {"status": "running"}
    for n in range(1, ARCHIVE_BATCH + 3):  # lines drained in others' requests: kept in the buffer
        assert evict(room, "mafia", n) == []
    assert evict(room, "day", 1, wrote="day") == []  # a public request never writes it
    [(seq, batch)] = evict(room, "mafia", ARCHIVE_BATCH + 3, wrote="mafia")  # a mafioso's own line
    assert seq == 1 and len(batch) == ARCHIVE_BATCH + 3
    assert room["archive"]["buffers"]["mafia"] == [] and len(room["archive"]["buffers"]["day"]) == 1


@pytest.mark.parametrize("preset", ["classic", "city", "original"])
def test_the_public_channels_are_read_by_spectators_in_every_preset(preset):
    """What makes a batch of `PUBLIC_CHANNELS` safe to write in any request: a spectator reads
    them (their volume is no secret from anyone). Checked at the first phase; every preset's
    `read_channels` starts a spectator's list from `day` and `system` in every phase."""
    import mafia_engine as me

    n = me.presets()[preset]["minPlayers"]
    state = me.new_game([f"p{i}" for i in range(1, n + 1)], {"preset": preset}, seed=1, now=0.0)
    assert chat_archive.PUBLIC_CHANNELS <= set(me.view(state, None)["channels"]["read"])


def test_a_new_game_starts_its_own_archive_and_nothing_is_written_at_the_end():
    room = {"status": "running"}
    for n in range(1, ARCHIVE_BATCH + 1):
        evict(room, "day", n)
    evict(room, "dead", 1)
    room["status"] = "ended"
    assert evict(room, "system", 1) == []  # the end: the buffers stay in the room data
    assert chat_archive.collect(room, {"chat": []}, None) == []  # newGame: back to the lobby
    assert chat_archive.collect(room, None, {"chat": []}) == []  # start
    assert room["archive"] == {"seq": 1, "first": 2, "buffers": {}}


def test_a_room_stored_with_one_buffer_for_all_channels_is_split_per_channel():
    room = {"status": "running", "archive": {"seq": 3, "buffer": [msg("day", 1), msg("mafia", 1)]}}
    assert evict(room, "day", 2) == []
    assert {ch: len(b) for ch, b in room["archive"]["buffers"].items()} == {"day": 2, "mafia": 1}
    assert "buffer" not in room["archive"] and room["archive"]["first"] == 4  # after the stored items


def test_a_page_holds_the_newest_lines_that_fit_and_says_where_the_next_starts():
    lines = [msg("day", n, "x" * 190) for n in range(1, 301)]
    shown = {m["id"] for m in lines[-40:]}
    first = json.loads(chat_archive.page(lines, shown, None, "c1"))
    assert first["type"] == "chatLog" and first["id"] == "c1"
    assert len(json.dumps(first).encode()) < 32 * 1024
    got = [m["id"] for m in first["lines"]]
    assert got == [m["id"] for m in lines[first["from"] : 260]]  # oldest first, without the shown 40
    pages, before = [first], first["from"]
    while before:
        pages.append(json.loads(chat_archive.page(lines, shown, before, None)))
        before = pages[-1]["from"]
    everything = [m["id"] for p in reversed(pages) for m in p["lines"]]
    assert everything == [m["id"] for m in lines[:260]]
    assert json.loads(chat_archive.page(lines, shown, 10**6, None))["from"] == first["from"]


# ---------------------------------------------------------------- `chatLog` on moto
def chat_lines(api, pids: list[str], channel: str, count: int, t0: float) -> None:
    step = 0.8 / len(pids)  # writers in turn: each keeps the 0.7 s rate limit
    for i in range(count):
        api.clock.t = t0 + step * (i + 1)
        text = f"{channel} {i} " + "la" * 75  # long lines: the log takes several pages
        api.send(f"c{pids[i % len(pids)]}", {"action": "chat", "channel": channel, "text": text})


def text(m: dict) -> str:
    return m["text"].split(" la")[0]


def read_log(api, conn: str, pages: list | None = None) -> list[dict]:
    """Every page of `chatLog` for `conn`, oldest line first, as a client loads them; each
    page is one frame to the sender alone, under API Gateway's 32 KB billing unit."""
    before, lines = None, []
    for _ in range(50):
        api.clock.advance(chat_archive.CHAT_LOG_INTERVAL)  # one page per interval per connection
        api.gw.clear()
        api.send(
            conn, {"action": "chatLog", "id": "log", **({"before": before} if before is not None else {})}
        )
        [(to, answer)] = api.gw.sent
        assert to == conn and answer["type"] == "chatLog" and answer["id"] == "log", answer
        assert api.gw.sizes[0] < 32 * 1024
        lines = answer["lines"] + lines
        before = answer["from"]
        if pages is not None:
            pages.append(answer)
        if before == 0:
            return lines
    raise AssertionError("chatLog never reached the first line")


MAFIA_LINES = 60
# The long game as built by the first test of this process that asked for it (the rest get it
# put back: `long_game`): every item of its account, every schedule, the clock, the tokens and
# what the gateway had been sent.
BUILT: dict = {}


@pytest.fixture
def long_game(api):
    """A classic game with 60 mafia lines at night and 100 day lines (both windows overflow).
    Played once per process (~1.4 CPU-s on moto, nine tests), then put back for each test into
    its own empty account (`fresh_aws`) exactly as it was stored: the same items, schedules,
    clock, tokens and frames sent."""
    if not BUILT:
        BUILT.update(_build_long_game(api), account=_recorded_account(api), gateway=_recorded_gateway(api.gw))
    else:
        _put_back(api, BUILT)
    return api, list(BUILT["mafia"]), list(BUILT["town"])


SCHEDULE_KEYS = ("Name", "GroupName", "ScheduleExpression", "ScheduleExpressionTimezone", "FlexibleTimeWindow",
                 "ActionAfterCompletion", "Target", "State")  # fmt: skip


def _recorded_account(api) -> dict:
    """Every item of the table and every schedule of the group (the test's account is fresh:
    they are the long game's)."""
    store, timers = api.svc.store, api.svc.timers
    items = [it for page in store.client.get_paginator("scan").paginate(TableName=store.table) for it in page["Items"]]
    schedules = []
    for page in timers.client.get_paginator("list_schedules").paginate(GroupName=timers.group):
        for entry in page["Schedules"]:
            one = timers.client.get_schedule(GroupName=timers.group, Name=entry["Name"])
            schedules.append({k: one[k] for k in SCHEDULE_KEYS if k in one})
    return {"items": items, "schedules": schedules, "t": api.clock.t, "code": api.code, "tokens": dict(api.tokens)}


def _recorded_gateway(gw) -> dict:
    import copy

    return copy.deepcopy({"sent": gw.sent, "wire": gw.wire, "sizes": gw.sizes, "views": gw.views})


def _put_back(api, built: dict) -> None:
    import copy

    store, timers, account = api.svc.store, api.svc.timers, built["account"]
    assert not store.client.scan(TableName=store.table, Limit=1)["Items"], "the account is not empty (fresh_aws)"
    for item in account["items"]:
        store.client.put_item(TableName=store.table, Item=item)
    for schedule in account["schedules"]:
        timers.client.create_schedule(**schedule)
    api.clock.t, api.code = account["t"], account["code"]
    api.tokens.update(account["tokens"])
    for name, value in copy.deepcopy(built["gateway"]).items():
        setattr(api.gw, name, value)


def _build_long_game(api) -> dict:
    api.start(7)
    api.connect("s1")
    state = api.state()
    while state["phase"]["kind"] != "night":
        api.clock.advance(max(0.0, state["phase"]["endsAt"] - api.clock.t))
        api.send("cp1", {"action": "nudge"})
        state = api.state()
    roles = {p["id"]: p["role"] for p in state["players"]}
    mafia = sorted(p for p, r in roles.items() if r == "mafia")
    town = sorted(p for p, r in roles.items() if r != "mafia")
    chat_lines(api, mafia, "mafia", MAFIA_LINES, api.clock.t)  # 24 s of the 30 s night
    api.clock.advance(max(0.0, api.state()["phase"]["endsAt"] - api.clock.t))
    api.send("cp1", {"action": "nudge"})
    assert api.state()["phase"]["kind"] == "discussion"
    chat_lines(api, town, "day", 100, api.clock.t)
    assert not [f for _, f in api.gw.sent if f["type"] == "error"], api.gw.sent[-1]
    return {"mafia": mafia, "town": town}


def test_chat_log_is_refused_until_the_game_has_ended(long_game):
    api, mafia, town = long_game
    for conn in (f"c{mafia[0]}", f"c{town[0]}", "s1"):
        api.gw.clear()
        api.send(conn, {"action": "chatLog", "id": 7})
        assert api.gw.last(conn, "error")["code"] == "not_ended"
        assert not [c for c, _ in api.gw.sent if c != conn]


def test_chat_log_serves_the_whole_game_after_the_end_to_players_and_spectators(long_game):
    """Every line of the game, the mafia's first ones long gone from the engine's window
    included, reaches a citizen and a spectator once the game is over (the review shows
    every channel to everyone at the end), page by page, each page under one 32 KB frame."""
    api, mafia, town = long_game
    host = "p1"
    assert "mafia:1" not in {m["id"] for m in api.state()["chat"]}  # evicted from the window
    archive = api.snapshot().room["archive"]
    archived = {m["channel"] for m in api.svc.store.chat_archive(api.code, archive["first"], archive["seq"])}
    assert archived == {"day", "mafia"}  # a batch of each went to its CHAT# item
    api.send(f"c{host}", {"action": "endGame"})
    assert api.snapshot().room["status"] == "ended"
    mafia_texts = [f"mafia {i}" for i in range(MAFIA_LINES)]
    watchers = (f"c{town[-1]}", "s1")
    views = {conn: api.gw.last(conn, "view")["view"] for conn in watchers}
    for conn in watchers:
        view_chat = views[conn]["chat"]
        pages: list = []
        lines = read_log(api, conn, pages)
        assert len(pages) >= 2
        everything = {m["id"]: m for m in [*lines, *view_chat]}
        assert [text(m) for m in everything.values() if m["channel"] == "mafia"] == mafia_texts
        day = sorted((m for m in everything.values() if m["channel"] == "day"), key=lambda m: m["at"])
        assert [text(m) for m in day] == [f"day {i}" for i in range(100)]
        assert len(lines) == len({m["id"] for m in lines})  # no line twice
        assert not {m["id"] for m in lines} & {m["id"] for m in view_chat}  # nor what the view has


def test_chat_log_writes_nothing_and_checks_its_frame(long_game):
    api, _mafia, town = long_game
    api.send("cp1", {"action": "endGame"})
    item = api.item()
    conn = f"c{town[0]}"
    for bad in ({"before": -1}, {"before": "3"}, {"before": 1.5}, {"page": 2}):
        api.gw.clear()
        api.send(conn, {"action": "chatLog", "id": 1, **bad})
        assert api.gw.last(conn, "error")["code"] == "bad_frame", bad
    api.send(conn, {"action": "chatLog", "before": 0})
    assert api.gw.last(conn, "chatLog") == {"type": "chatLog", "id": None, "lines": [], "from": 0}
    assert api.item() == item  # read only: the room item is as it was


def test_chat_log_never_serves_an_earlier_room_with_the_same_code(long_game):
    """Room codes are reused once a room expires, and TTL deletes the old room's items days
    later: its CHAT# items, numbered past this game's, must not reach this game's log."""
    from service.infra.storage import CHAT_PREFIX, encode, room_pk

    api, _mafia, _town = long_game
    seq = api.snapshot().room["archive"]["seq"]
    old = [
        {"id": "mafia:999", "channel": "mafia", "from": "p3", "text": "OLD ROOM SECRET", "at": 1.0, "day": 1}
    ]
    for number, expires in ((seq + 5, "1"), (seq + 6, str(10**12))):  # expired, and (oddly) live
        item = {"pk": {"S": room_pk(api.code)}, "sk": {"S": f"{CHAT_PREFIX}{number:08d}"}}
        api.svc.store.client.put_item(
            TableName=api.svc.store.table,
            Item={**item, "expiresAt": {"N": expires}, "data": {"B": encode({"messages": old})}},
        )
    api.send("cp1", {"action": "endGame"})
    assert not [m for m in read_log(api, "s1") if "OLD" in text(m)]


def test_a_room_stored_before_first_existed_logs_only_its_current_game():
    """The old code wrote each game's rest at its end: a stored room's items may hold earlier
    games, so its log starts after them (never two games mixed, whose ids repeat)."""
    room = {"status": "running", "archive": {"seq": 4, "buffer": [msg("day", 1)]}}
    archive = chat_archive._archive(room)
    assert archive["first"] == 5 and archive["buffers"] == {"day": [msg("day", 1)]}


# ---------------------------------------------------------------- what a page costs, and bounds
def item_bytes(item: dict) -> int:
    """DynamoDB's item size: attribute names plus values (S and B their bytes, N about one
    byte per two digits + 1); read units of a strongly consistent Query = total / 4 KB, up."""
    size = 0
    for name, value in item.items():
        size += len(name.encode())
        ((kind, v),) = value.items()
        size += len(v) if kind == "B" else len(v.encode()) if kind == "S" else len(v) // 2 + 1
    return size


def words(i: int) -> str:
    """About 80 characters of text that compresses like chat does (not like one word repeated)."""
    import hashlib

    vocab = "yes no maybe him her vote why night town mafia doctor sure lie trust check who said".split()
    h = hashlib.sha256(str(i).encode()).digest()
    return " ".join(vocab[b % len(vocab)] for b in h[:16])


def grow_archive(api, lines: int) -> None:
    """Give the ended game's archive `lines` more lines, 25 per CHAT# item as the room writes
    them (day lines of ~90 characters), through the store's own conditional writes."""
    batches = [
        [
            {
                "id": f"day:{100000 + i}",
                "channel": "day",
                "from": "p2",
                "text": f"line {i} " + words(i),
                "at": float(i) / 1000,
                "day": 1,
            }
            for i in range(start, min(start + ARCHIVE_BATCH, lines))
        ]
        for start in range(0, lines, ARCHIVE_BATCH)
    ]
    for chunk in range(0, len(batches), 40):  # a transaction holds at most 100 items
        snap = api.snapshot()
        room = snap.room
        seq = room["archive"]["seq"]
        items = [(seq + 1 + k, b) for k, b in enumerate(batches[chunk : chunk + 40])]
        room["archive"]["seq"] = seq + len(items)
        api.svc.store.save(snap, room, snap.state, WritePlan(chat_items=tuple(items)))


class ChatReads:
    """The CHAT# items each DynamoDB Query returned (read), per request."""

    def __init__(self, client) -> None:
        self.pages: list[list[int]] = []
        client.meta.events.register("after-call.dynamodb.Query", self.record)

    def record(self, http_response, parsed, **kwargs) -> None:
        sizes = [item_bytes(it) for it in parsed.get("Items", []) if it["sk"]["S"].startswith("CHAT#")]
        if sizes:
            self.pages[-1].extend(sizes)


@pytest.mark.parametrize("lines", [1_000, pytest.param(10_000, marks=pytest.mark.whole_game)])
def test_a_chat_log_page_reads_only_the_archive_items_it_returns(long_game, lines):
    """A page was two Queries that read the whole archive whatever page was asked (142.5 KB
    for a 1,005-line game): now one Query of at most PAGE_ITEMS items, each returned."""
    api, _mafia, town = long_game
    api.send("cp1", {"action": "endGame"})
    grow_archive(api, lines)
    reads = ChatReads(api.svc.store.client)
    conn, before, units, total = f"c{town[0]}", None, [], 0
    for _ in range(lines // ARCHIVE_BATCH + 20):
        api.clock.advance(chat_archive.CHAT_LOG_INTERVAL)
        reads.pages.append([])
        api.gw.clear()
        api.send(
            conn, {"action": "chatLog", "id": "log", **({"before": before} if before is not None else {})}
        )
        answer = api.gw.last(conn, "chatLog")
        assert answer is not None, api.gw.sent
        read = reads.pages[-1]
        assert len(read) <= chat_archive.PAGE_ITEMS, len(read)
        assert (
            len(answer["lines"]) >= len(read) * ARCHIVE_BATCH - 40
        )  # every item read is returned (less what the view shows)
        units.append(-(-sum(read) // 4096))
        total += len(answer["lines"])
        before = answer["from"]
        if before == 0:
            break
    assert before == 0 and total >= lines
    print(
        f"\nchatLog over a {lines}-line archive: {len(units)} pages, read units per page max {max(units)}, "
        f"mean {sum(units) / len(units):.2f}, item bytes per page max {max(sum(p) for p in reads.pages)}"
    )
    assert max(units) <= 4


def test_chat_log_pages_are_limited_per_connection(long_game):
    """8 pages asked at once by one connection: one is answered, 7 refused `rate_limited` (no
    Query of the archive for them); after CHAT_LOG_INTERVAL the next one is answered."""
    api, _mafia, town = long_game
    api.send("cp1", {"action": "endGame"})
    conn = f"c{town[0]}"
    api.clock.advance(1)
    api.gw.clear()
    for _ in range(8):
        api.send(conn, {"action": "chatLog", "id": "log"})
    kinds = [f["type"] if f["type"] != "error" else f["code"] for c, f in api.gw.sent if c == conn]
    assert kinds == ["chatLog"] + ["rate_limited"] * 7, kinds
    assert "per connection" in api.gw.last(conn, "error")["message"]
    api.send("s1", {"action": "chatLog", "id": "log"})  # another connection is not held up
    assert api.gw.last("s1", "chatLog") is not None
    api.clock.advance(chat_archive.CHAT_LOG_INTERVAL)
    api.gw.clear()
    api.send(conn, {"action": "chatLog", "id": "log"})
    assert api.gw.last(conn, "chatLog") is not None


@pytest.mark.whole_game
def test_after_game_chat_is_bounded_in_lines_and_time_and_archives_nothing(long_game):
    """After the end the day channel stayed writable for good: every 25 lines another archive
    item, every line 24 h more for the room. Now at most POST_GAME_CHAT_LINES lines within
    POST_GAME_CHAT_SECONDS of the end, kept in the room data, then `chat_closed`."""
    api, _mafia, town = long_game
    api.send("cp1", {"action": "endGame"})
    snap = api.snapshot()
    ended, seq = snap.room["endedAt"], snap.room["archive"]["seq"]
    conns = [f"c{p}" for p in town]
    api.gw.clear()
    for i in range(chat_archive.POST_GAME_CHAT_LINES + 5):
        api.clock.advance(0.8 / len(conns) + 0.01)
        api.send(conns[i % len(conns)], {"action": "chat", "channel": "day", "text": f"gg {i}"})
    refused = [f["code"] for _, f in api.gw.sent if f["type"] == "error"]
    assert refused == ["chat_closed"] * 5, refused
    assert api.snapshot().room["archive"]["seq"] == seq  # no archive item after the end
    # the lines are in the log all the same
    said = {m.get("text") for m in read_log(api, conns[0]) + api.state()["chat"]}
    assert {f"gg {i}" for i in range(chat_archive.POST_GAME_CHAT_LINES)} <= said
    assert api.clock.t - ended < chat_archive.POST_GAME_CHAT_SECONDS  # closed by the count


def test_after_game_chat_closes_a_fixed_time_after_the_end(long_game):
    api, _mafia, town = long_game
    api.send("cp1", {"action": "endGame"})
    ended = api.snapshot().room["endedAt"]
    conn = f"c{town[0]}"
    api.clock.t = ended + chat_archive.POST_GAME_CHAT_SECONDS - 1
    api.send(conn, {"action": "chat", "channel": "day", "text": "still here"})
    assert not [f for _, f in api.gw.sent if f["type"] == "error" and f["code"] == "chat_closed"]
    expires = int(api.item()["expiresAt"]["N"])
    api.clock.t = ended + chat_archive.POST_GAME_CHAT_SECONDS + 1
    api.gw.clear()
    api.send(conn, {"action": "chat", "channel": "day", "text": "late"})
    assert api.gw.last(conn, "error")["code"] == "chat_closed"
    assert int(api.item()["expiresAt"]["N"]) == expires  # a refused line renews nothing
    assert expires <= ended + chat_archive.POST_GAME_CHAT_SECONDS + 24 * 3600
