"""No one chooses the deal, on the offline stack (docs/rules.md, "Randomness"): three phones
commit to values of their own in the lobby and reveal them at the start over real
WebSockets; the game is played to its end by scripted players, and its deal is verified from
the ended view alone (the public record: `python -m mafia_engine.verify`'s inputs), mixed
with exactly those three values."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import secrets

import aiohttp

from local.client import Api, Bot, Player, fill_room, ready_up
from mafia_engine import fairness, verify

from .stackproc import run


def _commitment(value: str) -> str:
    return hashlib.sha256(f"mafia-deal-v3-client:{value}".encode()).hexdigest()


def _argv(view: dict) -> list[str]:
    """`verify`'s arguments, every one read from the ended view (what the end screen shows)."""
    f = view["fairness"]
    seats = [p["id"] for p in sorted(view["players"], key=lambda p: p["seat"])]
    shown = {p["id"]: p["role"] for p in view["result"]["players"]}
    return [
        "--scheme", f["scheme"],
        "--seed", json.dumps(f["seed"]),
        "--salt", f["salt"],
        "--commitment", f["commitment"],
        "--server-commitment", f["serverCommitment"],
        "--contributions", json.dumps(f["contributions"]),
        "--players", ",".join(seats),
        "--options", json.dumps(view["options"]),
        "--roles", ",".join(shown[p] for p in seats),
        "--json",
    ]  # fmt: skip


def test_a_deal_mixing_three_phones_values_verifies_from_the_public_record_alone(game_stack, capsys):
    async def body():
        async with aiohttp.ClientSession() as http:
            api = Api(http, game_stack.url)
            seats = await fill_room(api, 6)
            players = [await Player.connect(http, s) for s in seats]
            host = players[0]
            lobby = await host.wait_view(lambda v: v["room"].get("deal"))
            server = lobby["room"]["deal"]["serverCommitment"]
            values = {p.seat_id(): secrets.token_hex(32) for p in players[:3]}  # as a phone draws one
            for p in players[:3]:
                await p.send("dealCommit", commitment=_commitment(values[p.seat_id()]))
            await host.wait_view(lambda v: len(v["room"]["deal"]["commitments"]) == 3)
            await asyncio.gather(*(ready_up(p) for p in players[1:]))
            await host.wait_view(lambda v: sum(1 for q in v["players"] if q.get("ready")) == 5)
            reply = await host.request("start")
            assert reply.get("type") == "view", reply
            for p in players[:3]:  # each phone reveals once the start asks
                await p.wait_view(lambda v: v["phase"]["kind"] != "lobby" or v["room"]["deal"]["revealUntil"])
                if p.view["phase"]["kind"] == "lobby":
                    await p.send("dealReveal", value=values[p.seat_id()])
            for p in players:
                await p.wait_view(lambda v: v["phase"]["kind"] != "lobby", timeout=20)
            assert host.view["fairness"]["serverCommitment"] == server  # the lobby's, unchanged
            bots = [Bot(p, random.Random(i)) for i, p in enumerate(players)]
            finals = await asyncio.gather(*(b.play(timeout=300) for b in bots))
            for p in players:
                await p.close()
            return finals[0], values

    final, values = run(body(), timeout=400)
    f = final["fairness"]
    assert f["scheme"] == fairness.SCHEME_V3 and f["seed"] and f["salt"]
    assert sorted(c["value"] for c in f["contributions"]) == sorted(values.values())
    capsys.readouterr()
    assert verify.main(_argv(final)) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is True and out["mixed"]["values"] == 3 and out["mixed"]["dropped"] == 0
    # and not a deal of the server's secret alone: the same record without one value fails
    forged = json.loads(json.dumps(final))
    forged["fairness"]["contributions"][0]["value"] = None
    assert verify.main(_argv(forged)) == 1
