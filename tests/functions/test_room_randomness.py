"""Randomness through the handlers (docs/rules.md, "Randomness"): a room's game
secret is 256 bits that leave the server by no path before the end; the bots draw from its
`bots` key, an anonymous game's seat shuffle and aliases from its `aliases` key, the deal from
its `deal` key; reports name a game by its public commitment; after the end
`python -m mafia_engine.verify` replays the deal and the aliases from the revealed secret.

The attacks this answers (a red team's, on the 31-bit seed this replaced): a player replayed
the bots' greetings, or an anonymous game's aliases, with the project's own code over the
31-bit seed space and found the seed, hence every role; with the secret 256 bits and each public purpose on a key of its
own, there is no space to search and no public output of the deal's key.
"""

from __future__ import annotations

import contextlib
import io
import json
import random

import pytest
from fnkit import CTX, ws_event

from handlers import ws_report
from mafia_engine import bots, rng, verify
from mafia_engine.testing import legal_actions
from service.features import aliases, reports

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)

HUMANS = ("Ann", "Bob", "Cyd")


def test_an_anonymous_bot_game_draws_each_purpose_from_its_key_and_shows_none_before_the_end(
    api, monkeypatch
):
    given: list[object] = []  # every seed the room layer hands the bots' policy
    plan_room, deliver, lapse = bots.plan_room, bots.deliver, bots.lapse

    def spy_plan(state, ids, seed, *a, **k):
        given.append(seed)
        return plan_room(state, ids, seed, *a, **k)

    def spy_deliver(state, stored, now, second, ids, seed, *a, **k):
        given.append(seed)
        return deliver(state, stored, now, second, ids, seed, *a, **k)

    def spy_lapse(state, stored, now, late, ids, seed, *a, **k):
        given.append(seed)
        return lapse(state, stored, now, late, ids, seed, *a, **k)

    monkeypatch.setattr(bots, "plan_room", spy_plan)
    monkeypatch.setattr(bots, "deliver", spy_deliver)
    monkeypatch.setattr(bots, "lapse", spy_lapse)

    api.create(HUMANS[0], options={"anonymous": True})
    pids = ["p1"] + [api.join(n) for n in HUMANS[1:]]
    for pid in pids:
        assert api.connect(f"c{pid}", pid) == 200
    assert api.connect("cspec") == 200
    for _ in range(4):
        api.send("cp1", {"action": "addBot"})
    for pid in pids[1:]:
        api.send(f"c{pid}", {"action": "ready"})
    lobby = api.snapshot().room
    secret = lobby["seed"]
    lobby_names = [p["name"] for p in lobby["players"]]
    keys = {label: rng.derive(secret, label) for label in rng.LABELS}
    assert len(secret) == 64 and int(secret, 16) >= 0  # 256 bits
    rests = [json.dumps(api.rest("GET", f"/rooms/{api.code}")[1])]  # the lobby's summary too

    api.send("cp1", {"action": "start", "id": "go"})
    snap = api.snapshot()
    room = snap.room
    assert room["status"] == "running", api.gw.last("cp1", "error")
    # the seat shuffle and the aliases are the `aliases` key's draw (verify uses the same sizes)
    assert verify.ALIAS_WORDS == (len(aliases.ADJECTIVES), len(aliases.ANIMALS))
    draw = rng.alias_draw(secret, len(lobby_names), *verify.ALIAS_WORDS)
    assert [p["name"] for p in room["players"]] == [lobby_names[i] for i in draw["order"]]
    assert [room["anon"]["aliases"][p["id"]] for p in room["players"]] == [
        [a, b] for a, b in zip(draw["adjectives"], draw["animals"], strict=True)
    ]

    conn_of = {pid: conn for conn, pid in snap.conns.items() if pid}
    play = random.Random("randomness")
    report_id = None
    for step in range(900):
        snap = api.snapshot()
        if snap.room["status"] != "running":
            break
        mine = [a for a in legal_actions(snap.state, now=api.clock.t) if a["player"] in conn_of]
        if mine and play.random() < 0.5:
            action = dict(play.choice(mine))
            conn = conn_of[action.pop("player")]
            api.send(conn, {"action": action.pop("type"), "id": f"a{step}", **action})
        if report_id is None and snap.state["phase"]["kind"] not in ("roleReveal", "night"):
            reporter = snap.conns["cp2"]
            other = next(p["id"] for p in snap.room["players"] if p["id"] != reporter)
            body = json.dumps({"action": "report", "id": "r1", "target": other, "reason": "spam"})
            assert ws_report.handler(ws_event("report", "cp2", body=body), CTX)["statusCode"] == 200
            report_id = api.gw.last("cp2", "reported")["report"]["id"]
        if step % 10 == 0:
            rests.append(json.dumps(api.rest("GET", f"/rooms/{api.code}")[1]))
        view = api.gw.last("cspec")["view"]
        due = [t for t in (api.next_wake(), view["phase"]["endsAt"]) if t is not None]
        api.clock.t = max(api.clock.t, min(due)) + 0.01 if due else api.clock.t + 1
        api.fire_due()  # the Scheduler delivers what is due: the bots' private wakes, the phase timer
        api.send("cspec", {"action": "nudge", "phase": view["phase"]["seq"]})
    assert api.snapshot().room["status"] == "ended"

    # the bots were only ever given their own key
    assert given and set(given) == {keys["bots"]}
    # no byte of the secret or of any key it derives before the first ended view, nor in a
    # REST summary while the game ran
    ended_at = next(
        i
        for i, (_, f) in enumerate(api.gw.sent)
        if f["type"] == "view" and f["view"]["phase"]["kind"] == "ended"
    )
    before = [json.dumps(f) for _, f in api.gw.sent[:ended_at]]
    assert len(before) > 100 and any(f["type"] == "reported" for _, f in api.gw.sent[:ended_at])
    for text in [*before, *rests]:
        assert secret not in text
        assert not any(k in text for k in keys.values())
    # a report names its game by the commitment's start, never by the secret
    state = api.state()
    filed = reports.Reports(api.svc.store).get(report_id)
    assert filed.game == state["fairness"]["commitment"][: reports.GAME_ID_HEX]

    # the end reveals the secret; verify replays the deal and the anonymous draw from it
    end = api.gw.last("cspec")["view"]
    assert end["fairness"]["seed"] == secret
    seats = [p["id"] for p in sorted(end["players"], key=lambda p: p["seat"])]
    argv = [
        "--seed", json.dumps(end["fairness"]["seed"]), "--salt", end["fairness"]["salt"],
        "--commitment", end["fairness"]["commitment"], "--players", ",".join(seats),
        "--options", json.dumps(end["options"]), "--anonymous", "--json",
    ]  # fmt: skip
    out = _verify(argv)
    assert out["verified"] is True
    shown = {p["id"]: p["role"] for p in end["result"]["players"]}
    assert {s["id"]: s["role"] for s in out["seats"]} == shown
    by_id = {p["id"]: p for p in end["players"]}
    for s in out["seats"]:
        assert lobby_names[s["lobby"] - 1] == by_id[s["id"]]["name"]
        assert aliases.words(*s["alias"]) == by_id[s["id"]]["alias"]
    assert out["keys"] == keys


def _verify(argv: list[str]) -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert verify.main(argv) == 0
    return json.loads(buf.getvalue())


def test_a_new_game_in_the_room_draws_a_new_secret(api):
    api.start(5)
    first = api.snapshot().room["seed"]
    api.send("cp1", {"action": "endGame"})
    api.send("cp1", {"action": "newGame"})
    second = api.snapshot().room["seed"]
    assert first != second and len(first) == len(second) == 64
    assert rng.derive(first, "deal") != rng.derive(second, "deal")
