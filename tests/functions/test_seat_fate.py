"""A page whose reconnect is refused asks what became of its seat (`POST /rooms/{code}/fate`,
the token in the `X-Mafia-Token` header; functions/service/room/rest_ops.py `seat_fate`): a seat
handed on while the page was offline (its farewell frame lost), removed, left, still held, a
wrong token, a room that is gone. One key, the same for every answer: no seat id, no name,
nobody who took it, no bot (docs/rules.md, "Idle seats"). Through the REST handler, on the
in-memory store."""

from __future__ import annotations

import json

import pytest
from fnkit import CTX
from test_afk import IDLE, room_seat, until

from handlers import rest
from local import events
from service.features import limits
from service.infra import auth

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)

ADDRESS = "198.51.100.7"


def fate(api, token, code=None, ip=ADDRESS):
    """The page's question, through CloudFront from address `ip` (its viewer address)."""
    headers = {} if token is None else {"X-Mafia-Token": token}
    event = events.rest_event(
        method="POST", path=f"/rooms/{code or api.code}/fate", headers=headers, body=None, source_ip=ip
    )
    out = rest.handler(event, CTX)
    return out["statusCode"], json.loads(out["body"])


def test_a_seat_handed_on_while_its_page_was_offline_answers_handed_on(api, capsys):
    """City, afkLimit 2: the idle seat's page is offline (its socket gone) when the
    seat is handed to a bot, so no `afk_replaced` reaches it; its reconnect is refused (403,
    a browser cannot read why), and the fate route tells it `handedOn`, nothing more. Every
    other answer has the same one key; the token is in no log line."""
    api.start(6, preset="city", options={"afkLimit": 2})
    old = api.tokens[IDLE]
    api.disconnect(f"c{IDLE}")  # the phone sleeps
    until(api, lambda: room_seat(api, IDLE).get("bot"))
    assert not api.errors(f"c{IDLE}") or api.errors(f"c{IDLE}")[-1]["code"] != "afk_replaced"
    assert api.connect("cback", token=old) == 403
    assert fate(api, old) == (200, {"fate": "handedOn"})
    assert fate(api, api.tokens["p3"]) == (200, {"fate": "held"})
    assert fate(api, "x" * 22) == (200, {"fate": "unknown"})  # a wrong token
    assert fate(api, "not a token!") == (200, {"fate": "unknown"})  # an ill-formed one
    assert fate(api, None) == (200, {"fate": "unknown"})  # none at all
    assert fate(api, old, code="ZZZZZ") == (200, {"fate": "gone"})
    assert old not in capsys.readouterr().out


def test_a_seat_that_left_or_was_removed_answers_so(api):
    """A running anonymous game (the seats have fresh ids since the start): a player who left on
    another device reads `left`; a seat the host removed reads `removed` (its page asleep at
    the time); a seat still held `held`."""
    api.start(7, options={"anonymous": True})
    api.disconnect("cp4")  # p4's page sleeps through its removal
    target = auth.find_player(api.snapshot().room["players"], api.tokens["p4"])
    assert target is not None and target != "p4"  # an alias id: nothing of it in the answer
    api.send("cp1", {"action": "kick", "target": target, "id": "k"})
    api.send("cp5", {"action": "leave", "id": "l"})
    assert fate(api, api.tokens["p4"]) == (200, {"fate": "removed"})
    assert fate(api, api.tokens["p5"]) == (200, {"fate": "left"})
    assert fate(api, api.tokens["p1"]) == (200, {"fate": "held"})


def test_a_substitutes_former_holder_reads_handed_on_not_left(api):
    """The newest token a seat retired decides `left`: the player who left reads `left`; once a
    substitute took the seat and left in turn, the first holder reads `handedOn` and the
    substitute `left` (a substitute's token is not the first holder's)."""
    api.start(7, options={"substitutes": True, "substituteApproval": False})
    api.send("cp5", {"action": "leave", "id": "l"})
    assert fate(api, api.tokens["p5"]) == (200, {"fate": "left"})
    assert api.connect("cnew") == 200
    api.send("cnew", {"action": "takeSeat", "seat": "p5", "name": "Newt", "device": "d" * 22, "id": "t"})
    given = [f for f in api.gw.to("cnew") if f["type"] == "seat"]
    assert given, api.errors("cnew")
    assert fate(api, api.tokens["p5"]) == (200, {"fate": "handedOn"})
    assert fate(api, given[-1]["token"]) == (200, {"fate": "held"})
    api.send("cnew", {"action": "leave", "id": "l2"})
    assert fate(api, given[-1]["token"]) == (200, {"fate": "left"})
    assert fate(api, api.tokens["p5"]) == (200, {"fate": "handedOn"})


def test_the_fate_route_spends_the_address_budget(api, monkeypatch):
    """Like every public path: one address's budget (`limits.SEAT_FATE`), then 429 with its
    wait, whatever the token; another address still reads."""
    monkeypatch.setattr(limits, "SEAT_FATE", limits.Budget("seatFate", 60, 0, 3))
    api.create("Ann")
    token = api.tokens["p1"]
    assert [fate(api, token)[0] for _ in range(3)] == [200, 200, 200]
    status, body = fate(api, token)
    assert status == 429 and body["error"]["code"] == "too_many_requests"
    assert fate(api, "x" * 22)[0] == 429
    assert fate(api, token, ip="203.0.113.9") == (200, {"fate": "held"})
