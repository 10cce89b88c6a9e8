"""The fuzz tier once through the offline stack's real sockets: hostile frames from every seat
and a spectator of a running game, then the game is played to the end by scripted players.

The bulk of the tier (10,000 frames, the stored room compared after every refusal) runs
through the handlers on moto in tests/functions/test_fuzz.py; this checks the same replies
come back over real WebSockets: strict JSON, a view or an error with a code, no
`internal_error` and no API Gateway "Internal server error" frame.
"""

from __future__ import annotations

import asyncio
import math
import os
import random

import aiohttp

from local.client import Api, Bot, Player, fill_room, start_game
from tests.hostile_frames import HostileFrames, Room

from .stackproc import run

FRAMES = int(os.environ.get("FUZZ_E2E_FRAMES", "400"))


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def _bad_replies(players: list[Player]) -> list:
    bad = []
    for p in players:
        for got in p.frames:
            data = got.data
            if not isinstance(data, dict) or data.get("type") not in ("view", "error") or not _finite(data):
                bad.append(data)  # unparsable text, NaN, or API Gateway's "Internal server error"
            elif data["type"] == "error" and (not data.get("code") or data["code"] == "internal_error"):
                bad.append(data)
    return bad


def test_hostile_frames_over_real_sockets_then_the_game_ends(game_stack):
    async def stats(http) -> dict:
        async with http.get(game_stack.url.rstrip("/") + "/_local/stats") as resp:
            return await resp.json()

    async def body():
        async with aiohttp.ClientSession() as http:
            errors_before = (await stats(http))["handler_errors"]
            api = Api(http, game_stack.url)
            players = await start_game(http, await fill_room(api, 6))
            spectator = await Player.connect(http, room=players[0].room, ws_url=game_stack.ws_url)
            everyone = players + [spectator]
            gen = HostileFrames(seed=15)
            rng = random.Random(15)
            room = Room(players[0].room, [f"p{i}" for i in range(1, 7)])
            sent = 0
            while sent < FRAMES:
                sender = rng.choice([p for p in everyone if not p.closed])
                text = gen.frame(room)
                if any(op in text for op in ('"leave"', '"endGame"', '"pause"', '"kick"')):
                    # the game is to be played to its end by these very players (a host's kick
                    # removes one from a running game and closes their socket)
                    continue
                await sender.send_raw(text)
                sent += 1
                if sent % 20 == 0:  # let the replies catch up now and then
                    await sender.request("sync")
            for p in everyone:
                if not p.closed:
                    await p.request("sync")
            open_players = [p for p in players if not p.closed]
            bots = [Bot(p, random.Random(100 + i)) for i, p in enumerate(open_players)]
            finals = await asyncio.gather(*(b.play(timeout=120) for b in bots))
            assert all(f.get("result") for f in finals), "the game could not be played to the end"
            bad = _bad_replies(everyone)
            assert not bad, bad[:5]
            assert (await stats(http))["handler_errors"] == errors_before
            for p in everyone:
                await p.close()
            print({"e2eFuzz": {"frames": sent, "internalErrors": 0, "invalidJsonReplies": len(bad)}})

    run(body(), timeout=240)
