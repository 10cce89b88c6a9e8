"""No one chooses the deal, on the offline stack (docs/rules.md, "Randomness"): three phones
commit to values of their own in the lobby and reveal them at the start over real
WebSockets (a fourth never does: dropped); the host ends the game and its deal is verified
from the ended view alone (the public record: `python -m mafia_engine.verify`'s inputs),
mixed with exactly those three values."""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets

import aiohttp

from local.client import Api, Player, fill_room, ready_up
from mafia_engine import fairness, verify
from service.features.fairness import REVEAL_SECONDS

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


def test_a_deal_mixing_three_phones_values_verifies_from_the_public_record_alone(manual_stack, capsys):
    """Four phones commit, three reveal, the fourth never does: once the wait is over (game
    time stepped to it, the Scheduler's delivery) the game is dealt with three values and the
    fourth dropped; the host ends it and the ended view alone verifies."""

    async def body():
        async with aiohttp.ClientSession() as http:
            api = Api(http, manual_stack.url)
            seats = await fill_room(api, 6)
            players = [await Player.connect(http, s) for s in seats]
            host = players[0]
            lobby = await host.wait_view(lambda v: v["room"].get("deal"))
            server = lobby["room"]["deal"]["serverCommitment"]
            values = {p.seat_id(): secrets.token_hex(32) for p in players[:4]}  # as a phone draws one
            for p in players[:4]:
                await p.send("dealCommit", commitment=_commitment(values[p.seat_id()]))
            await host.wait_view(lambda v: len(v["room"]["deal"]["commitments"]) == 4)
            await asyncio.gather(*(ready_up(p) for p in players[1:]))
            await host.wait_view(lambda v: sum(1 for q in v["players"] if q.get("ready")) == 5)
            reply = await host.request("start")
            assert reply.get("type") == "view", reply
            for p in players[:3]:  # three phones reveal once the start asks; the fourth never does
                await p.wait_view(lambda v: v["room"]["deal"]["revealUntil"])
                await p.send("dealReveal", value=values[p.seat_id()])
            await host.wait_view(lambda v: len(v["room"]["deal"]["revealed"]) == 3)
            assert host.view["phase"]["kind"] == "lobby"  # waiting for the fourth
            # the wait's end: its Scheduler delivery (one that comes early is re-armed for the second)
            await manual_stack.astep(advance=REVEAL_SECONDS)
            for _ in range(3):
                try:
                    await host.wait_view(lambda v: v["phase"]["kind"] != "lobby", timeout=5)
                    break
                except TimeoutError:
                    await manual_stack.astep(to="next")
            for p in players:
                await p.wait_view(lambda v: v["phase"]["kind"] != "lobby", timeout=20)
            assert host.view["fairness"]["serverCommitment"] == server  # the lobby's, unchanged
            await host.send("endGame")
            final = await host.wait_view(lambda v: v.get("result") and v["fairness"]["seed"], timeout=20)
            for p in players:
                await p.close()
            return final, values

    final, values = run(body(), timeout=120)
    f = final["fairness"]
    assert f["scheme"] == fairness.SCHEME_V3
    revealed = sorted(c["value"] for c in f["contributions"] if c["value"] is not None)
    assert revealed == sorted(list(values.values())[:3])
    assert [c["value"] for c in f["contributions"]].count(None) == 1  # the fourth: dropped, in public
    capsys.readouterr()
    assert verify.main(_argv(final)) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is True and out["mixed"]["values"] == 3 and out["mixed"]["dropped"] == 1
    # a record that hides one more value fails: the deal was committed with it
    forged = json.loads(json.dumps(final))
    forged["fairness"]["contributions"][[c["value"] is None for c in f["contributions"]].index(False)][
        "value"
    ] = None
    assert verify.main(_argv(forged)) == 1
