"""Anonymous games (host option `anonymous`, functions/service/aliases.py; docs/rules.md,
"Anonymous games"): from the start to the end nobody's real name, nor the join order it could
be read from, leaves the server on any path; at the end names and aliases go out together.

The whole-game test plays a table of humans (random legal actions over their sockets) and bots
through the real handlers on moto and scans every frame every socket received (views, chat,
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
from service import aliases

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
        wake, ends = view["room"]["wakeAt"], view["phase"]["endsAt"]
        due = [t for t in (wake, ends) if t is not None]  # none while paused: a player resumes
        api.clock.t = max(api.clock.t, min(due)) + 0.01 if due else api.clock.t + 1
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
