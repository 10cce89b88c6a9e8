"""The spectator cap under a burst, over real sockets: 60 spectators open a socket to one room
at once (the offline stack runs `$connect` in several containers at once, as Lambda does)
and exactly the cap get in; the rest are refused at the upgrade (403). One at a time it was
always exact; at once 21-23 got in while a spectator's connect wrote nothing of its own
(tests/functions/test_admission_burst.py has the same burst on moto)."""

from __future__ import annotations

import asyncio

import aiohttp

from local.client import Api, fill_room
from service.room.connections import MAX_SPECTATORS

from .stackproc import run

BURST = 60


def test_a_burst_of_60_spectator_sockets_admits_exactly_the_cap(game_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            seats = await fill_room(Api(http, game_stack.url), 2)
            room, ws_url = seats[0].room, seats[0].ws_url
            url = f"{ws_url}?room={room}"
            # the bare upgrade (no wait for a first view): admitted is a socket, refused a 403
            outcomes = await asyncio.gather(
                *(http.ws_connect(url) for _ in range(BURST)), return_exceptions=True
            )
            inside = [o for o in outcomes if isinstance(o, aiohttp.ClientWebSocketResponse)]
            refused = [o for o in outcomes if isinstance(o, aiohttp.WSServerHandshakeError)]
            assert len(inside) == MAX_SPECTATORS, (len(inside), [type(o) for o in outcomes])
            assert len(refused) == BURST - MAX_SPECTATORS and {r.status for r in refused} == {403}
            # every one admitted is served
            for ws in inside:
                await ws.send_json({"action": "sync", "id": "s"})
                reply = await ws.receive_json(timeout=60)
                assert reply["type"] == "view" and reply["view"]["you"] is None, reply
            for ws in inside:
                await ws.close()

    run(body())
