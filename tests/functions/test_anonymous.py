"""Anonymous games (host option `anonymous`, functions/service/features/aliases.py; docs/rules.md,
"Anonymous games"): from the start to the end nobody's real name, nor the join order it could
be read from, leaves the server on any path; at the end names and aliases go out together.

The whole-game test plays a table of humans (random legal actions over their sockets) and bots
through the real handlers on the in-memory store and scans every frame every socket received (views, chat,
errors, report confirmations) and every REST summary answer for every real name and every
lobby id.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from fnkit import CTX, ws_event

from handlers import ws_report
from mafia_engine.testing import legal_actions
from service.features import aliases, fairness

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)

HUMANS = ("Annabelle", "Borislav", "Chiaroscuro", "Dmitrievna")
BOTS = ("Zorrito", "Quixotica", "Ulyssander")
NAMES = HUMANS + BOTS


def anonymous_room(api, preset: str = "classic", lang: str = "en") -> list[str]:
    """Four humans (each connected as c<lobby id>, plus a spectator) and three bots in an
    anonymous lobby; returns the lobby ids."""
    api.create(HUMANS[0], preset=preset, lang=lang, options={"anonymous": True})
    pids = ["p1"] + [api.join(n) for n in HUMANS[1:]]
    for pid in pids:
        assert api.connect(f"c{pid}", pid) == 200
    assert api.connect("cspec") == 200
    for name in BOTS:
        api.send("cp1", {"action": "addBot", "name": name})
    for pid in pids[1:]:
        api.send(f"c{pid}", {"action": "ready"})
    return pids + ["p5", "p6", "p7"]


def leaks(text: str, lobby_ids: list[str]) -> list[str]:
    found = [n for n in NAMES if n.lower() in text.lower()]
    found += [i for i in lobby_ids if re.search(rf'"{i}"', text)]
    return found


def report(api, conn_id: str, frame: dict) -> None:
    body = json.dumps({"action": "report", "id": "r1", **frame})
    assert ws_report.handler(ws_event("report", conn_id, body=body), CTX)["statusCode"] == 200


@pytest.mark.whole_game
@pytest.mark.parametrize("preset", ["classic", "city", "original"])
def test_an_anonymous_game_sends_no_real_name_nor_lobby_id_until_the_end(api, preset):
    lobby_ids = anonymous_room(api, preset)
    if preset == "original":  # 8 or more seats
        api.send("cp1", {"action": "addBot", "name": "Xerxesito"})
        lobby_ids.append("p8")
    before = len(api.gw.sent)
    api.send("cp1", {"action": "start", "id": "start"})
    snap = api.snapshot()
    assert snap.room["status"] == "running", api.gw.last("cp1", "error")
    assert not set(lobby_ids) & {p["id"] for p in snap.room["players"]}, "every seat has a fresh id"
    conn_of = {pid: conn for conn, pid in snap.conns.items() if pid}
    rests: list[str] = []
    rng = random.Random(preset)
    reported = False
    for step in range(900):
        snap = api.snapshot()
        if snap.room["status"] != "running":
            break
        state = snap.state
        humans = set(conn_of)
        mine = [a for a in legal_actions(state, now=api.clock.t) if a["player"] in humans]
        if mine and rng.random() < 0.5:
            action = dict(rng.choice(mine))
            conn = conn_of[action.pop("player")]
            api.send(conn, {"action": action.pop("type"), "id": f"a{step}", **action})
        if step % 7 == 0:  # a refused frame answers with an error
            api.send(conn_of[snap.room["host"]], {"action": "kick", "target": "p1"})
            api.send("cspec", {"action": "vote", "target": "p2"})
        if not reported and state["phase"]["kind"] not in ("roleReveal", "night"):
            other = next(p["id"] for p in snap.room["players"] if p["id"] != snap.conns["cp2"])
            report(api, "cp2", {"target": other, "reason": "abuse", "lines": []})
            reported = True
        if step % 20 == 0:
            rests.append(json.dumps(api.rest("GET", f"/rooms/{api.code}")[1], ensure_ascii=False))
        view = api.gw.last("cspec")["view"]
        wake, ends = api.next_wake(), view["phase"]["endsAt"]
        due = [t for t in (wake, ends) if t is not None]  # none while paused: a player resumes
        api.clock.t = max(api.clock.t, min(due)) + 0.01 if due else api.clock.t + 1
        api.fire_due()  # the Scheduler delivers what is due: the bots' private wakes, the phase timer
        api.send("cspec", {"action": "nudge", "phase": view["phase"]["seq"]})
    assert api.snapshot().room["status"] == "ended"
    during = [
        (c, f)
        for c, f in api.gw.sent[before:]
        if not (f["type"] == "view" and f["view"]["phase"]["kind"] == "ended")
    ]
    kinds = {f["type"] for _, f in during}
    assert {"view", "error", "reported"} <= kinds, kinds
    assert sum(1 for _, f in during if f["type"] == "view" and f["view"]["chat"]) > 10, "chat was said"
    for conn, frame in during:
        text = json.dumps(frame, ensure_ascii=False)
        assert not leaks(text, lobby_ids), (conn, leaks(text, lobby_ids), text[:400])
    for text in rests:
        assert not leaks(text, lobby_ids), text
    # the end reveals names and aliases together, to players and spectators alike
    for conn in ("cspec", *conn_of.values()):
        last = api.gw.last(conn)
        if last is None or conn not in api.snapshot().conns:
            continue  # a removed or departed seat's socket is closed
        players = last["view"]["players"]
        assert {p["name"] for p in players} == set(NAMES[: len(players)]) | (
            {"Xerxesito"} if len(players) == 8 else set()
        )
        assert all(p["alias"]["en"] and p["alias"]["ko"] and p["alias"]["ru"] for p in players)
    summary = api.rest("GET", f"/rooms/{api.code}")[1]
    assert {p["name"] for p in summary["players"]} >= set(HUMANS)


def test_the_deal_shuffles_seats_and_gives_fresh_ids_and_distinct_aliases(api):
    lobby_ids = anonymous_room(api)
    api.send("cp1", {"action": "start"})
    room = api.snapshot().room
    names = [p["name"] for p in room["players"]]
    assert sorted(names) == sorted(NAMES)
    new_ids = [p["id"] for p in room["players"]]
    assert new_ids == [f"p{i}" for i in range(8, 15)], "fresh ids, in the new seat order"
    assert [p["id"] for p in api.state()["players"]] == new_ids  # the engine's seats follow
    aliases_ = [aliases.alias_of(room, pid)["en"] for pid in new_ids]
    assert len(set(aliases_)) == 7 and len({a.split()[0] for a in aliases_}) == 7
    # each connection follows its seat: the host is still the host, under its new id
    host_conn_pid = api.snapshot().conns["cp1"]
    assert (
        room["host"] == host_conn_pid and room["players"][new_ids.index(host_conn_pid)]["name"] == HUMANS[0]
    )
    assert lobby_ids  # (the lobby ids are gone: see the whole-game test)


def test_seat_order_is_drawn_from_the_rooms_seed_not_the_join_order(api, monkeypatch):
    """Across deals the creator sits anywhere: the order comes from the room's seed."""
    seats = set()
    for seed in range(12):
        room = {
            "options": {"anonymous": True},
            "seed": seed,
            "nextId": 5,
            "host": "p1",
            "players": [{"id": f"p{i}", "name": n} for i, n in enumerate("ABCD", 1)],
        }
        puts = aliases.deal(room, {"c1": "p1", "cs": None})
        seats.add([p["name"] for p in room["players"]].index("A"))
        assert puts == {"c1": room["host"]}
        again = {
            **room,
            "players": [{"id": f"p{i}", "name": n} for i, n in enumerate("ABCD", 1)],
            "nextId": 5,
        }
        aliases.deal(again, {})
        assert [p["name"] for p in again["players"]] == [p["name"] for p in room["players"]], (
            "same seed, same deal"
        )
    assert seats == {0, 1, 2, 3}


def test_while_masked_views_hide_host_bot_ready_and_scores_and_show_you_your_alias(api):
    anonymous_room(api)
    api.send("cp1", {"action": "start"})
    snap = api.snapshot()
    me = snap.conns["cp2"]
    view = api.gw.last("cp2")["view"]
    assert view["you"]["id"] == me
    assert view["room"]["anonymous"] is True and view["room"]["host"] is None and view["room"]["scores"] == {}
    for p in view["players"]:
        assert not p["host"] and not p["bot"] and not p["ready"]
        assert p["name"] == p["alias"]["en"]
    host_view = api.gw.last("cp1")["view"]
    assert host_view["room"]["host"] == snap.room["host"]  # the host's own controls
    assert [p["host"] for p in host_view["players"]].count(True) == 1
    spectator = api.gw.last("cspec")["view"]
    assert spectator["room"]["host"] is None


def test_bots_name_seats_by_their_aliases_in_the_rooms_language(api):
    anonymous_room(api, lang="ru")
    api.send("cp1", {"action": "start"})
    room = api.snapshot().room
    names = aliases.bot_names(room, {})
    assert set(names.values()) == {aliases.alias_of(room, p["id"])["ru"] for p in room["players"]}


def test_a_normal_game_keeps_ids_names_and_order(api):
    api.create(HUMANS[0])
    for n in HUMANS[1:]:
        api.join(n)
    for i in range(1, 5):
        api.connect(f"cp{i}", f"p{i}")
    for i in range(2, 5):
        api.send(f"cp{i}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    room = api.snapshot().room
    assert [p["id"] for p in room["players"]] == ["p1", "p2", "p3", "p4"] and "anon" not in room
    assert [p["name"] for p in api.gw.last("cp2")["view"]["players"]] == list(HUMANS)


def test_facts_show_real_names_once_the_room_is_back_in_the_lobby(api):
    anonymous_room(api)
    api.send("cp1", {"action": "start"})
    snap = api.snapshot()
    host = snap.conns["cp1"]
    room = snap.room
    room_copy = {**room, "status": "lobby"}
    facts = aliases.facts(room_copy, {p["id"]: {"name": p["name"]} for p in room["players"]}, host)
    assert {f["name"] for f in facts.values()} == set(NAMES)


# ---------------------------------------------------------------- the one gate and role swaps
SWAP_NAMES = ("Annabelle", "Borislav", "Chiaroscuro", "Dmitrievna", "Evangelina", "Fyodorovich")
WATCHERS = ("Dmitrievna", "Fyodorovich")  # humans, never the host, the bot or the late one


def same_draws(monkeypatch) -> None:
    """Every draw from `secrets` (the room's randomness, tokens, the deal's salt) restarts from
    one fixed stream per caller: two rooms made by the same calls draw the same secret, deal the
    same roles to the same seat positions and give the same aliases, whoever holds each seat."""
    import random as _random
    import secrets
    import sys

    streams: dict[str, _random.Random] = {}

    def stream() -> _random.Random:
        frame = sys._getframe(2)
        while frame.f_globals.get("__name__") == "secrets":
            frame = frame.f_back
        key = f"{frame.f_globals.get('__name__')}.{frame.f_code.co_name}"
        return streams.setdefault(key, _random.Random(key))

    monkeypatch.setattr(secrets, "randbits", lambda k: stream().getrandbits(k))
    monkeypatch.setattr(secrets, "token_bytes", lambda n=None: stream().randbytes(32 if n is None else n))
    # the game's secret (conftest's room_seeds draws a new one per call): the same for both tables
    fixed = streams.setdefault("fairness.new_secret", _random.Random("fairness.new_secret"))
    monkeypatch.setattr(fairness, "new_secret", lambda: fixed.randbytes(32).hex())


def swap_game(api, monkeypatch, tag: str, order=SWAP_NAMES, bots=(), late=(), host_away=False) -> dict:
    """An anonymous classic game of `order` (the first creates the room and is the host;
    `bots` are bot seats; `late` connect, ready and go before the start and come back after
    it), watched by WATCHERS and a spectator from the start to a moment into the role reveal.
    Returns each watcher's frames from the start on, and the REST summary, with the room code
    as "CODE"."""
    same_draws(monkeypatch)
    api.clock.t = 1_800_000_000.0  # both tables on the same clock
    code = api.create(order[0], options={"anonymous": True})
    conn = {order[0]: f"{tag}-{order[0]}"}
    assert api.connect(conn[order[0]], "p1") == 200
    pid = {order[0]: "p1"}
    for name in order[1:]:
        if name in bots:
            api.send(conn[order[0]], {"action": "addBot", "name": name})
        else:
            pid[name] = api.join(name)
    for name in order[1:]:
        if name in pid:
            conn[name] = f"{tag}-{name}"
            assert api.connect(conn[name], pid[name]) == 200
            api.send(conn[name], {"action": "ready"})
    for name in late:
        api.disconnect(conn[name])
    assert api.connect(f"{tag}-spectator") == 200
    watchers = [conn[w] for w in WATCHERS] + [f"{tag}-spectator"]
    start = len(api.gw.sent)
    api.send(conn[order[0]], {"action": "start"})
    assert api.snapshot().room["status"] == "running", api.gw.last(conn[order[0]], "error")
    api.clock.advance(3)
    for name in late:  # back: the reconnect that flipped one alias's presence
        assert api.connect(f"{tag}-{name}-again", pid[name]) == 200
    if host_away:
        api.disconnect(conn[order[0]])
    api.clock.advance(3)
    for w in watchers:
        api.send(w, {"action": "sync"})
    summary = api.rest("GET", f"/rooms/{code}")[1]
    frames = {
        w[len(tag) + 1 :]: [
            json.dumps(f, sort_keys=True).replace(code, "CODE") for c, f in api.gw.sent[start:] if c == w
        ]
        for w in watchers
    }
    return {"frames": frames, "summary": json.dumps(summary, sort_keys=True).replace(code, "CODE")}


@pytest.mark.parametrize(
    "swap",
    [
        ("bot", {"bots": ("Chiaroscuro",)}, {"bots": ("Borislav",)}),
        ("host", {}, {"order": ("Borislav", "Annabelle", *SWAP_NAMES[2:])}),
        (
            "host away",
            {"host_away": True},
            {"order": ("Borislav", "Annabelle", *SWAP_NAMES[2:]), "host_away": True},
        ),
        ("late", {"late": ("Borislav",)}, {"late": ("Chiaroscuro",)}),
    ],
    ids=lambda s: s[0] if isinstance(s, tuple) else s,
)
def test_no_field_singles_out_the_bot_the_host_or_the_late_player_in_an_anonymous_game(
    api, monkeypatch, swap
):
    """Role swap: the same table twice with a different seat being the bot, the host (present
    or away) or the player who was offline at the start and came back; every frame the other
    seats and a spectator receive from the start, and the REST summary, are the same bytes."""
    _, one, other = swap
    a = swap_game(api, monkeypatch, "a", **one)
    b = swap_game(api, monkeypatch, "b", **other)
    assert a["frames"] == b["frames"]
    assert all(a["frames"][w] for w in a["frames"]), "each watcher got frames"
    assert a["summary"] == b["summary"]
    summary = json.loads(a["summary"])
    assert all(p["connected"] and not p["bot"] and not p["host"] for p in summary["players"])


def test_the_name_check_answers_the_same_for_a_seated_players_real_name_as_for_an_unused_one(api):
    """A newcomer's name is checked against the aliases (and is the newcomer's own), never
    against the real names: no `name_taken` oracle. An alias of the game is refused."""
    api.create("Annabelle", preset="city", options={"anonymous": True, "substitutes": True})
    pids = ["p1"] + [
        api.join(n) for n in ("Borislav", "Chiaroscuro", "Dmitrievna", "Evangelina", "Fyodorovich")
    ]
    for pid in pids:
        assert api.connect(f"c{pid}", pid) == 200
    for pid in pids[1:]:
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    snap = api.snapshot()
    host = snap.room["host"]
    gone_conn, gone = next((c, p) for c, p in snap.conns.items() if p and p != host)
    api.send(gone_conn, {"action": "leave"})
    answers = {}
    for i, name in enumerate(("Borislav", "Zanzibar", "annabelle")):  # two seated real names, one unused
        assert api.connect(f"new{i}") == 200
        api.send(
            f"new{i}",
            {"action": "takeSeat", "seat": gone, "name": name, "id": "t", "device": f"device-{i:020d}"},
        )
        frame = api.gw.to(f"new{i}")[-1]
        answers[name] = {k: v for k, v in frame.items() if k != "request"}
    assert answers["Borislav"] == answers["Zanzibar"] == answers["annabelle"]
    assert answers["Zanzibar"]["type"] == "seatPending"
    alias = aliases.alias_of(api.snapshot().room, host)["ru"]
    assert api.connect("new9") == 200
    api.send(
        "new9", {"action": "takeSeat", "seat": gone, "name": alias, "device": "device-99999999999999999999"}
    )
    assert api.gw.last("new9", "error")["code"] == "name_taken"


def test_every_public_field_of_an_anonymous_game_goes_through_the_one_gate(api):
    """The list of public fields the room layer adds while an anonymous game runs (views' seats
    and room block, the REST summary, errors), each with its rule in `aliases.FIELDS`; a field
    the builders make without a rule fails here (the gate would drop it)."""
    assert {kind: set(rules) for kind, rules in aliases.FIELDS.items()} == {
        "player": {"id", "name", "alias", "connected", "ready", "host", "bot", "left"},
        "room": {
            "code", "host", "hostAwaySince", "status", "scores", "setupError", "idleOptions", "narrator", "lang", "screens", "displayGen", "autoStartAt",
            "anonymous", "openSeats", "substituted", "seatRequests",
        },
        "summary": {
            "roomCode", "preset", "options", "status", "phase", "host", "maxPlayers", "setupError",
            "players", "removed",
        },
        "error": {"id", "code", "message"},
    }  # fmt: skip
    api.create("Annabelle", preset="city", options={"anonymous": True, "substitutes": True})
    pids = ["p1"] + [api.join(n) for n in ("Borislav", "Chiaroscuro", "Dmitrievna", "Evangelina")]
    for pid in pids:
        assert api.connect(f"c{pid}", pid) == 200
    api.send("cp1", {"action": "addBot", "name": "Zorrito"})
    for pid in pids[1:]:
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    assert api.connect("cspec") == 200
    snap = api.snapshot()
    room = snap.room
    # what the builders make before the gate: every key must have a rule
    from service.protocol import views

    connected = {p for p in snap.conns.values() if p}
    for p in room["players"]:
        raw = {"id": p["id"], **views.player_facts(room, connected)[p["id"]]}
        assert set(raw) - {"id"} <= set(aliases.FIELDS["player"]), raw
    from service.room import featureset, viewframes

    # the room block as every feature but the gate makes it (the host's: every key it may carry)
    ungated = tuple(f for f in featureset.active() if f.name != "aliases")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(featureset, "_active", ungated)
        raw_block = viewframes.view_of(room, snap.state, connected, room["host"])["room"]
    assert set(raw_block) | {"anonymous"} == set(aliases.FIELDS["room"]), raw_block
    summary = api.rest("GET", f"/rooms/{api.code}")[1]
    assert set(summary) == set(aliases.FIELDS["summary"])
    assert set().union(*(p.keys() for p in summary["players"])) <= set(aliases.FIELDS["player"])
    api.send("cspec", {"action": "vote", "target": "p2", "id": "x"})
    assert set(api.gw.last("cspec", "error")) == {"type"} | set(aliases.FIELDS["error"])
    # and what the wire carries: the gate's output
    for conn in ("cp2", "cspec"):
        api.send(conn, {"action": "sync"})
        view = api.gw.last(conn)["view"]
        assert set(view["room"]) == set(aliases.FIELDS["room"])
        assert all(p["connected"] and not p["bot"] and not p["ready"] for p in view["players"])


def test_an_anonymous_game_does_not_say_since_when_the_host_is_away(api):
    """While an anonymous game runs, `room.hostAwaySince` reads null for every viewer (the
    review found the host 2/2: its return cleared the field in the frame that dropped its
    seat from `openSeats`); the room still keeps the time (`takeHost` waits for it), and an
    ordinary game shows it."""
    anonymous_room(api)
    api.send("cp1", {"action": "start"})
    snap = api.snapshot()
    host = snap.room["host"]
    host_conn = next(c for c, p in snap.conns.items() if p == host)
    other = next(c for c, p in snap.conns.items() if p and p != host)
    api.clock.advance(5)
    api.disconnect(host_conn)
    assert api.snapshot().room["hostAwaySince"] is not None
    for conn in (other, "cspec"):
        api.send(conn, {"action": "sync"})
        assert api.gw.last(conn)["view"]["room"]["hostAwaySince"] is None, conn


def test_an_ordinary_game_still_says_since_when_the_host_is_away(api):
    api.start(5)
    api.clock.advance(5)
    api.disconnect("cp1")
    api.send("cp2", {"action": "sync"})
    assert api.gw.last("cp2")["view"]["room"]["hostAwaySince"] == api.snapshot().room["hostAwaySince"] is not None
